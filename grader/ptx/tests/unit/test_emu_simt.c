/*
 * test_emu_simt.c - the emulator's control flow and barriers
 * (tests/kernels/control.cu and PTX written here): reconvergence after
 * nested divergence, loops with break/continue and early returns, calls,
 * brx.idx, barriers with and without counts, bar.arrive, bar.red, a warp
 * that exits before a barrier, a deadlock, an endless loop within a small
 * budget, trap and assert, recursion and unsupported instructions refused
 * with their line, special registers of a 3-D launch.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_testlib.h"

static int steps_of(int t)
{
    int x = t + 1, steps = 0;
    while (x != 1 && steps < 100) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
        if (x == 16 && (t & 4))
            break;
    }
    return steps;
}

START_TEST(test_nested_divergence_reconverges)
{
    et *e = et_load("control");
    int out[64];
    unsigned masks[128];
    uint64_t params[2] = {et_buf(e, NULL, sizeof out), et_buf(e, NULL, sizeof masks)};
    ck_assert_int_eq(et_run(e, "nested", 1, 64, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    et_get(e, masks, params[1], sizeof masks);
    for (int t = 0; t < 64; t++) {
        int v = 0;
        if (t & 1) {
            v = 1 + ((t & 2) ? 2 : 3 * t);
        } else {
            for (int i = 0; i < t % 7; i++) {
                if (i == 4)
                    break;
                if (i == 1)
                    continue;
                v += i;
            }
        }
        ck_assert_int_eq(out[t], v * 1000 + steps_of(t));
        ck_assert_uint_eq(masks[t], 0xffffffffu);      /* after the if/else */
        ck_assert_uint_eq(masks[64 + t], 0xffffffffu); /* after the loop */
    }
    et_free(e);
}
END_TEST

START_TEST(test_early_return)
{
    et *e = et_load("control");
    int out[32];
    unsigned masks[32];
    uint64_t params[3] = {et_buf(e, NULL, sizeof out), et_buf(e, NULL, sizeof masks), 20};
    ck_assert_int_eq(et_run(e, "early_return", 1, 32, 1, 0, params, 3), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    et_get(e, masks, params[1], sizeof masks);
    for (int t = 0; t < 32; t++) {
        ck_assert_int_eq(out[t], t >= 20 ? 0 : t % 3 == 0 ? 5 * t : t);
        ck_assert_uint_eq(masks[t], t >= 20 ? 0 : 0x000fffffu);
    }
    et_free(e);
}
END_TEST

static int collatz_steps(int x, int cap)
{
    int s = 0;
    while (x != 1) {
        if (s == cap)
            return -s;
        x = (x & 1) ? 3 * x + 1 : x / 2;
        s++;
    }
    return s;
}

START_TEST(test_calls)
{
    et *e = et_load("control");
    int out[64];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "calls", 1, 64, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 64; t++)
        ck_assert_int_eq(out[t], collatz_steps(t + 1, 20) +
                                     (t & 1 ? collatz_steps(t + 7, 5) * 100 : 0));
    ck_assert_int_eq(et_run(e, "recursion", 1, 32, 1, 0, params, 1), EMU_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e->res.why, "recursive call"));
    ck_assert_int_gt(e->res.line, 0);
    et_free(e);
}
END_TEST

