/*
 * test_emu_flow.c - the flow run's changed values (emu_launch.perturb, emu_perturb.c;
 * tests/kernels/flow_ops.cu and const_ops.cu): every value a launch reads from the named
 * source reaches the kernel changed, in every width and type, and nothing else does; a
 * line of the student's alone; a changed index that faults stops the launch, never the
 * machine.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../emu_internal.h"
#include "emu_testlib.h"

/* No arithmetic takes the change back: a float gains at least 2^40 (finite: 0 times it is
   0), an int an odd amount in every register width, and two places change apart. */
START_TEST(test_perturbed_values)
{
    uint64_t k1 = emu_perturb_key(EMU_PERTURB_SHARED, 64),
             k2 = emu_perturb_key(EMU_PERTURB_SHARED, 68);
    float f = et_u2f((uint32_t)emu_perturb_value(et_f2u(1.5f), PT_F32, 4, k1));
    ck_assert(isfinite(f) && f - 1.5f >= 0x1p40f && f - 1.5f <= 0x1p41f);
    double d = et_u2d(emu_perturb_value(et_d2u(-2.0), PT_F64, 8, k1));
    ck_assert(isfinite(d) && d + 2.0 >= 0x1p40);
    for (int bytes = 1; bytes <= 8; bytes *= 2) {
        uint64_t keep = bytes == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
        uint64_t a = emu_perturb_value(5, PT_U32, bytes, k1);
        uint64_t b = emu_perturb_value(5, PT_U32, bytes, k2);
        ck_assert_uint_eq(a & ~keep, 0);        /* in the register's width */
        ck_assert_uint_eq((a - 5) & 1, 1);      /* odd: a copy differs in its low byte */
        ck_assert_uint_ne(a, b);                /* two addresses, two changes */
    }
    uint64_t h = emu_perturb_value(0x3c00u, PT_F16, 2, k1); /* an f16 1.0 */
    ck_assert_uint_ne(h & 0xffffu, 0x3c00u);
    ck_assert_uint_ne(h & 0x7c00u, 0x7c00u); /* finite */
    uint64_t pair = emu_perturb_value(0x3c003c00u, PT_F16X2, 4, k1);
    ck_assert_uint_ne(pair & 0xffffu, 0x3c00u);
    ck_assert_uint_ne(pair >> 16, 0x3c00u);
}
END_TEST

/* Shared loads of every width changed, none other; a value thrown away stays so. */
START_TEST(test_shared_loads_changed)
{
    et *e = et_load("flow_ops");
    int in[32];
    for (int i = 0; i < 32; i++)
        in[i] = 100 + i;
    uint64_t p[7] = {et_buf(e, in, sizeof in), et_buf(e, NULL, 128), et_buf(e, NULL, 128),
                     et_buf(e, NULL, 32), et_buf(e, NULL, 256), et_buf(e, NULL, 512),
                     et_buf(e, NULL, 128)};
    int out[2][32], dropped[2][32], v[2][128];
    float fo[2][32];
    unsigned char bo[2][32];
    double dd[2][32];
    for (int run = 0; run < 2; run++) {
        e->perturb = run ? EMU_PERTURB_SHARED : 0;
        ck_assert_int_eq(et_run(e, "flow_shared", 1, 32, 1, 0, p, 7), EMU_OK);
        et_get(e, out[run], p[1], 128), et_get(e, fo[run], p[2], 128);
        et_get(e, bo[run], p[3], 32), et_get(e, dd[run], p[4], 256);
        et_get(e, v[run], p[5], 512), et_get(e, dropped[run], p[6], 128);
    }
    ck_assert_uint_eq(e->res.perturbed, 32 * (1 + 1 + 1 + 1 + 4 + 1));
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(out[0][l], 100 + (l + 1) % 32);
        ck_assert_int_ne(out[1][l], out[0][l]);
        ck_assert(fo[1][l] - fo[0][l] >= 0x1p40f);
        ck_assert_uint_ne(bo[1][l], bo[0][l]);
        ck_assert(dd[1][l] - dd[0][l] >= 0x1p40);
        for (int c = 0; c < 4; c++)
            ck_assert_int_ne(v[1][4 * l + c], v[0][4 * l + c]);
        ck_assert_int_eq(dropped[1][l], dropped[0][l]); /* & 0: no change reaches it */
    }
    et_free(e);
}
END_TEST

