/*
 * stencil.c - grading one kernel of lab 10 (constant memory against the
 * read-only cache): a 9-point 1-D stencil (a 1-D convolution of 2 RADIUS + 1
 * taps, ghost cells 0) with its coefficients in __constant__ memory (step 1)
 * or through the read-only cache (step 2), and a table each lane indexes
 * differently, through each (steps 3 and 4).
 *
 * Checks: correct on every length; the stencils' global loads against the
 * tiled model and their halo loaded once, shared conflicts, races (as lab 6);
 * the memory path (the coefficients or the table come from where the step
 * asks: constant-memory loads, or global loads that are all ld.global.nc) and
 * the constant serialization (distinct constant addresses a warp request:
 * 1 for the stencil's broadcast, the keys' model for the lookup, none
 * serialized where the read-only path was asked) from the executed
 * instructions, which only the emulator sees state space by state space and
 * lane by lane: where the meter is the trace or the counters, the driver
 * measures those two on an emulated twin of the run (problem.c: the lab's PTX
 * on the emulator's traffic input), so every backend gives the same verdict;
 * speed against a device-to-device copy of the same bytes.
 */
#include "../compare/compare.h"
#include "../measure/emulator/lab_decls.h"
#include "../run/device.h"
#include "../reference/reference.h"
#include "../reference/lookup_ref.h"
#include "../reference/tolerance.h"
#include "float_run.h"
#include "traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct stencil_launch {
    const lab_kernel *k;
    worker_env *env;
    problem *p;        /* p->mod: the module launched (env->mod, or the emulator's twin) */
    void *in;          /* floats (stencil) or int keys (lookup) */
    float *data;       /* the coefficients or the table, as an argument (buffer 2) */
    float *out;
    int n;
    float *host_in, *host_data; /* the inputs as given, for references */
    int32_t *host_keys;
} stencil_launch;

static int is_lookup(const stencil_launch *a)
{
    return a->k->step >= 3;
}

static int taps(const worker_env *env)
{
    return 2 * lab_param_value(env->lab, "RADIUS") + 1;
}

static int data_count(const stencil_launch *a)
{
    return is_lookup(a) ? lab_param_value(a->env->lab, "TABLE") : taps(a->env);
}

static const char *data_words(const stencil_launch *a)
{
    return is_lookup(a) ? "table" : "coefficients";
}

/* "come" or "comes", as data_words(a) wants. */
static const char *come(const stencil_launch *a)
{
    return is_lookup(a) ? "comes" : "come";
}

/* Buffers as stencil_calls numbers them: 0 in, 1 out, 2 the data argument. */
static void stencil_bind(const problem *p, void *bufs[])
{
    const stencil_launch *a = p->state;
    bufs[0] = a->in, bufs[1] = a->out, bufs[2] = a->data;
}

static void release(stencil_launch *a)
{
    problem_drop(a->p, &a->in);
    problem_drop(a->p, &a->data);
    problem_drop(a->p, &a->out);
    free(a->host_in), free(a->host_data), free(a->host_keys);
    a->host_in = a->host_data = NULL;
    a->host_keys = NULL;
}

/*
 * Every __constant__ array the lab's kernels name gets their data: the
 * coefficients for a stencil's, the table for a lookup's, so that a kernel
 * reading the other step's array still computes the right thing and loses
 * the points of its lesson alone. Only this kernel's own array must exist.
 */
static int fill_symbols(stencil_launch *a, const float *coef, const float *table, char *why,
                        size_t n)
{
    const lab_def *lab = a->env->lab;
    for (int i = 0; i < lab->n_kernels; i++) {
        const lab_kernel *k = &lab->kernels[i];
        int lookup = k->step >= 3, count = lookup ? lab_param_value(lab, "TABLE") : taps(a->env);
        size_t bytes = (size_t)count * sizeof(float), have = 0;
        if (!k->mask_symbol)
            continue;
        cudaError_t err = module_set_global(a->p->mod, k->mask_symbol, lookup ? table : coef,
                                            bytes, &have);
        if (k != a->k && (err == cudaErrorSymbolNotFound || have < bytes))
            continue;
        if (err == cudaErrorSymbolNotFound || have < bytes) {
            snprintf(why, n, "__constant__ float %s[] is not in your GPU code, or holds fewer "
                     "than %d values: keep its declaration from the skeleton", k->mask_symbol,
                     count);
            return -1;
        }
        if (err != cudaSuccess) {
            snprintf(why, n, "filling %s: %s", k->mask_symbol, dev_error_text(err));
            return -1;
        }
    }
    return 0;
}

/* The inputs of a's current size from seed, on the host and the device, the
   constant arrays filled; in_on_device 0: the input is filled on the device
   (the speed input) and a->host_in stays NULL. */
