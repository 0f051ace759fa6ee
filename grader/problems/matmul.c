/*
 * matmul.c - grading one kernel of lab 5 (C = A * B, float32, row-major):
 * correctness on every size of the list, global-load instructions against
 * the naive model divided by TILE, shared conflicts, and speed against
 * cuBLAS SGEMM.
 */
#include "../compare/compare.h"
#include "../reference/reference.h"
#include "../labs/sizes.h"
#include "../reference/tolerance.h"
#include "../run/blas.h"
#include "../run/device.h"
#include "float_run.h"
#include "traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The student's launches of call p->call (calls.h), on the grader's A, B and C. */
typedef struct mm_launch {
    problem *p;
    const float *A, *B;
    float *C;
    int M, N, K;
    unsigned long long seed; /* of the large operands */
} mm_launch;

static void mm_bind(const problem *p, void *bufs[])
{
    const mm_launch *a = p->state;
    bufs[0] = (void *)a->A, bufs[1] = (void *)a->B, bufs[2] = a->C;
}

/* A size's host operands (M x K and K x N), from the run's seed, and their reference. */
typedef struct mm_case {
    float *A, *B, *ref;
    double floor;
} mm_case;

static void make_case(const problem *p, const call_spec *s, mm_case *c)
{
    int M = s->width, N = s->height, K = s->depth;
    unsigned long long seed = problem_seed(p) + (unsigned)p->call;
    c->A = host_random((size_t)M * K, seed);
    c->B = host_random((size_t)K * N, seed + 1);
    c->ref = malloc((size_t)M * N * sizeof *c->ref);
    ref_matmul(c->A, c->B, c->ref, M, N, K);
    c->floor = tol_floor_matmul(c->A, (size_t)M * K, c->B, (size_t)K * N, K);
}

static void free_case(mm_case *c)
{
    free(c->A), free(c->B), free(c->ref);
}

/* Device operands for a->M x a->K and a->K x a->N from host arrays; 0 on success. */
static int upload(mm_launch *a, const float *hA, const float *hB, char *why, size_t n)
{
    a->A = dev_upload(hA, (size_t)a->M * a->K, why, n);
    a->B = a->A ? dev_upload(hB, (size_t)a->K * a->N, why, n) : NULL;
    return a->A && a->B ? 0 : -1;
}

static void release(mm_launch *a)
{
    problem_drop(a->p, &a->A);
    problem_drop(a->p, &a->B);
    problem_drop(a->p, &a->C);
}

/* What a wrong result's hint names: the elements a tiled kernel copies and reads. */
#define COPY_WORDS "A[row][k0 + tx] and B[k0 + ty][col] into the tiles at k0, and As[ty][k], " \
                   "Bs[k][tx] in the sum (step 2's names)"

/* The piece of C one block computes: TILE x TILE in step 2, BM x BN in step 3,
   the block's threads in step 1. */
static void block_piece(const worker_env *env, const lab_kernel *k, const call_plan *call,
                        int *rows, int *cols)
{
    int tile = 0, bm = 0, bn = 0;
    lab_image_int(env->img, "smemlab_param_TILE", &tile);
    lab_image_int(env->img, "smemlab_param_COARSE_BM", &bm);
    lab_image_int(env->img, "smemlab_param_COARSE_BN", &bn);
    if (k->step == 2 && tile > 0)
        *rows = *cols = tile;
    else if (k->step == 3 && bm > 0 && bn > 0)
        *rows = bm, *cols = bn;
    else if (call->n_launches > 0)
        *rows = (int)call->launches[0].block[1], *cols = (int)call->launches[0].block[0];
}

/* Call p->call of the plan (one size) on fresh operands, judged into c. */
static run_outcome run_mm_size(problem *p, check_result *c)
{
    mm_launch *a = p->state;
    const call_spec *s = &p->env->plan->specs[p->call];
    mm_case mc;
    char why[256];
    run_outcome out;
    make_case(p, s, &mc);
    a->M = s->width, a->N = s->height, a->K = s->depth;
    if (upload(a, mc.A, mc.B, why, sizeof why) != 0) {
        out = fail_cuda(c, s->label, why);
    } else {
        float_case fc = {s->label, problem_launch, p, &a->C, mc.ref, a->M, a->N, mc.floor,
                         0, 0, COPY_WORDS, NULL};
        block_piece(p->env, p->k, &p->env->plan->calls[p->call], &fc.block_rows,
                    &fc.block_cols);
        out = float_run_case(p, &fc, c);
    }
    if (out != RUN_LOST)
        release(a);
    free_case(&mc);
    return out;
}

/*
 * A size with partial tiles came out wrong: is the kernel right where every
 * tile is whole (the global-loads size, 128^3)? Then the edges are at fault,
 * else the indexing itself; the hint says which it measured.
 */
