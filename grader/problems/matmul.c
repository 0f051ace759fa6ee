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

/* The student's launches of call `call` (calls.h), on the grader's A, B and C. */
typedef struct mm_launch {
    worker_env *env;
    int call;
    const float *A, *B;
    float *C;
    int M, N, K;
    unsigned long long seed; /* of the large operands */
} mm_launch;

static void launch_mm(void *p)
{
    mm_launch *a = p;
    replay r = {&a->env->mod, &a->env->plan->calls[a->call], {(void *)a->A, (void *)a->B, a->C}};
    replay_launch(&r);
}

/* Inputs and references live as long as the worker: every kernel reuses them. */
typedef struct mm_case {
    float *A, *B, *ref;
    double floor;
} mm_case;
static mm_case cache[CALL_MAX];

/* Call i's operands (M x K and K x N) and reference, made once per worker. */
static const mm_case *get_case(const call_spec *s, int i, unsigned long long seed)
{
    int M = s->width, N = s->height, K = s->depth;
    mm_case *c = &cache[i];
    if (!c->ref) {
        c->A = host_random((size_t)M * K, seed + 2 * (unsigned)i);
        c->B = host_random((size_t)K * N, seed + 2 * (unsigned)i + 1);
        c->ref = malloc((size_t)M * N * sizeof *c->ref);
        ref_matmul(c->A, c->B, c->ref, M, N, K);
        c->floor = tol_floor_matmul(c->A, (size_t)M * K, c->B, (size_t)K * N, K);
    }
    return c;
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
    dev_free((void *)a->A);
    dev_free((void *)a->B);
    dev_free(a->C);
    a->A = a->B = NULL;
    a->C = NULL;
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

/* Call i of the plan (one size) on fresh operands, judged into c. */
static run_outcome run_mm_size(worker_env *env, const lab_kernel *k, mm_launch *a, int i,
                               check_result *c)
{
    const call_spec *s = &env->plan->specs[i];
    const mm_case *mc = get_case(s, i, env->opt->seed);
    char why[256];
    run_outcome out;
    a->call = i;
    a->M = s->width, a->N = s->height, a->K = s->depth;
    if (upload(a, mc->A, mc->B, why, sizeof why) != 0) {
        out = fail_cuda(c, s->label, why);
    } else {
        float_case fc = {s->label, launch_mm, a, &a->C, mc->ref, a->M, a->N, mc->floor,
                         0, 0, COPY_WORDS};
        block_piece(env, k, &env->plan->calls[i], &fc.block_rows, &fc.block_cols);
        out = float_run_case(env, &fc, c);
    }
    if (out != RUN_LOST)
        release(a);
    return out;
}

/*
 * A size with partial tiles came out wrong: is the kernel right where every
 * tile is whole (the global-loads size, 128^3)? Then the edges are at fault,
 * else the indexing itself; the hint says which it measured.
 */
static void whole_tile_probe(worker_env *env, const lab_kernel *k, mm_launch *a, int failed,
                             check_result *c)
{
    const call_spec *s = &env->plan->specs[failed];
    int tile = 0, t = calls_find(env->plan->specs, env->plan->n_calls, CALL_TRAFFIC,
                                 device_is_emulator());
    lab_image_int(env->img, "smemlab_param_TILE", &tile);
    if (t < 0 || k->step == 1 || tile <= 0 ||
        (s->width % 128 == 0 && s->height % 128 == 0 && s->depth % 128 == 0))
        return;
    const call_spec *w = &env->plan->specs[t];
    check_result probe;
    check_init(&probe, c->lab, c->kernel, c->check, 0);
    run_outcome out = run_mm_size(env, k, a, t, &probe);
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

static run_outcome correct_mm(worker_env *env, const lab_kernel *k, void *state,
                              check_result *c)
{
    mm_launch *a = state;
    const kernel_plan *plan = env->plan;
    int runs = 0, largest = 0;
    for (int i = 0; i < plan->n_calls; i++) {
        const call_spec *s = &plan->specs[i];
        if (!(s->role & CALL_CORRECT) || !call_runs_on(s, device_is_emulator()))
            continue;
        run_outcome out = run_mm_size(env, k, a, i, c);
        if (out == RUN_WRONG)
            whole_tile_probe(env, k, a, i, c);
        if (out != RUN_RIGHT)
            return out;
        runs++;
        largest = i;
    }
    const call_spec *big = &plan->specs[largest];
    check_set(c, CHECK_PASS, "all %d sizes right, 1x1x1 to %dx%dx%d (seed %llu)", runs,
              big->width, big->height, big->depth, env->opt->seed);
    return RUN_RIGHT;
}

/* Large random operands and an output on the device, for counters and timing. */
/* A and B filled from the seed on the device: the same values every time. */
static cudaError_t fill_operands(mm_launch *a, unsigned long long seed)
{
    cudaError_t err = module_fill(&a->env->mod, (float *)a->A, (size_t)a->M * a->K, seed);
    if (err == cudaSuccess)
        err = module_fill(&a->env->mod, (float *)a->B, (size_t)a->K * a->N, seed + 1);
    return err == cudaSuccess ? dev_sync() : err;
}

/* The operands of the call with `role` on this device; 0, or -1 with why. */
static int big_operands(worker_env *env, int role, unsigned long long seed, mm_launch *a,
                        char *why, size_t n)
{
    int call = calls_find(env->plan->specs, env->plan->n_calls, role, device_is_emulator());
    if (call < 0) {
        snprintf(why, n, "internal: no %s size for this device", role == CALL_SPEED ? "speed"
                                                                                   : "traffic");
        return -1;
    }
    const call_spec *s = &env->plan->specs[call];
    a->call = call;
    a->M = s->width, a->N = s->height, a->K = s->depth;
    a->seed = seed;
    if (dev_malloc((void **)&a->A, (size_t)a->M * a->K * sizeof(float)) != cudaSuccess ||
        dev_malloc((void **)&a->B, (size_t)a->K * a->N * sizeof(float)) != cudaSuccess ||
        dev_malloc((void **)&a->C, (size_t)a->M * a->N * sizeof(float)) != cudaSuccess) {
        snprintf(why, n, "no device memory for %dx%dx%d operands", a->M, a->N, a->K);
        return -1;
    }
    if (fill_operands(a, seed) != cudaSuccess) {
        snprintf(why, n, "filling the operands failed");
        return -1;
    }
    return 0;
}

static void launch_cublas(void *p);

/* The run the counters saw, against the reference product on the same operands
   (cuBLAS on a GPU, the host's on the emulator). */
static int measured_run_right(mm_launch *a, char *why, size_t n)
{
    mm_launch ref = *a;
    device_diff d;
    size_t count = (size_t)a->M * a->N;
    int right = 0;
    ref.C = NULL;
    /* The kernel may have written over A and B: the reference uses them as filled. */
    if (fill_operands(a, a->seed) == cudaSuccess &&
        dev_malloc((void **)&ref.C, count * sizeof(float)) == cudaSuccess) {
        right = module_matmul(&a->env->mod, a->A, a->B, ref.C, a->M, a->N, a->K) == cudaSuccess &&
                module_diff(&a->env->mod, a->C, ref.C, count, &d) == cudaSuccess &&
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

static void counters_mm(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                        int *lost)
{
    mm_launch *a = state;
    measurement m;
    char why[256], model[128];
    measure_status st = env->meter_status;

    snprintf(why, sizeof why, "%.250s", env->meter_why);
    if (st == MEASURE_OK && big_operands(env, CALL_TRAFFIC, env->opt->seed, a, why, sizeof why) != 0)
        st = MEASURE_ERROR;
    if (st == MEASURE_OK) {
        st = worker_measure(env, launch_mm, a, &m, why, sizeof why);
        if (st == MEASURE_OK && !measured_run_right(a, why, sizeof why))
            st = MEASURE_WRONG_RESULT;
    }
    *lost = st == MEASURE_ERROR && dev_context_lost();
    if (c[FLOAT_RACE].max_points > 0)
        worker_judge_races(env, &c[FLOAT_RACE], st, why);
    st = float_race_rule(env, st, c);
    if (!*lost)
        release(a);
    if (st != MEASURE_OK) {
        compare_not_measured(&c[FLOAT_LOADS], st, why);
        compare_not_measured(&c[FLOAT_CONFLICTS], st, why);
        return;
    }
    /* Naive: every thread loads one A and one B element per k, a warp at a time. */
    double naive = (double)a->M * a->N * 2.0 * a->K / env->gpu.banks.warp_size;
    int tile = lab_param_value(env->lab, k->tile_param);
    if (tile < 1)
        tile = 1; /* no tiling asked for: the naive count is the limit */
    snprintf(model, sizeof model, "naive model %.0f / TILE %d, +%.0f%%, at %dx%dx%d", naive,
             tile, 100 * GLOBAL_LOAD_SLACK, a->M, a->N, a->K);
    check_global_loads(&c[FLOAT_LOADS], &m, naive / tile * (1 + GLOBAL_LOAD_SLACK), model,
                       "Each element of A and B should come from global memory once per "
                       "tile, not once per product: load a TILE x TILE tile of each into "
                       "shared memory, __syncthreads(), and take every product of the inner "
                       "loop from the shared tiles.");
    check_smem_near_free(&c[FLOAT_CONFLICTS], &m,
                         "Read As[ty][k] (one word for a whole row of threads: a broadcast) and "
                         "Bs[k][tx] (consecutive words): both are conflict-free. A tile read "
                         "down a column, Bs[tx][k], costs a conflict on every access; swap the "
                         "indices or pad the tile.");
    float_trace_lines(env, &c[FLOAT_CONFLICTS]);
}

static void launch_cublas(void *p)
{
    mm_launch *a = p;
    blas_sgemm(a->A, a->B, a->C, a->M, a->N, a->K);
}

static cudaError_t ref_cublas(worker_env *env, void *p)
{
    (void)env;
    mm_launch *a = p;
    if (blas_sgemm(a->A, a->B, a->C, a->M, a->N, a->K) != 0)
        return cudaErrorLaunchFailure;
    return cudaGetLastError();
}

static void speed_mm(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                     int *lost)
{
    mm_launch *a = state, ref;
    char why[256];
    double t_kernel = 0, t_ref = 0;

    if (big_operands(env, CALL_SPEED, env->opt->seed, a, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "could not prepare the speed run: %s", why);
        release(a);
        return;
    }
    const mm_launch *s = a; /* its sizes */
    size_t n = (size_t)s->M * s->N;
    ref = *a;
    ref.C = NULL;
    int prepared = dev_malloc((void **)&ref.C, n * sizeof(float)) == cudaSuccess;
    /* Both timed alike: fresh A and B before every run; the kernel's C checked each time. */
    timed_work kernel = {launch_mm, a, {(float *)a->A, (float *)a->B}, {(size_t)s->M * s->K,
                         (size_t)s->K * s->N}, 2, a->C, n, ref.C, ref_cublas, &ref, NULL};
    timed_work blas = {launch_cublas, &ref, {(float *)a->A, (float *)a->B},
                       {(size_t)s->M * s->K, (size_t)s->K * s->N}, 2, NULL, 0, NULL, NULL, NULL,
                       NULL};
    if (!prepared) {
        check_set(c, CHECK_FAIL, "no device memory for the cuBLAS result at %dx%dx%d", s->M,
                  s->N, s->K);
    } else if (blas_load(why, sizeof why) != 0) {
        check_set(c, CHECK_NOT_MEASURED, "cuBLAS, the speed reference, is missing: %s", why);
    } else if (time_fresh(env, &kernel, 10, &t_kernel, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "at %dx%dx%d: %s", s->M, s->N, s->K, why);
        *lost = dev_context_lost();
    } else if (time_fresh(env, &blas, 10, &t_ref, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "timing cuBLAS failed at %dx%dx%d: %s", s->M, s->N, s->K, why);
        *lost = dev_context_lost();
    } else {
        check_speed(c, t_kernel, t_ref, k->speed_fraction, "GFLOP/s",
                    2.0 * s->M * s->N * s->K / 1e6, "cuBLAS SGEMM");
        if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "Each thread should compute a small block of "
                        "outputs (e.g. 8x8) from registers, reading each shared value once "
                        "into a register and reusing it; wide (float4) loads and a large "
                        "block tile (e.g. 128x128) cut shared and global traffic further.");
    }
    if (!*lost) {
        dev_free(ref.C);
        release(a);
    }
}

static void bind_mm(void *state, worker_env *env)
{
    ((mm_launch *)state)->env = env;
}

int matmul_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static const float_ops ops = {bind_mm, correct_mm, counters_mm, speed_mm};
    mm_launch state = {0};
    return float_grade_kernel(env, k, &ops, &state);
}
