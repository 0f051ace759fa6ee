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

/* The student's launches of call p->call (calls.h) on the grader's buffers. */
typedef struct conv_launch {
    const lab_kernel *k;
    problem *p;
    const float *in, *mask; /* mask: an argument (step 1), else a copy for the reference */
    float *out;
    int width, height, mw;  /* 1-D: height 1 */
    float *host_in, *host_mask; /* the measured run's inputs as given, for its reference */
} conv_launch;

static int is_2d(const conv_launch *a)
{
    return a->k->step == 3;
}

/* Buffers as calls.c numbers them: 0 in, 1 out, 2 the mask argument of step 1. */
static void conv_bind(const problem *p, void *bufs[])
{
    const conv_launch *a = p->state;
    bufs[0] = (void *)a->in, bufs[1] = a->out, bufs[2] = (void *)a->mask;
}

static void release(conv_launch *a)
{
    problem_drop(a->p, &a->in);
    problem_drop(a->p, &a->mask);
    problem_drop(a->p, &a->out);
}

/*
 * Put the mask where this kernel reads it: an argument, or the __constant__
 * array the lab table names, found in the student's device code by name.
 * A device copy stays in a->mask either way, for the reference.
 */
static int place_mask(conv_launch *a, const float *mask, int taps, char *why, size_t n)
{
    a->mask = dev_upload(mask, (size_t)taps, why, n);
    if (!a->mask || !a->k->mask_symbol)
        return a->mask ? 0 : -1;
    size_t bytes = 0;
    cudaError_t err = module_set_global(a->p->mod, a->k->mask_symbol, mask,
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
static int prepare(conv_launch *a, unsigned long long seed, float **in, float **mask, char *why,
                   size_t n)
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
            err = module_fill(a->p->mod, (float *)a->in, count, seed);
        if (err != cudaSuccess) {
            snprintf(why, n, "filling the input: %s", dev_error_text(err));
            return -1;
        }
    }
    return a->in && place_mask(a, *mask, taps, why, n) == 0 ? 0 : -1;
}

/* One size and mask width (call p->call): inputs, reference, run, judge. */
static run_outcome conv_run(problem *p, check_result *c)
{
    conv_launch *a = p->state;
    const call_spec *spec = &p->env->plan->specs[p->call];
    a->width = spec->width, a->height = spec->height, a->mw = spec->depth;
    int taps = is_2d(a) ? a->mw * a->mw : a->mw;
    float *in = NULL, *mask = NULL, *ref = malloc((size_t)a->width * a->height * sizeof *ref);
    char why[256];
    run_outcome out;

    if (prepare(a, problem_seed(p), &in, &mask, why, sizeof why) != 0) {
        out = fail_cuda(c, spec->label, why);
    } else {
        if (is_2d(a))
            ref_conv2d(in, mask, ref, a->width, a->height, a->mw);
        else
            ref_conv1d(in, mask, ref, a->width, a->mw);
        const call_plan *call = &p->env->plan->calls[p->call];
        float_case fc = {spec->label, problem_launch, p, &a->out, ref, a->height, a->width,
                         tol_floor_conv(in, (size_t)a->width * a->height, mask, taps), 0, 0,
                         "the tile starts mask width / 2 elements before the block's first "
                         "output (the halo), and an input index outside the signal or image "
                         "is a ghost cell worth 0", NULL};
        if (call->n_launches > 0) /* one output a thread: the block's threads are its piece */
            fc.block_rows = is_2d(a) ? (int)call->launches[0].block[1] : 1,
            fc.block_cols = (int)call->launches[0].block[0];
        char factor[160];
        fc.factor_words = float_factor_words(p, "mask", factor, sizeof factor);
        out = float_run_case(p, &fc, c);
    }
    if (out != RUN_LOST)
        release(a);
    free(in), free(mask), free(ref);
    return out;
}

