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

/*
 * The checks of a lab 5 or 6 kernel, in report order; a check with no points
 * in the lab table is not run.
 */
enum { FLOAT_CORRECT, FLOAT_LOADS, FLOAT_CONFLICTS, FLOAT_SPEED, FLOAT_CHECKS };

/* What a problem module plugs into float_grade_kernel. */
typedef struct float_ops {
    void (*bind)(void *state, void *launcher); /* the student's launcher */
    int (*correct)(worker_env *env, void *state, check_result *c, int *broken);
    /* Fills c[FLOAT_LOADS] and c[FLOAT_CONFLICTS]. */
    void (*counters)(worker_env *env, const lab_kernel *k, void *state, check_result *c);
    void (*speed)(worker_env *env, const lab_kernel *k, void *state, check_result *c);
} float_ops;

/*
 * Grade one kernel: find its launcher, check it on every size, then measure
 * its traffic (even while an edge case is wrong) and time it (only once it
 * is right). Returns KERNEL_CONTEXT_LOST when the context is gone.
 */
int float_grade_kernel(worker_env *env, const lab_kernel *k, const float_ops *ops, void *state);

#endif
