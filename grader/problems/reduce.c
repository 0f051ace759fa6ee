/*
 * reduce.c - grading one kernel of labs 7 and 8 (PROBLEM_REDUCE).
 *
 * A reduction (int sums, wrapping): its blocks of DIM threads write one
 * partial sum each into an array the grader sizes from the launch
 * (gridDim.x ints, guarded), and the grader adds them up. Checks:
 *   correct         every size of labs/reduce_sizes.c (n = 0: nothing
 *                   launched, or partial sums that add up to 0)
 *   global-traffic  loads and stores against the step's model: step 1 the
 *                   tree's round trips, later steps each element once and
 *                   one store a block
 *   smem-conflicts  the tree's bank conflicts and shared requests (warps
 *                   that sit out a level but still issue it), against
 *                   model/reduce_model.c
 *   shuffle         lab 8: shuffles executed; shared memory no more than a
 *                   word a warp (none at all in the exercises)
 *   dynamic-tile    step 4: extern __shared__, its bytes at launch
 *   race            between warps (barriers) and between lanes (__syncwarp)
 *   speed           against CUB's cub::DeviceReduce::Sum on the same input
 * A shuffle exercise of lab 8 (one warp, 32 ints in and out) gets correct
 * and shuffle.
 */
#include "../compare/compare.h"
#include "../compare/sum_explain.h"
#include "../measure/emulator/lab_decls.h"
#include "../model/reduce_model.h"
#include "../reference/reduce_ref.h"
#include "../run/cub.h"
#include "../run/device.h"
#include "../run/gpu.h"
#include "../run/timing.h"
#include "float_run.h"
#include "problem.h"
#include "traffic.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A relative slack on the request count of the tree: styles of the same tree
   differ (a barrier a level, the last warp unrolled); divergence costs 3x. */
#define TREE_REQUEST_SLACK 1.5
/* The interleaved tree's degree against its model's range (a kernel's other loads dilute it). */
#define TREE_DEGREE_TOLERANCE 0.05
/* Step 1: its global traffic within this factor of the tree's round trips, either way. */
#define GMEM_MODEL_FACTOR 1.5
/* Ints past the output of the measured run, beyond one a warp (a block's warps' worth,
   times two): a kernel that writes past its partial sums is still measured. */
#define MEASURED_SLACK_INTS 64
/* A wrong sum of at most this many elements is probed element by element (a launch
   each, sum_explain.h): every size up to UNROLL x DIM and one is. */
#define PROBE_MAX_ELEMENTS 1100

typedef struct red {
    problem *p;
    const lab_kernel *k;
    int *in, *out; /* the input; the partial sums (or an exercise's output) */
    /* Step 1's tree runs in place: its measured launch starts from this copy of the
       input every time (a backend may run it more than once: the trace does when
       its buffer was too small) */
    int *pristine;
    size_t in_bytes;
    int dim;       /* DIM: threads of a block */
    long n, blocks;          /* the measured run's elements and blocks */
    int32_t want;            /* a reduction's: the sum its partial sums must add up to */
    int32_t want_lanes[128]; /* an exercise's: every element of its output */
    int wrong_call;          /* an exercise's first value whose output was wrong, or -1 */
} red;

/* A launch that failed (a fault, a time-out, an instruction not emulated). */
static run_outcome fail_launch(check_result *c, const char *label, const char *why)
{
    check_fail_launch(c, label, why, "The kernel faulted or could not launch at this size. "
                      "Check every index against n (the last block may hold fewer elements), "
                      "the tile's index against DIM, and the partial sum's against the blocks "
                      "launched (partial holds gridDim.x ints).");
    return dev_context_lost() ? RUN_LOST : RUN_FAILED;
}

/* in and the partial sums; step 1's in-place tree starts from its input every time */
static void red_bind(const problem *p, void *bufs[])
{
    const red *r = p->state;
    if (r->pristine)
        dev_copy(r->in, r->pristine, r->in_bytes, cudaMemcpyDeviceToDevice);
    bufs[0] = r->in, bufs[1] = r->out;
}

static int exercise(const red *r)
{
    return r->k->reduce.exercise != EXERCISE_NONE;
}

/* Blocks of the call's launch (0: none launched, or a grid of 0). */
static long blocks_of(const call_plan *p)
{
    if (p->n_launches == 0)
        return 0;
    const plan_launch *l = &p->launches[0];
    return (long)l->grid[0] * l->grid[1] * l->grid[2];
}

/* The elements one block of this kernel covers: DIM * per_thread. */
static long per_block(const red *r)
{
    int per = r->k->reduce.per_thread > 0 ? r->k->reduce.per_thread : 1;
    return (long)r->dim * per;
}

/* --- the contract ------------------------------------------------------------ */

/*
 * The block (and for an exercise the grid) every launch must have: a named
 * failure, never a run with a shape the models and the partial-sum array do
 * not assume. 0, or -1 with correct failed.
 */
static int red_shapes(problem *p)
{
    red *r = p->state;
    check_result *c = &p->c[CHK_CORRECT];
    const kernel_plan *plan = p->env->plan;
    int want = exercise(r) ? 32 : r->dim;
    for (int i = 0; i < plan->n_calls; i++) {
        const call_plan *p = &plan->calls[i];
        for (int j = 0; j < p->n_launches; j++) {
            const plan_launch *l = &p->launches[j];
            long blocks = (long)l->grid[0] * l->grid[1] * l->grid[2];
            int bad_block = l->block[0] != (unsigned)want || l->block[1] != 1 || l->block[2] != 1;
            int bad_grid = exercise(r) ? blocks != 1 : l->grid[1] != 1 || l->grid[2] != 1;
            if (!bad_block && !bad_grid)
                continue;
            if (bad_block)
                check_set(c, CHECK_FAIL, "at %s: %s launches blocks of %ux%ux%u "
                          "threads; the exercise's blocks are %d x 1 x 1", plan->specs[i].label,
                          r->k->launcher, l->block[0], l->block[1], l->block[2], want);
            else
                check_set(c, CHECK_FAIL, "at %s: %s launches a grid of %ux%ux%u "
                          "blocks; the exercise's is %s", plan->specs[i].label, r->k->launcher,
                          l->grid[0], l->grid[1], l->grid[2],
                          exercise(r) ? "one block (one warp)" : "1-D (blocks along x)");
            check_field(c->hint, sizeof c->hint, "%s",
                        exercise(r) ? "Each exercise runs on one warp: <<<1, WARP>>>, WARP = 32."
                                    : "The contract fixes DIM threads a block, in 1-D: the "
                                      "tile, the tree's levels and one partial sum a block "
                                      "assume it, and so do the grader's models. Launch "
                                      "<<<blocks, DIM>>> (blocks along x).");
            return -1;
        }
    }
    return 0;
}

/* --- correctness: the sums --------------------------------------------------- */

/* Up to `max` blocks' numbers "3, 7 and 9" into buf. */
static void list_blocks(const long *b, int n, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t at = strlen(buf);
        snprintf(buf + at, size - at, "%s%ld", i == 0 ? "" : i == n - 1 ? " and " : ", ", b[i]);
    }
}

/* k such that the first k of a block's elements add up to got, or -1 (k < count). */
static long prefix_matching(const int32_t *x, long count, int32_t got)
{
    uint32_t s = 0;
    for (long k = 0; k < count; k++) {
        if ((int32_t)s == got && k > 0)
            return k;
        s += (uint32_t)x[k];
    }
    return -1;
}

/*
 * The hint of a wrong sum, from the partial sums the kernel wrote against
 * those of the exercise's partition (block b: elements b * DIM * per_thread
 * on). Says what the kernel did: which blocks are wrong, and what a wrong
 * block's sum is when it is a part of its elements.
 */