static int prepare(stencil_launch *a, unsigned long long seed, int in_on_device, char *why,
                   size_t n)
{
    int table = lab_param_value(a->env->lab, "TABLE");
    size_t count = (size_t)a->n;
    float *coef = host_random((size_t)taps(a->env), seed + 7);
    float *tab = host_random((size_t)(table > 0 ? table : 1), seed + 11);
    cudaError_t err = cudaSuccess;
    a->host_data = is_lookup(a) ? tab : coef;
    if (is_lookup(a)) {
        a->host_keys = malloc(count * sizeof *a->host_keys + 1);
        lookup_keys(a->host_keys, count, table, seed);
        err = dev_malloc(&a->in, count * 4 + 4);
        if (err == cudaSuccess)
            err = dev_copy(a->in, a->host_keys, count * 4, cudaMemcpyHostToDevice);
    } else if (in_on_device) {
        err = dev_malloc(&a->in, count * sizeof(float) + 4);
        if (err == cudaSuccess)
            err = module_fill(a->p->mod, a->in, count, seed);
    } else {
        a->host_in = host_random(count, seed);
        a->in = dev_upload(a->host_in, count ? count : 1, why, n);
    }
    if (err != cudaSuccess) {
        snprintf(why, n, "uploading the input: %s", dev_error_text(err));
    } else if (a->in) {
        a->data = dev_upload(a->host_data, (size_t)data_count(a), why, n);
        if (a->data && fill_symbols(a, coef, tab, why, n) == 0) {
            free(is_lookup(a) ? coef : tab);
            return 0;
        }
    }
    free(is_lookup(a) ? coef : tab);
    return -1;
}

/* The reference output of a's host inputs (host_in NULL for a stencil: none). */
static float *host_reference(const stencil_launch *a)
{
    float *ref = malloc(((size_t)a->n + 1) * sizeof *ref);
    if (is_lookup(a))
        ref_lookup(a->host_keys, a->host_data, ref, (size_t)a->n);
    else
        ref_conv1d(a->host_in, a->host_data, ref, a->n, taps(a->env));
    return ref;
}

static double floor_of(const stencil_launch *a)
{
    if (is_lookup(a))
        return 1.0; /* a lookup copies: exact, the floor never matters */
    return tol_floor_conv(a->host_in, (size_t)a->n, a->host_data, taps(a->env));
}

/* One length (call p->call): inputs, reference, run, judge. */
static run_outcome stencil_run(problem *p, check_result *c)
{
    stencil_launch *a = p->state;
    const call_spec *spec = &p->env->plan->specs[p->call];
    char why[256];
    run_outcome out;
    a->n = spec->width;
    if (prepare(a, problem_seed(p), 0, why, sizeof why) != 0) {
        out = fail_cuda(c, spec->label, why);
    } else {
        float *ref = host_reference(a);
        const call_plan *call = &p->env->plan->calls[p->call];
        float_case fc = {spec->label, problem_launch, p, &a->out, ref, 1, a->n, floor_of(a), 0,
                         0, is_lookup(a) ? "the keys (out[i] = table[keys[i]])"
                                         : "the tile starts RADIUS elements before the block's "
                                           "first output (the halo), and an input index "
                                           "outside the signal is a ghost cell worth 0",
                         NULL};
        if (call->n_launches > 0 && !is_lookup(a))
            fc.block_rows = 1, fc.block_cols = lab_param_value(p->env->lab, "TILE");
        char factor[160];
        fc.factor_words =
            is_lookup(a) ? NULL : float_factor_words(p, "coefficients", factor, sizeof factor);
        out = float_run_case(p, &fc, c);
        free(ref);
    }
    if (out != RUN_LOST)
        release(a);
    return out;
}

/*
 * A wrong stencil whose blocks have a thread count that does not divide TILE: where a
 * thread makes TILE / THREADS outputs, the last TILE % THREADS of each block's fall to
 * no thread. The hint says so, with the launch's numbers (a kernel that loops over its
 * outputs is right with any count: only a wrong one is told).
 */
static void threads_not_dividing(problem *p, check_result *c)
{
    const stencil_launch *a = p->state;
    const call_plan *call = &p->env->plan->calls[p->call];
    int tile = lab_param_value(p->env->lab, "TILE");
    if (is_lookup(a) || call->n_launches == 0 || tile <= 0)
        return;
    unsigned threads = call->launches[0].block[0];
    if (threads == 0 || tile % (int)threads == 0)
        return;
    char divisors[64] = ""; /* whole warps a block, at most 1024 threads: the largest three */
    int shown = 0;
    for (int d = 1024; d >= 32 && shown < 3; d -= 32)
        if (tile % d == 0) {
            size_t at = strlen(divisors);
            snprintf(divisors + at, sizeof divisors - at, "%s%d", shown ? ", " : "", d);
            shown++;
        }
    check_field(c->hint, sizeof c->hint, "Your blocks have %u threads, and %u does not divide "
                "TILE = %d: where each thread makes TILE / THREADS = %d output%s of its block, "
                "the last TILE %% THREADS = %d of every block's %d fall to no thread. Choose "
                "THREADS among TILE's divisors (%s ...), or loop over the outputs: for (o = "
                "threadIdx.x; o < TILE; o += THREADS).", threads, threads, tile,
                tile / (int)threads, tile / (int)threads == 1 ? "" : "s", tile % (int)threads,
                tile, divisors);
}

