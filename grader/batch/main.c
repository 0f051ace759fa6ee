/* main.c - smemlab-batch: a folder of submissions in, the gradebook formats out. */
#define _GNU_SOURCE
#include "batch.h"
#include "../labs/course.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
"usage: smemlab-batch [options] LAB SUBMISSIONS [-o RESULTS_DIR]\n"
"Grade a class. SUBMISSIONS is a folder, or a .zip/.tar/.tar.gz/.tar.xz of one,\n"
"as a learning system exports it: Moodle, Canvas, Blackboard and Gradescope\n"
"exports are read as they come (their file names say whose each file is);\n"
"otherwise each entry is one student: a folder holding LAB.cu (anywhere\n"
"inside, exactly once), an archive of such a folder, or a file STUDENT.cu.\n"
"Names may hold any characters: the gradebook keeps them, files use a safe\n"
"student id made from them. Each distinct source is built once with the kit's\n"
"flags (make lab-lib) in the build jail beside a copy of common/, graded by\n"
"smemlab-grade, and recorded at once in RESULTS_DIR/ID.json.\n"
"\n"
"  LAB                  lab1 ... lab10 (or 1 ... 10)\n"
"  -o, --results DIR    results folder (default: results-LAB); made if missing\n"
"  --roster FILE        CSV with the columns id, name (and email): ids, names and\n"
"                       emails for what the export names; everyone on it without\n"
"                       a submission gets a row that says so\n"
"  -j, --jobs N         builds at a time (default: the CPU cores available)\n"
"  --gpus LIST          GPUs to grade on, as CUDA numbers them (e.g. 0,1; default:\n"
"                       every GPU CUDA sees: CUDA_VISIBLE_DEVICES's, else the\n"
"                       driver's)\n"
"  --graders-per-gpu N  graders at a time on each GPU (default 3): they open the\n"
"                       GPU, record and report side by side, and take turns to\n"
"                       run kernels and read counters (a lock per GPU)\n"
"  --no-meter-server    each grader measures in its own worker (slower: every one\n"
"                       pays for opening the GPU and its profiler); by default one\n"
"                       meter server per GPU measures for all (smemlab-grade\n"
"                       --serve-meter)\n"
"  --time-limit SEC     wall limit of one submission's grading from when its\n"
"                       grader has the GPU (default 300); past it the grader's\n"
"                       process group is killed\n"
"  --regrade            grade again what RESULTS_DIR already holds (each earlier\n"
"                       record kept in RESULTS_DIR/history/ID/; the run lists whose\n"
"                       points changed and why); also what a class graded another\n"
"                       way needs (class.json: another seed, table or course file)\n"
"  --regrade-all        the same, and those that did not compile or were rejected,\n"
"                       which a --regrade keeps (their verdict is final)\n"
"  --diff               grade nothing: whose points the last grading of each student\n"
"                       changed, and why (give -o RESULTS_DIR alone)\n"
"  --reproduce ID       grade ID again from its record alone (the source kept in\n"
"                       RESULTS_DIR/sources/, the options, the toolchain's arch) into\n"
"                       RESULTS_DIR/reproduce/, and say whether every check came out\n"
"                       the same (exit 0) or which did not (exit 1); give -o alone\n"
"  --assignment NAME    the assignment as the learning system names it, for its\n"
"                       import file: Canvas's column 'Lab 3 (12345)' (the id from\n"
"                       the assignment's address; default: LAB)\n"
"  --course FILE        the course file (docs/instructors.md#course): points, speed\n"
"                       thresholds, steps left out, the late penalty and extra points\n"
"                       (default: the kit's course.conf where there is one; none: none)\n"
"  --regrade-not-measured  grade again those whose checks were not all measured\n"
"                       (speed, emulated on a CPU): e.g. on a GPU, or with --slurm\n"
"                       --slurm-gpu on a GPU partition, after a class graded on CPUs\n"
"  --only ID,ID...      grade (again) just these students; reports still cover all\n"
"  --grader-arg ARG     pass ARG to smemlab-grade (repeat; e.g. --grader-arg=--seed=7):\n"
"                       --seed=N, --repeats=N, --timeout=SEC, --measure=HOW,\n"
"                       --no-counters, --run-as=USER, --verbose; make batch passes\n"
"                       GRADE_FLAGS as these\n"
"  --grader PATH        the grader (default: smemlab-grade beside this program)\n"
"  --kit DIR            the kit's top folder (default: the parent of this program's folder)\n"
"  --nvcc PATH          nvcc to build with (passed to make as NVCC)\n"
"  --nvcc-arch FLAGS    architecture flags (default: `make -s nvcc-arch`, asked once)\n"
"  --build-timeout SEC  CPU time each compiler process of a build may use (default\n"
"                       120; \"the compiler used more than 120 s of CPU time\"); the\n"
"                       build's wall time is bounded at 3 times that (\"the build\n"
"                       ran past 360 s\"), so a busy machine fails no honest build\n"
"  --build-memory SIZE  address space of each compiler process (default 4G)\n"
"                       (\"the compiler needed more than 4 GiB\")\n"
"  --build-output SIZE  largest file a build may write (default 256M)\n"
"  --build-log SIZE     compiler messages kept of one build (default 1M)\n"
"  --build-sandbox MODE auto (default): every build reads only its submission,\n"
"                       common/ and the toolchain (Landlock, where the kernel has\n"
"                       it) and its includes are checked (nvcc -M); portable: the\n"
"                       checks without Landlock (what an older kernel gets)\n"
"  --max-source BYTES   cap on LAB.cu (default 1048576)\n"
"  --max-archive BYTES  cap on a student's archive and what it unpacks to (default\n"
"                       67108864)\n"
"  --max-entries N      cap on the entries of an archive or folder (default 10000)\n"
"  --progress, --plain, --quiet   progress line (default on a terminal), one line\n"
"                       per submission (default otherwise), or only the summary\n"
"\n"
"Slurm:\n"
"  --slurm              grade as a Slurm job array (sbatch --wait): each task takes\n"
"                       a chunk of submissions and runs smemlab-batch --task; then\n"
"                       the reports are written here. A task asks for CPUs only: on\n"
"                       a node without a GPU every check but speed is graded by\n"
"                       emulation. Its --time: chunk x (--time-limit + 3 x\n"
"                       --build-timeout) seconds in minutes, rounded up, + 5\n"
"  --slurm-gpu          each task asks for one GPU too (--gres=gpu:1)\n"
"  --chunk-size N       submissions per array task (default 10); with -j N each\n"
"                       task asks for N cores (--cpus-per-task) and builds N at a time\n"
"  --sbatch PATH        sbatch to call (default: sbatch)\n"
"  --sbatch-arg ARG     extra sbatch option (repeat; e.g. --sbatch-arg=--partition=gpu)\n"
"  --task I --chunk-file F   (what a task runs) grade the students whose ids F\n"
"                       lists, one a line, into RESULTS_DIR; no reports\n"
"\n"
"Reports (RESULTS_DIR): gradebook.csv (a cell that would start a spreadsheet\n"
"formula is written as text), junit.xml, feedback/ID.txt and .html,\n"
"gradescope/ID/results.json, autolab/ID.txt (last line: Autolab's JSON);\n"
"lms/: the learning system's own import files (Moodle's grading worksheet and\n"
"feedback zip, Canvas's gradebook CSV), keyed by the export's ids; similar.txt:\n"
"identical and near-identical submissions (never a grade); manifest.txt: every\n"
"file this run's reports cover (files of students no longer in the class are\n"
"set apart in stale/). Every record says what graded it (provenance).\n"
"\n"
"exit status: 0 every submission has a result; 1 some could not be graded (time\n"
"limit, the grading machine, Slurm task lost: see the summary); 2 bad command\n"
"line (or --slurm where sbatch cannot be found), nothing done; 3 the kit is not\n"
"usable (grader not built, make or nvcc missing)\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "smemlab-batch: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry `smemlab-batch --help`.\n");
    return BATCH_EXIT_USAGE;
}

