/* cli.c - parsing the grader's command line; see cli.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "../base/exit_codes.h"
#include "../measure/emulator/emu_gpu.h"
#include "../reference/prng.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void cli_usage(FILE *f)
{
    fprintf(f,
        "usage: smemlab-grade [options] [LAB...]\n"
        "Grade the lab libraries built by `make labN`: correctness against a host\n"
        "reference, shared-memory requests and bank conflicts against the bank model.\n\n"
        "  LAB               lab1 ... lab10 (or 1 ... 10); default: the lab built last\n"
        "  --solutions       grade build/solutions/LAB.so instead of build/LAB.so\n"
        "  --lib FILE        grade this library (one LAB only)\n"
        "  --source FILE     the lab file whose PREDICT lines to judge (default: the\n"
        "                    lab's file in labs/ when grading the lab built by make)\n"
        "  --build-dir DIR   where make put the libraries (default: build)\n"
        "  --json FILE       also write the results as JSON to FILE\n"
        "  --html PATH       also write each lab's report page, PATH/LAB.html (or, for one\n"
        "                    lab, PATH itself where it ends in .html): your file with each\n"
        "                    memory line's cost and its warp drawn (make grade writes\n"
        "                    build/report/LAB.html)\n"
        "  --timeout SEC     time limit for each launch of a kernel (default 10)\n"
        "  --repeats N       runs of each size for correct, fresh inputs each (default 3)\n"
        "  --device N        CUDA device to use (default 0)\n"
        "  --seed N          seed for random inputs (labs 5 to 10)\n"
        "  --measure HOW     how conflicts are measured: auto (default: a trace with the\n"
        "                    Compute Sanitizer where it is installed, no permission\n"
        "                    needed; else the hardware counters; with no usable GPU,\n"
        "                    the emulator), trace, counters (the race check needs a\n"
        "                    trace: not measured then), or emulator (the kernels run\n"
        "                    on the CPU, a GPU or not; speed not measured)\n"
        "  --no-counters     grade correctness only; conflict and race checks are not\n"
        "                    measured\n"
        "  --gpu kepler      grade as the course's Tesla K40 (sm_35), by the emulator: 32\n"
        "                    banks of 8 bytes, or 4 where a launcher calls\n"
        "                    cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeFourByte);\n"
        "                    a kernel with an instruction sm_35 lacks is not graded\n"
        "                    (make grade GPU=kepler; docs/emulator.md#kepler)\n"
        "  --check-launches  no GPU needed: run the launchers in the recorder and say what\n"
        "                    each launches, or how it breaks the lab's contract\n"
        "  --run-as USER     (as root) run the student's host code as USER\n"
        "  --recorder FILE   the recorder program (default: smemlab-record beside the grader)\n"
        "  --status-fd N     write a line \"gpu\" to descriptor N once the GPU is this\n"
        "                    grade's alone (for smemlab-batch: its time limit starts then)\n"
        "  --meter-socket S  measure through the meter server at socket S (smemlab-batch\n"
        "                    starts one per GPU); without one answering, measure here\n"
        "  --serve-meter S   be that server: measure for graders on socket S until killed\n"
        "  --kernel NAME     grade one kernel of the lab (make grade KERNEL=NAME)\n"
        "  --course FILE     the course file: points, speed thresholds and steps left out\n"
        "                    (default: course.conf in the kit, where there is one; none:\n"
        "                    the kit's own tables; docs/instructors.md#course)\n"
        "  --describe LAB    print what would grade LAB as JSON (version, digests, course,\n"
        "                    the lab's table), and grade nothing (smemlab-batch asks it)\n"
        "  --verbose         the full report: every check, with measured values and\n"
        "                    hints for passing checks too (default: one screen)\n"
        "  --handin          the report of a handed-in file (Gradescope, Autolab): its\n"
        "                    Next: line speaks of the submission, not of the next make\n"
        "  --corpus TSV      grade the kernels of a truth-corpus part (tests/truth/\n"
        "                    gen-corpus.py) from the library --lib names\n"
        "  --list            list the labs and their kernels\n"
        "  --help\n"
        "  --version         the grader's version and what it grades with: its own SHA-256,\n"
        "                    the course file, each lab table's SHA-256, the default options\n\n"
        "exit status: 0 all checks passed, 1 a check failed, 2 bad command line,\n"
        "3 no GPU/driver or lab not built, 4 nothing failed but counters not measured\n");
}

/* Strict number parsing: the whole string, within [lo, hi]. */
static int parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) /* NaN fails too */
        return -1;
    *out = v;
    return 0;
}

