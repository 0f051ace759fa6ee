/* test_score.c - points and the exit status (grader/score/score.c). */
#include "base/exit_codes.h"
#include "score/score.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#define MAX_CHECKS 8

typedef struct fake_lab {
    lab_result r;
    check_result checks[MAX_CHECKS];
} fake_lab;

static void fake_init(fake_lab *f, const char *id)
{
    memset(f, 0, sizeof *f);
    f->r.lab = lab_find(id);
    ck_assert_ptr_nonnull(f->r.lab);
    f->r.checks = f->checks;
    f->r.cap = MAX_CHECKS;
}

static void fake_check(fake_lab *f, check_status st, double max_points)
{
    ck_assert_int_lt(f->r.n_checks, MAX_CHECKS);
    check_result *c = &f->checks[f->r.n_checks++];
    check_init(c, f->r.lab->id, "setRowReadRow", "correct", max_points);
    check_set(c, st, "%s", check_status_name(st));
}

static void fake_env_error(fake_lab *f, const char *why)
{
    f->r.env_code = EXIT_ENVIRONMENT;
    snprintf(f->r.env_text, sizeof f->r.env_text, "%s", why);
}

static int exit_code_of(fake_lab *labs, int n, score *out)
{
    score s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < n; i++)
        score_add(&s, &labs[i].r);
    if (out)
        *out = s;
    return score_exit_code(&s);
}

START_TEST(test_sums)
{
    fake_lab l[2];
    score s;
    fake_init(&l[0], "lab1");
    fake_check(&l[0], CHECK_PASS, 2);
    fake_check(&l[0], CHECK_PASS, 1);
    fake_check(&l[0], CHECK_FAIL, 1);
    fake_init(&l[1], "lab3");
    fake_check(&l[1], CHECK_PASS, 0.5);
    fake_check(&l[1], CHECK_NOT_MEASURED, 1);
    fake_check(&l[1], CHECK_SKIPPED, 0);
    exit_code_of(l, 2, &s);
    ck_assert_double_eq_tol(s.points, 3.5, 1e-12);
    ck_assert_double_eq_tol(s.max_points, 5.5, 1e-12);
    ck_assert_int_eq(s.passed, 3);
    ck_assert_int_eq(s.failed, 1);
    ck_assert_int_eq(s.not_measured, 1);
    ck_assert_int_eq(s.skipped, 1);
    ck_assert_int_eq(s.env_errors, 0);
}
END_TEST

START_TEST(test_sums_accumulate)
{
    fake_lab l;
    score s;
    memset(&s, 0, sizeof s);
    fake_init(&l, "lab2");
    fake_check(&l, CHECK_PASS, 2);
    score_add(&s, &l.r);
    score_add(&s, &l.r);
    ck_assert_double_eq_tol(s.points, 4, 1e-12);
    ck_assert_double_eq_tol(s.max_points, 4, 1e-12);
    ck_assert_int_eq(s.passed, 2);
}
END_TEST

START_TEST(test_all_pass)
{
    fake_lab l[2];
    fake_init(&l[0], "lab1");
    fake_check(&l[0], CHECK_PASS, 2);
    fake_check(&l[0], CHECK_PASS, 1);
    fake_init(&l[1], "lab4");
    fake_check(&l[1], CHECK_PASS, 1);
    ck_assert_int_eq(exit_code_of(l, 2, NULL), EXIT_ALL_PASSED);
    ck_assert_int_eq(EXIT_ALL_PASSED, 0);
}
END_TEST

START_TEST(test_any_fail)
{
    fake_lab l[2];
    fake_init(&l[0], "lab1");
    fake_check(&l[0], CHECK_PASS, 2);
    fake_init(&l[1], "lab2");
    fake_check(&l[1], CHECK_FAIL, 1);
    ck_assert_int_eq(exit_code_of(l, 2, NULL), EXIT_CHECK_FAILED);
    ck_assert_int_eq(EXIT_CHECK_FAILED, 1);

    /* a failure wins over not-measured checks, wherever they are */
    fake_check(&l[0], CHECK_NOT_MEASURED, 1);
    ck_assert_int_eq(exit_code_of(l, 2, NULL), EXIT_CHECK_FAILED);
    fake_check(&l[1], CHECK_NOT_MEASURED, 1);
    fake_check(&l[1], CHECK_SKIPPED, 0);
    ck_assert_int_eq(exit_code_of(l, 2, NULL), EXIT_CHECK_FAILED);
}
END_TEST

/* Not graded (an instrument's limit) exits 4 like not measured, never 1, and
   earns nothing while its points stay in the total; a failure still wins. */
