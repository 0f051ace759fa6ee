/*
 * test_trace.c - the trace analysis (grader/measure/access/): recorded traces of the
 * lab access patterns (tests/traces/, from `make traces`) to requests and
 * wavefronts, the 64-bit rule, races, nvdisasm line information, the bank
 * map, and the checks built from them.
 */
#define _POSIX_C_SOURCE 200809L
#include "compare/compare.h"
#include "labs/lab_table.h"
#include "measure/access/bankmap.h"
#include "measure/access/lineinfo.h"
#include "measure/access/trace.h"
#include "reference/tile_ref.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACES "tests/traces/"

static bank_geometry modern(void)
{
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    return g;
}

static trace_record *load_trace(const char *name, size_t *n)
{
    char path[256], why[256] = "";
    snprintf(path, sizeof path, TRACES "%s.trace", name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run make check from the kit's root)", path);
    trace_record *r = trace_read(f, path, n, why, sizeof why);
    fclose(f);
    ck_assert_msg(r != NULL, "%s: %s", path, why);
    return r;
}

static void analyze(const char *name, trace_summary *s)
{
    bank_geometry g = modern();
    size_t n;
    char why[256] = "";
    trace_record *r = load_trace(name, &n);
    ck_assert_msg(trace_analyze(&g, r, n, s, why, sizeof why) == 0, "%s: %s", name, why);
    free(r);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* What Nsight Compute reports for these kernels, worked out by hand:
 * requests = warps, wavefronts per request from the bank arithmetic. */
static const struct expect {
    const char *trace;
    long st_req, st_waves, st_ideal, ld_req, ld_waves, ld_ideal;
    int races;
} expects[] = {
    {"lab1-row", 32, 32, 32, 32, 32, 32, 0},
    {"lab1-col", 32, 1024, 32, 32, 1024, 32, 0},           /* 32-way both ways */
    {"lab1-rowcol", 32, 32, 32, 32, 1024, 32, 0},
    {"lab1-rowcol-nosync", 32, 32, 32, 32, 1024, 32, 1},   /* warps read others' rows */
    {"lab1-row-nosync", 32, 32, 32, 32, 32, 32, 0},        /* each warp reads its own row */
    {"lab3-pad", 32, 32, 32, 32, 32, 32, 0},               /* pitch 33: conflict-free */
    {"lab4-irow-icol", 16, 16, 16, 16, 256, 16, 0},        /* 16-way */
    {"lab4-irow-icol-pad1", 16, 16, 16, 16, 32, 16, 0},    /* one pad: 2-way */
    {"lab4-irow-icol-pad2", 16, 16, 16, 16, 16, 16, 0},    /* two pads: none */
    {"long-row", 32, 64, 64, 32, 64, 64, 0},               /* 64-bit rule: 2 per warp, ideal */
    {"long-rowcol", 32, 64, 64, 32, 1024, 64, 0},          /* 16-way per half-warp */
};

START_TEST(test_lab_traces)
{
    const struct expect *e = &expects[_i];
    trace_summary s;
    analyze(e->trace, &s);
    ck_assert_msg(s.requests[1] == e->st_req && s.wavefronts[1] == e->st_waves &&
                  s.ideal[1] == e->st_ideal,
                  "%s stores: %ld requests %ld wavefronts %ld ideal", e->trace, s.requests[1],
                  s.wavefronts[1], s.ideal[1]);
    ck_assert_msg(s.requests[0] == e->ld_req && s.wavefronts[0] == e->ld_waves &&
                  s.ideal[0] == e->ld_ideal,
                  "%s loads: %ld requests %ld wavefronts %ld ideal", e->trace, s.requests[0],
                  s.wavefronts[0], s.ideal[0]);
    ck_assert_msg((s.n_races > 0) == e->races, "%s: %d races", e->trace, s.n_races);
    ck_assert_int_eq(s.n_sites, 2);
    ck_assert_uint_eq(s.sites[0].pc, 0x90);
    ck_assert_int_eq(s.sites[0].op, TRACE_OP_STORE);
    ck_assert_uint_eq(s.sites[1].pc, 0xc0);
    ck_assert_int_eq(s.sites[1].op, TRACE_OP_LOAD);

    char text[160], want[160];
    snprintf(want, sizeof want, "pc 0x90  store  %s (%ld wavefronts / %ld requests)",
             e->st_waves == e->st_ideal ? "conflict-free" : "32-way", e->st_waves, e->st_req);
    ck_assert_str_eq(trace_site_text(&s.sites[0], text, sizeof text), want);

    measurement m;
    trace_to_measurement(&s, &m);
    ck_assert_double_eq(m.value[METRIC_SHARED_LD_REQUESTS], (double)e->ld_req);
    ck_assert_double_eq(m.value[METRIC_SHARED_ST_WAVEFRONTS], (double)e->st_waves);
    ck_assert_double_eq(m.value[METRIC_SHARED_LD_CONFLICTS], (double)(e->ld_waves - e->ld_ideal));
    ck_assert_double_eq(m.ideal_st, (double)e->st_ideal);
    ck_assert_uint_eq(m.ideal_set, MEASURE_IDEAL_SET);
    trace_summary_free(&s);
}
END_TEST

/* The trace agrees with the tile model the grader expects from. */
START_TEST(test_traces_match_the_model)
{
    bank_geometry g = modern();
    smem_cost c;
    trace_summary s;
    analyze("lab4-irow-icol-pad1", &s);
    tile_model_cost(&g, &(tile_access){.order = TILE_TRANSPOSED, .pitch = 33}, 32, 16, 4, 1, &c);
    ck_assert_int_eq(c.requests, s.requests[0]);
    ck_assert_int_eq(c.wavefronts, s.wavefronts[0]);
    ck_assert_int_eq(c.ideal, s.ideal[0]);
    trace_summary_free(&s);
}
END_TEST

/* A long long tile row-wise: 64 wavefronts / 32 requests both ways, and both
 * judged conflict-free (the counters would say loads 2-way, stores none). */
START_TEST(test_64bit_rule)
{
    bank_geometry g = modern();
    trace_summary s;
    measurement m;
    smem_cost want;
    analyze("long-row", &s);
    trace_to_measurement(&s, &m);
    tile_model_cost(&g, &(tile_access){.order = TILE_ROW, .pitch = 32}, 32, 32, 4, 1, &want); /* the lab's int tile */
    smem_side st = SIDE_STORE, ld = SIDE_LOAD;
    st.code = ld.code = "tile[threadIdx.y][threadIdx.x]";
    check_result cs, cl;
    check_init(&cs, "lab1", "setRowReadRow", "store-conflicts", 1);
    check_init(&cl, "lab1", "setRowReadRow", "load-conflicts", 1);
    compare_conflicts(&cs, &st, &m, &want, DEGREE_TOLERANCE, NULL);
    compare_conflicts(&cl, &ld, &m, &want, DEGREE_TOLERANCE, NULL);
    ck_assert_str_eq(cs.message, "stores conflict-free (expected conflict-free)");
    ck_assert_str_eq(cl.message, "loads conflict-free (expected conflict-free)");
    ck_assert_str_eq(cl.measured, "64 wavefronts / 32 requests");
    ck_assert_int_eq(cs.status, CHECK_PASS);
    ck_assert_int_eq(cl.status, CHECK_PASS);
    trace_summary_free(&s);
}
END_TEST

/*
 * One pattern stored and loaded at every width: the trace's counts are the
 * model's, loads and stores get the same verdict, and where the width is not
 * the exercise's (an int tile) the check says so in words with the model's
 * numbers for the width measured.
 */
static const struct {
    const char *trace;
    int width;
    tile_access access;
    const char *verdict;
} same_both_ways[] = {
    {"lab1-row", 4, {.order = TILE_ROW, .pitch = 32}, "conflict-free"},
    {"lab1-col", 4, {.order = TILE_COL, .pitch = 32}, "32-way conflict"},
    {"w1-row", 1, {.order = TILE_ROW, .pitch = 32}, "conflict-free"},
    {"w2-row", 2, {.order = TILE_ROW, .pitch = 32}, "conflict-free"},
    {"w8-row", 8, {.order = TILE_ROW, .pitch = 32}, "conflict-free"},
    {"w16-row", 16, {.order = TILE_ROW, .pitch = 32}, "conflict-free"},
    {"w1-col", 1, {.order = TILE_COL, .pitch = 32}, "8-way conflict"},
    {"w2-col", 2, {.order = TILE_COL, .pitch = 32}, "16-way conflict"},
    {"w8-col", 8, {.order = TILE_COL, .pitch = 32}, "16-way conflict"},
    {"w16-col", 16, {.order = TILE_COL, .pitch = 32}, "8-way conflict"},
    {"w8-col-pad1", 8, {.order = TILE_COL, .pitch = 33}, "conflict-free"},
    {"w16-col-pad1", 16, {.order = TILE_COL, .pitch = 33}, "conflict-free"},
};

START_TEST(test_widths_loads_and_stores_alike)
{
    bank_geometry g = modern();
    trace_summary s;
    measurement m;
    smem_cost st_model, ld_model, exercise;
    int i = _i;
    const tile_access *a = &same_both_ways[i].access;
    int w = same_both_ways[i].width;
    analyze(same_both_ways[i].trace, &s);
    trace_to_measurement(&s, &m);
    ck_assert_int_eq(trace_side_width(&s, TRACE_OP_LOAD), w);
    ck_assert_int_eq(trace_side_width(&s, TRACE_OP_STORE), w);
    tile_model_cost(&g, a, 32, 32, w, 0, &st_model);
    tile_model_cost(&g, a, 32, 32, w, 1, &ld_model);
    ck_assert_int_eq(s.wavefronts[1], st_model.wavefronts);
    ck_assert_int_eq(s.wavefronts[0], ld_model.wavefronts);
    ck_assert_int_eq(s.ideal[1], st_model.ideal);
    ck_assert_int_eq(s.ideal[0], ld_model.ideal);
    /* the exercise's expectation is the pattern at its own width (4), and
       the verdict is judged against it */
    tile_model_cost(&g, a, 32, 32, 4, 1, &exercise);
    smem_side st = SIDE_STORE, ld = SIDE_LOAD;
    st.code = ld.code = "tile[...]";
    check_result cs, cl;
    check_init(&cs, "lab1", "k", "store-conflicts", 1);
    check_init(&cl, "lab1", "k", "load-conflicts", 1);
    compare_conflicts(&cs, &st, &m, &exercise, DEGREE_TOLERANCE, NULL);
    compare_conflicts(&cl, &ld, &m, &exercise, DEGREE_TOLERANCE, NULL);
    char exercise_degree[64]; /* the exercise's "(32-way conflict)", kept in the width's words */
    snprintf(exercise_degree, sizeof exercise_degree, "at the exercise's 4 bytes: %s",
             strrchr(cl.expected, '(') + 1);
    compare_conflicts_width(&cs, &st, w, 4, &st_model);
    compare_conflicts_width(&cl, &ld, w, 4, &ld_model);
    ck_assert_int_eq(cs.status, cl.status);
    ck_assert_double_eq_tol(cs.degree, cl.degree, 1e-9);
    char want[64];
    snprintf(want, sizeof want, "loads %s (expected", same_both_ways[i].verdict);
    ck_assert_msg(strncmp(cl.message, want, strlen(want)) == 0, "%s: \"%s\"",
                  same_both_ways[i].trace, cl.message);
    ck_assert_str_eq(strstr(cs.message, " "), strstr(cl.message, " ")); /* after stores/loads */
    ck_assert_double_eq(cl.ideal, (double)ld_model.ideal);
    if (w == 4) {
        ck_assert_ptr_null(strstr(cl.message, "lanes where"));
    } else {
        char words[96];
        snprintf(words, sizeof words, "%d-byte lanes where the exercise's are 4 bytes", w);
        ck_assert_msg(strstr(cl.message, words) != NULL, "\"%s\"", cl.message);
        snprintf(words, sizeof words, "%ld wavefronts / %ld requests (%s at %d bytes a lane",
                 ld_model.wavefronts, ld_model.requests, same_both_ways[i].verdict, w);
        ck_assert_msg(strncmp(cl.expected, words, strlen(words)) == 0, "\"%s\"", cl.expected);
        ck_assert_msg(strstr(cl.expected, exercise_degree) != NULL, "\"%s\" lacks \"%s\"",
                      cl.expected, exercise_degree);
        ck_assert_int_eq(cl.width, w);
        if (cl.status == CHECK_FAIL)
            ck_assert_msg(strstr(cl.hint, "element type") != NULL, "%s", cl.hint);
    }
    trace_summary_free(&s);
}
END_TEST

/* Wide loads whose lanes pair up are served in phases twice as wide: a
 * broadcast of 16 bytes is 2 wavefronts, not 4, and judged conflict-free. */
START_TEST(test_wide_loads_pair_up)
{
    trace_summary s;
    analyze("w8-pairs", &s);
    ck_assert_int_eq(s.requests[0], 4);
    ck_assert_int_eq(s.wavefronts[0], 4); /* one phase of 32 lanes a warp (H100: 4) */
    ck_assert_int_eq(s.ideal[0], 8);      /* its 256 bytes need two: read as conflict-free */
    ck_assert_int_eq(s.wavefronts[1], 8); /* the 8-byte row store: two half-warps */
    trace_summary_free(&s);
    analyze("w16-bcast", &s);
    ck_assert_int_eq(s.wavefronts[0], 8); /* halves of 16 lanes (H100: 8) */
    ck_assert_int_eq(s.ideal[0], 16);
    ck_assert_int_eq(s.wavefronts[1], 16);
    trace_summary_free(&s);
}
END_TEST

/* Records of one 32x32 block: every thread stores at store(t) and, after a
 * barrier, loads at load(t) (byte offsets), as the capture writes them. */
static trace_record *block_records(uint32_t (*store)(int), uint32_t (*load)(int), size_t *n)
{
    trace_record *r = calloc(32 * 3, sizeof *r);
    *n = 0;
    for (int pass = 0; pass < 3; pass++)
        for (int w = 0; w < 32; w++) {
            trace_record *x = &r[(*n)++];
            x->warp = (uint32_t)w;
            x->active = 0xFFFFFFFFu;
            x->pc = pass == 0 ? 0x90 : pass == 1 ? 0xa0 : 0xc0;
            x->flags = pass == 0 ? TRACE_WRITE : pass == 1 ? TRACE_BARRIER : TRACE_READ;
            x->width = pass == 1 ? 0 : 4;
            for (int lane = 0; pass != 1 && lane < 32; lane++)
                x->addr[lane] = (pass == 0 ? store : load)(w * 32 + lane);
        }
    return r;
}

static uint32_t row(int t) { return (uint32_t)t * 4; }                             /* tile[ty][tx] */
static uint32_t col(int t) { return (uint32_t)((t % 32) * 32 + t / 32) * 4; }      /* tile[tx][ty] */
static uint32_t pad_col(int t) { return (uint32_t)((t % 32) * 33 + t / 32) * 4; }  /* pitch 33 */
static uint32_t pad_row(int t) { return (uint32_t)((t / 32) * 33 + t % 32) * 4; }
/* an XOR swizzle: element (y, x) of the tile lives at column x ^ y */
static uint32_t swz_row(int t) { return (uint32_t)((t / 32) * 32 + ((t % 32) ^ (t / 32))) * 4; }
static uint32_t swz_col(int t) { return (uint32_t)((t % 32) * 32 + ((t / 32) ^ (t % 32))) * 4; }

/* Whether compare_tile_flow passes a load-requests check of setRowReadCol. */
static int flow_passes(uint32_t (*store)(int), uint32_t (*load)(int), check_result *c)
{
    bank_geometry g = modern();
    trace_summary s;
    size_t n;
    char why[256];
    int src[1024];
    trace_record *r = block_records(store, load, &n);
    ck_assert_int_eq(trace_analyze(&g, r, n, &s, why, sizeof why), 0);
    tile_spec t = {.store = {.order = TILE_ROW, .pitch = 32}, .load = {.order = TILE_COL, .pitch = 32}};
    tile_reference(&t, 32, 32, src); /* out[t]: the thread whose element t reads */
    check_init(c, "lab3", "setRowReadColPad", "load-requests", 1);
    check_set(c, CHECK_PASS, "loads: 32 shared requests");
    compare_tile_flow(c, &s, src, 1024, 32, "out[idx] = tile[threadIdx.x][threadIdx.y]");
    trace_summary_free(&s);
    free(r);
    return c->status == CHECK_PASS;
}

/* The column read through the tile passes however the tile is laid out:
 * plain, padded, swizzled. Reading one's own element (and computing the
 * answer) does not, whatever the output. */
START_TEST(test_tile_flow)
{
    check_result c;
    ck_assert(flow_passes(row, col, &c));
    ck_assert(flow_passes(pad_row, pad_col, &c));
    ck_assert(flow_passes(swz_row, swz_col, &c));
    ck_assert(!flow_passes(row, row, &c));
    ck_assert_str_eq(c.message, "loads read other words than the exercise's: thread (1, 0) "
                                "read what thread (1, 0) stored, not what thread (0, 1) stored");
    ck_assert(strstr(c.hint, "tile[threadIdx.x][threadIdx.y]") != NULL);
    ck_assert(!flow_passes(pad_row, pad_row, &c));
}
END_TEST

/*
 * A loop of two passes over a tile of 64 words, two warps: store (pc 0x10),
 * barrier (0x20), load (0x30), and no barrier at the end of the loop body.
 * Warp 1 loads the words warp 0 stores; warp 0, fast, stores its next pass
 * while warp 1 still loads this one: the load at 0x30 in one pass and the
 * store at 0x10 in the next meet between the same two barriers. With
 * end_barrier, a barrier at 0x40 closes each pass and nothing races.
 */
static int loop_races(int end_barrier, trace_summary *s)
{
    bank_geometry g = modern();
    trace_record r[16];
    char why[256];
    size_t n = 0;
    memset(r, 0, sizeof r);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t w = 0; w < 2; w++) {
            const uint64_t pcs[] = {0x10, 0x20, 0x30, 0x40};
            for (int i = 0; i < 3 + end_barrier; i++) {
                trace_record *x = &r[n++];
                x->warp = w;
                x->active = 0xFFFFFFFFu;
                x->pc = pcs[i];
                x->flags = i == 0 ? TRACE_WRITE : i == 2 ? TRACE_READ : TRACE_BARRIER;
                x->width = i == 0 || i == 2 ? 4 : 0;
                for (int lane = 0; x->width && lane < 32; lane++) /* warp 1 reads warp 0's words */
                    x->addr[lane] = (uint32_t)(((i == 0 ? w : 1 - w) * 32 + (uint32_t)lane) * 4);
            }
        }
    ck_assert_int_eq(trace_analyze(&g, r, n, s, why, sizeof why), 0);
    return s->n_races;
}

static trace_record access(uint64_t pc, uint32_t block, uint32_t warp, uint16_t flags,
                           uint32_t first_addr, uint32_t stride);
static int races_in(const trace_record *r, size_t n, trace_summary *s);

START_TEST(test_race_across_loop_passes)
{
    trace_summary s;
    char text[400];
    check_result c;
    ck_assert_int_gt(loop_races(0, &s), 0);
    ck_assert(s.races[0].across_passes);
    s.races[0].file_a = s.races[0].file_b = "lab5.cu"; /* as trace_attribute names them */
    s.races[0].line_a = 103, s.races[0].line_b = 106;
    trace_race_text(&s.races[0], text, sizeof text);
    ck_assert_msg(strstr(text, "lab5.cu:106 (load) in one pass of a loop and lab5.cu:103 (store) "
                               "in the next race") != NULL, "%s", text);
    check_init(&c, "lab5", "matmulTiled", "race", 1);
    compare_races(&c, &s, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_msg(strstr(c.hint, "finishes its pass at line 106") &&
                  strstr(c.hint, "reaches line 103 of the next pass"), "%s", c.hint);
    trace_summary_free(&s);
    ck_assert_int_eq(loop_races(1, &s), 0);
    trace_summary_free(&s);

    /* a block that skips the barrier between a store and a load (its condition the
       block's: lab9-race-past-window) races before any barrier: not across passes */
    trace_record skip[] = {access(0x10, 16, 0, TRACE_WRITE, 0, 4),
                           access(0x30, 16, 1, TRACE_READ, 0, 4),
                           {.pc = 0x20, .block = 3, .warp = 0, .active = ~0u,
                            .flags = TRACE_BARRIER}};
    ck_assert_int_eq(races_in(skip, 3, &s), 1);
    ck_assert_int_eq(s.races[0].across_passes, 0);
    ck_assert_msg(strstr(trace_race_text(&s.races[0], text, sizeof text), "in the next") == NULL,
                  "%s", text);
    trace_summary_free(&s);
}
END_TEST

/* A proven race fails correct with the same words every run; none leaves it. */
START_TEST(test_race_spoils_correct)
{
    trace_summary s;
    check_result c;
    analyze("lab1-rowcol-nosync", &s);
    ck_assert_int_gt(s.n_races, 0);
    check_init(&c, "lab1", "setRowReadCol", "correct", 2);
    check_set(&c, CHECK_PASS, "all 1024 elements right (3 runs)");
    compare_race_spoils_correct(&c, &s);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_msg(strncmp(c.message, "unreliable: your kernel races", 29) == 0, "%s", c.message);
    char first[sizeof c.message];
    snprintf(first, sizeof first, "%s", c.message);
    check_set(&c, CHECK_FAIL, "3 of 1024 elements differ");   /* another run, another output */
    compare_race_spoils_correct(&c, &s);
    ck_assert_str_eq(c.message, first);
    trace_summary_free(&s);
    analyze("lab1-rowcol", &s);
    check_set(&c, CHECK_PASS, "all 1024 elements right (3 runs)");
    compare_race_spoils_correct(&c, &s);
    ck_assert_int_eq(c.status, CHECK_PASS);
    trace_summary_free(&s);
}
END_TEST

/* The highest byte reached, for the bounds check. */
START_TEST(test_shared_extent)
{
    trace_summary s;
    analyze("lab3-pad", &s);
    ck_assert_uint_eq(s.extent.end, (31 * 33 + 31 + 1) * 4);
    ck_assert_int_eq(s.extent.op, TRACE_OP_STORE); /* the store reaches it first */
    trace_summary_free(&s);
}
END_TEST

/* Each launch's highest byte apart (the block's high byte), so that a launch given too
 * few bytes is not covered by a later one given more; a launch past the ones kept apart
 * is in the whole's alone. The stream (the emulator's) and a whole trace alike. */
START_TEST(test_shared_extent_per_launch)
{
    bank_geometry g = modern();
    char why[256] = "";
    const uint32_t later = (uint32_t)TRACE_EXTENT_LAUNCHES << TRACE_LAUNCH_SHIFT;
    trace_record r[] = {access(0x20, 0, 0, TRACE_WRITE, 1024, 4),  /* launch 0: 1152 */
                        access(0x10, 0, 0, TRACE_WRITE, 1024, 4),  /* the same, lower pc */
                        access(0x30, 1u << TRACE_LAUNCH_SHIFT, 0, TRACE_READ, 0, 4), /* 128 */
                        access(0x40, 1u << TRACE_LAUNCH_SHIFT | 1, 0, TRACE_WRITE, 128, 4),
                        access(0x50, later, 0, TRACE_READ, 4096, 4)}; /* 4224, no launch kept */
    for (int stream = 0; stream < 2; stream++) {
        trace_summary s;
        trace_analyzer *a = stream ? trace_analyzer_new(&g) : NULL;
        if (stream) {
            for (size_t i = 0; i < sizeof r / sizeof *r; i++)
                ck_assert_int_eq(trace_analyzer_add(a, &r[i], why, sizeof why), 0);
            ck_assert_msg(trace_analyzer_finish(a, &s, why, sizeof why) == 0, "%s", why);
        } else {
            ck_assert_msg(trace_analyze(&g, r, 5, &s, why, sizeof why) == 0, "%s", why);
        }
        ck_assert_uint_eq(s.extent.end, 4096 + 128);
        ck_assert_uint_eq(s.extent.pc, 0x50);
        ck_assert_uint_eq(s.launch_extent[0].end, 1024 + 128);
        ck_assert_uint_eq(s.launch_extent[0].pc, 0x10); /* the lowest instruction that did */
        ck_assert_int_eq(s.launch_extent[0].op, TRACE_OP_STORE);
        ck_assert_uint_eq(s.launch_extent[1].end, 256); /* its block 1's store */
        ck_assert_uint_eq(s.launch_extent[1].pc, 0x40);
        for (int l = 2; l < TRACE_EXTENT_LAUNCHES; l++)
            ck_assert_uint_eq(s.launch_extent[l].end, 0);
        trace_summary_free(&s);
    }
}
END_TEST

/* A broadcast (two or more lanes, all on one address: a coefficient each warp loads,
 * lab 10's step 2) is no element read twice, and counts no lane; a single lane's
 * load, or lanes on two addresses, read again, is. */
START_TEST(test_global_broadcast_not_repeat)
{
    static const char text[] =
        "gl 0x10 0 0 4 ffffffff"
        " 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000"
        " 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000 2000\n"
        "gl 0x10 0 1 4 00000003 2000 2000\n"  /* another warp's broadcast of it */
        "gl 0x20 0 0 4 00000001 3000\n"
        "gl 0x20 0 1 4 00000001 3000\n"       /* one lane again: a repeat */
        "gl 0x30 0 0 4 00000003 3000 3004\n"; /* two addresses, one again */
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    size_t n;
    char why[256];
    trace_record *r = trace_read(f, "b.trace", &n, why, sizeof why);
    fclose(f);
    ck_assert_msg(r != NULL, "%s", why);
    bank_geometry g = modern();
    trace_summary s;
    ck_assert_int_eq(trace_analyze(&g, r, n, &s, why, sizeof why), 0);
    ck_assert_int_eq(s.global_lanes, 4);
    ck_assert_int_eq(s.global_repeats, 2);
    ck_assert_uint_eq(s.repeat_pc, 0x20);
    trace_summary_free(&s);
    free(r);
}
END_TEST

/* Global loads of the first blocks, address by address: a block that reads
 * an element twice (a halo read from global memory at each tap) is named. */
START_TEST(test_global_repeats)
{
    static const char text[] =
        "gl 0x10 0 0 4 0000000f 1000 1004 1008 100c\n"   /* the tile, once */
        "gl 0x10 0 1 4 00000003 1010 1014\n"
        "gl 0x20 0 0 4 00000001 1010\n"                   /* a halo cell again */
        "gl 0x20 1 0 4 00000001 1010\n"                   /* another block: its own first */
        "gl 0x20 20 0 4 00000001 1010\n"                  /* past the first blocks */
        "gl 0x20 20 0 4 00000001 1010\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    size_t n;
    char why[256];
    trace_record *r = trace_read(f, "g.trace", &n, why, sizeof why);
    fclose(f);
    ck_assert_msg(r != NULL, "%s", why);
    bank_geometry g = modern();
    trace_summary s;
    ck_assert_int_eq(trace_analyze(&g, r, n, &s, why, sizeof why), 0);
    ck_assert_int_eq(s.global_lanes, 8);
    ck_assert_int_eq(s.global_repeats, 1);
    ck_assert_int_eq(s.repeat_block, 0);
    ck_assert_uint_eq(s.repeat_pc, 0x20);
    ck_assert_int_eq(s.n_sites, 0); /* global loads are not shared sites */
    ck_assert_int_eq(s.requests[0], 0);
    trace_summary_free(&s);
    free(r);
}
END_TEST

/* Global atomics (ga: READ and WRITE) are a side of their own: a site of their own for
 * the lines of global-traffic, no load an element's repeat is counted from, no sector of
 * the loads' or the stores' (lab 9's coalescing). */
START_TEST(test_global_atomics_a_side)
{
    static const char text[] =
        "gl 0x10 0 0 4 00000003 1000 1004\n"
        "ga 0x20 0 0 4 00000003 1000 1004\n"  /* the same words, added into */
        "ga 0x20 0 1 4 00000001 1000\n"
        "gs 0x30 0 0 4 00000001 2000\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    size_t n;
    char why[256];
    trace_record *r = trace_read(f, "a.trace", &n, why, sizeof why);
    fclose(f);
    ck_assert_msg(r != NULL, "%s", why);
    ck_assert_uint_eq(r[1].flags, TRACE_READ | TRACE_WRITE | TRACE_GLOBAL);
    bank_geometry g = modern();
    trace_summary s;
    ck_assert_int_eq(trace_analyze(&g, r, n, &s, why, sizeof why), 0);
    ck_assert_int_eq(s.global_lanes, 2); /* the load's two lanes alone */
    ck_assert_int_eq(s.global_repeats, 0);
    ck_assert_int_eq(s.global.n, 3);
    ck_assert_int_eq(s.global.v[0].side, COALESCE_LOAD);
    ck_assert_int_eq(s.global.v[1].side, COALESCE_ATOMIC);
    ck_assert_int_eq(s.global.v[1].requests, 2);
    ck_assert_int_eq(s.global.v[2].side, COALESCE_STORE);
    measurement m;
    measure_clear(&m);
    trace_to_measurement(&s, &m);
    ck_assert(m.value[METRIC_GLOBAL_LD_SECTORS] == 1.0);
    ck_assert(m.value[METRIC_GLOBAL_ST_SECTORS] == 1.0); /* the store's; none of the atomics' */
    ck_assert_int_eq(s.n_sites, 0); /* no shared site */
    /* written as read */
    char buf[128];
    f = fmemopen(buf, sizeof buf, "w");
    ck_assert_int_eq(trace_write_record(f, &r[2]), 0);
    fclose(f);
    ck_assert_str_eq(buf, "ga 0x20 0 1 4 00000001 1000\n");
    trace_summary_free(&s);
    free(r);
}
END_TEST

/* The planted lab1-long-tile: setRowReadCol on a long long tile reads
 * column-wise 16-way, not the 32-way the exercise shows. */
START_TEST(test_64bit_rule_catches_a_wide_tile)
{
    bank_geometry g = modern();
    trace_summary s;
    measurement m;
    smem_cost want;
    analyze("long-rowcol", &s);
    trace_to_measurement(&s, &m);
    tile_model_cost(&g, &(tile_access){.order = TILE_COL, .pitch = 32}, 32, 32, 4, 1, &want);
    smem_side ld = SIDE_LOAD;
    ld.code = "out[idx] = tile[threadIdx.x][threadIdx.y]";
    check_result c;
    check_init(&c, "lab1", "setRowReadCol", "load-conflicts", 1);
    compare_conflicts(&c, &ld, &m, &want, DEGREE_TOLERANCE, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "loads 16-way conflict (expected 32-way conflict)");
    trace_summary_free(&s);
}
END_TEST

static trace_record access(uint64_t pc, uint32_t block, uint32_t warp, uint16_t flags,
                           uint32_t first_addr, uint32_t stride)
{
    trace_record r;
    memset(&r, 0, sizeof r);
    r.pc = pc;
    r.block = block;
    r.warp = warp;
    r.active = 0xFFFFFFFFu;
    r.width = 4;
    r.flags = flags;
    for (int lane = 0; lane < 32; lane++)
        r.addr[lane] = first_addr + (uint32_t)lane * stride;
    return r;
}

static int races_in(const trace_record *r, size_t n, trace_summary *s)
{
    bank_geometry g = modern();
    char why[256] = "";
    ck_assert_msg(trace_analyze(&g, r, n, s, why, sizeof why) == 0, "%s", why);
    return s->n_races;
}

START_TEST(test_race_rules)
{
    trace_summary s;
    trace_record bar = {.pc = 0x50, .active = 0xFFFFFFFFu, .flags = TRACE_BARRIER};

    /* two warps of one block write the same words: a write-write race */
    trace_record ww[] = {access(0x10, 0, 0, TRACE_WRITE, 0, 4), access(0x10, 0, 1, TRACE_WRITE, 0, 4)};
    ck_assert_int_eq(races_in(ww, 2, &s), 1);
    ck_assert_int_eq(s.races[0].b_writes, 1);
    ck_assert_int_eq(s.races[0].words, 32);
    trace_summary_free(&s);

    /* the same in two blocks: each block has its own shared memory */
    trace_record blocks[] = {access(0x10, 0, 0, TRACE_WRITE, 0, 4), access(0x10, 1, 1, TRACE_WRITE, 0, 4)};
    ck_assert_int_eq(races_in(blocks, 2, &s), 0);
    trace_summary_free(&s);

    /* one warp writing then reading its own words: no race */
    trace_record own[] = {access(0x10, 0, 3, TRACE_WRITE, 0, 4), access(0x20, 0, 3, TRACE_READ, 0, 4)};
    ck_assert_int_eq(races_in(own, 2, &s), 0);
    trace_summary_free(&s);

    /* two warps reading the same words: no race */
    trace_record reads[] = {access(0x20, 0, 0, TRACE_READ, 0, 4), access(0x20, 0, 1, TRACE_READ, 0, 4)};
    ck_assert_int_eq(races_in(reads, 2, &s), 0);
    trace_summary_free(&s);

    /* write, barrier in both warps, then the other warp reads: no race */
    trace_record b0 = bar, b1 = bar;
    b1.warp = 1;
    trace_record synced[] = {access(0x10, 0, 0, TRACE_WRITE, 0, 4), b0, b1,
                             access(0x20, 0, 1, TRACE_READ, 0, 4)};
    ck_assert_int_eq(races_in(synced, 4, &s), 0);
    ck_assert_int_eq(s.barriers, 2);
    trace_summary_free(&s);

    /* only the writer passed its barrier: the reader is still in interval 0
     * and the writer's later write (interval 1) does not meet it */
    trace_record late[] = {access(0x20, 0, 1, TRACE_READ, 0, 4), b0,
                           access(0x30, 0, 0, TRACE_WRITE, 0, 4)};
    ck_assert_int_eq(races_in(late, 3, &s), 0);
    trace_summary_free(&s);

    /* a read that the other warp's write overlaps by one word only */
    trace_record one[] = {access(0x10, 0, 0, TRACE_WRITE, 124, 0), access(0x20, 0, 1, TRACE_READ, 0, 4)};
    one[0].active = 1; /* lane 0 writes byte 124 = word 31 */
    ck_assert_int_eq(races_in(one, 2, &s), 1);
    ck_assert_int_eq(s.races[0].words, 1);
    ck_assert_uint_eq(s.races[0].word_offset, 124);
    ck_assert_uint_eq(s.races[0].pc_a, 0x10);
    ck_assert_uint_eq(s.races[0].pc_b, 0x20);
    trace_summary_free(&s);

    /* an 8-byte write covers two words: the read of the second one races */
    trace_record wide[] = {access(0x10, 0, 0, TRACE_WRITE, 0, 0), access(0x20, 0, 1, TRACE_READ, 4, 0)};
    wide[0].active = wide[1].active = 1;
    wide[0].width = 8;
    ck_assert_int_eq(races_in(wide, 2, &s), 1);
    trace_summary_free(&s);

    /* only the first TRACE_RACE_BLOCKS blocks are checked for races */
    trace_record many[2 * (TRACE_RACE_BLOCKS + 1)];
    for (int b = 0; b <= TRACE_RACE_BLOCKS; b++) {
        many[2 * b] = access(0x10, (uint32_t)b, 0, TRACE_WRITE, 0, 4);
        many[2 * b + 1] = access(0x10, (uint32_t)b, 1, TRACE_WRITE, 0, 4);
    }
    ck_assert_int_eq(races_in(many, 2 * (TRACE_RACE_BLOCKS + 1), &s), 1);
    ck_assert_int_eq(s.races[0].words, 32 * TRACE_RACE_BLOCKS);
    ck_assert_int_eq(s.race_blocks, TRACE_RACE_BLOCKS);
    ck_assert_int_eq(s.requests[1], 2 * (TRACE_RACE_BLOCKS + 1)); /* all still counted */
    trace_summary_free(&s);

    /* atomics on one word from two warps: not a race */
    trace_record atom[] = {access(0x10, 0, 0, TRACE_READ | TRACE_WRITE, 0, 0),
                           access(0x10, 0, 1, TRACE_READ | TRACE_WRITE, 0, 0)};
    ck_assert_int_eq(races_in(atom, 2, &s), 0);
    ck_assert_int_eq(s.sites[0].op, TRACE_OP_ATOMIC);
    ck_assert_int_eq(s.requests[0] + s.requests[1], 0); /* not counted as loads or stores */
    trace_summary_free(&s);
}
END_TEST

/*
 * A race is found whichever warp writes: the writer the lower-numbered warp
 * and the reader the higher, then the other way round, each with the
 * records in either order (a check that compared a write only with the
 * warps above it, or below, misses one of the two). The race names the
 * writer as its first side, whichever warp that is, and the check fails.
 */
START_TEST(test_race_either_direction)
{
    static const uint32_t warps[][2] = {{0, 1}, {1, 0}, {2, 5}, {5, 2}}; /* writer, reader */
    for (int k = 0; k < 4; k++)
        for (int reader_first = 0; reader_first < 2; reader_first++) {
            uint32_t wr = warps[k][0], rd = warps[k][1];
            trace_record w = access(0x10, 0, wr, TRACE_WRITE, 0, 4),
                         r = access(0x20, 0, rd, TRACE_READ, 0, 4);
            trace_record recs[2] = {reader_first ? r : w, reader_first ? w : r};
            trace_summary s;
            ck_assert_msg(races_in(recs, 2, &s) == 1, "warp %u writes, warp %u reads%s: %d races",
                          wr, rd, reader_first ? " (reader's records first)" : "", s.n_races);
            ck_assert_uint_eq(s.races[0].warp_a, wr);
            ck_assert_uint_eq(s.races[0].warp_b, rd);
            ck_assert_uint_eq(s.races[0].pc_a, 0x10);
            ck_assert_uint_eq(s.races[0].pc_b, 0x20);
            ck_assert_int_eq(s.races[0].b_writes, 0);
            ck_assert_int_eq(s.races[0].words, 32);
            check_result c;
            check_init(&c, "lab1", "setRowReadCol", "race", 1);
            compare_races(&c, &s, NULL);
            ck_assert_int_eq(c.status, CHECK_FAIL);
            ck_assert_double_eq(c.points, 0);
            trace_summary_free(&s);
        }
}
END_TEST

/* Races are counted by their lines: two stores of one line (a line compiles to several
   instructions) racing one load are one racing pair of lines, not two. */
START_TEST(test_race_pairs_of_lines)
{
    trace_record recs[3] = {access(0x10, 0, 0, TRACE_WRITE, 0, 4),
                            access(0x14, 0, 0, TRACE_WRITE, 0, 4),
                            access(0x20, 0, 1, TRACE_READ, 0, 4)};
    trace_summary s;
    ck_assert_int_eq(races_in(recs, 3, &s), 2); /* two pairs of PCs */
    for (int i = 0; i < 2; i++) { /* as trace_attribute names them: both stores at line 30 */
        s.races[i].file_a = s.races[i].file_b = "lab1.cu";
        s.races[i].line_a = 30, s.races[i].line_b = 33;
    }
    check_result c;
    check_init(&c, "lab1", "setRowReadCol", "race", 1);
    compare_races(&c, &s, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.measured, "1 racing pair of lines");
    s.races[1].line_a = 31; /* another line of stores: two */
    check_init(&c, "lab1", "setRowReadCol", "race", 1);
    compare_races(&c, &s, NULL);
    ck_assert_str_eq(c.measured, "2 racing pairs of lines");
    trace_summary_free(&s);
}
END_TEST

/*
 * Each block has its own shared memory: one word written by a warp of each of
 * two blocks is no race, however the records line up (one lane each, so the
 * two blocks' touches of the word sort side by side), while the same two
 * warps in one block race.
 */
START_TEST(test_blocks_share_no_word)
{
    for (uint32_t word = 0; word < 40; word += 13) {
        trace_record r[2] = {access(0x10, 0, 0, TRACE_WRITE, 4 * word, 0),
                             access(0x10, 1, 1, TRACE_WRITE, 4 * word, 0)};
        r[0].active = r[1].active = 1;
        trace_summary s;
        ck_assert_msg(races_in(r, 2, &s) == 0, "word %u of blocks 0 and 1: %d races", word,
                      s.n_races);
        trace_summary_free(&s);
        r[1].block = 0;
        ck_assert_int_eq(races_in(r, 2, &s), 1);
        trace_summary_free(&s);
    }
}
END_TEST

/*
 * Races do not depend on the order the warps' records arrive in (a GPU
 * writes them as warps run): the same trace shuffled, warp order kept within
 * each warp, finds the same races, reported at the same block, warps and
 * word. With warp numbers and addresses too wide to pack into one sort key,
 * the analysis sorts another way (qsort) and must agree too.
 */
enum { ORDER_WARPS = 4, ORDER_PER_WARP = 7 };
static const uint32_t order_blocks[] = {7, 3, 12, 5};

static size_t racy_trace(trace_record *r, uint32_t warp_scale, uint32_t offset)
{
    size_t n = 0;
    for (int b = 0; b < 4; b++)
        for (uint32_t w = 0; w < ORDER_WARPS; w++) {
            uint32_t blk = order_blocks[b], warp = w * warp_scale;
            trace_record bar = {.pc = 0x30, .block = blk, .warp = warp,
                                .active = 0xFFFFFFFFu, .flags = TRACE_BARRIER};
            /* interval 0: each warp stores its row, then reads the next warp's */
            r[n++] = access(0x10, blk, warp, TRACE_WRITE, offset + w * 128, 4);
            r[n++] = access(0x20, blk, warp, TRACE_READ, offset + (w + 1) % ORDER_WARPS * 128, 4);
            r[n++] = bar;
            /* interval 1: blocks 12 and 5 only, lane 0 of every warp writes
               one word (8 bytes wide in block 5) */
            trace_record one = access(0x40, blk, warp, TRACE_WRITE, offset + 1024 + blk * 4, 0);
            one.active = blk == 12 || blk == 5 ? 1u : 0u;
            one.width = blk == 5 ? 8 : 4;
            if (one.active)
                r[n++] = one;
            r[n++] = access(0x50, blk, warp, TRACE_READ, offset + 1024, 8); /* meets it */
            bar.pc = 0x60;
            r[n++] = bar;
            r[n++] = access(0x70, blk, warp, TRACE_READ, offset + 1024, 4);
        }
    return n;
}

/* The records of each (block, warp) in their order, interleaved at random. */
static void interleave(const trace_record *in, size_t n, trace_record *out, unsigned seed)
{
    size_t start[64], left[64], m = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || in[i].block != in[i - 1].block || in[i].warp != in[i - 1].warp) {
            start[m] = i;
            left[m++] = 0;
        }
        left[m - 1]++;
    }
    while (k < n) {
        seed = seed * 1103515245u + 12345u;
        size_t q = (seed >> 8) % m;
        while (!left[q])
            q = (q + 1) % m;
        out[k++] = in[start[q]++];
        left[q]--;
    }
}

