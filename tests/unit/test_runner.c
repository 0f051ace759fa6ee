/*
 * test_runner.c - the runner's isolation without a GPU: fake workers that
 * behave, hang, crash, report an environment error or die at once, and what
 * the grader makes of each.
 */
#include "runner.h"

#include "exit_codes.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const lab_def lab1_def; /* three kernels of five checks each */

static void send(int fd, worker_msg_type type, int kernel, const char *text)
{
    worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.kernel = kernel;
    m.env_code = type == MSG_ENVIRONMENT ? EXIT_ENVIRONMENT : 0;
    strncpy(m.text, text, sizeof m.text - 1);
    if (write(fd, &m, sizeof m) != (ssize_t)sizeof m)
        _exit(99);
}

/* Send the first `count` checks of kernel k, all passed. */
static void send_passes(int fd, const lab_def *lab, int k, int count)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    int n = kernel_checks(lab, &lab->kernels[k], checks);
    for (int i = 0; i < n && i < count; i++) {
        worker_msg m;
        memset(&m, 0, sizeof m);
        m.type = MSG_CHECK;
        check_init(&m.check, lab->id, lab->kernels[k].name, checks[i].id, checks[i].points);
        check_set(&m.check, CHECK_PASS, "fine");
        if (write(fd, &m, sizeof m) != (ssize_t)sizeof m)
            _exit(99);
    }
}

static void grade_fully(int fd, const lab_def *lab, int k)
{
    send(fd, MSG_BEGIN, k, lab->kernels[k].name);
    send_passes(fd, lab, k, KERNEL_MAX_CHECKS);
    send(fd, MSG_END, k, "");
}

static void worker_good(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    (void)opt;
    send(fd, MSG_DEVICE, -1, "Fake GPU");
    for (int k = first; k < lab->n_kernels; k++)
        grade_fully(fd, lab, k);
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
        send(fd, MSG_BEGIN, k, "");
        send_passes(fd, lab, k, passes);
        return 1;
    }
    return 0;
}

/* Kernel 1 passes one check, then never finishes. */
static void worker_hangs_on_1(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    (void)opt;
    if (grade_until_kernel_1(fd, lab, first, 1))
        pause();
    _exit(0);
}

/* Kernel 1 passes two checks, then the process dies of a fault. */
static void worker_crashes_on_1(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    (void)opt;
    if (grade_until_kernel_1(fd, lab, first, 2)) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    _exit(0);
}

/* A lost CUDA context: the worker ends after each kernel. */
static void worker_one_kernel_each(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    (void)opt;
    grade_fully(fd, lab, first);
    _exit(0);
}

static void worker_no_gpu(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    (void)lab, (void)opt, (void)first;
    send(fd, MSG_ENVIRONMENT, -1, "no CUDA GPU found");
    _exit(EXIT_ENVIRONMENT);
}

static void worker_dies_at_start(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    (void)lab, (void)opt, (void)first, (void)fd;
    _exit(7);
}

static grade_options options(double timeout_s)
{
    return (grade_options){.repeats = 1, .timeout_s = timeout_s};
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

START_TEST(test_good_worker)
{
    grade_options opt = options(5);
    lab_result r;
    run_lab_with(&lab1_def, &opt, worker_good, &r);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 15);
    ck_assert_str_eq(r.device, "Fake GPU");
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(count(&r, lab1_def.kernels[k].name, CHECK_PASS), 5);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_hang_is_timed_out_and_the_rest_graded)
{
    grade_options opt = options(0.3);
    lab_result r;
    run_lab_with(&lab1_def, &opt, worker_hangs_on_1, &r);
    const char *hung = lab1_def.kernels[1].name;
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 15);
    ck_assert_int_eq(count(&r, lab1_def.kernels[0].name, CHECK_PASS), 5);
    ck_assert_int_eq(count(&r, hung, CHECK_PASS), 1); /* what it passed stands */
    ck_assert_int_eq(count(&r, hung, CHECK_FAIL), 4);
    const check_result *f = first_failure(&r, hung);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(strstr(f->message, "timed out"));
    ck_assert_str_eq(f->check, "store-requests"); /* the first check it never sent */
    ck_assert_double_eq_tol(f->max_points, 1, 1e-12);
    ck_assert_int_eq(count(&r, lab1_def.kernels[2].name, CHECK_PASS), 5);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_crash_keeps_passed_checks)
{
    grade_options opt = options(5);
    lab_result r;
    run_lab_with(&lab1_def, &opt, worker_crashes_on_1, &r);
    const char *crashed = lab1_def.kernels[1].name;
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(count(&r, crashed, CHECK_PASS), 2);
    ck_assert_int_eq(count(&r, crashed, CHECK_FAIL), 3);
    const check_result *f = first_failure(&r, crashed);
    ck_assert_ptr_nonnull(strstr(f->message, "signal 11"));
    ck_assert_int_eq(count(&r, lab1_def.kernels[2].name, CHECK_PASS), 5);
    /* no check twice, none missing: the maximum is the lab's */
    double max = 0;
    for (int i = 0; i < r.n_checks; i++)
        max += r.checks[i].max_points;
    ck_assert_double_eq_tol(max, 18, 1e-12);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_restart_after_each_kernel)
{
    grade_options opt = options(5);
    lab_result r;
    run_lab_with(&lab1_def, &opt, worker_one_kernel_each, &r);
    ck_assert_int_eq(r.env_code, 0);
    ck_assert_int_eq(r.n_checks, 15);
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(count(&r, lab1_def.kernels[k].name, CHECK_PASS), 5);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_environment_error_stops)
{
    grade_options opt = options(5);
    lab_result r;
    run_lab_with(&lab1_def, &opt, worker_no_gpu, &r);
    ck_assert_int_eq(r.env_code, EXIT_ENVIRONMENT);
    ck_assert_str_eq(r.env_text, "no CUDA GPU found");
    ck_assert_int_eq(r.n_checks, 0);
    lab_result_free(&r);
}
END_TEST

START_TEST(test_death_before_any_kernel_is_environment)
{
    grade_options opt = options(5);
    lab_result r;
    run_lab_with(&lab1_def, &opt, worker_dies_at_start, &r);
    ck_assert_int_eq(r.env_code, EXIT_ENVIRONMENT);
    ck_assert_ptr_nonnull(strstr(r.env_text, "status 7"));
    ck_assert_int_eq(r.n_checks, 0);
    lab_result_free(&r);
}
END_TEST

Suite *runner_suite(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("isolation");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_good_worker);
    tcase_add_test(tc, test_hang_is_timed_out_and_the_rest_graded);
    tcase_add_test(tc, test_crash_keeps_passed_checks);
    tcase_add_test(tc, test_restart_after_each_kernel);
    tcase_add_test(tc, test_environment_error_stops);
    tcase_add_test(tc, test_death_before_any_kernel_is_environment);
    suite_add_tcase(s, tc);
    return s;
}
