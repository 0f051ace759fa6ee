/*
 * main.c - smemlab-build-jail: the command line, and one build from start to
 * end (see jail.h for the layers).
 *
 *   1. set up: the toolchain's folders, the system header folders (asked of
 *      the host compiler), the build's environment (PATH, TMPDIR and HOME in
 *      the build folder, LC_ALL=C; nothing else of the caller's: no CPATH, no
 *      NVCC_APPEND_FLAGS), the assembler guard
 *   2. scan the student's file as text
 *   3. Landlock, where the kernel has it (then for everything that follows)
 *   4. nvcc -M: the dependency list, checked
 *   5. the build itself, with -Xcompiler -B<guard>
 * Steps 4 and 5 share one deadline (--wall) and the limits (--timeout: CPU
 * time of each process).
 */
#define _GNU_SOURCE
#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
"usage: smemlab-build-jail [options] --source FILE --out DIR -- NVCC ARGS...\n"
"Build one student's lab file with nvcc, confined and bounded. make labN, make\n"
"lab-lib, smemlab-batch and the Gradescope and Autolab scripts build through it.\n"
"\n"
"  --source FILE      the student's file; its folder is readable\n"
"  --read DIR         another readable folder (the pristine common/); repeat\n"
"  --out DIR          the build folder: the only place the build may write\n"
"                     (TMPDIR and HOME are made in it)\n"
"  --timeout SEC      CPU time each compiler process may use (default 120): the\n"
"                     same limit on a busy machine as on an idle one\n"
"  --wall SEC         wall time of the whole build (default 3 x --timeout);\n"
"                     past it every process of the build is killed\n"
"  --memory SIZE      address space of each compiler process (default 4G)\n"
"  --max-output SIZE  largest file the build may write (default 256M)\n"
"  --max-log SIZE     compiler messages kept (default 1M); the rest is dropped\n"
"  --sandbox MODE     auto (default): Landlock where the kernel has it, and the\n"
"                     portable checks; portable: the portable checks only (what\n"
"                     a kernel without Landlock gets)\n"
"  --verdict FILE     where the reason goes when the build is stopped or refused\n"
"  --keep-env NAME    let the build see this environment variable too (repeat;\n"
"                     a site's toolchain setting such as NVCC_CCBIN): by default\n"
"                     it sees PATH alone, with TMPDIR, HOME and LC_ALL set by the jail\n"
"  --probe            say which layers this machine gives, and exit\n"
"SIZE: bytes, or a number with K, M or G (binary: 4G = 4 GiB).\n"
"\n"
"A stopped or refused build ends with the line \"smemlab-build-jail: REASON\".\n"
"A compiler that fails leaves \"error: REASON\" in --verdict FILE when it named an\n"
"error in the student's code, and is a set-up failure (the machine's) when not.\n"
"exit status: the compiler's own; %d refused (a file outside the submission,\n"
"a forbidden directive); %d a limit; %d the jail could not be set up; 2 usage\n",
            JAIL_EXIT_REFUSED, JAIL_EXIT_LIMIT, JAIL_EXIT_SETUP);
}

long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0)
        return -1;
    double mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'I')
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end)
        return -1;
    return (long long)(v * mul);
}

const char *size_text(long long b, char *buf, size_t n)
{
    static const char *const unit[] = {"GiB", "MiB", "KiB"};
    for (int k = 0; k < 3; k++) {
        long long u = 1LL << (10 * (3 - k));
        if (b >= u && b % u == 0) {
            snprintf(buf, n, "%lld %s", b / u, unit[k]);
            return buf;
        }
        if (b >= u && (b * 10) % u == 0) {
            snprintf(buf, n, "%.1f %s", (double)b / (double)u, unit[k]);
            return buf;
        }
    }
    snprintf(buf, n, "%lld bytes", b);
    return buf;
}

/* --- the reason --------------------------------------------------------------------- */

static int verdict_fd = -1;