static void sum_hint(red *r, const int32_t *x, long n, const int32_t *got, long blocks,
                     check_result *c)
{
    long per = per_block(r), want_blocks = (n + per - 1) / per;
    if (blocks != want_blocks) {
        check_field(c->hint, sizeof c->hint, "Your launch has %ld block%s where the exercise's "
                    "has %ld (each covers DIM x %d = %ld elements): the grader adds every block's "
                    "partial sum, so each element must be in exactly one block's.", blocks,
                    blocks == 1 ? "" : "s", want_blocks, r->k->reduce.per_thread, per);
        return;
    }
    int32_t *ref = malloc((size_t)blocks * sizeof *ref);
    long wrong = 0, unwritten = 0, first_wrong = -1, first_unwritten = -1, shown[4];
    int n_shown = 0;
    ref_partials(x, (size_t)n, (size_t)per, ref, (size_t)blocks);
    for (long b = 0; b < blocks; b++) {
        if (got[b] == ref[b])
            continue;
        wrong++;
        unwritten += got[b] == GPU_POISON_INT;
        if (got[b] == GPU_POISON_INT && first_unwritten < 0)
            first_unwritten = b;
        if (first_wrong < 0)
            first_wrong = b;
        if (n_shown < 4)
            shown[n_shown++] = b;
    }
    char list[64];
    list_blocks(shown, n_shown, list, sizeof list);
    long last = blocks - 1, last_count = n - last * per;
    /* every wrong block's sum a multiple of its elements' sum: elements counted k times */
    int times = 0;
    for (int k = 2; k <= 64 && !times && first_wrong >= 0 && ref[first_wrong] != 0; k++) {
        int all = 1;
        for (long b = 0; b < blocks && all; b++)
            all = got[b] == ref[b] || (int32_t)((uint32_t)ref[b] * (uint32_t)k) == got[b];
        if (all)
            times = k;
    }
    if (times) {
        check_field(c->hint, sizeof c->hint, "Your kernel counts every element %d times: %s "
                    "sum is %d where its elements add up to %d. A level of a tree or of the "
                    "shuffles adds a value to itself: in a shuffle whose source lane lies outside "
                    "the segment (a laneMask or delta at least the width, or a width narrower "
                    "than the warp), a lane keeps its own value, and adding it counts it twice.",
                    times, blocks == 1 ? "its block's" : "block 0's", got[first_wrong],
                    ref[first_wrong]);
    } else if (unwritten > 0) {
        check_field(c->hint, sizeof c->hint, "%ld of your %ld blocks wrote no partial sum "
                    "(partial[%ld] still holds the grader's poison): every block's thread 0 "
                    "must write its sum, also a block with fewer elements than the others.",
                    unwritten, blocks, first_unwritten);
    } else if (wrong == 1 && first_wrong == last && last_count < per) {
        long k = prefix_matching(x + last * per, last_count, got[last]);
        char part[160] = "";
        if (k > 0)
            snprintf(part, sizeof part, ": it is the sum of its first %ld elements only", k);
        check_field(c->hint, sizeof c->hint, "%s, which holds %ld element%s (fewer than its "
                    "%ld, n being no multiple of it): its partial sum is %d where its elements "
                    "add up to %d%s. Elements past n must add nothing (0 in the tile), and every "
                    "element before n something; a tree over a count that is no power of two "
                    "loses elements at the levels that halve an odd count.",
                    blocks == 1 ? "Your one block is wrong" : "Only the last block is wrong",
                    last_count, last_count == 1 ? "" : "s", per, got[last], ref[last], part);
    } else if (wrong == blocks) {
        long k = prefix_matching(x, n < per ? n : per, got[0]);
        char part[160] = "";
        if (k > 0)
            snprintf(part, sizeof part, " Block 0's is the sum of its first %ld elements only "
                     "(of %ld): the tree stops early, or a thread adds fewer of its elements.",
                     k, n < per ? n : per);
        check_field(c->hint, sizeof c->hint, "Every block's partial sum is wrong (block 0: %d, "
                    "its elements add up to %d).%s Work out, for one thread, which elements it "
                    "adds and which %s it reads at each level.", got[0], ref[0], part,
                    r->k->reduce.in_place ? "elements of in[]" : "words of the tile");
    } else {
        check_field(c->hint, sizeof c->hint, "%ld of %ld blocks' partial sums are wrong (blocks "
                    "%s%s), whole blocks among them: a level that reads before the level above "
                    "has written (a missing __syncthreads() or __syncwarp(): then the wrong "
                    "blocks change from run to run), or an index that is off for some threads.",
                    wrong, blocks, list, wrong > n_shown ? ", ..." : "");
    }
    free(ref);
}

/* Declared below: the probes run the call as run_sum does. */
static run_outcome run_into(red *r, guarded *out, int32_t *got, long *guard, const char *label,
                            check_result *c);

/* Where the kernel of call i has an instruction of this opcode prefix ("shfl.sync.up"),
   into at; NULL where it has none. */
static const char *kernel_has(const red *r, int i, const char *prefix, char *at, size_t size)
{
    const worker_env *env = r->p->env;
    const call_plan *plan = &env->plan->calls[i];
    if (!env->decls || plan->n_launches == 0)
        return NULL;
    const char *name = env->img->kernels[plan->launches[0].kernel].name;
    if (!lab_decls_instr(env->decls, name, prefix, at, size))
        return NULL;
    if (!at[0])
        snprintf(at, size, "its line not known");
    return at;
}

/* Whether the kernel of call i declares no shared memory (no tile, static or dynamic). */
static int kernel_without_shared(const red *r, int i)
{
    const worker_env *env = r->p->env;
    const call_plan *plan = &env->plan->calls[i];
    uint32_t bytes = 0;
    int dynamic = 0;
    if (!env->decls || plan->n_launches == 0)
        return 0;
    const char *name = env->img->kernels[plan->launches[0].kernel].name;
    return lab_decls_shared(env->decls, name, &bytes, &dynamic) == 0 && bytes == 0 && !dynamic;
}

/* One probe: v (n ints) in r->in, the kernel, its partial sums added up into *total. */
static int probe_run(red *r, guarded *out, const int32_t *v, long n, long blocks,
                     int32_t *part, int32_t *total, const char *label)
{
    check_result scratch;
    long guard = 0;
    char why[128];
    if (dev_copy(r->in, v, (size_t)n * sizeof *v, cudaMemcpyHostToDevice) != cudaSuccess ||
        guarded_poison(out, why, sizeof why) != 0 ||
        run_into(r, out, part, &guard, label, &scratch) != RUN_RIGHT)
        return -1;
    *total = ref_sum_partials(part, (size_t)blocks);
    return 0;
}

/*
 * What the kernel does with each element of call i (n of them, its wrong run's input
 * x and partial sums got): the call run again on all zeros (what it adds that is no
 * element) and on inputs 0 but for one element (how many times that one is in the
 * total), a launch each; then whether those counts give the wrong run's total back.
 * 0 with k filled (count: n ints the caller frees), or -1 where a probe did not run.
 */
static int probe_counts(red *r, guarded *out, const int32_t *x, long n, const int32_t *got,
                        long blocks, const char *label, sum_counts *k)
{
    int32_t *v = calloc((size_t)n, sizeof *v), *part = malloc((size_t)blocks * sizeof *part);
    int32_t *zero = malloc((size_t)blocks * sizeof *zero), total = 0;
    int32_t *count = calloc((size_t)n, sizeof *count);
    unsigned char *adders = calloc((size_t)n, 1);
    int rc = v && part && zero && count && adders ? 0 : -1;
    if (rc == 0)
        rc = probe_run(r, out, v, n, blocks, zero, &k->junk, label);
    k->junk_block = -1;
    for (long b = 0; rc == 0 && b < blocks && k->junk_block < 0; b++)
        if (zero[b] != 0)
            k->junk_block = b, k->junk_value = zero[b];
    uint32_t predicted = (uint32_t)k->junk;
    for (long j = 0; rc == 0 && j < n; j++) {
        v[j] = 1;
        rc = probe_run(r, out, v, n, blocks, part, &total, label);
        v[j] = 0;
        count[j] = (int32_t)((uint32_t)total - (uint32_t)k->junk);
        for (long b = 0; b < blocks && adders[j] < 255; b++) /* which blocks took it */
            adders[j] += part[b] != zero[b];
        predicted += (uint32_t)count[j] * (uint32_t)x[j];
    }
    k->count = count;
    k->adders = adders;
    k->probed = rc == 0 ? n : 0;
    k->consistent = predicted == (uint32_t)ref_sum_partials(got, (size_t)blocks);
    free(v);
    free(part);
    free(zero);
    if (rc != 0) {
        free(count), free(adders);
        k->count = NULL, k->adders = NULL;
    }
    return rc;
}

/* The correct-role call of this device that fills exactly one block, or -1. */
static int whole_block_call(const red *r)
{
    const kernel_plan *plan = r->p->env->plan;
    for (int j = 0; j < plan->n_calls; j++)
        if ((plan->specs[j].role & CALL_CORRECT) && problem_runs(r->p, j) &&
            plan->specs[j].width == per_block(r) && blocks_of(&plan->calls[j]) == 1)
            return j;
    return -1;
}

/*
 * The counts of call j, a whole block, on buffers of its own (the failing call's are
 * the caller's): run once on fresh inputs, and probed where that run is wrong too.
 * 0 with k filled (k->count to free), -1 where it is right there or did not run.
 */
