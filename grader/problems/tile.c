/*
 * tile.c - grading one kernel of the tile labs (1-4): output against the
 * host reference, then shared-memory requests and conflicts against the
 * bank model.
 */
#include "../compare/compare.h"
#include "../image/sass.h"
#include "../run/device.h"
#include "../measure/trace/measure_trace.h"
#include "../reference/tile_ref.h"
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tile kernel's state: its output buffer and its one call on it, and the widths the
   SASS gives each side where the meter has no trace (the measured run). */
typedef struct tile_state {
    guarded buf;
    int have_buf;
    long n;   /* BDIMX * BDIMY elements */
    int st_width, ld_width;
    tile_spec spec; /* the kernel's tile on the banks graded (tile_spec_on: a pad the
                       exercise asks for, worked out on them) */
} tile_state;

/* The exercise's tile as graded here. */
static const tile_spec *spec_of(const problem *p)
{
    return &((const tile_state *)p->state)->spec;
}

static void describe_wrong(check_result *c, const int_diff *d, const int *want, const int *got,
                           int bdimx, long n);

/* Read out back and compare it with the reference: 0 when right, else c says what is wrong. */
static run_outcome judge_out(worker_env *env, guarded *buf, const int *want, int *got, long n,
                             check_result *c)
{
    char why[256];
    long guard = 0;
    int_diff d;
    if (guarded_read(buf, got, &guard, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "CUDA error: %s", why);
        return dev_context_lost() ? RUN_LOST : RUN_FAILED;
    }
    if (guard > 0) {
        check_set(c, CHECK_FAIL, "wrote outside out: %ld guard bytes around the buffer changed",
                  guard);
        check_field(c->hint, sizeof c->hint, "Some thread writes past the end (or before the "
                    "start) of out. out has BDIMX * BDIMY elements; the index must stay below.");
        return RUN_WRONG;
    }
    compare_ints(want, got, n, GPU_POISON_INT, &d);
    if (d.wrong > 0) {
        describe_wrong(c, &d, want, got, env->lab->bdimx, n);
        return RUN_WRONG;
    }
    return RUN_RIGHT;
}

/* Where the wrong elements are, in words: the rows they are confined to, if any. */
static void wrong_rows(const int *want, const int *got, long n, int bdimx, int poison_only,
                       char *buf, size_t size)
{
    long lo = -1, hi = -1;
    for (long i = 0; i < n; i++)
        if (want[i] != got[i] && (!poison_only || got[i] == GPU_POISON_INT)) {
            lo = lo < 0 ? i / bdimx : lo;
            hi = i / bdimx;
        }
    if (lo == 0 && hi == (n - 1) / bdimx)
        snprintf(buf, size, "in every row");
    else if (lo == hi)
        snprintf(buf, size, "all in row %ld", lo);
    else
        snprintf(buf, size, "in rows %ld to %ld only", lo, hi);
}

/* Whether every element holds what the exercise puts at its transposed place. */
static int transposed(const int *want, const int *got, int bdimx, long n)
{
    if (n != (long)bdimx * bdimx)
        return 0;
    for (long i = 0; i < n; i++)
        if (got[i] != want[(i % bdimx) * bdimx + i / bdimx])
            return 0;
    return 1;
}