static void whole_tile_probe(problem *p, check_result *c)
{
    const call_spec *s = &p->env->plan->specs[p->call];
    int tile = 0, failed = p->call, t = problem_call(p, CALL_TRAFFIC);
    lab_image_int(p->env->img, "smemlab_param_TILE", &tile);
    if (t < 0 || p->k->step == 1 || tile <= 0 ||
        (s->width % 128 == 0 && s->height % 128 == 0 && s->depth % 128 == 0))
        return;
    const call_spec *w = &p->env->plan->specs[t];
    check_result probe;
    check_init(&probe, c->lab, c->kernel, c->check, 0);
    p->call = t;
    run_outcome out = run_mm_size(p, &probe);
    p->call = failed;
    if (out == RUN_RIGHT)
        check_field(c->hint, sizeof c->hint, "Your kernel is right at %dx%dx%d, where every tile "
                    "is whole, and wrong at this size, which leaves partial tiles: look at the "
                    "bounds checks and the zeros stored for elements past the edge of A and B "
                    "(rows from M, columns from N, and k from K in the last tile along K).",
                    w->width, w->height, w->depth);
    else if (out == RUN_WRONG)
        check_field(c->hint, sizeof c->hint, "Your kernel is wrong at %dx%dx%d too, where every "
                    "tile is whole: not an edge case. The tiles hold the wrong elements, or are "
                    "read back wrongly: work out, for one thread, which element it copies and "
                    "reads: %s.", w->width, w->height, w->depth, COPY_WORDS);
}

static void mm_passed(problem *p, int runs, int last, const char *each, check_result *c)
{
    const call_spec *big = &p->env->plan->specs[last];
    check_set(c, CHECK_PASS, "all %d sizes right, 1x1x1 to %dx%dx%d%s (seed %llu)", runs,
              big->width, big->height, big->depth, each, p->env->opt->seed);
}

/* A and B filled from the seed on the device: the same values every time. */
static cudaError_t fill_operands(mm_launch *a, unsigned long long seed)
{
    cudaError_t err = module_fill(a->p->mod, (float *)a->A, (size_t)a->M * a->K, seed);
    if (err == cudaSuccess)
        err = module_fill(a->p->mod, (float *)a->B, (size_t)a->K * a->N, seed + 1);
    return err == cudaSuccess ? dev_sync() : err;
}

/* Large random operands and an output on the device, for the call with `role` on this
   device (counters and timing); 0, or -1 with why. */
static int big_operands(problem *p, int role, char *why, size_t n)
{
    mm_launch *a = p->state;
    if (problem_take_call(p, role, why, n) != 0)
        return -1;
    const call_spec *s = &p->env->plan->specs[p->call];
    a->M = s->width, a->N = s->height, a->K = s->depth;
    a->seed = p->env->opt->seed;
    if (dev_malloc((void **)&a->A, (size_t)a->M * a->K * sizeof(float)) != cudaSuccess ||
        dev_malloc((void **)&a->B, (size_t)a->K * a->N * sizeof(float)) != cudaSuccess ||
        dev_malloc((void **)&a->C, (size_t)a->M * a->N * sizeof(float)) != cudaSuccess) {
        snprintf(why, n, "no device memory for %dx%dx%d operands", a->M, a->N, a->K);
        return -1;
    }
    if (fill_operands(a, a->seed) != cudaSuccess) {
        snprintf(why, n, "filling the operands failed");
        return -1;
    }
    return 0;
}

static int mm_prepare(problem *p, char *why, size_t n)
{
    return big_operands(p, 0, why, n);
}

/* The run the counters saw, against the reference product on the same operands
   (cuBLAS on a GPU, the host's on the emulator). */
static int mm_right(problem *p, char *why, size_t n)
{
    mm_launch *a = p->state, ref = *a;
    device_diff d;
    size_t count = (size_t)a->M * a->N;
    int right = 0;
    ref.C = NULL;
    /* The kernel may have written over A and B: the reference uses them as filled. */
    if (fill_operands(a, a->seed) == cudaSuccess &&
        dev_malloc((void **)&ref.C, count * sizeof(float)) == cudaSuccess) {
        right = module_matmul(p->mod, a->A, a->B, ref.C, a->M, a->N, a->K) == cudaSuccess &&
                module_diff(p->mod, a->C, ref.C, count, &d) == cudaSuccess &&
                d.poisoned == 0 && d.not_finite == 0 && d.rel_error <= TOL_OVERALL * 10;
        if (!right)
            snprintf(why, n, "the measured run gave a wrong result (relative "
                     "error %.1e against the reference product)", d.rel_error);
    } else {
        snprintf(why, n, "no device memory to check the measured run");
    }
    dev_free(ref.C);
    return right;
}