/* A shuffle's results changed, shared loads not (and the other way round); 0 times a
   changed float is 0. */
START_TEST(test_shuffle_and_zero_product)
{
    et *e = et_load("flow_ops");
    int in[32], out[3][32];
    float zero[3][32];
    for (int i = 0; i < 32; i++)
        in[i] = i;
    uint64_t p[3] = {et_buf(e, in, sizeof in), et_buf(e, NULL, 128), et_buf(e, NULL, 128)};
    const uint32_t how[3] = {0, EMU_PERTURB_SHUFFLE, EMU_PERTURB_SHARED};
    for (int run = 0; run < 3; run++) {
        e->perturb = how[run];
        ck_assert_int_eq(et_run(e, "flow_shfl", 1, 32, 1, 0, p, 3), EMU_OK);
        et_get(e, out[run], p[1], 128), et_get(e, zero[run], p[2], 128);
        ck_assert_uint_eq(e->res.perturbed, run ? 32 : 0);
    }
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(out[0][l], (l + 3) % 32);
        ck_assert_int_ne(out[1][l], out[0][l]);
        ck_assert_int_eq(out[2][l], out[0][l]);
        ck_assert(zero[2][l] == 0.0f && zero[1][l] == 0.0f);
    }
    et_free(e);
}
END_TEST

/* Constant loads, and read-only loads of one range: each alone. */
START_TEST(test_const_and_readonly_sources)
{
    et *e = et_load("const_ops");
    float t[32], q[32], cm[8], out[4][32];
    for (int i = 0; i < 32; i++)
        t[i] = (float)i, q[i] = 1000.0f;
    uint64_t cma, size;
    emu_space space;
    ck_assert_int_eq(emu_module_symbol(e->m, "cmask", &cma, &size, &space), 0);
    for (int i = 0; i < 8; i++)
        cm[i] = 0.5f * (float)i;
    emu_write(e->d, cma, cm, sizeof cm);
    uint64_t p[3] = {et_buf(e, t, sizeof t), et_buf(e, q, sizeof q), et_buf(e, NULL, 128)};
    const uint32_t how[4] = {0, EMU_PERTURB_CONST, EMU_PERTURB_READONLY, EMU_PERTURB_READONLY};
    for (int run = 0; run < 4; run++) {
        e->perturb = how[run];
        e->perturb_lo = run == 3 ? p[1] : 0, e->perturb_hi = run == 3 ? p[1] + sizeof q : 0;
        ck_assert_int_eq(et_run(e, "const_and_nc", 1, 32, 1, 0, p, 3), EMU_OK);
        et_get(e, out[run], p[2], 128);
    }
    for (int l = 0; l < 32; l++) {
        ck_assert(out[1][l] - out[0][l] >= 0x1p40f);  /* both constant loads */
        ck_assert(out[2][l] - out[0][l] >= 0x1p40f);  /* the __ldg of t */
        ck_assert(out[3][l] == out[0][l]);            /* t lies outside the range asked */
    }
    ck_assert_uint_eq(e->res.perturbed, 0);
    et_free(e);
}
END_TEST

/* The lines a launch changed values at, and one line's alone: the level's values reach
   nothing, the copy's reach every lane. */