START_TEST(test_races_independent_of_record_order)
{
    trace_record in[4 * ORDER_WARPS * ORDER_PER_WARP], shuffled[sizeof in / sizeof in[0]];
    trace_summary first, s;
    size_t n = racy_trace(in, 1, 0);
    /* 3 between warps, and 1 between lanes: lane 0 writes a word (0x40) that the
       other lanes of its warp read (0x50) with no __syncwarp() between */
    ck_assert_int_eq(races_in(in, n, &first), 4);
    ck_assert_uint_eq(first.races[0].block, 3); /* the lowest block of the row race */
    for (int i = 0; i < first.n_races; i++)
        ck_assert_msg(first.races[i].pc_a != 0x40 || first.races[i].block == 5,
                      "the write-write race is reported at block %u, not block 5",
                      first.races[i].block);
    for (unsigned seed = 1; seed <= 4; seed++)
        for (int wide = 0; wide < 2; wide++) {
            /* wide: warps x 2^27 and addresses + 2 GiB need 66 bits of key */
            uint32_t scale = wide ? 1u << 27 : 1u, offset = wide ? 0x80000000u : 0u;
            size_t m = racy_trace(in, scale, offset);
            ck_assert_uint_eq(m, n);
            interleave(in, n, shuffled, seed);
            ck_assert_int_eq(races_in(shuffled, n, &s), first.n_races);
            for (int i = 0; i < s.n_races; i++) {
                const trace_race *a = &first.races[i], *b = &s.races[i];
                ck_assert_msg(a->pc_a == b->pc_a && a->pc_b == b->pc_b &&
                                  a->b_writes == b->b_writes && a->block == b->block &&
                                  a->warp_a * scale == b->warp_a && a->warp_b * scale == b->warp_b &&
                                  a->word_offset + offset == b->word_offset && a->words == b->words,
                              "seed %u%s, race %d: pcs 0x%llx/0x%llx block %u warps %u/%u word "
                              "0x%x (%ld words); in order: 0x%llx/0x%llx block %u warps %u/%u "
                              "word 0x%x (%ld words)", seed, wide ? " (wide)" : "", i,
                              (unsigned long long)b->pc_a, (unsigned long long)b->pc_b, b->block,
                              b->warp_a, b->warp_b, b->word_offset, b->words,
                              (unsigned long long)a->pc_a, (unsigned long long)a->pc_b, a->block,
                              a->warp_a, a->warp_b, a->word_offset, a->words);
            }
            trace_summary_free(&s);
        }
    trace_summary_free(&first);
}
END_TEST

