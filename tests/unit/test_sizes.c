/* test_sizes.c - the size lists keep the cases that break tiled kernels. */
#include <check.h>

#include "labs/sizes.h"

#define ANY_MATMUL(cond)                                  \
    do {                                                  \
        int found_ = 0;                                   \
        for (int i_ = 0; i_ < sizes_matmul_count; i_++) { \
            matmul_size s = sizes_matmul[i_];             \
            found_ |= (cond);                             \
        }                                                 \
        ck_assert_msg(found_, "no matmul size with %s", #cond); \
    } while (0)

START_TEST(matmul_cases)
{
    ANY_MATMUL(s.M == 1 && s.N == 1 && s.K == 1);
    ANY_MATMUL(s.M == 1 && s.N > 16);  /* 1 x N */
    ANY_MATMUL(s.N == 1 && s.M > 16);  /* N x 1 */
    ANY_MATMUL(s.M == 67 && s.N == 53 && sizes_is_prime(s.K));
    ANY_MATMUL(s.M == 191 && s.N == 19);
    /* ragged along all three, K past one tile */
    ANY_MATMUL(s.M % 16 && s.N % 16 && s.K % 16 && s.K > 16);
    ANY_MATMUL(sizes_is_prime(s.M) && sizes_is_prime(s.N) && sizes_is_prime(s.K));
    /* float4 path with ragged tiles; several ragged step-3 tiles */
    ANY_MATMUL(s.N % 4 == 0 && s.K % 4 == 0 && (s.M % 128 || s.N % 128));
    ANY_MATMUL(s.M > 128 && s.N > 128 && s.M % 128 && s.N % 128);
    ANY_MATMUL(s.M >= 1024 && s.N >= 1024 && s.K >= 1024);
}
END_TEST

START_TEST(matmul_sizes_valid)
{
    for (int i = 0; i < sizes_matmul_count; i++) {
        matmul_size s = sizes_matmul[i];
        ck_assert(s.M >= 1 && s.N >= 1 && s.K >= 1);
        ck_assert_ptr_nonnull(s.why);
    }
    ck_assert_int_eq(sizes_matmul_speed.M, 4096);
    ck_assert_int_eq(sizes_matmul_speed.N, 4096);
    ck_assert_int_eq(sizes_matmul_speed.K, 4096);
    /* The global-load expectation (naive / TILE) is exact only for multiples of 16. */
    ck_assert_int_eq(sizes_matmul_traffic.K % 16, 0);
    ck_assert_int_eq(sizes_matmul_traffic.M % 16, 0);
    ck_assert_int_gt(sizes_matmul_bench_count, 0);
}
END_TEST

START_TEST(conv1d_cases)
{
    int one = 0, prime = 0, around_tile = 0, large = 0;
    for (int i = 0; i < sizes_conv1d_n_count; i++) {
        int n = sizes_conv1d_n[i].n;
        ck_assert_int_ge(n, 1);
        one |= n == 1;
        prime |= sizes_is_prime(n) && n > 256;
        around_tile |= n == 257; /* one past a 256 tile: a second tile with one element */
        large |= n > 1000000;
    }
    ck_assert(one && prime && around_tile && large);
    int width_one = 0, wide = 0;
    for (int i = 0; i < sizes_conv1d_mask_count; i++) {
        int w = sizes_conv1d_mask[i];
        ck_assert_int_eq(w % 2, 1);
        width_one |= w == 1;
        wide |= w >= 7;
    }
    ck_assert(width_one && wide);
    ck_assert_int_ge((long)sizes_conv1d_speed_n * 4, 4L * 50 * 1000 * 1000); /* >> L2 */
}
END_TEST

START_TEST(conv2d_cases)
{
    int one = 0, primes = 0, non_square = 0, row = 0, col = 0;
    for (int i = 0; i < sizes_conv2d_count; i++) {
        image_size s = sizes_conv2d[i];
        ck_assert(s.width >= 1 && s.height >= 1);
        one |= s.width == 1 && s.height == 1;
        primes |= sizes_is_prime(s.width) && sizes_is_prime(s.height);
        non_square |= s.width != s.height && s.width > 32 && s.height > 32;
        row |= s.height == 1 && s.width > 1;
        col |= s.width == 1 && s.height > 1;
    }
    ck_assert(one && primes && non_square && row && col);
    int seven = 0;
    for (int i = 0; i < sizes_conv2d_mask_count; i++) {
        ck_assert_int_eq(sizes_conv2d_mask[i] % 2, 1);
        seven |= sizes_conv2d_mask[i] == 7;
    }
    ck_assert(seven);
    ck_assert_int_eq(sizes_conv2d_speed_mask % 2, 1);
}
END_TEST

/* The emulator runs the awkward sizes too, each no larger than a few hundred a side. */
START_TEST(emulated_sizes)
{
    int mm = 0, ragged = 0, c1 = 0, c2 = 0;
    for (int i = 0; i < sizes_matmul_count; i++) {
        matmul_size s = sizes_matmul[i];
        ck_assert(s.devices & SIZE_BOTH);
        if (!(s.devices & SIZE_EMULATOR))
            continue;
        ck_assert_int_le((long)s.M * s.N * s.K, 5L * 1000 * 1000);
        mm++;
        ragged |= s.M % 16 && s.N % 16 && s.K % 16 && s.M > 128;
    }
    ck_assert(mm >= 8 && ragged);
    for (int i = 0; i < sizes_conv1d_n_count; i++)
        if (sizes_conv1d_n[i].devices & SIZE_EMULATOR) {
            ck_assert_int_le(sizes_conv1d_n[i].n, 5000);
            c1 += sizes_conv1d_n[i].n == 1025 || sizes_conv1d_n[i].n == 1;
        }
    int inside = 0; /* float4 rows and a 32 x 32 block whose 7-wide halo lies in the image */
    for (int i = 0; i < sizes_conv2d_count; i++)
        if (sizes_conv2d[i].devices & SIZE_EMULATOR) {
            image_size z = sizes_conv2d[i];
            ck_assert_int_le(z.width * z.height, 20000);
            c2++;
            inside |= z.width % 4 == 0 && z.width >= 2 * 32 + 4 && z.height >= 2 * 32 + 3;
        }
    ck_assert(c1 == 2 && c2 >= 8 && inside);
    ck_assert_int_eq(sizes_matmul_traffic.devices, SIZE_BOTH);
    ck_assert_int_eq(sizes_matmul_traffic.M % 128, 0); /* step 3's block tile */
    ck_assert_int_ge(sizes_conv1d_traffic_emulated_n, 8 * 1024); /* several 1-D tiles */
}
END_TEST

START_TEST(is_prime)
{
    const long primes[] = {2, 3, 19, 53, 67, 191, 65537, 1000003};
    const long others[] = {-7, 0, 1, 4, 51, 129, 1024, 65535};
    for (unsigned i = 0; i < sizeof primes / sizeof primes[0]; i++)
        ck_assert_int_eq(sizes_is_prime(primes[i]), 1);
    for (unsigned i = 0; i < sizeof others / sizeof others[0]; i++)
        ck_assert_int_eq(sizes_is_prime(others[i]), 0);
}
END_TEST

Suite *sizes_suite(void)
{
    Suite *s = suite_create("sizes");
    TCase *tc = tcase_create("lists");
    tcase_add_test(tc, matmul_cases);
    tcase_add_test(tc, matmul_sizes_valid);
    tcase_add_test(tc, conv1d_cases);
    tcase_add_test(tc, conv2d_cases);
    tcase_add_test(tc, emulated_sizes);
    tcase_add_test(tc, is_prime);
    suite_add_tcase(s, tc);
    return s;
}