static int bad(FILE *err, const char *fmt, const char *arg)
{
    fprintf(err, "smemlab-grade: ");
    fprintf(err, fmt, arg);
    fprintf(err, "\nTry `smemlab-grade --help`.\n");
    return EXIT_USAGE;
}

static int add_lab(cli_options *o, const char *id, FILE *err)
{
    const lab_def *lab = lab_find(id);
    if (!lab)
        return bad(err, "unknown lab '%s' (labs are lab1 ... lab10; --list shows them)", id);
    if (o->n_labs == CLI_MAX_LABS)
        return bad(err, "too many labs given (%s)", id);
    o->labs[o->n_labs++] = lab;
    return 0;
}

static int number_option(int opt, const char *arg, cli_options *o, FILE *err)
{
    double v;
    switch (opt) {
    case 't':
        if (parse_number(arg, 0.1, 3600, &v)) return bad(err, "--timeout wants seconds in 0.1..3600, not '%s'", arg);
        o->grade.timeout_s = v;
        return 0;
    case 'r':
        if (parse_number(arg, 1, 100, &v) || v != (int)v) return bad(err, "--repeats wants a whole number in 1..100, not '%s'", arg);
        o->grade.repeats = (int)v;
        return 0;
    case 'd':
        if (parse_number(arg, 0, 63, &v) || v != (int)v) return bad(err, "--device wants a device number in 0..63, not '%s'", arg);
        o->grade.device = (int)v;
        return 0;
    case 'f':
        if (parse_number(arg, 3, 1023, &v) || v != (int)v || fcntl((int)v, F_GETFD) < 0)
            return bad(err, "--status-fd wants an open descriptor number of 3 or more, not '%s'", arg);
        o->grade.status_fd = (int)v;
        return 0;
    case 's': {
        uint64_t seed;
        if (prng_parse_seed(arg, &seed) != 0)
            return bad(err, "--seed wants a whole number >= 0 (decimal or 0x hex), not '%s'", arg);
        o->grade.seed = seed;
        return 0;
    }
    }
    return bad(err, "internal: unknown option %s", arg);
}

int html_is_file(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".html") == 0;
}

