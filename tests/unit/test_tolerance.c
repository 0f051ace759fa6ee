/* test_tolerance.c - the float32-vs-reference comparison of labs 5 and 6. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "reference.h"
#include "tolerance.h"

enum { M = 48, N = 40, K = 777 };

typedef struct product {
    float A[M * K], B[K * N], ref[M * N], got[M * N];
    double floor;
} product;

/* What a plain float32 kernel computes: one float accumulator, k in the given direction. */
static void float_matmul(const product *p, float *C, int backwards)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int t = 0; t < K; t++) {
                int k = backwards ? K - 1 - t : t;
                acc += p->A[i * K + k] * p->B[k * N + j];
            }
            C[i * N + j] = acc;
        }
}

static product *make_product(void)
{
    product *p = malloc(sizeof *p);
    ck_assert_ptr_nonnull(p);
    prng_fill(p->A, M * K, 11);
    prng_fill(p->B, K * N, 12);
    ref_matmul(p->A, p->B, p->ref, M, N, K);
    float_matmul(p, p->got, 0);
    p->floor = tol_floor_matmul(p->A, M * K, p->B, K * N, K);
    return p;
}

static int compare(const product *p, tol_report *rep)
{
    return tol_compare(p->got, p->ref, M, N, p->floor, tol_default_limits(), rep);
}

START_TEST(accepts_float_rounding)
{
    product *p = make_product();
    tol_report rep;
    ck_assert_int_eq(compare(p, &rep), 1);
    ck_assert_int_eq(rep.over, 0);
    ck_assert_int_eq(rep.compared, M * N);
    ck_assert(rep.max_rel > 0.0);  /* the float result is not exact ... */
    ck_assert(rep.max_rel < 1e-5); /* ... but far inside the limit */
    float_matmul(p, p->got, 1);    /* another summation order */
    ck_assert_int_eq(compare(p, &rep), 1);
    free(p);
}
END_TEST

/* The k whose product a_rk b_kc is largest in size: a typical one of 777 is near 1. */
static int largest_term(const product *p, int r, int c)
{
    int best = 0;
    for (int k = 1; k < K; k++)
        if (fabsf(p->A[r * K + k] * p->B[k * N + c]) >
            fabsf(p->A[r * K + best] * p->B[best * N + c]))
            best = k;
    return best;
}

/* One product term missing from one element: what a one-off tile bound does. */
START_TEST(rejects_one_wrong_element)
{
    product *p = make_product();
    int r = 17, c = 23, k = largest_term(p, r, c);
    p->got[r * N + c] -= p->A[r * K + k] * p->B[k * N + c];
    tol_report rep;
    ck_assert_int_eq(compare(p, &rep), 0);
    ck_assert_int_eq(rep.over, 1);
    ck_assert_int_eq(rep.nonfinite, 0);
    ck_assert_int_eq(rep.worst[0].row, r);
    ck_assert_int_eq(rep.worst[0].col, c);
    ck_assert_int_eq(rep.worst[0].index, r * N + c);
    ck_assert_float_eq(rep.worst[0].expected, p->ref[r * N + c]);
    ck_assert_float_eq(rep.worst[0].got, p->got[r * N + c]);
    ck_assert(rep.worst[0].rel_err > TOL_ELEM);
    free(p);
}
END_TEST

START_TEST(rejects_nan_and_inf)
{
    product *p = make_product();
    tol_report rep;
    p->got[3] = NAN;
    ck_assert_int_eq(compare(p, &rep), 0);
    ck_assert_int_eq(rep.nonfinite, 1);
    ck_assert_int_eq(rep.over, 1);
    ck_assert(isinf(rep.worst[0].rel_err));
    ck_assert_int_eq(rep.worst[0].index, 3);
    ck_assert(isinf(rep.overall_rel));
    p->got[3] = p->ref[3];
    p->got[5] = -INFINITY;
    ck_assert_int_eq(compare(p, &rep), 0);
    ck_assert_int_eq(rep.nonfinite, 1);
    free(p);
}
END_TEST