static void stencil_passed(problem *p, int runs, int last, const char *each, check_result *c)
{
    (void)last;
    check_set(c, CHECK_PASS, "all %d lengths right%s (seed %llu)", runs, each,
              p->env->opt->seed);
}

/* The call with `role` on this device, its inputs ready and an output buffer. */
static int big_input(problem *p, int role, int in_on_device, char *why, size_t n)
{
    stencil_launch *a = p->state;
    if (problem_take_call(p, role, why, n) != 0)
        return -1;
    a->n = p->env->plan->specs[p->call].width;
    if (prepare(a, p->env->opt->seed, in_on_device, why, n) != 0)
        return -1;
    if (dev_malloc((void **)&a->out, (size_t)a->n * sizeof(float)) != cudaSuccess) {
        snprintf(why, n, "no device memory for the output");
        return -1;
    }
    return 0;
}

/* The measured run's output against the host reference: 1 when right. */
static int stencil_right(problem *p, char *why, size_t n)
{
    stencil_launch *a = p->state;
    size_t count = (size_t)a->n;
    float *got = malloc(count * sizeof *got + 1), *ref = host_reference(a);
    double floor = floor_of(a);
    size_t wrong = count;
    if (dev_copy(got, a->out, count * sizeof *got, cudaMemcpyDeviceToHost) == cudaSuccess) {
        wrong = 0;
        for (size_t i = 0; i < count; i++)
            wrong += !(fabs((double)got[i] - ref[i]) <= 1e-3 * fmax(fabs(ref[i]), floor));
    }
    if (wrong)
        snprintf(why, n, "the measured run gave a wrong result (%zu of %zu outputs wrong)",
                 wrong, count);
    free(got), free(ref);
    return wrong == 0;
}

/* Warps the run a->call launched, every launch of it counted. */
static double warps_launched(const stencil_launch *a)
{
    const call_plan *cp = &a->env->plan->calls[a->p->call];
    int warp = a->env->gpu.banks.warp_size;
    double warps = 0;
    for (int i = 0; i < cp->n_launches; i++) {
        const plan_launch *l = &cp->launches[i];
        double blocks = (double)l->grid[0] * l->grid[1] * l->grid[2];
        long threads = (long)l->block[0] * l->block[1] * l->block[2];
        warps += blocks * (double)((threads + warp - 1) / warp);
    }
    return warps;
}

/* The tiled model of lab 6 with the stencil's taps: each input once a tile, halo
   included, one element a lane; twice that allowed. Step 2 may also load every
   coefficient once a warp it launches (a warp's registers; a block's 1024 threads make
   32 warps whatever the outputs of its last, partial tile). */
static double tiled_load_limit(const stencil_launch *a, char *model, size_t n)
{
    int tile = lab_param_value(a->env->lab, a->k->tile_param), t = taps(a->env);
    double warp = a->env->gpu.banks.warp_size, outputs = a->n;
    double ideal = outputs * (1.0 + (double)(t - 1) / (tile > 0 ? tile : 1)) / warp;
    double extra = a->k->path == MEM_PATH_READONLY ? t * warps_launched(a) : 0;
    snprintf(model, n, "2 x tiled model %.0f: (1 + (%d-1)/%d) loads per output, %.0f outputs%s",
             ideal, t, tile, outputs, extra > 0 ? ", + the coefficients once a warp" : "");
    return 2.0 * ideal + extra;
}

/* Step 1's coefficients declared in global memory (__device__) where the step asks for
   __constant__: then they, not the tile, are what the global loads count. */
static int coef_in_global(const stencil_launch *a)
{
    const char *space = a->k->path == MEM_PATH_CONSTANT && a->k->mask_symbol && a->env->decls
                            ? lab_decls_space(a->env->decls, a->k->mask_symbol) : NULL;
    return space && strcmp(space, "global") == 0;
}

/*
 * The lesson's loads (constant loads in steps 1 and 3, the data argument's in steps 2
 * and 4) were made where the outputs are, not for them. A warp that stored outputs and
 * made none of its own took the data from elsewhere (shared memory another thread
 * filled); a stencil's loads each served a warp's lanes (a broadcast), not one thread
 * reading for the block; a lookup's read the entries its keys chose, not a slice of the
 * table (a copy, into shared memory or registers a shuffle serves). 1 with what was seen
 * in why, else 0. A kernel with none of those loads, or a measurement without the counts
 * (0 warps), is not judged here: the checks say so in their own words.
 */
