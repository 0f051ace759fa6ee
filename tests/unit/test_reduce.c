/*
 * test_reduce.c - what labs 7 and 8 rest on: the host references (sums that
 * wrap, partial sums, the shuffles), the size lists, the tree model the grader
 * and the figures share, the lane race rule, and the plan of a call with
 * nothing to do (n = 0).
 */
#include "compare/sum_explain.h"
#include "measure/access/lane_race.h"
#include "measure/access/trace.h"
#include "labs/calls.h"
#include "model/reduce_model.h"
#include "record/plan.h"
#include "reduce_ref.h"
#include "labs/reduce_sizes.h"

#include <check.h>
#include <limits.h>
#include <string.h>

extern const lab_def lab7_def, lab8_def;

/* The counts of a kernel that adds each of n elements `all` times (at most 1024 probed). */
static int32_t counts_buf[1024];
static sum_counts counts_of(long n, long per, int32_t all)
{
    long probed = n < 1024 ? n : 1024;
    for (long j = 0; j < probed; j++)
        counts_buf[j] = all;
    return (sum_counts){.n = n, .per = per, .probed = probed, .count = counts_buf,
                        .junk_block = -1, .consistent = 1};
}

static const char *explain(const sum_counts *k)
{
    static char hint[640];
    ck_assert_int_eq(sum_explain(k, hint, sizeof hint), 1);
    return hint;
}

#define HAS(text, part) ck_assert_msg(strstr(text, part) != NULL, "%s lacks %s", text, part)
#define LACKS(text, part) ck_assert_msg(strstr(text, part) == NULL, "%s has %s", text, part)

/* Every class of a wrong sum (sum_explain.h), each from the counts that make it, and
   none of the others' words. */
