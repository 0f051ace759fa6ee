/* test_prng.c - the deterministic generator behind the grader's random inputs. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "reference/prng.h"

/* splitmix64 seeded with 0: the first output published with the algorithm. */
START_TEST(known_first_value)
{
    prng p;
    prng_seed(&p, 0);
    ck_assert_uint_eq(prng_next(&p), UINT64_C(0xE220A8397B1DCDAF));
}
END_TEST

START_TEST(same_seed_same_numbers)
{
    float a[64], b[64], c[64];
    prng_fill(a, 64, 42);
    prng_fill(b, 64, 42);
    prng_fill(c, 64, 43);
    int differ = 0;
    for (int i = 0; i < 64; i++) {
        ck_assert_float_eq(a[i], b[i]);
        differ += a[i] != c[i];
    }
    ck_assert_int_gt(differ, 60);
}
END_TEST

/* A large fill is shared among threads: every value is still the one a single
   generator gives at that place. */
START_TEST(large_fill_is_one_stream)
{
    enum { L = 3000017 };
    float *x = malloc(sizeof(float) * L);
    ck_assert_ptr_nonnull(x);
    prng_fill(x, L, 7);
    prng p;
    prng_seed(&p, 7);
    long first_differing = -1; /* one assertion, not L: each ck_assert is a write to Check's pipe */
    for (long i = 0; i < L && first_differing < 0; i++)
        if (x[i] != prng_uniform(&p))
            first_differing = i;
    free(x);
    ck_assert_msg(first_differing < 0, "value %ld differs", first_differing);
}
END_TEST

/* In [-1, 1), on the 2^-23 grid, and spread evenly over 10 bins. */
START_TEST(uniform_in_range)
{
    enum { COUNT = 200000, BINS = 10 };
    int bins[BINS] = {0};
    double sum = 0.0;
    prng p;
    prng_seed(&p, PRNG_DEFAULT_SEED);
    int outside = 0, off_grid = 0;
    for (int i = 0; i < COUNT; i++) {
        float x = prng_uniform(&p);
        if (!(x >= -1.0f && x < 1.0f)) {
            outside++;
            continue;
        }
        double steps = ((double)x + 1.0) * 8388608.0;
        off_grid += steps != floor(steps);
        bins[(int)((x + 1.0f) * 0.5f * BINS)]++;
        sum += x;
    }
    ck_assert_int_eq(outside, 0);
    ck_assert_int_eq(off_grid, 0);
    for (int b = 0; b < BINS; b++)
        ck_assert(abs(bins[b] - COUNT / BINS) < COUNT / BINS / 20);
    ck_assert(fabs(sum / COUNT) < 0.01);
}
END_TEST

START_TEST(parse_seed)
{
    uint64_t s = 7;
    ck_assert_int_eq(prng_parse_seed("123", &s), 0);
    ck_assert_uint_eq(s, 123);
    ck_assert_int_eq(prng_parse_seed("0x1F", &s), 0);
    ck_assert_uint_eq(s, 31);
    ck_assert_int_eq(prng_parse_seed("010", &s), 0); /* decimal, not octal */
    ck_assert_uint_eq(s, 10);
    ck_assert_int_eq(prng_parse_seed("18446744073709551615", &s), 0);
    ck_assert_uint_eq(s, UINT64_MAX);
    const char *bad[] = {"", "-1", "+1", " 5", "12a", "0x", "0xg", "18446744073709551616"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = 7;
        ck_assert_int_eq(prng_parse_seed(bad[i], &s), -1);
        ck_assert_uint_eq(s, 7);
    }
    ck_assert_int_eq(prng_parse_seed(NULL, &s), -1);
}
END_TEST

Suite *prng_suite(void)
{
    Suite *s = suite_create("prng");
    TCase *tc = tcase_create("splitmix64");
    tcase_add_test(tc, known_first_value);
    tcase_add_test(tc, same_seed_same_numbers);
    tcase_add_test(tc, uniform_in_range);
    tcase_add_test(tc, parse_seed);
    tcase_add_test(tc, large_fill_is_one_stream);
    suite_add_tcase(s, tc);
    return s;
}