static int verdict(int code, const char *fmt, ...)
{
    char msg[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s%s\n", JAIL_PREFIX, msg);
    if (verdict_fd >= 0) {
        const char *kind = code == JAIL_EXIT_SETUP ? "setup" : code == JAIL_EXIT_LIMIT ? "limit" : "refused";
        dprintf(verdict_fd, "%s: %s\n", kind, msg);
    }
    return code;
}

static int status_of(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* A compiler that failed: the student's error goes to the verdict file alone
 * (the compiler's own messages are in the log), the machine's is a set-up
 * failure. Returns the exit status. */
static int compiler_failed(const jail_opts *o, const run_result *r)
{
    char why[1400];
    int status = status_of(r->status);
    if (!diag_failure(o, r->err, status, why, sizeof why))
        return verdict(JAIL_EXIT_SETUP, "%s", why);
    if (verdict_fd >= 0)
        dprintf(verdict_fd, "error: %s\n", why);
    return status ? status : 1;
}

/* --- set-up ------------------------------------------------------------------------------ */

/* name as execvp would find it, into out (a real path). 0 or -1. */
static int find_program(const char *name, const char *skip_dir, char *out, size_t n)
{
    if (strchr(name, '/'))
        return realpath(name, out) && access(out, X_OK) == 0 ? 0 : -1;
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/bin:/bin");
    int rc = -1;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && rc; d = strtok_r(NULL, ":", &save)) {
        if (skip_dir && !strcmp(d, skip_dir))
            continue;
        char cand[4300];
        snprintf(cand, sizeof cand, "%s/%s", *d ? d : ".", name);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0 &&
            snprintf(out, n, "%s", cand) < (int)n)
            rc = 0;
    }
    free(copy);
    return rc;
}

/* The folder holding "as" -> this program: beside it (made by make) or in the build folder. */
static int make_guard(jail_opts *o)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->self);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    const char *tries[2] = {dir, o->out};
    for (int t = 0; t < 2; t++) {
        snprintf(o->guard_dir, sizeof o->guard_dir, "%s/%s", tries[t],
                 t == 0 ? "smemlab-jail-bin" : "tmp/.smemlab-jail-bin");
        char link[4200], target[4096];
        snprintf(link, sizeof link, "%s/as", o->guard_dir);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len > 0) {
            target[len] = 0;
            char real[4096];
            if (realpath(link, real) && !strcmp(real, o->self))
                return 0;
        }
        mkdir(o->guard_dir, 0755);
        unlink(link);
        if (symlink(o->self, link) == 0 || errno == EEXIST)
            return 0;
    }
    return -1;
}

static const char *kept_env[32];
static int n_kept_env;

/* PATH, TMPDIR, HOME, LC_ALL and the guard's own, and what --keep-env names:
 * nothing else of the caller's (no CPATH, no NVCC_APPEND_FLAGS, no LD_PRELOAD). */
static char **build_env(const jail_opts *o)
{
    static char e_path[8192], e_tmp[4200], e_home[4200], e_as[4200], e_src[600], e_verdict[4300];
    static char *env[8 + 32 + 1];
    const char *path = getenv("PATH");
    snprintf(e_path, sizeof e_path, "PATH=%s", path && *path ? path : "/usr/bin:/bin");
    snprintf(e_tmp, sizeof e_tmp, "TMPDIR=%s/tmp", o->out);
    snprintf(e_home, sizeof e_home, "HOME=%s/tmp", o->out);
    snprintf(e_as, sizeof e_as, "SMEMLAB_JAIL_AS=%s", o->real_as);
    snprintf(e_src, sizeof e_src, "SMEMLAB_JAIL_SOURCE=%s", o->source_name);
    snprintf(e_verdict, sizeof e_verdict, "SMEMLAB_JAIL_VERDICT=%s/tmp/.asguard-verdict", o->out);
    char *fixed[] = {e_path, e_tmp, e_home, "LC_ALL=C", e_as, e_src, e_verdict};
    int n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        env[n++] = fixed[i];
    for (int i = 0; i < n_kept_env; i++) {
        const char *v = getenv(kept_env[i]);
        if (v && !strchr(kept_env[i], '=') && strcmp(kept_env[i], "PATH") &&
            strcmp(kept_env[i], "TMPDIR") && strcmp(kept_env[i], "HOME")) {
            char *e;
            if (asprintf(&e, "%s=%s", kept_env[i], v) > 0)
                env[n++] = e;
        }
    }
    env[n] = NULL;
    return env;
}

/* The toolchain's folders: CUDA (nvcc's ../), system programs and libraries. */
static void toolchain_roots(jail_opts *o, const char *nvcc)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", nvcc);
    char *s = strrchr(dir, '/');
    if (s) {
        *s = 0;
        s = strrchr(dir, '/');
        if (s && s != dir)
            *s = 0;
        roots_add(&o->toolchain, dir);
    }
    char real[4096]; /* nvcc reached through a symlink: the toolkit it lives in */
    if (realpath(nvcc, real) && (s = strrchr(real, '/')) && (*s = 0, s = strrchr(real, '/')) &&
        s != real) {
        *s = 0;
        roots_add(&o->toolchain, real);
    }
    static const char *const sys[] = {"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32",
                                      "/usr/lib64", "/usr/libexec", "/usr/include", "/bin",
                                      "/sbin", "/lib", "/lib32", "/lib64"};
    for (size_t i = 0; i < sizeof sys / sizeof *sys; i++)
        roots_add(&o->toolchain, sys[i]);
    /* the real assembler's folder, when it is not one of those */
    snprintf(dir, sizeof dir, "%s", o->real_as);
    s = strrchr(dir, '/');
    if (s) {
        *s = 0;
        roots_add(&o->toolchain, dir);
    }
}