/* "4G", "512M", "100000" -> bytes (binary units); -1 when not a size. */
static long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0))
        return -1;
    double mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1024.0, end++;
    else if (*end == 'm' || *end == 'M') mul = 1024.0 * 1024, end++;
    else if (*end == 'g' || *end == 'G') mul = 1024.0 * 1024 * 1024, end++;
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    return *end ? -1 : (long long)(v * mul);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static char **split_list(const char *s, int *n)
{
    char *copy = strdup(s), *save = NULL;
    char **out = calloc(strlen(s) + 1, sizeof *out);
    *n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (*t)
            out[(*n)++] = strdup(t);
    free(copy);
    return out;
}

static char *absolute(const char *p)
{
    char *r = realpath(p, NULL);
    return r ? r : strdup(p);
}

/* p (relative) as a path from the current folder, whether or not it exists. */
static char *from_here(const char *p)
{
    char *r = realpath(p, NULL), cwd[4096];
    if (r || !getcwd(cwd, sizeof cwd))
        return r ? r : strdup(p);
    size_t n = strlen(cwd) + strlen(p) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", cwd, p);
    return out ? out : strdup(p);
}

static int cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/*
 * The GPUs CUDA will number 0, 1, ...: CUDA_VISIBLE_DEVICES's entries where it is set
 * (Slurm sets it to a task's GPUs), else the driver's (/proc/driver/nvidia/gpus, one
 * folder a GPU); 0 where there are none.
 */
