/*
 * conv.c - grading one kernel of lab 6 (float32 convolution, ghost cells 0):
 * correctness on every length/image and mask width, global-load
 * instructions against the tiled model, shared conflicts, and speed
 * against a device-to-device copy of the same bytes.
 *
 * Step 1 takes the mask as an argument in global memory; steps 2 and 3 read
 * it from __constant__ memory, which the grader fills through the symbol the
 * lab table names (exported with SMEMLAB_SYMBOL).
 */
#include "../compare/compare.h"
#include "../measure/emulator/lab_decls.h"
#include "../run/device.h"
#include "../reference/reference.h"
#include "../labs/sizes.h"
#include "../reference/tolerance.h"
#include "float_run.h"
#include "traffic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The student's launches of call `call` (calls.h) on the grader's buffers. */
typedef struct conv_launch {
    const lab_kernel *k;
    worker_env *env;
    int call;
    const float *in, *mask; /* mask: an argument (step 1), else a copy for the reference */
    float *out;
    int width, height, mw;  /* 1-D: height 1 */
} conv_launch;

static int is_2d(const conv_launch *a)
{
    return a->k->step == 3;
}

/* Buffers as calls.c numbers them: 0 in, 1 out, 2 the mask argument of step 1. */
static void launch_conv(void *p)
{
    conv_launch *a = p;
    replay r = {&a->env->mod, &a->env->plan->calls[a->call],
                {(void *)a->in, a->out, (void *)a->mask}};
    replay_launch(&r);
}

static void release(conv_launch *a)
{
    dev_free((void *)a->in);
    dev_free((void *)a->mask);
    dev_free(a->out);
    a->in = a->mask = NULL;
    a->out = NULL;
}

/*
 * Put the mask where this kernel reads it: an argument, or the __constant__
 * array the lab table names, found in the student's device code by name.
 * A device copy stays in a->mask either way, for the reference.
 */
static int place_mask(worker_env *env, conv_launch *a, const float *mask, int taps, char *why,
                      size_t n)
{
    a->mask = dev_upload(mask, (size_t)taps, why, n);
    if (!a->mask || !a->k->mask_symbol)
        return a->mask ? 0 : -1;
    size_t bytes = 0;
    cudaError_t err = module_set_global(&env->mod, a->k->mask_symbol, mask,
                                        (size_t)taps * sizeof(float), &bytes);
    if (err == cudaErrorSymbolNotFound || bytes < (size_t)taps * sizeof(float)) {
        snprintf(why, n, "__constant__ float %s[] is not in your GPU code, or holds fewer than "
                 "%d values: keep its declaration from the skeleton", a->k->mask_symbol, taps);
        return -1;
    }
    if (err != cudaSuccess)
        snprintf(why, n, "filling the constant mask: %s", dev_error_text(err));
    return err == cudaSuccess ? 0 : -1;
}

/* Random input and mask for the current size, on the device, and the mask's host
   copy. *in gets the input's; in NULL asks for none: the input is then filled on
   the device (the speed input, 256 MB, which every timed run fills afresh). */
static int prepare(worker_env *env, conv_launch *a, unsigned long long seed, float **in,
                   float **mask, char *why, size_t n)
{
    int taps = is_2d(a) ? a->mw * a->mw : a->mw;
    size_t count = (size_t)a->width * a->height;
    *mask = host_random((size_t)taps, seed + 7);
    if (in != NULL) {
        *in = host_random(count, seed);
        a->in = dev_upload(*in, count, why, n);
    } else {
        cudaError_t err = dev_malloc((void **)&a->in, count * sizeof(float));
        if (err == cudaSuccess)
            err = module_fill(&env->mod, (float *)a->in, count, seed);
        if (err != cudaSuccess) {
            snprintf(why, n, "filling the input: %s", dev_error_text(err));
            return -1;
        }
    }
    return a->in && place_mask(env, a, *mask, taps, why, n) == 0 ? 0 : -1;
}

