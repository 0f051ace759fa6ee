/*
 * test_lab_decls.c - what the grader reads from a lab's PTX without running it:
 * the instructions no GPU backend measures (grader/ptx/tests/kernels/bulk_ops.cu), in a
 * kernel or in a function it calls, named with the student's line; and the
 * emulator's own refusal of the same instruction.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/tests/unit/emu_testlib.h"
#include "measure/emulator/lab_decls.h"

static lab_decls *decls_of(const char *kernels)
{
    char path[512], why[256];
    size_t len;
    snprintf(path, sizeof path, "%s/%s.ptx", et_ptx_dir(), kernels);
    char *text = et_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s (make check-unit builds it)", path);
    lab_decls *d = lab_decls_from_ptx(text, len, why, sizeof why);
    ck_assert_msg(d != NULL, "%s", why);
    free(text);
    return d;
}

START_TEST(test_unmeasured_found)
{
    lab_decls *d = decls_of("bulk_ops");
    char what[300];
    ck_assert_int_eq(lab_decls_unmeasured(d, "bulk_store", what, sizeof what), 1);
    ck_assert_str_eq(what, "`cp.async.bulk.global.shared::cta.bulk_group` (bulk_ops.cu:28)");
    ck_assert_int_eq(lab_decls_unmeasured(d, "bulk_reduce", what, sizeof what), 1);
    ck_assert_ptr_nonnull(strstr(what, "`cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32`"));
    /* through a call: the callee's line */
    ck_assert_int_eq(lab_decls_unmeasured(d, "bulk_through_call", what, sizeof what), 1);
    ck_assert_str_eq(what, "`cp.async.bulk.global.shared::cta.bulk_group` (bulk_ops.cu:14)");
    /* cp.async is measured; no such kernel is nothing found */
    ck_assert_int_eq(lab_decls_unmeasured(d, "plain_async", what, sizeof what), 0);
    ck_assert_int_eq(lab_decls_unmeasured(d, "no_such_kernel", what, sizeof what), 0);
    lab_decls_free(d);
}
END_TEST

/* An instruction a kernel has, by its opcode's prefix, with its own line: the shuffle's
   direction a wrong sum's hint names (problems/reduce.c). */
START_TEST(test_instr_found)
{
    lab_decls *d = decls_of("warp_ops");
    char where[64];
    ck_assert_int_eq(lab_decls_instr(d, "shuffles", "shfl.sync.up", where, sizeof where), 1);
    ck_assert_str_eq(where, "warp_ops.cu:12");
    ck_assert_int_eq(lab_decls_instr(d, "shuffles", "shfl.sync.bfly", where, sizeof where), 1);
    ck_assert_str_eq(where, "warp_ops.cu:14");
    /* a prefix is a whole part of the opcode: shfl.sync.u is no shfl.sync.up */
    ck_assert_int_eq(lab_decls_instr(d, "shuffles", "shfl.sync.u", where, sizeof where), 0);
    ck_assert_int_eq(lab_decls_instr(d, "votes", "shfl.sync", where, sizeof where), 0);
    ck_assert_str_eq(where, "");
    ck_assert_int_eq(lab_decls_instr(d, "no_such_kernel", "shfl.sync", where, sizeof where), 0);
    lab_decls_free(d);
}
END_TEST

/* The kernels that use the block's reserved shared memory (cooperative groups' tile of
   more than a warp), whose shared counts the hardware counters cannot tell from the
   toolkit's (problems/problem.c meter_cannot_see). */
START_TEST(test_reserved_smem_found)
{
    lab_decls *d = decls_of("reserved_ops");
    ck_assert_int_eq(lab_decls_reserved_smem(d, "reserved_regs"), 1);
    ck_assert_int_eq(lab_decls_reserved_smem(d, "cg_tile64"), 1);
    ck_assert_int_eq(lab_decls_reserved_smem(d, "past_then_spin"), 0);
    ck_assert_int_eq(lab_decls_reserved_smem(d, "no_such_kernel"), 0);
    lab_decls_free(d);
    d = decls_of("warp_ops"); /* warp tiles: no reserved memory */
    ck_assert_int_eq(lab_decls_reserved_smem(d, "shuffles"), 0);
    lab_decls_free(d);
}
END_TEST

/* A shared array named as the source names it, in a bounds message. */
START_TEST(test_source_name)
{
    char out[64];
    lab_decls_source_name("_ZZ10reduceSmemPKiPiiE4smem", out, sizeof out);
    ck_assert_str_eq(out, "smem");
    lab_decls_source_name("_ZZ20block_sum_to_partialiPiE9warp_sums", out, sizeof out);
    ck_assert_str_eq(out, "warp_sums");
    lab_decls_source_name("_ZZ14transpose_tileILi2EEvPKfPfiiE4tile", out, sizeof out);
    ck_assert_str_eq(out, "tile");
    lab_decls_source_name("_ZZ6kernelvE5tile2", out, sizeof out); /* a digit ends the name */
    ck_assert_str_eq(out, "tile2");
    lab_decls_source_name("_ZZ6kernelvE4tile_0", out, sizeof out); /* a discriminator */
    ck_assert_str_eq(out, "tile");
    lab_decls_source_name("_ZZ6kernelvE4tile__12_", out, sizeof out);
    ck_assert_str_eq(out, "tile");
    lab_decls_source_name("dsmem", out, sizeof out); /* extern "C", not mangled */
    ck_assert_str_eq(out, "dsmem");
    lab_decls_source_name("_Z7garbage", out, sizeof out); /* nothing to read: itself */
    ck_assert_str_eq(out, "garbage");
}
END_TEST

START_TEST(test_emulator_refuses_bulk)
{
    et *e = et_load("bulk_ops");
    uint64_t p[1] = {et_buf(e, NULL, 128)};
    ck_assert_int_eq(et_run(e, "bulk_store", 1, 32, 1, 0, p, 1), EMU_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(e->res.why, "cp.async.bulk"));
    ck_assert_int_eq(e->res.line, 28);
    et_free(e);
}
END_TEST

Suite *lab_decls_suite(void)
{
    Suite *s = suite_create("lab_decls");
    TCase *tc = tcase_create("lab_decls");
    tcase_add_test(tc, test_unmeasured_found);
    tcase_add_test(tc, test_instr_found);
    tcase_add_test(tc, test_reserved_smem_found);
    tcase_add_test(tc, test_source_name);
    tcase_add_test(tc, test_emulator_refuses_bulk);
    suite_add_tcase(s, tc);
    return s;
}
