/*
 * test_emu_parse.c - the emulator's PTX reader on hand-written PTX: the
 * parameter layout the CUDA ABI gives, static and dynamic shared memory,
 * module variables and their initialisers (nested braces, floats, negative
 * numbers, addresses), register ranges and scopes, source lines, and the
 * errors of text that is not PTX, each with its line.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "emu_testlib.h"
#include "../../ptx.h"

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

/* Load text; 0 or -1 with why. */
static int load(const char *text, char *why, size_t why_size)
{
    emu_device *d = emu_device_create(UINT64_C(1) << 30);
    emu_module *m;
    int rc = emu_module_load(d, text, strlen(text), &m, why, why_size);
    if (rc == 0)
        emu_module_unload(m);
    emu_device_destroy(d);
    return rc;
}

START_TEST(test_param_layout)
{
    et *e = et_load_text(HEAD ".visible .entry k(.param .u8 a, .param .u64 b, .param .u32 c,\n"
                              "  .param .align 16 .b8 s[20], .param .f64 d, .param .u16 h,\n"
                              "  .param .u64 .ptr .global .align 8 p)\n{\n  ret;\n}\n");
    int k = emu_kernel_find(e->m, "k");
    ck_assert_int_eq(k, 0);
    ck_assert_int_eq(emu_kernel_count(e->m), 1);
    ck_assert_int_eq(emu_kernel_find(e->m, "nosuch"), -1);
    emu_kernel_info ki;
    ck_assert_int_eq(emu_kernel_describe(e->m, k, &ki), 0);
    ck_assert_str_eq(ki.name, "k");
    static const uint32_t off[] = {0, 8, 16, 32, 56, 64, 72}, size[] = {1, 8, 4, 20, 8, 2, 8};
    ck_assert_int_eq(ki.n_params, 7);
    for (int i = 0; i < 7; i++) {
        ck_assert_uint_eq(ki.param_offset[i], off[i]);
        ck_assert_uint_eq(ki.param_size[i], size[i]);
    }
    ck_assert_uint_eq(ki.param_bytes, 80);
    ck_assert_int_ne(emu_kernel_describe(e->m, 1, &ki), 0);
    et_free(e);
}
END_TEST

/* Shared variables a kernel reaches, in declaration order, aligned; the dynamic area. */
START_TEST(test_shared_layout)
{
    et *e = et_load_text(HEAD ".shared .align 4 .b8 a[6];\n"
                              ".shared .align 16 .b8 b[32];\n"
                              ".shared .align 8 .b8 unused[1000];\n"
                              ".extern .shared .align 16 .b8 dyn[];\n"
                              ".visible .entry k1()\n{\n  .reg .b32 %r<3>;\n"
                              "  .shared .align 2 .b8 own[3];\n"
                              "  mov.u32 %r1, b;\n  mov.u32 %r2, a;\n  ld.shared.u8 %r1, [own];\n"
                              "  ret;\n}\n"
                              ".visible .entry k2()\n{\n  .reg .b32 %r<3>;\n"
                              "  mov.u32 %r1, dyn;\n  ret;\n}\n");
    emu_kernel_info ki;
    ck_assert_int_eq(emu_kernel_describe(e->m, emu_kernel_find(e->m, "k1"), &ki), 0);
    ck_assert_uint_eq(ki.static_shared, 16 + 32 + 3); /* a at 0, b at 16, own at 48 */
    ck_assert_int_eq(ki.dynamic_shared, 0);
    ck_assert_int_eq(emu_kernel_describe(e->m, emu_kernel_find(e->m, "k2"), &ki), 0);
    ck_assert_uint_eq(ki.static_shared, 0);
    ck_assert_int_eq(ki.dynamic_shared, 1);
    et_free(e);
}
END_TEST

