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
#include "../compare.h"
#include "../reference/reference.h"
#include "../reference/sizes.h"
#include "../reference/tolerance.h"
#include "float_run.h"
#include "traffic.h"

#include <stdio.h>
#include <stdlib.h>

typedef void (*conv1d_basic_fn)(const float *in, const float *mask, float *out, int n, int mw);
typedef void (*conv1d_fn)(const float *in, float *out, int n, int mw);
typedef void (*conv2d_fn)(const float *in, float *out, int w, int h, int mw);

typedef struct conv_launch {
    const lab_kernel *k;
    void *fn;
    const float *in, *mask; /* mask: only when the kernel takes it as an argument */
    float *out;
    int width, height, mw;  /* 1-D: height 1 */
} conv_launch;

static int is_2d(const conv_launch *a)
{
    return a->k->step == 3;
}

static void launch_conv(void *p)
{
    conv_launch *a = p;
    if (!a->k->mask_symbol)
        (*(conv1d_basic_fn *)&a->fn)(a->in, a->mask, a->out, a->width, a->mw);
    else if (!is_2d(a))
        (*(conv1d_fn *)&a->fn)(a->in, a->out, a->width, a->mw);
    else
        (*(conv2d_fn *)&a->fn)(a->in, a->out, a->width, a->height, a->mw);
}

static void release(conv_launch *a)
{
    cudaFree((void *)a->in);
    cudaFree((void *)a->mask);
    cudaFree(a->out);
    a->in = a->mask = NULL;
    a->out = NULL;
}