/* --- the two runs ------------------------------------------------------------------------- */

/* nvcc ARGS with -M in place of the output options, for the student's file alone. */
static char **deps_argv(const jail_opts *o)
{
    char **a = calloc((size_t)o->argc + 2, sizeof *a);
    int n = 0;
    a[n++] = o->argv[0];
    for (int i = 1; i < o->argc; i++) {
        const char *x = o->argv[i];
        if (!strcmp(x, "-o") || !strcmp(x, "--output-file") || !strcmp(x, "--keep-dir") ||
            !strcmp(x, "-keep-dir")) {
            i++;
            continue;
        }
        if (!strcmp(x, "-shared") || !strcmp(x, "--shared") || !strcmp(x, "--keep") ||
            !strcmp(x, "-keep"))
            continue;
        size_t len = strlen(x);
        int input = x[0] != '-' && len > 3 &&
                    (!strcmp(x + len - 3, ".cu") || !strcmp(x + len - 2, ".c") ||
                     (len > 4 && !strcmp(x + len - 4, ".cpp")));
        if (input && strcmp(x, o->source))
            continue; /* common/support.cu: the kit's own */
        a[n++] = (char *)x;
    }
    a[n++] = "-M";
    a[n] = NULL;
    return a;
}

/* nvcc ARGS with the assembler guard first in the host compiler's search. */
static char **build_argv(const jail_opts *o)
{
    static char guard[4200];
    snprintf(guard, sizeof guard, "-B%s/", o->guard_dir);
    char **a = calloc((size_t)o->argc + 3, sizeof *a);
    int n = 0;
    for (int i = 0; i < o->argc; i++)
        a[n++] = o->argv[i];
    a[n++] = "-Xcompiler";
    a[n++] = guard;
    a[n] = NULL;
    return a;
}

static void show_messages(const jail_opts *o, const run_result *r)
{
    if (r->err_len)
        diag_print_once(stderr, r->err, r->err_len);
    if (r->err_dropped) {
        char cap[64];
        fprintf(stderr, "[%lld more bytes of compiler messages dropped: the log is capped at %s]\n",
                r->err_dropped, size_text(o->max_log, cap, sizeof cap));
    }
}

/* A limit the run hit, as its reason; 0 when none. */
static int limit_hit(const jail_opts *o, const run_result *r)
{
    char buf[64];
    if (r->timed_out)
        return verdict(JAIL_EXIT_LIMIT, "the build ran past %g s", o->wall);
    if (r->cpu_exceeded)
        return verdict(JAIL_EXIT_LIMIT, "the compiler used more than %g s of CPU time "
                       "(a loop the compiler runs, in constexpr or templates?)", o->timeout);
    if (r->out_of_memory)
        return verdict(JAIL_EXIT_LIMIT, "the compiler needed more than %s",
                       size_text(o->memory, buf, sizeof buf));
    if (r->too_large)
        return verdict(JAIL_EXIT_LIMIT, "the build wrote a file over the cap of %s",
                       size_text(o->max_output, buf, sizeof buf));
    return 0;
}

static int check_dependencies(jail_opts *o, char **env, double deadline)
{
    char **argv = deps_argv(o);
    run_result r;
    int rc = run_limited(o, argv, env, deadline, 1, 8 << 20, &r);
    free(argv);
    if (rc)
        return verdict(JAIL_EXIT_SETUP, "cannot run %s: %s", o->argv[0], strerror(errno));
    int code = limit_hit(o, &r);
    if (!code && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) {
        const char *why = r.out_truncated ? "the dependency list nvcc -M printed is over 8 MiB"
                                          : deps_check(o, r.out);
        if (why)
            code = verdict(JAIL_EXIT_REFUSED, "%s", why);
    } else if (!code) {
        const char *why = deps_failure(o, r.err);
        if (why)
            code = verdict(JAIL_EXIT_REFUSED, "%s", why);
        else { /* an error in the student's own file (theirs to read), or the machine's */
            show_messages(o, &r);
            code = compiler_failed(o, &r);
        }
    }
    run_result_free(&r);
    return code;
}