static int visible_gpus(void)
{
    const char *list = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (list) {
        for (const char *c = list; *c; c++) /* "0,1", "GPU-uuid,GPU-uuid"; "" or "-1": none */
            if (*c != ',' && (c == list || c[-1] == ',') && *c != '-')
                n++;
        return n;
    }
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* No --gpus: every GPU CUDA sees (at most 64), or GPU 0 where none is seen (the
   grader says what it finds). */
static void default_gpus(batch_opts *o)
{
    int n = visible_gpus();
    o->n_gpus = n < 1 ? 1 : n > 64 ? 64 : n;
    for (int g = 0; g < o->n_gpus; g++)
        o->gpus[g] = g;
}

/* `make -s -C KIT nvcc-arch`: the architecture flags, asked once. */
char *batch_ask_arch(const batch_opts *o)
{
    char nv[1100], buf[2048];
    snprintf(nv, sizeof nv, "NVCC=%s", o->nvcc ? o->nvcc : "nvcc");
    char *argv[] = {(char *)o->make, "-s", "--no-print-directory", "-C", (char *)o->kit,
                    "nvcc-arch", o->nvcc ? nv : NULL, NULL};
    if (run_capture(argv, 1, buf, sizeof buf) != 0)
        return NULL;
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    return n ? strdup(buf) : NULL;
}

/* A kept record names the student as this run does (a roster given since, a
 * name corrected in the learning system): rewritten when that changed. */
static void refresh_identity(const batch_opts *o, result *r, const submission *s)
{
    result ids;
    result_init_from_sub(&ids, s, o->lab); /* the learning system's id, as this export has it */
    if (!strcmp(r->name, s->name) && !strcmp(r->email, s->email) && r->late == s->late &&
        !strcmp(r->entry, s->entry) && !strcmp(r->lms, ids.lms) && !strcmp(r->lms_id, ids.lms_id))
        return;
    snprintf(r->lms, sizeof r->lms, "%s", ids.lms);
    snprintf(r->lms_id, sizeof r->lms_id, "%s", ids.lms_id);
    snprintf(r->name, sizeof r->name, "%s", s->name);
    snprintf(r->email, sizeof r->email, "%s", s->email);
    snprintf(r->entry, sizeof r->entry, "%s", s->entry);
    r->late = s->late;
    char err[512];
    if (record_write(o->results, r, err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s\n", err);
}

/* Can execvp run name (a path, or a command on PATH)? */
static int on_path(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
    int found = 0;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char cand[4200];
        snprintf(cand, sizeof cand, "%s/%s", *d ? d : ".", name);
        found = access(cand, X_OK) == 0;
    }
    free(copy);
    return found;
}

static int in_list(char **list, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i], s))
            return 1;
    return 0;
}

/* smemlab-batch's long options (usage() says each). */
enum { O_GPUS = 256, O_PER_GPU, O_TIME, O_REGRADE, O_ONLY, O_GARG, O_GRADER, O_KIT, O_NVCC, O_ARCH,
       O_MAXSRC, O_MAXARC, O_MAXENT, O_PROGRESS, O_PLAIN, O_QUIET, O_SLURM, O_CHUNK,
       O_SBATCH, O_SARG, O_TASK, O_CHUNKF, O_HELP, O_NO_METER, O_BTIME, O_BMEM, O_BOUT,
       O_BLOG, O_BSANDBOX, O_ROSTER, O_SLURM_GPU, O_REGRADE_NM, O_COURSE, O_REGRADE_ALL,
       O_DIFF, O_REPRODUCE, O_ASSIGNMENT };