START_TEST(test_one_line)
{
    et *e = et_load("flow_ops");
    int in[32], out[3][32];
    for (int i = 0; i < 32; i++)
        in[i] = 7 * i;
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, 128)};
    e->perturb = EMU_PERTURB_SHARED;
    ck_assert_int_eq(et_run(e, "flow_two_lines", 1, 32, 1, 0, p, 2), EMU_OK);
    et_get(e, out[0], p[1], 128);
    ck_assert_int_eq(e->res.n_perturb_lines, 2);
    emu_src_line lines[2] = {e->res.perturb_lines[0], e->res.perturb_lines[1]};
    ck_assert_ptr_nonnull(lines[0].file);
    ck_assert_int_lt(lines[0].line, lines[1].line); /* in the order met: the level first */
    for (int i = 0; i < 2; i++) {
        e->perturb_at = lines[i];
        ck_assert_int_eq(et_run(e, "flow_two_lines", 1, 32, 1, 0, p, 2), EMU_OK);
        et_get(e, out[1 + i], p[1], 128);
        ck_assert_int_eq(e->res.n_perturb_lines, 1);
        ck_assert_int_eq(e->res.perturb_lines[0].line, lines[i].line);
    }
    e->perturb = 0, e->perturb_at = (emu_src_line){NULL, 0};
    ck_assert_int_eq(et_run(e, "flow_two_lines", 1, 32, 1, 0, p, 2), EMU_OK);
    int plain[32];
    et_get(e, plain, p[1], 128);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(plain[l], 7 * ((l + 1) % 32));
        ck_assert_int_ne(out[0][l], plain[l]);
        ck_assert_int_eq(out[1][l], plain[l]); /* the level: for show */
        ck_assert_int_ne(out[2][l], plain[l]);
    }
    et_free(e);
}
END_TEST

/* An atomic's old value is changed and counted, its line not listed: the value is its
   store's by-product, which a kernel often never uses. */
START_TEST(test_atomic_old_value)
{
    et *e = et_load("flow_ops");
    int in[32], out[2][32];
    for (int i = 0; i < 32; i++)
        in[i] = 3 * i;
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, 128)};
    for (int run = 0; run < 2; run++) {
        e->perturb = run ? EMU_PERTURB_SHARED : 0;
        ck_assert_int_eq(et_run(e, "flow_atomic", 1, 32, 1, 0, p, 2), EMU_OK);
        et_get(e, out[run], p[1], 128);
    }
    ck_assert_uint_eq(e->res.perturbed, 32);
    ck_assert_int_eq(e->res.n_perturb_lines, 0);
    for (int l = 0; l < 32; l++) {
        ck_assert_int_eq(out[0][l], 3 * ((l + 1) % 32));
        ck_assert_int_ne(out[1][l], out[0][l]);
    }
    et_free(e);
}
END_TEST

/* A changed value used as an index faults the launch in the machine's words. */
START_TEST(test_changed_index_faults)
{
    et *e = et_load("flow_ops");
    int in[32];
    memset(in, 0, sizeof in);
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, 128)};
    ck_assert_int_eq(et_run(e, "flow_index", 1, 32, 1, 0, p, 2), EMU_OK);
    e->perturb = EMU_PERTURB_SHARED;
    ck_assert_int_eq(et_run(e, "flow_index", 1, 32, 1, 0, p, 2), EMU_FAULT);
    ck_assert_ptr_nonnull(strstr(e->res.why, "illegal memory access"));
    et_free(e);
}
END_TEST

Suite *emu_flow_suite(void)
{
    Suite *s = suite_create("emu_flow");
    TCase *tc = tcase_create("flow");
    tcase_add_test(tc, test_perturbed_values);
    tcase_add_test(tc, test_shared_loads_changed);
    tcase_add_test(tc, test_shuffle_and_zero_product);
    tcase_add_test(tc, test_const_and_readonly_sources);
    tcase_add_test(tc, test_one_line);
    tcase_add_test(tc, test_atomic_old_value);
    tcase_add_test(tc, test_changed_index_faults);
    suite_add_tcase(s, tc);
    return s;
}
