/* test_measure.c - choosing the measurement backend (--measure) and loading the trace library. */
#define _POSIX_C_SOURCE 200809L
#include "base/grade_options.h"
#include "measure/emulator/emu_device.h"
#include "measure/emulator/nc_written.h"
#include "measure/access/trace.h"
#include "measure/measure.h"
#include "measure/trace/measure_trace.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A backend whose open answers what the test says, and that counts opens and closes. */
typedef struct fake {
    measure_status answer;
    const char *why;
    int opens, closes;
} fake;

static measure_status fake_open(measure_backend *self, char *why, size_t n)
{
    fake *f = self->state;
    f->opens++;
    snprintf(why, n, "%s", f->why);
    return f->answer;
}

static void fake_close(measure_backend *self)
{
    ((fake *)self->state)->closes++;
}

static measure_backend backend(const char *name, fake *f)
{
    return (measure_backend){name, fake_open, NULL, fake_close, f, NULL, 0};
}

START_TEST(test_auto_prefers_trace)
{
    fake c = {MEASURE_OK, "", 0, 0}, t = {MEASURE_OK, "", 0, 0};
    measure_backend cb = backend("cupti", &c), tb = backend("trace", &t);
    measure_status st;
    char line[512];
    ck_assert_ptr_eq(measure_choose(MEASURE_MODE_AUTO, &cb, &tb, NULL, &st, line, sizeof line), &tb);
    ck_assert_int_eq(st, MEASURE_OK);
    ck_assert_str_eq(line, "trace (Compute Sanitizer): it sees widths, lines and races");
    /* CUPTI refuses to start beside the Compute Sanitizer: never opened */
    ck_assert_int_eq(c.opens, 0);
    ck_assert_int_eq(t.opens, 1);
    ck_assert_int_eq(t.closes, 0);
}
END_TEST

START_TEST(test_auto_falls_back_to_counters)
{
    fake c = {MEASURE_OK, "", 0, 0}, t = {MEASURE_UNSUPPORTED, "sanitizerSubscribe: not initialized", 0, 0};
    measure_backend cb = backend("cupti", &c), tb = backend("trace", &t);
    measure_status st;
    char line[512];
    ck_assert_ptr_eq(measure_choose(MEASURE_MODE_AUTO, &cb, &tb, NULL, &st, line, sizeof line), &cb);
    ck_assert_int_eq(st, MEASURE_OK);
    ck_assert_str_eq(line, "counters (CUPTI), without the trace: sanitizerSubscribe: not initialized");
    ck_assert_int_eq(c.closes, 0);

    /* no trace library at all */
    ck_assert_ptr_eq(measure_choose(MEASURE_MODE_AUTO, &cb, NULL, "libsmemlab-trace.so is missing",
                                    &st, line, sizeof line), &cb);
    ck_assert_str_eq(line, "counters (CUPTI), without the trace: libsmemlab-trace.so is missing");
}
END_TEST

START_TEST(test_auto_without_trace)
{
    fake c = {MEASURE_NOT_PERMITTED, "ERR_NVGPUCTRPERM", 0, 0};
    measure_backend cb = backend("cupti", &c);
    measure_status st;
    char line[512];
    ck_assert_ptr_null(measure_choose(MEASURE_MODE_AUTO, &cb, NULL, "libsmemlab-trace.so is missing",
                                      &st, line, sizeof line));
    ck_assert_int_eq(st, MEASURE_NOT_PERMITTED);
    ck_assert_str_eq(line, "not measured: trace: libsmemlab-trace.so is missing; counters: "
                           "ERR_NVGPUCTRPERM");
    ck_assert_int_eq(c.closes, 1);
}
END_TEST

START_TEST(test_forced_modes)
{
    fake c = {MEASURE_OK, "", 0, 0}, t = {MEASURE_ERROR, "sanitizerSubscribe failed", 0, 0};
    measure_backend cb = backend("cupti", &c), tb = backend("trace", &t);
    measure_status st;
    char line[512];
    ck_assert_ptr_eq(measure_choose(MEASURE_MODE_COUNTERS, &cb, &tb, NULL, &st, line, sizeof line), &cb);
    ck_assert_str_eq(line, "counters (CUPTI), as --measure counters asks");
    ck_assert_int_eq(t.opens, 0); /* never touched */

    ck_assert_ptr_null(measure_choose(MEASURE_MODE_TRACE, &cb, &tb, NULL, &st, line, sizeof line));
    ck_assert_int_eq(st, MEASURE_ERROR);
    ck_assert_str_eq(line, "not measured: --measure trace, but sanitizerSubscribe failed");
    ck_assert_int_eq(c.opens, 1); /* the counters were not tried for --measure trace */

    t.answer = MEASURE_OK;
    ck_assert_ptr_eq(measure_choose(MEASURE_MODE_TRACE, &cb, &tb, NULL, &st, line, sizeof line), &tb);
    ck_assert_str_eq(line, "trace (Compute Sanitizer), as --measure trace asks");

    c.answer = MEASURE_NOT_PERMITTED;
    c.why = "ERR_NVGPUCTRPERM";
    ck_assert_ptr_null(measure_choose(MEASURE_MODE_COUNTERS, &cb, &tb, NULL, &st, line, sizeof line));
    ck_assert_int_eq(st, MEASURE_NOT_PERMITTED);
    ck_assert_str_eq(line, "not measured: --measure counters, but ERR_NVGPUCTRPERM");
}
END_TEST