static const struct option longs[] = {
    {"results", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'j'},
    {"gpus", required_argument, 0, O_GPUS}, {"time-limit", required_argument, 0, O_TIME},
    {"graders-per-gpu", required_argument, 0, O_PER_GPU},
    {"regrade", no_argument, 0, O_REGRADE}, {"only", required_argument, 0, O_ONLY},
    {"grader-arg", required_argument, 0, O_GARG}, {"grader", required_argument, 0, O_GRADER},
    {"kit", required_argument, 0, O_KIT}, {"nvcc", required_argument, 0, O_NVCC},
    {"nvcc-arch", required_argument, 0, O_ARCH},
    {"max-source", required_argument, 0, O_MAXSRC},
    {"max-archive", required_argument, 0, O_MAXARC},
    {"max-entries", required_argument, 0, O_MAXENT},
    {"progress", no_argument, 0, O_PROGRESS}, {"plain", no_argument, 0, O_PLAIN},
    {"quiet", no_argument, 0, O_QUIET}, {"slurm", no_argument, 0, O_SLURM},
    {"chunk-size", required_argument, 0, O_CHUNK}, {"sbatch", required_argument, 0, O_SBATCH},
    {"sbatch-arg", required_argument, 0, O_SARG}, {"task", required_argument, 0, O_TASK},
    {"chunk-file", required_argument, 0, O_CHUNKF}, {"help", no_argument, 0, O_HELP},
    {"no-meter-server", no_argument, 0, O_NO_METER},
    {"build-timeout", required_argument, 0, O_BTIME},
    {"build-memory", required_argument, 0, O_BMEM},
    {"build-output", required_argument, 0, O_BOUT},
    {"build-log", required_argument, 0, O_BLOG},
    {"build-sandbox", required_argument, 0, O_BSANDBOX},
    {"roster", required_argument, 0, O_ROSTER},
    {"slurm-gpu", no_argument, 0, O_SLURM_GPU},
    {"regrade-not-measured", no_argument, 0, O_REGRADE_NM},
    {"course", required_argument, 0, O_COURSE}, {"regrade-all", no_argument, 0, O_REGRADE_ALL},
    {"diff", no_argument, 0, O_DIFF}, {"reproduce", required_argument, 0, O_REPRODUCE},
    {"assignment", required_argument, 0, O_ASSIGNMENT},
    {0, 0, 0, 0}};

/* LAB and SUBMISSIONS after the options, and the options that go together:
 * -1 to go on, else the exit status. */
static int check_option_sets(int argc, char **argv, batch_opts *o)
{
    if ((o->diff_only || o->reproduce) && argc - optind != 0)
        return bad("%s", "--diff and --reproduce read a results folder: give -o RESULTS_DIR "
                   "alone (no LAB or SUBMISSIONS)");
    if (o->diff_only || o->reproduce)
        return -1;
    if (argc - optind != 2)
        return bad("%s", argc - optind < 2 ? "give LAB and SUBMISSIONS_DIR"
                                           : "too many arguments: give LAB and SUBMISSIONS_DIR");
    o->lab = lab_find(argv[optind]);
    if (!o->lab)
        return bad("unknown lab '%s' (the labs are lab1 ... lab10)", argv[optind]);
    if ((o->task >= 0) != (o->chunk_file != NULL))
        return bad("%s", "--task and --chunk-file go together (what a Slurm array task runs)");
    if (o->slurm && o->task >= 0)
        return bad("%s", "--slurm submits the tasks; a task does not take --slurm");
    if (o->slurm_gpu && !o->slurm)
        return bad("%s", "--slurm-gpu goes with --slurm (a GPU for each array task)");
    if (o->slurm && !on_path(o->sbatch))
        return bad("--slurm: cannot find sbatch ('%s'): run this where Slurm's commands are "
                   "installed (a login node), or give --sbatch PATH", o->sbatch);

    return -1;
}

/* The command line into o (its defaults set by the caller), the results folder
 * and --only as given: -1 to go on, else the exit status (--help: 0). */
