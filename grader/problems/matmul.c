/*
 * matmul.c - grading one kernel of lab 5 (C = A * B, float32, row-major):
 * correctness on every size of the list, global-load instructions against
 * the naive model divided by TILE, shared conflicts, and speed against
 * cuBLAS SGEMM.
 */
#include "../compare.h"
#include "../reference/reference.h"
#include "../reference/sizes.h"
#include "../reference/tolerance.h"
#include "float_run.h"
#include "traffic.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*matmul_fn)(const float *A, const float *B, float *C, int M, int N, int K);

typedef struct mm_launch {
    matmul_fn fn;
    const float *A, *B;
    float *C;
    int M, N, K;
} mm_launch;

static void launch_mm(void *p)
{
    mm_launch *a = p;
    a->fn(a->A, a->B, a->C, a->M, a->N, a->K);
}

/* Inputs and references live as long as the worker: every kernel reuses them. */
typedef struct mm_case {
    float *A, *B, *ref;
    double floor;
} mm_case;
static mm_case cache[32];

static const mm_case *get_case(int i, unsigned long long seed)
{
    const matmul_size *s = &sizes_matmul[i];
    mm_case *c = &cache[i];
    if (!c->ref) {
        c->A = host_random((size_t)s->M * s->K, seed + 2 * (unsigned)i);
        c->B = host_random((size_t)s->K * s->N, seed + 2 * (unsigned)i + 1);
        c->ref = malloc((size_t)s->M * s->N * sizeof *c->ref);
        ref_matmul(c->A, c->B, c->ref, s->M, s->N, s->K);
        c->floor = tol_floor_matmul(c->A, (size_t)s->M * s->K, c->B, (size_t)s->K * s->N, s->K);
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
    cudaFree((void *)a->A);
    cudaFree((void *)a->B);
    cudaFree(a->C);
    a->A = a->B = NULL;
    a->C = NULL;
}

static run_outcome correct_mm(worker_env *env, const lab_kernel *k, void *state,
                              check_result *c)
{
    mm_launch *a = state;
    char why[256];
    (void)k;
    for (int i = 0; i < sizes_matmul_count; i++) {
        const matmul_size *s = &sizes_matmul[i];
        char label[128];
        run_outcome out;

        worker_progress(env); /* the host reference of 1024^3 takes a moment */
        const mm_case *mc = get_case(i, env->opt->seed);
        snprintf(label, sizeof label, "M=%d N=%d K=%d (%s)", s->M, s->N, s->K, s->why);
        a->M = s->M, a->N = s->N, a->K = s->K;
        if (upload(a, mc->A, mc->B, why, sizeof why) != 0) {
            out = fail_cuda(c, label, why);
        } else {
            float_case fc = {label, launch_mm, a, &a->C, mc->ref, s->M, s->N, mc->floor};
            out = float_run_case(env, &fc, c);
        }
        if (out != RUN_LOST)
            release(a);
        if (out != RUN_RIGHT)
            return out;
    }
    check_set(c, CHECK_PASS, "all %d sizes right, 1x1x1 to 1024^3 (seed %llu)",
              sizes_matmul_count, env->opt->seed);
    return RUN_RIGHT;
}

/* Large random operands and an output on the device, for counters and timing. */
static int big_operands(const matmul_size *s, unsigned long long seed, mm_launch *a,
                        char *why, size_t n)
{
    float *hA = host_random((size_t)s->M * s->K, seed), *hB = host_random((size_t)s->K * s->N, seed + 1);
    a->M = s->M, a->N = s->N, a->K = s->K;
    int rc = upload(a, hA, hB, why, n);
    free(hA);
    free(hB);
    if (rc == 0 && cudaMalloc((void **)&a->C, (size_t)s->M * s->N * sizeof(float)) != cudaSuccess) {
        snprintf(why, n, "no device memory for a %dx%d result", s->M, s->N);
        rc = -1;
    }
    return rc;
}

static void counters_mm(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                        int *lost)
{
    const matmul_size *s = &sizes_matmul_traffic;
    mm_launch *a = state;
    measurement m;
    char why[256], model[128];
    measure_status st = env->meter_status;

    snprintf(why, sizeof why, "%s", env->meter_why);
    if (st == MEASURE_OK && big_operands(s, env->opt->seed, a, why, sizeof why) != 0)
        st = MEASURE_ERROR;
    if (st == MEASURE_OK) {
        worker_progress(env);
        st = env->meter->measure(env->meter, launch_mm, a, &m, why, sizeof why);
    }
    *lost = st == MEASURE_ERROR && gpu_context_lost();
    if (!*lost)
        release(a);
    if (st != MEASURE_OK) {
        compare_not_measured(&c[FLOAT_LOADS], st, why);
        compare_not_measured(&c[FLOAT_CONFLICTS], st, why);
        return;
    }
    /* Naive: every thread loads one A and one B element per k, a warp at a time. */
    double naive = (double)s->M * s->N * 2.0 * s->K / env->gpu.banks.warp_size;
    int tile = lab_param_value(env->lab, k->tile_param);
    if (tile < 1)
        tile = 1; /* no tiling asked for: the naive count is the limit */
    snprintf(model, sizeof model, "naive model %.0f / TILE %d, +%.0f%%, at %dx%dx%d", naive,
             tile, 100 * GLOBAL_LOAD_SLACK, s->M, s->N, s->K);
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
}

/* cuBLAS computes row-major C = A B as column-major C^T = B^T A^T. */
static void launch_cublas(void *p)
{
    mm_launch *a = p;
    static cublasHandle_t h;
    const float one = 1.0f, zero = 0.0f;
    if (!h)
        cublasCreate(&h);
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, a->N, a->M, a->K, &one, a->B, a->N, a->A, a->K,
                &zero, a->C, a->N);
}

