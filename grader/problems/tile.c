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

/* A tile kernel's one call: buffer 0 is out. */
static void bind(worker_env *env, replay *t, void *out)
{
    t->mod = &env->mod;
    t->plan = &env->plan->calls[0];
    t->bufs[0] = out;
}

/* Every check a tile kernel can have; kernel_checks says which it has, in report order. */
enum { C_CORRECT, C_ST_REQ, C_LD_REQ, C_ST_CONF, C_LD_CONF, C_RACE, C_DYN, C_COUNT };
static const char *const slot_ids[C_COUNT] = {"correct", "store-requests", "load-requests",
                                              "store-conflicts", "load-conflicts", "race",
                                              "dynamic-tile"};

typedef struct tile_checks {
    check_result c[C_COUNT];
    int has[C_COUNT];      /* the kernel has this check */
    int order[C_COUNT], n; /* report order */
} tile_checks;

/* Every slot set up; the kernel's checks marked, with their points. */
static void init_checks(worker_env *env, const lab_kernel *k, tile_checks *t)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    int n = kernel_checks(env->lab, k, checks);
    memset(t, 0, sizeof *t);
    for (int i = 0; i < C_COUNT; i++)
        check_init(&t->c[i], env->lab->id, k->name, slot_ids[i], 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < C_COUNT; i++)
            if (strcmp(checks[j].id, slot_ids[i]) == 0) {
                t->has[i] = 1;
                t->c[i].max_points = checks[j].points;
                t->order[t->n++] = i;
            }
}

/* Mark every count check not yet decided as failed with the same reason. */
static void fail_rest(check_result *c, int from, const char *reason)
{
    for (int i = from; i <= C_RACE; i++)
        check_set(&c[i], CHECK_FAIL, "not run: %s", reason);
}

