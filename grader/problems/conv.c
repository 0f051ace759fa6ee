/*
 * conv.c - grading one kernel of lab 6 (float32 convolution, ghost cells 0):
 * correctness on every length/image and mask width, global-load
 * instructions against the tiled model, shared conflicts, and speed
 * against a device-to-device copy of the same bytes.
 *
 * Step 1 (conv1dBasic) takes the mask from global memory; steps 2 and 3 read
 * it from __constant__ memory, which the grader fills (SMEMLAB_SYMBOL).
 */
#include "../compare.h"
#include "../reference/reference.h"
#include "../reference/sizes.h"
#include "../reference/tolerance.h"
#include "float_run.h"
#include "traffic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*conv1d_basic_fn)(const float *in, const float *mask, float *out, int n, int mw);
typedef void (*conv1d_fn)(const float *in, float *out, int n, int mw);
typedef void (*conv2d_fn)(const float *in, float *out, int w, int h, int mw);

typedef struct conv_launch {
    int step;
    void *fn;
    const float *in, *mask; /* mask: step 1 only */
    float *out;
    int width, height, mw;  /* 1-D: height 1 */
} conv_launch;

static void launch_conv(void *p)
{
    conv_launch *a = p;
    if (a->step == 1)
        (*(conv1d_basic_fn *)&a->fn)(a->in, a->mask, a->out, a->width, a->mw);
    else if (a->step == 2)
        (*(conv1d_fn *)&a->fn)(a->in, a->out, a->width, a->mw);
    else
        (*(conv2d_fn *)&a->fn)(a->in, a->out, a->width, a->height, a->mw);
}

/* Where steps 2 and 3 keep their mask, and how wide it may be. */
static const char *mask_symbol(int step)
{
    return step == 3 ? "smemlab_symbol_c_mask2d" : "smemlab_symbol_c_mask1d";
}

static int max_mask(worker_env *env, int step)
{
    int v = 0;
    if (step == 1)
        return 1 << 20;
    lab_lib_param(&env->lib, step == 3 ? "smemlab_param_MAX_MASK2D" : "smemlab_param_MAX_MASK1D",
                  &v);
    return v;
}