static int parse_options(int argc, char **argv, batch_opts *o, const char **results, const char **only)
{
    int opt;
    long v;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:j:", longs, NULL)) != -1) {
        switch (opt) {
        case 'o': *results = optarg; break;
        case O_NO_METER: o->no_meter_server = 1; break;
        case 'j':
            if (parse_long(optarg, 1, 1024, &v)) return bad("-j wants a number of builds in 1..1024, not '%s'", optarg);
            o->jobs = (int)v;
            o->jobs_set = 1;
            break;
        case O_GPUS: {
            int n;
            char **l = split_list(optarg, &n);
            if (n == 0 || n > 64) return bad("--gpus wants a list of GPU numbers such as 0,1, not '%s'", optarg);
            for (int i = 0; i < n; i++) {
                if (parse_long(l[i], 0, 63, &v)) return bad("--gpus: '%s' is not a GPU number (0..63)", l[i]);
                o->gpus[i] = (int)v;
            }
            o->n_gpus = n;
            break;
        }
        case O_PER_GPU:
            if (parse_long(optarg, 1, 16, &v)) return bad("--graders-per-gpu wants a number in 1..16, not '%s'", optarg);
            o->per_gpu = (int)v;
            break;
        case O_TIME: {
            char *end;
            double t = strtod(optarg, &end);
            if (end == optarg || *end || !(t >= 1 && t <= 86400)) return bad("--time-limit wants seconds in 1..86400, not '%s'", optarg);
            o->time_limit = t;
            break;
        }
        case O_BTIME: {
            char *end;
            double t = strtod(optarg, &end);
            if (end == optarg || *end || !(t >= 1 && t <= 86400)) return bad("--build-timeout wants seconds in 1..86400, not '%s'", optarg);
            o->build_timeout = t;
            break;
        }
        case O_BMEM: case O_BOUT: case O_BLOG: {
            long long b = parse_size(optarg);
            if (b < 4096) return bad("a build limit wants a size such as 4G, 256M or 1048576 (at least 4K), not '%s'", optarg);
            if (opt == O_BMEM) o->build_memory = b;
            else if (opt == O_BOUT) o->build_output = b;
            else o->build_log = b;
            break;
        }
        case O_BSANDBOX:
            if (strcmp(optarg, "auto") && strcmp(optarg, "portable")) return bad("--build-sandbox is auto or portable, not '%s'", optarg);
            o->build_sandbox = optarg;
            break;
        case O_ROSTER: o->roster_path = optarg; break;
        case O_REGRADE: o->regrade = 1; break;
        case O_ONLY: *only = optarg; break;
        case O_GARG: {
            char why[512];
            if (grader_arg_check(optarg, why, sizeof why))
                return bad("%s", why);
            o->grader_args[o->n_grader_args++] = optarg;
            break;
        }
        case O_COURSE: o->course_path = optarg; break;
        case O_ASSIGNMENT: o->assignment = optarg; break;
        case O_REGRADE_ALL: o->regrade = o->regrade_all = 1; break;
        case O_DIFF: o->diff_only = 1; break;
        case O_REPRODUCE: o->reproduce = 1; o->reproduce_id = optarg; break;
        case O_GRADER: o->grader = optarg; break;
        case O_KIT: o->kit = optarg; break;
        case O_NVCC: o->nvcc = optarg; break;
        case O_ARCH: o->nvcc_arch = optarg; break;
        case O_MAXSRC: case O_MAXARC: case O_MAXENT:
            if (parse_long(optarg, 1, LONG_MAX, &v)) return bad("the cap wants a positive whole number, not '%s'", optarg);
            if (opt == O_MAXSRC) o->limits.max_source = v;
            else if (opt == O_MAXARC) o->limits.max_archive = v;
            else o->limits.max_entries = v;
            break;
        case O_PROGRESS: o->progress = 1; break;
        case O_PLAIN: o->progress = 0; break;
        case O_QUIET: o->progress = -1; break;
        case O_SLURM: o->slurm = 1; break;
        case O_SLURM_GPU: o->slurm_gpu = 1; break;
        case O_REGRADE_NM: o->regrade_apart = 1; break;
        case O_CHUNK:
            if (parse_long(optarg, 1, 100000, &v)) return bad("--chunk-size wants a number >= 1, not '%s'", optarg);
            o->chunk_size = (int)v;
            break;
        case O_SBATCH: o->sbatch = optarg; break;
        case O_SARG: o->sbatch_args[o->n_sbatch_args++] = optarg; break;
        case O_TASK:
            if (parse_long(optarg, 0, 1000000, &v)) return bad("--task wants the array index, not '%s'", optarg);
            o->task = v;
            break;
        case O_CHUNKF: o->chunk_file = optarg; break;
        case O_HELP: usage(stdout); return BATCH_EXIT_OK;
        case ':': return bad("%s needs a value", argv[optind - 1]);
        default: return bad("unknown option '%s'", argv[optind - 1]);
        }
    }
    return check_option_sets(argc, argv, o);
}

/* The submissions (a folder or an archive, readable), the roster, and the
 * results folder, made and proven writable: 0, else the exit status. */