static int served_elsewhere(const stencil_launch *a, const measurement *m, char *why, size_t n)
{
    int konst = a->k->path == MEM_PATH_CONSTANT;
    double stored = m->value[METRIC_STORE_WARPS];
    double bare = m->value[konst ? METRIC_STORE_WARPS_NO_CONST : METRIC_STORE_WARPS_NO_WATCH];
    double req = konst ? m->value[METRIC_CONST_LD_REQUESTS]
                       : m->value[METRIC_WATCH_LD_PLAIN] + m->value[METRIC_WATCH_LD_NC];
    double lanes = m->value[konst ? METRIC_CONST_LD_LANES : METRIC_WATCH_LD_LANES];
    double slices = m->value[konst ? METRIC_CONST_LD_SLICES : METRIC_WATCH_LD_SLICES];
    const char *from = konst ? a->k->mask_symbol : is_lookup(a) ? "table" : "coef";
    int warp = a->env->gpu.banks.warp_size > 0 ? a->env->gpu.banks.warp_size : 32;
    if (req <= 0 || stored <= 0)
        return 0;
    if (bare > 0) { /* where from: shared memory if the kernel read any, else a copy */
        snprintf(why, n, "%.0f of the %.0f warps that stored outputs loaded nothing from %s: "
                 "their %s came from somewhere else (%s)", bare, stored, from, data_words(a),
                 m->value[METRIC_SHARED_LD_REQUESTS] > 0
                     ? "shared memory another thread filled"
                     : "a copy elsewhere: the kernel read no shared memory");
        return 1;
    }
    if (is_lookup(a) && slices > 0) {
        snprintf(why, n, "%.0f of %.0f requests read a slice of %s (each lane its own entry, "
                 "evenly spaced: a copy of the table, not a lookup by key), and the keys were "
                 "served from the copy", slices, req, from);
        return 1;
    }
    if (!is_lookup(a) && lanes / req < warp / 2.0) {
        snprintf(why, n, "a load of %s served %.1f lanes on average, where a broadcast serves "
                 "the warp's %d: one thread reads it for the others", from, lanes / req, warp);
        return 1;
    }
    return 0;
}

/* What to do instead, for the step's array. */
static const char *served_elsewhere_hint(const stencil_launch *a)
{
    return is_lookup(a)
        ? "Each lane reads the entry of its own keys where the step says (c_table[keys[i]], "
          "or __ldg(&table[keys[i]]) in step 4): a copy of the table (into shared memory, or "
          "into registers a shuffle serves) measures the copy, not what a lookup by key "
          "costs the cache this step is about."
        : "Every warp that makes outputs reads the coefficients itself, each lane with the "
          "others, where it uses them (c_coef[j], or __ldg(&coef[j]) in step 2, in the tap "
          "loop or into the thread's registers first). Copying them into shared memory by "
          "one thread, a few, or one warp, then reading them there, measures shared memory, "
          "not the cache this step is about.";
}

/* Step 1 and 3: the array is declared __constant__ and constant loads ran. */
static void path_constant(const stencil_launch *a, const measurement *m, check_result *c)
{
    const char *space = a->env->decls ? lab_decls_space(a->env->decls, a->k->mask_symbol) : NULL;
    double konst = m->value[METRIC_CONST_LD_REQUESTS];
    char why[256];
    check_field(c->measured, sizeof c->measured, "%.0f constant-memory loads (ld.const) by "
                "%.0f lanes; %.0f warps stored outputs, %.0f of them with no constant load",
                konst, m->value[METRIC_CONST_LD_LANES], m->value[METRIC_STORE_WARPS],
                m->value[METRIC_STORE_WARPS_NO_CONST]);
    check_field(c->expected, sizeof c->expected, "the %s read from __constant__ %s",
                data_words(a), a->k->mask_symbol);
    if (space && strcmp(space, "const") != 0) {
        check_set(c, CHECK_FAIL, "%s (the %s) is not in constant memory: it is declared in %s "
                  "memory, so every read of it is a global load", a->k->mask_symbol,
                  data_words(a), strcmp(space, "global") == 0 ? "global (__device__)" : space);
        check_field(c->hint, sizeof c->hint, "Declare it `__constant__ float %s[...]` as the "
                    "skeleton does: constant memory has a cache of its own that serves a "
                    "warp's request in one broadcast when every lane reads the same word.",
                    a->k->mask_symbol);
    } else if (konst <= 0) {
        check_set(c, CHECK_FAIL, "no constant-memory load ran: the %s did not come from %s",
                  data_words(a), a->k->mask_symbol);
        check_field(c->hint, sizeof c->hint, "Read the %s from the __constant__ array %s, "
                    "which the grader fills before every run.", data_words(a),
                    a->k->mask_symbol);
    } else if (served_elsewhere(a, m, why, sizeof why)) {
        check_set(c, CHECK_FAIL, "the %s did not reach the outputs from constant memory: %s",
                  data_words(a), why);
        check_field(c->hint, sizeof c->hint, "%s", served_elsewhere_hint(a));
    } else {
        check_set(c, CHECK_PASS, "the %s %s from constant memory: %.0f ld.const requests",
                  data_words(a), come(a), konst);
    }
}