START_TEST(test_mode_names)
{
    measure_mode m;
    ck_assert_int_eq(measure_mode_parse("trace", &m), 0);
    ck_assert_int_eq(m, MEASURE_MODE_TRACE);
    ck_assert_str_eq(measure_mode_name(MEASURE_MODE_COUNTERS), "counters");
    ck_assert_int_eq(measure_mode_parse("Trace", &m), -1);
    ck_assert_int_eq(measure_mode_parse(NULL, &m), -1);
}
END_TEST

START_TEST(test_trace_library_missing)
{
    char why[512] = "", path[256];
    setenv(TRACE_LIB_ENV, "/nonexistent/libsmemlab-trace.so", 1);
    ck_assert_str_eq(measure_trace_lib_path(path, sizeof path), "/nonexistent/libsmemlab-trace.so");
    ck_assert_ptr_null(measure_trace_backend(why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "the trace backend is not built "
                                      "(/nonexistent/libsmemlab-trace.so is missing)"));
    ck_assert_ptr_nonnull(strstr(why, "compute-sanitizer/include"));
    ck_assert_ptr_null(measure_trace_last(NULL, NULL));

    /* a file that is no library: the loader says so */
    FILE *f = fopen("build/tests/not-a-library.so", "w");
    ck_assert_ptr_nonnull(f);
    fputs("not ELF\n", f);
    fclose(f);
    setenv(TRACE_LIB_ENV, "build/tests/not-a-library.so", 1);
    ck_assert_ptr_null(measure_trace_backend(why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "cannot load the trace backend build/tests/not-a-library.so"));
    unsetenv(TRACE_LIB_ENV);
    ck_assert_ptr_nonnull(strstr(measure_trace_lib_path(path, sizeof path), "/" TRACE_LIB_NAME));
}
END_TEST

START_TEST(test_measure_clear)
{
    measurement m;
    memset(&m, 0xff, sizeof m);
    measure_clear(&m);
    for (int i = 0; i < METRIC_COUNT; i++)
        ck_assert_double_eq(m.value[i], 0.0);
    ck_assert_double_eq(m.ideal_ld, 0.0);
    ck_assert_double_eq(m.ideal_st, 0.0);
    ck_assert_uint_eq(m.ideal_set, 0);
}
END_TEST

/* The emulator's instruction budget follows --timeout: 2^28 warp instructions at the
   default 10 s, in proportion to any other limit (a shorter limit ends an endless
   kernel sooner; check-emulated grades the hanging variants under 2 s). */
START_TEST(test_emulator_budget_follows_timeout)
{
    emu_device_time_limit(GRADE_DEFAULT_TIMEOUT_S);
    ck_assert_uint_eq(emu_device_budget(), EMU_DEFAULT_BUDGET);
    emu_device_time_limit(2.0);
    ck_assert_uint_eq(emu_device_budget(), 53687091); /* 2^28 / 5 */
    emu_device_time_limit(30.0);
    ck_assert_uint_eq(emu_device_budget(), 3 * EMU_DEFAULT_BUDGET);
    emu_device_time_limit(1e-9); /* never none */
    ck_assert_uint_eq(emu_device_budget(), 1);
    emu_device_time_limit(GRADE_DEFAULT_TIMEOUT_S);
}
END_TEST

/* The counters read global atomics (ATOMG) and reductions (RED) apart; folded, both are
   the global atomics every backend counts, and the reductions' own slot is left 0. */