static int build(jail_opts *o, char **env, double deadline)
{
    char vpath[4300], ran[4300], guard_why[600] = "";
    snprintf(vpath, sizeof vpath, "%s/tmp/.asguard-verdict", o->out);
    snprintf(ran, sizeof ran, "%s/tmp/.asguard-ran", o->out);
    unlink(vpath); /* a refusal is this build's own */
    unlink(ran);
    char **argv = build_argv(o);
    run_result r;
    int rc = run_limited(o, argv, env, deadline, 0, 0, &r);
    free(argv);
    if (rc)
        return verdict(JAIL_EXIT_SETUP, "cannot run %s: %s", o->argv[0], strerror(errno));
    int fd = open(vpath, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t got = read(fd, guard_why, sizeof guard_why - 1);
        guard_why[got > 0 ? got : 0] = 0;
        close(fd);
    }
    int code;
    const char *cc = strrchr(o->argv[0], '/');
    int real_nvcc = !strcmp(cc ? cc + 1 : o->argv[0], "nvcc");
    if (guard_why[0])
        code = verdict(JAIL_EXIT_REFUSED, "%s", guard_why); /* nothing it printed is shown */
    else if ((code = limit_hit(o, &r)) != 0)
        ;
    else if (real_nvcc && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && !o->confined &&
             access(ran, F_OK) != 0)
        /* A host compiler that ignores -B for its assembler (built --with-as): without
           Landlock nothing else would stop an .incbin, so the build is not trusted. */
        code = verdict(JAIL_EXIT_SETUP, "the host compiler did not run the assembler guard "
                       "(a gcc configured --with-as ignores -B): on this machine build with "
                       "Landlock (a kernel of 5.13 or later), or with another gcc (nvcc -ccbin)");
    else {
        show_messages(o, &r);
        code = status_of(r.status);
        if (code)
            code = compiler_failed(o, &r);
    }
    run_result_free(&r);
    return code;
}

/* --- the command line ----------------------------------------------------------------------- */