/* A small error on every element (TF32-like) passes each element but not the norm. */
START_TEST(overall_catches_small_errors_everywhere)
{
    product *p = make_product();
    for (int i = 0; i < M * N; i++)
        p->got[i] = p->ref[i] * (1.0f + ((i & 1) ? 2e-4f : -2e-4f));
    tol_report rep;
    ck_assert_int_eq(compare(p, &rep), 0);
    ck_assert_int_eq(rep.over, 0);
    ck_assert(rep.overall_rel > TOL_OVERALL);
    free(p);
}
END_TEST

/* Near-zero references are judged against the floor, not against themselves. */
START_TEST(floor_guards_cancellation)
{
    const float ref[] = {0.0f, 1e-9f, 3.0f};
    const float got[] = {2e-7f, -3e-7f, 3.0f};
    tol_report rep;
    ck_assert_int_eq(tol_compare(got, ref, 1, 3, 3.0, tol_default_limits(), &rep), 1);
    /* Without a floor (0 means FLT_MIN) the same rounding is a failure. */
    ck_assert_int_eq(tol_compare(got, ref, 1, 3, 0.0, tol_default_limits(), &rep), 0);
    ck_assert_int_eq(rep.over, 2);
}
END_TEST

START_TEST(zero_reference_needs_zero_result)
{
    const float zero[4] = {0};
    float got[4] = {0};
    tol_report rep;
    ck_assert_int_eq(tol_compare(got, zero, 2, 2, 0.0, tol_default_limits(), &rep), 1);
    ck_assert(rep.overall_rel == 0.0);
    got[2] = 1e-30f;
    ck_assert_int_eq(tol_compare(got, zero, 2, 2, 0.0, tol_default_limits(), &rep), 0);
    ck_assert_int_eq(rep.worst[0].row, 1);
    ck_assert_int_eq(rep.worst[0].col, 0);
}
END_TEST

/* worst[] keeps the TOL_WORST_MAX largest errors, largest first, ties in order. */
START_TEST(worst_elements_sorted_and_capped)
{
    enum { L = 30 };
    float ref[L], got[L];
    for (int i = 0; i < L; i++) {
        ref[i] = 1.0f;
        got[i] = 1.0f + (float)(i % 10) * 0.125f; /* errors 0 .. 1.125, each 3 times */
    }
    tol_report rep;
    ck_assert_int_eq(tol_compare(got, ref, 3, 10, 1.0, tol_default_limits(), &rep), 0);
    ck_assert_int_eq(rep.over, 27);
    ck_assert_int_eq(rep.nworst, TOL_WORST_MAX);
    const long want[TOL_WORST_MAX] = {9, 19, 29, 8, 18, 28, 7, 17};
    for (int w = 0; w < TOL_WORST_MAX; w++)
        ck_assert_int_eq(rep.worst[w].index, want[w]);
    ck_assert_int_eq(rep.worst[1].row, 1);
    ck_assert_int_eq(rep.worst[1].col, 9);
    ck_assert_double_eq_tol(rep.max_rel, 1.125, 1e-12);
}
END_TEST

/* Over many blocks (compared side by side): counts, the worst list with ties in
   order across blocks, and the overall error are those of one pass in order. */
START_TEST(large_results_compared_in_blocks)
{
    enum { L = 1000003 };
    float *ref = malloc(sizeof(float) * L), *got = malloc(sizeof(float) * L);
    ck_assert(ref && got);
    for (long i = 0; i < L; i++)
        ref[i] = got[i] = 1.0f + (float)(i % 7);
    /* equal errors in different blocks, far apart, and one larger in the last */
    static const long tie[] = {999999, 3, 70000, 500000, 131072, 65535, 65536, 800001, 262143};
    for (size_t t = 0; t < sizeof tie / sizeof tie[0]; t++)
        got[tie[t]] = ref[tie[t]] * 1.5f;
    got[L - 1] = ref[L - 1] * 3.0f;
    tol_report rep;
    ck_assert_int_eq(tol_compare(got, ref, 1, L, 1.0, tol_default_limits(), &rep), 0);
    ck_assert_int_eq(rep.compared, L);
    ck_assert_int_eq(rep.over, 10);
    ck_assert_int_eq(rep.nworst, TOL_WORST_MAX);
    const long want[TOL_WORST_MAX] = {L - 1, 3, 65535, 65536, 70000, 131072, 262143, 500000};
    for (int w = 0; w < TOL_WORST_MAX; w++)
        ck_assert_int_eq(rep.worst[w].index, want[w]);
    ck_assert_double_eq_tol(rep.max_rel, 2.0, 1e-12);
    /* the overall error as one pass computes it */
    double d2 = 0, r2 = 0;
    for (long i = 0; i < L; i++) {
        double d = (double)got[i] - ref[i];
        d2 += d * d;
        r2 += (double)ref[i] * ref[i];
    }
    ck_assert_double_eq_tol(rep.overall_rel, sqrt(d2) / sqrt(r2), 1e-12 * sqrt(d2) / sqrt(r2));
    free(ref), free(got);
}
END_TEST

