/* test_reference.c - the host references of labs 5 and 6, against hand-computed results. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "reference/parallel.h"
#include "reference/prng.h"
#include "reference/reference.h"

/* [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154] */
START_TEST(matmul_small_by_hand)
{
    const float A[] = {1, 2, 3, 4, 5, 6};
    const float B[] = {7, 8, 9, 10, 11, 12};
    float C[4];
    ref_matmul(A, B, C, 2, 2, 3);
    ck_assert_float_eq(C[0], 58.0f);
    ck_assert_float_eq(C[1], 64.0f);
    ck_assert_float_eq(C[2], 139.0f);
    ck_assert_float_eq(C[3], 154.0f);
}
END_TEST

/* Row-major with M, N, K all different: 1x3 times 3x2, and 3x1 times 1x2 (an outer product). */
START_TEST(matmul_shapes)
{
    const float row[] = {1, -2, 0.5f};
    const float B[] = {2, 1, 3, -1, 4, 8};
    float C[2];
    ref_matmul(row, B, C, 1, 2, 3);
    ck_assert_float_eq(C[0], 1 * 2 - 2 * 3 + 0.5f * 4); /* -2 */
    ck_assert_float_eq(C[1], 1 * 1 + 2 + 0.5f * 8);     /* 7 */

    const float col[] = {1, 2, 3}, r2[] = {10, -1};
    float outer[6];
    ref_matmul(col, r2, outer, 3, 2, 1);
    const float want[] = {10, -1, 20, -2, 30, -3};
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(outer[i], want[i]);
}
END_TEST

START_TEST(matmul_one_by_one)
{
    const float a = 0.75f, b = -4.0f;
    float c = 0.0f;
    ref_matmul(&a, &b, &c, 1, 1, 1);
    ck_assert_float_eq(c, -3.0f);
}
END_TEST

/*
 * 1 + 2^-24 + ... summed in float loses every small term (1 + 2^-24 rounds
 * to 1); the double accumulator keeps them: 1 + 4 * 2^-24 is a float.
 */
START_TEST(matmul_accumulates_in_double)
{
    const float tiny = ldexpf(1.0f, -24);
    const float A[] = {1, tiny, tiny, tiny, tiny};
    const float B[] = {1, 1, 1, 1, 1};
    float c;
    ref_matmul(A, B, &c, 1, 1, 5);
    ck_assert_float_eq(c, 1.0f + 4 * tiny);
}
END_TEST

/* Identity times B is B. */
START_TEST(matmul_identity)
{
    float I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, B[12], C[12];
    for (int i = 0; i < 12; i++)
        B[i] = (float)(i * i) - 7.5f;
    ref_matmul(I, B, C, 3, 4, 3);
    for (int i = 0; i < 12; i++)
        ck_assert_float_eq(C[i], B[i]);
}
END_TEST

/* in = 1..5, mask = [1 2 3]: out[i] = in[i-1] + 2 in[i] + 3 in[i+1], ghosts 0. */
START_TEST(conv1d_by_hand)
{
    const float in[] = {1, 2, 3, 4, 5}, mask[] = {1, 2, 3};
    float out[5];
    ref_conv1d(in, mask, out, 5, 3);
    const float want[] = {0 + 2 + 6, 1 + 4 + 9, 2 + 6 + 12, 3 + 8 + 15, 4 + 10 + 0};
    for (int i = 0; i < 5; i++)
        ck_assert_float_eq(out[i], want[i]);
}
END_TEST

/* A mask wider than the signal: every tap past either end is a ghost. */
START_TEST(conv1d_ghosts_only)
{
    const float in[] = {2, -1}, mask[] = {1, 10, 100, 1000, 10000};
    float out[2];
    ref_conv1d(in, mask, out, 2, 5);
    /* r = 2: out[0] = in[0]*100 + in[1]*1000, out[1] = in[0]*10 + in[1]*100 */
    ck_assert_float_eq(out[0], 200.0f - 1000.0f);
    ck_assert_float_eq(out[1], 20.0f - 100.0f);
}
END_TEST

