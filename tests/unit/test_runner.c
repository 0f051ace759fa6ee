/*
 * test_runner.c - the grader's side of the measuring worker, without a GPU:
 * fake workers that behave, hang, crash, lose their context, report no GPU,
 * die at start, forge results, flood their output, leave processes behind,
 * or keep talking instead of finishing - and what the grader makes of each.
 */
#define _GNU_SOURCE
#include "grade/runner.h"
#include "grade/meter_server.h"

#include "base/exit_codes.h"
#include "base/child.h"
#include "run/gpu.h"
#include "run/gpu_lock.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern const lab_def lab1_def; /* three kernels, each with the checks of its table row */

static void send_msg(int fd, const worker_msg *m)
{
    if (write(fd, m, sizeof *m) != (ssize_t)sizeof *m)
        _exit(99);
}

static void send_text(int fd, worker_msg_type type, int kernel, const char *text)
{
    worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.kernel = kernel;
    strncpy(m.text, text, sizeof m.text - 1);
    send_msg(fd, &m);
}

static void send_check(int fd, const lab_def *lab, int k, int i, check_status st)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    kernel_checks(lab, &lab->kernels[k], checks);
    worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_CHECK;
    m.kernel = k;
    check_init(&m.check, lab->id, lab->kernels[k].name, check_name(checks[i].id), 0);
    check_set(&m.check, st, "fine");
    send_msg(fd, &m);
}

/* Send the first `count` checks of kernel k, all passed. */
static void send_passes(int fd, const lab_def *lab, int k, int count)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    int n = kernel_checks(lab, &lab->kernels[k], checks);
    for (int i = 0; i < n && i < count; i++)
        send_check(fd, lab, k, i, CHECK_PASS);
}

static void grade_fully(int fd, const lab_def *lab, int k)
{
    send_text(fd, MSG_BEGIN, k, lab->kernels[k].name);
    send_passes(fd, lab, k, KERNEL_MAX_CHECKS);
    send_text(fd, MSG_END, k, "");
}

static void worker_good(const grade_job *job, int first, int fd)
{
    send_text(fd, MSG_DEVICE, -1, "Fake GPU");
    for (int k = first; k < job->lab->n_kernels; k++)
        grade_fully(fd, job->lab, k);
    _exit(0);
}

/*
 * Grade every kernel from `first` on, but stop inside kernel 1 after `passes`
 * checks. Returns 1 there, for the caller to hang or crash; 0 when kernel 1
 * was not in this worker's range.
 */
static int grade_until_kernel_1(int fd, const lab_def *lab, int first, int passes)
{
    for (int k = first; k < lab->n_kernels; k++) {
        if (k != 1) {
            grade_fully(fd, lab, k);
            continue;
        }
        send_text(fd, MSG_BEGIN, k, "");
        send_passes(fd, lab, k, passes);
        return 1;
    }
    return 0;
}

/* Kernel 1 passes one check, then never finishes. */
static void worker_hangs_on_1(const grade_job *job, int first, int fd)
{
    if (grade_until_kernel_1(fd, job->lab, first, 1))
        pause();
    _exit(0);
}

/* Kernel 1 keeps sending messages that used to extend the time limit, forever. */
static void worker_chatters_on_1(const grade_job *job, int first, int fd)
{
    if (grade_until_kernel_1(fd, job->lab, first, 0))
        for (;;) {
            send_text(fd, MSG_DEVICE, -1, "still busy");
            usleep(10000);
        }
    _exit(0);
}

/* Kernel 1 passes two checks, then the process dies of a fault. */
static void worker_crashes_on_1(const grade_job *job, int first, int fd)
{
    if (grade_until_kernel_1(fd, job->lab, first, 2)) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    _exit(0);
}

/* The worker's own watchdog fired in kernel 1. */
static void worker_watchdog_on_1(const grade_job *job, int first, int fd)
{
    if (grade_until_kernel_1(fd, job->lab, first, 0))
        _exit(WORKER_EXIT_TIMEOUT);
    _exit(0);
}

