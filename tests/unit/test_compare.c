/* test_compare.c - measured counters against the bank model (grader/compare/compare.c). */
#include "compare/bounds.h"
#include "compare/compare.h"
#include "compare/inputs.h"
#include "problems/traffic.h"

#include <check.h>
#include <string.h>

#define STORE_CODE "tile[threadIdx.x][threadIdx.y] = idx"
#define LOAD_CODE "out[idx] = tile[threadIdx.x][threadIdx.y]"

static smem_side store_side(void)
{
    smem_side s = SIDE_STORE;
    s.code = STORE_CODE;
    return s;
}

static smem_side load_side(void)
{
    smem_side s = SIDE_LOAD;
    s.code = LOAD_CODE;
    return s;
}

/* Counters of one side as the hardware backend reports them. */
static measurement counters(const smem_side *side, double requests, double wavefronts,
                            double conflicts)
{
    measurement m;
    for (int i = 0; i < METRIC_COUNT; i++)
        m.value[i] = -1.0; /* the other side's counters must not matter */
    m.ideal_ld = m.ideal_st = 0.0; /* counters do not know the access width */
    m.ideal_set = 0;
    m.value[side->requests] = requests;
    m.value[side->wavefronts] = wavefronts;
    m.value[side->conflicts] = conflicts;
    return m;
}

static check_result fresh(const char *id)
{
    check_result c;
    check_init(&c, "lab1", "setRowReadCol", id, 1.0);
    return c;
}

START_TEST(test_degree_text)
{
    char buf[48];
    ck_assert_str_eq(degree_text(1.0, buf, sizeof buf), "conflict-free");
    ck_assert_str_eq(degree_text(1.004, buf, sizeof buf), "conflict-free");
    ck_assert_str_eq(degree_text(0.0, buf, sizeof buf), "conflict-free");
    ck_assert_str_eq(degree_text(32.0, buf, sizeof buf), "32-way conflict");
    ck_assert_str_eq(degree_text(2.0, buf, sizeof buf), "2-way conflict");
    ck_assert_str_eq(degree_text(16.0, buf, sizeof buf), "16-way conflict");
    ck_assert_str_eq(degree_text(1.07, buf, sizeof buf), "1.07-way conflict");
    ck_assert_str_eq(degree_text(2.5, buf, sizeof buf), "2.50-way conflict");
    /* counters a hair off an integer still read as that integer */
    ck_assert_str_eq(degree_text(2.02, buf, sizeof buf), "2-way conflict");
    ck_assert_str_eq(degree_text(31.97, buf, sizeof buf), "32-way conflict");
    /* returns its buffer and truncates safely */
    ck_assert_ptr_eq(degree_text(32.0, buf, sizeof buf), buf);
    char small[5];
    memset(small, 'x', sizeof small);
    degree_text(1.0, small, sizeof small);
    ck_assert_str_eq(small, "conf");
}
END_TEST

/*
 * A degree just above 1 (a few extra wavefronts) must not be called a
 * "1-way conflict": that is no conflict at all, and the words contradict the
 * "(expected conflict-free)" next to them. Either "conflict-free" or the
 * number with decimals is fine.
 */
START_TEST(test_degree_text_near_one)
{
    char buf[48];
    static const double near_one[] = {1.006, 1.02, 1.04, 1.049};
    for (size_t i = 0; i < sizeof near_one / sizeof near_one[0]; i++) {
        degree_text(near_one[i], buf, sizeof buf);
        ck_assert_msg(strcmp(buf, "1-way conflict") != 0,
                      "degree_text(%.3f) says \"%s\": expected \"conflict-free\" or "
                      "\"%.2f-way conflict\"", near_one[i], buf, near_one[i]);
    }
}
END_TEST

START_TEST(test_measured_degree)
{
    smem_side ld = load_side(), st = store_side();
    measurement m = counters(&ld, 32, 64, 32);
    ck_assert_double_eq_tol(measured_degree(&m, &ld), 2.0, 1e-12);
    m = counters(&ld, 32, 1024, 992);
    ck_assert_double_eq_tol(measured_degree(&m, &ld), 32.0, 1e-12);
    m = counters(&st, 32, 32, 0);
    ck_assert_double_eq_tol(measured_degree(&m, &st), 1.0, 1e-12);
    m = counters(&st, 0, 0, 0);
    ck_assert_double_eq_tol(measured_degree(&m, &st), 0.0, 1e-12);
    m = counters(&st, 32, 32, 32); /* nonsense counters: no ideal left */
    ck_assert_double_eq_tol(measured_degree(&m, &st), 0.0, 1e-12);
}
END_TEST