START_TEST(test_initialisers)
{
    et *e = et_load_text(HEAD ".global .align 4 .u32 arr[2][3] = {{1, 2, 3}, {4, 0x10, -1}};\n"
                              ".const .align 4 .f32 f = 0f3F800000;\n"
                              ".global .align 8 .f64 d[3] = {1.5, -2.0, 0d4000000000000000};\n"
                              ".global .s8 neg[3] = {-1, -128, 127};\n"
                              ".global .align 8 .u64 p[2] = {generic(arr)+8, neg};\n"
                              ".global .u32 tail[4] = {9};\n"
                              ".global .align 2 .b8 str[] = {104, 105, 0};\n");
    uint64_t addr, size, arr;
    emu_space sp;
    uint32_t u[6];
    ck_assert_int_eq(emu_module_symbol(e->m, "arr", &arr, &size, &sp), 0);
    ck_assert_uint_eq(size, 24);
    et_get(e, u, arr, 24);
    static const uint32_t want[] = {1, 2, 3, 4, 16, 0xffffffffu};
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(u[i], want[i]);
    float f;
    ck_assert_int_eq(emu_module_symbol(e->m, "f", &addr, &size, &sp), 0);
    ck_assert_int_eq(sp, EMU_SPACE_CONST);
    et_get(e, &f, addr, 4);
    ck_assert(f == 1.0f);
    double dd[3];
    ck_assert_int_eq(emu_module_symbol(e->m, "d", &addr, &size, &sp), 0);
    et_get(e, dd, addr, 24);
    ck_assert(dd[0] == 1.5 && dd[1] == -2.0 && dd[2] == 2.0);
    int8_t s8[3];
    uint64_t neg;
    ck_assert_int_eq(emu_module_symbol(e->m, "neg", &neg, &size, &sp), 0);
    et_get(e, s8, neg, 3);
    ck_assert(s8[0] == -1 && s8[1] == -128 && s8[2] == 127);
    uint64_t p[2];
    ck_assert_int_eq(emu_module_symbol(e->m, "p", &addr, &size, &sp), 0);
    et_get(e, p, addr, 16);
    ck_assert_uint_eq(p[0], arr + 8);
    ck_assert_uint_eq(p[1], neg);
    uint32_t t[4];
    ck_assert_int_eq(emu_module_symbol(e->m, "tail", &addr, &size, &sp), 0);
    et_get(e, t, addr, 16);
    ck_assert(t[0] == 9 && t[1] == 0 && t[3] == 0); /* the rest is zero */
    ck_assert_int_eq(emu_module_symbol(e->m, "str", &addr, &size, &sp), 0);
    ck_assert_uint_eq(size, 3); /* sized by its initialiser */
    et_free(e);
}
END_TEST

/* Registers in ranges and scopes, labels, guards, .loc lines (inlined code: the inner line). */
static const char *body_ptx =
    HEAD ".file 1 \"k.cu\"\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<3>;\n  .reg .pred %p<2>;\n"
    "  .loc 1 10 1\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  {\n    .reg .b32 %t;\n    add.u32 %t, %r1, 5;\n    mov.u32 %r2, %t;\n  }\n"
    "  .loc 1 20 3, function_name $L__info_string0, inlined_at 1 11 2\n"
    "  setp.lt.u32 %p1, %r1, 3;\n"
    "  @!%p1 bra $L__skip;\n"
    "  add.u32 %r2, %r2, 100;\n"
    "$L__skip:\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd2, %rd1, %rd2;\n"
    "  st.global.u32 [%rd2], %r2;\n"
    "  ret;\n}\n";

START_TEST(test_body)
{
    et *e = et_load_text(body_ptx);
    uint32_t out[8];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "k", 1, 8, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (uint32_t t = 0; t < 8; t++)
        ck_assert_uint_eq(out[t], t + 5 + (t < 3 ? 100 : 0));
    const char *file;
    int line;
    ck_assert_int_eq(emu_line(e->m, 0, 0, &file, &line), 0);
    ck_assert_str_eq(file, "k.cu");
    ck_assert_int_eq(line, 10);
    ck_assert_int_eq(emu_line(e->m, 0, 4 * 16, &file, &line), 0); /* the setp */
    ck_assert_int_eq(line, 20);
    ck_assert_int_ne(emu_line(e->m, 0, 4 * 16 + 1, &file, &line), 0);
    ck_assert_int_ne(emu_line(e->m, 0, 1000 * 16, &file, &line), 0);
    ck_assert_int_ne(emu_line(e->m, 3, 0, &file, &line), 0);
    et_free(e);
}
END_TEST