static int check_paths(batch_opts *o, const char *subdir, const char *results)
{
    struct stat st;
        if (stat(subdir, &st) || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
        return bad("the submissions folder '%s' does not exist or is not a folder or an archive",
                   subdir);
    if (access(subdir, S_ISDIR(st.st_mode) ? R_OK | X_OK : R_OK))
        return bad("the submissions folder '%s' is not readable", subdir);
    o->submissions = absolute(subdir);
    if (o->roster_path) {
        char rerr[1024];
        if (roster_load(o->roster_path, &o->roster, rerr, sizeof rerr))
            return bad("%s", rerr);
        o->roster_path = absolute(o->roster_path);
    }

    char def_results[64];
    if (!results) {
        snprintf(def_results, sizeof def_results, "results-%s", o->lab->id);
        results = def_results;
    }
    if (mkdir_p(results, 0755))
        return bad("cannot make the results folder '%s'", results);
    if (stat(results, &st) || !S_ISDIR(st.st_mode))
        return bad("the results folder '%s' is not a folder", results);
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.smemlab-batch.probe.%ld", results, (long)getpid());
    int pfd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (pfd < 0)
        return bad("the results folder '%s' is not writable", results);
    close(pfd);
    unlink(probe);
    o->results = absolute(results);

    return 0;
}

/* The kit, the grader, nvcc and the jail, where told or beside this program:
 * 0, else the exit status. */
int batch_locate_kit(batch_opts *o, const char *argv0)
{
    char *self = realpath("/proc/self/exe", NULL);
    o->self = self ? self : (char *)argv0;
    char exe_dir[4096] = ".", kit_guess[4200], grader_guess[4200];
    if (self) {
        snprintf(exe_dir, sizeof exe_dir, "%s", self);
        char *slash = strrchr(exe_dir, '/');
        if (slash)
            *slash = 0;
    }
    snprintf(kit_guess, sizeof kit_guess, "%s/..", exe_dir);
    snprintf(grader_guess, sizeof grader_guess, "%s/smemlab-grade", exe_dir);
    o->kit = absolute(o->kit ? o->kit : kit_guess);
    o->grader = absolute(o->grader ? o->grader : grader_guess);
    /* A relative path (not a name PATH finds) is taken from here: make runs in the
       kit (-C) and a Slurm task wherever the cluster starts it. It need not exist
       here (a login node without the toolkit): a build that cannot find it is
       the machine's failure, said for each submission. */
    if (o->nvcc && strchr(o->nvcc, '/') && o->nvcc[0] != '/')
        o->nvcc = from_here(o->nvcc);
    char mk[4200];
    snprintf(mk, sizeof mk, "%s/common/smemlab.h", o->kit);
    if (access(mk, R_OK))
        return bad("'%s' is not the kit's top folder (no common/smemlab.h): give --kit DIR", o->kit);
    char jail[4200];
    snprintf(jail, sizeof jail, "%s/build/smemlab-build-jail", o->kit);
    if (!o->slurm && access(jail, X_OK)) {
        fprintf(stderr, "smemlab-batch: the build jail %s is not built: run `make batch` (or "
                "make lab-tools) in the kit\n", jail);
        return BATCH_EXIT_ENV;
    }
    if (!o->slurm && access(o->grader, X_OK)) {
        fprintf(stderr, "smemlab-batch: the grader %s is not built: run `make batch` (or "
                "make %s/smemlab-grade) in the kit\n", o->grader, exe_dir);
        return BATCH_EXIT_ENV;
    }

    return 0;
}

/* One batch at a time per results folder (tasks of an array write side by
 * side); what a killed run left is ended: 0, else the exit status. */
static int take_results(batch_opts *o)
{
    if (o->task < 0) {
        char lock[4200];
        snprintf(lock, sizeof lock, "%s/.smemlab-batch.lock", o->results);
        int lfd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB)) {
            fprintf(stderr, "smemlab-batch: another smemlab-batch is writing to %s: wait for "
                    "it or give another -o\n", o->results);
            return BATCH_EXIT_USAGE;
        }
        record_clean_temps(o->results);
        leftovers_clean(o);
    }

    return 0;
}

/* The class: every submission (a Slurm task: those its chunk file names),
 * --only's ids each found. The count, or -1 with *status the exit status. */