START_TEST(test_not_graded)
{
    fake_lab l;
    fake_init(&l, "lab5");
    fake_check(&l, CHECK_PASS, 3);
    fake_check(&l, CHECK_NOT_GRADED, 2);
    score s;
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_NOT_MEASURED);
    ck_assert_int_eq(s.not_graded, 1);
    ck_assert_int_eq(s.failed, 0);
    ck_assert_double_eq_tol(s.points, 3, 1e-12);
    ck_assert_double_eq_tol(s.max_points, 5, 1e-12);
    fake_check(&l, CHECK_FAIL, 1);
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_CHECK_FAILED);
}
END_TEST

START_TEST(test_only_not_measured)
{
    fake_lab l;
    fake_init(&l, "lab1");
    fake_check(&l, CHECK_PASS, 2);
    fake_check(&l, CHECK_NOT_MEASURED, 1);
    fake_check(&l, CHECK_NOT_MEASURED, 1);
    score s;
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_NOT_MEASURED);
    ck_assert_int_eq(EXIT_NOT_MEASURED, 4);
    /* not-measured checks keep their max points: the total shows what is missing */
    ck_assert_double_eq_tol(s.points, 2, 1e-12);
    ck_assert_double_eq_tol(s.max_points, 4, 1e-12);
}
END_TEST

START_TEST(test_env_error)
{
    fake_lab l;
    score s;
    fake_init(&l, "lab1");
    fake_env_error(&l, "the NVIDIA driver is missing");
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_ENVIRONMENT);
    ck_assert_int_eq(EXIT_ENVIRONMENT, 3);
    ck_assert_int_eq(s.env_errors, 1);
    ck_assert_int_eq(s.failed, 0);

    /* a lab that stopped part-way keeps what it graded: a failure among it wins */
    fake_check(&l, CHECK_FAIL, 2);
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_CHECK_FAILED);
    ck_assert_int_eq(s.failed, 1);
    ck_assert_int_eq(s.env_errors, 1);
    ck_assert_double_eq_tol(s.max_points, 2, 1e-12);

    /* one lab passed, the other could not run: still an environment problem */
    fake_lab two[2];
    fake_init(&two[0], "lab1");
    fake_check(&two[0], CHECK_PASS, 2);
    fake_init(&two[1], "lab2");
    fake_env_error(&two[1], "lab not built");
    ck_assert_int_eq(exit_code_of(two, 2, &s), EXIT_ENVIRONMENT);
    ck_assert_double_eq_tol(s.points, 2, 1e-12);
    ck_assert_int_eq(s.env_errors, 1);
    /* ... and one that is also not measured */
    fake_check(&two[0], CHECK_NOT_MEASURED, 1);
    ck_assert_int_eq(exit_code_of(two, 2, NULL), EXIT_ENVIRONMENT);
}
END_TEST

START_TEST(test_skipped_not_failures)
{
    fake_lab l;
    score s;
    fake_init(&l, "lab2");
    fake_check(&l, CHECK_PASS, 2);
    fake_check(&l, CHECK_SKIPPED, 0);
    fake_check(&l, CHECK_SKIPPED, 0);
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_ALL_PASSED);
    ck_assert_int_eq(s.failed, 0);
    ck_assert_int_eq(s.skipped, 2);
    ck_assert_int_eq(s.passed, 1);
    ck_assert_double_eq_tol(s.points, 2, 1e-12);
    ck_assert_double_eq_tol(s.max_points, 2, 1e-12);

    fake_init(&l, "lab2");
    fake_check(&l, CHECK_SKIPPED, 0);
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_ALL_PASSED);
    ck_assert_int_eq(s.failed, 0);
}
END_TEST

START_TEST(test_empty)
{
    score s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(score_exit_code(&s), EXIT_ALL_PASSED);
    fake_lab l;
    fake_init(&l, "lab1");
    ck_assert_int_eq(exit_code_of(&l, 1, &s), EXIT_ALL_PASSED);
    ck_assert_double_eq_tol(s.max_points, 0, 1e-12);
}
END_TEST

/* Only a pass earns points: a check that failed, was not measured, skipped or
   not graded scores 0 whatever it held before, however it was set (check_set,
   a failed launch, a not-graded check copied from its cause). */