START_TEST(test_conflicts_match)
{
    smem_side ld = load_side();
    smem_cost model = {.requests = 32, .wavefronts = 1024, .ideal = 32};
    measurement m = counters(&ld, 32, 1024, 992);
    check_result c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_double_eq_tol(c.points, 1.0, 1e-12);
    ck_assert_str_eq(c.message, "loads 32-way conflict (expected 32-way conflict)");
    ck_assert_str_eq(c.measured, "1024 wavefronts / 32 requests");
    ck_assert_str_eq(c.expected, "1024 wavefronts / 32 requests (32-way conflict)");
    ck_assert_str_eq(c.hint, "");

    smem_side st = store_side();
    smem_cost free_model = {.requests = 32, .wavefronts = 32, .ideal = 32};
    m = counters(&st, 32, 32, 0);
    c = fresh("store-conflicts");
    compare_conflicts(&c, &st, &m, &free_model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_str_eq(c.message, "stores conflict-free (expected conflict-free)");
}
END_TEST

START_TEST(test_conflicts_unexpected_conflict)
{
    smem_side ld = load_side();
    smem_cost model = {.requests = 32, .wavefronts = 32, .ideal = 32};
    measurement m = counters(&ld, 32, 64, 32);
    check_result c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model, DEGREE_TOLERANCE, "Your file sets IPAD = 0.");
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_double_eq_tol(c.max_points, 1.0, 1e-12);
    ck_assert_str_eq(c.message, "loads 2-way conflict (expected conflict-free)");
    ck_assert_str_eq(c.measured, "64 wavefronts / 32 requests");
    ck_assert_ptr_nonnull(strstr(c.hint, LOAD_CODE));
    ck_assert_ptr_nonnull(strstr(c.hint, "bank"));
    ck_assert_ptr_nonnull(strstr(c.hint, "Your file sets IPAD = 0."));

    /* without a pad note the hint ends at the sentence, no "(null)" */
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_ptr_null(strstr(c.hint, "(null)"));
    ck_assert_ptr_nonnull(strstr(c.hint, LOAD_CODE));
}
END_TEST

START_TEST(test_conflicts_missing_conflict)
{
    smem_side st = store_side();
    smem_cost model = {.requests = 32, .wavefronts = 1024, .ideal = 32};
    measurement m = counters(&st, 32, 32, 0);
    check_result c = fresh("store-conflicts");
    compare_conflicts(&c, &st, &m, &model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_str_eq(c.message, "stores conflict-free (expected 32-way conflict)");
    ck_assert_ptr_nonnull(strstr(c.hint, "on purpose"));
    ck_assert_ptr_nonnull(strstr(c.hint, STORE_CODE));
    ck_assert_ptr_nonnull(strstr(c.hint, "stores are conflict-free"));
}
END_TEST

START_TEST(test_conflicts_wrong_degree)
{
    smem_side ld = load_side();
    smem_cost model = {.requests = 32, .wavefronts = 1024, .ideal = 32};
    measurement m = counters(&ld, 32, 512, 480); /* 16-way */
    check_result c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "loads 16-way conflict (expected 32-way conflict)");
    ck_assert_ptr_nonnull(strstr(c.hint, "32-way"));
    ck_assert_ptr_nonnull(strstr(c.hint, "16.00-way"));
    ck_assert_ptr_nonnull(strstr(c.hint, LOAD_CODE));
}
END_TEST

/* Degree want = 2: 5% is 0.1 either way. */
static const struct { double waves, conflicts; int pass; } edges[] = {
    {209, 109, 1}, /* 2.09 */
    {211, 111, 0}, /* 2.11 */
    {191, 91, 1},  /* 1.91 */
    {189, 89, 0},  /* 1.89 */
    {200, 100, 1}, /* 2.00 */
    {300, 200, 0}, /* 3.00 */
};

START_TEST(test_conflicts_tolerance)
{
    smem_side ld = load_side();
    smem_cost model = {.requests = 16, .wavefronts = 32, .ideal = 16};
    /* one ideal wavefront per request, as the model says */
    measurement m = counters(&ld, edges[_i].waves - edges[_i].conflicts, edges[_i].waves,
                             edges[_i].conflicts);
    check_result c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model, DEGREE_TOLERANCE, NULL);
    ck_assert_msg(c.status == (edges[_i].pass ? CHECK_PASS : CHECK_FAIL),
                  "degree %.2f against 2: %s (%s)", edges[_i].waves / (edges[_i].waves -
                  edges[_i].conflicts), check_status_name(c.status), c.message);
    ck_assert_double_eq_tol(c.points, edges[_i].pass ? 1.0 : 0.0, 1e-12);
}
END_TEST

START_TEST(test_conflicts_tolerance_scales)
{
    smem_side ld = load_side();
    check_result c;
    /* 32-way: 4.7% over passes, 5.3% over fails */
    smem_cost model32 = {.requests = 32, .wavefronts = 1024, .ideal = 32};
    measurement m = counters(&ld, 32, 1072, 1040); /* 33.5 */
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model32, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_PASS);
    m = counters(&ld, 100, 3370, 3270); /* 33.7 */
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model32, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);

    /* conflict-free: 1.04 passes, 1.06 fails */
    smem_cost free_model = {.requests = 32, .wavefronts = 32, .ideal = 32};
    m = counters(&ld, 100, 104, 4);
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &free_model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_PASS);
    m = counters(&ld, 100, 106, 6);
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &free_model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "loads 1.06-way conflict (expected conflict-free)");

    /* the tolerance argument is the one used */
    smem_cost model2 = {.requests = 16, .wavefronts = 32, .ideal = 16};
    m = counters(&ld, 16, 209, 109);
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model2, 0.0, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    m = counters(&ld, 100, 300, 200);
    c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model2, 0.6, NULL);
    ck_assert_int_eq(c.status, CHECK_PASS);
}
END_TEST