/* The hint for a wrong output, from where the wrong elements are and what they hold. */
static void describe_wrong(check_result *c, const int_diff *d, const int *want, const int *got,
                           int bdimx, long n)
{
    char rows[64];
    long junk = 0;
    for (long i = 0; i < n; i++)
        junk += got[i] != want[i] && got[i] == GPU_SCRUB_INT;
    if (d->unwritten == n) {
        check_set(c, CHECK_FAIL, "out was never written: all %ld elements still hold the "
                  "poison value", n);
        check_field(c->hint, sizeof c->hint, "Does the kernel write out[idx]? In labs with a "
                    "dynamic tile, does the launcher launch the kernel at all?");
        return;
    }
    check_set(c, CHECK_FAIL, "%ld of %ld elements differ; first at row %ld, col %ld: "
              "expected %d, got %d", d->wrong, n, d->first / bdimx, d->first % bdimx,
              d->expected, d->got);
    if (d->unwritten == d->wrong) {
        wrong_rows(want, got, n, bdimx, 1, rows, sizeof rows);
        check_field(c->hint, sizeof c->hint, "The %ld wrong elements were never written (%s): "
                    "the threads that own them do not reach out[idx] = ..., or write another "
                    "index. Every thread of the block writes its own out[idx].", d->wrong, rows);
    } else if (transposed(want, got, bdimx, n)) {
        check_field(c->hint, sizeof c->hint, "Your output is the exercise's, transposed: "
                    "element (row r, col c) holds what belongs at (c, r). The store and the load "
                    "swap their indices relative to the exercise: compare which of threadIdx.x "
                    "and threadIdx.y picks the tile's row on each side.");
    } else if (junk > 0) {
        check_field(c->hint, sizeof c->hint, "%ld wrong element%s hold%s the junk the grader "
                    "put in shared memory before the run: %s read tile words that no thread had "
                    "stored. Either the load's index reaches words the store never writes (the "
                    "two must use the same row length, padding included), or a __syncthreads() "
                    "between the store and the load is missing.", junk, junk == 1 ? "" : "s",
                    junk == 1 ? "s" : "", junk == 1 ? "its thread" : "their threads");
    } else {
        wrong_rows(want, got, n, bdimx, 0, rows, sizeof rows);
        check_field(c->hint, sizeof c->hint, "Every element was written, %ld of them with "
                    "another thread's value (%s): the load reads the wrong word of the tile, or "
                    "idx is computed differently from the exercise. Work out, for thread (%ld, "
                    "%ld), which word the exercise reads and which your code reads.", d->wrong,
                    rows, d->first % bdimx, d->first / bdimx);
    }
}

/* One correctness run on t->buf. */
static run_outcome run_once(problem *p, const int *want, int *got, check_result *c)
{
    tile_state *t = p->state;
    char why[256];
    int broken = 0;
    cudaError_t err = cudaSuccess;

    int poisoned = guarded_poison(&t->buf, why, sizeof why) == 0;
    if (poisoned && (err = module_scrub(p->mod, GPU_SCRUB_INT)) != cudaSuccess)
        snprintf(why, sizeof why, "%s", dev_error_text(err));
    if (!poisoned || err != cudaSuccess) {
        check_set(c, CHECK_FAIL, "CUDA error while preparing the run: %s", why);
        check_field(c->hint, sizeof c->hint, "The lab library cannot run on this GPU: was it "
                    "built for another one? Rebuild it here: make clean && make %s",
                    p->env->lab->id);
        return dev_context_lost() ? RUN_LOST : RUN_FAILED;
    }
    if (gpu_run(problem_launch, p, &broken, why, sizeof why) != 0) {
        check_fail_launch(c, NULL, why, "The kernel faulted or could not launch. Look "
                          "for an index past the tile or out, or a launch asking for more "
                          "shared memory than the tile needs (or none, where the tile is "
                          "dynamic).");
        return broken ? RUN_LOST : RUN_FAILED;
    }
    return judge_out(p->env, &t->buf, want, got, t->n, c);
}

/* The output buffer (buffer 0 of the one call). 0, or -1 with why. */
static int alloc_out(problem *p, char *why, size_t why_size)
{
    tile_state *t = p->state;
    if (guarded_alloc(&t->buf, (size_t)t->n * sizeof(int), why, why_size) != 0)
        return -1;
    t->have_buf = 1;
    return 0;
}

static void tile_release(problem *p)
{
    tile_state *t = p->state;
    if (t->have_buf && !p->lost)
        guarded_free(&t->buf);
    t->have_buf = 0;
}

static void tile_setup(problem *p)
{
    tile_state *t = p->state;
    t->n = (long)p->env->lab->bdimx * p->env->lab->bdimy;
    tile_spec_on(p->env->lab, p->k, &p->env->gpu.banks, &t->spec);
}

/* A run of the one call: every run must be right. Its buffer serves every repeat and
   goes with the last, or with the first run that is not right. */
static run_outcome tile_run(problem *p, check_result *c)
{
    tile_state *t = p->state;
    int *want = malloc((size_t)t->n * sizeof *want), *got = malloc((size_t)t->n * sizeof *got);
    char why[256];
    run_outcome out;
    tile_reference(spec_of(p), p->env->lab->bdimx, p->env->lab->bdimy, want);
    if (!t->have_buf && alloc_out(p, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "CUDA error: %s", why);
        out = dev_context_lost() ? RUN_LOST : RUN_FAILED;
    } else {
        out = run_once(p, want, got, c);
        if (out != RUN_LOST && (out != RUN_RIGHT || p->run + 1 >= p->env->opt->repeats))
            guarded_free(&t->buf), t->have_buf = 0;
    }
    free(want);
    free(got);
    return out;
}