START_TEST(test_only_a_pass_scores)
{
    static const check_status all[] = {CHECK_PASS, CHECK_FAIL, CHECK_NOT_MEASURED,
                                       CHECK_SKIPPED, CHECK_NOT_GRADED};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (size_t before = 0; before < sizeof all / sizeof all[0]; before++) {
            check_result c;
            check_init(&c, "lab1", "setRowReadRow", "correct", 3);
            check_set(&c, all[before], "before");
            check_set(&c, all[i], "now %s", check_status_name(all[i]));
            ck_assert_msg(c.points == (all[i] == CHECK_PASS ? 3.0 : 0.0), "%s after %s: %g points",
                          check_status_name(all[i]), check_status_name(all[before]), c.points);
            ck_assert_double_eq(c.max_points, 3);
        }
    check_result c, cause;
    check_init(&c, "lab1", "setRowReadRow", "correct", 2);
    check_set(&c, CHECK_PASS, "passed first");
    check_fail_launch(&c, "setRowReadRow", "an illegal address", "hint");
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq(c.points, 0);
    check_set(&c, CHECK_PASS, "passed again");
    check_init(&cause, "lab1", "setRowReadRow", "correct", 2);
    check_set(&cause, CHECK_NOT_GRADED, "not graded: the emulator does not support it");
    check_not_graded_like(&c, &cause);
    ck_assert_int_eq(c.status, CHECK_NOT_GRADED);
    ck_assert_double_eq(c.points, 0);
    /* a fresh check has failed until it is set, and scores nothing */
    check_init(&c, "lab1", "setRowReadRow", "correct", 2);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq(c.points, 0);
}
END_TEST

/* A kernel that dies gets one check carrying all its points (runner.c). */
START_TEST(test_kernel_max_points)
{
    const lab_def *lab1 = lab_find("lab1"), *lab4 = lab_find("lab4");
    ck_assert_ptr_nonnull(lab1);
    ck_assert_ptr_nonnull(lab4);
    /* correct 2 + requests 2 x 1 + conflicts 2 x 1 + race 1, and dynamic-tile 1 for a
       kernel of a dynamic tile (lab 4's last two) */
    for (int k = 0; k < lab1->n_kernels; k++)
        ck_assert_double_eq_tol(kernel_max_points(lab1, &lab1->kernels[k]), 7, 1e-12);
    int dynamic = 0;
    for (int k = 0; k < lab4->n_kernels; k++) {
        double want = lab4->kernels[k].points.of[CHK_DYNAMIC_TILE] > 0 ? 8 : 7;
        dynamic += want == 8;
        ck_assert_double_eq_tol(kernel_max_points(lab4, &lab4->kernels[k]), want, 1e-12);
    }
    ck_assert_int_eq(dynamic, 2);
}
END_TEST

/*
 * Every check has one name, found again by it; every kind lists its checks once
 * each, correct first, at most KERNEL_MAX_CHECKS; a name no check has is CHK_NONE
 * (the runner refuses such a message).
 */
START_TEST(test_check_ids)
{
    for (int id = CHK_NONE + 1; id < CHECK_IDS; id++) {
        ck_assert_msg(check_name((check_id)id)[0], "check %d has no name", id);
        ck_assert_int_eq(check_id_of(check_name((check_id)id)), id);
    }
    ck_assert_int_eq(check_id_of("correct"), CHK_CORRECT);
    ck_assert_int_eq(check_id_of("const-serialization"), CHK_CONST_SERIAL);
    ck_assert_int_eq(check_id_of("corect"), CHK_NONE);
    ck_assert_int_eq(check_id_of(""), CHK_NONE);
    ck_assert_int_eq(check_id_of(NULL), CHK_NONE);
    ck_assert_str_eq(check_name(CHK_NONE), "");
    problem_kind kinds[] = {PROBLEM_TILE, PROBLEM_MATMUL, PROBLEM_CONV, PROBLEM_IDIOM,
                            PROBLEM_REDUCE, PROBLEM_TRANSPOSE, PROBLEM_STENCIL};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const check_id *ids;
        int n = kind_checks(kinds[k], &ids), seen[CHECK_IDS] = {0};
        ck_assert_int_le(n, KERNEL_MAX_CHECKS);
        ck_assert_int_eq(ids[0], CHK_CORRECT);
        for (int i = 0; i < n; i++) {
            ck_assert(ids[i] > CHK_NONE && ids[i] < CHECK_IDS);
            ck_assert_msg(!seen[ids[i]]++, "kind %d lists %s twice", (int)kinds[k],
                          check_name(ids[i]));
        }
    }
}
END_TEST

Suite *score_suite(void)
{
    Suite *s = suite_create("score");
    TCase *tc = tcase_create("score");
    tcase_add_test(tc, test_sums);
    tcase_add_test(tc, test_sums_accumulate);
    tcase_add_test(tc, test_all_pass);
    tcase_add_test(tc, test_any_fail);
    tcase_add_test(tc, test_only_not_measured);
    tcase_add_test(tc, test_not_graded);
    tcase_add_test(tc, test_env_error);
    tcase_add_test(tc, test_skipped_not_failures);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_kernel_max_points);
    tcase_add_test(tc, test_check_ids);
    tcase_add_test(tc, test_only_a_pass_scores);
    suite_add_tcase(s, tc);
    return s;
}