/* A lost CUDA context: the worker ends after each kernel. */
static void worker_one_kernel_each(const grade_job *job, int first, int fd)
{
    grade_fully(fd, job->lab, first);
    _exit(0);
}

static void worker_no_gpu(const grade_job *job, int first, int fd)
{
    (void)job, (void)first;
    send_text(fd, MSG_ENVIRONMENT, -1, "no CUDA GPU found");
    _exit(EXIT_ENVIRONMENT);
}

static void worker_dies_at_start(const grade_job *job, int first, int fd)
{
    (void)job, (void)first, (void)fd;
    _exit(7);
}

/* Every lie a child could tell about its results. */
static void worker_forges(const grade_job *job, int first, int fd)
{
    const lab_def *lab = job->lab;
    worker_msg m;
    (void)first;
    send_text(fd, MSG_DEVICE, -1, "Fake GPU");
    send_text(fd, MSG_BEGIN, 0, "");
    memset(&m, 0, sizeof m); /* points claimed by the child */
    m.type = MSG_CHECK;
    m.kernel = 0;
    check_init(&m.check, lab->id, "whatever", "correct", 15000);
    check_set(&m.check, CHECK_PASS, "forged");
    m.check.points = 15000;
    send_msg(fd, &m);
    send_msg(fd, &m);            /* the same check again */
    strcpy(m.check.check, "bonus"); /* a check the table does not have */
    send_msg(fd, &m);
    m.kernel = 2;                /* another kernel than the one begun */
    strcpy(m.check.check, "correct");
    send_msg(fd, &m);
    m.kernel = 0;
    strcpy(m.check.check, "load-requests");
    m.check.status = (check_status)77; /* no such status */
    send_msg(fd, &m);
    memset(&m, 'A', sizeof m);   /* nothing terminated */
    m.type = MSG_CHECK;
    m.kernel = 0;
    strcpy(m.check.check, "store-requests");
    m.check.status = CHECK_FAIL;
    send_msg(fd, &m);
    send_text(fd, MSG_BEGIN, 99, "");  /* no such kernel */
    send_text(fd, 12345, 0, "");       /* no such message */
    send_text(fd, MSG_END, 0, "");
    for (int k = 1; k < lab->n_kernels; k++)
        grade_fully(fd, lab, k);
    _exit(0);
}

/* 20 MB on stdout and stderr before grading normally. */
static void worker_floods(const grade_job *job, int first, int fd)
{
    static char line[1024];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 20 * 1024; i++)
        if (write(i % 2 ? 2 : 1, line, sizeof line) < 0)
            break;
    worker_good(job, first, fd);
}

static char g_pidfile[64];

/* A grandchild leaves the worker's group, keeps every pipe open and sleeps. */
static void worker_leaves_a_grandchild(const grade_job *job, int first, int fd)
{
    pid_t g = fork();
    if (g == 0) {
        setsid();
        FILE *f = fopen(g_pidfile, "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        for (;;)
            pause();
    }
    while (access(g_pidfile, F_OK) != 0)
        usleep(1000);
    worker_good(job, first, fd);
}

/* --- the GPU's lock (run/gpu_lock.h) ---------------------------------------------- */

#define TEST_GPU "0000:7e:00.0"

/* What lab 1 has, from its table: checks a kernel (the same for its three), points in all. */
#define LAB1_KERNEL_CHECKS kernel_checks(&lab1_def, &lab1_def.kernels[0], (kernel_check[KERNEL_MAX_CHECKS]){0})
#define LAB1_POINTS (3 * kernel_max_points(&lab1_def, &lab1_def.kernels[0]))

static void tell_waiting(void *fd, const char *lock_path)
{
    send_text(*(int *)fd, MSG_GPU_WAIT, -1, lock_path);
}

/* Takes the GPU's lock like the real worker (waiting for it if held), then grades. */
static void worker_takes_the_lock(const grade_job *job, int first, int fd)
{
    char why[256];
    if (gpu_lock_take(TEST_GPU, tell_waiting, &fd, why, sizeof why) < 0)
        _exit(98);
    send_text(fd, MSG_GPU_HELD, -1, "");
    worker_good(job, first, fd);
}

/* Another grader: a process holding the lock for `seconds` (< 0: until killed). */
static pid_t hold_the_gpu(double seconds)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char why[256];
        if (gpu_lock_take(TEST_GPU, NULL, NULL, why, sizeof why) < 0)
            _exit(97);
        if (write(ready[1], "x", 1) != 1)
            _exit(96);
        if (seconds < 0)
            for (;;)
                pause();
        usleep((useconds_t)(seconds * 1e6));
        _exit(0);
    }
    char c;
    close(ready[1]);
    ck_assert_int_eq(read(ready[0], &c, 1), 1); /* it holds the lock now */
    close(ready[0]);
    return pid;
}

