/*
 * pipeline.c - build on the CPU cores, grade on the GPUs, record at once.
 *
 * Submissions with the same source (sha256) form one job: built and graded
 * once, the result recorded for each of them. Up to -j builds run at a time
 * (`make lab-lib`, each in its own scratch folder holding labN.cu and a copy of
 * common/); each finished build joins a queue that --graders-per-gpu graders
 * per GPU take from, so a GPU waits for nvcc only when the queue is empty.
 * Graders of one GPU overlap where they do not use it (opening it, the
 * recorder, reports) and take turns where they do (the GPU's lock, see
 * grader/run/gpu_lock.h); each says on its --status-fd pipe when its turn
 * came, and its time limit counts from then, so waiting behind a slow
 * neighbour never costs a student. One meter server per GPU (smemlab-grade
 * --serve-meter, grader/grade/meter_server.h) measures for the graders of that GPU,
 * so that the GPU and its profiler are opened once, not once a submission;
 * one that ends (a kernel hung or broke its context) is started again, and
 * while none answers the graders measure by themselves. Every child is the
 * leader of its own process group: a grader past the time limit is killed
 * with everything it started. One event loop (waitpid), no threads.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "../base/provenance.h"
#include "../base/exit_codes.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The jail stops a build at its wall limit (batch_build_wall_s) itself; the
 * batch kills one that outlives that by this much (a jail that could not
 * kill, a make that hangs). */
#define BUILD_GRACE_S 30.0

typedef enum { J_QUEUED, J_BUILDING, J_BUILT, J_GRADING, J_DONE } job_state;

typedef struct job {
    int *subs, n_subs;     /* indexes into the submissions */
    job_state state;
    char dir[4096];        /* scratch folder of this source */
    pid_t pid;
    double started, build_s, grade_s;
    int gpu_slot;
    int status_fd;         /* read end of the grader's --status-fd pipe; -1 */
    double gpu_since;      /* when its grader said it has the GPU; 0: not yet */
    double gpu_held_s;
    result outcome;        /* filled for the first submission, copied to the others */
} job;

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

static char scratch_root[4096];

static int copy_file(const char *from, const char *to)
{
    size_t len;
    char *data = read_file_all(from, &len, 0);
    if (!data)
        return -1;
    int rc = write_file(to, data, len);
    free(data);
    return rc;
}

/* SCRATCH/N/labN.cu and SCRATCH/N/common/ (every file of the kit's common/). */
static int prepare_scratch(const batch_opts *o, job *j, const submission *s, int n)
{
    snprintf(j->dir, sizeof j->dir, "%s/%d", scratch_root, n);
    char p[4200], from[4200];
    snprintf(p, sizeof p, "%s/common", j->dir);
    if (mkdir(j->dir, 0700) || mkdir(p, 0700))
        return -1;
    snprintf(from, sizeof from, "%s/common", o->kit);
    DIR *d = opendir(from);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char a[4400], b[4400];
        snprintf(a, sizeof a, "%s/%s", from, e->d_name);
        snprintf(b, sizeof b, "%s/common/%s", j->dir, e->d_name);
        if (copy_file(a, b)) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    snprintf(p, sizeof p, "%s/%s.cu", j->dir, o->lab->id);
    return write_file(p, s->code, s->code_len);
}

/*
 * Stop a child and everything in its process group. A build gets SIGTERM
 * first: the jail (grader/jail/) then kills its compiler's process group,
 * which is not ours; SIGKILL follows within two seconds either way.
 */
