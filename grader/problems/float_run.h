/*
 * float_run.h - running a float kernel of labs 5 and 6 on one input set:
 * inputs uploaded, output poisoned and guarded, shared memory scrubbed, the
 * result checked against the host reference with the tolerance rules.
 */
#ifndef SMEMLAB_FLOAT_RUN_H
#define SMEMLAB_FLOAT_RUN_H

#include "../check.h"
#include "../reference/tolerance.h"
#include "../worker.h"

#include <stddef.h>

/* A device copy of n host floats, or NULL with why filled. */
float *dev_upload(const float *host, size_t n, char *why, size_t why_size);

/* A host array of n floats drawn from the seed: inputs are never zeros. */
float *host_random(size_t n, unsigned long long seed);

typedef struct float_case {
    const char *label;          /* "67x53x97", for messages */
    void (*launch)(void *arg);  /* enqueues the student's kernel */
    void *arg;
    float **out;                /* where launch finds its output pointer */
    const float *ref;           /* host reference, rows x cols */
    int rows, cols;
    double floor;               /* tolerance floor (tolerance.h) */
} float_case;

/*
 * Run one case and judge it into c (left untouched when it passes).
 * Returns 1 when right; *broken is set when the CUDA context is lost.
 */
int float_run_case(worker_env *env, const float_case *fc, check_result *c, int *broken);

/* Median time of launch(arg) after a warm-up (CUDA events); 0 on success. */
int time_launch(worker_env *env, void (*launch)(void *), void *arg, double *median_ms, char *why,
                size_t n);

#endif