/* Put the mask where this kernel reads it: an argument, or its constant memory. */
static int place_mask(worker_env *env, conv_launch *a, const float *mask, int taps, char *why,
                      size_t n)
{
    if (!a->k->mask_symbol) {
        a->mask = dev_upload(mask, (size_t)taps, why, n);
        return a->mask ? 0 : -1;
    }
    char name[96];
    snprintf(name, sizeof name, "smemlab_symbol_%s", a->k->mask_symbol);
    const void *const *symbol = lab_lib_symbol(&env->lib, name);
    if (!symbol) {
        snprintf(why, n, "%s is not exported: keep SMEMLAB_SYMBOL(%s) from the skeleton", name,
                 a->k->mask_symbol);
        return -1;
    }
    cudaError_t err = cudaMemcpyToSymbol(*symbol, mask, (size_t)taps * sizeof(float), 0,
                                         cudaMemcpyHostToDevice);
    if (err != cudaSuccess)
        snprintf(why, n, "filling the constant mask: %s", cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : -1;
}

/* Random input and mask for the current size, on the device; host copies returned. */
static int prepare(worker_env *env, conv_launch *a, unsigned long long seed, float **in,
                   float **mask, char *why, size_t n)
{
    int taps = is_2d(a) ? a->mw * a->mw : a->mw;
    *in = host_random((size_t)a->width * a->height, seed);
    *mask = host_random((size_t)taps, seed + 7);
    a->in = dev_upload(*in, (size_t)a->width * a->height, why, n);
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

    worker_progress(env);
    if (prepare(env, a, seed, &in, &mask, why, sizeof why) != 0) {
        out = fail_cuda(c, label, why);
    } else {
        if (is_2d(a))
            ref_conv2d(in, mask, ref, a->width, a->height, a->mw);
        else
            ref_conv1d(in, mask, ref, a->width, a->mw);
        float_case fc = {label, launch_conv, a, &a->out, ref, a->height, a->width,
                         tol_floor_conv(in, (size_t)a->width * a->height, mask, taps)};
        out = float_run_case(env, &fc, c);
    }
    if (out != RUN_LOST)
        release(a);
    free(in), free(mask), free(ref);
    return out;
}

/* Every size of the lab's list with every mask width the kernel takes. */
static run_outcome correct_conv(worker_env *env, const lab_kernel *k, void *state,
                                check_result *c)
{
    conv_launch *a = state;
    int limit = k->max_mask_param ? lab_param_value(env->lab, k->max_mask_param) : 1 << 20;
    int n_sizes = is_2d(a) ? sizes_conv2d_count : sizes_conv1d_n_count;
    int n_masks = is_2d(a) ? sizes_conv2d_mask_count : sizes_conv1d_mask_count;
    int runs = 0;

    for (int i = 0; i < n_sizes; i++)
        for (int j = 0; j < n_masks; j++) {
            char label[128];
            a->mw = is_2d(a) ? sizes_conv2d_mask[j] : sizes_conv1d_mask[j];
            if (a->mw > limit)
                continue;
            a->width = is_2d(a) ? sizes_conv2d[i].width : sizes_conv1d_n[i];
            a->height = is_2d(a) ? sizes_conv2d[i].height : 1;
            if (is_2d(a))
                snprintf(label, sizeof label, "%dx%d image, %dx%d mask (%s)", a->width,
                         a->height, a->mw, a->mw, sizes_conv2d[i].why);
            else
                snprintf(label, sizeof label, "n=%d, mask width %d", a->width, a->mw);
            run_outcome out = run_size(env, a, env->opt->seed + (unsigned)runs++, label, c);
            if (out != RUN_RIGHT)
                return out;
        }
    if (runs == 0) { /* cannot happen with the kit's tables: never a silent pass */
        check_set(c, CHECK_FAIL, "no size was run: the lab table allows no mask width");
        return RUN_FAILED;
    }
    check_set(c, CHECK_PASS, "all %d sizes and mask widths right (seed %llu)", runs,
              env->opt->seed);
    return RUN_RIGHT;
}

/* The large speed-and-traffic input on the device, and an output buffer. */
static int big_input(worker_env *env, conv_launch *a, float **in, float **mask, char *why,
                     size_t n)
{
    a->width = is_2d(a) ? sizes_conv2d_speed.width : sizes_conv1d_speed_n;
    a->height = is_2d(a) ? sizes_conv2d_speed.height : 1;
    a->mw = is_2d(a) ? sizes_conv2d_speed_mask : sizes_conv1d_speed_mask;
    if (prepare(env, a, env->opt->seed, in, mask, why, n) != 0)
        return -1;
    if (cudaMalloc((void **)&a->out, (size_t)a->width * a->height * sizeof(float)) != cudaSuccess) {
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

static void counters_conv(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                          int *lost)
{
    conv_launch *a = state;
    measurement m;
    char why[256], model[192];
    float *in = NULL, *mask = NULL;
    measure_status st = env->meter_status;
    (void)k;

    snprintf(why, sizeof why, "%s", env->meter_why);
    if (st == MEASURE_OK && big_input(env, a, &in, &mask, why, sizeof why) != 0)
        st = MEASURE_ERROR;
    if (st == MEASURE_OK) {
        worker_progress(env);
        st = env->meter->measure(env->meter, launch_conv, a, &m, why, sizeof why);
    }
    *lost = st == MEASURE_ERROR && gpu_context_lost();
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
    check_smem_near_free(&c[FLOAT_CONFLICTS], &m,
                         "Neighbouring threads should read neighbouring tile elements "
                         "(tile[ty + i][tx + j] with tx varying fastest).");
}

static void launch_copy(void *p)
{
    conv_launch *a = p;
    cudaMemcpyAsync(a->out, a->in, (size_t)a->width * a->height * sizeof(float),
                    cudaMemcpyDeviceToDevice, 0);
}

/*
 * The timed result is checked too, on samples (the full 2-D reference of the
 * speed image would take seconds): a fast wrong answer earns nothing.
 */
#define SPEED_SAMPLES 4096
static int speed_result_right(const conv_launch *a, const float *in, const float *mask,
                              char *why, size_t n)
{
    size_t total = (size_t)a->width * a->height;
    float *got = malloc(SPEED_SAMPLES * sizeof *got), *want = malloc(SPEED_SAMPLES * sizeof *want);
    float *out = malloc(total * sizeof *out);
    int taps = is_2d(a) ? a->mw * a->mw : a->mw, ok = 0;

    /* The four corners, then samples spread over the whole output. */
    const size_t corners[4] = {0, (size_t)a->width - 1, total - (size_t)a->width, total - 1};

    if (cudaMemcpy(out, a->out, total * sizeof *out, cudaMemcpyDeviceToHost) == cudaSuccess) {
        for (int s = 0; s < SPEED_SAMPLES; s++) {
            size_t i = s < 4 ? corners[s] : (size_t)(((unsigned long long)s * 2654435761u) % total);
            int x = (int)(i % (size_t)a->width), y = (int)(i / (size_t)a->width);
            got[s] = out[i];
            want[s] = (float)(is_2d(a) ? ref_conv2d_at(in, mask, a->width, a->height, a->mw, x, y)
                                       : ref_conv1d_at(in, mask, a->width, a->mw, x));
        }
        tol_report rep;
        tol_limits lim = tol_default_limits();
        ok = tol_compare(got, want, 1, SPEED_SAMPLES, tol_floor_conv(in, total, mask, taps), lim,
                         &rep);
        if (!ok)
            tol_describe(&rep, &lim, why, n);
    } else {
        snprintf(why, n, "copying the result back failed");
    }
    free(got), free(want), free(out);
    return ok;
}

static void speed_conv(worker_env *env, const lab_kernel *k, void *state, check_result *c,
                       int *lost)
{
    conv_launch *a = state;
    char why[256];
    float *in = NULL, *mask = NULL;
    double t_kernel = 0, t_copy = 0;

    if (big_input(env, a, &in, &mask, why, sizeof why) != 0 ||
        time_launch(env, launch_conv, a, &t_kernel, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "timing failed: %s", why);
        *lost = gpu_context_lost();
    } else if (!speed_result_right(a, in, mask, why, sizeof why)) {
        check_set(c, CHECK_FAIL, "the timed result is wrong (%s): a fast wrong answer earns "
                  "nothing", why);
    } else if (time_launch(env, launch_copy, a, &t_copy, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "timing the copy failed: %s", why);
    } else {
        double bytes = 2.0 * a->width * a->height * sizeof(float); /* read in, write out */
        check_speed(c, t_kernel, t_copy, k->speed_fraction, "GB/s", bytes / 1e6,
                    "a device-to-device copy");
        if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "A tiled convolution should stream close to "
                        "copy speed: coalesced tile loads, the mask from constant memory, and "
                        "enough outputs per thread to hide the halo.");
    }
    if (!*lost)
        release(a);
    free(in), free(mask);
}

static void bind_conv(void *state, void *launcher)
{
    ((conv_launch *)state)->fn = launcher;
}

int conv_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static const float_ops ops = {bind_conv, correct_conv, counters_conv, speed_conv};
    conv_launch state = {.k = k};
    return float_grade_kernel(env, k, &ops, &state);
}