/* One size and mask width: inputs, reference, run, judge. */
static run_outcome run_size(worker_env *env, conv_launch *a, unsigned long long seed,
                            const char *label, check_result *c)
{
    int taps = is_2d(a) ? a->mw * a->mw : a->mw;
    float *in = NULL, *mask = NULL, *ref = malloc((size_t)a->width * a->height * sizeof *ref);
    char why[256];
    run_outcome out;

    if (prepare(env, a, seed, &in, &mask, why, sizeof why) != 0) {
        out = fail_cuda(c, label, why);
    } else {
        if (is_2d(a))
            ref_conv2d(in, mask, ref, a->width, a->height, a->mw);
        else
            ref_conv1d(in, mask, ref, a->width, a->mw);
        const call_plan *call = &env->plan->calls[a->call];
        float_case fc = {label, launch_conv, a, &a->out, ref, a->height, a->width,
                         tol_floor_conv(in, (size_t)a->width * a->height, mask, taps), 0, 0,
                         "the tile starts mask width / 2 elements before the block's first "
                         "output (the halo), and an input index outside the signal or image "
                         "is a ghost cell worth 0"};
        if (call->n_launches > 0) /* one output a thread: the block's threads are its piece */
            fc.block_rows = is_2d(a) ? (int)call->launches[0].block[1] : 1,
            fc.block_cols = (int)call->launches[0].block[0];
        out = float_run_case(env, &fc, c);
    }
    if (out != RUN_LOST)
        release(a);
    free(in), free(mask), free(ref);
    return out;
}

/* Every size of the lab's list (for this device) with every mask width the kernel takes. */
static run_outcome correct_conv(worker_env *env, const lab_kernel *k, void *state,
                                check_result *c)
{
    conv_launch *a = state;
    const kernel_plan *plan = env->plan;
    int runs = 0;
    (void)k;

    for (int i = 0; i < plan->n_calls; i++) {
        const call_spec *spec = &plan->specs[i];
        if (!(spec->role & CALL_CORRECT) || !call_runs_on(spec, device_is_emulator()))
            continue;
        runs++;
        a->call = i;
        a->width = spec->width, a->height = spec->height, a->mw = spec->depth;
        run_outcome out = run_size(env, a, env->opt->seed + (unsigned)i, spec->label, c);
        if (out != RUN_RIGHT)
            return out;
    }
    if (runs <= 0) { /* cannot happen with the kit's tables: never a silent pass */
        check_set(c, CHECK_FAIL, "no size was run: the lab table allows no mask width");
        return RUN_FAILED;
    }
    check_set(c, CHECK_PASS, "all %d sizes and mask widths right (seed %llu)", runs,
              env->opt->seed);
    return RUN_RIGHT;
}

/* The input of the call with `role` on this device (the GPU's large one, or the
   emulator's traffic input), and an output buffer; in as for prepare. */
static int big_input(worker_env *env, conv_launch *a, int role, float **in, float **mask,
                     char *why, size_t n)
{
    int call = calls_find(env->plan->specs, env->plan->n_calls, role, device_is_emulator());
    if (call < 0) {
        snprintf(why, n, "internal: no input for this device");
        return -1;
    }
    const call_spec *spec = &env->plan->specs[call];
    size_t count = (size_t)spec->width * spec->height;
    a->call = call;
    a->width = spec->width, a->height = spec->height, a->mw = spec->depth;
    if (prepare(env, a, env->opt->seed, in, mask, why, n) != 0)
        return -1;
    if (dev_malloc((void **)&a->out, count * sizeof(float)) != cudaSuccess) {
        snprintf(why, n, "no device memory for the output");
        return -1;
    }
    return 0;
}

/*
 * The tiled model: every input element is loaded once per tile, halo
 * included, one element per lane: (1 + (mw-1)/T)^d elements per output.
 * Twice that is allowed (loading schemes differ); a kernel that reads its
 * inputs from global memory for every tap loads about mw^d per output.
 */
static double tiled_load_limit(worker_env *env, const conv_launch *a, char *model, size_t n)
{
    int tile = lab_param_value(env->lab, a->k->tile_param);
    if (tile < 1)
        tile = 1;
    double per_output = 1.0 + (double)(a->mw - 1) / tile;
    if (is_2d(a))
        per_output *= per_output;
    double outputs = (double)a->width * a->height;
    double ideal = outputs * per_output / env->gpu.banks.warp_size;
    snprintf(model, n, "2 x tiled model %.0f: (1 + (%d-1)/%d)^%d loads per output, %.0f outputs",
             ideal, a->mw, tile, is_2d(a) ? 2 : 1, outputs);
    return 2.0 * ideal;
}

