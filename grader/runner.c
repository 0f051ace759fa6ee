/* runner.c - worker processes, time limits and crash recovery; see runner.h. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include "exit_codes.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STARTUP_TIMEOUT_S 60.0 /* opening the GPU and the profiler */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void add_check(lab_result *r, const check_result *c)
{
    if (r->n_checks == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 32;
        r->checks = realloc(r->checks, (size_t)r->cap * sizeof *r->checks);
    }
    r->checks[r->n_checks++] = *c;
}

/*
 * A kernel that took its worker down: the checks it already passed stand;
 * every check it never sent fails, the first with what happened.
 */
static void add_death(lab_result *r, const lab_def *lab, int k, int sent_from, const char *what,
                      const char *hint)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    int n = kernel_checks(lab, &lab->kernels[k], checks), told = 0;

    for (int i = 0; i < n; i++) {
        int sent = 0;
        for (int j = sent_from; j < r->n_checks; j++)
            sent |= strcmp(r->checks[j].check, checks[i].id) == 0;
        if (sent)
            continue;
        check_result c;
        check_init(&c, lab->id, lab->kernels[k].name, checks[i].id, checks[i].points);
        if (told++) {
            check_set(&c, CHECK_FAIL, "not graded: %s", what);
        } else {
            check_set(&c, CHECK_FAIL, "%s", what);
            check_field(c.hint, sizeof c.hint, "%s", hint);
        }
        check_field(c.measured, sizeof c.measured, "%s", what);
        add_check(r, &c);
    }
}

/* Read one whole message; 1 on success, 0 on EOF, -1 on timeout. */
static int read_msg(int fd, worker_msg *m, double deadline)
{
    char *p = (char *)m;
    size_t got = 0;
    while (got < sizeof *m) {
        int wait_ms = (int)((deadline - now_s()) * 1000.0);
        struct pollfd pfd = {fd, POLLIN, 0};
        if (wait_ms <= 0)
            return -1;
        int ready = poll(&pfd, 1, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return -1;
        ssize_t n = read(fd, p + got, sizeof *m - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

static void describe_exit(int status, char *buf, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "the kernel's process died: signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, size, "the kernel's process exited with status %d before finishing",
                 WEXITSTATUS(status));
}

/*
 * Run one worker from kernel `first`. Returns the index to continue from
 * (n_kernels when done), or -1 when the environment stops everything.
 */
static int run_worker(const lab_def *lab, const grade_options *opt, worker_entry entry,
                      int first, lab_result *r)
{
    int fds[2];
    if (pipe(fds) != 0) {
        r->env_code = EXIT_ENVIRONMENT;
        snprintf(r->env_text, sizeof r->env_text, "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        r->env_code = EXIT_ENVIRONMENT;
        snprintf(r->env_text, sizeof r->env_text, "cannot start a worker process: %s",
                 strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        entry(lab, opt, first, fds[1]);
        _exit(EXIT_ENVIRONMENT); /* an entry must not return */
    }
    close(fds[1]);

    int current = -1, next = first, pending_from = r->n_checks;
    double deadline = now_s() + STARTUP_TIMEOUT_S;
    worker_msg m;
    int got, status = 0;

    while ((got = read_msg(fds[0], &m, deadline)) == 1) {
        switch (m.type) {
        case MSG_DEVICE:
            if (!r->device[0])
                snprintf(r->device, sizeof r->device, "%s", m.text);
            break;
        case MSG_BEGIN:
            current = m.kernel;
            pending_from = r->n_checks;
            deadline = now_s() + opt->timeout_s;
            break;
        case MSG_PROGRESS:
            deadline = now_s() + opt->timeout_s;
            break;
        case MSG_CHECK:
            add_check(r, &m.check);
            break;
        case MSG_END:
            current = -1;
            next = m.kernel + 1;
            deadline = now_s() + STARTUP_TIMEOUT_S;
            break;
        case MSG_ENVIRONMENT:
            r->env_code = m.env_code;
            snprintf(r->env_text, sizeof r->env_text, "%s", m.text);
            break;
        }
    }
    if (got < 0)
        kill(pid, SIGKILL);
    close(fds[0]);
    waitpid(pid, &status, 0);

    if (r->env_code)
        return -1;
    if (current < 0 && got == 0 && next == first && first < lab->n_kernels) {
        /* Died before grading anything: nothing to blame on a kernel. */
        r->env_code = EXIT_ENVIRONMENT;
        describe_exit(status, r->env_text, sizeof r->env_text);
        return -1;
    }
    if (current < 0 && got < 0) {
        r->env_code = EXIT_ENVIRONMENT;
        snprintf(r->env_text, sizeof r->env_text,
                 "the GPU did not answer within %.0f s while starting", STARTUP_TIMEOUT_S);
        return -1;
    }
    if (current >= 0) {
        char what[256];
        if (got < 0)
            snprintf(what, sizeof what, "timed out after %.0f s: a launch never finished",
                     opt->timeout_s);
        else
            describe_exit(status, what, sizeof what);
        add_death(r, lab, current, pending_from, what, got < 0
                  ? "Look for a loop whose exit condition never becomes true, or a "
                    "__syncthreads() that only some threads of the block reach."
                  : "The process running your kernel ended in the middle of it. Run the "
                    "lab under compute-sanitizer to find a faulting access.");
        return current + 1;
    }
    return next;
}

void run_lab_with(const lab_def *lab, const grade_options *opt, worker_entry entry,
                  lab_result *out)
{
    double start = now_s();
    int next = 0;

    memset(out, 0, sizeof *out);
    out->lab = lab;
    while (next >= 0 && next < lab->n_kernels)
        next = run_worker(lab, opt, entry, next, out);
    out->seconds = now_s() - start;
}

void run_lab(const lab_def *lab, const grade_options *opt, lab_result *out)
{
    run_lab_with(lab, opt, worker_main, out);
}

void lab_result_free(lab_result *r)
{
    free(r->checks);
    memset(r, 0, sizeof *r);
}