/* Steps 2 and 4: every global load of the argument is ld.global.nc. */
static void path_readonly(const stencil_launch *a, const measurement *m, check_result *c)
{
    double plain = m->value[METRIC_WATCH_LD_PLAIN], nc = m->value[METRIC_WATCH_LD_NC];
    double konst = m->value[METRIC_CONST_LD_REQUESTS];
    char why[256];
    check_field(c->measured, sizeof c->measured, "loads of the %s argument: %.0f ld.global.nc, "
                "%.0f plain ld.global; %.0f ld.const", data_words(a), nc, plain, konst);
    check_field(c->expected, sizeof c->expected, "every load of the %s through the read-only "
                "cache (ld.global.nc)", data_words(a));
    if (plain > 0) {
        check_set(c, CHECK_FAIL, "%.0f of %.0f loads of the %s are plain global loads "
                  "(ld.global), not the read-only path (ld.global.nc)", plain, plain + nc,
                  data_words(a));
        check_field(c->hint, sizeof c->hint, "Read them with __ldg(&p[i]), or declare the "
                    "pointer `const float *__restrict__` (and the output __restrict__ too): "
                    "the compiler then knows nothing writes them during the kernel and loads "
                    "them through the read-only data cache.");
    } else if (nc <= 0) {
        check_set(c, CHECK_FAIL, konst > 0 ? "the %s argument is never read: %.0f "
                  "constant-memory loads instead, where this step asks for the read-only path"
                  : "the %s argument is never read (%.0f constant-memory loads)",
                  data_words(a), konst);
        check_field(c->hint, sizeof c->hint, "This step reads the %s from the pointer the "
                    "launcher is given, through __ldg or a const __restrict__ pointer, not "
                    "from the __constant__ array of the other step.", data_words(a));
    } else if (served_elsewhere(a, m, why, sizeof why)) {
        check_set(c, CHECK_FAIL, "the %s did not reach the outputs through the read-only "
                  "cache: %s", data_words(a), why);
        check_field(c->hint, sizeof c->hint, "%s", served_elsewhere_hint(a));
    } else {
        check_set(c, CHECK_PASS, "the %s %s through the read-only cache: %.0f ld.global.nc "
                  "requests, no plain load", data_words(a), come(a), nc);
    }
}

/* memory-path: the emulator's alone (kind_desc.emulated). Where the read-only step read
   the __constant__ array instead, the lines that read it are the ones to show (the page
   marks them), not the global loads that judge_counts would name. */
static void judge_path(problem *p, check_id id, const measurement *m, const trace_summary *s,
                       check_result *c)
{
    const stencil_launch *a = p->state;
    (void)id;
    if (a->k->path == MEM_PATH_CONSTANT) {
        path_constant(a, m, c);
        return;
    }
    path_readonly(a, m, c);
    if (c->status == CHECK_FAIL && m->value[METRIC_WATCH_LD_PLAIN] > 0) /* the plain loads */
        compare_global_loads_of(c, s, (uint64_t)(uintptr_t)a->data,
                                (uint64_t)data_count(a) * sizeof(float));
    if (c->status == CHECK_FAIL && m->value[METRIC_WATCH_LD_NC] <= 0 &&
        m->value[METRIC_CONST_LD_REQUESTS] > 0 && c->n_lines == 0)
        problem_name_op_lines(p, c, "ld.const", "cload");
}

/*
 * Distinct constant addresses a warp request, measured: the stencil's
 * broadcast wants 1; the lookup through constant memory the keys' model
 * (lookup_distinct_per_warp) within 10%; where the read-only path was asked,
 * no request above 1.
 */
static void judge_const_counts(problem *p, check_id id, const measurement *m,
                               const trace_summary *s, check_result *c);

/* const-serialization, and where it failed the lines that read constant memory: no
   trace shows a constant load, so the compiled code names them (the page marks them). */
static void judge_const(problem *p, check_id id, const measurement *m, const trace_summary *s,
                        check_result *c)
{
    judge_const_counts(p, id, m, s, c);
    if (c->status == CHECK_FAIL && c->n_lines == 0)
        problem_name_op_lines(p, c, "ld.const", "cload");
}