START_TEST(test_sum_explained)
{
    /* every element k times */
    sum_counts k = counts_of(33, 256, 4);
    const char *h = explain(&k);
    HAS(h, "counts every element 4 times");
    LACKS(h, "misses");
    /* a shuffle up: lane 0's value added to itself at each level, the line named */
    k = counts_of(1, 256, 1024);
    k.shfl_up = "lab8.cu:121";
    h = explain(&k);
    HAS(h, "counts in[0] 1024 times");
    HAS(h, "__shfl_up_sync (lab8.cu:121)");
    HAS(h, "1024 = 2^10");
    LACKS(h, "every element");
    /* the last element of a ragged block missing: the tree over an odd count */
    k = counts_of(33, 256, 1);
    counts_buf[32] = 0;
    h = explain(&k);
    HAS(h, "Your sum misses in[32] of block 0: block 0, which holds 33 elements");
    HAS(h, "adds its first 32 only");
    HAS(h, "halve an odd count");
    /* elements missing in the middle of a block: the levels' order, in the tree's terms */
    k = counts_of(256, 256, 1);
    for (int j = 96; j < 128; j++)
        counts_buf[j] = 0;
    k.in_place = 1;
    h = explain(&k);
    HAS(h, "Your sum misses in[96 .. 127] of block 0 (32 elements)");
    HAS(h, "no __syncthreads() between the levels");
    LACKS(h, "tile");
    LACKS(h, "odd count");
    /* the same in a kernel with no shared memory: a race in global memory, no tile blamed */
    k.in_place = 0;
    k.no_shared = 1;
    h = explain(&k);
    HAS(h, "several threads write one word of global memory in an order nothing fixes");
    LACKS(h, "tile");
    k.no_shared = 0;
    h = explain(&k);
    HAS(h, "reads a word of the tile before the level above wrote it");
    /* half of every 64 counted twice: said once for every k */
    k = counts_of(1024, 1024, 1);
    for (int j = 0; j < 1024; j++)
        counts_buf[j] = j % 64 >= 32 ? 2 : 1;
    h = explain(&k);
    HAS(h, "Your sum counts in[64k + 32 .. 64k + 63] for every k (32 of every 64 elements) "
           "twice, every other element once");
    /* one lane of each warp, 32 times: a lane's value everywhere */
    k = counts_of(256, 256, 0);
    for (int j = 0; j < 256; j += 32)
        counts_buf[j] = 32;
    k.shfl_idx = "lab8.cu:99";
    h = explain(&k);
    HAS(h, "Only in[32k] (one lane of each warp) is in your sum, 32 times");
    HAS(h, "__shfl_sync at lab8.cu:99");
    /* the lower half of every warp, 4 times: shuffles within segments of 16 lanes */
    k = counts_of(256, 256, 0);
    for (int j = 0; j < 256; j++)
        counts_buf[j] = j % 32 < 16 ? 4 : 0;
    h = explain(&k);
    HAS(h, "Only lanes 0 .. 15 of each warp reach your sum, 4 times each, lanes 16 .. 31 not");
    HAS(h, "segments of 16 lanes");
    /* twice, each in two blocks' partial sums: the blocks overlap */
    static unsigned char adders[1024];
    k = counts_of(1025, 1024, 1);
    for (int j = 0; j < 1024; j++) {
        counts_buf[j] = j >= 256 ? 2 : 1;
        adders[j] = (unsigned char)(j >= 256 ? 2 : 1);
    }
    k.adders = adders;
    h = explain(&k);
    HAS(h, "Your sum counts in[256 .. 1023] of block 0 twice, each in the partial sums of two "
           "blocks or more");
    HAS(h, "start at in[b * 1024]");
    LACKS(h, "smem[tid + 32]");
    k.adders = NULL; /* one block's own: a level's, not the blocks' */
    h = explain(&k);
    HAS(h, "smem[tid + 32]");
    /* another size probed than the one that failed: said first */
    k = counts_of(33, 256, 2);
    k.at = "n = 256, a whole block";
    h = explain(&k);
    HAS(h, "At n = 256, a whole block: Your kernel counts every element 2 times");
    /* missing and twice at once: an index off by a block */
    k = counts_of(64, 32, 1);
    for (int j = 0; j < 32; j++)
        counts_buf[j] = 2, counts_buf[32 + j] = 0;
    h = explain(&k);
    HAS(h, "Your sum counts in[0 .. 31] of block 0 twice and misses in[32 .. 63] of block 1");
    /* a value that is no element: junk, before any count */
    k = counts_of(1, 256, 1);
    k.junk = 77, k.junk_block = 0, k.junk_value = 77;
    h = explain(&k);
    HAS(h, "With every element 0 your partial sums still add up to 77 (block 0's is 77)");
    /* counts that do not give the run's sum back: a race, before anything else */
    k.consistent = 0;
    h = explain(&k);
    HAS(h, "do not add up to what it gave");
    LACKS(h, "With every element 0");
    /* nothing probed: the caller's words stand */
    char hint[64];
    k = counts_of(5000, 256, 1);
    k.probed = 0;
    ck_assert_int_eq(sum_explain(&k, hint, sizeof hint), 0);
}
END_TEST

/* A set of elements in the array's words: single, a range, several, every k. */
START_TEST(test_sum_elements_text)
{
    unsigned char f[300] = {0};
    char buf[200];
    ck_assert_int_eq(sum_elements_text(f, 300, 256, buf, sizeof buf), 0);
    f[3] = 1;
    sum_elements_text(f, 300, 256, buf, sizeof buf);
    ck_assert_str_eq(buf, "in[3] of block 0");
    f[4] = f[5] = 1, f[10] = 1, f[260] = 1;
    ck_assert_int_eq(sum_elements_text(f, 300, 256, buf, sizeof buf), 5);
    ck_assert_str_eq(buf, "in[3 .. 5], in[10] and in[260] (blocks 0 .. 1)");
    f[20] = f[30] = 1;
    sum_elements_text(f, 300, 256, buf, sizeof buf);
    ck_assert_str_eq(buf, "in[3 .. 5], in[10], in[20], ... (blocks 0 .. 1)");
    memset(f, 0, sizeof f);
    for (int j = 0; j < 256; j++)
        f[j] = j % 32 == 0;
    sum_elements_text(f, 256, 256, buf, sizeof buf);
    ck_assert_str_eq(buf, "in[32k] for every k (1 of every 32 elements)");
}
END_TEST

START_TEST(test_sum_wraps)
{
    int32_t x[3] = {INT32_MAX, 1, 5};
    ck_assert_int_eq(ref_sum(x, 3), INT32_MIN + 5);
    ck_assert_int_eq(ref_sum(x, 0), 0);
    int32_t y[4] = {-3, -4, 10, 0};
    ck_assert_int_eq(ref_sum(y, 4), 3);
}
END_TEST