START_TEST(conv1d_width_one_scales)
{
    const float in[] = {1, -2, 3}, mask[] = {0.5f};
    float out[3];
    ref_conv1d(in, mask, out, 3, 1);
    ck_assert_float_eq(out[0], 0.5f);
    ck_assert_float_eq(out[1], -1.0f);
    ck_assert_float_eq(out[2], 1.5f);
}
END_TEST

/* The mask is not flipped: a one-hot mask at the right shifts the signal left. */
START_TEST(conv1d_not_flipped)
{
    const float in[] = {1, 2, 3, 4}, mask[] = {0, 0, 1};
    float out[4];
    ref_conv1d(in, mask, out, 4, 3);
    ck_assert_float_eq(out[0], 2.0f);
    ck_assert_float_eq(out[2], 4.0f);
    ck_assert_float_eq(out[3], 0.0f); /* in[4] is a ghost */
}
END_TEST

/* 3x3 image of ones, 3x3 mask of ones: each pixel counts its neighbours inside. */
START_TEST(conv2d_counts_neighbours)
{
    float in[9], mask[9], out[9];
    for (int i = 0; i < 9; i++)
        in[i] = mask[i] = 1.0f;
    ref_conv2d(in, mask, out, 3, 3, 3);
    const float want[] = {4, 6, 4, 6, 9, 6, 4, 6, 4};
    for (int i = 0; i < 9; i++)
        ck_assert_float_eq(out[i], want[i]);
}
END_TEST

/* Non-square image: rows and columns must not be swapped. */
START_TEST(conv2d_orientation)
{
    /* 3 wide, 2 high: row 0 = 1 2 3, row 1 = 4 5 6. Mask picks the pixel to the right. */
    const float in[] = {1, 2, 3, 4, 5, 6};
    const float mask[] = {0, 0, 0, 0, 0, 1, 0, 0, 0};
    float out[6];
    ref_conv2d(in, mask, out, 3, 2, 3);
    const float want[] = {2, 3, 0, 5, 6, 0};
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(out[i], want[i]);

    /* Mask picks the pixel below (row i = 2, column j = 1). */
    const float below[] = {0, 0, 0, 0, 0, 0, 0, 1, 0};
    ref_conv2d(in, below, out, 3, 2, 3);
    const float want2[] = {4, 5, 6, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(out[i], want2[i]);
}
END_TEST

/* One pixel, 7x7 mask: only the centre tap sees data. */
START_TEST(conv2d_one_pixel)
{
    float mask[49];
    for (int i = 0; i < 49; i++)
        mask[i] = (float)i;
    const float in = 2.0f;
    float out = 0.0f;
    ref_conv2d(&in, mask, &out, 1, 1, 7);
    ck_assert_float_eq(out, 2.0f * 24.0f);
}
END_TEST

/* The 2-D reference on a one-row image equals the 1-D one with the middle mask row. */
START_TEST(conv2d_row_matches_conv1d)
{
    float in[11], mask2[25] = {0}, mask1[5], out1[11], out2[11];
    for (int i = 0; i < 11; i++)
        in[i] = (float)(i % 4) - 1.5f;
    for (int j = 0; j < 5; j++)
        mask1[j] = mask2[2 * 5 + j] = (float)(j + 1) * 0.25f;
    ref_conv1d(in, mask1, out1, 11, 5);
    ref_conv2d(in, mask2, out2, 11, 1, 5);
    for (int i = 0; i < 11; i++)
        ck_assert_float_eq(out1[i], out2[i]);
}
END_TEST

/* The first index where got[] is not want[], or -1. Large comparisons assert
   once: every ck_assert is a write to Check's pipe, and a million of them make
   a suite slow enough to time out on a busy machine. */
static long first_differing(const float *got, const float *want, long n)
{
    for (long i = 0; i < n; i++)
        if (got[i] != want[i])
            return i;
    return -1;
}

/* Large enough to be shared among threads (parallel.h): every output is still the
   one-element reference's, whatever the cores. */
START_TEST(conv_shared_among_threads_equals_one_by_one)
{
    enum { W = 523, H = 517, N1 = 400009 };
    float *in = malloc(sizeof(float) * N1), *out = malloc(sizeof(float) * N1), mask[49];
    float *one = malloc(sizeof(float) * N1);
    ck_assert(in && out && one);
    prng_fill(in, N1, 21);
    prng_fill(mask, 49, 22);
    ref_conv2d(in, mask, out, W, H, 7);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            one[y * W + x] = (float)ref_conv2d_at(in, mask, W, H, 7, x, y);
    long at = first_differing(out, one, (long)W * H);
    ck_assert_msg(at < 0, "conv2d: output %ld is %g, alone %g", at, at < 0 ? 0 : out[at], at < 0 ? 0 : one[at]);
    ref_conv1d(in, mask, out, N1, 31);
    for (int i = 0; i < N1; i++)
        one[i] = (float)ref_conv1d_at(in, mask, N1, 31, i);
    at = first_differing(out, one, N1);
    ck_assert_msg(at < 0, "conv1d: output %ld is %g, alone %g", at, at < 0 ? 0 : out[at], at < 0 ? 0 : one[at]);
    free(in), free(out), free(one);
}
END_TEST

/* A product shared among threads by rows equals the same rows done alone. */
START_TEST(matmul_shared_among_threads_equals_rows_alone)
{
    enum { M = 190, N = 170, K = 150 }; /* 4.8 M multiply-adds: over PAR_MIN_WORK */
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * N), row[N];
    ck_assert(A && B && C);
    prng_fill(A, M * K, 23);
    prng_fill(B, K * N, 24);
    ref_matmul(A, B, C, M, N, K);
    for (int i = 0; i < M; i += 37) {
        ref_matmul(A + (size_t)i * K, B, row, 1, N, K); /* one row: one thread */
        for (int j = 0; j < N; j++)
            ck_assert_float_eq(C[i * N + j], row[j]);
    }
    free(A), free(B), free(C);
}
END_TEST

