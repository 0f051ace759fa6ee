/*
 * test_emu_calls.c - calls in the emulator (tests/kernels/call_ops.cu):
 * indirect calls through a __device__ table of function pointers and
 * through a pointer made in the kernel, lanes of one warp calling different
 * functions; device printf formatted from its argument buffer, with what
 * printf returns.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "emu_testlib.h"

START_TEST(test_indirect_calls)
{
    et *e = et_load("call_ops");
    int in[64], out[128];
    for (int i = 0; i < 64; i++)
        in[i] = i * 5 - 40;
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "indirect", 1, 64, 1, 0, p, 2), EMU_OK);
    et_get(e, out, p[1], sizeof out);
    static const int coefs[4] = {3, 5, 7, 11};
    for (int t = 0; t < 64; t++) {
        int c = coefs[t % 4];
        int want = t % 3 == 0 ? in[t] + c : t % 3 == 1 ? in[t] * c : in[t] - c;
        ck_assert_int_eq(out[t], want);
        ck_assert_int_eq(out[64 + t], t < 16 ? t * 2 : t + 2);
    }
    et_free(e);
}
END_TEST

START_TEST(test_printf)
{
    et *e = et_load("call_ops");
    int in[32] = {7, -3, 100}, out[3];
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "printer", 1, 32, 1, 0, p, 2), EMU_OK);
    et_get(e, out, p[1], sizeof out);
    ck_assert_str_eq(e->printed,
                     "thread 0 sees 7,  3.50, str A ff -5 4464|\n"
                     "thread 1 sees -3, -1.50, str B 100 -5 4464|\n"
                     "thread 2 sees 100, 50.00, str C 101 -5 4464|\n");
    for (int t = 0; t < 3; t++) /* printf returns the number of arguments it took */
        ck_assert_int_eq(out[t], 8);
    et_free(e);
}
END_TEST

Suite *emu_calls_suite(void)
{
    Suite *s = suite_create("emu_calls");
    TCase *tc = tcase_create("emu_calls");
    tcase_add_test(tc, test_indirect_calls);
    tcase_add_test(tc, test_printf);
    suite_add_tcase(s, tc);
    return s;
}