static int discover_class(batch_opts *o, const char *only, submission **subs, int *status)
{
    int n = 0;
    char err[1024];
    const roster *ro = o->roster_path ? &o->roster : NULL;
    if (o->task >= 0) { /* a Slurm task: the class read as the submitter read it, its ids kept */
        char *list = read_file_all(o->chunk_file, NULL, 16 << 20);
        if (!list)
            return *status = bad("cannot read the chunk file '%s'", o->chunk_file), -1;
        int n_ids = 0;
        char **ids = calloc(strlen(list) + 1, sizeof *ids);
        for (char *save = NULL, *t = strtok_r(list, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
            if (*t)
                ids[n_ids++] = t;
        n = discover(o->submissions, o->lab, &o->limits, ro, ids, n_ids, subs, err, sizeof err);
        free(ids);
        free(list);
        if (n < 0)
            return *status = bad("%s", err), -1;
    } else {
        n = discover(o->submissions, o->lab, &o->limits, ro, NULL, 0, subs, err, sizeof err);
        if (n < 0)
            return *status = bad("%s", err), -1;
    }
    if (only) {
        o->only = split_list(only, &o->n_only);
        for (int i = 0; i < o->n_only; i++) {
            int found = 0;
            for (int k = 0; k < n; k++)
                found |= !strcmp((*subs)[k].student, o->only[i]);
            if (!found)
                return *status = bad("--only: no submission has the student id '%s'", o->only[i]), -1;
        }
    }

    return n;
}

/* A rejected submission's record, written now; what it replaces kept in history/. */
static void record_rejected(const batch_opts *o, const submission *s, result *r)
{
    char path[4400], err[1024];
    result old;
    snprintf(path, sizeof path, "%s/%s.json", o->results, s->student);
    if (o->task < 0 && record_read(path, &old) == 0) {
        if (old.status != ST_REJECTED || strcmp(old.reason, s->reason) || strcmp(old.sha256, s->sha256))
            history_keep(o->results, s->student);
        result_free_checks(&old);
    }
    result_init_from_sub(r, s, o->lab);
    if (record_write(o->results, r, err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s\n", err);
}

/*
 * What is already recorded stays (into rs), unless asked or the source
 * changed; a rejected submission is recorded now. A record about to be
 * replaced moves to history/ first (history.c), and regraded[i] says so.
 * A --regrade keeps the final verdicts of files that did not compile or were
 * rejected (the same source gives the same verdict) unless --regrade-all, or
 * --only names them. The count left to grade.
 */
static int keep_recorded(const batch_opts *o, submission *subs, int n, result *rs, int *rejected,
                         int *regraded)
{
    int pending = 0;
    *rejected = 0;
    for (int i = 0; i < n; i++) {
        submission *s = &subs[i];
        regraded[i] = 0;
        if (s->status == ST_REJECTED) {
            (*rejected)++;
            record_rejected(o, s, &rs[i]);
            continue;
        }
        char path[4400];
        snprintf(path, sizeof path, "%s/%s.json", o->results, s->student);
        result old;
        int named = o->only && in_list(o->only, o->n_only, s->student);
        int again = o->regrade || named;
        if (o->task < 0 && record_read(path, &old) == 0) {
            int same = !strcmp(old.sha256, s->sha256) && !strcmp(old.lab, o->lab->id);
            int settled = (old.status == ST_NOT_COMPILED || old.status == ST_REJECTED) &&
                          !o->regrade_all && !named;
            int measure_again = o->regrade_apart && old.not_measured > 0;
            if ((old.final && same && !measure_again && (!again || settled)) ||
                (o->only && !named)) { /* kept; or not asked for: as recorded */
                rs[i] = old;
                s->status = old.status; /* not pending */
                refresh_identity(o, &rs[i], s);
                continue;
            }
            result_free_checks(&old);
            if (history_keep(o->results, s->student) == 0)
                regraded[i] = 1;
        } else if (o->only && !named) {
            result_init_from_sub(&rs[i], s, o->lab);
            rs[i].status = ST_NOT_GRADED;
            snprintf(rs[i].reason, sizeof rs[i].reason, "not graded: left out by --only");
            s->status = ST_NOT_GRADED;
            continue;
        }
        if (o->task < 0)
            history_keep_source(o->results, s);
        pending++;
    }
    return pending;
}

/* Where speed cannot be measured, --regrade-not-measured would grade the same again:
   0, or the exit status (said). */
static int can_measure_here(const batch_opts *o)
{
    int emulated = 0;
    for (int i = 0; i < o->n_grader_args; i++)
        emulated |= !strcmp(o->grader_args[i], "--measure=emulator");
    if (!o->regrade_apart || (o->slurm && o->slurm_gpu && !emulated))
        return 0;
    /* the grader's own test for a GPU (run/gpu.c gpu_absent); SMEMLAB_GPU_NODE names another
       file, for the batch's tests on machines without one */
    const char *node = getenv("SMEMLAB_GPU_NODE");
    if (emulated || (!o->slurm && access(node && *node ? node : "/dev/nvidiactl", F_OK) != 0) ||
        (o->slurm && !o->slurm_gpu)) {
        fprintf(stderr, "smemlab-batch: --regrade-not-measured grades again what was not "
                "measured (speed), and %s cannot measure it either: run it on a machine with "
                "a GPU, or with --slurm --slurm-gpu on a GPU partition (docs/instructors.md"
                "#emulated-classes)\n", emulated ? "--measure=emulator"
                : o->slurm ? "a --slurm task without --slurm-gpu" : "this machine (no GPU: no /dev/nvidiactl)");
        return BATCH_EXIT_USAGE;
    }
    return 0;
}

/* The course file: the kit's course.conf unless --course says another (or none),
   applied to the batch's own tables: 0, or the exit status (said). */
int batch_load_course(batch_opts *o)
{
    static char found[4200];
    if (!o->course_path) {
        snprintf(found, sizeof found, "%s/course.conf", o->kit);
        o->course_path = access(found, F_OK) == 0 ? found : NULL;
    } else if (!strcmp(o->course_path, COURSE_NONE)) {
        o->course_path = NULL;
    } else {
        o->course_path = absolute(o->course_path);
    }
    course c;
    char why[1024];
    if (course_load(o->course_path ? o->course_path : COURSE_NONE, NULL, &c, why, sizeof why)) {
        fprintf(stderr, "smemlab-batch: %s\nFix the course file (docs/instructors.md#course), "
                "or grade with the kit's tables: --course none.\n", why);
        return BATCH_EXIT_USAGE;
    }
    o->lab = lab_find(o->lab->id);
    return 0;
}

int main(int argc, char **argv)
{
    /* Names in archives are UTF-8 (zip's flag, pax headers): libarchive converts
       them by the locale's character set, so it must be one that holds them. */
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "");
    batch_opts o = {.jobs = cores(), .n_gpus = 0, .per_gpu = 3, .time_limit = 300, .make = "make",
                    .limits = {1 << 20, 64LL << 20, 10000}, .chunk_size = 10, .sbatch = "sbatch",
                    .task = -1, .argc = argc, .argv = argv, .build_timeout = 120,
                    .build_memory = 4LL << 30, .build_output = 256LL << 20,
                    .build_log = 1 << 20, .build_sandbox = "auto"};
    o.progress = isatty(2) ? 1 : 0;
    o.grader_args = calloc((size_t)argc + 1, sizeof(char *));
    o.sbatch_args = calloc((size_t)argc + 1, sizeof(char *));
    const char *results = NULL, *only = NULL;
    int status = parse_options(argc, argv, &o, &results, &only);
    if (status >= 0)
        return status;
    if (o.n_gpus == 0)
        default_gpus(&o);
    if (o.diff_only || o.reproduce) {
        if (!results)
            return bad("%s", "--diff and --reproduce want the results folder: -o RESULTS_DIR");
        o.results = absolute(results);
        if (o.diff_only)
            return history_diff(&o);
        return reproduce_run(&o, argv[0]);
    }
    if ((status = check_paths(&o, argv[optind + 1], results)) || (status = batch_locate_kit(&o, argv[0])) ||
        (status = take_results(&o)) || (status = batch_load_course(&o)) || (status = can_measure_here(&o)))
        return status;
    if (o.task < 0) {
        identity_ask(&o);
        if (class_way_check(&o))
            return BATCH_EXIT_USAGE;
    }
    submission *subs = NULL;
    int n = discover_class(&o, only, &subs, &status);
    if (n < 0)
        return status;
    result *rs = calloc((size_t)(n ? n : 1), sizeof *rs);
    int rejected, *regraded = calloc((size_t)(n ? n : 1), sizeof *regraded);
    int pending = keep_recorded(&o, subs, n, rs, &rejected, regraded);
    char err[1024];
    if (o.progress >= 0 && o.task < 0) {
        char count[48];
        printf("%s: %s in %s: %d to grade, %d already recorded, %d not usable\n", o.lab->id,
               count_of(n, "submission", "submissions", count, sizeof count), o.submissions,
               pending, n - pending - rejected, rejected);
    }
    fflush(stdout);

    int rc = 0;
    if (pending && !o.slurm && !o.nvcc_arch) {
        char *arch = batch_ask_arch(&o);
        if (!arch) {
            fprintf(stderr, "smemlab-batch: `make -s -C %s nvcc-arch` failed: is make installed "
                    "and %s the kit?\n", o.kit, o.kit);
            return BATCH_EXIT_ENV;
        }
        o.nvcc_arch = arch;
    }
    if (pending)
        rc = o.slurm ? slurm_run(&o, subs, n, rs) : pipeline_run(&o, subs, n, rs);
    if (rc)
        return BATCH_EXIT_ENV;

    int not_graded = 0;
    for (int i = 0; i < n; i++)
        not_graded += rs[i].status == ST_NOT_GRADED;
    if (o.task >= 0)
        return not_graded ? BATCH_EXIT_NOT_GRADED : BATCH_EXIT_OK;
    class_way_write(&o);
    if (o.progress >= -1)
        history_report(stdout, &o, rs, n, regraded);
    free(regraded);
    policy_apply(&o, rs, n);
    if (reports_write(&o, rs, n, err, sizeof err)) {
        fprintf(stderr, "smemlab-batch: %s\n", err);
        return BATCH_EXIT_ENV;
    }
    if (o.progress >= -1)
        summary_print(stdout, &o, rs, n);
    for (int i = 0; i < n; i++)
        result_free_checks(&rs[i]);
    free(rs);
    submissions_free(subs, n);
    return not_graded ? BATCH_EXIT_NOT_GRADED : BATCH_EXIT_OK;
}
