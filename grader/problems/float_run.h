/*
 * float_run.h - what labs 5 and 6 share: running a float kernel on one input
 * set (inputs uploaded, output poisoned and guarded, shared memory scrubbed,
 * result against the host reference with the tolerance rules), timing it,
 * and the order in which a kernel's checks are graded.
 */
#ifndef SMEMLAB_FLOAT_RUN_H
#define SMEMLAB_FLOAT_RUN_H

#include "../base/check.h"
#include "../reference/tolerance.h"
#include "../run/gpu.h"
#include "problem.h"

#include <cuda_runtime_api.h>

#include <stddef.h>

/* A device copy of n host floats, or NULL with why filled. */
float *dev_upload(const float *host, size_t n, char *why, size_t why_size);

/* A host array of n floats drawn from the seed: inputs are never zeros. */
float *host_random(size_t n, unsigned long long seed);

typedef struct float_case {
    const char *label;          /* "M=67 N=53 K=97 (...)", for messages */
    void (*launch)(void *arg);  /* enqueues the student's kernel */
    void *arg;
    float **out;                /* where launch finds its output pointer */
    const float *ref;           /* host reference, rows x cols */
    int rows, cols;
    double floor;               /* tolerance floor (tolerance.h) */
    /* For the wrong-result hint: the output piece one block computes (0: not
       known) and what the kernel copies into shared memory, in the exercise's
       words. */
    int block_rows, block_cols;
    const char *copy_words;
} float_case;

/* Run one case and judge it into c (left untouched when it is right). */
run_outcome float_run_case(worker_env *env, const float_case *fc, check_result *c);

/*
 * A timed launch that cannot be gamed: before every run (warm-up too) the
 * inputs are refilled with fresh random values, the reference is recomputed
 * from them and the output is poisoned; after it the output is checked
 * against the reference on the device. A kernel that remembers an earlier
 * answer, or skips work, fails instead of looking fast.
 */
typedef struct timed_work {
    void (*launch)(void *arg); /* what is timed */
    void *arg;
    float *inputs[3];
    size_t input_n[3];
    int n_inputs;
    float *out;  /* poisoned before each run; NULL: nothing to check (a reference) */
    size_t out_n;
    float *ref;  /* where make_ref puts the expected output */
    cudaError_t (*make_ref)(worker_env *env, void *ref_arg);
    void *ref_arg;
    /* Optional: fills run `run`'s inputs itself, the same each time for that run, where
       they are not uniform floats (lab 10's integer keys); given ref_arg. */
    cudaError_t (*refill)(worker_env *env, void *ref_arg, int run);
} timed_work;

/* Median time of w over `reps` runs after 2 warm-ups; 0, or -1 with why. */
int time_fresh(worker_env *env, const timed_work *w, int reps, double *median_ms, char *why,
               size_t n);

/* The source lines of the shared accesses behind c (the smem-conflicts check), worst
   first, from the trace of the run just measured; drawn when c failed. */
void float_trace_lines(worker_env *env, check_result *c);

/*
 * After the measured run (st, its outcome) and its race check: a race the
 * trace proves fails c[FLOAT_CORRECT] with it (compare_race_spoils_correct),
 * and a measured run whose wrong output was that race's luck still has its
 * counts judged; a synchronisation error fails correct and race
 * (worker_judge_sync). Returns the status the count checks go on with.
 */
measure_status float_race_rule(worker_env *env, measure_status st, check_result *c);

/* Fill *c for a CUDA failure outside the student's kernel; returns the outcome. */
run_outcome fail_cuda(check_result *c, const char *label, const char *why);

/* The checks of a lab 5, 6 or 10 kernel, in report order (kernel_checks); the last two
   are lab 10's. */
enum { FLOAT_CORRECT, FLOAT_LOADS, FLOAT_CONFLICTS, FLOAT_SPEED, FLOAT_RACE, FLOAT_PATH,
       FLOAT_CONST, FLOAT_CHECKS };

/* What a problem module plugs into float_grade_kernel. */
typedef struct float_ops {
    void (*bind)(void *state, worker_env *env); /* the kernel's validated launches */
    run_outcome (*correct)(worker_env *env, const lab_kernel *k, void *state,
                           check_result *c);
    /* Fill c[FLOAT_LOADS], c[FLOAT_CONFLICTS] and c[FLOAT_RACE] (float_trace_races),
       and lab 10's c[FLOAT_PATH] and c[FLOAT_CONST], from one measured run; set *lost if
       the context died. */
    void (*counters)(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                     int *lost);
    void (*speed)(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                  int *lost);
} float_ops;

/*
 * Grade one kernel: find its launcher, check it on every size, then measure
 * its traffic (even while an edge case is wrong) and time it (only once it
 * is right). Each check goes to the grader as soon as it is decided, so a
 * crash later costs only the checks not yet graded. Returns
 * KERNEL_CONTEXT_LOST when the context is gone.
 */
int float_grade_kernel(worker_env *env, const lab_kernel *k, const float_ops *ops, void *state);

#endif