START_TEST(test_partials)
{
    int32_t x[10], p[4];
    for (int i = 0; i < 10; i++)
        x[i] = i + 1;
    ref_partials(x, 10, 4, p, 4); /* 1..4, 5..8, 9..10, past n */
    ck_assert_int_eq(p[0], 10);
    ck_assert_int_eq(p[1], 26);
    ck_assert_int_eq(p[2], 19);
    ck_assert_int_eq(p[3], 0);
    ck_assert_int_eq(ref_sum_partials(p, 4), 55);
}
END_TEST

START_TEST(test_fill_kinds)
{
    static int32_t x[5000];
    reduce_fill(x, 5000, VALUES_NEGATIVE, 1);
    for (int i = 0; i < 5000; i++)
        ck_assert(x[i] < 0 && x[i] >= -1000);
    reduce_fill(x, 5000, VALUES_WRAP, 2);
    int64_t exact = 0;
    for (int i = 0; i < 5000; i++)
        exact += x[i];
    ck_assert_msg(exact > INT32_MAX || exact < INT32_MIN, "the wrap input's sum must overflow int");
    ck_assert_int_eq(ref_sum(x, 5000), (int32_t)(uint32_t)(uint64_t)exact);
}
END_TEST

START_TEST(test_shuffles)
{
    int32_t in[128], out[128];
    for (int i = 0; i < 128; i++)
        in[i] = i;
    ref_shuffle(EXERCISE_BROADCAST, 5, in, out);
    ck_assert_int_eq(out[0], 5);
    ck_assert_int_eq(out[31], 5);
    ref_shuffle(EXERCISE_UP, 3, in, out);
    ck_assert_int_eq(out[2], 2); /* below delta: its own */
    ck_assert_int_eq(out[3], 0);
    ck_assert_int_eq(out[31], 28);
    ref_shuffle(EXERCISE_DOWN, 3, in, out);
    ck_assert_int_eq(out[0], 3);
    ck_assert_int_eq(out[29], 29); /* past the end: its own */
    ref_shuffle(EXERCISE_WRAP, 7, in, out);
    ck_assert_int_eq(out[30], 5);
    ref_shuffle(EXERCISE_XOR, 16, in, out);
    ck_assert_int_eq(out[3], 19);
    ref_shuffle(EXERCISE_XOR_ARRAY, 1, in, out);
    ck_assert_int_eq(out[0], 4);
    ck_assert_int_eq(out[7], 3);
    ck_assert_int_eq(ref_shuffle_elems(EXERCISE_XOR_ARRAY), 128);
}
END_TEST

/* The sizes the issue asks for are there: 0, 1, a warp, a block, no power of two,
   2^24 + 7 on a GPU; negative and wrapping inputs. */
START_TEST(test_sizes)
{
    int have0 = 0, have1 = 0, warp = 0, block = 0, odd = 0, big = 0, neg = 0, wrap = 0;
    for (int i = 0; i < sizes_reduce_count; i++) {
        const reduce_size *s = &sizes_reduce[i];
        int both = (s->devices & SIZE_BOTH) == SIZE_BOTH;
        have0 |= s->n == 0 && both;
        have1 |= s->n == 1 && both;
        warp |= s->n == 32 && both;
        block |= s->n == 256 && both;
        odd |= (s->n & (s->n - 1)) != 0 && s->n % 256 != 0 && both;
        big |= s->n == (1 << 24) + 7 && (s->devices & SIZE_GPU);
        neg |= s->values == VALUES_NEGATIVE;
        wrap |= s->values == VALUES_WRAP;
    }
    ck_assert(have0 && have1 && warp && block && odd && big && neg && wrap);
    ck_assert_int_eq(sizes_reduce_speed.n, 1 << 26);
    ck_assert(sizes_reduce_traffic_emulated.n % 1024 != 0); /* a ragged last block */
}
END_TEST