/* An instruction the emulator does not run, inlined from a header: the student's line
   (inlined_at) is named first, then the header's; .file may come after the code. */
static const char *unsupported_inlined_ptx =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .b16 %h<3>;\n"
    "  .loc 1 7 1\n"
    "  mov.b16 %h1, 0x3c00;\n"
    "  .loc 2 2630 10, function_name $L__info_string0, inlined_at 1 59 5\n"
    "  mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%h2, %h2}, {%h1, %h1}, {%h1}, {%h2, %h2};\n"
    "  ret;\n}\n"
    ".file 1 \"/home/ann/lab1.cu\"\n.file 2 \"/usr/local/cuda/include/cuda_fp16.hpp\"\n";

START_TEST(test_unsupported_names_the_students_line)
{
    et *e = et_load_text(unsupported_inlined_ptx);
    uint64_t params[1] = {et_buf(e, NULL, 64)};
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, params, 1), EMU_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e->res.why, "mma.sync"));
    ck_assert_str_eq(e->res.file, "/usr/local/cuda/include/cuda_fp16.hpp");
    ck_assert_int_eq(e->res.line, 2630);
    ck_assert_ptr_nonnull(e->res.call_file);
    ck_assert_str_eq(e->res.call_file, "/home/ann/lab1.cu");
    ck_assert_int_eq(e->res.call_line, 59);
    et_free(e);
}
END_TEST

/* Every warp of every block stores its number (block * 2 + warp) into out[0], and
   appends it to out[1 + arrival]: in order the last block's last warp stores last; run
   last to first (emu_launch.reverse), block 0's warp 0, and the arrivals come reversed. */
static const char *order_ptx =
    HEAD ".visible .entry order(.param .u64 out)\n{\n"
    "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p1;\n"
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %tid.x;\n  shr.u32 %r3, %r2, 5;\n"
    "  mad.lo.s32 %r3, %r1, 2, %r3;\n  and.b32 %r4, %r2, 31;\n"
    "  setp.ne.u32 %p1, %r4, 0;\n  @%p1 ret;\n"
    "  st.global.u32 [%rd1], %r3;\n"
    "  atom.global.add.u32 %r5, [%rd1+4], 1;\n"
    "  mul.wide.u32 %rd2, %r5, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3+8], %r3;\n  ret;\n}\n";

START_TEST(test_reverse_order)
{
    for (int reverse = 0; reverse <= 1; reverse++) {
        et *e = et_load_text(order_ptx);
        uint32_t zero[8] = {0};
        uint64_t params[1] = {et_buf(e, zero, sizeof zero)};
        e->reverse = reverse;
        ck_assert_int_eq(et_run(e, "order", 3, 64, 1, 0, params, 1), EMU_OK);
        uint32_t out[8];
        et_get(e, out, params[0], sizeof out);
        ck_assert_uint_eq(out[0], reverse ? 0 : 5); /* the last store */
        ck_assert_uint_eq(out[1], 6);               /* every warp came */
        for (uint32_t i = 0; i < 6; i++)            /* in order, or last to first */
            ck_assert_uint_eq(out[2 + i], reverse ? 5 - i : i);
        et_free(e);
    }
}
END_TEST