static void emit_all(worker_env *env, const tile_checks *t)
{
    for (int i = 0; i < t->n; i++)
        worker_emit(env, &t->c[t->order[i]]);
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

/* One correctness run. */
static run_outcome run_once(worker_env *env, replay *t, guarded *buf, const int *want,
                            int *got, long n, check_result *c)
{
    char why[256];
    int broken = 0;
    cudaError_t err = cudaSuccess;

    int poisoned = guarded_poison(buf, why, sizeof why) == 0;
    if (poisoned && (err = module_scrub(&env->mod, GPU_SCRUB_INT)) != cudaSuccess)
        snprintf(why, sizeof why, "%s", dev_error_text(err));
    if (!poisoned || err != cudaSuccess) {
        check_set(c, CHECK_FAIL, "CUDA error while preparing the run: %s", why);
        check_field(c->hint, sizeof c->hint, "The lab library cannot run on this GPU: was it "
                    "built for another one? Rebuild it here: make clean && make %s",
                    env->lab->id);
        return dev_context_lost() ? RUN_LOST : RUN_FAILED;
    }
    if (gpu_run(replay_launch, t, &broken, why, sizeof why) != 0) {
        check_fail_launch(c, NULL, why, "The kernel faulted or could not launch. Look "
                          "for an index past the tile or out, or a launch asking for more "
                          "shared memory than the tile needs (or none, where the tile is "
                          "dynamic).");
        return broken ? RUN_LOST : RUN_FAILED;
    }
    return judge_out(env, buf, want, got, n, c);
}

/* Every correctness run must be right. */
static run_outcome grade_correct(worker_env *env, const lab_kernel *k, replay *t,
                                 check_result *c)
{
    long n = (long)env->lab->bdimx * env->lab->bdimy;
    int *want = malloc((size_t)n * sizeof *want), *got = malloc((size_t)n * sizeof *got);
    guarded buf;
    char why[256];
    run_outcome out = RUN_RIGHT;

    tile_reference(&k->tile, env->lab->bdimx, env->lab->bdimy, want);
    if (guarded_alloc(&buf, (size_t)n * sizeof(int), why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "CUDA error: %s", why);
        out = dev_context_lost() ? RUN_LOST : RUN_FAILED;
    } else {
        bind(env, t, buf.data);
        for (int r = 0; out == RUN_RIGHT && r < env->opt->repeats; r++)
            out = run_once(env, t, &buf, want, got, n, c);
        if (out == RUN_RIGHT)
            check_set(c, CHECK_PASS, "all %ld elements right (%d runs)", n, env->opt->repeats);
        if (out != RUN_LOST)
            guarded_free(&buf);
    }
    free(want);
    free(got);
    return out;
}

/* The run the counters saw must be right too: counts of a wrong kernel earn nothing. */
static int measured_run_right(worker_env *env, const lab_kernel *k, guarded *buf, long n,
                              char *why, size_t why_size)
{
    int *want = malloc((size_t)n * sizeof *want), *got = malloc((size_t)n * sizeof *got);
    check_result scratch;
    tile_reference(&k->tile, env->lab->bdimx, env->lab->bdimy, want);
    check_init(&scratch, env->lab->id, k->name, "correct", 0);
    int right = judge_out(env, buf, want, got, n, &scratch) == RUN_RIGHT;
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
                 "share a bank (bank = word %% 32), or measure other pads.", row, pad, row);
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
static void judge_flow(worker_env *env, const lab_kernel *k, const trace_summary *trace,
                       check_result *c)
{
    int n = env->lab->bdimx * env->lab->bdimy;
    int *src = malloc((size_t)n * sizeof *src);
    if (!src)
        return;
    tile_reference(&k->tile, env->lab->bdimx, env->lab->bdimy, src);
    compare_tile_flow(c, trace, src, n, env->lab->bdimx, k->tile.load_code);
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

static void grade_counters(worker_env *env, const lab_kernel *k, replay *t,
                           check_result *c, const int *has, int *broken)
{
    smem_side store = SIDE_STORE, load = SIDE_LOAD;
    smem_cost st_model, ld_model;
    measurement m;
    char why[256], note[400], trace_why[256] = "";
    const bank_geometry *g = &env->gpu.banks;
    measure_status st = env->meter_status;
    const trace_summary *trace = NULL;

    store.code = k->tile.store_code;
    load.code = k->tile.load_code;
    int elem = tile_elem_bytes(&k->tile);
    tile_model_cost(g, &k->tile.store, env->lab->bdimx, env->lab->bdimy, elem, 0, &st_model);
    tile_model_cost(g, &k->tile.load, env->lab->bdimx, env->lab->bdimy, elem, 1, &ld_model);
    snprintf(why, sizeof why, "%.250s", env->meter_why);
    if (st == MEASURE_OK) {
        guarded buf;
        long n = (long)env->lab->bdimx * env->lab->bdimy;
        if (guarded_alloc(&buf, (size_t)n * sizeof(int), why, sizeof why) != 0) {
            st = MEASURE_ERROR;
        } else {
            bind(env, t, buf.data);
            module_scrub(&env->mod, GPU_SCRUB_INT);
            st = worker_measure(env, replay_launch, t, &m, why, sizeof why);
            if (st == MEASURE_OK && !measured_run_right(env, k, &buf, n, why, sizeof why))
                st = MEASURE_WRONG_RESULT;
            guarded_free(&buf);
        }
    }
    if (has[C_RACE])
        worker_judge_races(env, &c[C_RACE], st, why);
    if (st == MEASURE_OK || st == MEASURE_WRONG_RESULT)
        trace = worker_trace(env, trace_why, sizeof trace_why);
    if (has[C_RACE] && trace && trace->n_races > 0) {
        /* a proven race: the output is luck, so correct fails every run, and
           the counts of the measured run count whatever its output was */
        compare_race_spoils_correct(&c[C_CORRECT], trace);
        if (st == MEASURE_WRONG_RESULT)
            st = MEASURE_OK;
    }
    if (trace) /* past the shared memory it has: named, fault or not */
        worker_judge_bounds(env, &env->plan->calls[0], trace, &c[C_CORRECT]);
    worker_judge_sync(env, &c[C_CORRECT], has[C_RACE] ? &c[C_RACE] : NULL, st);
    if (st != MEASURE_OK) {
        for (int i = C_ST_REQ; i < C_RACE; i++)
            compare_not_measured(&c[i], st, why);
        *broken = st == MEASURE_ERROR && dev_context_lost();
        return;
    }
    pad_note(env, k, trace, note, sizeof note);
    int st_width = trace ? 0 : ideal_from_sass(env, k, &k->tile.store, 0, &m);
    int ld_width = trace ? 0 : ideal_from_sass(env, k, &k->tile.load, 1, &m);
    compare_requests(&c[C_ST_REQ], &store, &m, st_model.requests);
    compare_requests(&c[C_LD_REQ], &load, &m, ld_model.requests);
    if (trace && k->tile.elem_parts == 0)
        judge_flow(env, k, trace, &c[C_LD_REQ]);
    compare_conflicts(&c[C_ST_CONF], &store, &m, &st_model, DEGREE_TOLERANCE,
                      note[0] ? note : NULL);
    compare_conflicts(&c[C_LD_CONF], &load, &m, &ld_model, DEGREE_TOLERANCE,
                      note[0] ? note : NULL);
    if (trace) { /* the trace sees widths and lines, and draws the student's access */
        judge_width(env, &k->tile, &k->tile.store, trace, TRACE_OP_STORE, &store, &c[C_ST_CONF]);
        judge_width(env, &k->tile, &k->tile.load, trace, TRACE_OP_LOAD, &load, &c[C_LD_CONF]);
        compare_trace_lines(&c[C_ST_CONF], trace, TRACE_OP_STORE, g);
        compare_trace_lines(&c[C_LD_CONF], trace, TRACE_OP_LOAD, g);
    } else {
        judge_sass_width(env, k, &k->tile.store, st_width, 0, &store, &c[C_ST_CONF]);
        judge_sass_width(env, k, &k->tile.load, ld_width, 1, &load, &c[C_LD_CONF]);
    }
}

/* The bytes of shared memory the exercise's tile needs (padding included). */
static uint32_t tile_bytes(const worker_env *env, const tile_spec *t)
{
    long end = 0;
    for (int ty = 0; ty < env->lab->bdimy; ty++)
        for (int tx = 0; tx < env->lab->bdimx; tx++) {
            long s = tile_offset(&t->store, env->lab->bdimx, env->lab->bdimy, tx, ty) + 1;
            long l = tile_offset(&t->load, env->lab->bdimx, env->lab->bdimy, tx, ty) + 1;
            end = s > end ? s : end;
            end = l > end ? l : end;
        }
    return (uint32_t)end * (uint32_t)tile_elem_bytes(t);
}

int tile_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static tile_checks t;
    replay r = {0};
    int broken = 0;

    init_checks(env, k, &t);
    check_result *c = t.c;
    if (t.has[C_DYN])
        worker_judge_dynamic(env, &env->plan->calls[0], tile_bytes(env, &k->tile), &c[C_DYN]);
    run_outcome out = grade_correct(env, k, &r, &c[C_CORRECT]);
    worker_mark(env, "correct");
    if (out == RUN_LOST) {
        broken = 1;
        fail_rest(c, C_ST_REQ, "the kernel broke the CUDA context");
    } else if (out == RUN_FAILED && c[C_CORRECT].status == CHECK_NOT_GRADED) {
        for (int i = C_ST_REQ; i <= C_RACE; i++)
            check_not_graded_like(&c[i], &c[C_CORRECT]);
    } else if (out == RUN_FAILED) {
        fail_rest(c, C_ST_REQ, "the kernel did not run");
    } else {
        grade_counters(env, k, &r, c, t.has, &broken);
        worker_mark(env, "measure");
    }
    emit_all(env, &t);
    return broken ? KERNEL_CONTEXT_LOST : 0;
}