START_TEST(test_tree_model)
{
    bank_geometry g;
    tree_cost seq, il;
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    ck_assert_int_eq(reduce_tree_model(&g, 256, 0, &seq), 0);
    ck_assert_int_eq(reduce_tree_model(&g, 256, 1, &il), 0);
    ck_assert_int_eq(seq.levels, 8);
    ck_assert_int_eq(seq.ld_requests, 24); /* warps 4, 2, 1, 1, 1, 1, 1, 1: two loads each */
    ck_assert_int_eq(seq.st_requests, 12);
    ck_assert_int_eq(seq.block_requests, 45);
    ck_assert_int_eq(seq.ld_wavefronts, seq.ld_ideal);
    ck_assert_double_eq_tol(reduce_tree_load_degree(&seq), 1.0, 1e-12);
    ck_assert_int_eq(il.ld_requests, 24);
    ck_assert_int_eq(il.ld_wavefronts, 94);
    ck_assert_int_eq(il.level[2].degree, 8); /* stride 4: 8-way */
    ck_assert_double_eq_tol(reduce_tree_load_degree(&il), 95.0 / 25.0, 1e-12);
    /* nvcc -O3 loads stride 1's pair as one 8-byte load: 4 requests, 8 wavefronts fewer,
       what the trace measured on an H100 (3.48-way) */
    ck_assert_int_eq(il.merged_ld_requests, 20);
    ck_assert_double_eq_tol(reduce_tree_load_degree_merged(&il), 87.0 / 25.0, 1e-12);
    ck_assert_double_eq_tol(reduce_tree_load_degree_merged(&seq), 1.0, 1e-12);
    ck_assert_int_eq(reduce_tree_model(&g, 100, 0, &seq), -1);
}
END_TEST

/* The fewest requests a block that runs the tree in the tile makes (issue 36): what a tree
   in registers, a library's or one block doing all the work falls below. */
START_TEST(test_tree_needs)
{
    bank_geometry g;
    tree_cost seq, il, big;
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    ck_assert_int_eq(reduce_tree_model(&g, 256, 0, &seq), 0);
    ck_assert_int_eq(reduce_tree_model(&g, 256, 1, &il), 0);
    ck_assert_int_eq(reduce_tree_model(&g, 1024, 0, &big), 0);
    /* warps 4, 2, 1, 1, 1, 1, 1, 1: the levels after the first load (8), all but the last
       store (11) */
    ck_assert_int_eq(seq.need_ld_requests, 8);
    ck_assert_int_eq(seq.need_st_requests, 11);
    ck_assert_int_eq(il.need_ld_requests, 8); /* interleaved: 4, 2, 1 ... warps too */
    ck_assert_int_eq(il.need_st_requests, 11);
    /* 1024 threads: warps 16, 8, 4, 2, 1 x 6 */
    ck_assert_int_eq(big.need_ld_requests, 8 + 4 + 2 + 6);
    ck_assert_int_eq(big.need_st_requests, 16 + 8 + 4 + 2 + 5);
    /* the kit's step 3 (its last warp's running sum in a register) makes 19 loads and 19
       stores a block, fill included, the model's tree 25 and 20: both above */
    ck_assert(seq.need_ld_requests < 19 && seq.need_st_requests < 19);
    ck_assert(seq.need_ld_requests < seq.ld_requests + 1 &&
              seq.need_st_requests < seq.st_requests + 8);
}
END_TEST

static trace_record rec(uint64_t pc, uint32_t active, int stride, uint16_t flags)
{
    trace_record r;
    memset(&r, 0, sizeof r);
    r.pc = pc;
    r.active = active;
    r.width = flags & (TRACE_READ | TRACE_WRITE) ? 4 : 0;
    r.flags = flags;
    for (int l = 0; l < 32; l++)
        r.addr[l] = (uint32_t)(l + stride) * 4u;
    return r;
}

static int lane_races_of(const trace_record *r, int n, trace_summary *s)
{
    bank_geometry g;
    char why[256];
    bank_geometry_for(9, 0, 32, 0, &g);
    ck_assert_msg(trace_analyze(&g, r, (size_t)n, s, why, sizeof why) == 0, "%s", why);
    int in_warp = 0;
    for (int i = 0; i < s->n_races; i++)
        in_warp += s->races[i].in_warp;
    return in_warp;
}