static void stop_child(pid_t pid, int *status)
{
    kill(-pid, SIGTERM);
    kill(pid, SIGTERM);
    for (int i = 0; i < 200; i++) {
        if (waitpid(pid, status, WNOHANG) == pid) {
            kill(-pid, SIGKILL);
            return;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
}

/* Run argv with output to log_path; status_wr (or -1) becomes its fd 3. */
static pid_t spawn(char *const argv[], const char *log_path, int status_wr)
{
    pid_t pid = fork();
    if (pid > 0)
        setpgid(pid, pid); /* here too: a kill(-pid) before the child ran must find its group */
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    int st = status_wr >= 0 ? fcntl(status_wr, F_DUPFD_CLOEXEC, 10) : -1;
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || nul < 0 || (status_wr >= 0 && st < 0))
        _exit(127);
    dup2(nul, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    if (st >= 0)
        dup2(st, 3); /* not close-on-exec: the grader's --status-fd 3 */
    unsetenv("MAKEFLAGS"); /* a `make batch` above us: not its jobserver */
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
    execvp(argv[0], argv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void start_build(const batch_opts *o, job *j)
{
    char a_lab[64], a_src[4300], a_out[4300], a_common[4300], a_arch[1100], a_nvcc[1100],
        a_kit[4200], log[4300], a_time[64], a_mem[64], a_outcap[64], a_log[64], a_sandbox[64],
        a_verdict[4300];
    snprintf(a_lab, sizeof a_lab, "LAB=%s", o->lab->id);
    snprintf(a_src, sizeof a_src, "SRC=%s/%s.cu", j->dir, o->lab->id);
    snprintf(a_out, sizeof a_out, "OUT=%s/%s.so", j->dir, o->lab->id);
    snprintf(a_common, sizeof a_common, "LAB_COMMON=%s/common", j->dir);
    snprintf(a_arch, sizeof a_arch, "NVCC_ARCH=%s", o->nvcc_arch ? o->nvcc_arch : "");
    snprintf(a_nvcc, sizeof a_nvcc, "NVCC=%s", o->nvcc ? o->nvcc : "nvcc");
    snprintf(a_kit, sizeof a_kit, "%s", o->kit);
    snprintf(a_time, sizeof a_time, "BUILD_TIMEOUT=%g", o->build_timeout);
    snprintf(a_mem, sizeof a_mem, "BUILD_MEMORY=%lld", o->build_memory);
    snprintf(a_outcap, sizeof a_outcap, "BUILD_OUTPUT=%lld", o->build_output);
    snprintf(a_log, sizeof a_log, "BUILD_LOG=%lld", o->build_log);
    snprintf(a_sandbox, sizeof a_sandbox, "BUILD_SANDBOX=%s", o->build_sandbox);
    snprintf(a_verdict, sizeof a_verdict, "BUILD_VERDICT=%s/build.verdict", j->dir);
    snprintf(log, sizeof log, "%s/build.log", j->dir);
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)o->make;
    argv[n++] = "-s";
    argv[n++] = "--no-print-directory";
    argv[n++] = "-C";
    argv[n++] = a_kit;
    argv[n++] = "lab-lib";
    argv[n++] = a_lab;
    argv[n++] = a_src;
    argv[n++] = a_out;
    argv[n++] = a_common;
    argv[n++] = a_time;
    argv[n++] = a_mem;
    argv[n++] = a_outcap;
    argv[n++] = a_log;
    argv[n++] = a_sandbox;
    argv[n++] = a_verdict;
    if (o->nvcc_arch)
        argv[n++] = a_arch;
    if (o->nvcc)
        argv[n++] = a_nvcc;
    argv[n] = NULL;
    j->started = now_seconds();
    j->pid = spawn(argv, log, -1);
    j->state = J_BUILDING;
}

/* --- meter servers: one per GPU --------------------------------------------------- */

/* A server that ends sooner than this after its start, for a reason not a
 * student's, has failed to start. Generous: starting means a CUDA context,
 * which takes seconds on a slow or busy machine (at 2 s, a loaded 2-core
 * machine saw a failing server's end come too late to count, and it was
 * started again and again). */
#define METER_QUICK_S 15.0
#define METER_GIVE_UP 3    /* ...this many times in a row is not started again */

typedef struct meter {
    pid_t pid;            /* 0: not running */
    char socket[108];     /* "": none (given up, or the path would not fit) */
    char log[4300];       /* its output, in the scratch folder */
    double started;
    int quick_ends;
} meter;

static meter meters[64]; /* by index into o->gpus */

static void start_meter(const batch_opts *o, int g)
{
    meter *m = &meters[g];
    char dev[16];
    snprintf(dev, sizeof dev, "%d", o->gpus[g]);
    char **argv = calloc((size_t)o->n_grader_args + 12, sizeof *argv);
    int n = 0;
    argv[n++] = (char *)o->grader;
    argv[n++] = "--serve-meter";
    argv[n++] = m->socket;
    argv[n++] = "--device";
    argv[n++] = dev;
    for (int i = 0; i < o->n_grader_args; i++)
        argv[n++] = o->grader_args[i];
    argv[n++] = "--course";
    argv[n++] = (char *)(o->course_path ? o->course_path : "none");
    argv[n] = NULL;
    m->started = now_seconds();
    m->pid = spawn(argv, m->log, -1);
    free(argv);
}

/* The last non-empty line of a file (a child's log), or "" */
static void last_line(const char *path, char *out, size_t n)
{
    char line[512];
    FILE *f = fopen(path, "re");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (line[0] && line[0] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, n, "%s", line);
        }
    if (f)
        fclose(f);
}

static void start_meters(const batch_opts *o)
{
    for (int g = 0; g < o->n_gpus; g++) {
        meter *m = &meters[g];
        memset(m, 0, sizeof *m);
        snprintf(m->log, sizeof m->log, "%s/meter-%d.log", scratch_root, o->gpus[g]);
        int len = snprintf(m->socket, sizeof m->socket, "%s/meter-%d.sock", scratch_root,
                           o->gpus[g]);
        if (o->no_meter_server || len < 0 || (size_t)len >= sizeof m->socket)
            m->socket[0] = '\0'; /* graders measure by themselves */
        else
            start_meter(o, g);
    }
}

/*
 * pid ended: if it was a meter server, start it again (not one that keeps
 * failing). A server ends on purpose after a lost CUDA context (status 0) or a
 * hung kernel (the worker's timeout status): those are a student's, and never
 * count towards giving up.
 */
static int meter_ended(const batch_opts *o, pid_t pid, int status)
{
    int students = WIFEXITED(status) &&
                   (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == WORKER_EXIT_TIMEOUT);
    for (int g = 0; g < o->n_gpus; g++) {
        meter *m = &meters[g];
        if (m->pid != pid || pid <= 0)
            continue;
        m->pid = 0;
        m->quick_ends = !students && now_seconds() - m->started < METER_QUICK_S
                            ? m->quick_ends + 1 : 0;
        if (m->quick_ends >= METER_GIVE_UP) {
            char said[512] = "";
            last_line(m->log, said, sizeof said);
            fprintf(stderr, "smemlab-batch: the meter server of GPU %d keeps ending (last it "
                    "said: %s); graders measure by themselves\n", o->gpus[g],
                    said[0] ? said : "nothing");
            m->socket[0] = '\0';
        } else if (!stop_signal) {
            start_meter(o, g);
        }
        return 1;
    }
    return 0;
}

static void stop_meters(const batch_opts *o)
{
    for (int g = 0; g < o->n_gpus; g++)
        if (meters[g].pid > 0) {
            kill(-meters[g].pid, SIGKILL);
            kill(meters[g].pid, SIGKILL);
            waitpid(meters[g].pid, NULL, 0);
            meters[g].pid = 0;
        }
}

/* Grader slot s grades on GPU s % n_gpus: a second GPU is used before a second grader. */
static int gpu_of_slot(const batch_opts *o, int slot)
{
    return o->gpus[slot % o->n_gpus];
}

static void start_grade(const batch_opts *o, job *j, int slot, const char *sha256)
{
    char so[4300], src[4300], json[4300], dev[16], log[4300], page[4300];
    snprintf(so, sizeof so, "%s/%s.so", j->dir, o->lab->id);
    snprintf(src, sizeof src, "%s/%s.cu", j->dir, o->lab->id); /* its PREDICT lines */
    snprintf(json, sizeof json, "%s/grade.json", j->dir);
    snprintf(log, sizeof log, "%s/grade.log", j->dir);
    snprintf(dev, sizeof dev, "%d", gpu_of_slot(o, slot));
    int status[2] = {-1, -1};
    if (pipe2(status, O_CLOEXEC) == 0)
        fcntl(status[0], F_SETFL, O_NONBLOCK);
    char **argv = calloc((size_t)o->n_grader_args + 24, sizeof *argv);
    int n = 0;
    argv[n++] = (char *)o->grader;
    argv[n++] = "--lib";
    argv[n++] = so;
    argv[n++] = "--source";
    argv[n++] = src;
    argv[n++] = "--json";
    argv[n++] = json;
    /* the report page of this source, every student who sent it (reports.c links it) */
    snprintf(page, sizeof page, "%s/pages", o->results);
    if (mkdir_p(page, 0755) == 0) {
        snprintf(page, sizeof page, "%s/pages/%s.html", o->results, sha256);
        argv[n++] = "--html";
        argv[n++] = page;
    }
    argv[n++] = "--device";
    argv[n++] = dev;
    const char *socket = meters[slot % o->n_gpus].socket;
    if (socket[0]) {
        argv[n++] = "--meter-socket";
        argv[n++] = (char *)socket;
    }
    if (status[1] >= 0) {
        argv[n++] = "--status-fd";
        argv[n++] = "3";
    }
    for (int i = 0; i < o->n_grader_args; i++)
        argv[n++] = o->grader_args[i];
    argv[n++] = "--course"; /* the batch's, as it told the class's way (identity.c) */
    argv[n++] = (char *)(o->course_path ? o->course_path : "none");
    argv[n++] = (char *)o->lab->id;
    argv[n] = NULL;
    j->started = now_seconds();
    j->pid = spawn(argv, log, status[1]);
    free(argv);
    if (status[1] >= 0)
        close(status[1]);
    j->status_fd = status[0];
    j->gpu_since = 0;
    j->gpu_slot = slot;
    j->state = J_GRADING;
}

/* Has the grader said it has the GPU ("gpu" on its status pipe)? */
static void poll_status(job *j)
{
    char buf[64];
    ssize_t got;
    while (j->status_fd >= 0 && (got = read(j->status_fd, buf, sizeof buf)) > 0)
        if (!j->gpu_since && memchr(buf, '\n', (size_t)got))
            j->gpu_since = now_seconds();
}

/*
 * How long a grader may run: time_limit from when it has the GPU; before
 * that, its turn may come after every other grader of its GPU used its own
 * limit, so per_gpu times as long.
 */
static int over_limit(const batch_opts *o, const job *j, double t)
{
    if (j->state == J_BUILDING)
        return t - j->started > batch_build_wall_s(o) + BUILD_GRACE_S;
    if (j->state != J_GRADING)
        return 0;
    if (j->gpu_since > 0)
        return t - j->gpu_since > o->time_limit;
    return t - j->started > o->time_limit * o->per_gpu;
}

/* --- what a build said ------------------------------------------------------------ */

/* The log's first line that says something (not make's "make: *** [target] Error
 * N", which only says that a recipe failed), the scratch folder cut out; "" if none. */
static void log_first_line(const char *log, const char *dir, char *out, size_t size)
{
    char *text = read_file_all(log, NULL, 1 << 20);
    out[0] = 0;
    for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save))
        if (l[strspn(l, " \t\r")] && strncmp(l, "make: *** [", 11)) {
            snprintf(out, size, "%.300s", l + strspn(l, " \t"));
            break;
        }
    free(text);
    result tmp = {0};
    snprintf(tmp.reason, sizeof tmp.reason, "%s", out);
    result_scrub(&tmp, dir);
    snprintf(out, size, "%s", tmp.reason);
}

