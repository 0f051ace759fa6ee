/*
 * test_emu_sync.c - the emulator's synchronisation checks
 * (tests/kernels/sync_ops.cu; docs/emulator.md#sync): a block-wide barrier
 * every thread reaches, skips that only leave the kernel, and the ones that
 * do not (a branch half the block takes, odd lanes, both sides of a branch,
 * per-warp loop counts, a device function); member masks naming lanes that
 * do not execute the primitive, lanes outside their own mask, shuffles that
 * read lanes not there. Each error names its instruction's line and the
 * threads; the launch still ends EMU_OK with its output defined.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "emu_testlib.h"

/* The launch's errors of kind (the sink gets each kind at each instruction once). */
static const emu_sync_error *find(const et *e, int kind)
{
    for (size_t i = 0; i < e->rec.n_sync; i++)
        if (e->rec.sync[i].kind == kind)
            return &e->rec.sync[i];
    return NULL;
}

/* Threads t of the bitmap words[], t in [lo, hi): all set, and none outside. */
static int exactly(const uint32_t *words, unsigned lo, unsigned hi)
{
    for (unsigned t = 0; t < 1024; t++)
        if ((words[t / 32] >> (t % 32) & 1u) != (t >= lo && t < hi))
            return 0;
    return 1;
}

START_TEST(test_legal_barriers_say_nothing)
{
    et *e = et_load("sync_ops");
    int in[256];
    for (int t = 0; t < 256; t++)
        in[t] = t - 100;
    uint64_t out = et_buf(e, NULL, 4096), inb = et_buf(e, in, sizeof in);
    struct {
        const char *kernel;
        unsigned threads;
        uint64_t arg;
        int n_params;
    } legal[] = {
        {"bar_uniform", 256, 1, 2}, {"bar_uniform", 256, 0, 2},
        {"bar_early_return", 256, 40, 2}, {"bar_early_return", 256, 64, 2},
        {"bar_early_return_work", 256, 64, 2}, {"bar_early_return_work", 256, 96, 2},
        {"bar_loop_uniform", 256, 3, 2}, {"bar_loop_then_leave", 128, 0, 1},
        {"bar_loop_return", 64, 61, 2}, {"bar_in_function", 64, 64, 2},
    };
    for (size_t i = 0; i < sizeof legal / sizeof legal[0]; i++) {
        uint64_t params[2] = {out, legal[i].arg};
        ck_assert_int_eq(et_run(e, legal[i].kernel, 1, legal[i].threads, 1, 0, params,
                                legal[i].n_params), EMU_OK);
        ck_assert_msg(e->res.sync_errors == 0 && e->rec.n_sync == 0,
                      "%s (%llu): %llu sync errors, first kind %d", legal[i].kernel,
                      (unsigned long long)legal[i].arg, (unsigned long long)e->res.sync_errors,
                      e->res.first_sync.kind);
    }
    /* nvcc merges the returning threads' store with the one after the barrier: whole
       warps that return just store and leave, but lanes of a warp that return wait at
       that store while their warp's others reach the barrier (not exited, as on a GPU) */
    uint64_t work[2] = {out, 40};
    ck_assert_int_eq(et_run(e, "bar_early_return_work", 1, 256, 1, 0, work, 2), EMU_OK);
    ck_assert_ptr_nonnull(find(e, EMU_SYNC_BARRIER_WARP));
    ck_assert_ptr_null(find(e, EMU_SYNC_BARRIER_BLOCK));
    /* the early return leaves the rest right: what every thread below n read */
    int got[64];
    uint64_t params[2] = {out, 40};
    et_run(e, "bar_early_return", 1, 64, 1, 0, params, 2);
    et_get(e, got, out, sizeof got);
    for (int t = 0; t < 40; t++)
        ck_assert_int_eq(got[t], 39 - t);
    /* legal warp primitives: the mask of the branch, a ballot after a return */
    uint64_t wp[3] = {inb, out, 20};
    ck_assert_int_eq(et_run(e, "shfl_masked", 1, 32, 1, 0, wp, 2), EMU_OK);
    ck_assert_int_eq(e->res.sync_errors, 0);
    ck_assert_int_eq(et_run(e, "ballot_after_return", 1, 32, 1, 0, wp, 3), EMU_OK);
    ck_assert_int_eq(e->res.sync_errors, 0);
    wp[2] = 32;
    ck_assert_int_eq(et_run(e, "shfl_after_return", 1, 64, 1, 0, wp, 3), EMU_OK);
    ck_assert_int_eq(e->res.sync_errors, 0); /* whole warps return: nothing read of them */
    uint64_t sw[2] = {out, 1};
    ck_assert_int_eq(et_run(e, "syncwarp_half", 1, 64, 1, 0, sw, 2), EMU_OK);
    ck_assert_int_eq(e->res.sync_errors, 0);
    et_free(e);
}
END_TEST