/* A device function: parameters and result through .param, a call per lane group. */
static const char *call_ptx =
    HEAD ".func (.param .b32 ret0) twice(.param .b32 x, .param .align 8 .b8 pair[8])\n{\n"
    "  .reg .b32 %r<4>;\n"
    "  ld.param.b32 %r1, [x];\n  ld.param.b32 %r2, [pair+4];\n"
    "  mad.lo.s32 %r3, %r1, 2, %r2;\n  st.param.b32 [ret0], %r3;\n  ret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<3>;\n  .reg .pred %p1;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %laneid;\n"
    "  setp.lt.u32 %p1, %r1, 10;\n  mov.u32 %r2, 7;\n"
    "  { .param .b32 a0; .param .align 8 .b8 a1[8]; .param .b32 r0;\n"
    "    st.param.b32 [a0], %r1;\n  st.param.b32 [a1+4], 1000;\n"
    "    @%p1 call (r0), twice, (a0, a1);\n  @%p1 ld.param.b32 %r2, [r0]; }\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd2, %rd1, %rd2;\n  st.global.u32 [%rd2], %r2;\n"
    "  ret;\n}\n";

START_TEST(test_device_function_call)
{
    et *e = et_load_text(call_ptx);
    uint32_t out[32];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (uint32_t t = 0; t < 32; t++)
        ck_assert_uint_eq(out[t], t < 10 ? 2 * t + 1000 : 7);
    et_free(e);
}
END_TEST

/* barrier.* spellings and the predicate constants. */
static const char *barrier_ptx =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<3>;\n  .reg .pred %p<3>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
    "  barrier.sync 0;\n  barrier.cta.sync.aligned 0, 64;\n  bar.cta.sync 2;\n"
    "  mov.pred %p1, 1;\n  mov.pred %p2, 0;\n"
    "  barrier.red.popc.u32 %r2, 3, %p1;\n  bar.red.or.pred %p2, 4, %p2;\n"
    "  selp.u32 %r3, 1, 0, %p2;\n  add.u32 %r2, %r2, %r3;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd2, %rd1, %rd2;\n  st.global.u32 [%rd2], %r2;\n"
    "  ret;\n}\n";

START_TEST(test_barrier_forms)
{
    et *e = et_load_text(barrier_ptx);
    uint32_t out[64];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "k", 1, 64, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 64; t++)
        ck_assert_uint_eq(out[t], 64);
    int barriers = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++)
        barriers += e->rec.shared[i].flags == EMU_REC_BARRIER;
    ck_assert_int_eq(barriers, 5 * 2);
    et_free(e);
}
END_TEST

/* Text that is not PTX at module scope: -1 and the line at fault. */
static const struct {
    const char *ptx, *why;
} bad[] = {
    {".version 8.0\n.target sm_90\n.address_size 32\n", "line 3: .address_size 32"},
    {HEAD "/* never closed\n", "line 4: a /* comment never ends"},
    {HEAD ".global .u32 x = 99999999999999999999;\n", "line 4: an integer that does not fit"},
    {HEAD ".global .u32 x[2] = {1, 2, 3};\n", "line 4: more initialisers"},
    {HEAD ".visible .entry k()\n{\n  mov.u32 %r1, 1;\n", "line 6:"}, /* a body never closed */
    {HEAD ".bogus 1;\n", "line 4: unknown or unsupported directive"},
    {HEAD ".global .b8 x[4294967297];\n", "line 4:"},
    {HEAD "\x01", "line 4: unexpected character 0x01"},
};

START_TEST(test_errors_name_the_line)
{
    char why[256];
    ck_assert_int_ne(load(bad[_i].ptx, why, sizeof why), 0);
    ck_assert_msg(strncmp(why, bad[_i].why, strlen(bad[_i].why)) == 0, "case %d: why = \"%s\"",
                  _i, why);
}
END_TEST

/* A function body the reader cannot read: the module loads (its other kernels run, as
   test_unreadable_kernel_alone shows), and launching the kernel fails as unsupported with
   the PTX line at fault and what was wrong there. */