static int probe_whole_block(red *r, int j, sum_counts *k)
{
    problem *p = r->p;
    const call_spec *s = &p->env->plan->specs[j];
    long n = s->width, blocks = 1;
    int keep_call = p->call, rc = -1;
    int32_t *keep_in = r->in, *keep_out = r->out, got = 0;
    int32_t *x = malloc((size_t)n * sizeof *x);
    char why[128];
    long guard = 0;
    guarded out;
    check_result scratch;
    r->in = NULL;
    p->call = j;
    if (x && guarded_alloc(&out, sizeof(int), why, sizeof why) == 0) {
        reduce_fill(x, (size_t)n, (reduce_values)s->height, problem_seed(p) + 1);
        if (dev_malloc((void **)&r->in, (size_t)n * sizeof(int)) == cudaSuccess &&
            dev_copy(r->in, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
            run_into(r, &out, &got, &guard, s->label, &scratch) == RUN_RIGHT && guard == 0 &&
            got != GPU_POISON_INT && got != ref_sum(x, (size_t)n))
            rc = probe_counts(r, &out, x, n, &got, blocks, s->label, k);
        if (!dev_context_lost())
            guarded_free(&out), dev_free(r->in);
    }
    free(x);
    p->call = keep_call, r->in = keep_in, r->out = keep_out;
    return rc;
}

/*
 * The hint of a wrong sum of call i: what the probes found the kernel does with its
 * elements (sum_explain), where the size is small enough to probe and every block
 * wrote its partial sum; else what the partial sums alone say (sum_hint). A size of
 * less than two warps says little of a pattern: where the kernel is wrong on a whole
 * block too, that block's counts are what the hint tells.
 */
static void explain_sum(red *r, int i, const int32_t *x, long n, const int32_t *got,
                        long blocks, guarded *out, check_result *c)
{
    long per = per_block(r), unwritten = 0;
    for (long b = 0; b < blocks; b++)
        unwritten += got[b] == GPU_POISON_INT;
    sum_counts k = {.n = n, .per = per, .in_place = r->k->reduce.in_place};
    char up[64], idx[64], at[96];
    if (blocks != (n + per - 1) / per || unwritten || n > PROBE_MAX_ELEMENTS ||
        probe_counts(r, out, x, n, got, blocks, r->p->env->plan->specs[i].label, &k) != 0) {
        sum_hint(r, x, n, got, blocks, c);
        return;
    }
    int whole = n < 64 ? whole_block_call(r) : -1;
    sum_counts block = {.n = per, .per = per, .in_place = r->k->reduce.in_place};
    if (whole >= 0 && probe_whole_block(r, whole, &block) == 0) {
        free((void *)k.count), free((void *)k.adders);
        k = block;
        snprintf(at, sizeof at, "n = %ld, a whole block", per);
        k.at = at;
    }
    k.no_shared = kernel_without_shared(r, i);
    k.shfl_up = kernel_has(r, i, "shfl.sync.up", up, sizeof up);
    k.shfl_idx = kernel_has(r, i, "shfl.sync.idx", idx, sizeof idx);
    if (!sum_explain(&k, c->hint, sizeof c->hint))
        sum_hint(r, x, n, got, blocks, c);
    free((void *)k.count), free((void *)k.adders);
}

/* One run of call p->call into out, shared memory scrubbed first; got: what it wrote. */
static run_outcome run_into(red *r, guarded *out, int32_t *got, long *guard, const char *label,
                            check_result *c)
{
    char why[256];
    int lost = 0;
    r->out = out->data;
    if (module_scrub(r->p->mod, GPU_SCRUB_INT) != cudaSuccess)
        return fail_launch(c, label, "filling shared memory with junk failed");
    if (gpu_run(problem_launch, r->p, &lost, why, sizeof why) != 0 ||
        guarded_read(out, got, guard, why, sizeof why) != 0)
        return fail_launch(c, label, why);
    return RUN_RIGHT;
}

/* Call i: random input, the kernel, its partial sums added up against the reference. */
static run_outcome run_sum(red *r, int i, check_result *c)
{
    worker_env *env = r->p->env;
    const call_spec *s = &env->plan->specs[i];
    const call_plan *p = &env->plan->calls[i];
    long n = s->width, blocks = blocks_of(p);
    char why[256];
    long guard = 0;
    guarded out;
    run_outcome res = RUN_RIGHT;

    if (n == 0 && p->n_launches == 0)
        return RUN_RIGHT; /* nothing to add, nothing launched: right */
    if (blocks == 0) {
        check_set(c, CHECK_FAIL, "at %s: the launch has a grid of 0 blocks, which CUDA refuses "
                  "(invalid configuration)", s->label);
        check_field(c->hint, sizeof c->hint, "With n = 0 there is nothing to add: launch "
                    "nothing (if (n == 0) return; in the launcher). The grader then takes the "
                    "sum as 0.");
        return RUN_WRONG;
    }
    int32_t *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    int32_t *got = malloc((size_t)blocks * sizeof *got);
    reduce_fill(x, (size_t)n, (reduce_values)s->height, problem_seed(r->p));
    r->in = NULL;
    if (dev_malloc((void **)&r->in, (size_t)(n > 0 ? n : 1) * sizeof(int)) != cudaSuccess ||
        (n > 0 && dev_copy(r->in, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice) !=
                      cudaSuccess)) {
        res = fail_launch(c, s->label, "uploading the input failed");
        goto done_in;
    }
    if (guarded_alloc(&out, (size_t)blocks * sizeof(int), why, sizeof why) != 0) {
        res = fail_launch(c, s->label, why);
        goto done_in;
    }
    res = run_into(r, &out, got, &guard, s->label, c);
    if (res != RUN_RIGHT)
        goto done_out;
    if (guard > 0) {
        check_set(c, CHECK_FAIL, "at %s: wrote past its partial-sum array (partial holds %ld "
                  "int%s, one a block launched; %ld guard bytes after or before it changed)",
                  s->label, blocks, blocks == 1 ? "" : "s", guard);
        check_field(c->hint, sizeof c->hint, "Block b writes its sum to partial[blockIdx.x] "
                    "and nowhere else in partial: the array has gridDim.x ints. Is an index "
                    "off by one, or does more than one thread of a block store?");
        res = RUN_WRONG;
        goto done_out;
    }
    long poisoned = 0;
    for (long b = 0; b < blocks; b++)
        poisoned += got[b] == GPU_POISON_INT;
    int32_t sum = ref_sum_partials(got, (size_t)blocks), want = ref_sum(x, (size_t)n);
    if (poisoned == blocks) {
        check_set(c, CHECK_FAIL, "at %s: the output was never written (all %ld partial sums "
                  "still hold the poison value)", s->label, blocks);
        check_field(c->hint, sizeof c->hint, "Does every block's thread 0 store its sum in "
                    "partial[blockIdx.x]?");
        res = RUN_WRONG;
    } else if (sum != want) {
        check_set(c, CHECK_FAIL, "at %s: your %ld partial sum%s add%s up to %d; the elements add "
                  "up to %d", s->label, blocks, blocks == 1 ? "" : "s", blocks == 1 ? "s" : "",
                  sum, want);
        explain_sum(r, i, x, n, got, blocks, &out, c);
        res = RUN_WRONG;
    }
done_out:
    if (!dev_context_lost())
        guarded_free(&out);
    r->out = NULL;
done_in:
    if (!dev_context_lost())
        dev_free(r->in);
    r->in = NULL;
    free(x);
    free(got);
    if (res != RUN_RIGHT && res != RUN_WRONG && dev_context_lost())
        res = RUN_LOST;
    return res;
}

/* --- correctness: the shuffle exercises -------------------------------------- */

/* Distinct values, one a lane (and element), from the seed: where a value went tells
   which lane it came from. */
static void exercise_input(int32_t *x, int n, unsigned long long seed)
{
    reduce_fill(x, (size_t)n, VALUES_SMALL, seed);
    for (int t = 0; t < n; t++)
        x[t] = (int32_t)((uint32_t)x[t] * 1024u + (uint32_t)t); /* low bits: the index */
}

/* The lane whose value v is (in holds distinct values, `per` a lane), or -1. */
static int source_lane(const int32_t *in, int per, int32_t v)
{
    for (int j = 0; j < 32 * per; j++)
        if (in[j] == v)
            return j / per;
    return -1;
}

/* The lane lane reads with the exercise's shuffle at width `width` (PTX shfl.sync's
   rule, as the CUDA intrinsics set its c operand: segment mask 32 - width). */
static int shfl_source(reduce_exercise ex, int lane, int param, int width)
{
    int seg = 32 - width, clamp = ex == EXERCISE_UP ? 0 : 31;
    int max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg, j, ok;
    switch (ex) {
    case EXERCISE_UP: j = lane - (param & 31); ok = j >= max_lane; break;
    case EXERCISE_DOWN: j = lane + (param & 31); ok = j <= max_lane; break;
    case EXERCISE_XOR: case EXERCISE_XOR_ARRAY: j = lane ^ (param & 31); ok = j <= max_lane; break;
    case EXERCISE_WRAP: j = min_lane | ((lane + param) & 31 & ~seg); ok = j <= max_lane; break;
    default: j = min_lane | (param & 31 & ~seg); ok = j <= max_lane; break;
    }
    return ok && j >= 0 && j < 32 ? j : lane;
}

/* A shuffle by its intrinsic and the lane it reads, for naming what a kernel did. */
static const struct {
    reduce_exercise ex;
    const char *call, *reads;
} shuffles[] = {
    {EXERCISE_BROADCAST, "__shfl_sync(FULL_MASK, value, srcLane, WARP)", "lane srcLane"},
    {EXERCISE_UP, "__shfl_up_sync", "lane t - delta, the first delta lanes keeping their own"},
    {EXERCISE_DOWN, "__shfl_down_sync", "lane t + delta, the last delta lanes keeping their own"},
    {EXERCISE_WRAP, "__shfl_sync(FULL_MASK, value, threadIdx.x + offset, WARP)",
     "lane (t + offset) % 32"},
    {EXERCISE_XOR, "__shfl_xor_sync", "lane t ^ laneMask"},
};

/* The entry of shuffles[] of ex (the array exercise's is the butterfly's). */
static int shuffle_of(reduce_exercise ex)
{
    ex = ex == EXERCISE_XOR_ARRAY ? EXERCISE_XOR : ex;
    for (size_t i = 0; i < sizeof shuffles / sizeof *shuffles; i++)
        if (shuffles[i].ex == ex)
            return (int)i;
    return 0;
}

/* Another shuffle of the list that gives every lane the source it got at the call's
   value, over the whole warp: its entry, or -1. */
static int shuffle_that_fits(reduce_exercise ex, const int *got_src, int param)
{
    for (size_t i = 0; i < sizeof shuffles / sizeof *shuffles; i++) {
        int fits = shuffles[i].ex != (ex == EXERCISE_XOR_ARRAY ? EXERCISE_XOR : ex);
        for (int t = 0; t < 32 && fits; t++)
            fits = got_src[t] == shfl_source(shuffles[i].ex, t, param, 32);
        if (fits)
            return (int)i;
    }
    return -1;
}

/* The wrong lanes are lanes first .. *last, one run with no right lane inside (a branch
   around the shuffle leaves such a run out): 1, and its last lane. */
static int wrong_lanes_run(const int32_t *got, const int32_t *want, int per, int first, int *last)
{
    int end = first, gap = 0;
    for (int t = first; t < 32; t++) {
        int wrong = 0;
        for (int k = 0; k < per; k++)
            wrong |= got[per * t + k] != want[per * t + k];
        if (wrong && gap)
            return 0;
        if (wrong)
            end = t;
        else
            gap = 1;
    }
    *last = end;
    return 1;
}

/* What the kernel did, lane by lane: whose value each lane got, and which shuffle gives
   that: the exercise's with a narrower width, another one, or none at all. */
static void exercise_hint(const red *r, const int32_t *in, const int32_t *got,
                          const int32_t *want, int param, const char *label, check_result *c)
{
    reduce_exercise ex = r->k->reduce.exercise;
    int per = ex == EXERCISE_XOR_ARRAY ? 4 : 1;
    int got_src[32], bad = -1, n_bad = 0, own = 1, last = 0;
    for (int t = 0; t < 32; t++) {
        got_src[t] = source_lane(in, per, got[per * t]);
        for (int k = 0; k < per; k++)
            if (got[per * t + k] != want[per * t + k]) {
                n_bad++;
                own &= got_src[t] == t;
                if (bad < 0)
                    bad = t;
            }
    }
    if (bad < 0)
        return;
    int seg = 0;
    for (int w = 16; w >= 2 && !seg; w /= 2) {
        int fits = 1;
        for (int t = 0; t < 32 && fits; t++)
            fits = got_src[t] == shfl_source(ex, t, param, w);
        if (fits)
            seg = w;
    }
    int should = source_lane(in, per, want[per * bad]), mine = shuffle_of(ex);
    char whose[96];
    if (got_src[bad] >= 0)
        snprintf(whose, sizeof whose, "lane %d's value", got_src[bad]);
    else
        snprintf(whose, sizeof whose, "%d, no lane's value", got[per * bad]);
    if (seg) {
        check_field(c->hint, sizeof c->hint, "Lane %d got %s where the exercise gives it lane "
                    "%d's (%d value%s wrong): your shuffle works within segments of %d lanes, "
                    "as with a width of %d. The width (the last argument) is the segment the "
                    "lanes exchange in: WARP (32) for the whole warp.", bad, whose, should,
                    n_bad, n_bad == 1 ? "" : "s", seg, seg);
        return;
    }
    int other = shuffle_that_fits(ex, got_src, param);
    if (other >= 0) {
        check_field(c->hint, sizeof c->hint, "Lane %d got %s where the exercise gives it lane "
                    "%d's (at %s; %d value%s wrong): that is what %s gives, reading %s. This "
                    "exercise is %s: lane t reads %s.", bad, whose, should, label, n_bad,
                    n_bad == 1 ? "" : "s", shuffles[other].call, shuffles[other].reads,
                    shuffles[mine].call, shuffles[mine].reads);
    } else if (own && n_bad < 32 * per && wrong_lanes_run(got, want, per, bad, &last)) {
        check_field(c->hint, sizeof c->hint, "Lanes %d to %d kept their own values, where the "
                    "exercise gives lane %d lane %d's (at %s; %d value%s wrong), while the other "
                    "lanes exchanged theirs: those lanes did not take part in the %s. Does a "
                    "branch leave them out? Every lane that needs a value must execute the "
                    "shuffle, and its mask names the lanes that do.", bad, last, bad, should,
                    label, n_bad, n_bad == 1 ? "" : "s", shuffles[mine].call);
    } else if (own) {
        check_field(c->hint, sizeof c->hint, "Each wrong lane's out[threadIdx.x] holds that "
                    "lane's own value, where the exercise gives lane %d lane %d's (at %s; %d "
                    "value%s wrong): no exchange shows in out. Does each lane store the value "
                    "its %s returned, in its own slot?", bad, should, label, n_bad,
                    n_bad == 1 ? "" : "s", shuffles[mine].call);
    } else {
        check_field(c->hint, sizeof c->hint, "Lane %d got %s where the exercise gives it lane "
                    "%d's (at %s; %d value%s wrong): none of the chapter's shuffles gives that "
                    "there. The exercise is %s: lane t reads %s. Where you compute the source "
                    "lane yourself, check it at the warp's ends: __shfl_sync reads srcLane "
                    "modulo the width (no clamp), __shfl_up_sync and __shfl_down_sync leave the "
                    "lanes with no source their own value.", bad, whose, should, label,
                    n_bad, n_bad == 1 ? "" : "s", shuffles[mine].call, shuffles[mine].reads);
    }
}

static run_outcome run_exercise(red *r, int i, check_result *c)
{
    worker_env *env = r->p->env;
    const call_spec *s = &env->plan->specs[i];
    int n = ref_shuffle_elems(r->k->reduce.exercise);
    int32_t in[128], want[128], got[128];
    char why[256];
    long guard = 0;
    guarded out;
    run_outcome res = RUN_RIGHT;

    exercise_input(in, n, problem_seed(r->p));
    ref_shuffle(r->k->reduce.exercise, s->depth, in, want);
    r->in = NULL;
    if (dev_malloc((void **)&r->in, (size_t)n * sizeof(int)) != cudaSuccess ||
        dev_copy(r->in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
        dev_free(r->in);
        r->in = NULL;
        return fail_launch(c, s->label, "uploading the input failed");
    }
    if (guarded_alloc(&out, (size_t)n * sizeof(int), why, sizeof why) != 0) {
        dev_free(r->in);
        r->in = NULL;
        return fail_launch(c, s->label, why);
    }
    res = run_into(r, &out, got, &guard, s->label, c);
    if (res == RUN_RIGHT) {
        int poisoned = 0, wrong = 0;
        for (int e = 0; e < n; e++) {
            poisoned += got[e] == GPU_POISON_INT;
            wrong += got[e] != want[e];
        }
        if (guard > 0) {
            check_set(c, CHECK_FAIL, "at %s: wrote outside out (%ld guard bytes changed)",
                      s->label, guard);
            check_field(c->hint, sizeof c->hint, "Lane t writes out[t] (out[4t] .. out[4t + 3] "
                        "in the array exercise) and nothing else.");
            res = RUN_WRONG;
        } else if (poisoned == n) {
            check_set(c, CHECK_FAIL, "at %s: the output was never written (all %d elements still "
                      "hold the poison value)", s->label, n);
            check_field(c->hint, sizeof c->hint, "Each lane stores the value it got: "
                        "out[threadIdx.x] = value;");
            res = RUN_WRONG;
        } else if (wrong) {
            check_set(c, CHECK_FAIL, "at %s: %d of %d elements differ from the exercise's "
                      "shuffle", s->label, wrong, n);
            exercise_hint(r, in, got, want, s->depth, s->label, c);
            res = RUN_WRONG;
        }
    }
    if (res != RUN_LOST && !dev_context_lost())
        guarded_free(&out), dev_free(r->in);
    r->in = r->out = NULL;
    if (res == RUN_FAILED && dev_context_lost())
        res = RUN_LOST;
    return res;
}

/* Call p->call: a sum, or an exercise's shuffle. */
static run_outcome red_run(problem *p, check_result *c)
{
    red *r = p->state;
    run_outcome out = exercise(r) ? run_exercise(r, p->call, c) : run_sum(r, p->call, c);
    if (out == RUN_WRONG && r->wrong_call < 0)
        r->wrong_call = p->call;
    return out;
}

static void red_passed(problem *p, int runs, int last, const char *each, check_result *c)
{
    (void)last;
    if (exercise(p->state))
        check_set(c, CHECK_PASS, "right for all %d values it was tried with%s", runs, each);
    else
        check_set(c, CHECK_PASS, "all %d sizes right%s, n = 0 and n = 1 among them (seed %llu)",
                  runs, each, p->env->opt->seed);
}

/* --- the measured run ------------------------------------------------------------ */

/* The traffic call of this device (p->call), its input and partial sums on the device;
   the reference sum in r->want. 0, or -1 with why. */
static int red_prepare(problem *p, char *why, size_t size)
{
    red *r = p->state;
    worker_env *env = p->env;
    /* An exercise's runs are its measured runs (one warp, every value): the value its
       output came out wrong at is the one measured, so that a defect costs the shuffle's
       points whichever value shows it first (a width of 16 is right for laneMask 1) */
    int wrong = exercise(r) ? r->wrong_call : -1;
    if (wrong >= 0 && (env->plan->specs[wrong].role & CALL_TRAFFIC))
        p->call = wrong;
    const call_spec *s = &env->plan->specs[p->call];
    r->n = exercise(r) ? ref_shuffle_elems(r->k->reduce.exercise) : s->width;
    r->blocks = blocks_of(&env->plan->calls[p->call]);
    if (r->blocks <= 0) {
        snprintf(why, size, "nothing was launched at %s", s->label);
        return -1;
    }
    int32_t *x = malloc((size_t)r->n * sizeof *x);
    if (exercise(r)) {
        exercise_input(x, (int)r->n, env->opt->seed + 99);
        ref_shuffle(r->k->reduce.exercise, s->depth, x, r->want_lanes);
    } else {
        reduce_fill(x, (size_t)r->n, (reduce_values)s->height, env->opt->seed + 99);
        r->want = ref_sum(x, (size_t)r->n);
    }
    /* room past the output: a kernel that writes past it (correct says so) is still
       measured, rather than faulting here */
    size_t out_n = (exercise(r) ? (size_t)r->n : (size_t)r->blocks * (size_t)(r->dim / 32)) +
                   MEASURED_SLACK_INTS;
    r->in = r->out = NULL;
    int rc = dev_malloc((void **)&r->in, (size_t)r->n * sizeof(int)) == cudaSuccess &&
                     dev_copy(r->in, x, (size_t)r->n * sizeof(int), cudaMemcpyHostToDevice) ==
                         cudaSuccess &&
                     dev_malloc((void **)&r->out, out_n * sizeof(int)) == cudaSuccess
                 ? 0 : -1;
    if (rc == 0 && r->k->reduce.in_place) {
        r->in_bytes = (size_t)r->n * sizeof(int);
        if (dev_malloc((void **)&r->pristine, r->in_bytes) != cudaSuccess ||
            dev_copy(r->pristine, x, r->in_bytes, cudaMemcpyHostToDevice) != cudaSuccess)
            rc = -1;
    }
    if (rc != 0)
        snprintf(why, size, "no device memory for the measured run");
    free(x);
    return rc;
}

/*
 * The measured run's output, whole: a reduction's partial sums add up to the
 * elements' sum (its output is that sum, whichever block adds which element); an
 * exercise's 32 lanes (128 elements) each hold the exercise's value, so lanes
 * that swapped their values are wrong, not a sum that adds up. 1 when right.
 */
static int red_right(problem *p, char *why, size_t size)
{
    red *r = p->state;
    size_t out_n = exercise(r) ? (size_t)r->n : (size_t)r->blocks;
    int32_t *got = malloc(out_n * sizeof *got);
    long wrong = -1;
    if (got && dev_copy(got, r->out, out_n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess) {
        wrong = 0;
        for (size_t i = 0; exercise(r) && i < out_n; i++)
            wrong += got[i] != r->want_lanes[i];
        if (!exercise(r))
            wrong = ref_sum(got, out_n) != r->want;
    }
    free(got);
    if (wrong > 0 && exercise(r))
        snprintf(why, size, "the measured run gave a wrong result (%ld of %zu elements wrong)",
                 wrong, out_n);
    else if (wrong != 0)
        snprintf(why, size, "the measured run gave a wrong result");
    return wrong == 0;
}

/* Of an exercise's elements at argument param, how many the reference takes from another
   lane (each element told apart by its index): the lanes a shuffle moves. */
static size_t exercise_moved(reduce_exercise ex, int param)
{
    int32_t in[128], want[128];
    size_t moved = 0;
    int n = ref_shuffle_elems(ex);
    for (int i = 0; i < n; i++)
        in[i] = i;
    ref_shuffle(ex, param, in, want);
    for (int i = 0; i < n; i++)
        moved += want[i] != in[i];
    return moved;
}

/* The flow run's output: the partial sums (an exercise's elements), buffer 1; a partial
   sum of 0 is not judged (the grader adds them: a block may leave its 0 and add its sum
   into another's). */
static void red_output(const problem *p, flow_output *out)
{
    const red *r = p->state;
    *out = (flow_output){1, exercise(r) ? (size_t)r->n : (size_t)r->blocks,
                         exercise(r) ? NULL : "partial sums", !exercise(r), 0};
    if (exercise(r))
        out->moved = exercise_moved(r->k->reduce.exercise, p->env->plan->specs[p->call].depth);
}

static void red_release(problem *p)
{
    red *r = p->state;
    problem_drop(p, &r->in);
    problem_drop(p, &r->out);
    problem_drop(p, &r->pristine);
}

/*
 * global-traffic: loads and writes against the step's model. A global atomic (atomicAdd,
 * atomicExch: a read-modify-write of global memory, counted apart by every backend as
 * Nsight Compute counts it) writes global memory as a store does, and counts with the
 * stores: one in a block's store's place is that store; one for each element, or each
 * warp's sum, is partial sums written through global memory.
 */
static void judge_traffic(problem *p, check_id id, const measurement *m, const trace_summary *s,
                          check_result *c)
{
    (void)id;
    red *r = p->state;
    long n = r->n, blocks = r->blocks;
    double loads = m->value[METRIC_GLOBAL_LD_REQUESTS], stores = m->value[METRIC_GLOBAL_ST_REQUESTS];
    double atomics = m->value[METRIC_GLOBAL_ATOM_REQUESTS], writes = stores + atomics;
    char atomic_words[96] = "", of_writes[96] = "";
    if (atomics > 0) {
        snprintf(atomic_words, sizeof atomic_words, " and %.0f atomic", atomics);
        snprintf(of_writes, sizeof of_writes, " (%.0f stores and %.0f global atomics, each a "
                 "read-modify-write counted as a store)", stores, atomics);
    }
    check_field(c->measured, sizeof c->measured, "%.0f global load, %.0f store%s instructions "
                "(%ld blocks, n = %ld)", loads, stores, atomic_words, blocks, n);
    if (r->k->reduce.in_place) {
        tree_cost t;
        reduce_tree_model(&r->p->env->gpu.banks, r->dim, 0, &t);
        double ld_model = (double)blocks * (double)(t.ld_requests + 1);
        double st_model = (double)blocks * (double)(t.st_requests + 1);
        check_field(c->expected, sizeof c->expected, "about %.0f loads and %.0f stores (the "
                    "tree's %ld levels in global memory, %ld + 1 and %ld + 1 a block)", ld_model,
                    st_model, (long)t.levels, t.ld_requests,
                    t.st_requests);
        int ld_ok = loads >= ld_model / GMEM_MODEL_FACTOR && loads <= ld_model * GMEM_MODEL_FACTOR;
        int st_ok = writes >= st_model / GMEM_MODEL_FACTOR &&
                    writes <= st_model * GMEM_MODEL_FACTOR;
        if (ld_ok && st_ok) {
            check_set(c, CHECK_PASS, "the tree's round trips through global memory: %.1f loads "
                      "and %.1f stores a block (model %ld and %ld)%s", loads / blocks,
                      writes / blocks, t.ld_requests + 1, t.st_requests + 1, of_writes);
            return;
        }
        check_set(c, CHECK_FAIL, "%.1f global loads and %.1f stores a block%s; the tree in "
                  "global memory makes about %ld and %ld", loads / blocks, writes / blocks,
                  of_writes, t.ld_requests + 1, t.st_requests + 1);
        check_field(c->hint, sizeof c->hint, "Step 1 is the baseline the later steps are "
                    "measured against: every level of its tree reads two words of global memory "
                    "and writes one, in place (data[tid] += data[tid + stride] on in itself), "
                    "and thread 0 stores the block's sum. %s",
                    loads < ld_model / GMEM_MODEL_FACTOR
                        ? "Yours makes fewer round trips: does it keep the levels in shared "
                          "memory or registers? That is step 2's lesson."
                        : "Yours makes more: does a level read an element more than twice, or "
                          "do several threads store the sum?");
        return;
    }
    int per = r->k->reduce.per_thread > 0 ? r->k->reduce.per_thread : 1;
    double warp = r->p->env->gpu.banks.warp_size;
    double ideal = (double)((n + (long)warp - 1) / (long)warp) + (double)blocks * per;
    double limit = ideal * (1.0 + GLOBAL_LOAD_SLACK);
    /* within c->expected's 127 characters: the atomic's clause was cut at "an atomic cou" */
    check_field(c->expected, sizeof c->expected, "at most %.0f loads (each element once: n/32 "
                "warp loads, %d more a block) and %ld writes (a store or an atomic a block)",
                limit, per, blocks);
    if (loads <= 0) {
        check_set(c, CHECK_FAIL, "no global loads measured: the kernel reads none of its input");
        check_field(c->hint, sizeof c->hint, "Each element is read from global memory once.");
        return;
    }
    if (writes > (double)blocks && atomics > 0) { /* first: atomics, named as such */
        check_set(c, CHECK_FAIL, "%.0f global store and %.0f atomic instructions, %.1f writes a "
                  "block: partial sums go through global memory (a global atomic reads, adds "
                  "and writes global memory: it counts as a store)", stores, atomics,
                  writes / blocks);
        if (atomics <= (double)blocks) /* one atomic a block at most: the stores are extra */
            check_field(c->hint, sizeof c->hint, "Only the block's sum leaves the block: one "
                        "write a block, by thread 0, to partial[blockIdx.x] (a store, or one "
                        "atomic in its place). Your blocks make %.1f global atomics and %.1f "
                        "stores each: a store beside the atomic (a word zeroed for the atomics "
                        "to add into, say) is a second write. Write each block's sum once, with "
                        "a store or with an atomic, not both; a word one block zeroes while "
                        "others add into it has no order either (docs/troubleshooting.md#order)"
                        ".", atomics / blocks, stores / blocks);
        else
            check_field(c->hint, sizeof c->hint, "Only the block's sum leaves the block: one "
                        "write a block, by thread 0, to partial[blockIdx.x] (a store, or one "
                        "atomic in its place). Your blocks make %.1f global atomics each%s: "
                        "every atomicAdd into global memory is a round trip to the memory the "
                        "tile was meant to spare, and atomics on one word are served one after "
                        "another, lane by lane and warp by warp. Add the block's values in the "
                        "tile (or registers) first, then write its one sum "
                        "(docs/troubleshooting.md#atomics).", atomics / blocks,
                        stores > 0 ? " beside their stores" : "");
        compare_global_side_lines(c, s, COALESCE_ATOMIC); /* the culprits' lines first */
    } else if (stores > (double)blocks) { /* first: what makes the extra loads too, if any */
        check_set(c, CHECK_FAIL, "%.0f global store instructions, %.1f a block: partial sums go "
                  "through global memory", stores, stores / blocks);
        check_field(c->hint, sizeof c->hint, "Only the block's sum leaves the block: one store "
                    "a block, by thread 0, to partial[blockIdx.x]. Your blocks store %.1f times "
                    "each%s: intermediate sums written to global memory (back into the input, "
                    "say, as the chapter's global-memory kernels do) and read again cost a "
                    "round trip each, where the tile or registers cost none.", stores / blocks,
                    loads > limit ? " and load more than the elements" : "");
    } else if (loads > limit) {
        check_set(c, CHECK_FAIL, "%.0f global load instructions, %.2f times the %.0f that read "
                  "each element once", loads, loads / ideal, ideal);
        check_field(c->hint, sizeof c->hint, "Your kernel reads its input %.1f times over, in "
                    "warp load instructions: it reads elements again, or a lane at a time (a "
                    "loop in one thread makes a warp instruction for each element, where a "
                    "warp's 32 lanes read 32 at once). Each element "
                    "should come from global memory once, a warp's lanes side by side: into a "
                    "register (the first %d-element sum) or the tile, and every later level "
                    "reads the tile or registers, never in[] again.", loads / ideal, per);
    } else {
        check_set(c, CHECK_PASS, "each element loaded once (%.0f warp loads, at most %.0f), %.0f "
                  "store%s%s for %ld blocks", loads, limit, writes, writes == 1 ? "" : "s",
                  atomics > 0 ? (stores > 0 ? " (atomics among them)" : " (global atomics)")
                              : "", blocks);
        check_global_repeats(c, s, "Each element should be read from global memory once; "
                             "your block reads some twice: the later levels read the tile or "
                             "registers, never in[] again.");
    }
}

/* The tree's lines for a failure of its requests, not its banks: the lines that issue
   the most requests first (a divergent level), and no bank drawing (every line costs
   what it should; the worst warp of a conflict-free store said nothing). */
static void busiest_lines_first(check_result *c, const trace_summary *s,
                                const bank_geometry *g)
{
    compare_trace_lines(c, s, -1, g);
    c->bank_map[0] = '\0';
    for (int i = 1; i < c->n_lines; i++) /* insertion sort: a dozen lines at most */
        for (int j = i; j > 0 && c->lines[j].requests > c->lines[j - 1].requests; j--) {
            check_line t = c->lines[j];
            c->lines[j] = c->lines[j - 1];
            c->lines[j - 1] = t;
        }
}

/* smem-conflicts: the tree's degree and requests against the model of the exercise's tree. */
static void judge_tree(problem *p, check_id id, const measurement *m, const trace_summary *s,
                       check_result *c)
{
    (void)id;
    red *r = p->state;
    long blocks = r->blocks;
    tree_cost seq, want;
    int interleaved = r->k->reduce.tree == TREE_INTERLEAVED;
    reduce_tree_model(&r->p->env->gpu.banks, r->dim, 0, &seq);
    reduce_tree_model(&r->p->env->gpu.banks, r->dim, interleaved, &want);
    double ld = measured_degree(m, &SIDE_LOAD), st = measured_degree(m, &SIDE_STORE);
    double req = (m->value[METRIC_SHARED_LD_REQUESTS] + m->value[METRIC_SHARED_ST_REQUESTS]) /
                 (double)blocks;
    double req_limit = TREE_REQUEST_SLACK * (double)seq.block_requests;
    /* the interleaved tree: as written, or with its stride-1 pair merged into one
       8-byte load, as nvcc -O3 compiles it (reduce_model.h) */
    double want_ld = interleaved ? reduce_tree_load_degree(&want) : 1.0;
    double want_lo = interleaved ? reduce_tree_load_degree_merged(&want) : 1.0;
    char ld_text[48], st_text[48], want_text[96];
    c->degree = ld;
    degree_text(ld, ld_text, sizeof ld_text);
    degree_text(st, st_text, sizeof st_text);
    if (interleaved)
        snprintf(want_text, sizeof want_text, "%.2f- to %.2f-way conflict", want_lo, want_ld);
    else
        degree_text(want_ld, want_text, sizeof want_text);
    double ld_req = m->value[METRIC_SHARED_LD_REQUESTS] / (double)blocks;
    double st_req = m->value[METRIC_SHARED_ST_REQUESTS] / (double)blocks;
    double atom_req = m->value[METRIC_SHARED_ATOM_REQUESTS] / (double)blocks;
    char atoms[32] = "", atoms_said[96] = ""; /* shared atomics: said, never a tree's level */
    if (atom_req > 0) {
        snprintf(atoms, sizeof atoms, " and %.1f atomics", atom_req);
        snprintf(atoms_said, sizeof atoms_said, " (and %.1f shared atomics, no level of a tree)",
                 atom_req);
    }
    check_field(c->measured, sizeof c->measured, "loads %.2f-way, stores %.2f-way; %.1f shared "
                "requests a block (%.1f loads, %.1f stores)%s", ld, st, req, ld_req, st_req,
                atoms);
    check_field(c->expected, sizeof c->expected, "loads %s; %ld to %.0f requests a block, at "
                "least %ld loads and %ld stores (the sequential tree's %ld, x %.1f)", want_text,
                want.need_ld_requests + want.need_st_requests, req_limit, want.need_ld_requests,
                want.need_st_requests, seq.block_requests, TREE_REQUEST_SLACK);
    if (m->value[METRIC_SHARED_LD_REQUESTS] <= 0 || m->value[METRIC_SHARED_ST_REQUESTS] <= 0) {
        check_set(c, CHECK_FAIL, "no shared memory used: %.0f shared loads, %.0f shared stores",
                  m->value[METRIC_SHARED_LD_REQUESTS], m->value[METRIC_SHARED_ST_REQUESTS]);
        check_field(c->hint, sizeof c->hint, "This step's tree runs in a shared tile: "
                    "__shared__ int smem[DIM], one element a thread copied in, the levels read "
                    "and write smem.");
        return;
    }
    /* the floor: each level's partner sums loaded, each level's sums stored for the next
       (reduce_model.h); a tree in registers, a library's, or one block doing all the
       blocks' work falls below it, whatever its conflicts */
    if (ld_req < (double)want.need_ld_requests || st_req < (double)want.need_st_requests) {
        check_set(c, CHECK_FAIL, "the tree's levels did not run in shared memory: %.1f shared "
                  "loads and %.1f stores a block%s, where the tree's %d levels need at least "
                  "%ld loads and %ld stores", ld_req, st_req, atoms_said, want.levels,
                  want.need_ld_requests, want.need_st_requests);
        if (atom_req > 0)
            check_field(c->hint, sizeof c->hint, "Each level of the tree reads its partner sums "
                        "from the tile and stores its own sums back for the next level: that "
                        "round trip through shared memory is this lab's lesson. Your blocks add "
                        "with shared atomics instead (%.1f a block): every lane's atomicAdd on "
                        "one word is served one lane after another, a sum made in a line, not a "
                        "tree. Write the levels in smem: if (tid < stride) smem[tid] += "
                        "smem[tid + stride], a barrier between levels.", atom_req);
        else
            check_field(c->hint, sizeof c->hint, "Each level of the tree reads its partner sums "
                        "from the tile (a load for each warp that takes part: %d, %d, then 1 warp "
                        "at strides %d, %d and below) and stores its own sums back for the next "
                        "level (a store): that round trip through shared memory is this lab's "
                        "lesson. Your blocks make fewer %s, so some levels ran elsewhere: in "
                        "registers (a loop in one thread, or shuffles: lab 8's lesson, not this "
                        "one's), in a library's reduction, or in one block adding what the others "
                        "should (the count is averaged over every block launched). Write the "
                        "levels in smem: if (tid < stride) smem[tid] += smem[tid + stride], a "
                        "barrier between levels.", want.level[0].warps, want.level[1].warps,
                        want.level[0].stride, want.level[1].stride,
                        st_req >= (double)want.need_st_requests ? "loads"
                        : ld_req >= (double)want.need_ld_requests ? "stores"
                                                                   : "loads and stores");
        if (s)
            compare_trace_lines(c, s, -1, &r->p->env->gpu.banks);
        return;
    }
    double limit = 1.0 + MANY_BLOCK_DEGREE_SLACK;
    c->accept_lo = interleaved ? want_lo * (1 - TREE_DEGREE_TOLERANCE) : 1.0;
    c->accept_hi = interleaved ? want_ld * (1 + TREE_DEGREE_TOLERANCE) : limit;
    int ld_ok = interleaved ? ld >= c->accept_lo && ld <= c->accept_hi : ld <= limit;
    if (ld_ok && st <= (interleaved ? 32.0 : limit) && req <= req_limit) {
        check_set(c, CHECK_PASS, "tree loads %s (the %s tree's model: %s), %.1f shared requests "
                  "a block", ld_text, interleaved ? "interleaved" : "sequential", want_text, req);
        if (s) /* the tree's lines, passing too: the report page marks each */
            compare_trace_lines(c, s, -1, &r->p->env->gpu.banks);
        return;
    }
    if (!ld_ok || st > limit) {
        if (interleaved)
            check_set(c, CHECK_FAIL, "tree loads %s (the interleaved tree's model: %s)", ld_text,
                      want_text);
        else
            check_set(c, CHECK_FAIL, "tree loads %s, stores %s (expected conflict-free)", ld_text,
                      st_text);
        check_field(c->hint, sizeof c->hint, interleaved
                    ? "The exercise's tree reads smem[index] and smem[index + stride] with index "
                      "= 2 * stride * tid: its conflicts grow with the stride (2-way, 4-way, "
                      "8-way ...; the course's lab 7 draws them, at #conflicts). Yours measure otherwise: "
                      "is its indexing the exercise's?"
                    : "Your tree's lanes read words that share banks: lanes whose indices "
                      "differ by a multiple of 32 words wait for each other. With index = 2 * "
                      "stride * tid, lane t reads word 2 * stride * t: at stride 16 every lane "
                      "is on bank 0. Sequential addressing (if (tid < stride) smem[tid] += "
                      "smem[tid + stride], the stride halving from DIM / 2) keeps a warp's "
                      "lanes on consecutive words: conflict-free.");
    } else {
        check_set(c, CHECK_FAIL, "%.1f shared requests a block; the sequential tree needs %ld "
                  "(at most %.0f allowed)", req, seq.block_requests, req_limit);
        check_field(c->hint, sizeof c->hint, "Your warps issue the tree's loads and stores at "
                    "levels where few of their lanes take part: a test such as if (tid %% (2 * "
                    "stride) == 0) keeps a lane or two of every warp busy at the first levels, "
                    "so all %d warps issue every level (divergence). With if (tid < stride) the active "
                    "lanes are the first ones, and whole warps drop out of each level.",
                    r->dim / 32);
        if (s)
            busiest_lines_first(c, s, &r->p->env->gpu.banks);
        return;
    }
    if (s)
        compare_trace_lines(c, s, -1, &r->p->env->gpu.banks);
}

/* shuffle: shuffles executed, and shared memory at most a word a warp (none in an exercise). */
static void judge_shuffle(problem *p, check_id id, const measurement *m, const trace_summary *s,
                          check_result *c)
{
    (void)id;
    red *r = p->state;
    long blocks = r->blocks;
    double shfl = m->value[METRIC_SHUFFLES];
    double shared = m->value[METRIC_SHARED_LD_REQUESTS] + m->value[METRIC_SHARED_ST_REQUESTS] +
                    m->value[METRIC_SHARED_ATOM_REQUESTS];
    long warps = exercise(r) ? 1 : blocks * (r->dim / 32);
    double per_block = exercise(r) ? shared : shared / (double)blocks;
    double shared_limit = exercise(r) ? 0 : 2.0 * (r->dim / 32) + 1;
    double shfl_need = exercise(r) ? 1.0 : 5.0 * (double)warps; /* a warp's five levels */
    if (shfl >= 0)
        check_field(c->measured, sizeof c->measured, "%.0f shuffle%s; %.0f shared requests%s",
                    shfl, shfl == 1 ? "" : "s", exercise(r) ? shared : per_block,
                    exercise(r) ? "" : " a block");
    else
        check_field(c->measured, sizeof c->measured, "shuffles not counted; %.0f shared "
                    "requests%s", exercise(r) ? shared : per_block, exercise(r) ? "" : " a block");
    check_field(c->expected, sizeof c->expected, exercise(r)
                ? "a shuffle or more, no shared memory"
                : "at least 5 shuffles a warp (%ld warps); at most %.0f shared requests a block "
                  "(a store a warp and warp 0's read)", warps, shared_limit);
    if (per_block > shared_limit) {
        if (exercise(r))
            check_set(c, CHECK_FAIL, "the exercise used shared memory: %.0f shared requests",
                      shared);
        else
            check_set(c, CHECK_FAIL, "%.1f shared requests a block where one word a warp needs "
                      "at most %.0f: shared memory used where the shuffle was asked", per_block,
                      shared_limit);
        check_field(c->hint, sizeof c->hint, exercise(r)
                    ? "The lanes exchange values through their registers with a shuffle: "
                      "__shfl_*_sync(FULL_MASK, value, ..., WARP). A value written to shared "
                      "memory and read back by another lane is the old way, and what this lab "
                      "replaces."
                    : "Within a warp the sum is made in registers with shuffles (v += "
                      "__shfl_xor_sync(FULL_MASK, v, mask, WARP) for mask = 16 .. 1); shared "
                      "memory only carries each warp's sum to warp 0: a store by each warp's "
                      "lane 0, one read by warp 0. Your block makes more shared accesses than "
                      "that: a tree in the tile for the warp's own 32 values?");
        if (s)
            compare_trace_lines(c, s, -1, &r->p->env->gpu.banks);
        return;
    }
    if (shfl < 0) {
        check_set(c, CHECK_NOT_MEASURED, "shared memory as asked (%.0f requests%s); shuffles "
                  "not measured: the hardware counters have no count of shuffle instructions "
                  "(the trace and the emulator count them)", exercise(r) ? shared : per_block,
                  exercise(r) ? "" : " a block");
        return;
    }
    if (shfl < shfl_need) {
        check_set(c, CHECK_FAIL, "%.0f shuffle%s executed; the exercise needs %s", shfl,
                  shfl == 1 ? "" : "s", exercise(r) ? "one or more" : "five a warp or more");
        check_field(c->hint, sizeof c->hint, exercise(r)
                    ? "The exercise moves the values between the lanes' registers with a "
                      "__shfl_*_sync: the output came out some other way."
                    : "Each warp adds up its 32 values with five shuffles (v += "
                      "__shfl_xor_sync(FULL_MASK, v, mask, WARP), mask = 16, 8, 4, 2, 1). Your "
                      "kernel executes fewer: does every warp reduce with shuffles, or does it "
                      "add its values some other way (atomics, a loop in one lane, the hardware's "
                      "own warp sum __reduce_add_sync, or one block adding every block's "
                      "elements)?");
        return;
    }
    check_set(c, CHECK_PASS, "%.0f shuffle%s (%.1f a warp), %.0f shared requests%s", shfl,
              shfl == 1 ? "" : "s",
              shfl / (double)warps, exercise(r) ? shared : per_block,
              exercise(r) ? "" : " a block");
}

/* --- speed --------------------------------------------------------------------- */

typedef struct cub_run {
    const int *in;
    int *out;
    int n;
    void *temp;
    size_t temp_bytes;
    cudaError_t err;
} cub_run;

static void launch_cub(void *p)
{
    cub_run *c = p;
    c->err = cub_sum_int(c->temp, &c->temp_bytes, c->in, c->out, c->n, 0);
}

/* The timed input of run `run`: r->n fresh values in r->in (time_fresh's refill). */
static cudaError_t refill_red(worker_env *env, void *arg, int run)
{
    red *r = arg;
    return module_fill(r->p->mod, (float *)r->in, (size_t)r->n,
                       env->opt->seed * 7919ull + (unsigned)run);
}

/* The kernel's partial sums of the input now in r->in against CUB's sum of it. */
static int speed_right(red *r, cub_run *cub, long blocks, char *why, size_t size)
{
    int32_t *got = malloc((size_t)blocks * sizeof *got), want = 0;
    int right = 0;
    cudaError_t err = dev_memset(r->out, GPU_POISON_BYTE, (size_t)blocks * sizeof(int));
    int lost = 0;
    if (err == cudaSuccess && gpu_run(problem_launch, r->p, &lost, why, size) != 0)
        err = cudaErrorLaunchFailure;
    else if (err == cudaSuccess) {
        launch_cub(cub);
        err = cub->err == cudaSuccess ? dev_sync() : cub->err;
    }
    if (err == cudaSuccess)
        err = dev_copy(got, r->out, (size_t)blocks * sizeof(int), cudaMemcpyDeviceToHost);
    if (err == cudaSuccess)
        err = dev_copy(&want, cub->out, sizeof want, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess) {
        int32_t sum = ref_sum_partials(got, (size_t)blocks);
        right = sum == want;
        if (!right)
            snprintf(why, size, "the timed input's partial sums add up to %d; CUB's sum is %d: "
                     "a fast wrong answer earns nothing", sum, want);
    } else if (!why[0]) {
        snprintf(why, size, "%s", dev_error_text(err));
    }
    free(got);
    return right;
}

static void red_speed(problem *p, check_result *c)
{
    red *r = p->state;
    char why[256] = "";
    p->call = problem_call(p, CALL_SPEED);
    if (p->call < 0 || blocks_of(&p->env->plan->calls[p->call]) <= 0) {
        check_set(c, CHECK_FAIL, "nothing was launched for the timed input");
        return;
    }
    long n = p->env->plan->specs[p->call].width, blocks = blocks_of(&p->env->plan->calls[p->call]);
    cub_run cub = {0};
    double t_kernel = 0, t_cub = 0;
    r->n = n;
    r->in = r->out = NULL;
    int ok = dev_malloc((void **)&r->in, (size_t)n * sizeof(int)) == cudaSuccess &&
             dev_malloc((void **)&r->out, (size_t)blocks * sizeof(int)) == cudaSuccess &&
             dev_malloc((void **)&cub.out, sizeof(int)) == cudaSuccess;
    cub.in = r->in;
    cub.n = (int)n;
    if (ok && (cub_sum_int(NULL, &cub.temp_bytes, cub.in, cub.out, cub.n, 0) != cudaSuccess ||
               dev_malloc(&cub.temp, cub.temp_bytes > 0 ? cub.temp_bytes : 1) != cudaSuccess)) {
        ok = 0;
        snprintf(why, sizeof why, "CUB's DeviceReduce::Sum could not be set up");
    }
    /* both timed alike: a fresh input before every run (warm-ups too) */
    timed_work kernel = {problem_launch, p, {NULL}, {0}, 0, NULL, 0, NULL, NULL, r, refill_red};
    timed_work ref = {launch_cub, &cub, {NULL}, {0}, 0, NULL, 0, NULL, NULL, r, refill_red};
    if (!ok) {
        check_set(c, CHECK_FAIL, "could not prepare the timed input: %s",
                  why[0] ? why : "no device memory");
    } else if (time_fresh(p->env, &kernel, 10, &t_kernel, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "%s", why);
        p->lost = dev_context_lost();
    } else if (time_fresh(p->env, &ref, 10, &t_cub, why, sizeof why) != 0 ||
               cub.err != cudaSuccess) {
        check_set(c, CHECK_FAIL, "timing CUB failed: %s", why[0] ? why : dev_error_text(cub.err));
    } else if (!speed_right(r, &cub, blocks, why, sizeof why)) {
        check_set(c, CHECK_FAIL, "%s", why);
        p->lost = dev_context_lost();
    } else {
        double bytes = (double)n * sizeof(int);
        check_speed(c, t_kernel, t_cub, r->k->speed_fraction, "GB/s", bytes / 1e6,
                    "CUB's DeviceReduce::Sum");
        if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "A reduction streams its input once: its "
                        "speed is the memory's. Enough loads in flight (the %d-element sum "
                        "a thread makes first, coalesced), few blocks' worth of tree and "
                        "barriers against them, and no global round trips in between bring "
                        "it close to CUB.", r->k->reduce.per_thread);
    }
    red_release(p);
    problem_free(p, cub.out);
    problem_free(p, cub.temp);
}

/* --- one kernel ------------------------------------------------------------------ */

/* step 4's dynamic tile: DIM ints */
static uint32_t red_tile_bytes(const problem *p)
{
    return (uint32_t)((const red *)p->state)->dim * sizeof(int);
}

static void red_dynamic_hint(const problem *p, uint32_t need, check_result *c)
{
    (void)p;
    check_field(c->hint, sizeof c->hint, "Step 4's tile is `extern __shared__ int smem[];`, "
                "with no size and no static __shared__ array beside it, and its DIM ints, %u "
                "bytes, are the launch's third argument: kernel<<<grid, DIM, %u>>>(in, partial, "
                "n).", need, need);
}

static void red_setup(problem *p)
{
    red *r = p->state;
    r->p = p;
    r->k = p->k;
    r->wrong_call = -1;
    r->dim = lab_param_value(p->env->lab, "DIM");
    if (r->dim < 32)
        r->dim = 256;
}

const kind_desc reduce_kind = {
    .name = "reduce", .state_bytes = sizeof(red), .setup = red_setup,
    .tile_bytes = red_tile_bytes, .dynamic_hint = red_dynamic_hint, .shapes = red_shapes,
    .run = red_run, .passed = red_passed,
    .prepare = red_prepare, .bind = red_bind, .right = red_right, .release = red_release,
    .output = red_output,
    .bounds = 1,
    .judge = {[CHK_GLOBAL_TRAFFIC] = judge_traffic, [CHK_SMEM_CONFLICTS] = judge_tree,
              [CHK_SHUFFLE] = judge_shuffle},
    .speed = red_speed,
};