/* Records that come highest block first: the race check still looks at the
 * lowest blocks, the tile-flow check at block 0, the halo count at the lowest
 * block that read twice. */
START_TEST(test_checked_blocks_are_the_lowest)
{
    enum { BLOCKS = TRACE_RACE_BLOCKS + 4 };
    trace_record r[BLOCKS * 2 + 3];
    size_t n = 0;
    for (int b = BLOCKS - 1; b >= 0; b--)
        for (uint32_t w = 0; w < 2; w++) {
            int racy = b == 2 || b == BLOCKS - 2; /* both warps write one row */
            r[n++] = access(0x10, (uint32_t)b, w, TRACE_WRITE, racy ? 0 : w * 128, 4);
        }
    trace_record gl = access(0x80, 5, 0, TRACE_READ | TRACE_GLOBAL, 0x1000, 4);
    r[n++] = gl;                          /* block 5 reads its row twice... */
    r[n++] = gl;
    gl.block = 3, gl.active = 1;
    r[n++] = gl;                          /* ...block 3 reads its first element, */
    trace_record again = gl;
    again.pc = 0x90;
    trace_summary s;
    trace_record all[sizeof r / sizeof r[0] + 1];
    memcpy(all, r, n * sizeof *r);
    all[n] = again;                       /* and reads it again */
    ck_assert_int_eq(races_in(all, n + 1, &s), 1);
    ck_assert_uint_eq(s.races[0].block, 2);
    ck_assert_int_eq(s.races[0].words, 32); /* block BLOCKS-2's race is past the check */
    ck_assert_int_eq(s.race_blocks, TRACE_RACE_BLOCKS);
    ck_assert_uint_eq(s.flow_block, 0);
    ck_assert_int_eq(s.threads[0].stores, 1);
    ck_assert_int_eq(s.global_repeats, 33);
    ck_assert_uint_eq(s.repeat_block, 3);
    ck_assert_int_eq(s.repeat_count, 1);
    ck_assert_uint_eq(s.repeat_pc, 0x90);
    trace_summary_free(&s);
}
END_TEST