START_TEST(test_barriers)
{
    et *e = et_load("control");
    int out[96];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "producer_consumer", 1, 64, 1, 0, params, 1), EMU_OK);
    ck_assert_uint_eq(e->res.sync_errors, 0); /* every thread reaches each barrier */
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 32; t++)
        ck_assert_int_eq(out[t], (31 - t + 32) * 3); /* warp 0 waited for warp 1's arrival */

    ck_assert_int_eq(et_run(e, "bar_reductions", 1, 96, 1, 0, params, 1), EMU_OK);
    ck_assert_uint_eq(e->res.sync_errors, 0); /* every thread reaches each barrier */
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 96; t++)
        ck_assert_int_eq(out[t], 32 * 1000 + 100 + 10 + 0);

    ck_assert_int_eq(et_run(e, "exit_before_barrier", 1, 96, 1, 0, params, 1), EMU_OK);
    ck_assert_uint_eq(e->res.sync_errors, 0); /* every thread reaches each barrier */
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 32; t++)
        ck_assert_uint_eq((unsigned)out[t], 0xdeadbeefu + 1); /* never written: the fill */
    for (int t = 64; t < 96; t++)
        ck_assert_int_eq(out[t], t - 63);

    et_clear_records(e);
    ck_assert_int_eq(et_run(e, "one_warp_barrier", 1, 64, 1, 0, params, 1), EMU_OK);
    ck_assert_uint_eq(e->res.sync_errors, 0); /* every thread reaches each barrier */
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 64; t++)
        ck_assert_int_eq(out[t], t ^ 1);
    int barriers = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++)
        if (e->rec.shared[i].flags == EMU_REC_BARRIER) {
            ck_assert_uint_eq(e->rec.shared[i].active, 0xffffffffu);
            barriers++;
        }
    /* a barrier for one warp of two orders nothing between warps: not recorded, as the
       trace backend does not record it, so the race check sees the accesses around it */
    ck_assert_int_eq(barriers, 0);

    ck_assert_int_eq(et_run(e, "deadlock", 1, 64, 1, 0, params, 1), EMU_DEADLOCK);
    ck_assert_ptr_nonnull(strstr(e->res.why, "bar.sync"));
    ck_assert_int_gt(e->res.line, 0);
    et_free(e);
}
END_TEST

START_TEST(test_endless_loop_times_out)
{
    et *e = et_load("control");
    uint64_t params[2] = {et_buf(e, NULL, 4), et_buf(e, NULL, 128)};
    unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    ck_assert_int_eq(et_run3(e, "endless", grid, block, 0, params, 2, 10000), EMU_TIMEOUT);
    ck_assert_ptr_nonnull(strstr(e->res.why, "10000 warp instructions"));
    ck_assert_uint_eq(e->res.warp_instructions, 10000);
    ck_assert_int_gt(e->res.line, 0);
    et_free(e);
}
END_TEST

START_TEST(test_trap_and_assert)
{
    et *e = et_load("control");
    uint64_t params[2] = {et_buf(e, NULL, 128), 1};
    ck_assert_int_eq(et_run(e, "traps", 1, 32, 1, 0, params, 2), EMU_TRAP);
    ck_assert_ptr_nonnull(strstr(e->res.why, "trap"));
    params[1] = 2;
    ck_assert_int_eq(et_run(e, "traps", 1, 32, 1, 0, params, 2), EMU_TRAP);
    ck_assert_ptr_nonnull(strstr(e->res.why, "assert"));
    params[1] = 0;
    ck_assert_int_eq(et_run(e, "traps", 1, 32, 1, 0, params, 2), EMU_OK);
    et_free(e);
}
END_TEST

START_TEST(test_special_registers)
{
    et *e = et_load("control");
    unsigned grid[3] = {2, 3, 2}, block[3] = {4, 3, 5};
    unsigned threads = 60, blocks = 12;
    unsigned *out = calloc(blocks * threads * 8, 4);
    uint64_t params[1] = {et_buf(e, NULL, blocks * threads * 8 * 4)};
    ck_assert_int_eq(et_run3(e, "specials", grid, block, 48, params, 1, EMU_DEFAULT_BUDGET),
                     EMU_OK);
    et_get(e, out, params[0], blocks * threads * 8 * 4);
    for (unsigned bz = 0; bz < 2; bz++)
        for (unsigned by = 0; by < 3; by++)
            for (unsigned bx = 0; bx < 2; bx++)
                for (unsigned t = 0; t < threads; t++) {
                    unsigned b = bx + 2 * (by + 3 * bz);
                    const unsigned *o = out + (b * threads + t) * 8;
                    unsigned tx = t % 4, ty = t / 4 % 3, tz = t / 12;
                    ck_assert_uint_eq(o[0], tx | ty << 8 | tz << 16);
                    ck_assert_uint_eq(o[1], bx | by << 8 | bz << 16);
                    ck_assert_uint_eq(o[2], 4 | 3 << 8 | 5 << 16);
                    ck_assert_uint_eq(o[3], 2 | 3 << 8 | 2 << 16);
                    ck_assert_uint_eq(o[4], t % 32);
                    ck_assert_uint_eq(o[5], t / 32);
                    ck_assert_uint_eq(o[6], (1u << (t % 32)) - 1);
                    ck_assert_uint_eq(o[7], 48);
                }
    free(out);
    et_free(e);
}
END_TEST