static void judge_const_counts(problem *p, check_id id, const measurement *m,
                               const trace_summary *s, check_result *c)
{
    const stencil_launch *a = p->state;
    double req = m->value[METRIC_CONST_LD_REQUESTS], addr = m->value[METRIC_CONST_LD_ADDRESSES];
    double per = req > 0 ? addr / req : 0;
    char why[256];
    (void)id, (void)s;
    check_field(c->measured, sizeof c->measured, "%.2f distinct addresses per constant request "
                "(%.0f requests)", per, req);
    if (req > 0)
        c->degree = per; /* what a PREDICT ... const line is judged against */
    if (a->k->path == MEM_PATH_CONSTANT && !is_lookup(a) &&
        served_elsewhere(a, m, why, sizeof why)) {
        check_field(c->expected, sizeof c->expected, "every warp's outputs from its own "
                    "constant requests%s", is_lookup(a) ? "" : ", each a broadcast to its lanes");
        check_set(c, CHECK_FAIL, "nothing to serialize where the outputs are made: %s", why);
        check_field(c->hint, sizeof c->hint, "%s", served_elsewhere_hint(a));
        return;
    }
    if (a->k->path == MEM_PATH_CONSTANT && is_lookup(a)) {
        double model = lookup_distinct_per_warp(a->host_keys, (size_t)a->n);
        /* the requests follow the keys: each key is one lane's constant load, a request
           serves a warp's 32 at most, so at least ceil(n / 32) of them; twice that at most
           (partial warps, a thread's last keys one at a time) */
        int warp = a->env->gpu.banks.warp_size > 0 ? a->env->gpu.banks.warp_size : 32;
        double need = (double)(((long)a->n + warp - 1) / warp), most = 2.0 * need;
        check_field(c->expected, sizeof c->expected, "%.2f (the distinct keys of a warp's 32 "
                    "lanes, from the input), within 10%%; %.0f to %.0f requests (a warp's %d "
                    "keys a request)", model, need, most, warp);
        c->accept_lo = 0.9 * model, c->accept_hi = 1.1 * model;
        int per_ok = req > 0 && fabs(per - model) <= 0.1 * model;
        if (per_ok && (req < need || req > most)) { /* as many addresses, other words */
            check_set(c, CHECK_FAIL, "%.0f constant requests for %d keys: a lookup through "
                      "constant memory makes one a warp's %d keys (%.0f to %.0f)", req, a->n,
                      warp, need, most);
            check_field(c->hint, sizeof c->hint, "%s", req < need
                        ? "Fewer constant requests than the keys need: some keys were served "
                          "from somewhere else. A table copied from c_table into shared memory "
                          "in order (a request for 32 consecutive words) and read there by key "
                          "measures the copy, not the lookup: each lane reads c_table[keys[i]] "
                          "for its own keys, straight from constant memory."
                        : "More constant requests than the keys make: c_table is read more "
                          "than once for each key, or copied whole by every warp. Each lane "
                          "reads c_table[keys[i]] once for each of its keys.");
            return;
        }
        if (served_elsewhere(a, m, why, sizeof why)) {
            check_set(c, CHECK_FAIL, "the keys were not looked up in constant memory: %s", why);
            check_field(c->hint, sizeof c->hint, "%s", served_elsewhere_hint(a));
            return;
        }
        if (per_ok)
            check_set(c, CHECK_PASS, "%.1f distinct addresses a warp request (model %.1f): the "
                      "constant cache serves them one after another", per, model);
        else
            check_set(c, CHECK_FAIL, req > 0 ? "%.1f distinct constant addresses a warp request "
                      "(the keys make %.1f)" : "no constant-memory request (%.0f; the keys "
                      "make %.1f)", per, model);
        if (c->status == CHECK_FAIL)
            check_field(c->hint, sizeof c->hint, "Each lane reads c_table[keys[i]] for its own "
                        "i: measure what that costs before the read-only version.");
        return;
    }
    int asked = a->k->path == MEM_PATH_CONSTANT; /* the stencil's broadcast */
    c->accept_lo = c->accept_hi = 1.0;
    check_field(c->expected, sizeof c->expected, "1 (every lane of a warp reads the same "
                "word: a broadcast)%s", asked ? "" : ", or no constant request");
    if (asked && req <= 0) {
        check_set(c, CHECK_FAIL, "no constant-memory request: nothing to broadcast");
        check_field(c->hint, sizeof c->hint, "Read the coefficients from c_coef, the "
                    "__constant__ array, as the step asks (memory-path says where they came "
                    "from).");
        return;
    }
    if (per <= 1.0) {
        check_set(c, CHECK_PASS, req > 0 ? "every constant request a broadcast (%.0f requests)"
                  : "no constant request (%.0f)", req);
        return;
    }
    check_set(c, CHECK_FAIL, "constant requests serialized: %.2f distinct addresses a warp "
              "request (expected 1)", per);
    check_field(c->hint, sizeof c->hint, a->k->path == MEM_PATH_CONSTANT
                ? "The constant cache serves one address at a time: lanes that read different "
                  "words of c_coef at once wait for each other. Have every lane read "
                  "c_coef[j] for the same j at the same time."
                : "Lanes that read different words of a __constant__ array serialize: this "
                  "step's table goes through the read-only cache (__ldg), which serves a "
                  "warp's different addresses together.");
}