static int output_right(worker_env *env, conv_launch *a, const float *mask, char *why,
                        size_t n);

/*
 * The mask in constant memory (steps 2 and 3): the lab's PTX must declare the
 * mask symbol .const. A __device__ mask is filled and read just the same, and
 * the output is right, but every tap reads global memory: the lesson skipped.
 */
static void check_mask_constant(worker_env *env, const lab_kernel *k, check_result *c)
{
    const char *space = k->mask_symbol && env->decls ? lab_decls_space(env->decls,
                                                                       k->mask_symbol) : NULL;
    if (!space || strcmp(space, "const") == 0)
        return;
    check_set(c, CHECK_FAIL, "the mask %s is not in constant memory: it is declared in %s "
              "memory, so every tap reads it from there", k->mask_symbol,
              strcmp(space, "global") == 0 ? "global (__device__)" : space);
    check_field(c->hint, sizeof c->hint, "Declare the mask `__constant__ float %s[...]` as the "
                "skeleton does: every thread of a warp reads the same tap at once, which the "
                "constant cache serves in one broadcast, where global memory makes it a load "
                "of its own.", k->mask_symbol);
}

static void counters_conv(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                          int *lost)
{
    conv_launch *a = state;
    measurement m;
    char why[256], model[192];
    float *in = NULL, *mask = NULL;
    measure_status st = env->meter_status;
    (void)k;

    snprintf(why, sizeof why, "%.250s", env->meter_why);
    if (st == MEASURE_OK && big_input(env, a, CALL_TRAFFIC, &in, &mask, why, sizeof why) != 0)
        st = MEASURE_ERROR;
    if (st == MEASURE_OK) {
        st = worker_measure(env, launch_conv, a, &m, why, sizeof why);
        /* The kernel may have written over its input and mask: check against them as given. */
        size_t count = (size_t)a->width * a->height;
        int taps = is_2d(a) ? a->mw * a->mw : a->mw;
        if (st == MEASURE_OK &&
            (dev_copy((void *)a->in, in, count * sizeof(float), cudaMemcpyHostToDevice) !=
                 cudaSuccess ||
             dev_copy((void *)a->mask, mask, (size_t)taps * sizeof(float),
                        cudaMemcpyHostToDevice) != cudaSuccess ||
             !output_right(env, a, mask, why, sizeof why)))
            st = MEASURE_WRONG_RESULT;
    }
    *lost = st == MEASURE_ERROR && dev_context_lost();
    if (c[FLOAT_RACE].max_points > 0)
        worker_judge_races(env, &c[FLOAT_RACE], st, why);
    st = float_race_rule(env, st, c);
    if (!*lost)
        release(a);
    free(in), free(mask);
    if (st != MEASURE_OK) {
        compare_not_measured(&c[FLOAT_LOADS], st, why);
        compare_not_measured(&c[FLOAT_CONFLICTS], st, why);
        return;
    }
    double limit = tiled_load_limit(env, a, model, sizeof model);
    check_global_loads(&c[FLOAT_LOADS], &m, limit, model,
                       "Each input element should be read from global memory about once per "
                       "tile: load the tile and its halo (mask_width - 1 extra elements) into "
                       "shared memory, __syncthreads(), then read every tap from the tile.");
    check_mask_constant(env, a->k, &c[FLOAT_LOADS]);
    char trace_why[256];
    check_global_repeats(&c[FLOAT_LOADS], worker_trace(env, trace_why, sizeof trace_why),
                         "A tiled kernel reads each input element from global memory once per "
                         "block: the tile and its halo go into shared memory together, and "
                         "every tap, the halo's too, reads shared memory. An element read from "
                         "global memory again (at each tap that needs it) is the halo skipped.");
    check_smem_near_free(&c[FLOAT_CONFLICTS], &m,
                         "Neighbouring threads should read neighbouring tile elements "
                         "(tile[ty + i][tx + j] with tx varying fastest).");
    float_trace_lines(env, &c[FLOAT_CONFLICTS]);
}