/* Relative Frobenius distance of two device results. */
static double device_distance(const float *x, const float *y, size_t n)
{
    float *hx = malloc(n * sizeof *hx), *hy = malloc(n * sizeof *hy);
    double num = 0, den = 0;
    cudaMemcpy(hx, x, n * sizeof *hx, cudaMemcpyDeviceToHost);
    cudaMemcpy(hy, y, n * sizeof *hy, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; i++) {
        num += ((double)hx[i] - hy[i]) * ((double)hx[i] - hy[i]);
        den += (double)hy[i] * hy[i];
    }
    free(hx);
    free(hy);
    return den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0);
}

static void speed_mm(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                     int *lost)
{
    const matmul_size *s = &sizes_matmul_speed;
    mm_launch *a = state, ref;
    char why[256];
    double t_kernel = 0, t_ref = 0;
    size_t n = (size_t)s->M * s->N;

    if (big_operands(s, env->opt->seed, a, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "could not prepare %dx%dx%d: %s", s->M, s->N, s->K, why);
        release(a);
        return;
    }
    ref = *a;
    ref.C = NULL;
    if (cudaMalloc((void **)&ref.C, n * sizeof(float)) != cudaSuccess ||
        time_launch(env, launch_mm, a, &t_kernel, why, sizeof why) != 0 ||
        time_launch(env, launch_cublas, &ref, &t_ref, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "timing failed at %dx%dx%d: %s", s->M, s->N, s->K, why);
        *lost = gpu_context_lost();
    } else {
        double dist = device_distance(a->C, ref.C, n);
        check_speed(c, t_kernel, t_ref, k->speed_fraction, "GFLOP/s",
                    2.0 * s->M * s->N * s->K / 1e6, "cuBLAS SGEMM");
        if (!(dist <= TOL_OVERALL * 10))
            check_set(c, CHECK_FAIL, "result at %dx%dx%d differs from cuBLAS (relative error "
                      "%.1e): a fast wrong answer earns nothing", s->M, s->N, s->K, dist);
        else if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "Each thread should compute a small block of "
                        "outputs (e.g. 8x8) from registers, reading each shared value once "
                        "into a register and reusing it; wide (float4) loads and a large "
                        "block tile (e.g. 128x128) cut shared and global traffic further.");
    }
    if (!*lost) {
        cudaFree(ref.C);
        release(a);
    }
}

static void bind_mm(void *state, void *launcher)
{
    *(void **)&((mm_launch *)state)->fn = launcher;
}

int matmul_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static const float_ops ops = {bind_mm, correct_mm, counters_mm, speed_mm};
    mm_launch state = {0};
    return float_grade_kernel(env, k, &ops, &state);
}