/* Half the block skips the barrier and reads the tile: the threads that went on are
   named, with the barrier's line and the branch's. */
START_TEST(test_half_block_skips)
{
    et *e = et_load("sync_ops");
    uint64_t params[1] = {et_buf(e, NULL, 4096)};
    ck_assert_int_eq(et_run(e, "bar_half", 1, 256, 1, 0, params, 1), EMU_OK);
    const emu_sync_error *s = find(e, EMU_SYNC_BARRIER_BLOCK);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(strstr(s->text, "bar"));
    ck_assert_int_gt(s->line, 0);
    ck_assert_int_gt(s->branch_line, 0);
    ck_assert_int_le(s->branch_line, s->line);
    ck_assert(exactly(s->reached, 0, 128));
    ck_assert(exactly(s->skipped, 128, 256));
    ck_assert_uint_eq(s->threads, 256);
    ck_assert_uint_eq(e->res.first_sync.kind, EMU_SYNC_BARRIER_BLOCK);
    /* within one warp: the lanes that did not come wait past the branch */
    ck_assert_int_eq(et_run(e, "bar_half", 1, 32, 1, 0, params, 1), EMU_OK);
    s = find(e, EMU_SYNC_BARRIER_WARP);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->lanes, 0x0000ffffu);
    ck_assert_uint_eq(s->missing, 0xffff0000u);
    ck_assert_int_gt(s->other_line, s->line - 1);
    ck_assert_int_gt(s->branch_line, 0);
    et_free(e);
}
END_TEST

START_TEST(test_odd_lanes)
{
    uint64_t params[1];
    et *e = et_load("sync_ops");
    params[0] = et_buf(e, NULL, 4096);
    ck_assert_int_eq(et_run(e, "bar_odd", 1, 64, 1, 0, params, 1), EMU_OK);
    const emu_sync_error *s = find(e, EMU_SYNC_BARRIER_WARP);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->lanes, 0xaaaaaaaau);
    ck_assert_uint_eq(s->missing, 0x55555555u);
    ck_assert_uint_eq(s->warp, 0);
    /* the launch went on: every thread stored something */
    int got[64];
    et_get(e, got, params[0], sizeof got);
    for (int t = 0; t < 64; t++)
        ck_assert_int_eq(got[t], 63 - t);
    et_free(e);
}
END_TEST

START_TEST(test_both_sides_wait_apart)
{
    et *e = et_load("sync_ops");
    uint64_t params[2] = {et_buf(e, NULL, 4096), 64};
    ck_assert_int_eq(et_run(e, "bar_if_else", 1, 128, 1, 0, params, 2), EMU_OK);
    const emu_sync_error *s = find(e, EMU_SYNC_BARRIER_SPLIT);
    ck_assert_ptr_nonnull(s);
    ck_assert(exactly(s->reached, 0, 64));
    ck_assert(exactly(s->skipped, 64, 128));
    ck_assert_int_ne(s->other_line, s->line);
    /* split inside a warp */
    params[1] = 16;
    ck_assert_int_eq(et_run(e, "bar_if_else", 1, 32, 1, 0, params, 2), EMU_OK);
    ck_assert_ptr_nonnull(find(e, EMU_SYNC_BARRIER_SPLIT));
    et_free(e);
}
END_TEST

