/*
 * transpose.c - grading one kernel of lab 9 (PROBLEM_TRANSPOSE).
 *
 * A float matrix, ny rows of nx, copied (step 1) or transposed: out[x * ny + y]
 * = in[y * nx + x], blocks of BDIMX x BDIMY threads. Checks:
 *   correct           every matrix of labs/transpose_calls.c, exactly (one
 *                     element, one row, one column, non-multiples both ways)
 *   load-coalescing   sectors of the global loads against their ideal (model/
 *   store-coalescing  sector.h); a naive step's strided side held to being strided,
 *                     its cost drawn over the sectors
 *   smem-conflicts    the tile's stores conflict-free, its column read as the
 *                     tile's layout makes it (model/transpose_model.h)
 *   dynamic-tile      extern __shared__, its bytes at launch
 *   race              between warps of a block (the barrier between the tile's
 *                     writes and reads)
 *   speed             against the grader's own copyRow (device/grader_kernels.cu)
 *                     on the same 8192 x 8192 matrix; GPU only
 */
#include "../compare/compare.h"
#include "../model/transpose_model.h"
#include "../run/device.h"
#include "../run/gpu.h"
#include "float_run.h"
#include "problem.h"
#include "traffic.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_CORRECT, T_LOAD, T_STORE, T_SMEM, T_DYNAMIC, T_RACE, T_SPEED, T_CHECKS };
static const char *const check_ids[T_CHECKS] = {"correct", "load-coalescing", "store-coalescing",
                                                "smem-conflicts", "dynamic-tile", "race", "speed"};

typedef struct tr {
    worker_env *env;
    const lab_kernel *k;
    int call;
    float *in, *out;
    int bdimx, bdimy, pad;
    check_result c[T_CHECKS];
    int listed[T_CHECKS];
    int sent[T_CHECKS];
} tr;

static void emit(tr *t, int i)
{
    if (t->sent[i])
        return;
    if (t->listed[i])
        worker_emit(t->env, &t->c[i]);
    t->sent[i] = 1;
}

static void launch_tr(void *p)
{
    tr *t = p;
    replay rp = {&t->env->mod, &t->env->plan->calls[t->call], {t->in, t->out}};
    replay_launch(&rp);
}

/* The block every launch must have: a named failure, never a run the models do not
   assume. 0, or -1 with correct failed. */
static int check_shapes(tr *t)
{
    const kernel_plan *plan = t->env->plan;
    for (int i = 0; i < plan->n_calls; i++)
        for (int j = 0; j < plan->calls[i].n_launches; j++) {
            const plan_launch *l = &plan->calls[i].launches[j];
            if (l->block[0] == (unsigned)t->bdimx && l->block[1] == (unsigned)t->bdimy &&
                l->block[2] == 1)
                continue;
            check_set(&t->c[T_CORRECT], CHECK_FAIL, "at %s: %s launches blocks of %ux%ux%u "
                      "threads; the lab's blocks are %d x %d", plan->specs[i].label,
                      t->k->launcher, l->block[0], l->block[1], l->block[2], t->bdimx, t->bdimy);
            check_field(t->c[T_CORRECT].hint, sizeof t->c[T_CORRECT].hint, "The contract fixes "
                        "blocks of BDIMX x BDIMY = %d x %d threads: the tile, its index mapping "
                        "and the grader's models assume them. Launch dim3(BDIMX, BDIMY) blocks "
                        "and a grid that covers the matrix.", t->bdimx, t->bdimy);
            return -1;
        }
    return 0;
}

/* --- correct ------------------------------------------------------------------- */

/* The host reference: the copy, or the transpose (out nx rows of ny). */
static void reference(const tr *t, const float *in, int nx, int ny, float *ref)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            float v = in[(size_t)y * nx + x];
            if (t->k->transpose.copy)
                ref[(size_t)y * nx + x] = v;
            else
                ref[(size_t)x * ny + y] = v;
        }
}

