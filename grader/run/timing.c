/* timing.c - CUDA-event timing with warm-up and median; see timing.h. */
#include "timing.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Value at fraction f of the sorted t[0..n), interpolating between neighbours. */
static double quantile(const double *t, int n, double f)
{
    double pos = f * (n - 1);
    int lo = (int)pos;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return t[lo] + (pos - lo) * (t[hi] - t[lo]);
}

void timing_summarise(double *t, int n, timing_stats *out)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    out->reps = n;
    out->min_ms = t[0];
    out->max_ms = t[n - 1];
    out->median_ms = quantile(t, n, 0.5);
    out->q1_ms = quantile(t, n, 0.25);
    out->q3_ms = quantile(t, n, 0.75);
}

/* Launch once and return the launch error, if any. */
static cudaError_t launch(timing_work work, void *ctx)
{
    work(ctx);
    return cudaGetLastError();
}

/* Time one run between two events. */
static cudaError_t time_once(timing_work work, void *ctx, cudaEvent_t start, cudaEvent_t stop,
                             double *ms)
{
    float elapsed = 0.0f;
    cudaError_t err = cudaEventRecord(start, 0);
    if (err == cudaSuccess)
        err = launch(work, ctx);
    if (err == cudaSuccess)
        err = cudaEventRecord(stop, 0);
    if (err == cudaSuccess)
        err = cudaEventSynchronize(stop);
    if (err == cudaSuccess)
        err = cudaEventElapsedTime(&elapsed, start, stop);
    *ms = elapsed;
    return err;
}

static cudaError_t warm_up(timing_work work, void *ctx, int warmup)
{
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < warmup && err == cudaSuccess; i++)
        err = launch(work, ctx);
    return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

cudaError_t timing_measure(timing_work work, void *ctx, int warmup, int reps,
                           timing_stats *out)
{
    memset(out, 0, sizeof *out);
    if (reps < 1 || reps > TIMING_MAX_REPS)
        return cudaErrorInvalidValue;
    cudaGetLastError(); /* an error left by earlier work is not this work's */
    double t[TIMING_MAX_REPS];
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t err = cudaEventCreate(&start);
    if (err == cudaSuccess)
        err = cudaEventCreate(&stop);
    if (err == cudaSuccess)
        err = warm_up(work, ctx, warmup);
    for (int i = 0; i < reps && err == cudaSuccess; i++)
        err = time_once(work, ctx, start, stop, &t[i]);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (err == cudaSuccess)
        timing_summarise(t, reps, out);
    return err;
}