static const struct {
    const char *ptx, *why;
} set_aside[] = {
    {HEAD ".visible .entry k()\n{\n  ret\n}\n", "(PTX line 7:"}, /* where the ';' should be */
    {HEAD ".visible .entry k()\n{\n  bra NOWHERE;\n}\n", "(PTX line 6: unknown label"},
    {HEAD ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r4, 1;\n}\n",
     "(PTX line 7: `%r4` is not a declared register"},
    {HEAD ".visible .entry k()\n{\n  { .reg .b32 %t; }\n  mov.u32 %t, 1;\n}\n",
     "(PTX line 7: `%t` is not a declared register"},
    {HEAD ".visible .entry k()\n{\nL: ret;\nL: ret;\n}\n", "(PTX line 7: label defined twice"},
    {HEAD ".visible .entry k()\n{\n  ld.global.u32 %r1, %r2;\n}\n", "(PTX line 6:"},
    {HEAD ".visible .entry k()\n{\n  add.s32 , ;\n}\n", "(PTX line 6:"},
    {HEAD ".visible .entry k()\n{\n  .reg .b32 %r1;\n  { mov.b32 %r1, {%r1}, 2;\n  }\n  ret;\n}\n",
     "(PTX line 7:"}, /* inside a block, with a vector: its braces are the statement's */
};

START_TEST(test_unreadable_body_set_aside)
{
    et *e = et_load_text(set_aside[_i].ptx);
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, NULL, 0), EMU_UNSUPPORTED);
    ck_assert_msg(strstr(e->res.why, set_aside[_i].why) != NULL, "case %d: why = \"%s\"", _i,
                  e->res.why);
    et_free(e);
}
END_TEST

/* What hostile text must not make the reader allocate: huge declared ranges are fine (slots
   are taken for the registers the code names), huge variables are refused. */
START_TEST(test_hostile_sizes)
{
    char why[256];
    ck_assert_int_eq(load(HEAD ".visible .entry k()\n{\n  .reg .b32 %r<4000000000>;\n"
                               "  mov.u32 %r3999999999, 1;\n  ret;\n}\n", why, sizeof why), 0);
    ck_assert_int_ne(load(HEAD ".global .b8 x[2000000000];\n", why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "no device memory"));
    ck_assert_int_ne(load(HEAD ".global .b8 x[2000000000] = {1};\n", why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "16 MiB"));
    et *e = et_load_text(HEAD ".visible .entry k()\n{\n  .local .b8 d[1000000];\n"
                              "  .reg .b64 %rd1;\n  mov.u64 %rd1, d;\n  ret;\n}\n");
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, NULL, 0), EMU_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e->res.why, "local memory"));
    et_free(e);
}
END_TEST