static void tile_passed(problem *p, int runs, int last, const char *each, check_result *c)
{
    (void)runs, (void)last, (void)each;
    check_set(c, CHECK_PASS, "all %ld elements right (%d runs)", ((tile_state *)p->state)->n,
              p->env->opt->repeats);
}

/* The measured run: the output poisoned, shared memory scrubbed. */
static int tile_prepare(problem *p, char *why, size_t why_size)
{
    if (alloc_out(p, why, why_size) != 0)
        return -1;
    module_scrub(p->mod, GPU_SCRUB_INT);
    return 0;
}

static void tile_bind(const problem *p, void *bufs[])
{
    bufs[0] = ((const tile_state *)p->state)->buf.data;
}

/* The flow run's output: the tile read back, buffer 0. */
static void tile_output(const problem *p, flow_output *out)
{
    *out = (flow_output){0, (size_t)((const tile_state *)p->state)->n, NULL, 0, 0};
}

/* The run the counters saw must be right too: counts of a wrong kernel earn nothing. */
static int tile_right(problem *p, char *why, size_t why_size)
{
    tile_state *t = p->state;
    worker_env *env = p->env;
    int *want = malloc((size_t)t->n * sizeof *want), *got = malloc((size_t)t->n * sizeof *got);
    check_result scratch;
    tile_reference(spec_of(p), env->lab->bdimx, env->lab->bdimy, want);
    check_init(&scratch, env->lab->id, p->k->name, check_name(CHK_CORRECT), 0);
    int right = judge_out(env, &t->buf, want, got, t->n, &scratch) == RUN_RIGHT;
    if (!right)
        snprintf(why, why_size, "the measured run gave a wrong result (%.180s)",
                 scratch.message);
    free(want);
    free(got);
    return right;
}

/*
 * The row length of the tile as the kernel laid it out, in elements: how far
 * apart the first block's threads (0, 0) and (0, 1) stored (the exercise's
 * store runs along a row, so one row apart), checked against (1, 0) one
 * element on. 0 when the trace does not show it.
 */
static int measured_row_length(const worker_env *env, const lab_kernel *k, const trace_summary *s)
{
    int bdimx = env->lab->bdimx, elem = tile_elem_bytes(&k->tile);
    if (!s || !s->threads || k->tile.store.order != TILE_ROW || bdimx * 2 > TRACE_FLOW_THREADS)
        return 0;
    const trace_thread *t = s->threads;
    if (t[0].stores != 1 || t[1].stores != 1 || t[bdimx].stores != 1 ||
        t[1].store_addr != t[0].store_addr + (uint32_t)elem || t[bdimx].store_addr <= t[0].store_addr)
        return 0;
    uint32_t bytes = t[bdimx].store_addr - t[0].store_addr;
    return bytes % (uint32_t)elem == 0 ? (int)(bytes / (uint32_t)elem) : 0;
}

/*
 * For a kernel the exercise pads: the row length the kernel measured against
 * the pad its file declares, and whether the two agree. Empty where the
 * exercise does not pad this kernel or the lab has no pad parameter.
 */
static void pad_note(worker_env *env, const lab_kernel *k, const trace_summary *s, char *note,
                     size_t size)
{
    int pad, bdimx = env->lab->bdimx;
    note[0] = '\0';
    if (k->tile.store.pitch == bdimx || lab_image_int(env->img, env->lab->pad_param, &pad) != 0)
        return;
    int row = measured_row_length(env, k, s);
    if (row == 0)
        snprintf(note, size, "Your file sets IPAD = %d: a tile row of BDIMX + IPAD = %d words, if "
                 "the pad lengthens the rows. Work out which bank lane i of a warp reads.", pad,
                 bdimx + pad);
    else if (row == bdimx + pad)
        snprintf(note, size, "Your tile's rows are %d words long (BDIMX + IPAD, IPAD = %d): the "
                 "column read steps %d words from one lane to the next. Work out which lanes "
                 "share a bank (%s), or measure other pads.", row, pad, row,
                 compare_bank_rule(&env->gpu.banks));
    else
        snprintf(note, size, "Your tile's rows are %d words long, but your file sets IPAD = %d "
                 "(BDIMX + IPAD = %d): the pad is not in the row length. It belongs on the last "
                 "dimension, the one threadIdx.x runs along: tile[BDIMY][BDIMX + IPAD], not "
                 "tile[BDIMY + IPAD][BDIMX]; a dynamic tile's row_idx and col_idx use the padded "
                 "row length too.", row, pad, bdimx + pad);
}