static void conv_passed(problem *p, int runs, int last, const char *each, check_result *c)
{
    (void)last;
    check_set(c, CHECK_PASS, "all %d sizes and mask widths right%s (seed %llu)", runs, each,
              p->env->opt->seed);
}

/* The input of the call with `role` on this device (the GPU's large one, or the
   emulator's traffic input), and an output buffer; in as for prepare. */
static int big_input(problem *p, int role, float **in, float **mask, char *why, size_t n)
{
    conv_launch *a = p->state;
    if (problem_take_call(p, role, why, n) != 0)
        return -1;
    const call_spec *spec = &p->env->plan->specs[p->call];
    size_t count = (size_t)spec->width * spec->height;
    a->width = spec->width, a->height = spec->height, a->mw = spec->depth;
    if (prepare(a, p->env->opt->seed, in, mask, why, n) != 0)
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

/* The measured run's input, kept on the host for its reference (the kernel may write
   over its input and mask). */
static int conv_prepare(problem *p, char *why, size_t n)
{
    conv_launch *a = p->state;
    return big_input(p, 0, &a->host_in, &a->host_mask, why, n);
}

/* Checked against the input and mask as given. */
static int conv_right(problem *p, char *why, size_t n)
{
    conv_launch *a = p->state;
    size_t count = (size_t)a->width * a->height;
    int taps = is_2d(a) ? a->mw * a->mw : a->mw;
    return dev_copy((void *)a->in, a->host_in, count * sizeof(float), cudaMemcpyHostToDevice) ==
               cudaSuccess &&
           dev_copy((void *)a->mask, a->host_mask, (size_t)taps * sizeof(float),
                    cudaMemcpyHostToDevice) == cudaSuccess &&
           output_right(p->env, a, a->host_mask, why, n);
}

/* The flow run's output: out, buffer 1. */
static void conv_output(const problem *p, flow_output *out)
{
    const conv_launch *a = p->state;
    *out = (flow_output){1, (size_t)a->width * (size_t)a->height, NULL, 0, 0};
}

static void conv_release(problem *p)
{
    conv_launch *a = p->state;
    release(a);
    free(a->host_in), free(a->host_mask);
    a->host_in = a->host_mask = NULL;
}

static void judge_loads(problem *p, check_id id, const measurement *m, const trace_summary *s,
                        check_result *c)
{
    conv_launch *a = p->state;
    char model[192];
    double limit = tiled_load_limit(p->env, a, model, sizeof model);
    check_global_loads(c, m, limit, model, p->kind->hint[id]);
    check_mask_constant(p->env, a->k, c);
    check_global_repeats(c, s,
                         "A tiled kernel reads each input element from global memory once per "
                         "block: the tile and its halo go into shared memory together, and "
                         "every tap, the halo's too, reads shared memory. An element read from "
                         "global memory again (at each tap that needs it) is the halo skipped.");
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
    (void)env;
    return module_conv(r->a->p->mod, r->a->in, r->a->mask, r->ref, r->a->width, r->a->height,
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
                module_diff(a->p->mod, a->out, r.ref, count, &d) == cudaSuccess &&
                d.poisoned == 0 && d.not_finite == 0 && d.rel_error <= TOL_OVERALL * 10;
    if (!right)
        snprintf(why, n, "the measured run gave a wrong result (relative error "
                 "%.1e, %.0f outputs unwritten)", d.rel_error, d.poisoned);
    dev_free(r.ref);
    return right;
}

static void conv_speed(problem *p, check_result *c)
{
    conv_launch *a = p->state;
    char why[256];
    float *mask = NULL;
    conv_ref r = {a, NULL, NULL};

    if (big_input(p, CALL_SPEED, NULL, &mask, why, sizeof why) != 0 ||
        dev_malloc((void **)&r.ref, (size_t)a->width * a->height * sizeof(float)) != cudaSuccess) {
        check_set(c, CHECK_FAIL, "could not prepare the timed input: %s", why);
        p->lost = dev_context_lost();
    } else {
        size_t count = (size_t)a->width * a->height;
        r.host_mask = mask;
        /* Both timed alike: a fresh input before every run; the kernel's output checked each time. */
        timed_work kernel = {problem_launch, p, {(float *)a->in}, {count}, 1, a->out, count, r.ref,
                             make_ref, &r, NULL};
        timed_work copy = {launch_copy, a, {(float *)a->in}, {count}, 1, NULL, 0, NULL, NULL,
                           NULL, NULL};
        speed_words w = {NULL, "a device-to-device copy", "the copy", "GB/s",
                         2.0 * count * sizeof(float) / 1e6, /* read in, write out */
                         "A tiled convolution should stream close to copy speed: coalesced "
                         "tile loads, the mask from constant memory, and enough outputs per "
                         "thread to hide the halo."};
        time_against(p, &kernel, &copy, &w, c);
    }
    problem_free(p, r.ref);
    release(a);
    free(mask);
}

static void conv_setup(problem *p)
{
    conv_launch *a = p->state;
    a->p = p;
    a->k = p->k;
}

/*
 * A conflict of a block narrower than a warp: its warps span rows of threads, and so rows
 * of the tile, whose words fall in the same banks where the tile's pitch brings them
 * there. The kind's hint (neighbouring threads, neighbouring words) holds within a row and
 * misleads a kernel that keeps it: the lab 6 walkthrough's 16 x 16 blocks (the skeleton's
 * are 32 wide; lab 5's own blocks are 16 x 16, and its kind keeps its hint).
 */
static void narrow_block_hint(const problem *p, check_result *c)
{
    const call_plan *call = p->call >= 0 ? &p->env->plan->calls[p->call] : NULL;
    int warp = p->env->gpu.banks.warp_size > 0 ? p->env->gpu.banks.warp_size : 32;
    if (!call || call->n_launches < 1 || c->status != CHECK_FAIL || check_waits(c))
        return;
    unsigned bx = call->launches[0].block[0], by = call->launches[0].block[1];
    if (bx == 0 || bx >= (unsigned)warp || bx * by < (unsigned)warp)
        return;
    check_field(c->hint, sizeof c->hint, "A warp of your %ux%u block spans %u rows of its "
                "threads, and so %u rows of the tile: the lanes of one row read words a tile "
                "pitch away from the next row's, and where that pitch modulo 32 words brings "
                "their banks together, they conflict (a pitch of 38 words puts the second row "
                "6 banks on, over the first). Make the block %d threads wide, so that a warp "
                "reads along one row, or choose a pitch whose rows fall in other banks.",
                bx, by, warp / bx, warp / bx, warp);
}

/* The tile's banks, as every float kind judges them; a block narrower than a warp told so. */
static void judge_conflicts(problem *p, check_id id, const measurement *m, const trace_summary *s,
                            check_result *c)
{
    float_judge_conflicts(p, id, m, s, c);
    narrow_block_hint(p, c);
}

const kind_desc conv_kind = {
    .name = "conv", .state_bytes = sizeof(conv_launch), .setup = conv_setup,
    .run = conv_run, .passed = conv_passed,
    .prepare = conv_prepare, .bind = conv_bind, .right = conv_right,
    .release = conv_release, .output = conv_output, .bounds = 1,
    .judge = {[CHK_GLOBAL_LOADS] = judge_loads, [CHK_SMEM_CONFLICTS] = judge_conflicts},
    .hint = {[CHK_GLOBAL_LOADS] = "Each input element should be read from global memory about "
                                 "once per tile: load the tile and its halo (mask_width - 1 "
                                 "extra elements) into shared memory, __syncthreads(), then "
                                 "read every tap from the tile.",
             [CHK_SMEM_CONFLICTS] = "Neighbouring threads should read neighbouring tile "
                                    "elements (tile[ty + i][tx + j] with tx varying fastest)."},
    .speed = conv_speed,
};