static void launch_copy(void *p)
{
    conv_launch *a = p;
    cudaMemcpyAsync(a->out, a->in, (size_t)a->width * a->height * sizeof(float),
                    cudaMemcpyDeviceToDevice, 0);
}

/* The reference convolution of a's current input into a->ref (for timed runs). */
typedef struct conv_ref {
    conv_launch *a;
    float *ref;
    const float *host_mask; /* the mask as given: a kernel may write over the device copy */
} conv_ref;

static cudaError_t make_ref(worker_env *env, void *p)
{
    conv_ref *r = p;
    int taps = is_2d(r->a) ? r->a->mw * r->a->mw : r->a->mw;
    cudaError_t err = dev_copy((void *)r->a->mask, r->host_mask, (size_t)taps * sizeof(float),
                                 cudaMemcpyHostToDevice);
    if (err != cudaSuccess)
        return err;
    return module_conv(&env->mod, r->a->in, r->a->mask, r->ref, r->a->width, r->a->height,
                       r->a->mw);
}

/* The output now in a->out against the reference of a->in: 1 when right. */
static int output_right(worker_env *env, conv_launch *a, const float *mask, char *why,
                        size_t n)
{
    size_t count = (size_t)a->width * a->height;
    conv_ref r = {a, NULL, mask};
    device_diff d = {0};
    int right = dev_malloc((void **)&r.ref, count * sizeof(float)) == cudaSuccess &&
                make_ref(env, &r) == cudaSuccess &&
                module_diff(&env->mod, a->out, r.ref, count, &d) == cudaSuccess &&
                d.poisoned == 0 && d.not_finite == 0 && d.rel_error <= TOL_OVERALL * 10;
    if (!right)
        snprintf(why, n, "the measured run gave a wrong result (relative error "
                 "%.1e, %.0f outputs unwritten)", d.rel_error, d.poisoned);
    dev_free(r.ref);
    return right;
}

static void speed_conv(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                       int *lost)
{
    conv_launch *a = state;
    char why[256];
    float *mask = NULL;
    double t_kernel = 0, t_copy = 0;
    conv_ref r = {a, NULL, NULL};

    if (big_input(env, a, CALL_SPEED, NULL, &mask, why, sizeof why) != 0 ||
        dev_malloc((void **)&r.ref, (size_t)a->width * a->height * sizeof(float)) != cudaSuccess) {
        check_set(c, CHECK_FAIL, "could not prepare the timed input: %s", why);
        *lost = dev_context_lost();
    } else {
        size_t count = (size_t)a->width * a->height;
        r.host_mask = mask;
        /* Both timed alike: a fresh input before every run; the kernel's output checked each time. */
        timed_work kernel = {launch_conv, a, {(float *)a->in}, {count}, 1, a->out, count, r.ref,
                             make_ref, &r, NULL};
        timed_work copy = {launch_copy, a, {(float *)a->in}, {count}, 1, NULL, 0, NULL, NULL,
                           NULL, NULL};
        if (time_fresh(env, &kernel, 10, &t_kernel, why, sizeof why) != 0) {
            check_set(c, CHECK_FAIL, "%s", why);
            *lost = dev_context_lost();
        } else if (time_fresh(env, &copy, 10, &t_copy, why, sizeof why) != 0) {
            check_set(c, CHECK_FAIL, "timing the copy failed: %s", why);
        } else {
            double bytes = 2.0 * count * sizeof(float); /* read in, write out */
            check_speed(c, t_kernel, t_copy, k->speed_fraction, "GB/s", bytes / 1e6,
                        "a device-to-device copy");
            if (c->status == CHECK_FAIL)
                check_field(c->hint, sizeof c->hint, "A tiled convolution should stream close "
                            "to copy speed: coalesced tile loads, the mask from constant "
                            "memory, and enough outputs per thread to hide the halo.");
        }
    }
    dev_free(r.ref);
    if (!*lost)
        release(a);
    free(mask);
}

static void bind_conv(void *state, worker_env *env)
{
    ((conv_launch *)state)->env = env;
}

int conv_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static const float_ops ops = {bind_conv, correct_conv, counters_conv, speed_conv};
    conv_launch state = {.k = k};
    return float_grade_kernel(env, k, &ops, &state);
}