/* A long long tile, row-wise both ways: 64 wavefronts / 32 requests on each
 * side. The hardware counts 32 load conflicts and 0 store conflicts; the
 * verdicts must agree with each other. */
START_TEST(test_64bit_rule_loads_and_stores_alike)
{
    smem_side ld = load_side(), st = store_side();
    smem_cost int_model = {.requests = 32, .wavefronts = 32, .ideal = 32}; /* 4-byte tile */
    measurement m = counters(&ld, 32, 64, 32);
    m.value[st.requests] = 32;
    m.value[st.wavefronts] = 64;
    m.value[st.conflicts] = 0;
    check_result cl = fresh("load-conflicts"), cs = fresh("store-conflicts");

    /* counters only: both sides against the model's ideal, alike */
    compare_conflicts(&cl, &ld, &m, &int_model, DEGREE_TOLERANCE, NULL);
    compare_conflicts(&cs, &st, &m, &int_model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(cl.status, cs.status);
    ck_assert_str_eq(cl.message, "loads 2-way conflict (expected conflict-free)");
    ck_assert_str_eq(cs.message, "stores 2-way conflict (expected conflict-free)");

    /* an ideal without the mark is garbage from a backend that never set one */
    m.ideal_ld = m.ideal_st = 64;
    ck_assert_double_eq_tol(measured_degree(&m, &ld), 2.0, 1e-12);

    /* the trace knows the width: 8-byte lanes need 2 wavefronts a warp, no conflict */
    m.ideal_set = MEASURE_IDEAL_SET;
    cl = fresh("load-conflicts");
    cs = fresh("store-conflicts");
    compare_conflicts(&cl, &ld, &m, &int_model, DEGREE_TOLERANCE, NULL);
    compare_conflicts(&cs, &st, &m, &int_model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(cl.status, CHECK_PASS);
    ck_assert_int_eq(cs.status, CHECK_PASS);
    ck_assert_str_eq(cl.message, "loads conflict-free (expected conflict-free)");
    ck_assert_str_eq(cs.message, "stores conflict-free (expected conflict-free)");
    ck_assert_double_eq_tol(measured_degree(&m, &ld), 1.0, 1e-12);

    /* above the wavefronts: a paired wide load (bank.h), conflict-free */
    m.ideal_ld = 65;
    ck_assert_double_eq_tol(measured_degree(&m, &ld), 1.0, 1e-12);
    /* an ideal that cannot be one (above twice the wavefronts) is not trusted */
    m.ideal_ld = 129;
    ck_assert_double_eq_tol(measured_degree(&m, &ld), 2.0, 1e-12);
}
END_TEST

START_TEST(test_conflicts_zero_wavefronts)
{
    smem_side ld = load_side(), st = store_side();
    smem_cost model = {.requests = 32, .wavefronts = 32, .ideal = 32};
    measurement m = counters(&ld, 0, 0, 0);
    check_result c = fresh("load-conflicts");
    compare_conflicts(&c, &ld, &m, &model, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_str_eq(c.message, "loads: no shared loads measured (expected conflict-free)");
    ck_assert_ptr_nonnull(strstr(c.hint, "read the tile"));
    ck_assert_ptr_nonnull(strstr(c.hint, LOAD_CODE));

    smem_cost model32 = {.requests = 32, .wavefronts = 1024, .ideal = 32};
    m = counters(&st, 32, 0, 0);
    c = fresh("store-conflicts");
    compare_conflicts(&c, &st, &m, &model32, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "stores: no shared stores measured (expected 32-way conflict)");
    ck_assert_ptr_nonnull(strstr(c.hint, "write the tile"));
}
END_TEST

START_TEST(test_requests)
{
    smem_side ld = load_side(), st = store_side();
    measurement m = counters(&ld, 32, 32, 0);
    check_result c = fresh("load-requests");
    compare_requests(&c, &ld, &m, 32);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_double_eq_tol(c.points, 1.0, 1e-12);
    ck_assert_str_eq(c.message, "loads: 32 shared requests");
    ck_assert_str_eq(c.measured, "32 shared loads");
    ck_assert_str_eq(c.expected, "32 (one per warp)");

    m = counters(&ld, 64, 64, 0);
    c = fresh("load-requests");
    compare_requests(&c, &ld, &m, 32);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_str_eq(c.message, "loads: 64 shared requests (expected 32)");
    ck_assert_ptr_nonnull(strstr(c.hint, "one shared load instruction"));
    ck_assert_ptr_nonnull(strstr(c.hint, LOAD_CODE));

    m = counters(&st, 16, 16, 0);
    c = fresh("store-requests");
    compare_requests(&c, &st, &m, 32);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "stores: 16 shared requests (expected 32)");
    ck_assert_ptr_nonnull(strstr(c.hint, "one shared store instruction"));
}
END_TEST

START_TEST(test_requests_zero)
{
    smem_side st = store_side();
    measurement m = counters(&st, 0, 0, 0);
    check_result c = fresh("store-requests");
    compare_requests(&c, &st, &m, 32);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "stores: 0 shared requests (expected 32)");
    ck_assert_ptr_nonnull(strstr(c.hint, "no shared stores"));
    ck_assert_ptr_nonnull(strstr(c.hint, "`" STORE_CODE "`"));
}
END_TEST

START_TEST(test_not_measured)
{
    check_result c = fresh("load-conflicts");
    c.points = 1.0; /* whatever came before, not-measured earns nothing */
    c.status = CHECK_PASS;
    compare_not_measured(&c, MEASURE_NOT_PERMITTED, "ERR_NVGPUCTRPERM");
    ck_assert_int_eq(c.status, CHECK_NOT_MEASURED);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_double_eq_tol(c.max_points, 1.0, 1e-12);
    ck_assert_str_eq(c.measured, "not measured");
    ck_assert_ptr_nonnull(strstr(c.message, "ERR_NVGPUCTRPERM"));
    ck_assert_ptr_nonnull(strstr(c.hint, "NVreg_RestrictProfilingToAdminUsers"));
    ck_assert_str_eq(check_status_name(c.status), "not-measured");

    c = fresh("store-conflicts");
    compare_not_measured(&c, MEASURE_UNSUPPORTED, "no CUPTI");
    ck_assert_int_eq(c.status, CHECK_NOT_MEASURED);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_ptr_nonnull(strstr(c.message, "no CUPTI"));
    ck_assert_ptr_null(strstr(c.hint, "NVreg_RestrictProfilingToAdminUsers"));
    ck_assert_str_ne(c.hint, "");
}
END_TEST

START_TEST(test_check_records)
{
    check_result c;
    memset(&c, 0x7f, sizeof c);
    check_init(&c, "lab4", "setRowReadColDynPad", "load-conflicts", 2.5);
    ck_assert_str_eq(c.lab, "lab4");
    ck_assert_str_eq(c.kernel, "setRowReadColDynPad");
    ck_assert_str_eq(c.check, "load-conflicts");
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    ck_assert_double_eq_tol(c.max_points, 2.5, 1e-12);
    ck_assert_str_eq(c.message, "");
    ck_assert_str_eq(c.hint, "");
    check_set(&c, CHECK_PASS, "all %d elements right", 512);
    ck_assert_double_eq_tol(c.points, 2.5, 1e-12);
    ck_assert_str_eq(c.message, "all 512 elements right");
    check_set(&c, CHECK_SKIPPED, "optional");
    ck_assert_double_eq_tol(c.points, 0.0, 1e-12);
    /* ids longer than their field are cut, never overflow */
    check_init(&c, "a-lab-id-longer-than-sixteen", "k", "c", 1);
    ck_assert_int_eq(strlen(c.lab), sizeof c.lab - 1);
    ck_assert_str_eq(check_status_name(CHECK_PASS), "pass");
    ck_assert_str_eq(check_status_name(CHECK_FAIL), "fail");
    ck_assert_str_eq(check_status_name(CHECK_SKIPPED), "skipped");
}
END_TEST

/* A failed launch: the caller's hint, the hang hint for a time-out (GPU or emulated),
   the emulator's own words whole for an instruction it does not run. */
START_TEST(test_fail_launch_words)
{
    check_result c;
    check_init(&c, "lab1", "setColReadCol", "correct", 4);
    ck_assert_int_eq(check_fail_launch(&c, "32x32", "an illegal memory access was "
                                       "encountered (cudaErrorIllegalAddress)", "Look at the index."), 0);
    ck_assert_str_eq(c.message, "CUDA error at 32x32: an illegal memory access was encountered "
                     "(cudaErrorIllegalAddress)");
    ck_assert_str_eq(c.hint, "Look at the index.");
    check_init(&c, "lab1", "setColReadCol", "correct", 4);
    ck_assert_int_eq(check_fail_launch(&c, NULL, "timed out: the launch ran past 268435456 warp "
                                       "instructions: an endless loop? (lab1.cu:88)", "Look at the index."), 0);
    ck_assert_str_eq(c.hint, CHECK_HINT_HANG);
    ck_assert_ptr_nonnull(strstr(c.message, "lab1.cu:88"));
    check_init(&c, "lab1", "setColReadCol", "correct", 4);
    ck_assert_int_eq(check_fail_launch(&c, "32x32", "not graded: the emulator does not support "
                                       "`add.f16` (lab1.cu:59)", "Look at the index."), 1);
    ck_assert_str_eq(c.message, "not graded: the emulator does not support `add.f16` (lab1.cu:59)");
    ck_assert_ptr_null(strstr(c.hint, "Look at the index"));
    /* an instrument's limit is its own status: no points, never FAIL */
    ck_assert_int_eq(c.status, CHECK_NOT_GRADED);
    ck_assert_double_eq_tol(c.points, 0, 1e-12);
    ck_assert_str_eq(check_status_name(c.status), "not-graded");
    ck_assert_str_eq(c.hint, CHECK_HINT_NOT_GRADED);
    /* the kernel's other checks take the same words */
    check_result rest;
    check_init(&rest, "lab1", "setColReadCol", "load-conflicts", 2);
    check_not_graded_like(&rest, &c);
    ck_assert_int_eq(rest.status, CHECK_NOT_GRADED);
    ck_assert_str_eq(rest.message, c.message);
    ck_assert_double_eq_tol(rest.points, 0, 1e-12);
    ck_assert_double_eq_tol(rest.max_points, 2, 1e-12);
}
END_TEST

/* A measurement an instrument could not make reads "not graded", any other
   environment failure "not measured"; neither is FAIL. */
START_TEST(test_not_measured_or_not_graded)
{
    check_result c;
    check_init(&c, "lab5", "matmulTiled", "global-loads", 2);
    compare_not_measured(&c, MEASURE_ERROR, "not graded: the emulator does not support "
                         "`cp.async.bulk` (lab5.cu:70)");
    ck_assert_int_eq(c.status, CHECK_NOT_GRADED);
    ck_assert_str_eq(c.message, "not graded: the emulator does not support `cp.async.bulk` "
                     "(lab5.cu:70)");
    check_init(&c, "lab5", "matmulTiled", "global-loads", 2);
    compare_not_measured(&c, MEASURE_ERROR, "the traced kernel failed: unspecified launch failure");
    ck_assert_int_eq(c.status, CHECK_NOT_MEASURED);
    check_init(&c, "lab5", "matmulTiled", "global-loads", 2);
    compare_not_measured(&c, MEASURE_WRONG_RESULT, "not graded: a student's words");
    ck_assert_int_eq(c.status, CHECK_FAIL); /* a wrong result is the kernel's, whatever its words */
}
END_TEST

/* Labs 5 and 6: global load instructions at the limit pass, one past it fails,
   and none at all is no pass (a kernel that loaded nothing computed nothing). */
START_TEST(test_global_loads_limit)
{
    static const struct { double got; int pass; } cases[] = {
        {9011, 1}, {1, 1}, {9012, 0}, {2 * 9011, 0}, {0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        measurement m;
        for (int k = 0; k < METRIC_COUNT; k++)
            m.value[k] = 0;
        m.value[METRIC_GLOBAL_LD_REQUESTS] = cases[i].got;
        check_result c = fresh("global-loads");
        check_global_loads(&c, &m, 9011, "naive model 131072 / TILE 16, +10%", "hint");
        ck_assert_msg(c.status == (cases[i].pass ? CHECK_PASS : CHECK_FAIL), "%g loads: %s",
                      cases[i].got, c.message);
        ck_assert_double_eq(c.points, cases[i].pass ? 1.0 : 0.0);
    }
}
END_TEST

/* Labs 5 and 6: shared loads and stores each within 1.25-way of conflict-free;
   either side past it fails the check, whatever the other side does. */
START_TEST(test_smem_near_free_limit)
{
    static const struct { double ld_waves, st_waves; int pass; } cases[] = {
        {100, 100, 1}, {125, 125, 1}, {130, 100, 0}, {100, 130, 0}, {200, 100, 0}, {100, 200, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        measurement m;
        for (int k = 0; k < METRIC_COUNT; k++)
            m.value[k] = 0;
        m.ideal_set = 0;
        m.value[METRIC_SHARED_LD_REQUESTS] = m.value[METRIC_SHARED_ST_REQUESTS] = 100;
        m.value[METRIC_SHARED_LD_WAVEFRONTS] = cases[i].ld_waves;
        m.value[METRIC_SHARED_LD_CONFLICTS] = cases[i].ld_waves - 100;
        m.value[METRIC_SHARED_ST_WAVEFRONTS] = cases[i].st_waves;
        m.value[METRIC_SHARED_ST_CONFLICTS] = cases[i].st_waves - 100;
        check_result c = fresh("smem-conflicts");
        check_smem_near_free(&c, &m, "hint");
        ck_assert_msg(c.status == (cases[i].pass ? CHECK_PASS : CHECK_FAIL),
                      "loads %g, stores %g wavefronts over 100: %s", cases[i].ld_waves,
                      cases[i].st_waves, c.message);
    }
}
END_TEST

/* Global sides: a measurement with the sectors of both, the others -1. */
static measurement global_counts(double ld_req, double ld_sec, double ld_ideal, double st_req,
                                 double st_sec, double st_ideal)
{
    measurement m;
    for (int i = 0; i < METRIC_COUNT; i++)
        m.value[i] = -1.0;
    m.value[METRIC_GLOBAL_LD_REQUESTS] = ld_req;
    m.value[METRIC_GLOBAL_LD_SECTORS] = ld_sec;
    m.value[METRIC_GLOBAL_LD_IDEAL] = ld_ideal;
    m.value[METRIC_GLOBAL_ST_REQUESTS] = st_req;
    m.value[METRIC_GLOBAL_ST_SECTORS] = st_sec;
    m.value[METRIC_GLOBAL_ST_IDEAL] = st_ideal;
    return m;
}

/* The naive transpose: rows read (a row starting mid-sector: 5 of 4 still passes),
   a column written (32 sectors a request fails, with the numbers). */
START_TEST(test_coalescing)
{
    measurement m = global_counts(100, 500, 400, 100, 3200, 400);
    check_result c = fresh("load-coalescing");
    compare_coalescing(&c, 0, &m, 0, NULL, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_str_eq(c.message, "loads coalesced: 5.00 sectors a request, ideal 4.00");
    c = fresh("store-coalescing");
    compare_coalescing(&c, 1, &m, 0, NULL, "out[x * ny + y]", 0);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "stores not coalesced: 32.00 sectors a request where 4.00 would "
                                "do (8.0x the ideal)");
    ck_assert_msg(strstr(c.hint, "out[x * ny + y] walks a column") != NULL, "%s", c.hint);
    /* the counters know no ideal: the exercise's model stands in */
    m = global_counts(100, 3200, 0, 100, 400, 0);
    c = fresh("load-coalescing");
    compare_coalescing(&c, 0, &m, 400, NULL, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    c = fresh("store-coalescing");
    compare_coalescing(&c, 1, &m, 400, NULL, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_PASS);
    /* just past the tolerance fails; no stores at all fails */
    m = global_counts(100, 601, 400, 0, 0, 0);
    c = fresh("load-coalescing");
    compare_coalescing(&c, 0, &m, 0, NULL, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    c = fresh("store-coalescing");
    compare_coalescing(&c, 1, &m, 0, NULL, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "the kernel made no global store: it must write the matrix");
}
END_TEST

/* With a trace: the failing side's lines, worst first, and its worst warp drawn. */
START_TEST(test_coalescing_lines)
{
    trace_summary s;
    memset(&s, 0, sizeof s);
    trace_record r;
    memset(&r, 0, sizeof r);
    r.active = 0xFFFFFFFFu;
    r.width = 4;
    r.flags = TRACE_WRITE | TRACE_GLOBAL;
    r.pc = 0x90;
    for (int i = 0; i < 32; i++)
        r.addr[i] = 0x10000 + 4096u * (uint32_t)i;
    ck_assert_int_eq(coalesce_add(&s.global, &r), 0);
    r.pc = 0x40;
    r.flags = TRACE_READ | TRACE_GLOBAL;
    for (int i = 0; i < 32; i++)
        r.addr[i] = 0x10000 + 4u * (uint32_t)i;
    ck_assert_int_eq(coalesce_add(&s.global, &r), 0);
    s.global.v[1].file = "/x/lab9.cu";
    s.global.v[1].line = 33;
    measurement m = global_counts(1, 4, 4, 1, 32, 4);
    check_result c = fresh("store-coalescing");
    compare_coalescing(&c, 1, &m, 0, &s, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_int_eq(c.n_lines, 1);
    char line[160];
    ck_assert_str_eq(check_line_text(&c.lines[0], line, sizeof line),
                     "lab9.cu:33  global store  32.00 sectors a request (32 sectors / 1 requests, ideal 4)");
    ck_assert_msg(strstr(c.bank_map, "your worst global store (lab9.cu:33), warp 0 of block 0, "
                                     "4-byte lanes: 32 sectors, ideal 4") != NULL, "%s", c.bank_map);
    /* the page's drawing: the warp's addresses (their low 32 bits), no bank geometry */
    ck_assert_uint_eq(c.lines[0].worst.active, 0xFFFFFFFFu);
    ck_assert_uint_eq(c.lines[0].worst.addr[31], 0x10000u + 4096u * 31u);
    ck_assert_int_eq(c.lines[0].worst.banks, 0);
    ck_assert(c.expect_store == 1.0); /* coalesced, where the step is no naive one */
    c = fresh("load-coalescing");
    compare_coalescing(&c, 0, &m, 0, &s, NULL, 0);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_str_eq(c.bank_map, ""); /* drawn only where it failed */
    ck_assert_str_eq(check_line_text(&c.lines[0], line, sizeof line),
                     "pc 0x40  global load  coalesced, 4.00 sectors a request (4 sectors / 1 requests, ideal 4)");
    coalesce_free(&s.global);
}
END_TEST

/*
 * A global access out of bounds (compare/bounds.h): correct fails with the line, the
 * array by its name, the element and how far past its end (or before its start),
 * whichever backend found it; none found leaves correct as it was.
 */
START_TEST(test_oob_fails_correct)
{
    trace_summary s;
    check_result c;
    memset(&s, 0, sizeof s);
    check_init(&c, "lab7", "reduceGmem", "correct", 3);
    check_set(&c, CHECK_PASS, "all 12 sizes right");
    ck_assert_int_eq(compare_oob(&c, &s), 0);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_int_eq(compare_oob(&c, NULL), 0);

    /* the chapter's reduceGmem at n = 1: in[128] of a 4-byte in */
    s.oob_count = 14;
    s.oob = (trace_oob){.pc = 0x90, .file = "/home/s/labs/lab7.cu", .line = 59,
                        .op = TRACE_OP_LOAD, .addr = 0x10000 + 512, .width = 4, .block = 0,
                        .warp = 0, .lane = 0, .base = 0x10000, .bytes = 4, .array = "in"};
    ck_assert_int_eq(compare_oob(&c, &s), 1);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "out of bounds: lab7.cu:59: a load by lane 0 of warp 0 of block 0 "
                                "reaches bytes 512 to 515 of in (an argument of 4 bytes), 512 bytes past "
                                "its end");
    ck_assert_ptr_nonnull(strstr(c.measured, "14 accesses"));
    ck_assert_ptr_nonnull(strstr(c.hint, "past the end of in, which holds 4 bytes (1 element "
                                         "of 4 bytes) at that size"));
    ck_assert_int_eq(c.n_lines, 1);
    ck_assert_str_eq(c.lines[0].file, "lab7.cu");
    ck_assert_int_eq(c.lines[0].line, 59);

    /* a store just past, by lane 5 of warp 2; an unaligned read; one before the start */
    char text[256];
    s.oob.op = TRACE_OP_STORE, s.oob.addr = 0x10000 + 4, s.oob.warp = 2, s.oob.lane = 5,
    s.oob.block = 7;
    snprintf(s.oob.array, sizeof s.oob.array, "partial");
    ck_assert_str_eq(compare_oob_text(&s.oob, text, sizeof text), "out of bounds: lab7.cu:59: "
                     "a store by lane 5 of warp 2 of block 7 reaches bytes 4 to 7 of partial (an "
                     "argument of 4 bytes), 4 bytes past its end");
    s.oob.op = TRACE_OP_LOAD, s.oob.addr = 0x10000 + 6;
    ck_assert_ptr_nonnull(strstr(compare_oob_text(&s.oob, text, sizeof text),
                                 "a load by lane 5 of warp 2 of block 7 reaches bytes 6 to 9 of "
                                 "partial (an argument of 4 bytes), 6 bytes past its end"));
    s.oob.addr = 0x10000 - 8, s.oob.array[0] = '\0', s.oob.file = NULL;
    ck_assert_ptr_nonnull(strstr(compare_oob_text(&s.oob, text, sizeof text),
                                 "out of bounds: pc 0x90: a load by lane 5 of warp 2 of block "
                                 "7 starts 8 bytes before the array (an argument of 4 bytes)"));
}
END_TEST

/*
 * What a kernel must only read (compare/inputs.h): a store or an atomic into an input
 * fails correct naming the array, the line, who and why (the read-only cache too where the
 * same array was read through it); a word read through the read-only cache and written in
 * one launch fails it naming both lines; nothing found leaves correct as it was.
 */
START_TEST(test_inputs_written_fail_correct)
{
    trace_summary s;
    check_result c;
    memset(&s, 0, sizeof s);
    check_init(&c, "lab10", "lookupReadOnly", "correct", 2);
    check_set(&c, CHECK_PASS, "all 15 sizes right");
    ck_assert_int_eq(compare_input_written(&c, &s), 0);
    ck_assert_int_eq(compare_nc_written(&c, &s), 0);
    ck_assert_int_eq(compare_input_written(&c, NULL), 0);
    ck_assert_int_eq(c.status, CHECK_PASS);

    /* the attack's lookupReadOnly: __ldg(&table[k]), then table[k] = v */
    s.input_write_count = 8199;
    s.input_write = (trace_oob){.pc = 0x130, .file = "/s/lab10.cu", .line = 197,
                                .op = TRACE_OP_STORE, .addr = 0x20010, .width = 4, .block = 3,
                                .warp = 1, .lane = 4, .base = 0x20000, .bytes = 1024,
                                .array = "table"};
    ck_assert_int_eq(compare_input_written(&c, &s), 1);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "writes its input table: a store at lab10.cu:197 by lane 4 of "
                                "warp 1 of block 3 (8199 lanes in all), where the kernel must "
                                "only read it");
    ck_assert_ptr_nonnull(strstr(c.measured, "8199 store or atomic lanes into table"));
    ck_assert_ptr_nonnull(strstr(c.hint, "gives it to the kernel as const"));
    ck_assert_ptr_null(strstr(c.hint, "read-only cache")); /* no nc load of it was seen */
    ck_assert_int_eq(c.n_lines, 1);
    ck_assert_str_eq(c.lines[0].file, "lab10.cu");
    ck_assert_int_eq(c.lines[0].line, 197);
    ck_assert_str_eq(c.lines[0].op, "input");

    /* the same table read through the read-only cache: said in the hint */
    s.nc_written_count = 1;
    s.nc_load = (trace_oob){.pc = 0x120, .file = "/s/lab10.cu", .line = 196,
                            .op = TRACE_OP_LOAD, .addr = 0x20010, .width = 4, .base = 0x20000,
                            .bytes = 1024, .array = "table"};
    s.nc_write = s.input_write;
    check_set(&c, CHECK_PASS, "all 15 sizes right");
    ck_assert_int_eq(compare_input_written(&c, &s), 1);
    ck_assert_ptr_nonnull(strstr(c.hint, "It reads table through the read-only cache too "
                                         "(lab10.cu:196)"));

    /* an atomic into an unnamed input, its line unknown */
    s.nc_written_count = 0;
    s.input_write.op = TRACE_OP_ATOMIC, s.input_write.file = NULL, s.input_write.array[0] = 0;
    s.input_write_count = 1;
    ck_assert_int_eq(compare_input_written(&c, &s), 1);
    ck_assert_str_eq(c.message, "writes its input an input: an atomic at pc 0x130 by lane 4 of "
                                "warp 1 of block 3 (1 lane in all), where the kernel must only "
                                "read it");

    /* reduceGmem reading its in through __ldg at a level below the one that wrote it */
    memset(&s, 0, sizeof s);
    check_set(&c, CHECK_PASS, "all 12 sizes right");
    s.nc_written_count = 4066;
    s.nc_load = (trace_oob){.pc = 0x80, .file = "/s/lab7.cu", .line = 49, .op = TRACE_OP_LOAD,
                            .addr = 0x10100, .width = 4, .block = 0, .array = "in"};
    s.nc_write = s.nc_load;
    s.nc_write.op = TRACE_OP_STORE, s.nc_write.pc = 0x90, s.nc_write.line = 50;
    ck_assert_int_eq(compare_input_written(&c, &s), 0); /* in is no input of step 1 */
    ck_assert_int_eq(compare_nc_written(&c, &s), 1);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "reads in through the read-only cache and writes it in the same "
                                "launch: the load at lab7.cu:49 (ld.global.nc, block 0) reads a "
                                "word that a store at lab7.cu:50 writes");
    ck_assert_ptr_nonnull(strstr(c.measured, "4066 words"));
    ck_assert_ptr_nonnull(strstr(c.hint, "read-only for the kernel's whole lifetime"));
    ck_assert_int_eq(c.n_lines, 2);
    ck_assert_str_eq(c.lines[0].op, "nc load");
    ck_assert_int_eq(c.lines[1].line, 50);
}
END_TEST

/* A check that counts global traffic whole names its atomics' lines beside its loads and
   stores (the page marks them: a global atomic's sectors); coalescing counts none. */
START_TEST(test_global_sites_name_atomics)
{
    trace_summary s;
    memset(&s, 0, sizeof s);
    trace_record r;
    memset(&r, 0, sizeof r);
    r.active = 0xFFFFFFFFu;
    r.width = 4;
    r.pc = 0x40;
    r.flags = TRACE_READ | TRACE_GLOBAL;
    for (int i = 0; i < 32; i++)
        r.addr[i] = 0x10000 + 4u * (uint32_t)i;
    ck_assert_int_eq(coalesce_add(&s.global, &r), 0);
    r.pc = 0x90; /* every lane's atomicAdd on one word */
    r.flags = TRACE_READ | TRACE_WRITE | TRACE_GLOBAL;
    for (int i = 0; i < 32; i++)
        r.addr[i] = 0x20000;
    ck_assert_int_eq(coalesce_add(&s.global, &r), 0);
    ck_assert_int_eq(s.global.n, 2);
    ck_assert_int_eq(s.global.v[1].side, COALESCE_ATOMIC);
    check_result c = fresh("global-traffic");
    check_set(&c, CHECK_FAIL, "partial sums go through global memory");
    compare_global_sites(&c, &s, 1);
    ck_assert_int_eq(c.n_lines, 2);
    char line[160];
    ck_assert_str_eq(check_line_text(&c.lines[1], line, sizeof line),
                     "pc 0x90  global atomic  coalesced, 1.00 sectors a request (1 sectors / 1 "
                     "requests, ideal 4)");
    c = fresh("global-loads"); /* loads alone */
    check_set(&c, CHECK_PASS, "each element once");
    compare_global_sites(&c, &s, 0);
    ck_assert_int_eq(c.n_lines, 1);
    ck_assert_str_eq(c.lines[0].op, "gload");
    ck_assert_ptr_null(coalesce_worst(&s.global, COALESCE_STORE)); /* no store here */
    coalesce_free(&s.global);
}
END_TEST

Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, test_degree_text);
    tcase_add_test(tc, test_coalescing);
    tcase_add_test(tc, test_coalescing_lines);
    tcase_add_test(tc, test_degree_text_near_one);
    tcase_add_test(tc, test_measured_degree);
    tcase_add_test(tc, test_conflicts_match);
    tcase_add_test(tc, test_conflicts_unexpected_conflict);
    tcase_add_test(tc, test_conflicts_missing_conflict);
    tcase_add_test(tc, test_conflicts_wrong_degree);
    tcase_add_loop_test(tc, test_conflicts_tolerance, 0, (int)(sizeof edges / sizeof edges[0]));
    tcase_add_test(tc, test_conflicts_tolerance_scales);
    tcase_add_test(tc, test_conflicts_zero_wavefronts);
    tcase_add_test(tc, test_64bit_rule_loads_and_stores_alike);
    tcase_add_test(tc, test_requests);
    tcase_add_test(tc, test_requests_zero);
    tcase_add_test(tc, test_not_measured);
    tcase_add_test(tc, test_not_measured_or_not_graded);
    tcase_add_test(tc, test_check_records);
    tcase_add_test(tc, test_fail_launch_words);
    tcase_add_test(tc, test_global_loads_limit);
    tcase_add_test(tc, test_smem_near_free_limit);
    tcase_add_test(tc, test_oob_fails_correct);
    tcase_add_test(tc, test_inputs_written_fail_correct);
    tcase_add_test(tc, test_global_sites_name_atomics);
    suite_add_tcase(s, tc);
    return s;
}