/*
 * The compiler's first lines about the student's own file, for their
 * feedback: the diagnostics that name lab_file (or common/), each with the
 * source line and caret nvcc quotes under it; never another file's lines,
 * never the scratch folder. At most 12 lines.
 */
static void compiler_lines(const char *log, const char *dir, const char *lab_file, char *out,
                           size_t size)
{
    char *text = read_file_all(log, NULL, 1 << 20);
    size_t o = 0, fl = strlen(lab_file), dl = strlen(dir);
    int lines = 0, quoting = 0;
    out[0] = 0;
    for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l && lines < 12;
         l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, dir, dl) && l[dl] == '/')
            l += dl + 1;
        int ours = (!strncmp(l, lab_file, fl) && (l[fl] == '(' || l[fl] == ':')) ||
                   !strncmp(l, "common/", 7);
        int continuation = l[0] == ' ' || l[0] == '\t';
        if (ours)
            quoting = 1;
        else if (!continuation)
            quoting = 0;
        if (!quoting || strstr(l, dir))
            continue;
        o += (size_t)snprintf(out + o, o < size ? size - o : 0, "%s\n", l);
        lines++;
    }
    if (o >= size && size)
        out[size - 1] = 0;
    free(text);
}

/* --- results ------------------------------------------------------------------------ */