/* Put the mask where the kernel of this step reads it. */
static int place_mask(worker_env *env, conv_launch *a, const float *mask, int taps, char *why,
                      size_t n)
{
    if (a->step == 1) {
        a->mask = dev_upload(mask, (size_t)taps, why, n);
        return a->mask ? 0 : -1;
    }
    const void *const *symbol = lab_lib_symbol(&env->lib, mask_symbol(a->step));
    if (!symbol) {
        snprintf(why, n, "%s is not exported: keep SMEMLAB_SYMBOL(...) from the skeleton",
                 mask_symbol(a->step));
        return -1;
    }
    cudaError_t err = cudaMemcpyToSymbol(*symbol, mask, (size_t)taps * sizeof(float), 0,
                                         cudaMemcpyHostToDevice);
    if (err != cudaSuccess)
        snprintf(why, n, "filling the constant mask: %s", cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : -1;
}

/* One size and mask width: inputs, reference, run, judge. */
static int run_size(worker_env *env, conv_launch *a, int w, int h, int mw, unsigned long long seed,
                    const char *why_size, check_result *c, int *broken)
{
    int taps = a->step == 3 ? mw * mw : mw;
    float *in = host_random((size_t)w * h, seed), *mask = host_random((size_t)taps, seed + 7);
    float *ref = malloc((size_t)w * h * sizeof *ref);
    char why[256], label[128];
    int ok = 0;

    if (a->step == 3)
        ref_conv2d(in, mask, ref, w, h, mw);
    else
        ref_conv1d(in, mask, ref, w, mw);
    if (a->step == 3)
        snprintf(label, sizeof label, "%dx%d image, %dx%d mask (%s)", w, h, mw, mw, why_size);
    else
        snprintf(label, sizeof label, "n=%d, mask width %d", w, mw);
    a->width = w, a->height = h, a->mw = mw;
    a->in = dev_upload(in, (size_t)w * h, why, sizeof why);
    if (!a->in || place_mask(env, a, mask, taps, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "at %s: %s", label, why);
    } else {
        float_case fc = {label, launch_conv, a, &a->out, ref, h, w,
                         tol_floor_conv(in, (size_t)w * h, mask, taps)};
        ok = float_run_case(env, &fc, c, broken);
    }
    cudaFree((void *)a->in);
    if (a->step == 1)
        cudaFree((void *)a->mask);
    a->in = a->mask = NULL;
    free(in), free(mask), free(ref);
    return ok;
}

static int grade_correct(worker_env *env, conv_launch *a, check_result *c, int *broken)
{
    int limit = max_mask(env, a->step), runs = 0;
    unsigned long long seed = env->opt->seed;
    if (a->step == 3) {
        for (int i = 0; i < sizes_conv2d_count; i++)
            for (int j = 0; j < sizes_conv2d_mask_count && sizes_conv2d_mask[j] <= limit; j++, runs++)
                if (!run_size(env, a, sizes_conv2d[i].width, sizes_conv2d[i].height,
                              sizes_conv2d_mask[j], seed + runs, sizes_conv2d[i].why, c, broken))
                    return 0;
    } else {
        for (int i = 0; i < sizes_conv1d_n_count; i++)
            for (int j = 0; j < sizes_conv1d_mask_count && sizes_conv1d_mask[j] <= limit; j++, runs++)
                if (!run_size(env, a, sizes_conv1d_n[i], 1, sizes_conv1d_mask[j], seed + runs, "",
                              c, broken))
                    return 0;
    }
    check_set(c, CHECK_PASS, "all %d sizes and mask widths right (seed %llu)", runs, seed);
    return 1;
}

/* Large input on the device, mask in place; 0 on success. */
static int big_input(worker_env *env, conv_launch *a, char *why, size_t n)
{
    int w = a->step == 3 ? sizes_conv2d_speed.width : sizes_conv1d_speed_n;
    int h = a->step == 3 ? sizes_conv2d_speed.height : 1;
    int mw = a->step == 3 ? sizes_conv2d_speed_mask : sizes_conv1d_speed_mask;
    int taps = a->step == 3 ? mw * mw : mw;
    float *in = host_random((size_t)w * h, env->opt->seed), *mask = host_random((size_t)taps, 1);
    a->width = w, a->height = h, a->mw = mw;
    a->in = dev_upload(in, (size_t)w * h, why, n);
    int rc = a->in && place_mask(env, a, mask, taps, why, n) == 0 &&
                     cudaMalloc((void **)&a->out, (size_t)w * h * sizeof(float)) == cudaSuccess
                 ? 0 : -1;
    free(in), free(mask);
    return rc;
}

static void free_big(conv_launch *a)
{
    cudaFree((void *)a->in);
    cudaFree(a->out);
    if (a->step == 1)
        cudaFree((void *)a->mask);
}

/*
 * The tiled model: every input element is loaded once per tile, halo
 * included, one element per lane: (1 + (mw-1)/T)^d elements per output.
 * Twice that is allowed (loading schemes differ); a kernel that reads its
 * inputs from global memory for every tap loads about mw^d per output.
 */
static double tiled_load_limit(worker_env *env, const conv_launch *a, char *model, size_t n)
{
    int tile = 0;
    lab_lib_param(&env->lib, a->step == 3 ? "smemlab_param_TILE2D" : "smemlab_param_TILE1D", &tile);
    if (tile < 1)
        tile = 1;
    double per_output = 1.0 + (double)(a->mw - 1) / tile;
    if (a->step == 3)
        per_output *= per_output;
    double outputs = (double)a->width * a->height;
    double ideal = outputs * per_output / env->gpu.banks.warp_size;
    snprintf(model, n, "2 x tiled model %.0f: (1 + (%d-1)/%d)^%d loads per output, "
             "%.0f outputs", ideal, a->mw, tile, a->step == 3 ? 2 : 1, outputs);
    return 2.0 * ideal;
}

static void grade_counters(worker_env *env, conv_launch *a, check_result *c)
{
    measurement m;
    char why[256], model[192];
    measure_status st = env->meter_status;

    snprintf(why, sizeof why, "%s", env->meter_why);
    if (st == MEASURE_OK && big_input(env, a, why, sizeof why) != 0)
        st = MEASURE_ERROR;
    if (st == MEASURE_OK) {
        worker_progress(env);
        st = env->meter->measure(env->meter, launch_conv, a, &m, why, sizeof why);
    }
    if (st != MEASURE_OK) {
        compare_not_measured(&c[FLOAT_LOADS], st, why);
        compare_not_measured(&c[FLOAT_CONFLICTS], st, why);
        free_big(a);
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
    free_big(a);
}

static void launch_copy(void *p)
{
    conv_launch *a = p;
    cudaMemcpyAsync(a->out, a->in, (size_t)a->width * a->height * sizeof(float),
                    cudaMemcpyDeviceToDevice, 0);
}

static void grade_speed(worker_env *env, const lab_kernel *k, conv_launch *a, check_result *c)
{
    char why[256];
    double t_kernel = 0, t_copy = 0;
    if (big_input(env, a, why, sizeof why) != 0 ||
        time_launch(env, launch_conv, a, &t_kernel, why, sizeof why) != 0 ||
        time_launch(env, launch_copy, a, &t_copy, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "timing failed: %s", why);
    } else {
        double bytes = 2.0 * a->width * a->height * sizeof(float); /* read in, write out */
        check_speed(c, t_kernel, t_copy, k->speed_fraction, "GB/s", bytes / 1e6,
                    "a device-to-device copy");
        if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "A tiled convolution should stream close to "
                        "copy speed: coalesced tile loads, the mask from constant memory, and "
                        "enough outputs per thread to hide the halo.");
    }
    free_big(a);
}

static void bind_conv(void *state, void *launcher)
{
    ((conv_launch *)state)->fn = launcher;
}

static int correct_conv(worker_env *env, void *state, check_result *c, int *broken)
{
    return grade_correct(env, state, c, broken);
}

static void counters_conv(worker_env *env, const lab_kernel *k, void *state, check_result *c)
{
    (void)k;
    grade_counters(env, state, c);
}

static void speed_conv(worker_env *env, const lab_kernel *k, void *state, check_result *c)
{
    grade_speed(env, k, state, c);
}

int conv_grade_kernel(worker_env *env, const lab_kernel *k)
{
    static const float_ops ops = {bind_conv, correct_conv, counters_conv, speed_conv};
    conv_launch state = {.step = k->step};
    return float_grade_kernel(env, k, &ops, &state);
}
