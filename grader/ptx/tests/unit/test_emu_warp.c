/*
 * test_emu_warp.c - the emulator's warp-wide instructions
 * (tests/kernels/warp_ops.cu): shuffles of every mode and segment width,
 * votes, match, redux, activemask in a branch, elect, and a member mask
 * naming lanes that are not there (a synchronisation error, test_emu_sync.c).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "emu_testlib.h"

#define N 64

static void inputs(int *in)
{
    for (int t = 0; t < N; t++) {
        in[t] = (t * 37 + 11) % 101 - 50;
        if (t % 9 == 4)
            in[t] = 7;
        if (t >= 32)
            in[t] = (in[t] & 0xff) | 0x100; /* bit 8 set in the whole second warp */
    }
    in[3] = -50;
}

/* The PTX shfl rule: source lane j and whether it is in range. */
static int shfl_src(int mode, int lane, int b, unsigned c, int *ok)
{
    int bval = b & 31, cval = (int)(c & 31), seg = (int)((c >> 8) & 31);
    int max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg, j;
    switch (mode) {
    case 0: j = lane - bval; *ok = j >= max_lane; break;     /* up */
    case 1: j = lane + bval; *ok = j <= max_lane; break;     /* down */
    case 2: j = lane ^ bval; *ok = j <= max_lane; break;     /* bfly */
    default: j = min_lane | (bval & ~seg); *ok = j <= max_lane; /* idx */
    }
    return *ok ? j : lane;
}

static int shfl(const int *in, int t, int mode, int b, unsigned c)
{
    int ok, wb = t & ~31;
    return in[wb + shfl_src(mode, t & 31, b, c, &ok)];
}

START_TEST(test_shuffles)
{
    int in[N], out[11 * N];
    inputs(in);
    et *e = et_load("warp_ops");
    uint64_t params[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "shuffles", 1, N, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[1], sizeof out);
    for (int t = 0; t < N; t++) {
        int wb = t & ~31, sum = 0, ok;
        for (int l = 0; l < 32; l++)
            sum += in[wb + l];
        int want[11] = {shfl(in, t, 3, (t * 7) % 32, 0x1f),
                        shfl(in, t, 0, 3, 0),
                        shfl(in, t, 1, 5, 0x1f),
                        shfl(in, t, 2, 9, 0x1f),
                        shfl(in, t, 3, t + 2, (24u << 8) | 0x1f),
                        shfl(in, t, 0, 2, 16u << 8),
                        shfl(in, t, 1, 3, (28u << 8) | 0x1f),
                        shfl(in, t, 2, 6, (24u << 8) | 0x1f),
                        sum,
                        shfl(in, t, 1, 4, 0x1f),
                        0};
        shfl_src(1, t & 31, 4, 0x1f, &ok);
        want[10] = ok;
        for (int k = 0; k < 11; k++)
            ck_assert_msg(out[k * N + t] == want[k], "shuffle %d thread %d: got %d, want %d", k,
                          t, out[k * N + t], want[k]);
    }
    et_free(e);
}
END_TEST

START_TEST(test_votes_match_redux)
{
    int in[N];
    unsigned out[15 * N];
    inputs(in);
    et *e = et_load("warp_ops");
    uint64_t params[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "votes", 1, N, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[1], sizeof out);
    for (int t = 0; t < N; t++) {
        int wb = t & ~31, lane = t & 31;
        unsigned ballot = 0, same4 = 0, same64 = 0, sum = 0, or_ = 0, xor_ = 0;
        int all = 1, any = 0, mn = in[wb], mx = in[wb], bit8_same = 1;
        for (int l = 0; l < 32; l++) {
            int v = in[wb + l];
            ballot |= (unsigned)(v > 0) << l;
            all &= v > -100;
            any |= v == 7;
            same4 |= (unsigned)(v % 4 == in[t] % 4) << l;
            same64 |= (unsigned)((v & 3) == (in[t] & 3)) << l;
            sum += (unsigned)v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            or_ |= (unsigned)v;
            xor_ ^= (unsigned)v;
            bit8_same &= (v & 0x100) == (in[wb] & 0x100);
        }
        unsigned want[15] = {ballot, (unsigned)all, (unsigned)any,
                             ballot == 0 || ballot == 0xffffffffu, same4,
                             bit8_same ? 0xffffffffu : 0, (unsigned)bit8_same, sum,
                             (unsigned)mn, (unsigned)mx, or_, xor_,
                             lane % 4 == 1 ? 0x22222222u : 0, lane == 0 ? 1u : 0, same64};
        for (int k = 0; k < 15; k++)
            ck_assert_msg(out[k * N + t] == want[k], "vote %d thread %d: got 0x%x, want 0x%x", k,
                          t, out[k * N + t], want[k]);
    }
    et_free(e);
}
END_TEST

START_TEST(test_member_mask_of_absent_lanes)
{
    int in[32], out[32];
    for (int t = 0; t < 32; t++)
        in[t] = t * 3;
    et *e = et_load("warp_ops");
    uint64_t params[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    /* a synchronisation error (test_emu_sync.c), not a limit of the machine: the launch
       goes on, the 16 lanes exchanging among themselves and lane 15 reading lane 16's
       register, and the error names the instruction and its line */
    ck_assert_int_eq(et_run(e, "divergent_shuffle", 1, 32, 1, 0, params, 2), EMU_OK);
    ck_assert_uint_eq(e->res.sync_errors, 1);
    ck_assert_uint_eq(e->res.first_sync.kind, EMU_SYNC_MASK_ABSENT);
    ck_assert_ptr_nonnull(strstr(e->res.first_sync.text, "shfl.sync"));
    ck_assert_int_gt(e->res.first_sync.line, 0);
    ck_assert_uint_eq(e->res.first_sync.missing, 0xffff0000u);
    et_get(e, out, params[1], sizeof out);
    for (int t = 0; t < 32; t++)
        ck_assert_int_eq(out[t], in[t < 16 ? t + 1 : t]);
    ck_assert_int_eq(et_run(e, "masked_shuffle", 1, 32, 1, 0, params, 2), EMU_OK);
    ck_assert_uint_eq(e->res.sync_errors, 0);
    et_get(e, out, params[1], sizeof out);
    for (int t = 0; t < 32; t++)
        ck_assert_int_eq(out[t], t < 16 ? in[(t + 1) % 16] : in[t]);
    /* a partial warp: lanes that do not exist are not waited for, but lane 15 reads one */
    ck_assert_int_eq(et_run(e, "divergent_shuffle", 1, 16, 1, 0, params, 2), EMU_OK);
    ck_assert_uint_eq(e->res.first_sync.kind, EMU_SYNC_MASK_READ);
    ck_assert_uint_eq(e->res.first_sync.missing, 1u << 16);
    ck_assert_uint_eq(e->res.first_sync.gone, 1u << 16);
    et_free(e);
}
END_TEST

Suite *emu_warp_suite(void)
{
    Suite *s = suite_create("emu_warp");
    TCase *tc = tcase_create("emu_warp");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_shuffles);
    tcase_add_test(tc, test_votes_match_redux);
    tcase_add_test(tc, test_member_mask_of_absent_lanes);
    suite_add_tcase(s, tc);
    return s;
}
