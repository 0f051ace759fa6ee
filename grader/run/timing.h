/*
 * timing.h - time GPU work with CUDA events: warm-up, then the median of
 * repeated runs (C11; links cudart).
 *
 * One event pair around each repetition, synchronised before the next, so a
 * run's time is its own: the median shrugs off the odd slow run (clock ramp,
 * another process), min and max show how much the runs spread. The work is
 * whatever the callback enqueues on the default stream.
 */
#ifndef SMEMLAB_TIMING_H
#define SMEMLAB_TIMING_H

#include <cuda_runtime_api.h>

/* Enqueue the work to time on the default stream; no synchronisation needed. */
typedef void (*timing_work)(void *ctx);

typedef struct timing_stats {
    double median_ms;
    double min_ms, max_ms;
    double q1_ms, q3_ms; /* quartiles: q3 - q1 is the interquartile range */
    int reps;            /* timed repetitions */
} timing_stats;

#define TIMING_MAX_REPS 1000

/*
 * Run work `warmup` times untimed, then `reps` times timed (1 ..
 * TIMING_MAX_REPS). Checks cudaGetLastError() after every launch. Returns
 * cudaSuccess and fills *out, or the first error (with *out zeroed).
 */
cudaError_t timing_measure(timing_work work, void *ctx, int warmup, int reps,
                           timing_stats *out);

/* Median, min, max and quartiles of t[0..n) (n >= 1); sorts t in place. */
void timing_summarise(double *t, int n, timing_stats *out);

#endif /* SMEMLAB_TIMING_H */
