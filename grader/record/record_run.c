/* record_run.c - running the recorder and judging its records; see record_run.h. */
#define _GNU_SOURCE
#include "record_run.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

void record_default_paths(char *recorder, size_t rsize, char *fake, size_t fsize)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(recorder, rsize, "%s/smemlab-record", n > 0 ? exe : ".");
    snprintf(fake, fsize, "%s/record/libcudart.so.13", n > 0 ? exe : ".");
}

typedef struct spawn_args {
    pid_t grader;
    char *argv[7];
    int drop;
    uid_t uid;
    gid_t gid;
    double timeout_s;
} spawn_args;

/* In the child: limits, the unprivileged user, a minimal environment, the recorder. */
static void recorder_child(void *p)
{
    spawn_args *s = p;
    static char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C", "HOME=/nonexistent", NULL};
    struct rlimit core = {0, 0}, fsize = {16u << 20, 16u << 20}, files = {256, 256};
    struct rlimit memory = {4ull << 30, 4ull << 30}; /* no memory or thread bomb */
    setrlimit(RLIMIT_AS, &memory);
    rlim_t cpu = (rlim_t)s->timeout_s + 2;
    struct rlimit cpu_limit = {cpu, cpu};
    setrlimit(RLIMIT_CORE, &core);
    setrlimit(RLIMIT_FSIZE, &fsize); /* no filling the disk */
    setrlimit(RLIMIT_NOFILE, &files);
    setrlimit(RLIMIT_CPU, &cpu_limit);
    if (s->drop && (setgroups(0, NULL) != 0 || setgid(s->gid) != 0 || setuid(s->uid) != 0)) {
        fprintf(stderr, "smemlab: cannot switch to the --run-as user: %s\n", strerror(errno));
        _exit(126);
    }
    /* Changing the user clears the parent-death signal: set it again, and make sure
       the grader did not die in between. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != s->grader)
        _exit(127);
    child_exec(s->argv[0], s->argv, envp);
}

static int resolve_user(const grade_options *opt, spawn_args *s, char *why, size_t n)
{
    if (!opt->run_as)
        return 0;
    struct passwd *pw = getpwnam(opt->run_as);
    if (!pw) {
        snprintf(why, n, "--run-as %s: no such user", opt->run_as);
        return -1;
    }
    if (geteuid() != 0) {
        snprintf(why, n, "--run-as %s needs the grader to run as root", opt->run_as);
        return -1;
    }
    s->drop = 1;
    s->uid = pw->pw_uid;
    s->gid = pw->pw_gid;
    return 0;
}

/*
 * Can the --run-as user run the recorder and read what it loads? Asked in a
 * child of our own, before any student code runs, so that the answer is the
 * machine's: a recorder that cannot start (a private folder above the kit,
 * mode 0700 as mktemp -d makes) is never taken for a library that ended the
 * program. 0, or -1 with why filled.
 */
static int recorder_reachable(const spawn_args *s, const char *const paths[], const int modes[],
                              int n, const char *user, char *why, size_t why_size)
{
    if (!s->drop)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(s->gid) != 0 || setuid(s->uid) != 0)
            _exit(100);
        for (int i = 0; i < n; i++)
            if (access(paths[i], modes[i]) != 0)
                _exit(101 + i);
        _exit(0);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int code = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 100;
    if (code == 0)
        return 0;
    if (code > 100 && code <= 100 + n)
        snprintf(why, why_size, "the grading machine: the --run-as user %s cannot %s %s (a "
                 "folder above it is private, mode 0700?): make the kit's folders readable "
                 "to %s (chmod 755), or put the kit where %s can read it", user,
                 modes[code - 101] == X_OK ? "run" : "read", paths[code - 101], user, user);
    else
        snprintf(why, why_size, "the grading machine: cannot switch to the --run-as user %s",
                 user);
    return -1;
}

static void reject(kernel_plan *p, const char *fmt, const char *a, const char *b)
{
    if (p->verdict != PLAN_PENDING)
        return;
    p->verdict = PLAN_REJECTED;
    snprintf(p->why, sizeof p->why, fmt, a, b);
}

/* The function the dynamic loader could not bind, from its last "undefined symbol: NAME"
   in what the recorder printed: 1 with name filled, else 0. */
static int unbound_call(const capture *printed, char *name, size_t n)
{
    static char text[CAPTURE_HEAD + CAPTURE_TAIL + 256];
    const char *at = NULL, *p;
    size_t len = 0;
    if (!printed)
        return 0;
    capture_text(printed, text, sizeof text);
    for (p = text; (p = strstr(p, "undefined symbol: ")) != NULL; p++)
        at = p + strlen("undefined symbol: ");
    while (at && len + 1 < n && (at[len] == '_' || (at[len] >= '0' && at[len] <= '9') ||
                                 ((at[len] | 32) >= 'a' && (at[len] | 32) <= 'z')))
        len++;
    if (!at || len == 0)
        return 0;
    snprintf(name, n, "%.*s", (int)len, at);
    return 1;
}

