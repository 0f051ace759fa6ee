/*
 * test_emu_async.c - what current CUDA code writes beyond plain loads and
 * stores (tests/kernels/async_ops.cu): cp.async of 4, 8 and 16 bytes with
 * its zero fill and its groups (bytes land when the lane waits, not when
 * it issues the copy), ldmatrix/stmatrix, shared atomics, and the records
 * each leaves for the analysis.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "emu_testlib.h"

static void fill(int *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = i * 7 + 3;
}

START_TEST(test_async_copy)
{
    et *e = et_load("async_ops");
    int in[512], out[192];
    fill(in, 512);
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "async_copy", 1, 64, 1, 0, p, 2), EMU_OK);
    et_get(e, out, p[1], sizeof out);
    for (int t = 0; t < 64; t++) {
        int r = 63 - t;
        ck_assert_int_eq(out[t], in[4 * r] + in[4 * r + 1] + in[4 * r + 2] + in[4 * r + 3]);
        ck_assert_int_eq(out[64 + t], in[256 + 2 * r] - in[256 + 2 * r + 1]);
        ck_assert_int_eq(out[128 + t], in[384 + r]);
    }
    /* each copy: a shared store of its width (async) and a global load of the same width */
    int async_stores = 0, widths = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *r = &e->rec.shared[i];
        if ((r->flags & EMU_REC_ASYNC) && (r->flags & EMU_REC_WRITE)) {
            async_stores++;
            widths |= r->width;
            ck_assert_uint_eq(r->active, 0xffffffffu);
        }
    }
    ck_assert_int_eq(async_stores, 3 * 2); /* three copies, two warps */
    ck_assert_int_eq(widths, 4 | 8 | 16);
    int async_loads = 0;
    for (size_t i = 0; i < e->rec.n_global; i++)
        async_loads += (e->rec.global[i].flags & EMU_REC_ASYNC) && (e->rec.global[i].flags & EMU_REC_READ);
    ck_assert_int_eq(async_loads, 3 * 2);
    et_free(e);
}
END_TEST

START_TEST(test_async_groups)
{
    et *e = et_load("async_ops");
    int in[256], out[96];
    fill(in, 256);
    uint64_t p[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "async_groups", 1, 32, 1, 0, p, 2), EMU_OK);
    et_get(e, out, p[1], sizeof out);
    for (int t = 0; t < 32; t++) {
        ck_assert_int_eq(out[t], in[4 * t]);    /* 4 bytes read, 12 zero-filled */
        ck_assert_int_eq(out[32 + t], -2);      /* the newest group still in flight */
        ck_assert_int_eq(out[64 + t], in[4 * (t + 32) + 1]); /* landed at wait_all */
    }
    et_free(e);
}
END_TEST

START_TEST(test_matrices)
{
    et *e = et_load("async_ops");
    unsigned out[288];
    uint16_t m[256];
    for (int i = 0; i < 256; i++)
        m[i] = (uint16_t)(i * 3 + 1);
    uint64_t p[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "matrices", 1, 32, 1, 0, p, 1), EMU_OK);
    et_get(e, out, p[0], sizeof out);
    for (int l = 0; l < 32; l++) {
        for (int k = 0; k < 4; k++) {
            int at = (8 * k + l / 4) * 8 + 2 * (l % 4);
            ck_assert_uint_eq(out[32 * k + l], (unsigned)m[at] | (unsigned)m[at + 1] << 16);
        }
        int c = l / 4, r = 2 * (l % 4); /* .trans: column l / 4, rows r and r + 1 */
        ck_assert_uint_eq(out[128 + l], (unsigned)m[r * 8 + c] | (unsigned)m[(r + 1) * 8 + c] << 16);
    }
    for (int i = 0; i < 128; i++) /* stmatrix put the two matrices back where they were */
        ck_assert_uint_eq(out[160 + i], m[i]);
    /* one 16-byte record a row a matrix: x4 32 lanes, x1 8 */
    int x4 = 0, x1 = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *r = &e->rec.shared[i];
        if (!(r->flags & EMU_REC_MATRIX) || !(r->flags & EMU_REC_READ))
            continue;
        ck_assert_int_eq(r->width, 16);
        x4 += r->active == 0xffffffffu;
        x1 += r->active == 0xffu;
    }
    ck_assert_int_eq(x4, 1);
    ck_assert_int_eq(x1, 1);
    et_free(e);
}
END_TEST

START_TEST(test_shared_atomics)
{
    et *e = et_load("async_ops");
    int out[33];
    uint64_t p[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "smem_atomics", 1, 64, 1, 0, p, 1), EMU_OK);
    et_get(e, out, p[0], sizeof out);
    for (int b = 0; b < 32; b++)
        ck_assert_int_eq(out[b], b < 8 ? 8 : b == 30 ? 63 : 0);
    ck_assert_int_eq(out[32], 63 * 64 / 2);
    /* atomics are recorded as reads and writes at once */
    uint16_t flags = 0;
    int width = 0, atomics = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *r = &e->rec.shared[i];
        if ((r->flags & EMU_REC_READ) && (r->flags & EMU_REC_WRITE)) {
            atomics++;
            flags = r->flags;
            width = r->width;
        }
    }
    ck_assert_int_eq(atomics, 3 * 2);
    ck_assert_int_eq(width, 4);
    ck_assert_int_eq(flags & (EMU_REC_ASYNC | EMU_REC_MATRIX), 0);
    et_free(e);
}
END_TEST

Suite *emu_async_suite(void)
{
    Suite *s = suite_create("emu_async");
    TCase *tc = tcase_create("emu_async");
    tcase_add_test(tc, test_async_copy);
    tcase_add_test(tc, test_async_groups);
    tcase_add_test(tc, test_matrices);
    tcase_add_test(tc, test_shared_atomics);
    suite_add_tcase(s, tc);
    return s;
}
