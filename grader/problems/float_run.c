/* float_run.c - one input set through a float kernel; see float_run.h. */
#include "float_run.h"

#include "../compare/compare.h"
#include "../run/device.h"
#include "../reference/prng.h"
#include "../run/gpu.h"
#include "../run/timing.h"
#include "traffic.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

float *dev_upload(const float *host, size_t n, char *why, size_t why_size)
{
    float *dev = NULL;
    cudaError_t err = dev_malloc((void **)&dev, n * sizeof *dev);
    if (err == cudaSuccess)
        err = dev_copy(dev, host, n * sizeof *dev, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        snprintf(why, why_size, "uploading an input: %s", dev_error_text(err));
        dev_free(dev);
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
    check_fail_launch(c, label, why, "The kernel faulted or could not launch at this "
                      "size. Check every index against its own array's size (the last block "
                      "may hold fewer elements), the shared array sizes, and the launch "
                      "configuration for sizes that are not a multiple of the tile.");
    return dev_context_lost() ? RUN_LOST : RUN_FAILED;
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

/* Where the wrong elements are: how many, and how many lie in whole blocks (the
   interior; the rest are in the partial blocks a size no multiple of one leaves). */
typedef struct wrong_map {
    long wrong, interior_wrong, interior;
    long junk; /* wrong elements no input makes: computed from the grader's shared fill */
    long zero; /* wrong elements that are 0 */
    float junk_value;
} wrong_map;

/* A value no kit input makes (they lie in [-1, 1], a sum of a few thousand of them far
   below this): one computed from shared memory as the grader fills it before a run,
   GPU_SCRUB_INT's bytes, 1.54e16 as a float. */
#define JUNK_MAGNITUDE 1e12

static void map_wrong(const float_case *fc, const float *got, const tol_limits *lim, wrong_map *w)
{
    int full_r = fc->block_rows ? fc->rows / fc->block_rows * fc->block_rows : 0;
    int full_c = fc->block_cols ? fc->cols / fc->block_cols * fc->block_cols : 0;
    memset(w, 0, sizeof *w);
    for (int r = 0; r < fc->rows; r++)
        for (int col = 0; col < fc->cols; col++) {
            size_t i = (size_t)r * fc->cols + col;
            double ref = fc->ref[i], den = fabs(ref) > fc->floor ? fabs(ref) : fc->floor;
            int bad = !isfinite(got[i]) || !(fabs(got[i] - ref) <= lim->elem * den);
            int inside = r < full_r && col < full_c;
            w->wrong += bad;
            w->interior += inside;
            w->interior_wrong += bad && inside;
            w->zero += bad && got[i] == 0.0f;
            if (bad && isfinite(got[i]) && fabs(got[i]) >= JUNK_MAGNITUDE && !w->junk++)
                w->junk_value = got[i];
        }
}

/* The hint for a wrong result, from where the wrong elements are. */
static void wrong_hint(const float_case *fc, const float *got, const tol_limits *lim,
                       check_result *c)
{
    wrong_map w;
    long n = (long)fc->rows * fc->cols;
    map_wrong(fc, got, lim, &w);
    const char *copy = fc->copy_words ? fc->copy_words : "";
    float fill;
    int32_t fill_bits = GPU_SCRUB_INT;
    memcpy(&fill, &fill_bits, sizeof fill);
    char who[64];
    if (w.wrong == 1)
        snprintf(who, sizeof who, "Your one wrong element holds a value");
    else if (w.junk == w.wrong)
        snprintf(who, sizeof who, "All %ld wrong elements hold values", w.wrong);
    else
        snprintf(who, sizeof who, "%ld of your %ld wrong elements hold values", w.junk, w.wrong);
    if (w.junk * 2 >= w.wrong && w.junk > 0)
        check_field(c->hint, sizeof c->hint, "%s no input makes (%.3g): computed from shared "
                    "memory no thread of the block wrote in this launch, which the grader "
                    "fills with junk first (%.3g as a float). Which tile word does each thread "
                    "read, and did a thread of the block store it before the barrier?%s%s%s",
                    who, (double)w.junk_value, (double)fill, copy[0] ? " Here " : "", copy,
                    copy[0] ? "." : "");
    else if (fc->factor_words && w.wrong > 0 && w.zero == w.wrong)
        check_field(c->hint, sizeof c->hint, "%s %ld wrong element%s %s 0, as a sum of "
                    "products comes out whose factor is 0 everywhere: does your kernel "
                    "multiply by %s, and not by an array of its own that nothing writes?",
                    w.wrong == 1 ? "Your" : "All", w.wrong, w.wrong == 1 ? "" : "s of yours",
                    w.wrong == 1 ? "is" : "are", fc->factor_words);
    else if (w.wrong == 0)
        check_field(c->hint, sizeof c->hint, "No element is far off, but together they are: "
                    "the sum loses precision (half or TF32 math, a float accumulator summed "
                    "in another type). The labs are about float32 throughout.");
    else if (w.interior > 0 && w.interior_wrong == 0)
        check_field(c->hint, sizeof c->hint, "Only elements of the partial blocks at the edges "
                    "are wrong (rows from %d or columns from %d on; every whole %dx%d block is "
                    "right): look at the bounds checks and at the zeros stored for elements "
                    "past the edge of an input.", fc->rows / fc->block_rows * fc->block_rows,
                    fc->cols / fc->block_cols * fc->block_cols, fc->block_rows, fc->block_cols);
    else if (w.interior == 0)
        check_field(c->hint, sizeof c->hint, "At this size every block is a partial one "
                    "(the output is smaller than one block's piece in some dimension), and %ld "
                    "of %ld elements are wrong: look at the bounds checks and the zeros stored "
                    "past the edge of an input, then at which elements each thread copies%s%s.",
                    w.wrong, n, copy[0] ? ": " : "", copy);
    else if (w.wrong * 10 >= n * 9)
        check_field(c->hint, sizeof c->hint, "%ld of %ld elements are wrong, whole blocks "
                    "included, not just edges: the shared tiles hold the wrong elements, or "
                    "are read back wrongly. Work out, for one thread, which element it copies "
                    "and which it reads%s%s.", w.wrong, n, copy[0] ? ": " : "", copy);
    else
        check_field(c->hint, sizeof c->hint, "%ld of %ld elements are wrong, %ld of them inside "
                    "whole blocks: an index is off for some threads only, or a __syncthreads() "
                    "is missing (then the wrong elements move from run to run).", w.wrong, n,
                    w.interior_wrong);
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
        wrong_hint(fc, got, &lim, c);
        return RUN_WRONG;
    }
    return RUN_RIGHT;
}

const char *float_factor_words(const problem *p, const char *noun, char *buf, size_t size)
{
    if (p->k->mask_symbol)
        snprintf(buf, size, "%s, the __constant__ array of the %s that the grader fills "
                 "before each run", p->k->mask_symbol, noun);
    else
        snprintf(buf, size, "the %s your launcher is given (an argument)", noun);
    return buf;
}

run_outcome float_run_case(const problem *p, const float_case *fc, check_result *c)
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
    if (module_scrub(p->mod, GPU_SCRUB_INT) != cudaSuccess) {
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

/* The inputs of run `run`: the same values every time they are filled for that run. */
static cudaError_t fill_inputs(worker_env *env, const timed_work *w, int run)
{
    cudaError_t err = cudaSuccess;
    if (w->refill)
        return w->refill(env, w->ref_arg, run);
    for (int i = 0; i < w->n_inputs && err == cudaSuccess; i++)
        err = module_fill(&env->mod, w->inputs[i], w->input_n[i],
                          env->opt->seed * 1000003ull + (unsigned long long)(run * 8 + i));
    return err;
}

/* Fresh inputs and a poisoned output: no answer to this run is anywhere on the GPU. */
static cudaError_t prepare_run(worker_env *env, const timed_work *w, int run)
{
    cudaError_t err = fill_inputs(env, w, run);
    if (err == cudaSuccess && w->out)
        err = dev_memset(w->out, GPU_POISON_BYTE, w->out_n * sizeof(float));
    return err == cudaSuccess ? dev_sync() : err;
}


/*
 * The output of run `run` against its reference; 0 when right. The reference
 * is made only now, from the run's inputs filled again (the kernel may have
 * written over them), so the kernel never had an answer it could copy.
 */
static int check_run(worker_env *env, const timed_work *w, int run, char *why, size_t n)
{
    device_diff d;
    cudaError_t err = fill_inputs(env, w, run);
    if (err == cudaSuccess && w->make_ref)
        err = w->make_ref(env, w->ref_arg);
    if (err == cudaSuccess)
        err = dev_sync();
    if (err == cudaSuccess)
        err = module_diff(&env->mod, w->out, w->ref, w->out_n, &d);
    if (err != cudaSuccess) {
        snprintf(why, n, "checking timed run %d: %s", run + 1, dev_error_text(err));
        return -1;
    }
    if (d.poisoned > 0 || d.not_finite > 0 || !(d.rel_error <= TOL_OVERALL * 10)) {
        snprintf(why, n, "timed run %d gave a wrong result (relative error %.1e, %.0f elements "
                 "unwritten, %.0f not finite): a fast wrong answer earns nothing", run + 1,
                 d.rel_error, d.poisoned, d.not_finite);
        return -1;
    }
    return 0;
}

int time_fresh(worker_env *env, const timed_work *w, int reps, double *median_ms, char *why,
               size_t n)
{
    enum { WARMUP = 2 };
    double t[TIMING_MAX_REPS];
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t err = cudaEventCreate(&start);
    int rc = 0;
    if (err == cudaSuccess)
        err = cudaEventCreate(&stop);
    if (reps > TIMING_MAX_REPS)
        reps = TIMING_MAX_REPS;
    for (int run = 0; run < WARMUP + reps && err == cudaSuccess && rc == 0; run++) {
        double ms = 0;
        err = prepare_run(env, w, run);
        if (err == cudaSuccess)
            err = gpu_timed_launch(w->launch, w->arg, start, stop, &ms);
        if (err == cudaSuccess && w->out)
            rc = check_run(env, w, run, why, n);
        if (run >= WARMUP)
            t[run - WARMUP] = ms;
    }
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (err != cudaSuccess) {
        snprintf(why, n, "%s", dev_error_text(err));
        return -1;
    }
    if (rc != 0)
        return -1;
    timing_stats st;
    timing_summarise(t, reps, &st);
    *median_ms = st.median_ms;
    return 0;
}

void float_trace_lines(worker_env *env, check_result *c)
{
    char why[256];
    const trace_summary *s = worker_trace(env, why, sizeof why);
    if (!s)
        return;
    compare_trace_lines(c, s, -1, &env->gpu.banks);
}

void float_judge_conflicts(problem *p, check_id id, const measurement *m,
                           const trace_summary *s, check_result *c)
{
    (void)s;
    check_smem_near_free(c, m, p->kind->hint[id]);
    float_trace_lines(p->env, c);
}

void time_against(problem *p, const timed_work *kernel, const timed_work *ref,
                  const speed_words *w, check_result *c)
{
    char why[256] = "", at[96] = "", at_prefix[96] = "";
    double t_kernel = 0, t_ref = 0;
    if (w->at)
        snprintf(at, sizeof at, " at %s", w->at), snprintf(at_prefix, sizeof at_prefix,
                                                             "at %s: ", w->at);
    if (time_fresh(p->env, kernel, 10, &t_kernel, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "%s%s", at_prefix, why);
        p->lost = dev_context_lost();
    } else if (time_fresh(p->env, ref, 10, &t_ref, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "timing %s failed%s: %s", w->ref_what, at, why);
        p->lost = dev_context_lost();
    } else {
        check_speed(c, t_kernel, t_ref, p->k->speed_fraction, w->unit, w->work, w->ref_name);
        if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "%s", w->hint);
    }
}