static char g_lock_dir[64];

static void lock_dir_setup(void)
{
    snprintf(g_lock_dir, sizeof g_lock_dir, "/tmp/smemlab-lock-test.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_lock_dir));
    setenv("SMEMLAB_LOCK_DIR", g_lock_dir, 1);
}

static void lock_dir_teardown(void)
{
    char path[1024];
    gpu_lock_path(TEST_GPU, path, sizeof path);
    unlink(path);
    rmdir(g_lock_dir);
    unsetenv("SMEMLAB_LOCK_DIR");
}

/* Hangs in kernel 0 after writing its own pid, for the test that kills the grader. */
static void worker_hangs_with_pidfile(const grade_job *job, int first, int fd)
{
    (void)first;
    FILE *f = fopen(g_pidfile, "w");
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    send_text(fd, MSG_BEGIN, 0, job->lab->kernels[0].name);
    for (;;)
        pause();
}

static kernel_plan g_plans[8];
static grade_options g_opt;

/* A job whose every kernel has a validated plan: only the worker decides. */
static grade_job job_for(const lab_def *lab, double timeout_s, double budget_s)
{
    static lab_image img;
    snprintf(img.path, sizeof img.path, "fake.so");
    g_opt = (grade_options){.repeats = 1, .timeout_s = timeout_s, .kernel_budget_s = budget_s};
    for (int k = 0; k < lab->n_kernels; k++)
        g_plans[k].verdict = PLAN_OK;
    return (grade_job){lab, &g_opt, &img, g_plans};
}

static void run(worker_entry entry, double budget_s, lab_result *r)
{
    grade_job job = job_for(&lab1_def, 5, budget_s);
    memset(r, 0, sizeof *r);
    r->lab = &lab1_def;
    run_plans(&job, entry, r);
}

/* Checks of one kernel with the given status. */
static int count(const lab_result *r, const char *kernel, check_status st)
{
    int n = 0;
    for (int i = 0; i < r->n_checks; i++)
        n += strcmp(r->checks[i].kernel, kernel) == 0 && r->checks[i].status == st;
    return n;
}

static const check_result *first_failure(const lab_result *r, const char *kernel)
{
    for (int i = 0; i < r->n_checks; i++)
        if (strcmp(r->checks[i].kernel, kernel) == 0 && r->checks[i].status == CHECK_FAIL)
            return &r->checks[i];
    return NULL;
}

/* Running, not only a zombie waiting for whoever adopted it to reap it. */
static int alive(pid_t pid)
{
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    char *end = strrchr(stat, ')');
    return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

static pid_t read_pidfile(void)
{
    int pid = 0;
    FILE *f = fopen(g_pidfile, "r");
    if (f && fscanf(f, "%d", &pid) != 1)
        pid = 0;
    if (f)
        fclose(f);
    return (pid_t)pid;
}

START_TEST(test_good_worker)
{
    lab_result r;
    run(worker_good, 0, &r);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 3 * LAB1_KERNEL_CHECKS);
    ck_assert_str_eq(r.device, "Fake GPU");
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(count(&r, lab1_def.kernels[k].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    ck_assert_double_eq_tol(r.points, LAB1_POINTS, 1e-12);
    ck_assert_double_eq_tol(r.max_points, LAB1_POINTS, 1e-12);
    ck_assert_ptr_null(r.device_printed);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_hang_is_timed_out_and_the_rest_graded)
{
    lab_result r;
    run(worker_hangs_on_1, 0.4, &r);
    const char *hung = lab1_def.kernels[1].name;
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 3 * LAB1_KERNEL_CHECKS);
    ck_assert_int_eq(count(&r, lab1_def.kernels[0].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    ck_assert_int_eq(count(&r, hung, CHECK_PASS), 1); /* what it passed stands */
    ck_assert_int_eq(count(&r, hung, CHECK_FAIL), LAB1_KERNEL_CHECKS - 1);
    const check_result *f = first_failure(&r, hung);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(strstr(f->message, "timed out"));
    ck_assert_str_eq(f->check, "store-requests"); /* the first check it never sent */
    ck_assert_double_eq_tol(f->max_points, 1, 1e-12);
    ck_assert_int_eq(count(&r, lab1_def.kernels[2].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_messages_do_not_extend_the_deadline)
{
    lab_result r;
    double start = child_now();
    run(worker_chatters_on_1, 0.5, &r);
    ck_assert(child_now() - start < 3.0);
    const check_result *f = first_failure(&r, lab1_def.kernels[1].name);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(strstr(f->message, "timed out"));
    ck_assert_int_eq(count(&r, lab1_def.kernels[2].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_watchdog_exit_is_a_timeout)
{
    lab_result r;
    run(worker_watchdog_on_1, 0, &r);
    const check_result *f = first_failure(&r, lab1_def.kernels[1].name);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(strstr(f->message, "timed out after 5 s"));
    ck_assert_ptr_nonnull(strstr(f->hint, "__syncthreads()"));
    lab_result_free(&r);
}
END_TEST

START_TEST(test_crash_keeps_passed_checks)
{
    lab_result r;
    run(worker_crashes_on_1, 0, &r);
    const char *crashed = lab1_def.kernels[1].name;
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(count(&r, crashed, CHECK_PASS), 2);
    ck_assert_int_eq(count(&r, crashed, CHECK_FAIL), LAB1_KERNEL_CHECKS - 2);
    const check_result *f = first_failure(&r, crashed);
    ck_assert_ptr_nonnull(strstr(f->message, "signal 11"));
    ck_assert_int_eq(count(&r, lab1_def.kernels[2].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    ck_assert_double_eq_tol(r.max_points, LAB1_POINTS, 1e-12); /* no check twice, none missing */
    lab_result_free(&r);
}
END_TEST

START_TEST(test_restart_after_each_kernel)
{
    lab_result r;
    run(worker_one_kernel_each, 0, &r);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 3 * LAB1_KERNEL_CHECKS);
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(count(&r, lab1_def.kernels[k].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_environment_error_stops)
{
    lab_result r;
    run(worker_no_gpu, 0, &r);
    ck_assert_int_eq(r.env_code, EXIT_ENVIRONMENT);
    ck_assert_str_eq(r.env_text, "no CUDA GPU found");
    ck_assert_int_eq(r.n_checks, 0);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_death_before_any_kernel_is_environment)
{
    lab_result r;
    run(worker_dies_at_start, 0, &r);
    ck_assert_int_eq(r.env_code, EXIT_ENVIRONMENT);
    ck_assert_ptr_nonnull(strstr(r.env_text, "status 7"));
    ck_assert_int_eq(r.n_checks, 0);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_forged_messages_are_refused)
{
    lab_result r;
    run(worker_forges, 0, &r);
    const char *k0 = lab1_def.kernels[0].name;
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 3 * LAB1_KERNEL_CHECKS);     /* each check once, in the table's order */
    ck_assert_double_eq_tol(r.max_points, LAB1_POINTS, 1e-12);
    /* kernel 0: correct passed once, for the table's 2 points, never 15000 */
    ck_assert_str_eq(r.checks[0].check, "correct");
    ck_assert_str_eq(r.checks[0].kernel, k0); /* the table's name, not the child's */
    ck_assert_int_eq(r.checks[0].status, CHECK_PASS);
    ck_assert_double_eq_tol(r.checks[0].points, 2, 1e-12);
    /* the unterminated record was cut to size and accepted as a failure */
    ck_assert_str_eq(r.checks[1].check, "store-requests");
    ck_assert_int_eq(r.checks[1].status, CHECK_FAIL);
    ck_assert_uint_lt(strlen(r.checks[1].message), sizeof r.checks[1].message);
    /* what it never validly reported fails */
    ck_assert_int_eq(count(&r, k0, CHECK_FAIL), LAB1_KERNEL_CHECKS - 1);
    /* kernel 0's correct check (2 points), and kernels 1 and 2 whole */
    ck_assert_double_eq_tol(r.points, 2 + 2 * LAB1_POINTS / 3, 1e-12);
    /* duplicate, unknown id, wrong kernel, bad status, bad BEGIN, bad type */
    ck_assert_int_ge(r.rejected_messages, 6);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_flood_is_capped)
{
    lab_result r;
    run(worker_floods, 0, &r);
    ck_assert_double_eq_tol(r.points, LAB1_POINTS, 1e-12);
    ck_assert_ptr_nonnull(r.device_printed);
    ck_assert_uint_le(strlen(r.device_printed), CAPTURE_HEAD + CAPTURE_TAIL + 100);
    ck_assert_ptr_nonnull(strstr(r.device_printed, "bytes not shown"));
    lab_result_free(&r);
}
END_TEST

START_TEST(test_grandchild_is_killed_and_not_waited_for)
{
    lab_result r;
    snprintf(g_pidfile, sizeof g_pidfile, "/tmp/smemlab-test-%d.pid", (int)getpid());
    unlink(g_pidfile);
    double start = child_now();
    run(worker_leaves_a_grandchild, 0, &r);
    ck_assert(child_now() - start < 5.0); /* the held pipe does not stall the grader */
    ck_assert_double_eq_tol(r.points, LAB1_POINTS, 1e-12);
    pid_t g = read_pidfile();
    ck_assert_int_gt(g, 0);
    ck_assert(!alive(g));
    unlink(g_pidfile);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_killed_grader_leaves_no_worker)
{
    snprintf(g_pidfile, sizeof g_pidfile, "/tmp/smemlab-test-%d.pid", (int)getpid());
    unlink(g_pidfile);
    pid_t grader = fork();
    if (grader == 0) {
        lab_result r;
        run(worker_hangs_with_pidfile, 60, &r);
        _exit(0);
    }
    pid_t w = 0;
    for (int i = 0; i < 500 && !(w = read_pidfile()); i++)
        usleep(10000);
    ck_assert_int_gt(w, 0);
    ck_assert(alive(w));
    kill(grader, SIGKILL);
    waitpid(grader, NULL, 0);
    for (int i = 0; i < 100 && alive(w); i++)
        usleep(10000);
    ck_assert(!alive(w));
    unlink(g_pidfile);
}
END_TEST

/* Another grader holds the GPU: this one waits, then grades, then tells the batch. */
START_TEST(test_worker_waits_for_the_gpu)
{
    lock_dir_setup();
    pid_t other = hold_the_gpu(0.5);
    int status[2];
    ck_assert_int_eq(pipe(status), 0);
    lab_result r;
    grade_job job = job_for(&lab1_def, 5, 0);
    g_opt.status_fd = status[1];
    memset(&r, 0, sizeof r);
    r.lab = &lab1_def;
    double t0 = child_now();
    run_plans(&job, worker_takes_the_lock, &r);
    double took = child_now() - t0;
    close(status[1]);
    char told[16] = "";
    ck_assert_int_eq(read(status[0], told, sizeof told - 1), 4);
    ck_assert_str_eq(told, "gpu\n");
    close(status[0]);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_double_eq_tol(r.points, LAB1_POINTS, 1e-12);
    ck_assert_msg(took >= 0.4, "graded in %.2f s while the GPU was held for 0.5 s", took);
    waitpid(other, NULL, 0);
    lab_result_free(&r);
    lock_dir_teardown();
}
END_TEST

/* The GPU held past the wait: not graded (exit 3), the lock's file named. */
START_TEST(test_gpu_held_too_long_is_environment)
{
    lock_dir_setup();
    pid_t other = hold_the_gpu(-1);
    lab_result r;
    grade_job job = job_for(&lab1_def, 5, 0);
    g_opt.gpu_wait_s = 0.5;
    memset(&r, 0, sizeof r);
    r.lab = &lab1_def;
    run_plans(&job, worker_takes_the_lock, &r);
    kill(other, SIGKILL);
    waitpid(other, NULL, 0);
    ck_assert_int_eq(r.env_code, EXIT_ENVIRONMENT);
    ck_assert_msg(strstr(r.env_text, "still held by another smemlab grader after 0 s") ||
                  strstr(r.env_text, "still held by another smemlab grader after 1 s"),
                  "%s", r.env_text);
    ck_assert_msg(strstr(r.env_text, g_lock_dir), "%s", r.env_text);
    ck_assert_double_eq_tol(r.points, 0, 1e-12);
    lab_result_free(&r);
    lock_dir_teardown();
}
END_TEST

/* A lock file an attacker replaced: no following a link, no hanging on a FIFO. */
START_TEST(test_lock_file_that_is_not_a_file)
{
    lock_dir_setup();
    char path[1024], why[256];
    gpu_lock_path(TEST_GPU, path, sizeof path);
    ck_assert_msg(strstr(path, "/smemlab-gpu-0000:7e:00.0.lock"), "%s", path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(gpu_lock_take(TEST_GPU, NULL, NULL, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "not a plain file"), "%s", why);
    unlink(path);
    ck_assert_int_eq(symlink("/etc/passwd", path), 0);
    ck_assert_int_eq(gpu_lock_take(TEST_GPU, NULL, NULL, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "cannot open the GPU's lock file"), "%s", why);
    unlink(path);
    int fd = gpu_lock_take(TEST_GPU, NULL, NULL, why, sizeof why); /* made anew, then held */
    ck_assert_int_ge(fd, 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    close(fd);
    char odd[1024];
    gpu_lock_path("../x/y z", odd, sizeof odd); /* a name, never a path */
    ck_assert_msg(strstr(odd, "/smemlab-gpu-.._x_y_z.lock"), "%s", odd);
    lock_dir_teardown();
}
END_TEST

/* --- a meter server (meter_server.h) in the worker's place ------------------------- */

static char g_meter_dir[64], g_meter_log[128];

/* A stand-in for the server, in a thread: the grader kills every child process
   it adopted when a worker ends (child.h), and a server is not its child. */
typedef struct fake_server {
    int listen_fd;
    worker_entry entry;
    const grade_job *job;
    double quiet_s;
    pthread_t thread;
} fake_server;

/*
 * For each grader's connection: wait quiet_s (busy with another lab, the
 * job unread: it is larger than the socket's buffer), read it, say the GPU is the job's, run `entry` on it in a child as the
 * real server runs worker_grade, and say how it ended (MSG_EXIT) - or
 * nothing when it died of a signal, as a dead server says nothing.
 */
static void *fake_server_loop(void *arg)
{
    fake_server *fs = arg;
    int c;
    while ((c = accept(fs->listen_fd, NULL, NULL)) >= 0) {
        static meter_request rq;
        static char sink[65536];
        usleep((useconds_t)(fs->quiet_s * 1e6)); /* busy: the job waits in the socket */
        if (read(c, &rq, sizeof rq) != (ssize_t)sizeof rq)
            break;
        size_t rest = rq.file_size + rq.device_size + (size_t)fs->job->lab->n_kernels * rq.plan_bytes;
        for (ssize_t got; rest > 0 && (got = read(c, sink, rest < sizeof sink ? rest : sizeof sink)) > 0;)
            rest -= (size_t)got;
        FILE *f = fopen(g_meter_log, "a");
        fprintf(f, "first %d of %s\n", rq.first, rq.lab);
        fclose(f);
        worker_msg held = {.type = MSG_GPU_HELD};
        if (write(c, &held, sizeof held) == (ssize_t)sizeof held) {
            pid_t w = fork();
            if (w == 0)
                fs->entry(fs->job, rq.first, c);
            int st = 0;
            waitpid(w, &st, 0); /* the grader may have reaped it: then it ended well */
            worker_msg m = {.type = MSG_EXIT, .kernel = WEXITSTATUS(st)};
            if (WIFEXITED(st) && write(c, &m, sizeof m) != (ssize_t)sizeof m) {
                /* the grader stopped listening: all its kernels were done */
            }
        }
        close(c);
    }
    return NULL;
}

static void fake_meter_start(fake_server *fs, worker_entry entry, const grade_job *job,
                             double quiet_s)
{
    static char sock[sizeof ((struct sockaddr_un *)0)->sun_path];
    strcpy(g_meter_dir, "/tmp/smemlab-meter.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_meter_dir));
    snprintf(g_meter_log, sizeof g_meter_log, "%s/jobs", g_meter_dir);
    snprintf(sock, sizeof sock, "%s/meter.sock", g_meter_dir);
    g_opt.meter_socket = sock;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, sock, sizeof sock);
    *fs = (fake_server){socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), entry, job, quiet_s, 0};
    ck_assert_int_eq(bind(fs->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fs->listen_fd, 8), 0);
    signal(SIGPIPE, SIG_IGN);
    ck_assert_int_eq(pthread_create(&fs->thread, NULL, fake_server_loop, fs), 0);
}

/* Stop the stand-in; returns the jobs it was sent, one line each. */
static char *fake_meter_stop(fake_server *fs)
{
    static char jobs[512];
    shutdown(fs->listen_fd, SHUT_RDWR);
    pthread_join(fs->thread, NULL);
    close(fs->listen_fd);
    FILE *f = fopen(g_meter_log, "r");
    size_t n = f ? fread(jobs, 1, sizeof jobs - 1, f) : 0;
    jobs[n] = '\0';
    if (f)
        fclose(f);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_meter_dir);
    ck_assert_int_eq(system(cmd), 0);
    g_opt.meter_socket = NULL;
    return jobs;
}

static void run_through_meter(worker_entry server_entry, double quiet_s, double gpu_wait_s,
                              lab_result *r, const char **jobs)
{
    grade_job job = job_for(&lab1_def, 5, 0);
    g_opt.gpu_wait_s = gpu_wait_s;
    fake_server fs;
    fake_meter_start(&fs, server_entry, &job, quiet_s);
    memset(r, 0, sizeof *r);
    r->lab = &lab1_def;
    run_plans(&job, meter_proxy_main, r);
    *jobs = fake_meter_stop(&fs);
}

START_TEST(test_meter_server_grades_for_the_grader)
{
    lab_result r;
    const char *jobs;
    run_through_meter(worker_good, 0, 0, &r, &jobs);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_str_eq(r.device, "Fake GPU");
    ck_assert_double_eq_tol(r.points, LAB1_POINTS, 1e-12);
    ck_assert_int_eq(r.rejected_messages, 0);
    ck_assert_str_eq(jobs, "first 0 of lab1\n");
    lab_result_free(&r);
}
END_TEST

/* A server that ends in kernel 1 costs that kernel, not the checks it passed or
 * the kernels after it, which a new connection grades: its watchdog's last
 * words make a timeout, a crash (no last words) a process that ended. */
static const struct {
    worker_entry entry;
    const char *message;
    int passed_in_1;
} server_ends[] = {
    {worker_watchdog_on_1, "timed out after 5 s: a launch never finished", 0},
    {worker_crashes_on_1, "exited with status 3 before finishing", 2},
};

START_TEST(test_meter_server_ending_costs_one_kernel)
{
    lab_result r;
    const char *jobs;
    run_through_meter(server_ends[_i].entry, 0, 0, &r, &jobs);
    const check_result *c = first_failure(&r, lab1_def.kernels[1].name);
    ck_assert_ptr_nonnull(c);
    ck_assert_msg(strstr(c->message, server_ends[_i].message), "%s", c->message);
    ck_assert_int_eq(count(&r, lab1_def.kernels[0].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    ck_assert_int_eq(count(&r, lab1_def.kernels[1].name, CHECK_PASS), server_ends[_i].passed_in_1);
    ck_assert_int_eq(count(&r, lab1_def.kernels[2].name, CHECK_PASS), LAB1_KERNEL_CHECKS);
    ck_assert_str_eq(jobs, "first 0 of lab1\nfirst 2 of lab1\n");
    lab_result_free(&r);
}
END_TEST

/* A meter server's grader gone (killed past its time limit): the server stops
 * before its next launch, not after the rest of the kernel. */
START_TEST(test_meter_server_stops_when_its_grader_is_gone)
{
    for (int gone = 0; gone <= 1; gone++) {
        int sv[2];
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        if (gone)
            close(sv[1]);
        pid_t pid = fork();
        if (pid == 0) {
            static worker_msg last;
            gpu_watchdog_set(5, 77);
            gpu_watchdog_last_words(sv[0], &last, sizeof last);
            gpu_watchdog_arm();
            gpu_watchdog_disarm();
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == (gone ? 77 : 0),
                      "grader %s: the launch %s", gone ? "gone" : "there",
                      WEXITSTATUS(st) ? "was not made" : "was made");
        close(sv[0]);
        if (!gone)
            close(sv[1]);
    }
}
END_TEST

/* Busy with another lab: the grader waits (as for the GPU's lock), then is graded. */
START_TEST(test_meter_server_busy_is_waited_for)
{
    lab_result r;
    const char *jobs;
    double t0 = child_now();
    run_through_meter(worker_good, 0.8, 0, &r, &jobs);
    ck_assert_double_ge(child_now() - t0, 0.8);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_double_eq_tol(r.points, LAB1_POINTS, 1e-12);
    ck_assert_int_eq(r.rejected_messages, 0);
    lab_result_free(&r);

    run_through_meter(worker_good, 3, 0.5, &r, &jobs); /* past the wait */
    ck_assert_int_eq(r.env_code, EXIT_ENVIRONMENT);
    ck_assert_msg(strstr(r.env_text, "still held by another smemlab grader") &&
                  strstr(r.env_text, "meter.sock"), "%s", r.env_text);
    lab_result_free(&r);
}
END_TEST

Suite *runner_suite(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("isolation");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_good_worker);
    tcase_add_test(tc, test_hang_is_timed_out_and_the_rest_graded);
    tcase_add_test(tc, test_messages_do_not_extend_the_deadline);
    tcase_add_test(tc, test_watchdog_exit_is_a_timeout);
    tcase_add_test(tc, test_crash_keeps_passed_checks);
    tcase_add_test(tc, test_restart_after_each_kernel);
    tcase_add_test(tc, test_environment_error_stops);
    tcase_add_test(tc, test_death_before_any_kernel_is_environment);
    tcase_add_test(tc, test_forged_messages_are_refused);
    tcase_add_test(tc, test_flood_is_capped);
    tcase_add_test(tc, test_grandchild_is_killed_and_not_waited_for);
    tcase_add_test(tc, test_killed_grader_leaves_no_worker);
    tcase_add_test(tc, test_worker_waits_for_the_gpu);
    tcase_add_test(tc, test_gpu_held_too_long_is_environment);
    tcase_add_test(tc, test_lock_file_that_is_not_a_file);
    tcase_add_test(tc, test_meter_server_grades_for_the_grader);
    tcase_add_loop_test(tc, test_meter_server_ending_costs_one_kernel, 0,
                        (int)(sizeof server_ends / sizeof server_ends[0]));
    tcase_add_test(tc, test_meter_server_busy_is_waited_for);
    tcase_add_test(tc, test_meter_server_stops_when_its_grader_is_gone);
    suite_add_tcase(s, tc);
    return s;
}
