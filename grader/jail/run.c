/*
 * run.c - one compiler run with the build's limits.
 *
 * The child gets rlimits that its own children inherit (nvcc runs cudafe++,
 * cicc, ptxas, gcc, as, ld): address space (an endless include or a template
 * bomb stops at --memory instead of taking the machine), file size (a macro
 * bomb stops at --max-output), CPU time (--timeout: a compile that computes
 * for ever, in constexpr or templates, stops at the same point however busy
 * the machine is) and no core files. It leads its own process group, which
 * is killed at the deadline (--wall) and when it ends (nothing it started outlives the build); the jail
 * is a child subreaper, so orphans are reaped here, and where /proc can be
 * read (not under Landlock, which hides it) descendants that left the group
 * are found and killed too. Its messages are kept up to
 * --max-log, with the last 16 KiB kept apart so that the reason of a failure
 * (an allocation that failed, a file too large) is seen however long the log.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TAIL 16384

double monotonic_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* --- the process tree ------------------------------------------------------------ */

static pid_t current_group; /* the running build's process group, 0 when none */

/* Every descendant of this process (we are their subreaper), killed. */
static void kill_descendants(void)
{
    for (int round = 0; round < 8; round++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)getpid());
        DIR *d = opendir(path);
        int found = 0;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char cpath[320];
            snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children", (int)getpid(), e->d_name);
            FILE *f = fopen(cpath, "re");
            int pid;
            while (f && fscanf(f, "%d", &pid) == 1) {
                kill(-pid, SIGKILL); /* and anything it leads */
                kill(pid, SIGKILL);
                found = 1;
            }
            if (f)
                fclose(f);
        }
        if (d)
            closedir(d);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (!found)
            return;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void kill_build(void)
{
    if (current_group > 0)
        kill(-current_group, SIGKILL);
    kill_descendants();
}