START_TEST(test_fold_global_reductions_into_atomics)
{
    measurement m;
    measure_clear(&m);
    m.value[METRIC_GLOBAL_ST_REQUESTS] = 4097;
    m.value[METRIC_GLOBAL_ATOM_REQUESTS] = 3;
    m.value[METRIC_GLOBAL_RED_REQUESTS] = 32769;
    measure_fold_counters(&m);
    ck_assert(m.value[METRIC_GLOBAL_ATOM_REQUESTS] == 32772.0);
    ck_assert(m.value[METRIC_GLOBAL_RED_REQUESTS] == 0.0);
    ck_assert(m.value[METRIC_GLOBAL_ST_REQUESTS] == 4097.0); /* no store among them */
    ck_assert_str_eq(metric_name(METRIC_GLOBAL_RED_REQUESTS),
                     "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
    ck_assert_str_eq(metric_name(METRIC_GLOBAL_ATOM_REQUESTS),
                     "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum");
}
END_TEST

/* One lane's access, as the emulator's meter hands nc_written one. */
static trace_oob lane_access(uint64_t pc, uint64_t addr, uint32_t width, int op)
{
    trace_oob a;
    memset(&a, 0, sizeof a);
    a.pc = pc, a.addr = addr, a.width = width, a.op = op, a.lane = 3, a.warp = 1, a.block = 2;
    return a;
}

/*
 * Words read through the read-only cache and written in one launch (nc_written.h): a word
 * both, whichever came first, is found once, its first load and write kept; a wide access
 * covers every word it touches; another launch's write, a plain load's, or one beside the
 * word is none.
 */
START_TEST(test_nc_written_words)
{
    nc_written *w = nc_written_new();
    ck_assert_ptr_nonnull(w);
    trace_oob ld = lane_access(0x100, 0x1000, 4, TRACE_OP_LOAD);
    trace_oob st = lane_access(0x200, 0x1004, 4, TRACE_OP_STORE);
    ck_assert_int_eq(nc_written_add(w, 0, &ld), 0);
    ck_assert_int_eq(nc_written_add(w, 0, &st), 0); /* the word beside */
    ck_assert_int_eq(nc_written_add(w, 1, &(trace_oob){.pc = 0x300, .addr = 0x1000, .width = 4,
                                                        .op = TRACE_OP_STORE}), 0); /* launch 1 */
    ck_assert_int_eq(nc_written_count(w), 0);
    ck_assert_ptr_null(nc_written_load(w));
    trace_oob at = lane_access(0x280, 0x1000, 4, TRACE_OP_ATOMIC); /* written after its load */
    ck_assert_int_eq(nc_written_add(w, 0, &at), 1);
    ck_assert_int_eq(nc_written_add(w, 0, &at), 0); /* that word is found once */
    ck_assert_int_eq(nc_written_count(w), 1);
    ck_assert_uint_eq(nc_written_load(w)->pc, 0x100);
    ck_assert_uint_eq(nc_written_write(w)->pc, 0x280);
    ck_assert_int_eq(nc_written_write(w)->op, TRACE_OP_ATOMIC);
    ck_assert_uint_eq(nc_written_write(w)->lane, 3);
    /* a 16-byte nc load over 0x1004 (written before it) and two words no one wrote */
    trace_oob wide = lane_access(0x140, 0x1004, 16, TRACE_OP_LOAD);
    ck_assert_int_eq(nc_written_add(w, 0, &wide), 1);
    ck_assert_int_eq(nc_written_count(w), 2);
    ck_assert_uint_eq(nc_written_load(w)->pc, 0x100); /* the first stays the first */
    for (int i = 0; i < 20000; i++) { /* many words: the set grows */
        trace_oob x = lane_access(0x400, 0x100000 + 4u * (uint64_t)i, 4,
                                  i % 2 ? TRACE_OP_STORE : TRACE_OP_LOAD);
        ck_assert_int_ge(nc_written_add(w, 0, &x), 0);
    }
    ck_assert_int_eq(nc_written_count(w), 2);
    nc_written_free(w);
    ck_assert_int_eq(nc_written_count(NULL), 0);
}
END_TEST

Suite *measure_suite(void)
{
    Suite *s = suite_create("measure");
    TCase *tc = tcase_create("measure");
    tcase_add_test(tc, test_auto_prefers_trace);
    tcase_add_test(tc, test_auto_falls_back_to_counters);
    tcase_add_test(tc, test_auto_without_trace);
    tcase_add_test(tc, test_forced_modes);
    tcase_add_test(tc, test_mode_names);
    tcase_add_test(tc, test_trace_library_missing);
    tcase_add_test(tc, test_measure_clear);
    tcase_add_test(tc, test_emulator_budget_follows_timeout);
    tcase_add_test(tc, test_nc_written_words);
    tcase_add_test(tc, test_fold_global_reductions_into_atomics);
    suite_add_tcase(s, tc);
    return s;
}
