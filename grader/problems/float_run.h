/*
 * float_run.h - what the float kinds share (labs 5, 6, 9 and 10): running a float
 * kernel on one input set (inputs uploaded, output poisoned and guarded, shared
 * memory scrubbed, result against the host reference with the tolerance rules),
 * and timing it against a reference on fresh inputs.
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
    /* What each output is a sum of products with, where outputs all 0 say it was never
       filled ("c_mask1d, the __constant__ array ..."); NULL: not such a sum. */
    const char *factor_words;
} float_case;

/* Run one case on p->mod (the GPU's module, or the emulated twin's) and judge it into c
   (left untouched when it is right). */
run_outcome float_run_case(const problem *p, const float_case *fc, check_result *c);

/* factor_words for a kernel whose outputs are sums of products with NOUN ("mask"): its
   __constant__ array where the lab's table names one, else the launcher's argument. */
const char *float_factor_words(const problem *p, const char *noun, char *buf, size_t size);

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

/* The judge of smem-conflicts in labs 5, 6 and 10: conflict-free within the slack many
   blocks need (check_smem_near_free), the kind's hint where not, and the lines behind. */
void float_judge_conflicts(problem *p, check_id id, const measurement *m,
                           const trace_summary *s, check_result *c);

/* Fill *c for a CUDA failure outside the student's kernel; returns the outcome. */
run_outcome fail_cuda(check_result *c, const char *label, const char *why);

/*
 * The speed check: kernel and ref timed alike (time_fresh, 10 runs each), c judged
 * at `want` of the reference's speed for `work` units of `unit` a millisecond, the
 * hint added where it fails. at: the size's words for messages, or NULL. A kernel
 * whose timed run lost the context sets p->lost.
 */
typedef struct speed_words {
    const char *at;       /* "4096x4096x4096", or NULL */
    const char *ref_name; /* "cuBLAS SGEMM", for the measured and expected fields */
    const char *ref_what; /* "cuBLAS", "the copy": what failed to be timed */
    const char *unit;     /* "GFLOP/s", "GB/s" */
    double work;          /* units a millisecond at 1 ms */
    const char *hint;
} speed_words;
void time_against(problem *p, const timed_work *kernel, const timed_work *ref,
                  const speed_words *w, check_result *c);

#endif