static void on_fatal_signal(int sig)
{
    if (current_group > 0)
        kill(-current_group, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

void run_forward_signals(void)
{
    struct sigaction sa = {.sa_handler = on_fatal_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* --- the child ---------------------------------------------------------------------- */

static void set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit cur, want = {soft, hard};
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY) {
        if (want.rlim_max > cur.rlim_max)
            want.rlim_max = cur.rlim_max; /* never above what we were given */
        if (want.rlim_cur > want.rlim_max)
            want.rlim_cur = want.rlim_max;
    }
    setrlimit(resource, &want);
}

static void child(const jail_opts *o, char *const argv[], char *const envp[], int out_fd,
                  int err_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    static const int reset[] = {SIGPIPE, SIGXFSZ, SIGXCPU, SIGINT, SIGTERM, SIGHUP, SIGCHLD};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        signal(reset[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* SIGXCPU at the soft limit (EDG catches it and says "CPU time limit
       exceeded"), SIGKILL a second later for a process that ignores it. */
    rlim_t cpu = (rlim_t)o->timeout;
    if ((double)cpu < o->timeout)
        cpu++; /* whole seconds, rounded up */
    set_limit(RLIMIT_AS, (rlim_t)o->memory, (rlim_t)o->memory);
    set_limit(RLIMIT_FSIZE, (rlim_t)o->max_output, (rlim_t)o->max_output);
    set_limit(RLIMIT_CPU, cpu, cpu + 1);
    set_limit(RLIMIT_CORE, 0, 0);
    int nul = open("/dev/null", O_RDONLY);
    if (nul < 0 || dup2(nul, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);
    /* The compiler's address layout fixed, as its processes inherit: CUDA 13.0's cicc
       writes different PTX for the same file from one run to the next where the layout
       moves (lab6-halo-from-global: two PTX files in six builds, conv2dTiled's shared
       loads graded 1.053-way over 4800 requests in one, 1.000-way over 4608 in the
       other; one file under a fixed layout). A file builds to the same bytes, and grades
       the same, every time. (Where the kernel refuses it, the build goes on as before.) */
    personality(ADDR_NO_RANDOMIZE);
    execve(argv[0], argv, envp);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* --- reading its output ---------------------------------------------------------------- */

typedef struct sink {
    char *head;
    size_t len, cap, limit;
    long long dropped;
    char tail[TAIL];
    size_t tail_len; /* bytes in tail (a ring once full) */
    size_t tail_pos;
} sink;

static void sink_add(sink *s, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) { /* the last TAIL bytes, always */
        s->tail[s->tail_pos] = buf[i];
        s->tail_pos = (s->tail_pos + 1) % TAIL;
        if (s->tail_len < TAIL)
            s->tail_len++;
    }
    size_t keep = s->len < s->limit ? s->limit - s->len : 0;
    if (keep > n)
        keep = n;
    if (keep) {
        if (s->len + keep + 1 > s->cap) {
            s->cap = (s->len + keep + 1) * 2;
            if (s->cap > s->limit + 1)
                s->cap = s->limit + 1;
            s->head = realloc(s->head, s->cap);
        }
        memcpy(s->head + s->len, buf, keep);
        s->len += keep;
    }
    s->dropped += (long long)(n - keep);
}

/* The tail, in order, NUL-terminated (a static buffer). */
static const char *sink_tail(const sink *s)
{
    static char out[TAIL + 1];
    size_t start = s->tail_len < TAIL ? 0 : s->tail_pos;
    for (size_t i = 0; i < s->tail_len; i++)
        out[i] = s->tail[(start + i) % TAIL];
    out[s->tail_len] = 0;
    for (size_t i = 0; i < s->tail_len; i++)
        if (!out[i])
            out[i] = ' ';
    return out;
}

static int has_word(const char *text, const char *const words[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasestr(text, words[i]))
            return 1;
    return 0;
}

/* What the compilers say when an allocation fails under RLIMIT_AS: EDG's
 * "catastrophic error: out of memory", gcc's "out of memory allocating" and
 * "virtual memory exhausted", LLVM's "Allocation failed", C++'s bad_alloc,
 * ptxas' "Memory allocation failure". */
static const char *const oom_words[] = {"out of memory", "memory exhausted", "bad_alloc",
                                        "cannot allocate memory", "memory allocation fail",
                                        "allocation failed"};
/* RLIMIT_FSIZE: SIGXFSZ, or EFBIG where the signal is ignored. */
static const char *const fsize_words[] = {"file size limit exceeded", "file too large",
                                          "signal 25"};
static const char *const cpu_words[] = {"cpu time limit exceeded", "signal 24"};

static void classify(run_result *r, const sink *s)
{
    const char *tail = sink_tail(s);
    const char *head = s->head ? s->head : "";
    int st = r->status;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ)
        r->too_large = 1;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU)
        r->cpu_exceeded = 1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return;
    const size_t nw = sizeof oom_words / sizeof *oom_words;
    if (has_word(tail, oom_words, nw) || has_word(head, oom_words, nw))
        r->out_of_memory = 1;
    const size_t nf = sizeof fsize_words / sizeof *fsize_words;
    if (has_word(tail, fsize_words, nf) || has_word(head, fsize_words, nf))
        r->too_large = 1;
    const size_t nc = sizeof cpu_words / sizeof *cpu_words;
    if (has_word(tail, cpu_words, nc) || has_word(head, cpu_words, nc))
        r->cpu_exceeded = 1;
}

static void drain(int *fd, sink *s)
{
    char buf[65536];
    ssize_t got = read(*fd, buf, sizeof buf);
    if (got > 0)
        sink_add(s, buf, (size_t)got);
    else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(*fd);
        *fd = -1;
    }
}

int run_limited(const jail_opts *o, char *const argv[], char *const envp[], double deadline,
                int capture_out, size_t out_cap, run_result *res)
{
    memset(res, 0, sizeof *res);
    int err_pipe[2], out_pipe[2] = {-1, -1};
    if (pipe2(err_pipe, O_CLOEXEC) || (capture_out && pipe2(out_pipe, O_CLOEXEC)))
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child(o, argv, envp, capture_out ? out_pipe[1] : err_pipe[1], err_pipe[1]);
    current_group = pid;
    setpgid(pid, pid); /* both sides, so that a kill right away finds the group */
    close(err_pipe[1]);
    if (capture_out)
        close(out_pipe[1]);
    sink err = {.limit = (size_t)o->max_log}, out = {.limit = out_cap};
    int efd = err_pipe[0], ofd = capture_out ? out_pipe[0] : -1, reaped = 0, status = 0;
    while (efd >= 0 || ofd >= 0 || !reaped) {
        double left = deadline - monotonic_now();
        if (left <= 0) {
            res->timed_out = 1;
            kill_build();
            if (!reaped && waitpid(pid, &status, 0) == pid)
                reaped = 1;
            break;
        }
        if (!reaped) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                reaped = 1;
                kill(-pid, SIGKILL); /* what it left running in its group */
            }
        }
        if (reaped && efd < 0 && ofd < 0)
            break;
        struct pollfd p[2];
        int n = 0;
        if (efd >= 0)
            p[n++] = (struct pollfd){.fd = efd, .events = POLLIN};
        if (ofd >= 0)
            p[n++] = (struct pollfd){.fd = ofd, .events = POLLIN};
        int wait_ms = reaped ? 200 : 50;
        if (left * 1000 < wait_ms)
            wait_ms = (int)(left * 1000) + 1;
        if (n == 0) {
            struct timespec ts = {0, wait_ms * 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        int ready = poll(p, (nfds_t)n, wait_ms);
        if (ready == 0 && reaped) { /* it ended; a stray descendant holds the pipe */
            kill_descendants();
            if (efd >= 0)
                close(efd), efd = -1;
            if (ofd >= 0)
                close(ofd), ofd = -1;
            break;
        }
        for (int i = 0; i < n; i++)
            if (p[i].revents) {
                if (p[i].fd == efd)
                    drain(&efd, &err);
                else
                    drain(&ofd, &out);
            }
    }
    if (efd >= 0)
        close(efd);
    if (ofd >= 0)
        close(ofd);
    kill_descendants();
    current_group = 0;
    res->status = status;
    classify(res, &err);
    res->err = err.head ? err.head : calloc(1, 1);
    res->err[err.len] = 0;
    res->err_len = err.len;
    res->err_dropped = err.dropped;
    res->out = out.head ? out.head : calloc(1, 1);
    res->out[out.len] = 0;
    res->out_len = out.len;
    res->out_truncated = out.dropped > 0;
    return 0;
}

void run_result_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