/* Why a recorder that stopped early stopped, for the kernel it was on. */
static void describe_stop(const lab_kernel *k, int got, int status, double timeout_s,
                          int protocol, const capture *printed, char *buf, size_t n)
{
    char name[128];
    if (protocol)
        snprintf(buf, n, "while %s ran, the grader received something that is not a record "
                 "of its launches: a launcher must not write to the grader's pipe", k->launcher);
    else if (got < 0)
        snprintf(buf, n, "%s did not return within %.0f s: a launcher only launches kernels "
                 "and returns", k->launcher, timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "%s crashed: signal %d (%s). A launcher runs on the host: it must not "
                 "read or write through its pointers, which are device pointers",
                 k->launcher, WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && unbound_call(printed, name,
                                                                            sizeof name))
        snprintf(buf, n, "%s called %s, which no library here defines (the program ended "
                 "there): a launcher may only launch the kernels of your file; the grader "
                 "allocates, copies and synchronises itself", k->launcher, name);
    else
        snprintf(buf, n, "%s ended the program (exit status %d) instead of returning",
                 k->launcher, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

typedef struct reader {
    const lab_def *lab;
    const lab_image *img;
    kernel_plan *plans;
    int cur, call, rep, loaded, protocol;
    rec_call held;
} reader;

/* Take one record; returns 1 to go on, 0 when every kernel is decided, -1 on a bad record. */
static int take(reader *r, const rec_call *rec)
{
    if (rec->magic != REC_MAGIC)
        return -1;
    if (rec->status == REC_LOADED && !r->loaded) {
        r->loaded = 1;
        return 1;
    }
    if (rec->status == REC_NOT_LOADED && !r->loaded) {
        char text[sizeof rec->text];
        memcpy(text, rec->text, sizeof text);
        text[sizeof text - 1] = '\0';
        for (int k = r->cur; k < r->lab->n_kernels; k++)
            reject(&r->plans[k], "your library could not be loaded: %s%s", text,
                   strstr(text, "undefined symbol") ? " (a launcher may only use the CUDA "
                   "runtime calls that launch kernels)" : "");
        r->cur = r->lab->n_kernels;
        return 0;
    }
    if (!r->loaded || rec->kernel != r->cur)
        return -1;
    kernel_plan *p = &r->plans[r->cur];
    const lab_kernel *k = &r->lab->kernels[r->cur];
    if (rec->status == REC_NO_LAUNCHER && r->call == 0 && r->rep == 0) {
        p->verdict = PLAN_MISSING;
    } else if (rec->status != REC_RETURNED || rec->call != r->call || rec->repeat != r->rep) {
        return -1;
    } else if (r->rep == 0) {
        r->held = *rec;
        r->rep = 1;
        return 1;
    } else {
        char why[512];
        if (p->verdict == PLAN_PENDING &&
            plan_from_records(r->lab, k, r->img, &p->specs[r->call], &r->held, rec,
                              &p->calls[r->call], why, sizeof why) != 0)
            reject(p, "%.440s%s", why, "");
        r->rep = 0;
        if (++r->call < p->n_calls)
            return 1;
        if (p->verdict == PLAN_PENDING)
            p->verdict = PLAN_OK;
    }
    r->call = r->rep = 0;
    return ++r->cur < r->lab->n_kernels ? 1 : 0;
}

int record_lab(const lab_def *lab, const lab_image *img, const grade_options *opt,
               kernel_plan *plans, capture *printed, char *why, size_t why_size)
{
    char recorder[PATH_MAX], fake[PATH_MAX], first_text[16], lab_id[16];
    spawn_args s = {getpid(), {0}, 0, 0, 0, opt->timeout_s};
    static rec_call rec;
    reader r = {lab, img, plans, 0, 0, 0, 0, 0, {0}};

    record_default_paths(recorder, sizeof recorder, fake, sizeof fake);
    if (opt->recorder)
        snprintf(recorder, sizeof recorder, "%s", opt->recorder);
    if (access(recorder, X_OK) != 0 || access(fake, R_OK) != 0) {
        snprintf(why, why_size, "the recorder (%s, %s) is missing: rebuild the grader (make)",
                 recorder, fake);
        return -1;
    }
    if (resolve_user(opt, &s, why, why_size) != 0)
        return -1;
    const char *needed[] = {recorder, fake, img->path};
    const int modes[] = {X_OK, R_OK, R_OK};
    if (recorder_reachable(&s, needed, modes, 3, opt->run_as, why, why_size) != 0)
        return -1;
    for (int k = 0; k < lab->n_kernels; k++) {
        plans[k].verdict = PLAN_PENDING;
        plans[k].n_calls = lab_calls(lab, &lab->kernels[k], plans[k].specs);
    }
    snprintf(lab_id, sizeof lab_id, "%s", lab->id);
    while (r.cur < lab->n_kernels) {
        child ch;
        int got = 0, status = 0, more = 1, first = r.cur;
        snprintf(first_text, sizeof first_text, "%d", first);
        s.argv[0] = recorder, s.argv[1] = (char *)img->path, s.argv[2] = lab_id;
        s.argv[3] = first_text, s.argv[4] = fake, s.argv[5] = NULL, s.argv[6] = NULL;
        if (strcmp(lab->id, CORPUS_LAB_ID) == 0)
            s.argv[5] = (char *)corpus_source();
        if (child_start(&ch, recorder_child, &s, printed, why, why_size) != 0)
            return -1;
        double deadline = child_now() + opt->timeout_s;
        r.loaded = r.call = r.rep = r.protocol = 0;
        while (more > 0 && (got = child_read(&ch, &rec, sizeof rec, deadline)) == 1)
            if ((more = take(&r, &rec)) < 0)
                r.protocol = 1;
        child_stop(&ch, &status);
        if (r.cur >= lab->n_kernels)
            break;
        char what[512];
        describe_stop(&lab->kernels[r.cur], got, status, opt->timeout_s, r.protocol, printed,
                      what, sizeof what);
        if (!r.loaded) { /* it never got to the launchers: loading itself went wrong */
            for (int k = r.cur; k < lab->n_kernels; k++)
                reject(&plans[k], "loading your library failed before any launcher ran (a "
                       "constructor?): %.400s%s", what, "");
            break;
        }
        reject(&plans[r.cur], "%.440s%s", what, "");
        r.cur++;
    }
    return 0;
}