int cli_parse(int argc, char **argv, cli_options *o, FILE *err)
{
    static const struct option longs[] = {
        {"solutions", no_argument, 0, 'S'}, {"lib", required_argument, 0, 'l'},
        {"build-dir", required_argument, 0, 'b'}, {"json", required_argument, 0, 'j'},
        {"html", required_argument, 0, 'H'},
        {"timeout", required_argument, 0, 't'}, {"repeats", required_argument, 0, 'r'},
        {"device", required_argument, 0, 'd'}, {"seed", required_argument, 0, 's'},
        {"no-counters", no_argument, 0, 'n'}, {"verbose", no_argument, 0, 'v'},
        {"handin", no_argument, 0, 'I'},
        {"list", no_argument, 0, 'L'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'}, {"check-launches", no_argument, 0, 'C'},
        {"run-as", required_argument, 0, 'u'}, {"recorder", required_argument, 0, 'R'},
        {"measure", required_argument, 0, 'm'}, {"source", required_argument, 0, 'F'},
        {"status-fd", required_argument, 0, 'f'},
        {"meter-socket", required_argument, 0, 'M'}, {"serve-meter", required_argument, 0, 'E'},
        {"corpus", required_argument, 0, 'K'}, {"kernel", required_argument, 0, 'k'},
        {"gpu", required_argument, 0, 'G'},
        {"course", required_argument, 0, 'c'}, {"describe", required_argument, 0, 'D'},
        {0, 0, 0, 0}};
    int opt, rc, measure_given = 0;

    memset(o, 0, sizeof *o);
    o->measure = MEASURE_MODE_AUTO;
    o->build_dir = "build";
    o->grade = (grade_options){.repeats = 3, .use_counters = 1, .timeout_s = GRADE_DEFAULT_TIMEOUT_S,
                               .seed = PRNG_DEFAULT_SEED};
    optind = 0; /* glibc: 0 also resets getopt's internal state */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hv", longs, NULL)) != -1) {
        switch (opt) {
        case 'S': o->solutions = 1; break;
        case 'l': o->lib = optarg; break;
        case 'b': o->build_dir = optarg; break;
        case 'j': o->json = optarg; break;
        case 'H': o->html = optarg; break;
        case 'n': o->grade.use_counters = 0; break;
        case 'm':
            if (measure_mode_parse(optarg, &o->measure) != 0)
                return bad(err, "--measure wants auto, counters, trace or emulator, not '%s'", optarg);
            measure_given = 1;
            break;
        case 'v': o->verbose = 1; break;
        case 'I': o->handin = 1; break;
        case 'L': o->list = 1; break;
        case 'h': o->help = 1; break;
        case 'V': o->version = 1; break;
        case 'C': o->check_launches = 1; break;
        case 'F': o->source = optarg; break;
        case 'k': o->kernel = o->grade.only_kernel = optarg; break;
        case 'c': o->course = optarg; break;
        case 'D': o->describe = optarg; break;
        case 'u': o->grade.run_as = optarg; break;
        case 'R': o->grade.recorder = optarg; break;
        case 'M': o->grade.meter_socket = optarg; break;
        case 'E': o->serve_meter = optarg; break;
        case 'G':
            if (!emu_gpu_find(optarg))
                return bad(err, "--gpu wants kepler (the course's Tesla K40, graded by the "
                           "emulator), not '%s'", optarg);
            o->grade.gpu = optarg;
            break;
        case 'K': {
            char why[512];
            if (corpus_load(optarg, why, sizeof why) != 0)
                return bad(err, "--corpus: %s", why);
            if ((rc = add_lab(o, CORPUS_LAB_ID, err)) != 0)
                return rc;
            break;
        }
        case ':': return bad(err, "%s needs a value", argv[optind - 1]);
        case '?': return bad(err, "unknown option '%s'", argv[optind - 1]);
        default:
            if ((rc = number_option(opt, optarg, o, err)) != 0)
                return rc;
        }
    }
    for (int i = optind; i < argc; i++)
        if ((rc = add_lab(o, argv[i], err)) != 0)
            return rc;
    if (corpus_source() && !o->lib)
        return bad(err, "--corpus %s grades a library: give it with --lib", corpus_source());
    if (o->lib && o->n_labs != 1)
        return bad(err, "--lib %s needs exactly one LAB to say which table to grade it with",
                   o->lib);
    if (o->grade.gpu && (o->grade.meter_socket || o->serve_meter))
        return bad(err, "--gpu %s grades here, by the emulator: it takes no --meter-socket or "
                   "--serve-meter", o->grade.gpu);
    if (o->grade.gpu && measure_given && o->measure != MEASURE_MODE_EMULATOR)
        return bad(err, "--gpu %s grades by the emulator: it excludes --measure trace and "
                   "counters", o->grade.gpu);
    if (o->grade.gpu)
        o->measure = MEASURE_MODE_EMULATOR;
    o->grade.measure = (int)o->measure;
    if (measure_given && !o->grade.use_counters)
        return bad(err, "--measure %s and --no-counters exclude each other",
                   measure_mode_name(o->measure));
    if (o->serve_meter && (o->n_labs || o->lib || o->solutions || o->json || o->html ||
                           o->grade.meter_socket))
        return bad(err, "--serve-meter %s serves graders: it takes no lab, library, --json, "
                   "--html or --meter-socket", o->serve_meter);
    if (o->html && html_is_file(o->html) && o->n_labs > 1)
        return bad(err, "--html %s names one page, and more than one lab is graded: give a "
                   "folder (each lab's page is FOLDER/LAB.html)", o->html);
    if (o->lib && o->solutions)
        return bad(err, "--lib %s and --solutions exclude each other", o->lib);
    return 0;
}

const char *cli_lib_path(const cli_options *o, const lab_def *lab, char *buf, size_t size)
{
    if (o->lib)
        snprintf(buf, size, "%s", o->lib);
    else
        snprintf(buf, size, "%s/%s%s.so", o->build_dir, o->solutions ? "solutions/" : "",
                 lab->id);
    return buf;
}