/* Every item of a shared loop is done exactly once, for any count. */
static void count_items(void *ctx, long first, long last)
{
    unsigned char *seen = ctx;
    for (long i = first; i < last; i++)
        seen[i]++;
}

START_TEST(par_for_does_every_item_once)
{
    static const long counts[] = {0, 1, 2, 3, 15, 16, 17, 1000, 100003};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        long n = counts[c];
        unsigned char *seen = calloc((size_t)n + 1, 1);
        par_for(n, 1e9, count_items, seen); /* work enough for every core */
        long bad = -1;
        for (long i = 0; i < n && bad < 0; i++)
            if (seen[i] != 1)
                bad = i;
        ck_assert_msg(bad < 0, "%ld items: item %ld done %d times", n, bad, bad < 0 ? 1 : seen[bad]);
        ck_assert_int_eq(seen[n], 0);
        free(seen);
    }
}
END_TEST

Suite *reference_suite(void)
{
    Suite *s = suite_create("reference");
    TCase *mm = tcase_create("matmul");
    tcase_add_test(mm, matmul_small_by_hand);
    tcase_add_test(mm, matmul_shapes);
    tcase_add_test(mm, matmul_one_by_one);
    tcase_add_test(mm, matmul_accumulates_in_double);
    tcase_add_test(mm, matmul_identity);
    suite_add_tcase(s, mm);
    TCase *cv = tcase_create("convolution");
    tcase_add_test(cv, conv1d_by_hand);
    tcase_add_test(cv, conv1d_ghosts_only);
    tcase_add_test(cv, conv1d_width_one_scales);
    tcase_add_test(cv, conv1d_not_flipped);
    tcase_add_test(cv, conv2d_counts_neighbours);
    tcase_add_test(cv, conv2d_orientation);
    tcase_add_test(cv, conv2d_one_pixel);
    tcase_add_test(cv, conv2d_row_matches_conv1d);
    tcase_add_test(cv, conv_shared_among_threads_equals_one_by_one);
    tcase_add_test(mm, matmul_shared_among_threads_equals_rows_alone);
    tcase_add_test(cv, par_for_does_every_item_once);
    suite_add_tcase(s, cv);
    return s;
}