/* The clocks: read by mov, they only go forward; elsewhere they are refused, not misread. */
START_TEST(test_clocks)
{
    et *e = et_load_text(HEAD ".visible .entry k(.param .u64 out)\n{\n"
                              "  .reg .b64 %rd<5>;\n  .reg .b32 %r<3>;\n"
                              "  ld.param.u64 %rd1, [out];\n  mov.u64 %rd2, %clock64;\n"
                              "  mov.u32 %r1, %clock;\n  mov.u64 %rd3, %clock64;\n"
                              "  sub.s64 %rd4, %rd3, %rd2;\n  st.global.u64 [%rd1], %rd4;\n"
                              "  ret;\n}\n"
                              ".visible .entry bad()\n{\n  .reg .b32 %r1;\n"
                              "  add.u32 %r1, %clock, 1;\n  ret;\n}\n");
    uint64_t delta = 0, params[1] = {et_buf(e, NULL, 8)};
    ck_assert_int_eq(et_run(e, "k", 1, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, &delta, params[0], 8);
    ck_assert_uint_gt(delta, 0);
    ck_assert_uint_lt(delta, 100);
    ck_assert_int_eq(et_run(e, "bad", 1, 32, 1, 0, NULL, 0), EMU_UNSUPPORTED);
    ck_assert_str_eq(e->res.why, "the emulator does not support `add.u32`");
    et_free(e);
}
END_TEST

/* The machine's registers say what a GPU's would (emu_launch's sm_count, grid_id,
   time_base): %nsmid its SMs, %smid a block's among them, %gridid the launch's, the
   clocks from the time base on. A kernel cannot take another path on the emulator. */
START_TEST(test_machine_registers)
{
    et *e = et_load_text(HEAD ".visible .entry k(.param .u64 out)\n{\n"
                              "  .reg .b64 %rd<8>;\n  .reg .b32 %r<4>;\n"
                              "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %ctaid.x;\n"
                              "  mul.wide.u32 %rd2, %r1, 32;\n  add.s64 %rd1, %rd1, %rd2;\n"
                              "  mov.u32 %r2, %nsmid;\n  cvt.u64.u32 %rd3, %r2;\n"
                              "  mov.u32 %r3, %smid;\n  cvt.u64.u32 %rd4, %r3;\n"
                              "  mov.u64 %rd5, %gridid;\n  mov.u64 %rd6, %globaltimer;\n"
                              "  st.global.v2.u64 [%rd1], {%rd3, %rd4};\n"
                              "  st.global.v2.u64 [%rd1+16], {%rd5, %rd6};\n"
                              "  ret;\n}\n");
    uint64_t got[5][4], params[1] = {et_buf(e, NULL, sizeof got)};
    e->machine.sm_count = 3, e->machine.grid_id = 77;
    e->machine.time_base = UINT64_C(1795000000000000000); /* 2026, in ns */
    ck_assert_int_eq(et_run(e, "k", 5, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, got, params[0], sizeof got);
    for (int b = 0; b < 5; b++) {
        ck_assert_uint_eq(got[b][0], 3);
        ck_assert_uint_eq(got[b][1], (uint64_t)b % 3);
        ck_assert_uint_eq(got[b][2], 77);
        ck_assert_uint_ge(got[b][3], e->machine.time_base);
        ck_assert_uint_lt(got[b][3], e->machine.time_base + 1000000);
    }
    et_free(e);
}
END_TEST

/* The parser alone: a module's functions, variables and instructions. */
START_TEST(test_ptx_module)
{
    ptx_module *m;
    char why[256];
    ck_assert_int_eq(ptx_parse(body_ptx, strlen(body_ptx), &m, why, sizeof why), 0);
    ck_assert_uint_eq(m->version_major, 8);
    ck_assert_uint_eq(m->n_funcs, 1);
    ck_assert_uint_ne(ptx_find_func(m, "k"), PTX_NONE);
    const ptx_func *f = &m->funcs[0];
    ck_assert(f->is_entry && f->has_body);
    ck_assert_uint_eq(f->n_code, 11);
    ck_assert_uint_eq(f->code[4].op, OP_SETP);
    ck_assert_uint_eq(f->code[5].op, OP_BRA);
    ck_assert_uint_eq(f->code[5].guard_neg, 1);
    ck_assert_uint_eq(f->code[5].o[0].r, 7); /* $L__skip */
    ck_assert_uint_eq(f->reconv[5], 7);
    ck_assert_str_eq(ptx_instr_text(&f->code[6]), "add.u32");
    ck_assert_uint_eq(f->n_preds, 1); /* of %p<3>, only %p1 is named */
    ptx_free(m);
}
END_TEST

/* The oldest GPU each instruction needs (ptx_target.c, the PTX ISA's target notes), and
   the first one a kernel reaches past a target, in its own code or a function it calls. */
static const char target_ptx[] = HEAD
    ".func (.param .b32 r) helper(.param .b32 a)\n{\n  .reg .b32 %r<3>;\n  .reg .pred %p<2>;\n"
    "  ld.param.u32 %r1, [a];\n"
    "  elect.sync %r2|%p1, -1;\n"
    "  st.param.b32 [r], %r2;\n  ret;\n}\n"
    ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 %r<9>;\n  .reg .b64 %rd<4>;\n"
    "  .reg .f64 %fd<3>;\n  .reg .b16 %h<3>;\n"
    "  .loc 1 7 0\n"
    "  ld.param.u64 %rd1, [p];\n"                          /* 0: 20 */
    "  shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n"           /* 1: 30 */
    "  bar.warp.sync -1;\n"                                 /* 2: 30 */
    "  shf.l.wrap.b32 %r3, %r1, %r2, 3;\n"                  /* 3: 32 */
    "  ld.global.nc.u32 %r4, [%rd1];\n"                     /* 4: 20 */
    "  atom.global.add.u32 %r5, [%rd1], 1;\n"               /* 5: 20 */
    "  atom.global.add.f64 %fd1, [%rd1], %fd2;\n"           /* 6: 60 */
    "  atom.relaxed.gpu.global.add.u32 %r5, [%rd1], 1;\n"   /* 7: 70 */
    "  lop3.b32 %r6, %r1, %r2, %r3, 0x96;\n"                /* 8: 50 */
    "  match.any.sync.b32 %r7, %r1, -1;\n"                  /* 9: 70 */
    "  add.rn.f16 %h1, %h2, %h2;\n"                         /* 10: 53 */
    "  max.f16 %h1, %h2, %h2;\n"                            /* 11: 80 */
    "  membar.gl;\n"                                        /* 12: 20 */
    "  fence.acq_rel.gpu;\n"                                /* 13: 70 */
    "  .loc 1 9 0\n"
    "  { .param .b32 a0; .param .b32 r0;\n"
    "    st.param.b32 [a0], %r1;\n"
    "    call.uni (r0), helper, (a0);\n"
    "    ld.param.b32 %r8, [r0]; }\n"
    "  ret;\n}\n"
    ".file 1 \"lab8.cu\"\n";

START_TEST(test_target_notes)
{
    static const int want[] = {20, 30, 30, 32, 20, 20, 60, 70, 50, 70, 53, 80, 20, 70};
    ptx_module *m;
    char why[256];
    ck_assert_msg(ptx_parse(target_ptx, strlen(target_ptx), &m, why, sizeof why) == 0, "%s", why);
    const ptx_func *f = &m->funcs[ptx_find_func(m, "k")];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(ptx_instr_sm(&f->code[i]) == want[i], "`%s`: sm_%d, the PTX ISA says sm_%d",
                      ptx_instr_text(&f->code[i]), ptx_instr_sm(&f->code[i]), want[i]);
    emu_newer n;
    ck_assert_int_eq(emu_newer_in(m, ptx_find_func(m, "k"), 35, &n), 1);
    ck_assert_str_eq(n.text, "atom.global.add.f64"); /* the kernel's own first */
    ck_assert_int_eq(n.sm, 60);
    ck_assert_int_eq(n.line, 7);
    ck_assert_str_eq(n.file, "lab8.cu");
    ck_assert_int_eq(emu_newer_in(m, ptx_find_func(m, "k"), 80, &n), 1);
    ck_assert_str_eq(n.text, "elect.sync"); /* in the function it calls */
    ck_assert_int_eq(n.sm, 90);
    ck_assert_int_eq(emu_newer_in(m, ptx_find_func(m, "k"), 90, &n), 0);
    ptx_free(m);
}
END_TEST

Suite *emu_parse_suite(void)
{
    Suite *s = suite_create("emu_parse");
    TCase *tc = tcase_create("emu_parse");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_param_layout);
    tcase_add_test(tc, test_shared_layout);
    tcase_add_test(tc, test_initialisers);
    tcase_add_test(tc, test_body);
    tcase_add_test(tc, test_device_function_call);
    tcase_add_test(tc, test_unsupported_names_the_students_line);
    tcase_add_test(tc, test_reverse_order);
    tcase_add_test(tc, test_barrier_forms);
    tcase_add_loop_test(tc, test_errors_name_the_line, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_loop_test(tc, test_unreadable_body_set_aside, 0,
                        (int)(sizeof set_aside / sizeof set_aside[0]));
    tcase_add_test(tc, test_hostile_sizes);
    tcase_add_test(tc, test_clocks);
    tcase_add_test(tc, test_machine_registers);
    tcase_add_test(tc, test_ptx_module);
    tcase_add_test(tc, test_target_notes);
    suite_add_tcase(s, tc);
    return s;
}