START_TEST(test_loops_and_functions)
{
    et *e = et_load("sync_ops");
    int in[256];
    for (int t = 0; t < 256; t++)
        in[t] = 1;
    uint64_t out = et_buf(e, NULL, 4096), inb = et_buf(e, in, sizeof in);
    uint64_t p1[1] = {out};
    ck_assert_int_eq(et_run(e, "bar_loop_per_warp", 1, 128, 1, 0, p1, 1), EMU_OK);
    const emu_sync_error *s = find(e, EMU_SYNC_BARRIER_BLOCK);
    ck_assert_ptr_nonnull(s); /* warp 0 does no pass and reads the tile: it went on */
    ck_assert(exactly(s->skipped, 0, 32));
    ck_assert_int_eq(et_run(e, "bar_loop_per_lane", 1, 32, 1, 0, p1, 1), EMU_OK);
    s = find(e, EMU_SYNC_BARRIER_WARP);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->lanes, 0xeeeeeeeeu); /* lanes with t % 4 > 0 in the first pass */
    uint64_t p2[2] = {inb, out};
    ck_assert_int_eq(et_run(e, "bar_tree_in_branch", 1, 256, 1, 0, p2, 2), EMU_OK);
    ck_assert_uint_gt(e->res.sync_errors, 0);
    /* the warps that skip only leave (t == 0 alone stores); stride 16 splits warp 0 */
    ck_assert_uint_eq(e->res.first_sync.kind, EMU_SYNC_BARRIER_WARP);
    ck_assert_uint_eq(e->res.first_sync.lanes, 0x0000ffffu);
    ck_assert_uint_eq(e->res.first_sync.missing, 0xffff0000u);
    uint64_t p3[2] = {out, 32};
    ck_assert_int_eq(et_run(e, "bar_in_function", 1, 64, 1, 0, p3, 2), EMU_OK);
    s = find(e, EMU_SYNC_BARRIER_BLOCK);
    ck_assert_ptr_nonnull(s);
    ck_assert(exactly(s->skipped, 32, 64));
    p3[1] = 16;
    ck_assert_int_eq(et_run(e, "bar_in_function", 1, 32, 1, 0, p3, 2), EMU_OK);
    ck_assert_ptr_nonnull(find(e, EMU_SYNC_BARRIER_WARP));
    ck_assert_int_eq(et_run(e, "bar_count_in_branch", 1, 32, 1, 0, p1, 1), EMU_OK);
    ck_assert_ptr_nonnull(find(e, EMU_SYNC_BARRIER_WARP));
    /* a warp that skips it only stores its result and leaves: as good as exited */
    ck_assert_int_eq(et_run(e, "bar_count_in_branch", 1, 64, 1, 0, p1, 1), EMU_OK);
    ck_assert_int_eq(e->rec.n_sync, 0);
    /* warps done with their passes leave, but warps with four or more run nvcc's unrolled
       copy of the loop: a barrier instance split between two barrier instructions */
    ck_assert_int_eq(et_run(e, "bar_loop_then_leave", 1, 256, 1, 0, p1, 1), EMU_OK);
    s = find(e, EMU_SYNC_BARRIER_SPLIT);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->line, s->other_line); /* one __syncthreads() in the source */
    et_free(e);
}
END_TEST