static run_outcome run_case(tr *t, int i, check_result *c)
{
    const call_spec *s = &t->env->plan->specs[i];
    int nx = s->width, ny = s->height;
    size_t n = (size_t)nx * ny;
    char why[256];
    float *host = host_random(n, t->env->opt->seed + (unsigned)i), *ref = malloc(n * sizeof *ref);
    reference(t, host, nx, ny, ref);
    t->call = i;
    t->in = dev_upload(host, n, why, sizeof why);
    run_outcome out;
    if (!t->in) {
        out = fail_cuda(c, s->label, why);
    } else {
        int copy = t->k->transpose.copy;
        float_case fc = {s->label, launch_tr, t, &t->out, ref, copy ? ny : nx, copy ? nx : ny,
                         1e-30, copy ? t->bdimy : t->bdimx, copy ? t->bdimx : t->bdimy,
                         copy ? "a row segment" : "a tile, read by rows, written transposed"};
        out = float_run_case(t->env, &fc, c);
        if (out != RUN_LOST)
            dev_free(t->in);
    }
    t->in = NULL;
    free(host);
    free(ref);
    return out;
}

/*
 * Case i came out never written. A kernel that writes the later matrices is not a TODO,
 * though: its edge guard skips the small one whole (the chapter's unrolled guard, one
 * test for both elements). Say so, from the first later case that wrote something.
 */
static void written_elsewhere(tr *t, int i, check_result *c)
{
    const kernel_plan *plan = t->env->plan;
    for (int j = i + 1; j < plan->n_calls; j++) {
        const call_spec *s = &plan->specs[j];
        check_result other = *c;
        if (!(s->role & CALL_CORRECT) || !call_runs_on(s, device_is_emulator()))
            continue;
        run_outcome out = run_case(t, j, &other);
        if (out == RUN_LOST || out == RUN_FAILED)
            return;
        if (out == RUN_RIGHT || !strstr(other.message, "never written")) {
            check_set(c, CHECK_FAIL, "at %s: no element was written, though at %s %s: a "
                      "guard skips the matrix's last elements", plan->specs[i].label, s->label,
                      out == RUN_RIGHT ? "every one was right" : "some were");
            check_field(c->hint, sizeof c->hint, "Guard each element's load and store on its "
                        "own: with two elements a thread, the second's test (ix + BDIMX < nx) "
                        "must not decide the first's.");
            return;
        }
    }
}

static run_outcome grade_correct(tr *t)
{
    const kernel_plan *plan = t->env->plan;
    int runs = 0;
    for (int i = 0; i < plan->n_calls; i++) {
        const call_spec *s = &plan->specs[i];
        if (!(s->role & CALL_CORRECT) || !call_runs_on(s, device_is_emulator()))
            continue;
        runs++;
        run_outcome out = run_case(t, i, &t->c[T_CORRECT]);
        if (out == RUN_WRONG && strstr(t->c[T_CORRECT].message, "never written"))
            written_elsewhere(t, i, &t->c[T_CORRECT]);
        if (out != RUN_RIGHT)
            return out;
    }
    check_set(&t->c[T_CORRECT], CHECK_PASS, "all %d matrices right, one element, one row and "
              "one column among them (seed %llu)", runs, t->env->opt->seed);
    return RUN_RIGHT;
}

/* --- the measured run ------------------------------------------------------------ */

/* The measured matrix of this device on the device (in random, out zeroed); 0, or -1. */
static int prepare_measured(tr *t, int *nx, int *ny, char *why, size_t size)
{
    worker_env *env = t->env;
    int i = calls_find(env->plan->specs, env->plan->n_calls, CALL_TRAFFIC, device_is_emulator());
    if (i < 0) {
        snprintf(why, size, "internal: no measured matrix for this device");
        return -1;
    }
    *nx = env->plan->specs[i].width, *ny = env->plan->specs[i].height;
    size_t n = (size_t)*nx * *ny;
    float *host = host_random(n, env->opt->seed + 99);
    t->call = i;
    t->in = dev_upload(host, n, why, size);
    free(host);
    if (!t->in || dev_malloc((void **)&t->out, n * sizeof(float)) != cudaSuccess ||
        dev_memset(t->out, 0, n * sizeof(float)) != cudaSuccess) {
        snprintf(why, size, "no device memory for the measured run");
        return -1;
    }
    return 0;
}

/* "a 16-way conflict" or "conflict-free", to follow "is". */
static const char *is_degree(double d, char *buf, size_t size)
{
    char t[40];
    degree_text(d, t, sizeof t);
    snprintf(buf, size, "%s%s", strcmp(t, "conflict-free") ? "a " : "", t);
    return buf;
}

/* The row length, in words, that makes the column read the measured degree ld: the
   one row length of the unpadded tile plus 0 to 4 words that does, else 0. */
