/*
 * test_stencil.c - what lab 10 rests on: the lookup's keys, reference and the
 * constant cache's model of it, the lab table's checks and the launchers'
 * calls (the read-only steps take their data as an argument, buffer 2).
 */
#include "labs/calls.h"
#include "labs/lab_table.h"
#include "lookup_ref.h"

#include <check.h>
#include <string.h>

extern const lab_def lab10_def;

START_TEST(test_keys_and_reference)
{
    int32_t keys[1000], again[1000];
    float table[256], out[1000];
    lookup_keys(keys, 1000, 256, 42);
    lookup_keys(again, 1000, 256, 42);
    ck_assert_mem_eq(keys, again, sizeof keys); /* a seed reproduces its keys */
    int seen[256] = {0}, kinds = 0;
    for (int i = 0; i < 1000; i++) {
        ck_assert(keys[i] >= 0 && keys[i] < 256);
        kinds += !seen[keys[i]]++;
    }
    ck_assert_int_gt(kinds, 200); /* spread over the table, not a few entries */
    for (int i = 0; i < 256; i++)
        table[i] = (float)(3 * i);
    ref_lookup(keys, table, out, 1000);
    for (int i = 0; i < 1000; i++)
        ck_assert_float_eq(out[i], (float)(3 * keys[i]));
}
END_TEST

/* Distinct keys a group of 32: the passes the constant cache makes for a warp. */
START_TEST(test_lookup_model)
{
    int32_t same[64], all[32], k[40];
    for (int i = 0; i < 64; i++)
        same[i] = 7;
    ck_assert_double_eq(lookup_distinct_per_warp(same, 64), 1.0); /* broadcasts */
    for (int i = 0; i < 32; i++)
        all[i] = i;
    ck_assert_double_eq(lookup_distinct_per_warp(all, 32), 32.0);
    for (int i = 0; i < 40; i++)
        k[i] = i < 32 ? i % 4 : i; /* 4 distinct, then a last group of 8 distinct */
    ck_assert_double_eq(lookup_distinct_per_warp(k, 40), 6.0);
    ck_assert_double_eq(lookup_distinct_per_warp(k, 0), 0.0);
    /* random keys of 256: about 256 (1 - (255/256)^32) = 30.2 a warp */
    static int32_t r[32 * 1024];
    lookup_keys(r, 32 * 1024, 256, 7);
    double d = lookup_distinct_per_warp(r, 32 * 1024);
    ck_assert_msg(d > 29.8 && d < 30.6, "random keys: %.2f distinct a warp", d);
}
END_TEST

static const lab_kernel *kernel(const char *name)
{
    for (int i = 0; i < lab10_def.n_kernels; i++)
        if (strcmp(lab10_def.kernels[i].name, name) == 0)
            return &lab10_def.kernels[i];
    return NULL;
}

static int has_check(const lab_kernel *k, const char *id)
{
    kernel_check c[KERNEL_MAX_CHECKS];
    int n = kernel_checks(&lab10_def, k, c);
    for (int i = 0; i < n; i++)
        if (strcmp(check_name(c[i].id), id) == 0)
            return c[i].points > 0;
    return 0;
}

START_TEST(test_table_checks)
{
    const lab_kernel *c1 = kernel("stencil1DConst"), *r2 = kernel("stencil1DReadOnly");
    const lab_kernel *c3 = kernel("lookupConst"), *r4 = kernel("lookupReadOnly");
    ck_assert(c1 && r2 && c3 && r4);
    ck_assert(c1->path == MEM_PATH_CONSTANT && c3->path == MEM_PATH_CONSTANT);
    ck_assert(r2->path == MEM_PATH_READONLY && r4->path == MEM_PATH_READONLY);
    kernel_check all[KERNEL_MAX_CHECKS];
    ck_assert_int_eq(kernel_checks(&lab10_def, c1, all), 7); /* every check a kernel can have */
    for (int i = 0; i < lab10_def.n_kernels; i++)
        ck_assert(has_check(&lab10_def.kernels[i], "memory-path"));
    ck_assert(has_check(c1, "const-serialization") && has_check(c3, "const-serialization"));
    ck_assert(has_check(r4, "const-serialization")); /* the planted table in constant memory */
    ck_assert(has_check(c1, "global-loads") && has_check(r2, "global-loads")); /* the halo */
    ck_assert(!has_check(c3, "speed")); /* the slow form is measured, not timed */
    ck_assert(c1->mask_symbol && !strcmp(c1->mask_symbol, "c_coef"));
    ck_assert(c3->mask_symbol && !strcmp(c3->mask_symbol, "c_table"));
    ck_assert_int_eq(lab_param_value(&lab10_def, "RADIUS"), 4);
}
END_TEST

START_TEST(test_calls)
{
    static call_spec c[CALL_MAX];
    int n = lab_calls(&lab10_def, kernel("stencil1DReadOnly"), c);
    ck_assert_int_gt(n, 3);
    int speed = calls_find(c, n, CALL_SPEED, 0), emu = calls_find(c, n, CALL_TRAFFIC, 1);
    ck_assert(speed >= 0 && emu >= 0 && !call_runs_on(&c[speed], 1));
    for (int i = 0; i < n; i++) { /* launch(in, coef, out, n) */
        ck_assert_int_eq(c[i].n_args, 4);
        ck_assert_int_eq(c[i].args[1].buffer, 2);
        ck_assert_uint_eq(c[i].buffer_bytes[2], 9 * sizeof(float));
        ck_assert_int_eq(c[i].args[3].value, c[i].width);
    }
    n = lab_calls(&lab10_def, kernel("lookupConst"), c); /* launch(keys, out, n) */
    ck_assert_int_eq(c[0].n_args, 3);
    ck_assert_int_eq(c[0].n_buffers, 2);
    n = lab_calls(&lab10_def, kernel("lookupReadOnly"), c);
    ck_assert_uint_eq(c[0].buffer_bytes[2], 256 * sizeof(float));
}
END_TEST

Suite *stencil_suite(void)
{
    Suite *s = suite_create("stencil");
    TCase *tc = tcase_create("stencil");
    tcase_add_test(tc, test_keys_and_reference);
    tcase_add_test(tc, test_lookup_model);
    tcase_add_test(tc, test_table_checks);
    tcase_add_test(tc, test_calls);
    suite_add_tcase(s, tc);
    return s;
}