/* The flow run's output: C, buffer 2. */
static void mm_output(const problem *p, flow_output *out)
{
    const mm_launch *a = p->state;
    *out = (flow_output){2, (size_t)a->M * (size_t)a->N, NULL, 0, 0};
}

static void mm_release(problem *p)
{
    release(p->state);
}

/* Naive: every thread loads one A and one B element per k, a warp at a time. */
static void judge_loads(problem *p, check_id id, const measurement *m, const trace_summary *s,
                        check_result *c)
{
    mm_launch *a = p->state;
    char model[128];
    (void)s;
    double naive = (double)a->M * a->N * 2.0 * a->K / p->env->gpu.banks.warp_size;
    int tile = lab_param_value(p->env->lab, p->k->tile_param);
    if (tile < 1)
        tile = 1; /* no tiling asked for: the naive count is the limit */
    snprintf(model, sizeof model, "naive model %.0f / TILE %d, +%.0f%%, at %dx%dx%d", naive,
             tile, 100 * GLOBAL_LOAD_SLACK, a->M, a->N, a->K);
    check_global_loads_from(c, m, naive / tile * (1 + GLOBAL_LOAD_SLACK), model,
                            p->kind->hint[id], naive);
}

static void launch_cublas(void *arg)
{
    mm_launch *a = arg;
    blas_sgemm(a->A, a->B, a->C, a->M, a->N, a->K);
}

static cudaError_t ref_cublas(worker_env *env, void *arg)
{
    (void)env;
    mm_launch *a = arg;
    if (blas_sgemm(a->A, a->B, a->C, a->M, a->N, a->K) != 0)
        return cudaErrorLaunchFailure;
    return cudaGetLastError();
}

static void mm_speed(problem *p, check_result *c)
{
    mm_launch *a = p->state, ref;
    char why[256], at[64];

    if (big_operands(p, CALL_SPEED, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "could not prepare the speed run: %s", why);
        release(a);
        return;
    }
    size_t n = (size_t)a->M * a->N;
    ref = *a;
    ref.C = NULL;
    int prepared = dev_malloc((void **)&ref.C, n * sizeof(float)) == cudaSuccess;
    /* Both timed alike: fresh A and B before every run; the kernel's C checked each time. */
    timed_work kernel = {problem_launch, p, {(float *)a->A, (float *)a->B}, {(size_t)a->M * a->K,
                         (size_t)a->K * a->N}, 2, a->C, n, ref.C, ref_cublas, &ref, NULL};
    timed_work blas = {launch_cublas, &ref, {(float *)a->A, (float *)a->B},
                       {(size_t)a->M * a->K, (size_t)a->K * a->N}, 2, NULL, 0, NULL, NULL, NULL,
                       NULL};
    snprintf(at, sizeof at, "%dx%dx%d", a->M, a->N, a->K);
    speed_words w = {at, "cuBLAS SGEMM", "cuBLAS", "GFLOP/s", 2.0 * a->M * a->N * a->K / 1e6,
                     "Each thread should compute a small block of outputs (e.g. 8x8) from "
                     "registers, reading each shared value once into a register and reusing "
                     "it; wide (float4) loads and a large block tile (e.g. 128x128) cut shared "
                     "and global traffic further."};
    if (!prepared)
        check_set(c, CHECK_FAIL, "no device memory for the cuBLAS result at %s", at);
    else if (blas_load(why, sizeof why) != 0)
        check_set(c, CHECK_NOT_MEASURED, "cuBLAS, the speed reference, is missing: %s", why);
    else
        time_against(p, &kernel, &blas, &w, c);
    problem_free(p, ref.C);
    release(a);
}

static void mm_setup(problem *p)
{
    ((mm_launch *)p->state)->p = p;
}

const kind_desc matmul_kind = {
    .name = "matmul", .state_bytes = sizeof(mm_launch), .setup = mm_setup,
    .run = run_mm_size, .explain_wrong = whole_tile_probe, .passed = mm_passed,
    .prepare = mm_prepare, .bind = mm_bind, .right = mm_right, .release = mm_release,
    .output = mm_output, .bounds = 1,
    .judge = {[CHK_GLOBAL_LOADS] = judge_loads, [CHK_SMEM_CONFLICTS] = float_judge_conflicts},
    .hint = {[CHK_GLOBAL_LOADS] = "Each element of A and B should come from global memory once "
                                 "per tile, not once per product: load a TILE x TILE tile of "
                                 "each into shared memory, __syncthreads(), and take every "
                                 "product of the inner loop from the shared tiles.",
             [CHK_SMEM_CONFLICTS] = "Read As[ty][k] (one word for a whole row of threads: a "
                                    "broadcast) and Bs[k][tx] (consecutive words): both are "
                                    "conflict-free. A tile read down a column, Bs[tx][k], costs "
                                    "a conflict on every access; swap the indices or pad the "
                                    "tile."},
    .speed = mm_speed,
};