/* warpSize is the PTX constant WARP_SZ, 32; the other built-ins read as the PTX ISA says. */
START_TEST(test_builtins)
{
    et *e = et_load("builtins");
    unsigned out[96 * 4];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "builtins", 1, 96, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (unsigned t = 0; t < 96; t++) {
        ck_assert_uint_eq(out[t * 4 + 0], 32);
        ck_assert_uint_eq(out[t * 4 + 1], t % 32 + 100 * (t / 32));
        ck_assert_uint_eq(out[t * 4 + 2], 0);
        ck_assert_uint_eq(out[t * 4 + 3], 3);
    }
    et_free(e);
}
END_TEST

/* A kernel whose PTX the reader cannot read costs that kernel alone: the module loads,
   the other kernels run, and its launch names the student's line and what the reader
   said (docs/emulator.md#semantics). */
static const char *unreadable_ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry good(.param .u64 out)\n{\n"
    "  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, WARP_SZ;\n  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n}\n"
    ".func helper(.param .b32 x)\n{\n  .reg .b32 %r<2>;\n"
    "  .loc 1 7 0\n  mov.u32 %r1, NO_SUCH_NAME;\n  { mov.u32 %r1, 1; }\n  ret;\n}\n"
    ".visible .entry calls_it()\n{\n  .reg .b32 %r<2>;\n"
    "  .loc 1 12 0\n  mov.u32 %r1, 3;\n  { .param .b32 a;\n  st.param.b32 [a], %r1;\n"
    "  call.uni helper, (a);\n  }\n  ret;\n}\n"
    ".visible .entry bad()\n{\n  .reg .b32 %r<2>;\n"
    "  .loc 1 21 0\n  mov.u32 %r1, %tid.x;\n  .loc 1 22 0\n  {\n  add.u32 %r1, %r1, {%r1};\n  }\n"
    "  ret;\n}\n"
    ".file 1 \"/src/lab1.cu\"\n";

START_TEST(test_unreadable_kernel_alone)
{
    et *e = et_load_text(unreadable_ptx);
    uint32_t got = 0;
    uint64_t params[1] = {et_buf(e, NULL, 4)};
    ck_assert_int_eq(et_run(e, "good", 1, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, &got, params[0], 4);
    ck_assert_uint_eq(got, 32);
    ck_assert_int_eq(et_run(e, "bad", 1, 32, 1, 0, NULL, 0), EMU_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e->res.why, "cannot read the PTX nvcc made of this kernel"));
    ck_assert_ptr_nonnull(e->res.file);
    ck_assert_str_eq(e->res.file, "/src/lab1.cu");
    ck_assert_int_eq(e->res.line, 22);
    ck_assert_int_eq(et_run(e, "calls_it", 1, 32, 1, 0, NULL, 0), EMU_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e->res.why, "`helper`, a function the kernel calls"));
    ck_assert_ptr_nonnull(strstr(e->res.why, "unknown name `NO_SUCH_NAME`"));
    ck_assert_int_eq(e->res.line, 7);
    ck_assert_int_eq(et_run(e, "good", 1, 32, 1, 0, params, 1), EMU_OK);
    et_free(e);
}
END_TEST