static int stencil_prepare(problem *p, char *why, size_t n)
{
    return big_input(p, 0, 0, why, n);
}

/* Steps 2 and 4: the loads of the data argument counted apart. */
static void stencil_watch(const problem *p, const void **at, size_t *bytes)
{
    const stencil_launch *a = p->state;
    if (a->k->path != MEM_PATH_READONLY)
        return;
    *at = a->data;
    *bytes = (size_t)data_count(a) * sizeof(float);
}

/* The flow run's output: out, buffer 1. */
static void stencil_output(const problem *p, flow_output *out)
{
    *out = (flow_output){1, (size_t)((const stencil_launch *)p->state)->n, NULL, 0, 0};
}

static void stencil_release(problem *p)
{
    release(p->state);
}

static void judge_loads(problem *p, check_id id, const measurement *m, const trace_summary *s,
                        check_result *c)
{
    (void)id;
    const stencil_launch *a = p->state;
    char model[192];
    check_global_loads(c, m, tiled_load_limit(a, model, sizeof model), model, coef_in_global(a)
                       ? "Most of these loads are the coefficients: c_coef is not "
                         "__constant__, so every tap reads it from global memory "
                         "(memory-path says so too). Declare it __constant__ as the "
                         "skeleton does."
                       : "Each input element should be read from global memory "
                         "once per tile: load the tile and its halo (2 RADIUS extra "
                         "elements) into shared memory, __syncthreads(), then read "
                         "every tap from the tile.");
    check_global_repeats(c, s, "A tiled stencil reads each input element from global memory "
                         "once per block: the tile and its halo go into shared memory "
                         "together, and every tap, the halo's too, reads shared memory.");
}

static void launch_copy(void *p)
{
    stencil_launch *a = p;
    cudaMemcpyAsync(a->out, a->in, (size_t)a->n * sizeof(float), cudaMemcpyDeviceToDevice, 0);
}

typedef struct speed_ref {
    stencil_launch *a;
    float *ref;
    float *table; /* the lookup's: the grader's own copy of it, for the reference */
    cudaKernel_t roof; /* the lookup's speed roof, smemlab_grader_lookup_roof */
} speed_ref;

static cudaError_t make_stencil_ref(worker_env *env, void *arg)
{
    speed_ref *r = arg;
    return module_conv(r->a->p->mod, r->a->in, r->a->data, r->ref, r->a->n, 1, taps(env));
}

/* A grid-stride kernel of the grader's (device/grader_kernels.cu) over n elements. */
static cudaError_t launch_own(worker_env *env, const char *name, void **args)
{
    cudaKernel_t k = module_own_kernel(&env->mod, name);
    dim3 grid = {(unsigned)(env->mod.sm_count > 0 ? env->mod.sm_count * 8 : 256), 1, 1};
    dim3 block = {256, 1, 1};
    return k ? cudaLaunchKernel((const void *)k, grid, block, args, 0, 0)
             : cudaErrorInvalidDeviceFunction;
}

/* The lookup's keys of timed run `run`, fresh on the device: no run's output is an
   earlier one's, so a kernel that keeps its answers gains nothing. */
static cudaError_t lookup_keys_of_run(worker_env *env, void *p, int run)
{
    speed_ref *r = p;
    void *keys = r->a->in;
    unsigned long long n = (unsigned long long)r->a->n;
    unsigned long long seed = env->opt->seed * 1000003ull + (unsigned long long)run * 8;
    int table = data_count(r->a);
    void *args[] = {&keys, &n, &seed, &table};
    return launch_own(env, "smemlab_grader_keys", args);
}

static cudaError_t make_lookup_ref(worker_env *env, void *p)
{
    speed_ref *r = p;
    const void *keys = r->a->in;
    unsigned long long n = (unsigned long long)r->a->n;
    void *args[] = {&keys, &r->table, &r->ref, &n};
    return launch_own(env, "smemlab_grader_gather", args);
}

/* The lookup's roof: the grader's own honest lookup (smemlab_grader_lookup_roof, one key a
   thread in blocks of 256, the table through __ldg) on the same keys and table, its output
   unchecked. A gather is not a copy: on an H200 that lookup moves its bytes at 58% of a
   copy's speed, so against a copy the lookup the page suggests would fail there. */