static void finish_job(const batch_opts *o, job *j, submission *subs, result *results,
                       int *done, int total, double t0)
{
    for (int i = 0; i < j->n_subs; i++) {
        int k = j->subs[i];
        result *r = &results[k];
        result_init_from_sub(r, &subs[k], o->lab);
        r->status = j->outcome.status;
        snprintf(r->reason, sizeof r->reason, "%s", j->outcome.reason);
        r->points = j->outcome.points;
        if (j->outcome.max_points > 0)
            r->max_points = j->outcome.max_points;
        r->build_seconds = j->build_s;
        r->grade_seconds = j->grade_s;
        r->grader_exit = j->outcome.grader_exit;
        snprintf(r->device, sizeof r->device, "%s", j->outcome.device);
        snprintf(r->provenance, sizeof r->provenance, "%s", j->outcome.provenance);
        snprintf(r->compiler, sizeof r->compiler, "%s", j->outcome.compiler);
        r->not_measured = j->outcome.not_measured;
        snprintf(r->predictions, sizeof r->predictions, "%s", j->outcome.predictions);
        r->final = j->outcome.final;
        r->max_here = j->outcome.n_checks ? j->outcome.max_here : r->max_points;
        snprintf(r->graded_with, sizeof r->graded_with, "%s", j->outcome.graded_with);
        r->grading = j->outcome.grading ? cJSON_Duplicate(j->outcome.grading, 1) : NULL;
        batch_provenance(o, r);
        if (j->outcome.n_checks) {
            r->checks = calloc((size_t)j->outcome.n_checks, sizeof *r->checks);
            for (int c = 0; c < j->outcome.n_checks; c++)
                check_rec_copy(&r->checks[c], &j->outcome.checks[c]);
            r->n_checks = j->outcome.n_checks;
        }
        char err[512];
        if (record_write(o->results, r, err, sizeof err))
            fprintf(stderr, "smemlab-batch: %s\n", err);
        (*done)++;
        if (o->progress == 0) {
            char who[ID_MAX + NAME_MAX_B + 4];
            if (r->name[0] && strcmp(r->name, r->student))
                snprintf(who, sizeof who, "%s (%s)", r->name, r->student);
            else
                snprintf(who, sizeof who, "%s", r->student);
            if (r->status == ST_GRADED)
                printf("[%d/%d] %s: %g/%g%s%s\n", *done, total, who, r->points,
                       r->max_points, r->reason[0] ? " - " : "", r->reason);
            else
                printf("[%d/%d] %s: %s\n", *done, total, who, r->reason);
            fflush(stdout);
        } else if (o->progress == 1) {
            double el = now_seconds() - t0, rate = *done / (el > 0 ? el : 1);
            double eta = rate > 0 ? (total - *done) / rate : 0;
            fprintf(stderr, "\r\033[K[%d/%d] %.1f/s, ETA %d:%02d - %s: %s", *done, total,
                    rate, (int)eta / 60, (int)eta % 60, r->student, status_name(r->status));
            fflush(stderr);
        }
    }
    result_free_checks(&j->outcome);
    rm_rf(j->dir);
    j->state = J_DONE;
}