/*
 * A stream in block order (the emulator's) is checked on every block, not the
 * lowest TRACE_RACE_BLOCKS: blocks past the window race (a barrier dropped in
 * blocks 16 and up, issue 37), the last block too, and between the lanes of one
 * warp; a block whose barrier orders its warps does not, whichever block came
 * before it.
 */
START_TEST(test_stream_checks_every_block)
{
    enum { BLOCKS = 3 * TRACE_RACE_BLOCKS };
    bank_geometry g = modern();
    char why[256] = "";
    trace_summary s;
    trace_analyzer *a = trace_analyzer_new(&g);
    ck_assert_ptr_nonnull(a);
    for (uint32_t b = 0; b < BLOCKS; b++) {
        int drops = b >= TRACE_RACE_BLOCKS && b % 7 == 3; /* 17, 24, 31, 38, 45 */
        for (uint32_t w = 0; w < 2; w++) {
            trace_record bar = {.pc = 0x30, .block = b, .warp = w, .active = 0xFFFFFFFFu,
                                .flags = TRACE_BARRIER};
            trace_record st = access(0x10, b, w, TRACE_WRITE, w * 128, 4);
            trace_record ld = access(0x20, b, w, TRACE_READ, (1 - w) * 128, 4);
            ck_assert_int_eq(trace_analyzer_add(a, &st, why, sizeof why), 0);
            if (!drops)
                ck_assert_int_eq(trace_analyzer_add(a, &bar, why, sizeof why), 0);
            ck_assert_int_eq(trace_analyzer_add(a, &ld, why, sizeof why), 0);
        }
        if (b == BLOCKS - 1) { /* lane 0 stores a word lanes 1-31 read, no __syncwarp */
            trace_record one = access(0x40, b, 0, TRACE_WRITE, 512, 0);
            trace_record all = access(0x50, b, 0, TRACE_READ, 512, 0);
            one.active = 1;
            ck_assert_int_eq(trace_analyzer_add(a, &one, why, sizeof why), 0);
            ck_assert_int_eq(trace_analyzer_add(a, &all, why, sizeof why), 0);
        }
    }
    ck_assert_msg(trace_analyzer_finish(a, &s, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(s.race_blocks, BLOCKS);
    ck_assert_int_eq(s.n_races, 2);
    ck_assert_int_eq(s.races[0].in_warp, 0);
    ck_assert_uint_eq(s.races[0].block, 17); /* the first block past the window */
    ck_assert_int_eq(s.races[0].words, 5 * 2 * 32); /* 5 blocks, each warp's row */
    ck_assert_int_eq(s.races[1].in_warp, 1);
    ck_assert_uint_eq(s.races[1].block, BLOCKS - 1);
    trace_summary_free(&s);
}
END_TEST

START_TEST(test_bad_records)
{
    bank_geometry g = modern();
    trace_summary s;
    char why[256] = "";
    trace_record r = access(0x10, 0, 0, TRACE_WRITE, 0, 4);
    r.width = 3;
    ck_assert_int_eq(trace_analyze(&g, &r, 1, &s, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "width 3"));
    r.width = 4;
    r.active = 0;
    ck_assert_int_eq(trace_analyze(&g, &r, 1, &s, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "no active lane"));
    trace_record mixed[] = {access(0x10, 0, 0, TRACE_WRITE, 0, 4), access(0x10, 0, 1, TRACE_READ, 0, 4)};
    ck_assert_int_eq(trace_analyze(&g, mixed, 2, &s, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "both a store and a load"));
}
END_TEST

/* A 16-byte load with one word unused: the sanitizer says 12 bytes, the hardware
 * serves 16 from the aligned start (tests/truth/gen-idioms.py, dead word). */
START_TEST(test_dead_word_loads)
{
    bank_geometry g = modern();
    trace_summary s;
    char why[256] = "";
    const struct {
        uint32_t first, stride;
        long waves;
    } cases[] = {{0, 16, 4}, {4, 16, 4}, {0, 32, 8}, {8, 64, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_record r = access(0x10, 0, 0, TRACE_READ, cases[i].first, cases[i].stride);
        r.width = 12;
        ck_assert_msg(trace_analyze(&g, &r, 1, &s, why, sizeof why) == 0, "%s", why);
        ck_assert_int_eq(s.requests[0], 1);
        ck_assert_int_eq(s.wavefronts[0], cases[i].waves);
        ck_assert_int_eq(s.ideal[0], 4);
        ck_assert_int_eq(trace_side_width(&s, TRACE_OP_LOAD), 16);
        trace_summary_free(&s);
    }
    /* the unused word is no read: another warp may write it between the barriers */
    trace_record pair[] = {access(0x10, 0, 0, TRACE_READ, 0, 16),
                           access(0x20, 0, 1, TRACE_WRITE, 12, 16)};
    pair[0].width = 12;
    ck_assert_int_eq(races_in(pair, 2, &s), 0);
    trace_summary_free(&s);
    pair[1].addr[0] = 8; /* now a word it does read */
    ck_assert_int_eq(races_in(pair, 2, &s), 1);
    trace_summary_free(&s);
    /* a store has no unused word: 12 bytes is no store's width */
    trace_record st = access(0x10, 0, 0, TRACE_WRITE, 0, 16);
    st.width = 12;
    ck_assert_int_eq(trace_analyze(&g, &st, 1, &s, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "width 12"));
}
END_TEST

static const char *read_error(const char *text)
{
    static char why[256];
    size_t n;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    trace_record *r = trace_read(f, "t.trace", &n, why, sizeof why);
    fclose(f);
    ck_assert_ptr_null(r);
    return why;
}

START_TEST(test_text_format)
{
    ck_assert_str_eq(read_error("xx 0x10 0 0 4 1 0\n"), "t.trace:1: unknown record 'xx' (ld, st, atom, atomx, atomc, ldm, stm, cp, cpx, gl, gcp, gs, ga, bar, sync, acq, rel or acqrel)");
    ck_assert_str_eq(read_error("# c\nld 0x10 0 0 4 3 0\n"),
                     "t.trace:2: mask 00000003 has lane 1 active but the line gives no address for it");
    ck_assert_str_eq(read_error("st 0x10 0 0 4 1 0 4\n"), "t.trace:1: more fields than the mask has active lanes");
    ck_assert_ptr_nonnull(strstr(read_error("bar 0x10 0\n"), "t.trace:1: expected 'bar PC BLOCK WARP MASK'"));
    ck_assert_str_eq(read_error("# only a comment\n"), "t.trace: no records");

    /* what trace_write_record writes, trace_read reads back */
    trace_record r = access(0x1a0, 7, 3, TRACE_WRITE, 0x40, 8), back;
    r.active = 0x80000001u;
    r.width = 8;
    char buf[512];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ck_assert_int_eq(trace_write_record(f, &r), 0);
    fclose(f);
    ck_assert_str_eq(buf, "st 0x1a0 7 3 8 80000001 40 138\n");
    size_t n;
    char why[256];
    f = fmemopen(buf, strlen(buf), "r");
    trace_record *got = trace_read(f, "b", &n, why, sizeof why);
    fclose(f);
    ck_assert_ptr_nonnull(got);
    back = got[0];
    free(got);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(back.pc, 0x1a0);
    ck_assert_uint_eq(back.block, 7);
    ck_assert_uint_eq(back.addr[31], 0x138);
    ck_assert_uint_eq(back.flags, TRACE_WRITE);
}
END_TEST

START_TEST(test_lineinfo_parse)
{
    line_table t;
    line_loc loc;
    char why[256] = "";
    ck_assert_msg(lineinfo_parse(read_text(TRACES "lab1.nvdisasm"), &t, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(t.n_functions, 2);
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0x90, &loc), 0);
    ck_assert_str_eq(loc.file, "/home/student/smemlab/solutions/lab1-square/lab1.cu");
    ck_assert_int_eq(loc.line, 82);
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0xc0, &loc), 0);
    ck_assert_int_eq(loc.line, 90);
    /* the same offset in the other function is another line */
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadRowPi", 0xc0, &loc), 0);
    ck_assert_int_eq(loc.line, 58);
    /* an inlined barrier: innermost frame in a toolkit header, call site in lab1.cu */
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0xa0, &loc), 0);
    ck_assert_str_eq(loc.file, "/usr/local/cuda/include/crt/sm_70_rt.hpp");
    ck_assert_int_eq(loc.line, 120);
    ck_assert_int_eq(loc.call_line, 86);
    /* an instruction without its own comment takes the block before it */
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0xb0, &loc), 0);
    ck_assert_int_eq(loc.line, 120);
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z6nosuchPi", 0x10, &loc), -1);
    lineinfo_free(&t);
}
END_TEST