static int rows_that_give(const tr *t, double ld)
{
    int base = t->k->transpose.unroll * t->bdimx, found = 0;
    for (int w = base; w <= base + 4; w++) {
        double d = transpose_read_degree(&t->env->gpu.banks, t->bdimx, t->bdimy, w);
        if (ld <= d * (1 + DEGREE_TOLERANCE) && ld >= d * (1 - DEGREE_TOLERANCE)) {
            if (found)
                return 0; /* two row lengths read alike: no telling which */
            found = w;
        }
    }
    return found;
}

/* The tile's banks: stores conflict-free, the column read as the layout makes it. */
static void judge_tile(tr *t, const measurement *m, const trace_summary *s, check_result *c)
{
    int words = t->k->transpose.unroll * t->bdimx + t->k->transpose.tile_pad;
    double want = transpose_read_degree(&t->env->gpu.banks, t->bdimx, t->bdimy, words);
    double ld = measured_degree(m, &SIDE_LOAD), st = measured_degree(m, &SIDE_STORE);
    char a[48], b[48];
    check_field(c->measured, sizeof c->measured, "tile reads %s, writes %s",
                degree_text(ld, a, sizeof a), degree_text(st, b, sizeof b));
    check_field(c->expected, sizeof c->expected, "reads %s (rows of %d words), writes conflict-free",
                degree_text(want, a, sizeof a), words);
    c->degree = ld;
    if (m->value[METRIC_SHARED_LD_REQUESTS] <= 0 || m->value[METRIC_SHARED_ST_REQUESTS] <= 0) {
        check_set(c, CHECK_FAIL, "no shared %s: this step goes through a shared tile",
                  m->value[METRIC_SHARED_ST_REQUESTS] <= 0 ? "stores" : "loads");
    } else if (st > 1 + DEGREE_TOLERANCE) {
        check_set(c, CHECK_FAIL, "the tile's writes have a %s: a warp writes a row of the "
                  "tile, tile[threadIdx.y][threadIdx.x]", degree_text(st, b, sizeof b));
    } else if (ld > want * (1 + DEGREE_TOLERANCE) || ld < want * (1 - DEGREE_TOLERANCE)) {
        int yours = rows_that_give(t, ld);
        char like[64] = "";
        if (yours && yours != words)
            snprintf(like, sizeof like, ", as rows of %d words make it", yours);
        check_set(c, CHECK_FAIL, "the tile's column read is %s%s, where this step's tile (rows "
                  "of %d words: %sBDIMX%s) makes it %s", is_degree(ld, a, sizeof a), like, words,
                  t->k->transpose.unroll > 1 ? "2 * " : "",
                  t->k->transpose.tile_pad ? " + IPAD" : ", no pad", is_degree(want, b, sizeof b));
        check_field(c->hint, sizeof c->hint, want > 1.5
                    ? "This step's tile is unpadded: tile[BDIMY][BDIMX] (two elements a thread: "
                      "BDIMY x 2 * BDIMX), read at tile[icol][irow] as the skeleton maps it."
                    : "Pad each tile row by IPAD = 2 words: lanes (icol, irow) then fall in bank "
                      "2 * icol + irow, a warp's two columns in the even and the odd banks.");
    } else {
        check_set(c, CHECK_PASS, "the tile's column read is %s, as rows of %d words make it; "
                  "its writes conflict-free", is_degree(ld, a, sizeof a), words);
    }
    if (s)
        compare_trace_lines(c, s, -1, &t->env->gpu.banks);
}

static void measure_kernel(tr *t, int *lost)
{
    worker_env *env = t->env;
    measurement m;
    char why[256];
    int nx = 0, ny = 0;
    measure_status st = env->meter_status;
    snprintf(why, sizeof why, "%.250s", env->meter_why);
    if (st == MEASURE_OK && prepare_measured(t, &nx, &ny, why, sizeof why) != 0)
        st = MEASURE_ERROR;
    if (st == MEASURE_OK)
        st = worker_measure(env, launch_tr, t, &m, why, sizeof why);
    *lost = st == MEASURE_ERROR && dev_context_lost();
    if (!*lost) {
        dev_free(t->in);
        dev_free(t->out);
    }
    t->in = t->out = NULL;
    char trace_why[256];
    const trace_summary *s = st == MEASURE_OK ? worker_trace(env, trace_why, sizeof trace_why)
                                              : NULL;
    if (t->listed[T_RACE])
        worker_judge_races(env, &t->c[T_RACE], st, why);
    if (t->listed[T_RACE] && s && s->n_races > 0)
        compare_race_spoils_correct(&t->c[T_CORRECT], s);
    if (s)
        worker_judge_bounds(env, &env->plan->calls[t->call], s, &t->c[T_CORRECT]);
    worker_judge_sync(env, &t->c[T_CORRECT], t->listed[T_RACE] ? &t->c[T_RACE] : NULL, st);
    if (st != MEASURE_OK) {
        for (int i = T_LOAD; i <= T_SMEM; i++)
            compare_not_measured(&t->c[i], st, why);
        return;
    }
    double ideal = (double)nx * ny * sizeof(float) / 32.0; /* every element once, each way */
    const transpose_spec *x = &t->k->transpose;
    compare_coalescing(&t->c[T_LOAD], 0, &m, ideal, s,
                       x->strided_load ? "in[x * nx + y]" : NULL, x->strided_load);
    compare_coalescing(&t->c[T_STORE], 1, &m, ideal, s,
                       x->strided_store ? "out[x * ny + y]" : NULL, x->strided_store);
    if (t->listed[T_SMEM])
        judge_tile(t, &m, s, &t->c[T_SMEM]);
}