/*
 * What the build jail said, from its --verdict file: "refused: WHY" (a file
 * outside the submission, a forbidden directive), "limit: WHY" (time,
 * memory, output) and "error: WHY" (the compiler named an error in the
 * code) are the student's build's, "setup: WHY" the machine's (the jail
 * could not be set up, the toolchain would not run). 1 when there was one
 * (the outcome filled), 0 when not.
 */
static int jail_verdict(job *j)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/build.verdict", j->dir);
    char *text = read_file_all(path, NULL, 4096);
    if (!text)
        return 0;
    text[strcspn(text, "\n")] = 0;
    const char *why = strchr(text, ':');
    int found = why && why[1] == ' ' && why[2];
    if (found && !strncmp(text, "setup:", 6)) {
        j->outcome.status = ST_NOT_GRADED; /* not the student's fault: tried again next run */
        j->outcome.final = 0;
        snprintf(j->outcome.reason, sizeof j->outcome.reason,
                 "not graded: the grading machine could not build it: %s%s", why + 2,
                 strstr(why, "BUILD_SANDBOX=portable") ? " (smemlab-batch --build-sandbox "
                 "portable; docs/instructors.md#build-sandbox)" : "");
    } else if (found)
        snprintf(j->outcome.reason, sizeof j->outcome.reason, "%s", why + 2);
    free(text);
    return found;
}

static void build_done(const batch_opts *o, job *j, int status, int killed)
{
    j->build_s = now_seconds() - j->started;
    char so[4300], log[4300], lab_file[32], said[400];
    snprintf(so, sizeof so, "%s/%s.so", j->dir, o->lab->id);
    snprintf(log, sizeof log, "%s/build.log", j->dir);
    snprintf(lab_file, sizeof lab_file, "%s.cu", o->lab->id);
    if (!killed && WIFEXITED(status) && WEXITSTATUS(status) == 0 && access(so, R_OK) == 0) {
        j->state = J_BUILT;
        return;
    }
    j->outcome.status = ST_NOT_COMPILED;
    j->outcome.final = 1;
    j->outcome.grader_exit = -1;
    if (jail_verdict(j)) {
        if (!strncmp(j->outcome.reason, "does not ", 9)) /* the compiler's own words */
            compiler_lines(log, j->dir, lab_file, j->outcome.compiler,
                           sizeof j->outcome.compiler);
    } else if (killed) {
        snprintf(j->outcome.reason, sizeof j->outcome.reason, "the build ran past %g s",
                 batch_build_wall_s(o));
    } else { /* make failed before the jail ran, or around it: the machine's, not the code's */
        j->outcome.status = ST_NOT_GRADED;
        j->outcome.final = 0;
        log_first_line(log, j->dir, said, sizeof said);
        snprintf(j->outcome.reason, sizeof j->outcome.reason,
                 "not graded: the grading machine could not run the build (make lab-lib in %s, "
                 "status %d: %s): check that `make lab-tools` works there and that make and "
                 "nvcc are on PATH", o->kit, WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
                 WTERMSIG(status), said[0] ? said : "it said nothing");
    }
    j->state = J_DONE; /* finish_job follows */
}