START_TEST(test_lineinfo_errors)
{
    line_table t;
    char why[256] = "";
    ck_assert_int_eq(lineinfo_parse("        /*0000*/ MOV R1, R2 ;\n", &t, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "line 1: an instruction before any .text.FUNCTION: label"));
    ck_assert_int_eq(lineinfo_parse(".text._Z1fv:\n\t//## File \"a.cu\" line 3\n", &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "nvdisasm output line 2: expected //## File \"PATH\", line N");
    ck_assert_int_eq(lineinfo_parse(".text._Z1fv:\n        /*0000*/ EXIT ;\n", &t, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "build the lab with -lineinfo"));
    ck_assert_int_eq(lineinfo_parse("nothing here\n", &t, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "no .text.FUNCTION: label"));
}
END_TEST

/* A failing conflict check names its line and draws the student's warp. */
/* A whole binary file, its size in *n (the test fails if it cannot be read). */
static unsigned char *read_binary(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)size);
    ck_assert_int_eq(fread(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return b;
}

/* Where section `name` of an ELF image starts (0 if absent). */
static size_t section_offset(const unsigned char *b, const char *name)
{
    const Elf64_Ehdr *h = (const void *)b;
    const Elf64_Shdr *sh = (const void *)(b + h->e_shoff);
    const char *names = (const char *)b + sh[h->e_shstrndx].sh_offset;
    for (int i = 0; i < h->e_shnum; i++)
        if (strcmp(names + sh[i].sh_name, name) == 0)
            return sh[i].sh_offset;
    return 0;
}

/*
 * tests/traces/lab1.cubin: the lab 1 solution as the kit builds it (nvcc
 * 13.0, -O3 -lineinfo -arch=sm_90 -cubin). The expected rows are what
 * binutils' `readelf --debug-dump=decodedline` prints for it.
 */
START_TEST(test_lineinfo_from_cubin)
{
    size_t n;
    unsigned char *b = read_binary(TRACES "lab1.cubin", &n);
    line_table t;
    line_loc loc;
    char why[256] = "";

    ck_assert_msg(lineinfo_from_cubin(b, n, &t, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(t.n_functions, 3);
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0x90, &loc), 0);
    ck_assert_int_eq(loc.line, 82); /* the row store */
    ck_assert_ptr_nonnull(strstr(loc.file, "solutions/lab1-square/lab1.cu"));
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0xd0, &loc), 0);
    ck_assert_int_eq(loc.line, 90); /* the column load */
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0xf0, &loc), 0);
    ck_assert_int_eq(loc.line, 86); /* the barrier */
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadColPi", 0xf8, &loc), 0);
    ck_assert_int_eq(loc.line, 86); /* between rows: the row before */
    /* each sequence belongs to the function its relocation names */
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setRowReadRowPi", 0x90, &loc), 0);
    ck_assert_int_eq(loc.line, 52);
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z13setColReadColPi", 0xb0, &loc), 0);
    ck_assert_int_eq(loc.line, 73);
    ck_assert_int_eq(lineinfo_lookup(&t, "_Z6nosuchPi", 0x10, &loc), -1);
    lineinfo_free(&t);

    /* a line program of a DWARF version it does not read */
    unsigned char *v = malloc(n);
    memcpy(v, b, n);
    size_t at = section_offset(v, ".debug_line");
    ck_assert_uint_gt(at, 0);
    v[at + 4] = 7; /* the version, after the 32-bit unit length */
    ck_assert_int_eq(lineinfo_from_cubin(v, n, &t, why, sizeof why), -1);
    ck_assert_str_eq(why, ".debug_line version 7: only DWARF 2 to 4 are read");
    ck_assert_int_eq(t.n_entries, 0);

    /* a unit longer than its section */
    memcpy(v, b, n);
    v[at + 3] = 0x7f;
    ck_assert_int_eq(lineinfo_from_cubin(v, n, &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "the cubin's .debug_line is malformed");

    /* no line table: built without -lineinfo */
    memcpy(v, b, n);
    unsigned char *name = NULL;
    for (size_t i = 0; i + 12 <= n && !name; i++)
        if (memcmp(v + i, ".debug_line", 12) == 0)
            name = v + i;
    ck_assert_ptr_nonnull(name);
    name[1] = 'X';
    ck_assert_int_eq(lineinfo_from_cubin(v, n, &t, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "build the lab with -lineinfo"));

    /* not a cubin at all, or cut short */
    ck_assert_int_eq(lineinfo_from_cubin("#!/bin/sh\n", 10, &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "not a 64-bit little-endian ELF cubin");
    ck_assert_int_eq(lineinfo_from_cubin(b, 100, &t, why, sizeof why), -1);
    ck_assert_str_eq(why, "not a 64-bit little-endian ELF cubin");
    free(v);
    free(b);
}
END_TEST

/* An unrolled loop gives one source line several instructions: one line in the report. */
START_TEST(test_lines_fold_an_unrolled_loop)
{
    bank_geometry g = modern();
    trace_site sites[4] = {
        {.pc = 0x100, .op = TRACE_OP_LOAD, .requests = 10, .wavefronts = 40, .ideal = 10,
         .file = "/k/lab5.cu", .line = 81},
        {.pc = 0x110, .op = TRACE_OP_LOAD, .requests = 10, .wavefronts = 160, .ideal = 40,
         .file = "/k/lab5.cu", .line = 81, .worst_warp = 6, .worst_block = 9},
        {.pc = 0x120, .op = TRACE_OP_LOAD, .requests = 10, .wavefronts = 10, .ideal = 10,
         .file = "/k/lab5.cu", .line = 77},
        {.pc = 0x130, .op = TRACE_OP_LOAD, .requests = 10, .wavefronts = 20, .ideal = 10},
    };
    sites[1].worst.width = 16;
    trace_summary s = {.sites = sites, .n_sites = 4};
    check_result c;
    char text[200];
    check_init(&c, "lab5", "matmulTiled", "smem-conflicts", 1);
    check_set(&c, CHECK_FAIL, "shared loads 3.33-way conflict (expected conflict-free)");
    compare_trace_lines(&c, &s, -1, &g);
    ck_assert_int_eq(c.n_lines, 3);
    /* line 81's two instructions summed: 200 wavefronts against an ideal of 50 */
    ck_assert_str_eq(check_line_text(&c.lines[0], text, sizeof text),
                     "lab5.cu:81  load  4-way (200 wavefronts / 20 requests)");
    /* an unnamed instruction stays on its own, by its pc */
    ck_assert_str_eq(check_line_text(&c.lines[1], text, sizeof text),
                     "pc 0x130  load  2-way (20 wavefronts / 10 requests)");
    ck_assert_str_eq(check_line_text(&c.lines[2], text, sizeof text),
                     "lab5.cu:77  load  conflict-free (10 wavefronts / 10 requests)");
    /* the drawing is of the line's worst instruction */
    ck_assert_ptr_nonnull(strstr(c.bank_map, "your worst load (lab5.cu:81), warp 6 of block 9, "
                                             "16-byte lanes"));
    /* the line's warp for the page is that instruction's too */
    ck_assert_int_eq(c.lines[0].worst.width, 16);
    ck_assert_uint_eq(c.lines[0].worst.warp, 6);
    ck_assert_uint_eq(c.lines[0].worst.block, 9);
}
END_TEST

START_TEST(test_conflict_check_names_the_line)
{
    bank_geometry g = modern();
    trace_summary s;
    line_table t;
    measurement m;
    smem_cost want;
    char why[256] = "", text[200];
    analyze("lab1-col", &s);
    ck_assert_int_eq(lineinfo_parse(read_text(TRACES "lab1.nvdisasm"), &t, why, sizeof why), 0);
    trace_attribute(&s, &t, "_Z13setRowReadColPi");
    trace_to_measurement(&s, &m);
    tile_model_cost(&g, &(tile_access){.order = TILE_COL, .pitch = 33}, 32, 32, 4, 1, &want); /* lab3: padded */
    smem_side ld = SIDE_LOAD;
    ld.code = "out[idx] = tile[threadIdx.x][threadIdx.y]";
    check_result c;
    check_init(&c, "lab3", "setRowReadColPad", "load-conflicts", 1);
    compare_conflicts(&c, &ld, &m, &want, DEGREE_TOLERANCE, NULL);
    compare_trace_lines(&c, &s, TRACE_OP_LOAD, &g);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_int_eq(c.n_lines, 1);
    ck_assert_str_eq(check_line_text(&c.lines[0], text, sizeof text),
                     "lab1.cu:90  load  32-way (1024 wavefronts / 32 requests)");
    /* every warp is as bad: the map is of the lowest one, whatever order the
       warps' records came in (this trace has its loads last warp first) */
    ck_assert_ptr_nonnull(strstr(c.bank_map, "your worst load (lab1.cu:90), warp 0 of block 0, "
                                             "4-byte lanes: 32 wavefronts, ideal 1\n"));
    /* warp 0 reads column 0: every lane in bank 0, one wavefront each */
    ck_assert_ptr_nonnull(strstr(c.bank_map, "bank  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0"
                                             "  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0\n"));
    ck_assert_ptr_nonnull(strstr(c.bank_map, "wave  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16"
                                             " 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32\n"));
    /* the line keeps that warp for the report page: lane i down column 0, row i */
    const check_warp *w = &c.lines[0].worst;
    ck_assert_uint_eq(w->active, 0xFFFFFFFFu);
    ck_assert_int_eq(w->width, 4);
    ck_assert_int_eq(w->banks, 32);
    ck_assert_int_eq(w->bank_bytes, 4);
    ck_assert_uint_eq(w->block, 0);
    ck_assert_uint_eq(w->warp, 0);
    for (int lane = 0; lane < 32; lane++)
        ck_assert_uint_eq(w->addr[lane] - w->addr[0], (unsigned)lane * 128u);
    /* what the exercise expects of the loads: conflict-free (the stores: not said) */
    ck_assert(c.expect_load > 0.999 && c.expect_load < 1.001);
    ck_assert(c.expect_store == 0);
    ck_assert_ptr_nonnull(strstr(trace_site_text(trace_find_site(&s, 0x90), text, sizeof text),
                                 "lab1.cu:82  store  32-way (1024 wavefronts / 32 requests)"));

    /* a passing check names its lines but draws nothing */
    check_init(&c, "lab1", "setColReadCol", "load-conflicts", 1);
    tile_model_cost(&g, &(tile_access){.order = TILE_COL, .pitch = 32}, 32, 32, 4, 1, &want);
    compare_conflicts(&c, &ld, &m, &want, DEGREE_TOLERANCE, NULL);
    compare_trace_lines(&c, &s, TRACE_OP_LOAD, &g);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_int_eq(c.n_lines, 1);
    ck_assert_str_eq(c.bank_map, "");

    /* both sides (labs 5 and 6): worst first */
    compare_trace_lines(&c, &s, -1, &g);
    ck_assert_int_eq(c.n_lines, 2);
    trace_summary_free(&s);
    lineinfo_free(&t);
}
END_TEST

START_TEST(test_bank_map_conflict_free_and_wide)
{
    bank_geometry g = modern();
    warp_access a;
    char buf[512];
    memset(&a, 0, sizeof a);
    a.active = 0x0000FFFFu; /* half a warp of 8-byte lanes, consecutive */
    a.width = 8;
    for (int lane = 0; lane < 32; lane++)
        a.addr[lane] = (uint32_t)lane * 8;
    bank_map_text(&g, &a, "t", "", buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "t: 1 wavefront, ideal 1\n"));
    ck_assert_ptr_nonnull(strstr(buf, "bank  0  2  4  6  8 10 12 14 16 18 20 22 24 26 28 30  -  -"));
    ck_assert_ptr_nonnull(strstr(buf, "wave  1  1  1  1  1  1  1  1  1  1  1  1  1  1  1  1  -  -"));
    /* a buffer too small is cut, never overrun */
    char small[20];
    bank_map_text(&g, &a, "title", "    ", small, sizeof small);
    ck_assert_int_eq(strlen(small), sizeof small - 1);
}
END_TEST