/* --- speed ---------------------------------------------------------------------- */

#define COPY_ROWS "smemlab_grader_copy_rows"      /* the roof (device/grader_kernels.cu) */
#define TRANSPOSE_REF "smemlab_grader_transpose" /* the timed runs' reference */

/* Blocks of 32 x 16 over the timed matrix, as the lab's: for the grader's two kernels. */
static cudaError_t launch_own(const tr *t, const char *kernel, const float *in, float *out)
{
    const call_spec *s = &t->env->plan->specs[t->call];
    int nx = s->width, ny = s->height;
    void *args[] = {&in, &out, &nx, &ny};
    dim3 grid = {(unsigned)((nx + 31) / 32), (unsigned)((ny + 15) / 16), 1}, block = {32, 16, 1};
    cudaKernel_t k = module_own_kernel(&t->env->mod, kernel);
    return k ? cudaLaunchKernel((const void *)k, grid, block, args, 0, 0)
             : cudaErrorInvalidDeviceFunction;
}

static void launch_copy(void *p)
{
    tr *t = p;
    launch_own(t, COPY_ROWS, t->in, t->out); /* an error stays for cudaGetLastError */
}

/* The timed run's expected output, made on the device after the run from its input
   filled again (time_fresh): a copy for copyRow, else the grader's transpose. */
typedef struct tr_ref {
    tr *t;
    float *ref;
} tr_ref;

static cudaError_t make_ref(worker_env *env, void *p)
{
    tr_ref *r = p;
    const call_spec *s = &env->plan->specs[r->t->call];
    size_t n = (size_t)s->width * s->height;
    if (r->t->k->transpose.copy)
        return dev_copy(r->ref, r->t->in, n * sizeof(float), cudaMemcpyDeviceToDevice);
    return launch_own(r->t, TRANSPOSE_REF, r->t->in, r->ref);
}

static void grade_speed(tr *t, int *lost)
{
    worker_env *env = t->env;
    check_result *c = &t->c[T_SPEED];
    char why[256] = "";
    int i = calls_find(env->plan->specs, env->plan->n_calls, CALL_SPEED, 0);
    if (i < 0 || env->plan->calls[i].n_launches == 0) {
        check_set(c, CHECK_FAIL, "nothing was launched for the timed matrix");
        return;
    }
    size_t n = (size_t)env->plan->specs[i].width * env->plan->specs[i].height;
    double t_kernel = 0, t_copy = 0;
    tr_ref ref = {t, NULL};
    t->call = i;
    t->in = t->out = NULL;
    if (!module_own_kernel(&env->mod, COPY_ROWS) || !module_own_kernel(&env->mod, TRANSPOSE_REF)) {
        check_set(c, CHECK_NOT_MEASURED, "not measured: the grader's copyRow or transpose is not "
                  "in its GPU code (rebuild the grader: make clean)");
    } else if (dev_malloc((void **)&t->in, n * sizeof(float)) != cudaSuccess ||
               dev_malloc((void **)&t->out, n * sizeof(float)) != cudaSuccess ||
               dev_malloc((void **)&ref.ref, n * sizeof(float)) != cudaSuccess) {
        check_set(c, CHECK_FAIL, "could not prepare the timed matrix: no device memory");
    } else {
        /* Every run (warm-up too) on a fresh matrix, its output checked on the device. */
        timed_work kernel = {launch_tr, t, {t->in}, {n}, 1, t->out, n, ref.ref, make_ref, &ref,
                             NULL};
        timed_work copy = {launch_copy, t, {t->in}, {n}, 1, NULL, 0, NULL, NULL, NULL, NULL};
        if (time_fresh(env, &kernel, 10, &t_kernel, why, sizeof why) != 0) {
            check_set(c, CHECK_FAIL, "%s", why);
            *lost = dev_context_lost();
        } else if (time_fresh(env, &copy, 10, &t_copy, why, sizeof why) != 0) {
            check_set(c, CHECK_FAIL, "timing the copy failed: %s", why);
        } else {
            double bytes = 2.0 * n * sizeof(float); /* read in, write out */
            check_speed(c, t_kernel, t_copy, t->k->speed_fraction, "GB/s", bytes / 1e6,
                        "the grader's copyRow");
            if (c->status == CHECK_FAIL)
                check_field(c->hint, sizeof c->hint, "A transpose through a tile moves each "
                            "element once each way, coalesced: it can run near copy speed. "
                            "Conflict-free tile reads (the pad), every element's load issued "
                            "before the barrier and enough blocks in flight bring it there.");
        }
    }
    if (!*lost) {
        dev_free(t->in);
        dev_free(t->out);
        dev_free(ref.ref);
    }
    t->in = t->out = NULL;
}