/* Where the side's accesses moved another width than the exercise's element,
   the model's numbers for that width, and words saying what changed. */
static void judge_width(worker_env *env, const tile_spec *t, const tile_access *a,
                        const trace_summary *trace, trace_op op, const smem_side *side,
                        check_result *c)
{
    int width = trace_side_width(trace, op), elem = tile_elem_bytes(t);
    smem_cost at_width;
    c->width = width > 0 ? width : 0;
    if (width <= 0 || width == elem ||
        tile_model_cost(&env->gpu.banks, a, env->lab->bdimx, env->lab->bdimy, width,
                        op == TRACE_OP_LOAD, &at_width) != 0)
        return;
    compare_conflicts_width(c, side, width, elem, &at_width);
}

/* The load reads what the exercise's load reads: the word stored by the thread
   whose index the reference puts in out[t] (compare_tile_flow). */
static void judge_flow(worker_env *env, const tile_spec *t, const trace_summary *trace,
                       check_result *c)
{
    int n = env->lab->bdimx * env->lab->bdimy;
    int *src = malloc((size_t)n * sizeof *src);
    if (!src)
        return;
    tile_reference(t, env->lab->bdimx, env->lab->bdimy, src);
    compare_tile_flow(c, trace, src, n, env->lab->bdimx, t->load_code);
    free(src);
}

/*
 * Without the trace nothing measured says how wide the accesses were, and the
 * counters count an 8-byte access's second wavefront as a conflict: the lab's
 * SASS says what the GPU executed. A side whose instructions all move one
 * width other than the exercise's element is judged against the model's
 * ideal at that width, as the trace judges it. Returns that width, or 0.
 */
static int ideal_from_sass(worker_env *env, const lab_kernel *k, const tile_access *a, int load,
                           measurement *m)
{
    int width = sass_kernel_width(env->img, k->name, load ? SASS_LDS : SASS_STS);
    double requests = m->value[load ? METRIC_SHARED_LD_REQUESTS : METRIC_SHARED_ST_REQUESTS];
    smem_cost at;
    if (width <= 0 || width == tile_elem_bytes(&k->tile) || !(requests > 0) ||
        tile_model_cost(&env->gpu.banks, a, env->lab->bdimx, env->lab->bdimy, width, load,
                        &at) != 0 || at.requests <= 0)
        return 0;
    *(load ? &m->ideal_ld : &m->ideal_st) = (double)at.ideal / (double)at.requests * requests;
    m->ideal_set = MEASURE_IDEAL_SET;
    return width;
}

/* The counters' judgement of a side at the width the SASS gave (ideal_from_sass). */
static void judge_sass_width(worker_env *env, const lab_kernel *k, const tile_access *a,
                             int width, int load, const smem_side *side, check_result *c)
{
    smem_cost at;
    if (width > 0 && tile_model_cost(&env->gpu.banks, a, env->lab->bdimx, env->lab->bdimy, width,
                                     load, &at) == 0)
        compare_conflicts_width(c, side, width, tile_elem_bytes(&k->tile), &at);
}

/* The side of the tile a check judges (its code in the exercise's words) and the bank
   model's cost of it at the exercise's element width. */
static smem_side side_of(const problem *p, int load, smem_cost *model)
{
    const lab_def *lab = p->env->lab;
    const tile_spec *t = spec_of(p);
    smem_side side = load ? SIDE_LOAD : SIDE_STORE;
    side.code = load ? t->load_code : t->store_code;
    side.banks = &p->env->gpu.banks;
    tile_model_cost(&p->env->gpu.banks, load ? &t->load : &t->store, lab->bdimx, lab->bdimy,
                    tile_elem_bytes(t), load, model);
    return side;
}