static void grade_done(const batch_opts *o, job *j, int status, int killed)
{
    j->grade_s = now_seconds() - j->started;
    char json[4300], why[256];
    snprintf(json, sizeof json, "%s/grade.json", j->dir);
    const char *fallback = NULL;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (j->gpu_since > 0)
        j->gpu_held_s = now_seconds() - j->gpu_since;
    if (j->status_fd >= 0)
        close(j->status_fd);
    j->status_fd = -1;
    if (killed && j->gpu_since == 0) { /* its neighbours' fault, not the student's */
        j->outcome.status = ST_NOT_GRADED;
        j->outcome.final = 0;
        j->outcome.grader_exit = -1;
        snprintf(j->outcome.reason, sizeof j->outcome.reason,
                 "not graded: its grader did not get GPU %d within %g s (other graders kept "
                 "it busy); run the batch again", gpu_of_slot(o, j->gpu_slot),
                 o->time_limit * o->per_gpu);
        return;
    }
    if (killed) {
        snprintf(why, sizeof why, "grading took longer than the limit of %g s (killed)",
                 o->time_limit);
        fallback = why;
    } else if (WIFSIGNALED(status)) {
        snprintf(why, sizeof why, "the grader died (signal %d)", WTERMSIG(status));
        fallback = why;
    } else if (code == 2) {
        snprintf(why, sizeof why, "the grader refused its command line (exit 2): see "
                 "--grader-arg");
        fallback = why;
    }
    if (!result_from_grader_json(&j->outcome, json, code, fallback) && !fallback) {
        char log[4300], said[512] = "";
        snprintf(log, sizeof log, "%s/grade.log", j->dir);
        last_line(log, said, sizeof said);
        snprintf(j->outcome.reason, sizeof j->outcome.reason, "not graded: the grading machine "
                 "could not run the grader (exit status %d, no results; it said: %s): check "
                 "that %s runs here (make lab-tools)", code, said[0] ? said : "nothing",
                 o->grader);
    }
    if (killed)
        j->outcome.final = 1; /* a submission that hangs the grader hangs it again */
    result_scrub(&j->outcome, j->dir); /* the grader names the library by its scratch path */
    result_scrub(&j->outcome, scratch_root);
}

/*
 * Where the grading ran, as the graders said (their device lines), never as
 * the options assumed: "1 GPU x 3 graders with a meter server each" where a
 * GPU measured, "3 graders at a time, emulated on the CPU: no GPU found;
 * speed not measured" where none did.
 */
static int grading_where(const batch_opts *o, const job *jobs, int n_jobs, char *out,
                         size_t size)
{
    int gpu = 0, emulated = 0;
    const char *emu = "";
    for (int k = 0; k < n_jobs; k++) {
        const char *d = jobs[k].outcome.device;
        if (!strncmp(d, "emulated on the CPU", 19))
            emulated++, emu = d;
        else if (d[0])
            gpu++;
    }
    char prov[256] = "";
    device_provenance(emu, prov, sizeof prov);
    if (gpu)
        snprintf(out, size, "%d GPU%s x %d grader%s%s%s%s", o->n_gpus, o->n_gpus > 1 ? "s" : "",
                 o->per_gpu, o->per_gpu > 1 ? "s" : "", o->no_meter_server ? "" : " with a meter server each",
                 emulated ? "; some emulated on the CPU: " : "", emulated ? prov : "");
    else if (emulated)
        snprintf(out, size, "%d grader%s at a time, %s", o->n_gpus * o->per_gpu,
                 o->n_gpus * o->per_gpu > 1 ? "s" : "", prov);
    else
        snprintf(out, size, "%d grader%s at a time, none measured anything",
                 o->n_gpus * o->per_gpu, o->n_gpus * o->per_gpu > 1 ? "s" : "");
    return gpu;
}