START_TEST(test_masks)
{
    et *e = et_load("sync_ops");
    int in[64];
    for (int t = 0; t < 64; t++)
        in[t] = t * 3 + 1;
    uint64_t inb = et_buf(e, in, sizeof in), out = et_buf(e, NULL, 4096);
    uint64_t p[3] = {inb, out, 20};
    ck_assert_int_eq(et_run(e, "shfl_full_in_branch", 1, 64, 1, 0, p, 2), EMU_OK);
    const emu_sync_error *s = find(e, EMU_SYNC_MASK_ABSENT);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->mask, 0xffffffffu);
    ck_assert_uint_eq(s->lanes, 0xffu);
    ck_assert_uint_eq(s->missing, 0xffffff00u);
    ck_assert_int_gt(s->line, 0);
    ck_assert_int_gt(s->branch_line, 0);
    ck_assert_ptr_null(find(e, EMU_SYNC_MASK_READ)); /* a butterfly of 4 stays in the 8 */
    /* the launch went on: the 8 lanes summed among themselves */
    int got[32];
    et_get(e, got, out, sizeof got);
    for (int t = 0; t < 8; t++)
        ck_assert_int_eq(got[t], 8 + 3 * 28); /* sum of 3t + 1 over t < 8 */

    ck_assert_int_eq(et_run(e, "shfl_after_return", 1, 32, 1, 0, p, 3), EMU_OK);
    s = find(e, EMU_SYNC_MASK_READ);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->lanes, 0x000fffffu);
    ck_assert_uint_eq(s->gone & 0xfff00000u, s->gone);
    ck_assert_uint_ne(s->gone, 0);
    ck_assert_ptr_null(find(e, EMU_SYNC_MASK_ABSENT)); /* exited lanes need not execute it */

    ck_assert_int_eq(et_run(e, "shfl_reads_outside", 1, 32, 1, 0, p, 2), EMU_OK);
    s = find(e, EMU_SYNC_MASK_READ);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->missing, 0xf00u);
    ck_assert_ptr_null(find(e, EMU_SYNC_MASK_ABSENT));

    uint64_t sw[2] = {out, 0};
    ck_assert_int_eq(et_run(e, "syncwarp_half", 1, 32, 1, 0, sw, 2), EMU_OK);
    s = find(e, EMU_SYNC_MASK_ABSENT);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->missing, 0xffff0000u);

    ck_assert_int_eq(et_run(e, "vote_without_self", 1, 32, 1, 0, p, 2), EMU_OK);
    s = find(e, EMU_SYNC_MASK_SELF);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->missing, 0xffff0000u);

    ck_assert_int_eq(et_run(e, "redux_match_partial", 1, 32, 1, 0, p, 2), EMU_OK);
    ck_assert_ptr_nonnull(find(e, EMU_SYNC_MASK_ABSENT));
    ck_assert_uint_ge(e->rec.n_sync, 2); /* the reduction's and the match's */

    /* a block of 16 threads: a full-mask shuffle reads lanes that do not exist */
    ck_assert_int_eq(et_run(e, "shfl_after_return", 1, 16, 1, 0, p, 3), EMU_OK);
    s = find(e, EMU_SYNC_MASK_READ);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->gone, s->missing);
    et_free(e);
}
END_TEST

/* An early return laid out after the barrier's path, with work on its way out: the lanes
   that reach the barrier first wait while the warp's other path runs, stores and exits,
   as on a GPU; then no lane is missing. */
static const char *return_after_ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r2, [n];\n  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  setp.lt.u32 %p1, %r1, %r2;\n"
    "  @%p1 bra BODY;\n"
    "  mov.u32 %r3, 7;\n  st.global.u32 [%rd3], %r3;\n  ret;\n"
    "BODY:\n  bar.sync 0;\n  st.global.u32 [%rd3], %r1;\n  ret;\n}\n";

START_TEST(test_return_laid_out_after_the_barrier)
{
    et *e = et_load_text(return_after_ptx);
    int out[64];
    uint64_t params[2] = {et_buf(e, NULL, sizeof out), 20};
    ck_assert_int_eq(et_run(e, "k", 1, 64, 1, 0, params, 2), EMU_OK);
    ck_assert_int_eq(e->res.sync_errors, 0);
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 64; t++)
        ck_assert_int_eq(out[t], t < 20 ? t : 7);
    et_free(e);
}
END_TEST

/* Each kind at each instruction once a launch, however many blocks meet it. */
START_TEST(test_reported_once_a_launch)
{
    et *e = et_load("sync_ops");
    uint64_t params[1] = {et_buf(e, NULL, 8 * 4096)};
    ck_assert_int_eq(et_run(e, "bar_odd", 8, 64, 1, 0, params, 1), EMU_OK);
    ck_assert_int_eq(e->rec.n_sync, 1);
    ck_assert_uint_eq(e->res.sync_errors, 16); /* two warps in each of 8 blocks */
    ck_assert_uint_eq(e->rec.sync[0].block, 0);
    et_free(e);
}
END_TEST

Suite *emu_sync_suite(void)
{
    Suite *s = suite_create("emu_sync");
    TCase *tc = tcase_create("emu_sync");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_legal_barriers_say_nothing);
    tcase_add_test(tc, test_half_block_skips);
    tcase_add_test(tc, test_odd_lanes);
    tcase_add_test(tc, test_both_sides_wait_apart);
    tcase_add_test(tc, test_loops_and_functions);
    tcase_add_test(tc, test_masks);
    tcase_add_test(tc, test_return_laid_out_after_the_barrier);
    tcase_add_test(tc, test_reported_once_a_launch);
    suite_add_tcase(s, tc);
    return s;
}