/* brx.idx: three targets at once, and the warp whole again after them. */
static const char *brx_ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry brx(.param .u64 out)\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  rem.u32 %r2, %r1, 3;\n"
    "  mov.u32 %r3, 0;\n"
    "  ts: .branchtargets L0, L1, L2;\n"
    "  brx.idx %r2, ts;\n"
    "L0: add.u32 %r3, %r3, 10;\n  bra.uni J;\n"
    "L1: add.u32 %r3, %r3, 20;\n  bra.uni J;\n"
    "L2: add.u32 %r3, %r3, 30;\n"
    "J: activemask.b32 %r4;\n"
    "  mul.wide.u32 %rd2, %r1, 8;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.v2.u32 [%rd3], {%r3, %r4};\n"
    "  ret;\n}\n";

START_TEST(test_brx_idx)
{
    et *e = et_load_text(brx_ptx);
    uint32_t out[64];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "brx", 1, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 32; t++) {
        ck_assert_uint_eq(out[2 * t], 10u * (t % 3 + 1));
        ck_assert_uint_eq(out[2 * t + 1], 0xffffffffu);
    }
    et_free(e);
}
END_TEST

/*
 * Guards, written as nvcc rarely writes them: @!p on an add and on a branch,
 * setp.lt at equality (lane 12 against 12), setp.geu against NaN (unordered:
 * true); and lanes that exit inside a function called on one side of a
 * divergent branch (the caller's paths still meet at JOIN, so the entry
 * waiting there holds them), which must not come back where the paths meet:
 * their out[] keeps the value put there before.
 */
static const char *guards_ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".func quit(.param .b32 t)\n{\n"
    "  .reg .b32 %r<3>;\n  .reg .pred %p<2>;\n"
    "  ld.param.b32 %r1, [t];\n  rem.u32 %r2, %r1, 3;\n"
    "  setp.eq.u32 %p1, %r2, 0;\n  @%p1 exit;\n  ret;\n}\n"
    ".visible .entry guards(.param .u64 out, .param .f32 nan)\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .f32 %f<2>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<6>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.f32 %f1, [nan];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  mov.u32 %r2, 0;\n"
    "  setp.lt.s32 %p1, %r1, 12;\n"
    "  @%p1 add.u32 %r2, %r2, 1;\n"
    "  @!%p1 add.u32 %r2, %r2, 10;\n"
    "  setp.geu.f32 %p4, %f1, 0f3F800000;\n"
    "  @%p4 add.u32 %r2, %r2, 100000;\n"
    "  and.b32 %r3, %r1, 1;\n"
    "  setp.eq.u32 %p2, %r3, 1;\n"
    "  @!%p2 bra EVEN;\n"
    "  add.u32 %r2, %r2, 100;\n"
    "  { .param .b32 p0; st.param.b32 [p0], %r1; call quit, (p0); }\n"
    "  add.u32 %r2, %r2, 1000;\n"
    "  bra.uni JOIN;\n"
    "EVEN:\n  add.u32 %r2, %r2, 10000;\n"
    "JOIN:\n  st.global.u32 [%rd3], %r2;\n"
    "  ret;\n}\n";