/* Without the trace: each side's width from the SASS, its ideal set in m. */
static void tile_measured(problem *p, measurement *m, const trace_summary *s)
{
    tile_state *t = p->state;
    t->st_width = s ? 0 : ideal_from_sass(p->env, p->k, &t->spec.store, 0, m);
    t->ld_width = s ? 0 : ideal_from_sass(p->env, p->k, &t->spec.load, 1, m);
}

/* A side's requests (store-requests, load-requests); with the trace, whether the load
   reads what the exercise's load reads. */
static void judge_requests(problem *p, check_id id, const measurement *m,
                           const trace_summary *s, check_result *c)
{
    int load = id == CHK_LOAD_REQUESTS;
    smem_cost model;
    smem_side side = side_of(p, load, &model);
    compare_requests(c, &side, m, model.requests);
    /* the counts add up every launch of the call (labs 1-4 allow two): a warm-up launch
       doubles them, which no line of the kernel shows */
    int call = problem_call(p, CALL_TRAFFIC);
    int launches = call >= 0 ? p->env->plan->calls[call].n_launches : 0;
    if (c->status == CHECK_FAIL && launches > 1) {
        char was[sizeof c->hint];
        snprintf(was, sizeof was, "%s", c->hint);
        check_field(c->hint, sizeof c->hint, "Your launcher makes %d launches in one call, and "
                    "the counts add up every launch's: a warm-up launch counts too, and the "
                    "grader needs none. Launch the kernel once. %s",
                    launches, was);
    }
    if (load && s && p->k->tile.elem_parts == 0)
        judge_flow(p->env, spec_of(p), s, c);
}

/* A side's conflicts (store-conflicts, load-conflicts) against the model; the trace
   sees widths and lines, and draws the student's access; without it, the width the
   SASS gave. */
static void judge_conflicts(problem *p, check_id id, const measurement *m,
                            const trace_summary *s, check_result *c)
{
    tile_state *t = p->state;
    int load = id == CHK_LOAD_CONFLICTS;
    const tile_access *a = load ? &t->spec.load : &t->spec.store;
    smem_cost model;
    smem_side side = side_of(p, load, &model);
    char note[400];
    pad_note(p->env, p->k, s, note, sizeof note);
    compare_conflicts(c, &side, m, &model, DEGREE_TOLERANCE, note[0] ? note : NULL);
    if (s) {
        judge_width(p->env, &t->spec, a, s, load ? TRACE_OP_LOAD : TRACE_OP_STORE, &side, c);
        compare_trace_lines(c, s, load ? TRACE_OP_LOAD : TRACE_OP_STORE, &p->env->gpu.banks);
    } else {
        judge_sass_width(p->env, p->k, a, load ? t->ld_width : t->st_width, load, &side, c);
    }
}

/* The bytes of shared memory the exercise's tile needs (padding included): the table's
   tile, the least of any GPU's (a larger pad the banks graded need is the conflict checks'
   to ask for; an access past the bytes given fails correct, shared bounds). */
static uint32_t tile_bytes(const problem *p)
{
    const lab_def *lab = p->env->lab;
    const tile_spec *t = &p->k->tile;
    long end = 0;
    for (int ty = 0; ty < lab->bdimy; ty++)
        for (int tx = 0; tx < lab->bdimx; tx++) {
            long s = tile_offset(&t->store, lab->bdimx, lab->bdimy, tx, ty) + 1;
            long l = tile_offset(&t->load, lab->bdimx, lab->bdimy, tx, ty) + 1;
            end = s > end ? s : end;
            end = l > end ? l : end;
        }
    return (uint32_t)end * (uint32_t)tile_elem_bytes(t);
}

const kind_desc tile_kind = {
    .name = "tile", .state_bytes = sizeof(tile_state), .setup = tile_setup,
    .tile_bytes = tile_bytes,
    .run = tile_run, .passed = tile_passed, .no_inputs = 1,
    .prepare = tile_prepare, .bind = tile_bind, .right = tile_right,
    .release = tile_release, .measured = tile_measured, .bounds = 1, .output = tile_output,
    .judge = {[CHK_STORE_REQUESTS] = judge_requests, [CHK_LOAD_REQUESTS] = judge_requests,
              [CHK_STORE_CONFLICTS] = judge_conflicts, [CHK_LOAD_CONFLICTS] = judge_conflicts},
};
