/* float_run.c - one input set through a float kernel; see float_run.h. */
#include "float_run.h"

#include "../reference/prng.h"
#include "../run/gpu.h"
#include "../timing.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

float *dev_upload(const float *host, size_t n, char *why, size_t why_size)
{
    float *dev = NULL;
    cudaError_t err = cudaMalloc((void **)&dev, n * sizeof *dev);
    if (err == cudaSuccess)
        err = cudaMemcpy(dev, host, n * sizeof *dev, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        snprintf(why, why_size, "uploading an input: %s", cudaGetErrorString(err));
        cudaFree(dev);
        return NULL;
    }
    return dev;
}

float *host_random(size_t n, unsigned long long seed)
{
    float *h = malloc(n * sizeof *h);
    prng_fill(h, n, seed);
    return h;
}

run_outcome fail_cuda(check_result *c, const char *label, const char *why)
{
    check_set(c, CHECK_FAIL, "CUDA error at %s: %s", label, why);
    check_field(c->hint, sizeof c->hint, "The kernel faulted or could not launch at this "
                "size. Check every index against the matrix or image bounds, the shared "
                "array sizes, and the launch configuration for sizes that are not a "
                "multiple of the tile.");
    return gpu_context_lost() ? RUN_LOST : RUN_FAILED;
}

/* Elements that still hold the poison the output was filled with. */
static size_t count_poison(const float *got, size_t n)
{
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned int bits;
        memcpy(&bits, &got[i], sizeof bits);
        left += bits == (unsigned int)GPU_POISON_INT;
    }
    return left;
}

/* Judge a result that ran and stayed inside its buffer. */
static run_outcome judge(const float_case *fc, const float *got, size_t n, check_result *c)
{
    char text[512];
    tol_report rep;
    tol_limits lim = tol_default_limits();

    if (count_poison(got, n) == n) {
        check_set(c, CHECK_FAIL, "at %s: the output was never written (all %zu elements still "
                  "hold the poison value)", fc->label, n);
        check_field(c->hint, sizeof c->hint, "Does the launcher launch the kernel, and does "
                    "every thread that owns an output store it?");
        return RUN_WRONG;
    }
    if (!tol_compare(got, fc->ref, fc->rows, fc->cols, fc->floor, lim, &rep)) {
        check_set(c, CHECK_FAIL, "at %s: %s", fc->label,
                  tol_describe(&rep, &lim, text, sizeof text));
        check_field(c->hint, sizeof c->hint, "If only edge elements are wrong, look at the "
                    "bounds checks and the zero fill of partial tiles (or the halo). If the "
                    "wrong elements move from run to run, a __syncthreads() is missing.");
        return RUN_WRONG;
    }
    return RUN_RIGHT;
}

run_outcome float_run_case(worker_env *env, const float_case *fc, check_result *c)
{
    size_t n = (size_t)fc->rows * fc->cols;
    float *got = malloc(n * sizeof *got);
    char why[256];
    long guard = 0;
    int lost = 0;
    guarded buf;
    run_outcome out;

    if (guarded_alloc(&buf, n * sizeof(float), why, sizeof why) != 0) {
        free(got);
        return fail_cuda(c, fc->label, why);
    }
    *fc->out = buf.data;
    worker_progress(env);
    if (env->lib.scrub_shared(GPU_SCRUB_INT) != cudaSuccess) {
        out = fail_cuda(c, fc->label, "filling shared memory with junk failed");
    } else if (gpu_run(fc->launch, fc->arg, &lost, why, sizeof why) != 0) {
        out = fail_cuda(c, fc->label, why);
    } else if (guarded_read(&buf, got, &guard, why, sizeof why) != 0) {
        out = fail_cuda(c, fc->label, why);
    } else if (guard > 0) {
        check_set(c, CHECK_FAIL, "at %s: wrote outside the output (%ld guard bytes changed)",
                  fc->label, guard);
        check_field(c->hint, sizeof c->hint, "A thread past the edge of the output still "
                    "writes: guard every store with the bounds check.");
        out = RUN_WRONG;
    } else {
        out = judge(fc, got, n, c);
    }
    if (out != RUN_LOST)
        guarded_free(&buf);
    *fc->out = NULL; /* freed: nothing may use it again */
    free(got);
    return out;
}

int time_launch(worker_env *env, void (*launch)(void *), void *arg, double *median_ms, char *why,
                size_t n)
{
    worker_progress(env);
    timing_stats st;
    cudaError_t err = timing_measure(launch, arg, 2, 10, &st);
    if (err != cudaSuccess) {
        snprintf(why, n, "%s", cudaGetErrorString(err));
        return -1;
    }
    *median_ms = st.median_ms;
    return 0;
}

/* Send c now, so that a crash later cannot take it back. */
static void decide(worker_env *env, check_result *c, int *sent)
{
    if (c->max_points > 0)
        worker_emit(env, c);
    *sent = 1;
}

int float_grade_kernel(worker_env *env, const lab_kernel *k, const float_ops *ops, void *state)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    check_result c[FLOAT_CHECKS];
    int sent[FLOAT_CHECKS] = {0}, lost = 0;
    void *launcher = lab_lib_symbol(&env->lib, k->launcher);
    int n = kernel_checks(env->lab, k, checks);

    static const char *const ids[FLOAT_CHECKS] = {"correct", "global-loads", "smem-conflicts",
                                                  "speed"};
    /* Checks the table gives no points are not run: max_points 0 marks them. */
    for (int i = 0; i < FLOAT_CHECKS; i++)
        check_init(&c[i], env->lab->id, k->name, ids[i], 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < FLOAT_CHECKS; i++)
            if (strcmp(c[i].check, checks[j].id) == 0)
                c[i].max_points = checks[j].points;

    if (!launcher) {
        check_set(&c[FLOAT_CORRECT], CHECK_FAIL, "%s not found in %s", k->launcher,
                  env->lib.path);
        for (int i = FLOAT_LOADS; i < FLOAT_CHECKS; i++)
            check_set(&c[i], CHECK_FAIL, "not graded: the launcher is missing");
    } else {
        ops->bind(state, launcher);
        run_outcome right = ops->correct(env, k, state, &c[FLOAT_CORRECT]);
        decide(env, &c[FLOAT_CORRECT], &sent[FLOAT_CORRECT]);
        lost = right == RUN_LOST;
        /* Traffic is worth seeing even while an edge case is wrong. */
        if ((right == RUN_RIGHT || right == RUN_WRONG) &&
            (c[FLOAT_LOADS].max_points > 0 || c[FLOAT_CONFLICTS].max_points > 0))
            ops->counters(env, k, state, c, &lost);
        else
            for (int i = FLOAT_LOADS; i <= FLOAT_CONFLICTS; i++)
                check_set(&c[i], CHECK_FAIL, "not graded: the kernel did not run");
        decide(env, &c[FLOAT_LOADS], &sent[FLOAT_LOADS]);
        decide(env, &c[FLOAT_CONFLICTS], &sent[FLOAT_CONFLICTS]);
        if (right == RUN_RIGHT && !lost && c[FLOAT_SPEED].max_points > 0)
            ops->speed(env, k, state, &c[FLOAT_SPEED], &lost);
        else
            check_set(&c[FLOAT_SPEED], CHECK_FAIL, "not timed: the kernel is not correct yet");
    }
    for (int i = 0; i < FLOAT_CHECKS; i++)
        if (!sent[i])
            decide(env, &c[i], &sent[i]);
    return lost ? KERNEL_CONTEXT_LOST : 0;
}