/*
 * The limits at their boundaries, on outputs as large as the labs' (2^20
 * elements) with the floor each lab computes: one element at 0.9 of the
 * per-element limit (1e-3 of max(|ref|, floor)) passes, at 1.5 of it fails,
 * the norm check quiet both times, so the per-element limit alone decides;
 * then every element off by 0.9 and 1.5 of the norm limit (1e-5), each far
 * inside the per-element one, so the norm alone decides. The limits are the
 * numbers the course states, not the macros: a doubled limit fails here.
 */
enum { BIG_ROWS = 1024, BIG_COLS = 1024 };

static double big_floor(int lab)
{
    enum { K = 1024, TAPS = 7 };
    if (lab == 5) { /* lab 5: a K-term product of inputs in [-1, 1) */
        float *A = malloc(sizeof(float) * 64 * K), *B = malloc(sizeof(float) * K * 64);
        ck_assert(A && B);
        prng_fill(A, 64 * K, 21);
        prng_fill(B, K * 64, 22);
        double f = tol_floor_matmul(A, 64 * K, B, K * 64, K);
        free(A), free(B);
        return f;
    }
    float in[4096], mask[TAPS]; /* lab 6: a TAPS-tap convolution */
    prng_fill(in, 4096, 23);
    prng_fill(mask, TAPS, 24);
    return tol_floor_conv(in, 4096, mask, TAPS);
}

/* A reference of elements between a half and one and a half floors, signs mixed. */
static float *big_reference(double floor)
{
    long n = (long)BIG_ROWS * BIG_COLS;
    float *ref = malloc(sizeof(float) * (size_t)n);
    ck_assert_ptr_nonnull(ref);
    for (long i = 0; i < n; i++)
        ref[i] = (float)(floor * (0.5 + (double)(i * 7919 % 1000) / 1000.0) * (i % 3 ? 1 : -1));
    return ref;
}

START_TEST(element_limit_at_its_boundary)
{
    int lab = _i ? 6 : 5;
    long n = (long)BIG_ROWS * BIG_COLS, at = 654321;
    double floor = big_floor(lab);
    float *ref = big_reference(floor), *got = malloc(sizeof(float) * (size_t)n);
    ck_assert_ptr_nonnull(got);
    static const double times[] = {0.9, 1.5};
    for (int k = 0; k < 2; k++) {
        memcpy(got, ref, sizeof(float) * (size_t)n);
        double denom = fabs((double)ref[at]) > floor ? fabs((double)ref[at]) : floor;
        got[at] = (float)((double)ref[at] + times[k] * 1e-3 * denom);
        tol_report rep;
        tol_limits lim = tol_default_limits();
        int pass = tol_compare(got, ref, BIG_ROWS, BIG_COLS, floor, lim, &rep);
        char text[400];
        tol_describe(&rep, &lim, text, sizeof text);
        ck_assert_msg(rep.overall_rel < 0.5e-5, "lab %d, %.1fx: the norm check is not quiet: %s",
                      lab, times[k], text);
        ck_assert_msg(pass == (k == 0), "lab %d, an element at %.1fx the limit: %s", lab,
                      times[k], text);
        ck_assert_int_eq(rep.over, k);
        ck_assert_double_eq_tol(rep.max_rel, times[k] * 1e-3, 1e-3 * 1e-3);
        ck_assert_msg(strstr(text, k ? "1 of 1048576 elements differ (limit 1e-03"
                                     : "all 1048576 elements match (limit 1e-03"),
                      "lab %d, an element at %.1fx the limit of 1e-3: %s", lab, times[k], text);
    }
    ck_assert_double_eq(tol_default_limits().elem, 1e-3); /* the number the course states */
    free(ref), free(got);
}
END_TEST

