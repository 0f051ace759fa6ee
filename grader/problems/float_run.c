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

static void fail_cuda(check_result *c, const char *label, const char *why)
{
    check_set(c, CHECK_FAIL, "CUDA error at %s: %s", label, why);
    check_field(c->hint, sizeof c->hint, "The kernel faulted or could not launch at this "
                "size. Check every index against the matrix or image bounds, the shared "
                "array sizes, and the launch configuration for sizes that are not a "
                "multiple of the tile.");
}

int float_run_case(worker_env *env, const float_case *fc, check_result *c, int *broken)
{
    size_t n = (size_t)fc->rows * fc->cols;
    float *got = malloc(n * sizeof *got);
    char why[256], text[512];
    long guard = 0;
    guarded buf;
    tol_report rep;
    tol_limits lim = tol_default_limits();
    int ok = 0;

    *broken = 0;
    if (guarded_alloc(&buf, n * sizeof(float), why, sizeof why) != 0) {
        fail_cuda(c, fc->label, why);
        free(got);
        return 0;
    }
    *fc->out = buf.data;
    worker_progress(env);
    env->lib.scrub_shared(GPU_SCRUB_INT);
    if (gpu_run(fc->launch, fc->arg, broken, why, sizeof why) != 0 ||
        guarded_read(&buf, got, &guard, why, sizeof why) != 0) {
        fail_cuda(c, fc->label, why);
    } else if (guard > 0) {
        check_set(c, CHECK_FAIL, "at %s: wrote outside the output (%ld guard bytes changed)",
                  fc->label, guard);
        check_field(c->hint, sizeof c->hint, "A thread past the edge of the output still "
                    "writes: guard every store with the bounds check.");
    } else if (!tol_compare(got, fc->ref, fc->rows, fc->cols, fc->floor, lim, &rep)) {
        check_set(c, CHECK_FAIL, "at %s: %s", fc->label,
                  tol_describe(&rep, &lim, text, sizeof text));
        check_field(c->hint, sizeof c->hint, "If only edge elements are wrong, look at the "
                    "bounds checks and the zero fill of partial tiles (or the halo). If the "
                    "wrong elements move from run to run, a __syncthreads() is missing.");
    } else {
        ok = 1;
    }
    if (!*broken)
        guarded_free(&buf);
    free(got);
    return ok;
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

int float_grade_kernel(worker_env *env, const lab_kernel *k, const float_ops *ops, void *state)
{
    static const char *const ids[FLOAT_CHECKS] = {"correct", "global-loads", "smem-conflicts",
                                                  "speed"};
    const double pts[FLOAT_CHECKS] = {k->points.correct, k->points.global_loads,
                                      k->points.conflicts, k->points.speed};
    check_result c[FLOAT_CHECKS];
    int broken = 0;
    void *launcher = lab_lib_symbol(&env->lib, k->launcher);

    for (int i = 0; i < FLOAT_CHECKS; i++)
        check_init(&c[i], env->lab->id, k->name, ids[i], pts[i]);
    if (!launcher) {
        check_set(&c[FLOAT_CORRECT], CHECK_FAIL, "%s not found in %s", k->launcher,
                  env->lib.path);
        for (int i = FLOAT_LOADS; i < FLOAT_CHECKS; i++)
            check_set(&c[i], CHECK_FAIL, "not graded: the launcher is missing");
    } else {
        ops->bind(state, launcher);
        int right = ops->correct(env, state, &c[FLOAT_CORRECT], &broken);
        int ran = !broken && !strstr(c[FLOAT_CORRECT].message, "CUDA error");
        if (ran && (pts[FLOAT_LOADS] > 0 || pts[FLOAT_CONFLICTS] > 0))
            ops->counters(env, k, state, c);
        else
            for (int i = FLOAT_LOADS; i <= FLOAT_CONFLICTS; i++)
                check_set(&c[i], CHECK_FAIL, "not graded: the kernel did not run");
        if (right && pts[FLOAT_SPEED] > 0)
            ops->speed(env, k, state, &c[FLOAT_SPEED]);
        else
            check_set(&c[FLOAT_SPEED], CHECK_FAIL, "not timed: the kernel is not correct yet");
    }
    for (int i = 0; i < FLOAT_CHECKS; i++)
        if (pts[i] > 0)
            worker_emit(env, &c[i]);
    return broken ? KERNEL_CONTEXT_LOST : 0;
}