static void launch_lookup_roof(void *arg)
{
    speed_ref *r = arg;
    const void *keys = r->a->in;
    unsigned long long n = (unsigned long long)r->a->n;
    void *args[] = {&keys, &r->table, &r->a->out, &n};
    dim3 grid = {(unsigned)((n + 255) / 256), 1, 1}, block = {256, 1, 1};
    cudaLaunchKernel((const void *)r->roof, grid, block, args, 0, 0); /* its error: the timing's */
}

static void stencil_speed(problem *p, check_result *c)
{
    stencil_launch *a = p->state;
    char why[256];
    speed_ref r = {a, NULL, NULL, NULL};
    if (big_input(p, CALL_SPEED, 1, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "could not prepare the timed input: %s", why);
        p->lost = dev_context_lost();
        release(a);
        return;
    }
    size_t count = (size_t)a->n;
    if (dev_malloc((void **)&r.ref, count * sizeof(float)) != cudaSuccess)
        r.ref = NULL;
    if (is_lookup(a) && r.ref && !(r.table = dev_upload(a->host_data, (size_t)data_count(a),
                                                        why, sizeof why))) {
        dev_free(r.ref);
        r.ref = NULL;
    }
    /* Fresh inputs every run (warm-up too), each run's output checked on the device. */
    timed_work kernel = {problem_launch, p, {(float *)a->in}, {count}, is_lookup(a) ? 0 : 1,
                         a->out, count, r.ref, is_lookup(a) ? make_lookup_ref : make_stencil_ref,
                         &r, is_lookup(a) ? lookup_keys_of_run : NULL};
    timed_work copy = {launch_copy, a, {NULL}, {0}, 0, NULL, 0, NULL, NULL, NULL, NULL};
    /* the lookup's roof gets fresh keys before every run as the kernel does */
    timed_work roof = {launch_lookup_roof, &r, {NULL}, {0}, 0, NULL, 0, NULL, NULL, &r,
                       lookup_keys_of_run};
    speed_words w = {NULL, "a device-to-device copy", "the copy", "GB/s",
                     2.0 * count * sizeof(float) / 1e6, /* read in, write out */
                     "A tiled stencil should stream close to copy speed: coalesced tile loads "
                     "(16 bytes a lane), the coefficients from their cache, and several "
                     "outputs a thread."};
    speed_words lw = {NULL, "the grader's lookup (one key a thread, the table through __ldg)",
                      "the grader's lookup", "GB/s", 2.0 * count * sizeof(float) / 1e6,
                      "A lookup through the read-only cache streams its keys and outputs as "
                      "the grader's plain lookup does: one coalesced key a lane (or four, an "
                      "int4), the table's gathers served by the read-only cache (__ldg or "
                      "const __restrict__), never one distinct address at a time as constant "
                      "memory serves them."};
    if (!r.ref)
        check_set(c, CHECK_FAIL, "could not prepare the timed input: no device memory");
    else if (is_lookup(a) &&
             !(r.roof = module_own_kernel(&a->env->mod, "smemlab_grader_lookup_roof")))
        check_set(c, CHECK_FAIL, "could not prepare the timed input: the grader's lookup "
                  "(smemlab_grader_lookup_roof) is not in its device code: rebuild the grader");
    else
        time_against(p, &kernel, is_lookup(a) ? &roof : &copy, is_lookup(a) ? &lw : &w, c);
    problem_free(p, r.ref);
    problem_free(p, r.table);
    release(a);
}

static void stencil_setup(problem *p)
{
    stencil_launch *a = p->state;
    a->k = p->k;
    a->env = p->env;
    a->p = p;
}

const kind_desc stencil_kind = {
    .name = "stencil", .state_bytes = sizeof(stencil_launch), .setup = stencil_setup,
    .run = stencil_run, .explain_wrong = threads_not_dividing, .passed = stencil_passed,
    .prepare = stencil_prepare, .bind = stencil_bind, .watch = stencil_watch,
    .right = stencil_right, .release = stencil_release, .output = stencil_output, .bounds = 1,
    .judge = {[CHK_GLOBAL_LOADS] = judge_loads, [CHK_SMEM_CONFLICTS] = float_judge_conflicts,
              [CHK_MEMORY_PATH] = judge_path, [CHK_CONST_SERIAL] = judge_const},
    .emulated = 1ul << CHK_MEMORY_PATH | 1ul << CHK_CONST_SERIAL,
    .emulated_sees = "each load's state space",
    .hint = {[CHK_SMEM_CONFLICTS] = "Neighbouring threads should read neighbouring tile "
                                    "elements (tile[o + j] with o the thread's output, varying "
                                    "fastest across the warp)."},
    .speed = stencil_speed,
};