START_TEST(norm_limit_at_its_boundary)
{
    int lab = _i ? 6 : 5;
    long n = (long)BIG_ROWS * BIG_COLS;
    double floor = big_floor(lab);
    float *ref = big_reference(floor), *got = malloc(sizeof(float) * (size_t)n);
    ck_assert_ptr_nonnull(got);
    static const double times[] = {0.9, 1.5};
    for (int k = 0; k < 2; k++) {
        for (long i = 0; i < n; i++)
            got[i] = (float)((double)ref[i] * (1.0 + times[k] * 1e-5));
        tol_report rep;
        int pass = tol_compare(got, ref, BIG_ROWS, BIG_COLS, floor, tol_default_limits(), &rep);
        ck_assert_int_eq(rep.over, 0);
        ck_assert_msg(rep.max_rel < 1e-4, "lab %d: an element is off by %g", lab, rep.max_rel);
        ck_assert_double_eq_tol(rep.overall_rel, times[k] * 1e-5, 0.05e-5);
        ck_assert_msg(pass == (k == 0), "lab %d, every element off by %.1fx the norm limit: "
                      "overall %g", lab, times[k], rep.overall_rel);
    }
    ck_assert_double_eq(tol_default_limits().overall, 1e-5);
    free(ref), free(got);
}
END_TEST

START_TEST(describe_names_the_worst)
{
    const float ref[] = {1, 2, 3, 4, 5, 6};
    const float got[] = {1, 2, 3, 4, 5, 7};
    tol_report rep;
    tol_limits lim = tol_default_limits();
    tol_compare(got, ref, 2, 3, 1.0, lim, &rep);
    char buf[300];
    tol_describe(&rep, &lim, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "1 of 6 elements differ"));
    ck_assert_ptr_nonnull(strstr(buf, "row 1 col 2 expected 6 got 7"));
    tol_compare(ref, ref, 2, 3, 1.0, lim, &rep);
    tol_describe(&rep, &lim, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "all 6 elements match"));
    char tiny[8];
    ck_assert_str_eq(tol_describe(&rep, &lim, tiny, sizeof tiny), "all 6 e");
}
END_TEST

START_TEST(floors)
{
    const float A[] = {0.5f, -2.0f, 1.0f}, B[] = {0.25f, -0.75f};
    ck_assert_double_eq_tol(tol_floor_matmul(A, 3, B, 2, 16), 4.0 * 2.0 * 0.75, 1e-12);
    const float in[] = {3.0f, -1.0f}, mask[] = {0.5f, 0.1f, -0.2f, 0.3f};
    ck_assert_double_eq_tol(tol_floor_conv(in, 2, mask, 4), 2.0 * 3.0 * 0.5, 1e-12);
}
END_TEST

Suite *tolerance_suite(void)
{
    Suite *s = suite_create("tolerance");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, accepts_float_rounding);
    tcase_add_test(tc, rejects_one_wrong_element);
    tcase_add_test(tc, rejects_nan_and_inf);
    tcase_add_test(tc, overall_catches_small_errors_everywhere);
    tcase_add_test(tc, floor_guards_cancellation);
    tcase_add_test(tc, zero_reference_needs_zero_result);
    tcase_add_test(tc, worst_elements_sorted_and_capped);
    tcase_add_test(tc, describe_names_the_worst);
    tcase_add_test(tc, large_results_compared_in_blocks);
    tcase_add_test(tc, floors);
    tcase_add_loop_test(tc, element_limit_at_its_boundary, 0, 2);
    tcase_add_loop_test(tc, norm_limit_at_its_boundary, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