static int probe(jail_opts *o)
{
    int abi = landlock_abi_version();
    printf("portable checks: the source scan, the dependency list (nvcc -M), the assembler "
           "guard, rlimits and a wall-clock kill\n");
    if (abi)
        printf("Landlock: ABI %d: reads limited to the submission, common/ and the toolchain; "
               "writes to the build folder\n", abi);
    else
        printf("Landlock: not available on this kernel: the portable checks only\n");
    (void)o;
    return 0;
}

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    if (!strcmp(base ? base + 1 : argv[0], "as"))
        return asguard_main(argc, argv);

    enum { O_SOURCE = 256, O_READ, O_OUT, O_TIMEOUT, O_MEMORY, O_MAXOUT, O_MAXLOG, O_SANDBOX,
           O_VERDICT, O_PROBE, O_HELP, O_KEEP_ENV, O_WALL };
    static const struct option longs[] = {
        {"source", required_argument, 0, O_SOURCE}, {"read", required_argument, 0, O_READ},
        {"out", required_argument, 0, O_OUT}, {"timeout", required_argument, 0, O_TIMEOUT},
        {"memory", required_argument, 0, O_MEMORY}, {"max-output", required_argument, 0, O_MAXOUT},
        {"max-log", required_argument, 0, O_MAXLOG}, {"sandbox", required_argument, 0, O_SANDBOX},
        {"verdict", required_argument, 0, O_VERDICT}, {"probe", no_argument, 0, O_PROBE},
        {"help", no_argument, 0, O_HELP}, {"keep-env", required_argument, 0, O_KEEP_ENV},
        {"wall", required_argument, 0, O_WALL},
        {0, 0, 0, 0}};
    static jail_opts o = {.timeout = 120, .memory = 4LL << 30, .max_output = 256LL << 20,
                          .max_log = 1 << 20, .kernel = 1, .verdict_fd = -1};
    const char *reads[JAIL_MAX_ROOTS];
    int n_reads = 0, do_probe = 0, opt;
    while ((opt = getopt_long(argc, argv, "+", longs, NULL)) != -1) {
        long long v;
        char *end;
        switch (opt) {
        case O_SOURCE: o.source = optarg; break;
        case O_READ:
            if (n_reads < JAIL_MAX_ROOTS / 2)
                reads[n_reads++] = optarg;
            break;
        case O_OUT: o.out = optarg; break;
        case O_TIMEOUT: case O_WALL: {
            double t = strtod(optarg, &end);
            if (end == optarg || *end || !(t > 0 && t <= 86400)) {
                fprintf(stderr, "smemlab-build-jail: --%s wants seconds in (0, 86400], not '%s'\n",
                        opt == O_WALL ? "wall" : "timeout", optarg);
                return JAIL_EXIT_USAGE;
            }
            *(opt == O_WALL ? &o.wall : &o.timeout) = t;
            break;
        }
        case O_MEMORY: case O_MAXOUT: case O_MAXLOG:
            v = parse_size(optarg);
            if (v < 4096) {
                fprintf(stderr, "smemlab-build-jail: a size such as 4G, 256M or 1048576 (at least 4K), not '%s'\n", optarg);
                return JAIL_EXIT_USAGE;
            }
            if (opt == O_MEMORY) o.memory = v;
            else if (opt == O_MAXOUT) o.max_output = v;
            else o.max_log = v;
            break;
        case O_SANDBOX:
            if (!strcmp(optarg, "auto")) o.kernel = 1;
            else if (!strcmp(optarg, "portable")) o.kernel = 0;
            else {
                fprintf(stderr, "smemlab-build-jail: --sandbox is auto or portable, not '%s'\n", optarg);
                return JAIL_EXIT_USAGE;
            }
            break;
        case O_VERDICT:
            verdict_fd = open(optarg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (verdict_fd < 0) {
                fprintf(stderr, "smemlab-build-jail: cannot write %s: %s\n", optarg, strerror(errno));
                return JAIL_EXIT_SETUP;
            }
            break;
        case O_PROBE: do_probe = 1; break;
        case O_KEEP_ENV:
            if (n_kept_env < 32)
                kept_env[n_kept_env++] = optarg;
            break;
        case O_HELP: usage(stdout); return 0;
        default: usage(stderr); return JAIL_EXIT_USAGE;
        }
    }
    if (do_probe)
        return probe(&o);
    if (!o.wall)
        o.wall = BUILD_WALL_PER_CPU * o.timeout;
    if (!o.source || !o.out || optind >= argc) {
        usage(stderr);
        return JAIL_EXIT_USAGE;
    }
    o.argv = argv + optind;
    o.argc = argc - optind;

    /* Set-up: nothing of the student's has been read yet. */
    if (!realpath("/proc/self/exe", o.self))
        return verdict(JAIL_EXIT_SETUP, "cannot find this program (/proc/self/exe)");
    char nvcc[4096];
    if (find_program(o.argv[0], NULL, nvcc, sizeof nvcc))
        return verdict(JAIL_EXIT_SETUP, "cannot find %s on PATH: install the CUDA Toolkit", o.argv[0]);
    o.argv[0] = strdup(nvcc);
    const char *slash = strrchr(o.source, '/');
    o.source_name = slash ? slash + 1 : o.source;
    char src_copy[4096];
    snprintf(src_copy, sizeof src_copy, "%s", o.source);
    if (!realpath(dirname(src_copy), o.source_dir))
        return verdict(JAIL_EXIT_SETUP, "cannot find the folder of %s", o.source);
    roots_add(&o.readable, o.source_dir);
    for (int i = 0; i < n_reads; i++)
        roots_add(&o.readable, reads[i]);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/tmp", o.out);
    if ((mkdir(tmp, 0700) && errno != EEXIST) || access(tmp, W_OK))
        return verdict(JAIL_EXIT_SETUP, "cannot make the build's temporary folder %s: %s", tmp, strerror(errno));
    char out_real[4096];
    if (!realpath(o.out, out_real))
        return verdict(JAIL_EXIT_SETUP, "cannot find the build folder %s", o.out);
    o.out = strdup(out_real);
    if (find_program("as", NULL, o.real_as, sizeof o.real_as))
        return verdict(JAIL_EXIT_SETUP, "cannot find the assembler (as) on PATH: install binutils");
    if (make_guard(&o))
        return verdict(JAIL_EXIT_SETUP, "cannot make the assembler guard's folder beside %s", o.self);
    toolchain_roots(&o, nvcc);
    char **env = build_env(&o);
    deps_system_roots(&o, env);
    run_forward_signals();

    /* The student's own text, before any compiler reads it. */
    const char *why = scan_file(&o, o.source, o.source_name);
    if (why)
        return verdict(JAIL_EXIT_REFUSED, "%s", why);

    if (o.kernel) {
        char lwhy[600];
        int rc = landlock_confine(&o, lwhy, sizeof lwhy);
        if (rc < 0)
            return verdict(JAIL_EXIT_SETUP, "%s (make ... BUILD_SANDBOX=portable builds with the "
                           "portable checks only)", lwhy);
        o.confined = rc == 1;
    }
    double deadline = monotonic_now() + o.wall;
    int code = check_dependencies(&o, env, deadline);
    if (code)
        return code;
    return build(&o, env, deadline);
}