/* The run's state: the jobs, the grader slots (n_gpus x per_gpu), the queue of
 * built jobs waiting for a slot, and what the Timing line sums. */
typedef struct {
    job *jobs;
    int n_jobs, total;         /* distinct sources; submissions to grade */
    int *slot_job, n_slots;    /* the job in each grader slot, or -1 */
    int *built_queue, q_head, q_tail;
    int building, next_build, finished, done;
    double t0, last, gpu_wait, sum_build, sum_grade, sum_held;
    int n_built, n_graded;
} pipeline;

/* One job per distinct source, in the order of the (sorted) submissions, each
 * in its scratch folder: 0, else -1 (said, and nothing left behind). */
static int make_jobs(const batch_opts *o, submission *subs, int n, pipeline *p)
{
    p->jobs = calloc((size_t)(n ? n : 1), sizeof *p->jobs);
    for (int i = 0; i < n; i++) {
        if (subs[i].status != ST_PENDING)
            continue;
        p->total++;
        int k;
        for (k = 0; k < p->n_jobs; k++)
            if (!strcmp(subs[p->jobs[k].subs[0]].sha256, subs[i].sha256))
                break;
        job *j = &p->jobs[k];
        if (k == p->n_jobs) {
            j->subs = calloc((size_t)n, sizeof(int));
            j->gpu_slot = -1;
            j->status_fd = -1;
            if (prepare_scratch(o, j, &subs[i], k) != 0) {
                fprintf(stderr, "smemlab-batch: cannot prepare %s: %s\n", j->dir, strerror(errno));
                free(j->subs);
                free(p->jobs);
                rm_rf(scratch_root);
                leftovers_forget(o->results);
                return -1;
            }
            p->n_jobs++;
        }
        /* the bytes are on disk now (or the same as its job's first submission's):
           the batch keeps no class's worth of sources */
        free(subs[i].code);
        subs[i].code = NULL;
        j->subs[j->n_subs++] = i;
    }
    return 0;
}

/* Builds up to -j at a time; each free grader slot takes the next built job. */
static void start_work(const batch_opts *o, pipeline *p, const submission *subs)
{
    double t_now = now_seconds();
    int grading = 0;
    for (int g = 0; g < p->n_slots; g++)
        grading += p->slot_job[g] >= 0;
    if (!grading && p->q_head == p->q_tail && (p->building > 0 || p->next_build < p->n_jobs))
        p->gpu_wait += t_now - p->last; /* no grader at all while builds are still to come */
    p->last = t_now;
    while (p->building < o->jobs && p->next_build < p->n_jobs) {
        start_build(o, &p->jobs[p->next_build++]);
        p->building++;
    }
    for (int g = 0; g < p->n_slots; g++)
        if (p->slot_job[g] < 0 && p->q_head < p->q_tail) {
            job *j = &p->jobs[p->built_queue[p->q_head++]];
            p->slot_job[g] = (int)(j - p->jobs);
            start_grade(o, j, g, subs[j->subs[0]].sha256);
        }
}

/* A child that ended, or one killed here for its limit (*killed): its pid, or
 * 0 when none did (the graders heard, after a short sleep). */