/* --- one kernel ------------------------------------------------------------------ */

static void grade_dynamic(tr *t)
{
    const kernel_plan *plan = t->env->plan;
    check_result *c = &t->c[T_DYNAMIC];
    uint32_t need = (uint32_t)(t->bdimy * (t->k->transpose.unroll * t->bdimx + t->pad) *
                               (int)sizeof(float));
    for (int i = 0; i < plan->n_calls; i++)
        if (plan->calls[i].n_launches > 0) {
            worker_judge_dynamic(t->env, &plan->calls[i], need, c);
            if (c->status == CHECK_FAIL)
                check_field(c->hint, sizeof c->hint, "This step's tile is `extern __shared__ "
                            "float tile[];`, no size and no static __shared__ array beside it; "
                            "its BDIMY * (2 * BDIMX + IPAD) floats, %u bytes, are the launch's "
                            "third argument.", need);
            return;
        }
    check_set(c, CHECK_FAIL, "no kernel was launched");
}

int transpose_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static tr t;
    int lost = 0;

    memset(&t, 0, sizeof t);
    t.env = env;
    t.k = k;
    t.bdimx = env->lab->bdimx, t.bdimy = env->lab->bdimy;
    t.pad = lab_param_value(env->lab, "IPAD");
    worker_init_checks(env, k, check_ids, T_CHECKS, t.c, t.listed);
    if (t.listed[T_DYNAMIC])
        grade_dynamic(&t), emit(&t, T_DYNAMIC);
    if (check_shapes(&t) != 0) {
        for (int i = T_LOAD; i < T_CHECKS; i++)
            if (i != T_DYNAMIC)
                check_set(&t.c[i], CHECK_FAIL, "not run: the launch breaks the contract (see "
                          "correct)");
        for (int i = 0; i < T_CHECKS; i++)
            emit(&t, i);
        return 0;
    }
    run_outcome right = grade_correct(&t);
    worker_mark(env, "correct");
    if (right != RUN_RIGHT && right != RUN_WRONG) /* else it waits for the measured run */
        emit(&t, T_CORRECT);
    lost = right == RUN_LOST;
    if (right == RUN_RIGHT || right == RUN_WRONG) {
        measure_kernel(&t, &lost);
        worker_mark(env, "measure");
    } else {
        worker_checks_not_run(t.c, T_CORRECT, T_LOAD, T_CHECKS,
                              1ul << T_DYNAMIC | 1ul << T_SPEED);
    }
    if (t.c[T_CORRECT].status != CHECK_PASS && right == RUN_RIGHT)
        right = RUN_WRONG; /* a race took the pass back: not timed */
    emit(&t, T_CORRECT);
    for (int i = T_LOAD; i <= T_RACE; i++)
        emit(&t, i);
    if (t.listed[T_SPEED] && worker_speed_due(&t.c[T_CORRECT], &t.c[T_SPEED], right, lost))
        grade_speed(&t, &lost), worker_mark(env, "speed");
    for (int i = 0; i < T_CHECKS; i++)
        emit(&t, i);
    return lost ? KERNEL_CONTEXT_LOST : 0;
}