START_TEST(test_negated_guards_and_exits)
{
    et *e = et_load_text(guards_ptx);
    int out[32];
    for (int t = 0; t < 32; t++)
        out[t] = -7;
    uint64_t params[2] = {et_buf(e, out, sizeof out), et_f2u(__builtin_nanf(""))};
    ck_assert_int_eq(et_run(e, "guards", 1, 32, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 32; t++) {
        int want = (t < 12 ? 1 : 10) + 100000 + (t & 1 ? 100 + 1000 : 10000);
        if ((t & 1) && t % 3 == 0)
            want = -7; /* exited on the odd path: never stores */
        ck_assert_msg(out[t] == want, "thread %d: got %d, want %d", t, out[t], want);
    }
    et_free(e);
}
END_TEST

/* An instruction the emulator does not run: refused with its text and line, but only
   when a warp executes it. */
static const char *unsupported_ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".file 1 \"/home/student/lab1.cu\"\n"
    ".visible .entry k(.param .u64 t, .param .u32 go)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<2>;\n  .reg .pred %p<2>;\n"
    "  ld.param.u64 %rd1, [t];\n"
    "  ld.param.u32 %r1, [go];\n"
    "  setp.eq.u32 %p1, %r1, 0;\n"
    "  @%p1 bra DONE;\n"
    "  .loc 1 42 7\n"
    "  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
    "DONE:\n  ret;\n}\n"
    ".visible .entry m(.param .u64 out)\n{\n"
    "  .reg .b64 %rd<3>;\n"
    "  { .param .b64 param0; st.param.b64 [param0], 64; .param .b64 retval0;\n"
    "    call.uni (retval0), malloc, (param0); ld.param.b64 %rd1, [retval0]; }\n"
    "  ret;\n}\n";

static const char *malloc_decl = ".extern .func (.param .b64 func_retval0) malloc(.param .b64 size);\n";

START_TEST(test_unsupported_instruction)
{
    char text[4096];
    const char *at = strstr(unsupported_ptx, ".visible");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - unsupported_ptx), unsupported_ptx,
             malloc_decl, at);
    et *e = et_load_text(text);
    uint64_t params[2] = {0, 0};
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, params, 2), EMU_OK); /* not reached */
    params[1] = 1;
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, params, 2), EMU_UNSUPPORTED);
    ck_assert_str_eq(e->res.why, "the emulator does not support `tex.2d.v4.f32.f32`");
    ck_assert_str_eq(e->res.file, "/home/student/lab1.cu");
    ck_assert_int_eq(e->res.line, 42);
    uint64_t out[1] = {0};
    ck_assert_int_eq(et_run(e, "m", 1, 32, 1, 0, out, 1), EMU_UNSUPPORTED);
    ck_assert_str_eq(e->res.why, "the emulator does not support calling `malloc`");
    et_free(e);
}
END_TEST

START_TEST(test_bad_launches)
{
    et *e = et_load("control");
    uint64_t params[2] = {et_buf(e, NULL, 4096), et_buf(e, NULL, 4096)};
    ck_assert_int_eq(et_run(e, "nested", 1, 2048, 1, 0, params, 2), EMU_BAD_LAUNCH);
    ck_assert_int_eq(et_run(e, "nested", 0, 32, 1, 0, params, 2), EMU_BAD_LAUNCH);
    ck_assert_int_eq(et_run(e, "nested", 1, 32, 1, 300u * 1024u, params, 2), EMU_BAD_LAUNCH);
    emu_launch l = {.kernel = 99, .grid = {1, 1, 1}, .block = {32, 1, 1}};
    emu_result r;
    ck_assert_int_eq(emu_run(e->m, &l, NULL, EMU_DEFAULT_BUDGET, &r), EMU_BAD_LAUNCH);
    l.kernel = emu_kernel_find(e->m, "nested");
    ck_assert_int_eq(emu_run(e->m, &l, NULL, EMU_DEFAULT_BUDGET, &r), EMU_BAD_LAUNCH); /* no params */
    et_free(e);
}
END_TEST

Suite *emu_simt_suite(void)
{
    Suite *s = suite_create("emu_simt");
    TCase *tc = tcase_create("emu_simt");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_nested_divergence_reconverges);
    tcase_add_test(tc, test_early_return);
    tcase_add_test(tc, test_calls);
    tcase_add_test(tc, test_barriers);
    tcase_add_test(tc, test_builtins);
    tcase_add_test(tc, test_unreadable_kernel_alone);
    tcase_add_test(tc, test_endless_loop_times_out);
    tcase_add_test(tc, test_trap_and_assert);
    tcase_add_test(tc, test_special_registers);
    tcase_add_test(tc, test_brx_idx);
    tcase_add_test(tc, test_negated_guards_and_exits);
    tcase_add_test(tc, test_unsupported_instruction);
    tcase_add_test(tc, test_bad_launches);
    suite_add_tcase(s, tc);
    return s;
}