/* The unrolled last warp: each lane stores its word, then reads the word 16 up. */
START_TEST(test_lane_races)
{
    trace_summary s;
    trace_record unsafe[] = {rec(0x10, 0xffffffffu, 0, TRACE_WRITE),
                             rec(0x20, 0x0000ffffu, 16, TRACE_READ)};
    ck_assert_int_eq(lane_races_of(unsafe, 2, &s), 1);
    ck_assert(s.races[0].in_warp && s.races[0].lane_a == 16 && s.races[0].lane_b == 0);
    ck_assert_int_eq(s.races[0].words, 16);
    char text[400];
    ck_assert_ptr_nonnull(strstr(trace_race_text(&s.races[0], text, sizeof text),
                                 "lanes 16 and 0 of warp 0 of block 0"));
    trace_summary_free(&s);

    trace_record safe[] = {rec(0x10, 0xffffffffu, 0, TRACE_WRITE),
                           rec(0x18, 0xffffffffu, 0, TRACE_SYNCWARP),
                           rec(0x20, 0x0000ffffu, 16, TRACE_READ),
                           rec(0x28, 0xffffffffu, 0, TRACE_SYNCWARP),
                           rec(0x30, 0xffffffffu, 0, TRACE_WRITE)};
    ck_assert_int_eq(lane_races_of(safe, 5, &s), 0);
    trace_summary_free(&s);

    /* a read, then another lane's store of that word with no __syncwarp: read first */
    trace_record war[] = {rec(0x20, 0x0000ffffu, 16, TRACE_READ),
                          rec(0x30, 0xffffffffu, 0, TRACE_WRITE)};
    ck_assert_int_eq(lane_races_of(war, 2, &s), 1);
    ck_assert(s.races[0].read_first);
    trace_summary_free(&s);

    /* a lane reading its own word is no race */
    trace_record own[] = {rec(0x10, 0xffffffffu, 0, TRACE_WRITE),
                          rec(0x20, 0xffffffffu, 0, TRACE_READ)};
    ck_assert_int_eq(lane_races_of(own, 2, &s), 0);
    trace_summary_free(&s);
}
END_TEST

/* n = 0: the call may launch nothing; the other calls may not. */
START_TEST(test_calls_and_empty_plan)
{
    static call_spec specs[CALL_MAX];
    const lab_kernel *k = &lab7_def.kernels[1];
    int n = lab_calls(&lab7_def, k, specs), empty = -1, one = -1;
    ck_assert_int_gt(n, sizes_reduce_count);
    for (int i = 0; i < n; i++) {
        if (specs[i].width == 0 && (specs[i].role & CALL_CORRECT))
            empty = i;
        if (specs[i].width == 1)
            one = i;
    }
    ck_assert_int_ge(empty, 0);
    ck_assert(specs[empty].role & CALL_EMPTY);
    ck_assert(!(specs[one].role & CALL_EMPTY));
    ck_assert_int_eq(specs[one].n_args, 3);

    lab_image img;
    rec_call a;
    call_plan plan;
    char why[512];
    memset(&img, 0, sizeof img);
    memset(&a, 0, sizeof a);
    a.magic = REC_MAGIC;
    a.status = REC_RETURNED;
    ck_assert_int_eq(plan_from_records(&lab7_def, k, &img, &specs[empty], &a, &a, &plan, why,
                                       sizeof why), 0);
    ck_assert_int_eq(plan.n_launches, 0);
    ck_assert_int_eq(plan_from_records(&lab7_def, k, &img, &specs[one], &a, &a, &plan, why,
                                       sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "launched no kernel"));

    /* an exercise of lab 8: one call a value it takes */
    n = lab_calls(&lab8_def, &lab8_def.kernels[0], specs);
    ck_assert_int_eq(n, sizes_shfl_broadcast_count);
    ck_assert(specs[0].role & CALL_TRAFFIC);
}
END_TEST

Suite *reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("reduce");
    tcase_add_test(tc, test_sum_explained);
    tcase_add_test(tc, test_sum_elements_text);
    tcase_add_test(tc, test_sum_wraps);
    tcase_add_test(tc, test_partials);
    tcase_add_test(tc, test_fill_kinds);
    tcase_add_test(tc, test_shuffles);
    tcase_add_test(tc, test_sizes);
    tcase_add_test(tc, test_tree_model);
    tcase_add_test(tc, test_tree_needs);
    tcase_add_test(tc, test_lane_races);
    tcase_add_test(tc, test_calls_and_empty_plan);
    suite_add_tcase(s, tc);
    return s;
}