static pid_t next_ended(const batch_opts *o, pipeline *p, int *status, int *killed)
{
    *killed = 0;
    pid_t pid = waitpid(-1, status, WNOHANG);
    if (pid > 0)
        return pid;
    double t = now_seconds();
    for (int k = 0; k < p->n_jobs; k++) {
        job *j = &p->jobs[k];
        if (j->state == J_GRADING)
            poll_status(j);
        if (j->pid > 0 && over_limit(o, j, t)) {
            if (j->state == J_BUILDING)
                stop_child(j->pid, status);
            else {
                kill(-j->pid, SIGKILL);
                kill(j->pid, SIGKILL);
                waitpid(j->pid, status, 0);
            }
            *killed = 1;
            return j->pid;
        }
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return 0;
}

/* A job's build or grader ended: on to the queue of built jobs, or recorded. */
static void job_step_ended(const batch_opts *o, pipeline *p, int k, int status, int killed,
                           submission *subs, result *results)
{
    job *j = &p->jobs[k];
    kill(-j->pid, SIGKILL); /* whatever the child left running in its group */
    j->pid = 0;
    if (j->state == J_BUILDING) {
        p->building--;
        build_done(o, j, status, killed);
        p->sum_build += j->build_s;
        p->n_built++;
        if (j->state == J_BUILT) {
            p->built_queue[p->q_tail++] = k;
            return;
        }
    } else {
        p->slot_job[j->gpu_slot] = -1;
        poll_status(j); /* a "gpu" written just before it ended */
        grade_done(o, j, status, killed);
        p->sum_grade += j->grade_s;
        p->sum_held += j->gpu_held_s;
        p->n_graded++;
    }
    finish_job(o, j, subs, results, &p->done, p->total, p->t0);
    p->finished++;
}

/* The Timing line: submissions a second, building against grading. */
static void print_timing(const batch_opts *o, const pipeline *p)
{
    double wall = now_seconds() - p->t0;
    char where[600], held[128] = "", subs_n[48], srcs_n[48];
    if (grading_where(o, p->jobs, p->n_jobs, where, sizeof where))
        snprintf(held, sizeof held, ", of which a GPU was held %.1f s (%.2f s each)",
                 p->sum_held, p->n_graded ? p->sum_held / p->n_graded : 0);
    printf("Timing: %s (%s) in %.1f s, %.2f submissions/s; "
           "building %.1f s summed (%.2f s each, -j %d); grading %.1f s summed (%.2f s "
           "each, %s)%s; no grader running while builds were still to come %.1f s\n",
           count_of(p->done, "submission", "submissions", subs_n, sizeof subs_n),
           count_of(p->n_jobs, "distinct source", "distinct sources", srcs_n, sizeof srcs_n),
           wall, p->done / (wall > 0 ? wall : 1), p->sum_build,
           p->n_built ? p->sum_build / p->n_built : 0, o->jobs, p->sum_grade,
           p->n_graded ? p->sum_grade / p->n_graded : 0, where, held, p->gpu_wait);
}

int pipeline_run(const batch_opts *o, submission *subs, int n, result *results)
{
    if (leftovers_make_scratch(o, scratch_root, sizeof scratch_root) != 0) {
        fprintf(stderr, "smemlab-batch: cannot make a scratch folder %s: %s\n", scratch_root,
                strerror(errno));
        return -1;
    }
    pipeline p = {0};
    if (make_jobs(o, subs, n, &p))
        return -1;

    /* Ctrl-C, kill, a closed terminal or SSH session, a reader gone (| head): each
       ends the run the same way, its children stopped, nothing half-recorded */
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term, old_hup, old_pipe;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    sigaction(SIGPIPE, &sa, &old_pipe);

    start_meters(o);
    p.n_slots = o->n_gpus * o->per_gpu; /* graders at a time */
    p.slot_job = malloc((size_t)p.n_slots * sizeof *p.slot_job);
    for (int g = 0; g < p.n_slots; g++)
        p.slot_job[g] = -1;
    p.built_queue = calloc((size_t)(p.n_jobs ? p.n_jobs : 1), sizeof(int));
    p.t0 = p.last = now_seconds();

    while (p.finished < p.n_jobs && !stop_signal) {
        start_work(o, &p, subs);
        int status, killed;
        pid_t pid = next_ended(o, &p, &status, &killed);
        if (pid == 0)
            continue;
        int k;
        for (k = 0; k < p.n_jobs; k++)
            if (p.jobs[k].pid == pid && (p.jobs[k].state == J_BUILDING || p.jobs[k].state == J_GRADING))
                break;
        if (k == p.n_jobs)
            meter_ended(o, pid, status); /* not a job's */
        else
            job_step_ended(o, &p, k, status, killed, subs, results);
    }
    if (stop_signal) { /* interrupted: children go with us, nothing half-recorded */
        for (int k = 0; k < p.n_jobs; k++)
            if (p.jobs[k].pid > 0) {
                int st;
                stop_child(p.jobs[k].pid, &st);
            }
        for (int k = 0; k < p.n_jobs; k++)
            if (p.jobs[k].status_fd >= 0)
                close(p.jobs[k].status_fd);
    }
    stop_meters(o);
    if (o->progress == 1 && p.total)
        fprintf(stderr, "\n");
    if (o->progress >= 0 && p.total)
        print_timing(o, &p);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    for (int k = 0; k < p.n_jobs; k++)
        free(p.jobs[k].subs);
    free(p.jobs);
    free(p.built_queue);
    free(p.slot_job);
    rm_rf(scratch_root);
    if (o->task < 0)
        leftovers_forget(o->results);
    if (stop_signal) {
        fprintf(stderr, "smemlab-batch: interrupted (%s); %d of %d recorded, run again to "
                "finish\n", strsignal(stop_signal), p.done, p.total);
        int sig = stop_signal;
        signal(sig, SIG_DFL);
        raise(sig);
    }
    return 0;
}