START_TEST(test_race_check)
{
    trace_summary s;
    line_table t;
    char why[256] = "", text[160];
    check_result c;

    analyze("lab1-rowcol-nosync", &s);
    ck_assert_int_eq(lineinfo_parse(read_text(TRACES "lab1.nvdisasm"), &t, why, sizeof why), 0);
    trace_attribute(&s, &t, "_Z13setRowReadColPi");
    check_init(&c, "lab1", "setRowReadCol", "race", 1);
    compare_races(&c, &s, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_msg(strncmp(c.message, "lab1.cu:82 (store) and lab1.cu:90 (load) race: warps ",
                          53) == 0, "%s", c.message);
    ck_assert_ptr_nonnull(strstr(c.message, " of block 0 touch shared byte 0x"));
    ck_assert_ptr_nonnull(
        strstr(c.message, "with no barrier between; the two lines race on 992 words in all"));
    ck_assert_ptr_nonnull(strstr(c.hint, "__syncthreads()"));
    ck_assert_int_eq(c.n_lines, 2);
    ck_assert_str_eq(check_line_text(&c.lines[0], text, sizeof text), "lab1.cu:82  store");
    ck_assert_str_eq(check_line_text(&c.lines[1], text, sizeof text), "lab1.cu:90  load");
    /* 32 warps x 32 words, less the word each warp reads of its own row */
    ck_assert_int_eq(s.races[0].words, 32 * 32 - 32);
    trace_summary_free(&s);

    analyze("lab1-rowcol", &s);
    check_init(&c, "lab1", "setRowReadCol", "race", 1);
    compare_races(&c, &s, NULL);
    ck_assert_int_eq(c.status, CHECK_PASS);
    ck_assert_str_eq(c.measured, "no race (32 barriers seen)");
    trace_summary_free(&s);
    lineinfo_free(&t);

    /* no trace: never a silent pass */
    check_init(&c, "lab1", "setRowReadCol", "race", 1);
    compare_races(&c, NULL, "libsmemlab-trace.so is missing");
    ck_assert_int_eq(c.status, CHECK_NOT_MEASURED);
    ck_assert_str_eq(c.message, "not measured: the race check needs the trace (Compute "
                     "Sanitizer): libsmemlab-trace.so is missing");
    ck_assert_ptr_nonnull(strstr(c.hint, "make trace-backend"));

    /* a kernel that never touched shared memory earns nothing here (a skeleton) */
    trace_summary none;
    memset(&none, 0, sizeof none);
    check_init(&c, "lab1", "setRowReadCol", "race", 1);
    compare_races(&c, &none, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message,
                     "waits for a shared tile: no shared loads or stores ran, nothing to judge");
    /* one dummy store, everything else from global memory: no tile read back */
    trace_site store_only = {.op = TRACE_OP_STORE};
    none.sites = &store_only;
    none.n_sites = 1;
    check_init(&c, "lab6", "conv1dTiled", "race", 1);
    compare_races(&c, &none, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    ck_assert_str_eq(c.message, "waits for the tile to be read: shared stores ran, no shared "
                                "load (your kernel writes its tile and never reads it back)");

    /* a line the trace did not name (no failing check asked nvdisasm): its pc */
    check_line unnamed = {.file = "pc 0xe0", .line = 0, .op = "store", .requests = 32,
                          .wavefronts = 32, .ideal = 32};
    ck_assert_str_eq(check_line_text(&unnamed, text, sizeof text),
                     "pc 0xe0  store  conflict-free (32 wavefronts / 32 requests)");
}
END_TEST

/* The race check joins a kernel's checks when the table gives it points. */
START_TEST(test_race_in_kernel_checks)
{
    lab_kernel k = {.name = "k", .launcher = "launch_k",
                    .points = {{[CHK_CORRECT] = 2, [CHK_STORE_REQUESTS] = 1,
                                [CHK_LOAD_REQUESTS] = 1, [CHK_STORE_CONFLICTS] = 1,
                                [CHK_LOAD_CONFLICTS] = 1, [CHK_RACE] = 1}}};
    lab_def lab = {.id = "labx", .kind = PROBLEM_TILE, .bdimx = 32, .bdimy = 32, .kernels = &k,
                   .n_kernels = 1};
    kernel_check out[KERNEL_MAX_CHECKS];
    ck_assert_int_eq(kernel_checks(&lab, &k, out), 6);
    ck_assert_int_eq(out[5].id, CHK_RACE);
    ck_assert_str_eq(check_name(out[5].id), "race");
    ck_assert_double_eq(kernel_max_points(&lab, &k), 7);
    k.points.of[CHK_RACE] = 0;
    ck_assert_int_eq(kernel_checks(&lab, &k, out), 5);
    lab.kind = PROBLEM_MATMUL;
    k.points = (check_points){{[CHK_CORRECT] = 4, [CHK_SMEM_CONFLICTS] = 1, [CHK_RACE] = 2}};
    ck_assert_int_eq(kernel_checks(&lab, &k, out), 3);
    ck_assert_int_eq(out[2].id, CHK_RACE);
}
END_TEST

/*
 * A sampled trace the size labs 5 and 6 give (1M records; every 40th of
 * 16384 blocks of 32 warps, as conv2dTiled): counted right, and within
 * Check's time limit - the barrier counts per (block, warp) once hashed
 * only the warp, and the H100 spent 30 s on one such trace.
 */
START_TEST(test_big_sampled_trace)
{
    enum { BLOCKS = 16384, SAMPLE = 40, WARPS = 32, PER_WARP = 76 };
    size_t n = 0, cap = (size_t)(BLOCKS / SAMPLE + 1) * WARPS * PER_WARP;
    trace_record *r = malloc(cap * sizeof *r);
    ck_assert_ptr_nonnull(r);
    for (uint32_t b = 0; b < BLOCKS; b += SAMPLE)
        for (uint32_t w = 0; w < WARPS; w++)
            for (int i = 0; i < PER_WARP; i++) {
                uint16_t flags = i % 19 == 18 ? TRACE_BARRIER : i % 2 ? TRACE_READ : TRACE_WRITE;
                r[n++] = access(0x100 + 16 * (uint64_t)i, b, w, flags, w * 128, 4);
            }
    trace_summary s;
    ck_assert_int_eq(races_in(r, n, &s), 0);
    ck_assert_uint_eq(s.records, n);
    ck_assert_uint_eq(s.barriers, n / 19);
    ck_assert_uint_eq(s.requests[0] + s.requests[1], n - n / 19);
    ck_assert_uint_eq(s.wavefronts[0] + s.wavefronts[1], n - n / 19); /* conflict-free */
    trace_summary_free(&s);
    free(r);
}
END_TEST

/* Release and acquire between barriers (sync_order.h): cooperative groups' tile barrier,
 * as the emulator records it. Warps 0 and 1 form a tile, 2 another: warp 1's store is
 * ordered before warp 0's load by warp 1's release of a key warp 0 acquires, in a stream
 * as in a whole trace; warp 2's store, released to a key warp 0 never acquires, races,
 * and the text says that a tile's sync() orders its own warps only. Without the acquire
 * the pair races; an acquire before the release orders nothing. */
static int ordered_races(const char *text, trace_summary *s, int stream)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    size_t n;
    char why[256] = "";
    trace_record *r = trace_read(f, "o.trace", &n, why, sizeof why);
    fclose(f);
    ck_assert_msg(r != NULL, "%s", why);
    bank_geometry g = modern();
    if (stream) {
        trace_analyzer *a = trace_analyzer_new(&g);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(trace_analyzer_add(a, &r[i], why, sizeof why) == 0, "%s", why);
        ck_assert_msg(trace_analyzer_finish(a, s, why, sizeof why) == 0, "%s", why);
    } else {
        ck_assert_msg(trace_analyze(&g, r, n, s, why, sizeof why) == 0, "%s", why);
    }
    free(r);
    return s->n_races;
}

START_TEST(test_release_acquire_orders_warps)
{
    static const char tile[] =
        "st 0x10 0 1 4 00000001 80\n"         /* warp 1 stores word 0x80 */
        "st 0x10 0 2 4 00000001 100\n"        /* warp 2 (the other tile) stores 0x100 */
        "rel 0x20 0 1 4 00000002 4000004\n"   /* warp 1 releases key 0x1000001 */
        "rel 0x20 0 2 4 00000004 4000008\n"   /* warp 2 releases key 0x1000002 */
        "acq 0x30 0 0 4 00000002 4000004\n"   /* warp 0 acquires warp 1's only */
        "ld 0x40 0 0 4 00000003 80 100\n";    /* and loads both words */
    trace_summary s;
    char text[400];
    for (int stream = 0; stream < 2; stream++) {
        ck_assert_int_eq(ordered_races(tile, &s, stream), 1);
        ck_assert_uint_eq(s.races[0].word_offset, 0x100);
        ck_assert_uint_eq(s.races[0].warp_a, 2);
        ck_assert(s.races[0].tile_synced);
        trace_race_text(&s.races[0], text, sizeof text);
        ck_assert_msg(strstr(text, "with no barrier between that both wait at (a tile's sync() "
                                   "orders the warps of its own tile only)"), "%s", text);
        trace_summary_free(&s);
    }
    static const char no_acquire[] = "st 0x10 0 1 4 00000001 80\n"
                                     "rel 0x20 0 1 4 00000001 4000004\n"
                                     "ld 0x40 0 0 4 00000001 80\n";
    ck_assert_int_eq(ordered_races(no_acquire, &s, 1), 1);
    trace_summary_free(&s);
    static const char early[] = "acq 0x30 0 0 4 00000001 4000004\n" /* before the release */
                                "st 0x10 0 1 4 00000001 80\n"
                                "rel 0x20 0 1 4 00000001 4000004\n"
                                "ld 0x40 0 0 4 00000001 80\n";
    ck_assert_int_eq(ordered_races(early, &s, 1), 1);
    trace_summary_free(&s);
    static const char after[] = "rel 0x20 0 1 4 00000001 4000004\n" /* a store after it */
                                "st 0x10 0 1 4 00000001 80\n"
                                "acq 0x30 0 0 4 00000001 4000004\n"
                                "ld 0x40 0 0 4 00000001 80\n";
    ck_assert_int_eq(ordered_races(after, &s, 1), 1);
    trace_summary_free(&s);
    /* an ordered access of the kernel's own (a flag's store.release and load.acquire) is
       no race itself, and orders what the warps did around it */
    trace_record flag_st = access(0x10, 0, 1, TRACE_WRITE | TRACE_RELEASE, 0x200, 0);
    trace_record flag_ld = access(0x30, 0, 0, TRACE_READ | TRACE_ACQUIRE, 0x200, 0);
    trace_record data_st = access(0x08, 0, 1, TRACE_WRITE, 0, 4);
    trace_record data_ld = access(0x40, 0, 0, TRACE_READ, 0, 4);
    flag_st.active = flag_ld.active = 1;
    trace_record flag[] = {data_st, flag_st, flag_ld, data_ld};
    ck_assert_int_eq(races_in(flag, 4, &s), 0);
    ck_assert_int_eq(s.requests[TRACE_OP_LOAD], 2);
    trace_summary_free(&s);
}
END_TEST

/* The GPU's trace does not see the toolkit's release and acquire: a race it finds between
 * warps of a kernel whose lanes touched the reserved shared memory is not measured (the
 * emulated twin judges it); one between the lanes of a warp still fails; none passes. */
START_TEST(test_trace_defers_tile_barriers)
{
    trace_summary s;
    check_result c, correct;
    trace_record ww[] = {access(0x10, 0, 0, TRACE_WRITE, 0, 4), access(0x20, 0, 1, TRACE_READ, 0, 4)};
    ck_assert_int_eq(races_in(ww, 2, &s), 1);
    s.toolkit_accesses = 4;
    check_init(&c, "lab7", "reduceSmem", "race", 1);
    compare_races(&c, &s, NULL);
    ck_assert_int_eq(c.status, CHECK_NOT_MEASURED);
    ck_assert_msg(strstr(c.message, "tile barrier, which the trace cannot see; the emulator judges it"),
                  "%s", c.message);
    check_init(&correct, "lab7", "reduceSmem", "correct", 1);
    check_set(&correct, CHECK_PASS, "%s", "");
    compare_race_spoils_correct(&correct, &s);
    ck_assert_int_eq(correct.status, CHECK_PASS);
    s.toolkit_accesses = 0;
    compare_races(&c, &s, NULL);
    ck_assert_int_eq(c.status, CHECK_FAIL);
    trace_summary_free(&s);
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("trace");
    tcase_add_loop_test(tc, test_lab_traces, 0, (int)(sizeof expects / sizeof expects[0]));
    tcase_add_test(tc, test_traces_match_the_model);
    tcase_add_test(tc, test_64bit_rule);
    tcase_add_loop_test(tc, test_widths_loads_and_stores_alike, 0,
                        (int)(sizeof same_both_ways / sizeof same_both_ways[0]));
    tcase_add_test(tc, test_wide_loads_pair_up);
    tcase_add_test(tc, test_tile_flow);
    tcase_add_test(tc, test_race_spoils_correct);
    tcase_add_test(tc, test_shared_extent);
    tcase_add_test(tc, test_shared_extent_per_launch);
    tcase_add_test(tc, test_global_repeats);
    tcase_add_test(tc, test_global_atomics_a_side);
    tcase_add_test(tc, test_global_broadcast_not_repeat);
    tcase_add_test(tc, test_64bit_rule_catches_a_wide_tile);
    tcase_add_test(tc, test_race_rules);
    tcase_add_test(tc, test_release_acquire_orders_warps);
    tcase_add_test(tc, test_trace_defers_tile_barriers);
    tcase_add_test(tc, test_race_either_direction);
    tcase_add_test(tc, test_race_pairs_of_lines);
    tcase_add_test(tc, test_blocks_share_no_word);
    tcase_add_test(tc, test_races_independent_of_record_order);
    tcase_add_test(tc, test_checked_blocks_are_the_lowest);
    tcase_add_test(tc, test_stream_checks_every_block);
    tcase_add_test(tc, test_bad_records);
    tcase_add_test(tc, test_dead_word_loads);
    tcase_add_test(tc, test_text_format);
    tcase_add_test(tc, test_lineinfo_parse);
    tcase_add_test(tc, test_lineinfo_errors);
    tcase_add_test(tc, test_lineinfo_from_cubin);
    tcase_add_test(tc, test_conflict_check_names_the_line);
    tcase_add_test(tc, test_lines_fold_an_unrolled_loop);
    tcase_add_test(tc, test_bank_map_conflict_free_and_wide);
    tcase_add_test(tc, test_race_check);
    tcase_add_test(tc, test_race_across_loop_passes);
    tcase_add_test(tc, test_race_in_kernel_checks);
    tcase_add_test(tc, test_big_sampled_trace);
    suite_add_tcase(s, tc);
    return s;
}
