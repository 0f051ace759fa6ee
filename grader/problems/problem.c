/* problem.c - the driver every problem kind runs through, and what a kind may call;
   see problem.h. */
#define _POSIX_C_SOURCE 200809L
#include "problem.h"

#include "../base/child.h"
#include "../compare/compare.h"
#include "../compare/bounds.h"
#include "../compare/fault.h"
#include "../compare/inputs.h"
#include "../compare/sync.h"
#include "../measure/emulator/emu_device.h"
#include "../image/lib_code.h"
#include "../measure/emulator/lab_decls.h"
#include "../measure/trace/measure_trace.h"
#include "../run/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Each kind's declaration: a new kind is one row. */
static const kind_desc *const kinds[] = {
    [PROBLEM_TILE] = &tile_kind,
    [PROBLEM_MATMUL] = &matmul_kind,
    [PROBLEM_CONV] = &conv_kind,
    [PROBLEM_IDIOM] = &idiom_kind,
    [PROBLEM_REDUCE] = &reduce_kind,
    [PROBLEM_TRANSPOSE] = &transpose_kind,
    [PROBLEM_STENCIL] = &stencil_kind,
};

/* --- what a kind may call ------------------------------------------------------------ */

/* The arrays of the call that the kernel must only read (call_spec.inputs), for the meter
   that records global writes (the emulator's; the trace's patches) to hold them to. */
static void hand_inputs(const problem *p, const call_spec *spec, void *const bufs[])
{
    unsigned long long lo[MEASURE_MAX_INPUTS], hi[MEASURE_MAX_INPUTS];
    dev_array a;
    int n = 0;
    for (int b = 0; b < spec->n_buffers && b < CALL_MAX_BUFFERS && n < MEASURE_MAX_INPUTS; b++)
        if ((spec->inputs >> b & 1u) && bufs[b] && dev_array_at((uintptr_t)bufs[b], &a))
            lo[n] = a.base, hi[n] = a.base + a.bytes, n++;
    measure_inputs(lo, hi, n);
    if (p->env->tracer && p->env->meter == p->env->tracer && !device_is_emulator())
        measure_trace_inputs(p->env->tracer, lo, hi, n); /* (not the twin's arrays) */
}

void problem_launch(void *arg)
{
    const problem *p = arg;
    const call_spec *spec = &p->env->plan->specs[p->call];
    replay r = {p->mod, &p->env->plan->calls[p->call], {NULL}};
    p->kind->bind(p, r.bufs);
    for (int b = 0; b < spec->n_buffers && b < CALL_MAX_BUFFERS; b++) /* what a bound names */
        dev_name(r.bufs[b], spec->buffer_name[b]);
    hand_inputs(p, spec, r.bufs);
    replay_launch(&r);
}

int problem_runs(const problem *p, int i)
{
    return device_runs(p->env->plan->specs[i].devices);
}

int problem_call(const problem *p, int role)
{
    for (int i = 0; i < p->env->plan->n_calls; i++)
        if ((p->env->plan->specs[i].role & role) && problem_runs(p, i))
            return i;
    return -1;
}

int problem_take_call(problem *p, int role, char *why, size_t why_size)
{
    if (role)
        p->call = problem_call(p, role);
    if (p->call >= 0)
        return 0;
    snprintf(why, why_size, "internal: no %s call of the lab table runs on this device",
             role == CALL_SPEED ? "speed" : role == CALL_TRAFFIC ? "traffic" : "chosen");
    return -1;
}

/* A repeat's step from the seed of its call's first run: odd and far from the calls'
   small offsets (2^64 / golden ratio), so no two runs of a kernel share inputs. */
#define FRESH_RUN_STEP 0x9E3779B97F4A7C15ull

unsigned long long problem_seed(const problem *p)
{
    return p->env->opt->seed + (unsigned)p->call + (unsigned long long)p->run * FRESH_RUN_STEP;
}

void problem_free(const problem *p, void *dev)
{
    if (!p->lost && !dev_context_lost())
        dev_free(dev);
}

void problem_drop(const problem *p, void *slot)
{
    void *dev;
    memcpy(&dev, slot, sizeof dev);
    problem_free(p, dev);
    memset(slot, 0, sizeof dev);
}

void worker_emit(worker_env *env, const check_result *c)
{
    env->emit(env, c);
}

void worker_mark(worker_env *env, const char *phase)
{
    struct timespec now;
    if (!env->timings)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (phase)
        fprintf(stderr, "[timing] %s %s: %s %.3f s\n", env->lab->id,
                env->lab->kernels[env->kernel].name, phase,
                (double)(now.tv_sec - env->marked.tv_sec) +
                    (double)(now.tv_nsec - env->marked.tv_nsec) / 1e9);
    env->marked = now;
}

/* How much slower than the slowest plain run an instrumented launch may be before
   it is a hang (the trace calls its code at every shared access and at the global
   loads of the first blocks), and the most it gets in units of --timeout. */
#define INSTRUMENTED_SLOWDOWN 200.0
#define INSTRUMENTED_MAX_FACTOR 6.0

/*
 * What the backend that measured cannot see, in a launched kernel: the hardware
 * counters count device printf's own shared accesses with the kernel's (and those of
 * the barrier of a cooperative group's multi-warp tile, in the reserved region), and
 * neither they nor the trace see the tensor memory accelerator's bulk copies
 * (lab_decls_unmeasured). 1 with why ("not graded: ..." where no GPU backend
 * could measure it: an instrument's limit), else 0.
 */
static int kernel_unseen(const worker_env *env, const char *name, char *why, size_t why_size)
{
    char what[300];
    if (lab_decls_unmeasured(env->decls, name, what, sizeof what)) {
        snprintf(why, why_size, "not graded: the kernel uses %s, whose shared-memory traffic "
                 "neither the trace nor the hardware counters see", what);
        return 1;
    }
    if (!env->meter->last_trace && lab_decls_calls(env->decls, name, "vprintf")) {
        snprintf(why, why_size, "the kernel calls printf, whose own shared accesses the "
                 "hardware counters count with yours; the trace measures yours alone "
                 "(--measure trace, the default where the Compute Sanitizer is installed)");
        return 1;
    }
    if (!env->meter->last_trace && lab_decls_reserved_smem(env->decls, name)) {
        snprintf(why, why_size, "the kernel uses a cooperative group's tile of more than a "
                 "warp, whose barrier lives in the block's reserved shared memory: the "
                 "hardware counters count its accesses with yours, as many as its waits "
                 "spin; the trace measures yours alone (--measure trace, the default where "
                 "the Compute Sanitizer is installed)");
        return 1;
    }
    return 0;
}

/* Every call's launches: a lab's first call may launch nothing (lab 7's n = 0, whose
   launcher returns at once: the H200 graded lab7-cg-tile64 under the counters as if its
   kernel had no reserved accesses while only calls[0] was looked at). */
static int meter_cannot_see(const worker_env *env, char *why, size_t why_size)
{
    for (int c = 0; env->decls && c < env->plan->n_calls; c++) {
        const call_plan *p = &env->plan->calls[c];
        for (int i = 0; i < p->n_launches; i++)
            if (kernel_unseen(env, env->img->kernels[p->launches[i].kernel].name, why, why_size))
                return 1;
    }
    return 0;
}

/*
 * A meter that may launch the kernel more than once (measure_backend.relaunches: the
 * counters, twice; the trace, again with a bigger buffer) gets, before each launch after
 * the first, every array as the first launch found it: a kernel that stores into its input
 * or adds into its output does the same work on the same bytes each time, and leaves the
 * output one launch leaves.
 */
typedef struct relaunch {
    void (*launch)(void *);
    void *arg;
    int calls;
    cudaError_t err;
} relaunch;

static void launch_as_first(void *arg)
{
    relaunch *r = arg;
    if (r->calls++ > 0 && r->err == cudaSuccess)
        r->err = dev_restore();
    r->launch(r->arg);
}

measure_status meter_measure(measure_backend *meter, void (*launch)(void *), void *arg,
                             measurement *out, char *why, size_t why_size)
{
    if (!meter->relaunches)
        return meter->measure(meter, launch, arg, out, why, why_size);
    relaunch r = {launch, arg, 0, dev_keep()};
    measure_status st = r.err == cudaSuccess
                            ? meter->measure(meter, launch_as_first, &r, out, why, why_size)
                            : MEASURE_ERROR;
    dev_forget();
    if (r.err != cudaSuccess) {
        snprintf(why, why_size, "the arrays could not be kept, or put back, for the meter's "
                 "second launch: %s", dev_error_name(r.err));
        st = MEASURE_ERROR;
    }
    return st;
}

measure_status worker_measure(worker_env *env, void (*launch)(void *), void *arg,
                              measurement *out, char *why, size_t why_size)
{
    measure_clear(out);
    /* the patched copy is the trace's alone */
    env->mod.measuring = env->meter == env->tracer && env->mod.n_measured_libs > 0;
    /* A measured run that hangs is a timeout like any other. An instrumented one
       runs slower than the plain runs before it (each access calls the trace's
       code): its limit is scaled from the slowest of them, so a slow GPU does not
       fail a right kernel, and bounded, so a hang still ends. A kernel that hangs
       hangs in its plain runs first, at the usual limit. */
    double limit = gpu_watchdog_seconds();
    if (env->mod.measuring) {
        double scaled = INSTRUMENTED_SLOWDOWN * gpu_slowest_run();
        limit = scaled > limit ? scaled : limit;
        limit = limit < INSTRUMENTED_MAX_FACTOR * gpu_watchdog_seconds()
                    ? limit : INSTRUMENTED_MAX_FACTOR * gpu_watchdog_seconds();
    }
    /* SMEMLAB_TIMINGS: the same launch plain first, to set the measured one beside */
    double plain = -1, t0;
    char plain_why[64];
    int lost = 0;
    if (env->timings && env->mod.measuring) {
        env->mod.measuring = 0;
        t0 = child_now();
        plain = gpu_run(launch, arg, &lost, plain_why, sizeof plain_why) == 0 ? child_now() - t0 : -1;
        env->mod.measuring = 1;
    }
    if (env->tracer && env->meter == env->tracer) { /* every array's guard zones, watched */
        unsigned long long lo[TRACE_ZONES], hi[TRACE_ZONES];
        measure_trace_zones(env->tracer, lo, hi, dev_guard_zones(lo, hi, TRACE_ZONES));
    }
    t0 = child_now();
    gpu_watchdog_arm_for(limit);
    measure_status st = meter_measure(env->meter, launch, arg, out, why, why_size);
    gpu_watchdog_disarm();
    if (st == MEASURE_OK && device_meters_blind() && meter_cannot_see(env, why, why_size))
        st = MEASURE_UNSUPPORTED;
    if (plain > 0)
        fprintf(stderr, "[timing] %s %s: measured launch %.3f s, the plain launch %.6f s (%.0fx)\n",
                env->lab->id, env->lab->kernels[env->kernel].name, child_now() - t0, plain,
                (child_now() - t0) / plain);
    env->mod.measuring = 0;
    return st;
}

const trace_summary *worker_trace(worker_env *env, char *why, size_t why_size)
{
    const trace_summary *s = env->tracer ? env->tracer->last_trace(env->tracer, NULL) : NULL;
    if (!s)
        snprintf(why, why_size, "%s", env->tracer ? "the trace recorded nothing" : env->tracer_why);
    return s;
}

void worker_judge_races(worker_env *env, check_result *c, measure_status st, const char *why)
{
    char trace_why[256] = "";
    const trace_summary *trace = NULL;
    int ran = st == MEASURE_OK || st == MEASURE_WRONG_RESULT;
    if (ran)
        trace = worker_trace(env, trace_why, sizeof trace_why);
    if (!ran && env->tracer) /* the launch is what is missing, not the trace */
        compare_not_measured(c, st, why);
    else
        compare_races(c, trace, trace_why[0] ? trace_why : env->tracer ? why : env->tracer_why);
}

/* The kernel a launch of the call runs, and its shared bytes: static (PTX) and given. */
static int launch_shared(const worker_env *env, const plan_launch *l, uint32_t *static_bytes,
                         int *dynamic)
{
    const char *name = env->img->kernels[l->kernel].name;
    return env->decls ? lab_decls_shared(env->decls, name, static_bytes, dynamic) : -1;
}

static void judge_dynamic_launch(worker_env *env, const plan_launch *l, uint32_t need,
                                 check_result *c);

/* Every launch of the call holds its tile so: a launch that does nothing with a dynamic
   tile, beside one whose static tile does the work, does not earn the step (labs 1-4 let
   a call make two launches). The first launch that does not is the verdict, named. */
void worker_judge_dynamic(worker_env *env, const call_plan *call, uint32_t need,
                          check_result *c)
{
    check_field(c->expected, sizeof c->expected, "no static __shared__ bytes; an extern "
                "__shared__ tile of at least %u bytes given at launch", need);
    if (call->n_launches == 0) {
        check_set(c, CHECK_FAIL, "no kernel was launched");
        return;
    }
    int n = call->n_launches < PLAN_MAX_LAUNCHES ? call->n_launches : PLAN_MAX_LAUNCHES;
    for (int i = 0; i < n; i++) {
        judge_dynamic_launch(env, &call->launches[i], need, c);
        if (c->status != CHECK_PASS) {
            if (n > 1) {
                char was[sizeof c->message], name[96];
                snprintf(was, sizeof was, "%s", c->message);
                lib_code_readable(env->img->kernels[call->launches[i].kernel].name, name,
                                  sizeof name);
                check_set(c, c->status, "launch %d of %d (%s): %.200s", i + 1, n, name, was);
            }
            return;
        }
    }
}

static void judge_dynamic_launch(worker_env *env, const plan_launch *l, uint32_t need,
                                 check_result *c)
{
    uint32_t st = 0;
    int dyn = 0;
    if (launch_shared(env, l, &st, &dyn) != 0) {
        check_set(c, CHECK_NOT_MEASURED, "not measured: %s", env->decls ? "the kernel is not "
                  "in the lab's PTX" : env->decls_why);
        return;
    }
    check_field(c->measured, sizeof c->measured, "%u static __shared__ bytes; %u bytes given at "
                "launch", st, l->shared_bytes);
    /* the hint says what this kernel and its launch did, and only what is missing */
    if (st > 0) {
        check_set(c, CHECK_FAIL, "the tile is static: the kernel declares %u bytes of "
                  "__shared__ memory", st);
        check_field(c->hint, sizeof c->hint, "Your kernel declares %u bytes of shared memory "
                    "with a fixed size%s. The exercise's tile is dynamic: `extern __shared__ int "
                    "tile[];` with no size, and its %u bytes given as the third launch argument: "
                    "kernel<<<grid, block, bytes>>>(out).", st, dyn ? " beside its extern array"
                    : "", need);
    } else if (!dyn) {
        check_set(c, CHECK_FAIL, "the kernel takes no dynamic shared memory (no extern "
                  "__shared__ array)");
        check_field(c->hint, sizeof c->hint, "Your kernel declares no shared array at all. The "
                    "exercise's tile is `extern __shared__ int tile[];`, sized at launch: "
                    "kernel<<<grid, block, %u>>>(out).", need);
    } else if (l->shared_bytes < need) {
        check_set(c, CHECK_FAIL, "the launch gives %u bytes of dynamic shared memory; the tile "
                  "needs %u", l->shared_bytes, need);
        check_field(c->hint, sizeof c->hint, "The tile is already declared `extern __shared__`: "
                    "what is missing is its size at launch. Your launch gives %u bytes%s; the "
                    "exercise's accesses reach %u bytes into the tile: give its rows, padding "
                    "included, times BDIMY times sizeof(int) as the third launch argument, "
                    "kernel<<<grid, block, bytes>>>(out).", l->shared_bytes,
                    l->shared_bytes ? "" : " (no third launch argument)", need);
    } else {
        check_set(c, CHECK_PASS, "a dynamic tile: %u bytes given at launch, no static __shared__",
                  l->shared_bytes);
    }
}

/* The shared memory of a launch: its end (static bytes, and the dynamic area after
   them where the launch gives one), and its arrays, named as the source names them. */
typedef struct shared_map {
    uint64_t end;
    lab_shared_var vars[16];
    int n_vars;
    uint32_t dynamic_bytes; /* the bytes the launch gives its extern arrays */
} shared_map;

/* 0, or -1 where the PTX does not say. */
static int launch_map(const worker_env *env, const plan_launch *l, shared_map *out)
{
    uint32_t st = 0;
    int dyn = 0;
    memset(out, 0, sizeof *out);
    if (launch_shared(env, l, &st, &dyn) != 0)
        return -1; /* nothing to hold the accesses to */
    int n = lab_decls_shared_vars(env->decls, env->img->kernels[l->kernel].name, out->vars, 16);
    out->n_vars = n < 0 ? 0 : n > 16 ? 16 : n;
    out->dynamic_bytes = l->shared_bytes;
    /* The dynamic area starts past the static bytes, aligned: allow the widest. A
       launch without one ends with its static arrays: one array ends where it ends
       (16-byte rounded, as an allocation is); between several, ptxas may lay them
       out otherwise than the PTX's order: allow the widest alignment there too. */
    out->end = l->shared_bytes || out->n_vars > 1
                   ? ((uint64_t)st + 127) / 128 * 128 + l->shared_bytes
                   : ((uint64_t)st + 15) / 16 * 16;
    return 0;
}

/* The launch of call with the most shared memory: what an access the trace could not
   give a launch (past TRACE_EXTENT_LAUNCHES) is held to. 0, or -1 as launch_map. */
static int shared_map_of(const worker_env *env, const call_plan *call, shared_map *out)
{
    shared_map m;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < call->n_launches; i++) {
        if (launch_map(env, &call->launches[i], &m) != 0)
            return -1;
        if (m.end >= out->end)
            *out = m;
    }
    return 0;
}

/* The array an access reaching byte end (past every array) overran: the last one the
   block has, which f names with its size; several arrays are named as the block's
   shared memory, the last of them said. */
static void shared_array_of(const shared_map *m, uint64_t end, fault_place *f, char *note,
                            size_t note_size)
{
    const lab_shared_var *last = m->n_vars ? &m->vars[m->n_vars - 1] : NULL;
    f->reached = (long long)end;
    f->bytes = (long long)m->end;
    f->kind = "the block's shared memory";
    f->array = "shared memory";
    if (!last)
        return;
    uint64_t last_bytes = last->dynamic ? m->dynamic_bytes : last->size;
    if (m->n_vars == 1) {
        f->array = last->name;
        f->reached = (long long)(end - last->offset);
        f->bytes = (long long)last_bytes;
        f->kind = last->dynamic ? "an extern __shared__ array" : "a shared array";
    } else {
        snprintf(note, note_size, "the block's last shared array is %s, %llu bytes from "
                 "byte %llu", last->name, (unsigned long long)last_bytes,
                 (unsigned long long)last->offset);
        f->note = note;
    }
    if (last->dynamic && m->dynamic_bytes == 0 && m->n_vars == 1) {
        f->bytes = -1; /* said by the note */
        f->note = "the launch gives it 0 bytes (no third launch argument)";
    }
}

/* Whether m's last array is an extern __shared__ one (the bytes the launch gives). */
static int ends_dynamic(const shared_map *m)
{
    return m->n_vars > 0 && m->vars[m->n_vars - 1].dynamic;
}

/* The hint of an access past m's end into f's array; own: what the launch had, where
   the call made several launches (or ""). */
static void overrun_hint(check_result *correct, const shared_map *m, const fault_place *f,
                         const char *own)
{
    int dynamic = ends_dynamic(m);
    check_field(correct->hint, sizeof correct->hint, "A thread reaches past the end of %s%s: "
                "an index past the array, or a pitch it was not declared with%s. A GPU does "
                "not always fault on it, so the output can come out right: the bytes past the "
                "end belong to nothing, or to another block.%s",
                !strcmp(f->array, "shared memory") ? "the block's shared memory" : f->array,
                m->n_vars == 1 ? "" : " (its __shared__ arrays and the bytes the launch gives)",
                dynamic ? ", or a launch that gives fewer bytes than it needs" : "", own);
}

/* Correct failed for the access that reached e's end past m's: named by its line and
   array, and by its launch (launch, from 1; 0: none) where the call made several. */
static void word_overrun(worker_env *env, const call_plan *call, int launch,
                         const shared_map *m, const trace_summary *s, const trace_extent *e,
                         check_result *correct)
{
    char text[sizeof correct->message], note[160], name[96], at[160] = "", own[160] = "";
    const trace_site *site = trace_find_site(s, e->pc);
    fault_place f = {.op = trace_op_name(e->op), .lane = -1};
    if (site && site->file)
        f.file = site->file, f.line = site->line;
    shared_array_of(m, e->end, &f, note, sizeof note);
    fault_text(&f, text, sizeof text);
    if (launch > 0 && call->n_launches > 1) {
        lib_code_readable(env->img->kernels[call->launches[launch - 1].kernel].name, name,
                          sizeof name);
        snprintf(at, sizeof at, "launch %d of %d (%s): ", launch, call->n_launches, name);
        char given[64] = ""; /* what the launch gave, not the grader's rounded allowance */
        if (ends_dynamic(m))
            snprintf(given, sizeof given, " (launch %d gives %u bytes)", launch, m->dynamic_bytes);
        snprintf(own, sizeof own, " Each launch has only its own shared memory%s, whatever "
                 "another launch of the call is given.", given);
    }
    if (!site || !site->file) /* no line: the instruction */
        check_set(correct, CHECK_FAIL, "%spc 0x%llx: %s", at, (unsigned long long)e->pc, text);
    else
        check_set(correct, CHECK_FAIL, "%s%s", at, text);
    overrun_hint(correct, m, &f, own);
}

/* Every launch a plan holds has its own extent in the analyzer (trace_summary.launch_extent,
   the launch index a record's block carries). */
_Static_assert(PLAN_MAX_LAUNCHES <= TRACE_EXTENT_LAUNCHES, "a launch with no extent of its own");

/* Each launch of the call is held to its own shared memory: a launch given too few
   bytes is not covered by a later one given enough (on a GPU the first faults, or
   overruns into what is not its own). What the trace could not give one of the plan's
   launches is held to the call's largest, as a whole. */
int worker_judge_bounds(worker_env *env, const call_plan *call, const trace_summary *s,
                        check_result *correct)
{
    shared_map m;
    if (!s || s->extent.end == 0)
        return 0;
    for (int i = 0; i < call->n_launches && i < TRACE_EXTENT_LAUNCHES; i++) {
        const trace_extent *e = &s->launch_extent[i];
        if (e->end == 0)
            continue;
        if (launch_map(env, &call->launches[i], &m) != 0)
            return 0;
        if (e->end > m.end) {
            word_overrun(env, call, i + 1, &m, s, e, correct);
            return 1;
        }
    }
    if (shared_map_of(env, call, &m) != 0 || s->extent.end <= m.end)
        return 0;
    word_overrun(env, call, 0, &m, s, &s->extent, correct);
    return 1;
}

/* --- the driver: 1. the kernel's checks ------------------------------------------------ */

/* The kind's checks, each initialised, listed where the table gives the kernel points. */
static void init_checks(problem *p)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    const check_id *ids;
    const lab_def *lab = p->env->lab;
    int n = kind_checks(lab->kind, &ids), m = kernel_checks(lab, p->k, checks);
    for (int i = 0; i < n; i++)
        check_init(&p->c[ids[i]], lab->id, p->k->name, check_name(ids[i]), 0);
    for (int j = 0; j < m; j++) {
        p->c[checks[j].id].max_points = checks[j].points;
        p->listed[checks[j].id] = 1;
    }
}

/* Send check id now (once), so that a crash later cannot take it back. */
static void emit(problem *p, check_id id)
{
    if (p->sent[id])
        return;
    if (p->listed[id])
        worker_emit(p->env, &p->c[id]);
    p->sent[id] = 1;
}

/* Every check of the kind not sent yet, speed (timed last) only where `speed`. */
static void emit_all(problem *p, int speed)
{
    const check_id *ids;
    int n = kind_checks(p->env->lab->kind, &ids);
    for (int i = 0; i < n; i++)
        if (speed || ids[i] != CHK_SPEED)
            emit(p, ids[i]);
}

/* The checks the measured run judges: those with a judge, and the race. */
static int judged_by_measure(const problem *p, check_id id)
{
    return p->kind->judge[id] != NULL || id == CHK_RACE;
}

/* --- 2, 3. the dynamic tile and the launches' shapes ---------------------------------- */

/* dynamic-tile on the first call that launched something. */
static void judge_dynamic(problem *p)
{
    const kernel_plan *plan = p->env->plan;
    check_result *c = &p->c[CHK_DYNAMIC_TILE];
    uint32_t need = p->kind->tile_bytes(p);
    int i = 0;
    while (i < plan->n_calls && plan->calls[i].n_launches == 0)
        i++;
    worker_judge_dynamic(p->env, &plan->calls[i < plan->n_calls ? i : 0], need, c);
    if (c->status == CHECK_FAIL && p->kind->dynamic_hint) /* the message says what it did */
        p->kind->dynamic_hint(p, need, c);
}

/* A launch breaks the contract (correct says how): nothing else runs. */
static void contract_broken(problem *p)
{
    const check_id *ids;
    int n = kind_checks(p->env->lab->kind, &ids);
    for (int i = 0; i < n; i++)
        if (ids[i] != CHK_CORRECT && ids[i] != CHK_DYNAMIC_TILE)
            check_set(&p->c[ids[i]], CHECK_FAIL, "not run: the launch breaks the contract (see "
                      "correct)");
    emit_all(p, 1);
}

/* --- 4. correct ----------------------------------------------------------------------- */

/*
 * A size came out right in one order of its blocks and warps and wrong in the other (runs
 * says which, and which run): its output depends on which of them runs first, which a GPU
 * does not promise. The kind's words on what is wrong stand, after the rule.
 */
static void wrong_in_other_order(const char *runs, check_result *c)
{
    char was[sizeof c->message];
    snprintf(was, sizeof was, "%s", c->message);
    check_set(c, CHECK_FAIL, "unreliable: your output depends on the order blocks or "
              "warps run (%s): %.150s", runs, was);
    check_field(c->hint, sizeof c->hint, "A GPU runs a grid's blocks, and a block's "
                "warps, in any order and at once (CUDA Programming Guide: blocks must be "
                "independent). Run first to last and last to first, your kernel gave two "
                "outputs: one warp or block writes a word others read or add to. In a "
                "block: thread 0 zeroing the block's sum while the other warps atomicAdd "
                "into it needs a __syncthreads() between. Across blocks: a grid-wide total "
                "block 0 zeroes while the others add, a flag from one block to another, have "
                "no order at all; give each block its own output word "
                "(docs/troubleshooting.md#order).");
}

/* The same found on a first run wrong in order: the kind's hint on that run, where it
   has one, says what went wrong in the order a student reads the code in, and stays. */
static void wrong_in_this_order(int repeats, check_result *c)
{
    char runs[96], hint[sizeof c->hint];
    snprintf(runs, sizeof runs, "run 1 of %d, in order; both last to first: right", repeats);
    snprintf(hint, sizeof hint, "%s", c->hint);
    wrong_in_other_order(runs, c);
    static const char decides[] = " (Last to first it came out right: the order decides, "
                                  "docs/troubleshooting.md#order.)";
    if (hint[0])
        check_field(c->hint, sizeof c->hint, "%.*s%s", (int)(sizeof c->hint - sizeof decides),
                    hint, decides);
}

/* A float output whose every element is within its own limit and whose whole is not
   (reference/tolerance.c's "all N elements match (limit ...); ... overall rel err"): no
   index is wrong, the arithmetic is narrower than float's. */
static int within_each_limit(const check_result *c)
{
    return strstr(c->message, " elements match (limit ") && strstr(c->message, "overall rel err");
}

static void narrow_arithmetic(check_result *c)
{
    check_field(c->hint, sizeof c->hint, "Every element is within its own limit, and the "
                "overall error is past its tighter one (above), which float arithmetic keeps "
                "well under: no index is wrong, the arithmetic is narrower than float's. "
                "Somewhere your kernel holds or adds the values in a narrower type (__half or "
                "__nv_bfloat16 tiles, a conversion in the sum, tensor cores' TF32): keep the "
                "tiles and the running sum in float, as the inputs and the output are.");
}

/* A first run wrong in order, where the device decides the order: the same run once
   more, blocks and warps last to first; 1 when that one is right (the output depends on
   the order, as run 3 finds the other way round), c keeping the first run's words. */
static int right_in_other_order(problem *p, check_result *c)
{
    check_result in_order = *c;
    if (!dev_order(1))
        return 0;
    run_outcome again = p->kind->run(p, c);
    dev_order(0);
    *c = in_order;
    return again == RUN_RIGHT;
}

/*
 * A size right on its first run came out wrong on a later one: the kernel's output
 * depends on what an earlier launch left (a result kept from it, or a race whose
 * luck changed), not on this run's inputs alone. The kind's words on what is wrong
 * stand, with which run it was; the hint says why a size is run more than once.
 */
static void wrong_on_repeat(problem *p, int repeats, check_result *c)
{
    char was[sizeof c->message];
    const char *fresh = p->kind->no_inputs ? "" : " on fresh inputs";
    snprintf(was, sizeof was, "%s", c->message);
    check_set(c, CHECK_FAIL, "%.190s (run %d of %d%s; run 1 was right)", was, p->run + 1,
              repeats, fresh);
    check_field(c->hint, sizeof c->hint, "This size came out right on its first run and wrong "
                "on run %d%s: your kernel's output depends on what an earlier launch left "
                "behind. A result kept in a __device__ or static variable (for the same n, "
                "say) and handed back later is not this run's work; a race whose luck changed "
                "between runs does the same (the race check names it where the trace sees "
                "it). Each run must compute its output from its own inputs.", p->run + 1,
                p->kind->no_inputs ? "" : ", whose inputs were new");
}

/*
 * A run that faulted where the device located the access (the emulator: dev_last_fault):
 * correct says it in the one wording of a fault (compare/fault.h), the faulting line
 * first, the call after it, and the argument the address lies past, in place of the
 * device's error text; the hint says what to guard. A GPU's fault keeps its words.
 */
static void worded_fault(problem *p, check_result *c)
{
    const device_fault *d = dev_last_fault();
    const call_spec *spec = &p->env->plan->specs[p->call];
    if (!d || c->status != CHECK_FAIL || strncmp(c->message, "CUDA error", 10) != 0)
        return;
    char name[32], text[sizeof c->message];
    const char *buffer = NULL;
    if (d->buffer >= 0 && d->buffer < CALL_MAX_BUFFERS) {
        buffer = spec->buffer_name[d->buffer];
        if (!buffer[0]) {
            snprintf(name, sizeof name, "buffer %d", d->buffer);
            buffer = name;
        }
    }
    fault_place f = {.op = d->op, .file = d->file, .line = d->line, .lane = d->lane,
                     .warp = d->warp, .have_block = 1, .bytes = -1};
    memcpy(f.block, d->block, sizeof f.block);
    if (d->call_file)
        f.call_file[0] = d->call_file, f.call_line[0] = d->call_line, f.n_calls = 1;
    if (buffer)
        f.array = buffer, f.kind = "an argument", f.reached = d->reached, f.bytes = d->bytes,
        f.width = d->width;
    else
        f.space = d->space, f.address = d->address;
    fault_text(&f, text, sizeof text);
    check_set(c, CHECK_FAIL, "CUDA error at %.60s: an illegal memory access at %s",
              spec->label, text);
    if (buffer)
        check_field(c->hint, sizeof c->hint, "The %s reaches past the end of %s, which holds "
                    "%lld bytes at this size: guard every access against the array's own size "
                    "(at a size that is no multiple of a block's, a block's threads, or a "
                    "thread's elements, reach past it), and index it with its own pitch.",
                    d->op, buffer, d->bytes);
}

/* Run r of a size: the third runs its blocks and warps last to first where the device
   decides their order (the emulator; a GPU's is its own): 1 when it does. The second,
   in order on fresh inputs, tells a result kept from an earlier launch (wrong_on_repeat)
   from an output that depends on the order. */
#define REVERSED_RUN 2
static int order_of_run(int r)
{
    return dev_order(r == REVERSED_RUN) && r == REVERSED_RUN;
}

/* Run r of repeats came out wrong (reversed: its blocks and warps ran last to first):
   what made it so, in c. Another order right makes it the order's (the counts still its
   work, as with a race); a later run of a size right at first, a result kept from an
   earlier launch; else the arithmetic, or the kind's own probe. */
static void why_wrong(problem *p, int r, int repeats, int reversed, check_result *c)
{
    if (reversed) {
        char runs[96];
        snprintf(runs, sizeof runs, "run %d of %d, both last to first; in order: right", r + 1,
                 repeats);
        wrong_in_other_order(runs, c);
        p->order_failed = p->luck = 1;
    } else if (r == 0 && right_in_other_order(p, c)) {
        wrong_in_this_order(repeats, c);
        p->order_failed = p->luck = 1;
    } else if (r > 0) {
        wrong_on_repeat(p, repeats, c);
        p->kept_state = r + 1;
    } else if (within_each_limit(c)) {
        narrow_arithmetic(c);
    } else if (p->kind->explain_wrong) {
        p->kind->explain_wrong(p, c);
    }
}

/* Every size this device runs, each --repeats times on fresh inputs: the first run
   that is not right decides. */
static run_outcome grade_correct_runs(problem *p);
static run_outcome grade_correct(problem *p)
{
    run_outcome out = grade_correct_runs(p);
    dev_order(0); /* the measured run and the rest in order */
    p->runs_right = out == RUN_RIGHT;
    return out;
}

static run_outcome grade_correct_runs(problem *p)
{
    const kernel_plan *plan = p->env->plan;
    check_result *c = &p->c[CHK_CORRECT];
    int runs = 0, last = -1, repeats = p->env->opt->repeats > 0 ? p->env->opt->repeats : 1;
    for (int i = 0; i < plan->n_calls; i++) {
        if (!(plan->specs[i].role & CALL_CORRECT) || !problem_runs(p, i))
            continue;
        for (int r = 0; r < repeats; r++) {
            p->call = i, p->run = r;
            int reversed = order_of_run(r);
            run_outcome out = p->kind->run(p, c);
            if (out == RUN_FAILED || out == RUN_LOST)
                worded_fault(p, c);
            if (out == RUN_WRONG)
                why_wrong(p, r, repeats, reversed, c);
            if (out != RUN_RIGHT)
                return out;
        }
        runs++;
        last = i;
    }
    p->run = 0;
    if (runs == 0) { /* cannot happen with the kit's tables: never a silent pass */
        check_set(c, CHECK_FAIL, "no size was run: the lab table lists none for this device");
        return RUN_FAILED;
    }
    char each[64] = "";
    if (repeats > 1 && !p->kind->no_inputs)
        snprintf(each, sizeof each, ", each %d times on fresh inputs", repeats);
    if (p->kind->passed)
        p->kind->passed(p, runs, last, each, c);
    return RUN_RIGHT;
}

/* The checks the measured run judges, of a kernel that did not run: not graded like
   correct where correct was not graded (an instrument's limit), else failed "not run". */
static void checks_not_run(problem *p)
{
    const check_result *correct = &p->c[CHK_CORRECT];
    for (int id = CHK_NONE + 1; id < CHECK_IDS; id++) {
        check_result *c = &p->c[id];
        if (!p->listed[id] || !judged_by_measure(p, (check_id)id))
            continue;
        if (p->lost)
            check_set(c, CHECK_FAIL, "not run: the kernel broke the CUDA context");
        else if (correct->status == CHECK_NOT_GRADED)
            check_not_graded_like(c, correct);
        else
            check_set(c, CHECK_FAIL, "not run: the kernel did not run");
    }
}

/* --- 5. the measured run ---------------------------------------------------------------- */

/* The kind's launch under meter (or the worker's), its watched range counted apart. */
static measure_status measure_launch(problem *p, measure_backend *meter, measurement *m,
                                     char *why, size_t why_size)
{
    const void *at = NULL;
    size_t bytes = 0;
    if (p->kind->watch)
        p->kind->watch(p, &at, &bytes);
    measure_watch_range(at, bytes);
    measure_status st = meter ? meter_measure(meter, problem_launch, p, m, why, why_size)
                              : worker_measure(p->env, problem_launch, p, m, why, why_size);
    measure_watch_range(NULL, 0);
    return st;
}

/*
 * The race check of the measured run: a race the trace proves fails correct with
 * it (compare_race_spoils_correct), and a run whose wrong output was that race's
 * luck still has its counts judged. Returns the status the count checks go on with.
 */
static measure_status race_rule(problem *p, measure_status st, const char *why,
                                const trace_summary *s)
{
    if (!p->listed[CHK_RACE])
        return st;
    worker_judge_races(p->env, &p->c[CHK_RACE], st, why);
    if (!s || s->n_races == 0)
        return st;
    compare_race_spoils_correct(&p->c[CHK_CORRECT], s);
    p->luck = 1;
    return st == MEASURE_WRONG_RESULT ? MEASURE_OK : st;
}

/*
 * Synchronisation (docs/emulator.md#sync): a barrier not every thread reached, or a
 * warp primitive whose mask names lanes not there, in the launches the trace s
 * summarises (the emulator's: its meter keeps those of the kernel's correctness runs
 * too) fails correct naming it, and race where it is a barrier's. As with a proven
 * race, the output is then luck, and the counts are judged whatever it was.
 */
static measure_status sync_rule(problem *p, measure_status st, const trace_summary *s)
{
    check_result *race = p->listed[CHK_RACE] ? &p->c[CHK_RACE] : NULL;
    if (!compare_sync(&p->c[CHK_CORRECT], race, s))
        return st;
    p->sync_failed = 1;
    return st == MEASURE_WRONG_RESULT ? MEASURE_OK : st;
}

/*
 * Where the measured run's output is luck, the counts are judged whatever it was, as with
 * a proven race, on every backend alike: an access out of its array (past the block's
 * shared memory, or into a guard zone: it reads whatever lies there, another block's data
 * on a GPU, the scrub pattern emulated), an output that depends on the order blocks and
 * warps run (the correct phase found one order right, the other wrong), a kernel that
 * wrote an input or read through the read-only cache words it wrote (what other blocks
 * read there is whatever landed first; an H200 ran lab7-gmem-ldg's measured run wrong,
 * the emulator right). Correct has failed naming each.
 */
static measure_status luck_rule(problem *p, measure_status st, int luck)
{
    if (!luck)
        return st;
    p->luck = 1;
    return st == MEASURE_WRONG_RESULT ? MEASURE_OK : st;
}

/* An access the trace's patches found by its address alone gets its array from the device
   (dev_array_at), asked while the array lives. */
static void name_by_device(trace_oob *o)
{
    dev_array a;
    if (!o->base && dev_array_at(o->addr, &a)) {
        o->base = a.base, o->bytes = a.bytes;
        snprintf(o->array, sizeof o->array, "%s", a.name);
    }
}

void worker_judge_oob(problem *p, const trace_summary *s)
{
    trace_summary one;
    if (!s || s->oob_count <= 0 || p->oob_failed) /* the first access found stands */
        return;
    memset(&one, 0, sizeof one);
    one.oob = s->oob, one.oob_count = s->oob_count;
    name_by_device(&one.oob);
    p->oob_failed = compare_oob(&p->c[CHK_CORRECT], &one);
}

void worker_judge_inputs(problem *p, const trace_summary *s)
{
    trace_summary one;
    if (!s || p->inputs_failed || p->oob_failed ||
        (s->input_write_count <= 0 && s->nc_written_count <= 0))
        return;
    memset(&one, 0, sizeof one);
    one.input_write_count = s->input_write_count, one.input_write = s->input_write;
    one.nc_written_count = s->nc_written_count;
    one.nc_load = s->nc_load, one.nc_write = s->nc_write;
    name_by_device(&one.input_write);
    name_by_device(&one.nc_load);
    name_by_device(&one.nc_write);
    p->inputs_failed = compare_input_written(&p->c[CHK_CORRECT], &one) ||
                       compare_nc_written(&p->c[CHK_CORRECT], &one);
}

/*
 * A kernel whose output depended on an earlier launch (a size right on its first run and
 * wrong on a later one: a result kept across launches) earns nothing from its counts:
 * what its measured run did depends on which launches came before it, and those differ
 * from backend to backend; no run's counts are its own work. Races and synchronisation
 * errors, whose luck a re-run also changes, keep their own rule (race_rule, sync_rule,
 * the twin's: p->luck); a race an emulated grade finds only in its edge run, after the
 * counts are judged, does not (a kernel that keeps results and races only there).
 */
static void kept_state_rule(problem *p, measure_status *st, char *why, size_t why_size)
{
    if (!p->kept_state || (*st != MEASURE_OK && *st != MEASURE_WRONG_RESULT) || p->luck ||
        p->sync_failed)
        return;
    snprintf(why, why_size, "your kernel's output depends on what an earlier launch left (a "
             "size right on its first run came out wrong on run %d): no run's counts are its "
             "own work", p->kept_state);
    *st = MEASURE_WRONG_RESULT;
}

/* Whether the meter is the emulator, which sees what the kind's emulated checks need
   and judges synchronisation; else the emulated twin does (SMEMLAB_TWIN=1: an emulated
   grade judges as a GPU backend does, for the twin's tests). */
static int meter_emulates(const worker_env *env)
{
    return env->meter && strcmp(env->meter->name, "emulator") == 0 && !env->twin_test;
}

/* Each listed check the measured run judges, by its judge; the emulated ones only
   where `emulated` (the meter is the emulator). */
static void judge_counts(problem *p, measurement *m, const trace_summary *s, int emulated)
{
    const kind_desc *kind = p->kind;
    if (kind->measured)
        kind->measured(p, m, s);
    for (int id = CHK_NONE + 1; id < CHECK_IDS; id++)
        if (p->listed[id] && kind->judge[id] && (emulated || !(kind->emulated >> id & 1ul)))
            kind->judge[id](p, (check_id)id, m, s, &p->c[id]);
    /* The checks that count global memory whole name their sites: the page marks them. */
    static const check_id whole[] = {CHK_GLOBAL_LOADS, CHK_GLOBAL_TRAFFIC, CHK_MEMORY_PATH};
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++)
        if (p->listed[whole[i]])
            compare_global_sites(&p->c[whole[i]], s, whole[i] == CHK_GLOBAL_TRAFFIC);
}

static problem *emulated_twin(problem *p, char *why, size_t why_size);
static void twin_join(problem *p, const problem *t, const char *why, measure_status *st);
static void edge_run(problem *p);

static void measured_run(problem *p)
{
    worker_env *env = p->env;
    const kind_desc *kind = p->kind;
    measurement m;
    char why[256], twin_why[256] = "";
    problem *twin = NULL;
    int twinned = !meter_emulates(env) && env->meter_status == MEASURE_OK && !env->twin_off;
    if (twinned) { /* first: a problem of its own, it leaves the GPU's run nothing */
        twin = emulated_twin(p, twin_why, sizeof twin_why);
        worker_mark(env, "twin"); /* SMEMLAB_TIMINGS: the twin's CPU time, inside the GPU's turn */
    }
    measure_status st = env->meter_status;
    snprintf(why, sizeof why, "%.250s", env->meter_why);
    p->call = problem_call(p, CALL_TRAFFIC), p->run = 0;
    if (st == MEASURE_OK && p->call < 0) {
        snprintf(why, sizeof why, "internal: no measured input for this device");
        st = MEASURE_ERROR;
    } else if (st == MEASURE_OK && kind->prepare && kind->prepare(p, why, sizeof why) != 0) {
        st = MEASURE_ERROR;
    }
    if (st == MEASURE_OK) {
        st = measure_launch(p, NULL, &m, why, sizeof why);
        if (st == MEASURE_OK && kind->right && !kind->right(p, why, sizeof why))
            st = MEASURE_WRONG_RESULT;
    }
    p->lost = st == MEASURE_ERROR && dev_context_lost();
    char trace_why[256];
    const trace_summary *s = st == MEASURE_OK || st == MEASURE_WRONG_RESULT
                                 ? worker_trace(env, trace_why, sizeof trace_why) : NULL;
    st = race_rule(p, st, why, s);
    int overran = kind->bounds && s && /* past the shared memory it has: named, fault or not */
                  worker_judge_bounds(env, &env->plan->calls[p->call], s, &p->c[CHK_CORRECT]);
    worker_judge_oob(p, s);
    worker_judge_inputs(p, s);
    st = luck_rule(p, st, overran || p->oob_failed || p->order_failed || p->inputs_failed);
    if (meter_emulates(env))
        st = sync_rule(p, st, s);
    if (twinned)
        twin_join(p, twin, twin ? NULL : twin_why, &st);
    free(twin);
    kept_state_rule(p, &st, why, sizeof why);
    if (st != MEASURE_OK) {
        for (int id = CHK_NONE + 1; id < CHECK_IDS; id++)
            if (p->listed[id] && kind->judge[id])
                compare_not_measured(&p->c[id], st, why);
    } else {
        judge_counts(p, &m, s, meter_emulates(env));
    }
    if (kind->release)
        kind->release(p);
    if (meter_emulates(env) && env->meter_status == MEASURE_OK && !p->lost) {
        edge_run(p);
        problem_flow_run(p, p); /* on a GPU, the twin's (twin_join) */
    }
    problem_flow_rule(p);
}

/* --- 5b. the edge run ------------------------------------------------------------------ */

/*
 * What a launch under the emulator's meter adds to the verdicts beside the measured
 * run's, failures only: a race fails race, and correct as a proven race does; an
 * access past the shared memory fails correct; a synchronisation error fails correct
 * (and race, a barrier's). A race check that failed keeps its words, and a
 * synchronisation error's words stand over everything else's.
 */
static void launch_failures(problem *p, const trace_summary *s)
{
    check_result *correct = &p->c[CHK_CORRECT], *race = &p->c[CHK_RACE];
    if (!s)
        return;
    if (p->listed[CHK_RACE] && s->n_races > 0 && race->status != CHECK_FAIL) {
        compare_races(race, s, NULL);
        if (!p->sync_failed)
            compare_race_spoils_correct(correct, s);
    }
    if (p->kind->bounds && !p->sync_failed)
        worker_judge_bounds(p->env, &p->env->plan->calls[p->call], s, correct);
    if (!p->sync_failed) {
        worker_judge_oob(p, s);
        worker_judge_inputs(p, s);
        sync_rule(p, MEASURE_OK, s);
    }
}

/*
 * The call of role CALL_EDGE (labs/calls.h: a grid with partial blocks, and more of
 * them than a GPU trace's race window), launched once more on the emulator (an
 * emulated grade's device, or the twin's) under its meter, whose trace is a stream:
 * its races and bounds are judged on every block (measure/access/trace.c), as the
 * measured launch's are (launch_failures). A launch that does not run adds nothing:
 * its size's correct run says what went wrong.
 */
static void edge_run(problem *p)
{
    const kind_desc *kind = p->kind;
    measure_backend *meter = measure_emulator_backend();
    measurement m;
    char why[256] = "";
    p->call = problem_call(p, CALL_EDGE), p->run = 0;
    if (p->call < 0)
        return;
    if ((!kind->prepare || kind->prepare(p, why, sizeof why) == 0) &&
        module_scrub(p->mod, GPU_SCRUB_INT) == cudaSuccess &&
        measure_launch(p, meter, &m, why, sizeof why) == MEASURE_OK)
        launch_failures(p, meter->last_trace(meter, NULL));
    if (kind->release)
        kind->release(p);
}

/* --- 6. the emulated twin --------------------------------------------------------------- */

/*
 * Where the meter is not the emulator (the trace, the counters), the kernel is graded
 * a second time by the emulator, for what only the emulator sees, as an emulated grade
 * sees it: its synchronisation (a barrier not every thread reaches, a warp mask that
 * names lanes not there: the PTX machine judges each at the instruction, where a GPU
 * may give the right answer by chance), races on every block of its launches, and a
 * kind's `emulated` checks (lab 10's memory path and constant serialization, which only
 * it sees state space by state space and lane by lane). The twin is a problem of its
 * own on the emulator's device and module (its state, its buffers, its checks): the
 * correct phase at the emulator's sizes, as many runs as an emulated grade makes (their
 * outcomes its own: the GPU's runs judged the output), then the measured run under the
 * emulator's meter (its output not held to the reference: a racing kernel's is luck),
 * judged as an emulated grade judges it. twin_join then gives the kernel what the twin
 * found, so that every backend gives it the same verdict, words and points.
 */

/* The twin of p: the same kernel and checks, fresh, on module mod. NULL: no memory. */
static problem *twin_new(const problem *p, const device_module *mod)
{
    problem *t = calloc(1, sizeof *t);
    void *state = p->kind->state_bytes ? calloc(1, p->kind->state_bytes) : NULL;
    if (!t || (p->kind->state_bytes && !state)) {
        free(t), free(state);
        return NULL;
    }
    t->env = p->env, t->kind = p->kind, t->k = p->k, t->mod = mod, t->state = state;
    init_checks(t);
    if (t->kind->setup)
        t->kind->setup(t);
    return t;
}

/*
 * The twin's measured run: its launch under the emulator's meter, then what the
 * emulated grade judges of it (the race, the shared bounds, the synchronisation
 * errors of the kernel's launches since the last measurement: its correct runs', and
 * the kind's emulated checks). Its correct holds only what these add: PASS before
 * them. 0, or -1 with why where the emulator could not run it.
 */
static int twin_measure(problem *t, char *why, size_t why_size)
{
    const kind_desc *kind = t->kind;
    measure_backend *meter = measure_emulator_backend();
    measurement m;
    measure_status st = MEASURE_ERROR;
    t->call = problem_call(t, CALL_TRAFFIC), t->run = 0;
    if (t->call >= 0 && (!kind->prepare || kind->prepare(t, why, why_size) == 0) &&
        module_scrub(t->mod, GPU_SCRUB_INT) == cudaSuccess)
        st = measure_launch(t, meter, &m, why, why_size);
    if (st != MEASURE_OK) {
        if (!why[0])
            snprintf(why, why_size, "its measured input could not be made ready");
        return -1;
    }
    const trace_summary *s = meter->last_trace(meter, NULL);
    check_result from_runs = t->c[CHK_CORRECT];
    check_set(&t->c[CHK_CORRECT], CHECK_PASS, "%s", "");
    if (t->order_failed) /* its correct run in the other order stands, as a sync error's:
                            a GPU's own order may have been the lucky one */
        t->c[CHK_CORRECT] = from_runs;
    if (t->listed[CHK_RACE]) {
        compare_races(&t->c[CHK_RACE], s, "the emulator recorded nothing");
        compare_race_spoils_correct(&t->c[CHK_CORRECT], s);
    }
    int overran = kind->bounds && s &&
                  worker_judge_bounds(t->env, &t->env->plan->calls[t->call], s, &t->c[CHK_CORRECT]);
    worker_judge_oob(t, s);
    worker_judge_inputs(t, s);
    sync_rule(t, MEASURE_OK, s);
    t->luck = t->sync_failed || (t->listed[CHK_RACE] && s && s->n_races > 0) || overran ||
              t->oob_failed || /* luck_rule's causes, for a meter with no trace */
              t->order_failed || t->inputs_failed;
    for (int id = CHK_NONE + 1; id < CHECK_IDS; id++)
        if (t->listed[id] && (kind->emulated >> id & 1ul))
            kind->judge[id](t, (check_id)id, &m, NULL, &t->c[id]);
    return 0;
}

/*
 * What the twin found, into the kernel's checks: a failure of its correct (a
 * synchronisation error, a race, an access out of bounds: the emulated grade's words,
 * which name the line) and of its race stand over the GPU's verdicts; where its measured
 * run raced or broke a rule of synchronisation, the output is luck (st: the counts are
 * judged whatever the GPU's run gave, as the emulated grade judges them); a race check the
 * GPU's meter cannot make (the counters) is the twin's; the emulated checks are the
 * twin's where the GPU's run was measured. Where the twin could not run the kernel
 * (why: an instruction the emulator lacks, named with its line), nothing fails: the
 * emulated checks are not graded, and correct says what was not judged.
 */
static void twin_join(problem *p, const problem *t, const char *why, measure_status *st)
{
    check_result *correct = &p->c[CHK_CORRECT], *race = &p->c[CHK_RACE];
    int luck = 0;
    if (why) {
        char was[sizeof correct->message];
        snprintf(was, sizeof was, "%s", correct->message);
        check_field(correct->message, sizeof correct->message, "%.90s (synchronisation not "
                    "judged: %.130s)", was, why);
    } else {
        /* a synchronisation error's words stand over a race's, as in an emulated grade */
        if (p->listed[CHK_RACE] && t->c[CHK_RACE].status == CHECK_FAIL &&
            (race->status != CHECK_FAIL || t->sync_failed))
            *race = t->c[CHK_RACE];
        else if (p->listed[CHK_RACE] && race->status == CHECK_NOT_MEASURED)
            *race = t->c[CHK_RACE]; /* the counters cannot start beside the trace; the trace
                                       cannot see a cooperative group's tile barrier */
        if (t->c[CHK_CORRECT].status == CHECK_FAIL)
            *correct = t->c[CHK_CORRECT];
        luck = t->luck; /* its runs raced, broke a rule of synchronisation or overran */
        p->luck |= luck;
        memcpy(p->flow, t->flow, sizeof p->flow); /* applied once the counts are judged */
        if (!p->kept_state)
            p->kept_state = t->kept_state;
    }
    if (luck && *st == MEASURE_WRONG_RESULT)
        *st = MEASURE_OK;
    for (int id = CHK_NONE + 1; id < CHECK_IDS; id++) {
        check_result *c = &p->c[id];
        if (!p->listed[id] || !(p->kind->emulated >> id & 1ul) || *st != MEASURE_OK)
            continue;
        if (why) {
            check_set(c, CHECK_NOT_GRADED, "not graded: the emulator, which sees %s, could not "
                      "run the kernel: %s", p->kind->emulated_sees, why);
        } else {
            *c = t->c[id];
            check_field(c->measured, sizeof c->measured, "emulated: %s", t->c[id].measured);
        }
    }
}

/* The twin of p graded on the emulator: its checks (its state released), or NULL with
   why where the emulator could not run the kernel. The device is p's again on return. */
static problem *emulated_twin(problem *p, char *why, size_t why_size)
{
    const device_ops *was = device_current();
    device_module mod;
    problem *t = NULL;
    double limit = gpu_watchdog_seconds();
    device_use(&device_emulator);
    emu_device_sm_count(p->env->gpu.sm_count); /* its %nsmid and %smid: the GPU's */
    if (module_load(&mod, p->env->img, why, why_size) != 0) {
        device_use(was);
        return NULL;
    }
    /* its launches are emulated: the emulator's limit, as an emulated grade's, so that its
       own budget ends a long launch in its words (correct: "synchronisation not judged")
       before the GPU's limit kills the worker for a hang the GPU never had (measured on the
       H200: lab8-cg-block-reduce 'timed out after 10 s' while the twin emulated) */
    gpu_watchdog_set_seconds(GPU_EMULATED_WATCHDOG_FACTOR * limit);
    if (!(t = twin_new(p, &mod))) {
        snprintf(why, why_size, "out of memory");
    } else {
        run_outcome right = grade_correct(t);
        int ran = 0;
        if (right != RUN_RIGHT && right != RUN_WRONG)
            snprintf(why, why_size, "%s", t->c[CHK_CORRECT].message);
        else
            ran = twin_measure(t, why, why_size) == 0;
        if (t->kind->release) /* its buffers are the emulator's */
            t->kind->release(t);
        if (ran) {
            edge_run(t);
            problem_flow_run(t, NULL); /* whichever checks the GPU's run passes */
            /* a race or a synchronisation error its edge run proves makes the kernel's
               output luck as the measured run's would: the GPU's measured run is larger
               than the twin's and may meet it there */
            t->luck |= t->sync_failed || (t->listed[CHK_RACE] &&
                                          t->c[CHK_RACE].status == CHECK_FAIL);
        }
        free(t->state);
        t->state = NULL;
        if (!ran) {
            free(t);
            t = NULL;
        }
    }
    module_unload(&mod);
    device_use(was);
    gpu_watchdog_set_seconds(limit);
    return t;
}

/* --- 7. speed ----------------------------------------------------------------------------- */

/* Whether the kernel's speed is to be timed now (1, right being correct's outcome);
   else 0 with speed saying why: not graded like correct, not measured where the
   device times nothing (whatever correct says: the emulator never times, so a wrong
   kernel's speed is not a failure there), or not timed while the kernel is not
   correct. */
static int speed_due(problem *p, run_outcome right)
{
    check_result *correct = &p->c[CHK_CORRECT], *speed = &p->c[CHK_SPEED];
    if (correct->status == CHECK_NOT_GRADED)
        check_not_graded_like(speed, correct);
    else if (device_untimed())
        check_set(speed, CHECK_NOT_MEASURED, "not measured: %s", device_untimed());
    else if (right == RUN_RIGHT && !p->lost)
        return 1;
    else
        check_set(speed, CHECK_FAIL, "not timed: the kernel is not correct yet");
    return 0;
}

/* --- the phases in order ------------------------------------------------------------------ */

static void grade(problem *p)
{
    worker_env *env = p->env;
    /* a library that does the lesson: read from the PTX and sent before any launch, so
       that a launch that hangs or crashes cannot take it back */
    if (problem_lesson_libraries(p))
        emit(p, p->k->lesson.check);
    if (p->listed[CHK_DYNAMIC_TILE]) {
        judge_dynamic(p);
        emit(p, CHK_DYNAMIC_TILE);
    }
    if (p->kind->shapes && p->kind->shapes(p) != 0) {
        contract_broken(p);
        return;
    }
    run_outcome right = grade_correct(p);
    worker_mark(env, "correct");
    p->lost = right == RUN_LOST;
    int measured = 0;
    for (int id = CHK_NONE + 1; id < CHECK_IDS; id++)
        measured |= p->listed[id] && judged_by_measure(p, (check_id)id);
    /* a measured run's race or synchronisation error can still take correct's pass
       back: it waits for them */
    if ((right != RUN_RIGHT && right != RUN_WRONG) || !measured)
        emit(p, CHK_CORRECT);
    if ((right == RUN_RIGHT || right == RUN_WRONG) && measured) {
        measured_run(p);
        worker_mark(env, "measure");
    } else if (right != RUN_RIGHT && right != RUN_WRONG) {
        checks_not_run(p);
    }
    if (p->c[CHK_CORRECT].status != CHECK_PASS && right == RUN_RIGHT)
        right = RUN_WRONG; /* a race took the pass back: not timed */
    emit(p, CHK_CORRECT);
    emit_all(p, 0);
    if (p->listed[CHK_SPEED] && speed_due(p, right)) {
        p->kind->speed(p, &p->c[CHK_SPEED]);
        worker_mark(env, "speed");
    }
    emit_all(p, 1);
}

int problem_grade(worker_env *env, const lab_kernel *k)
{
    const kind_desc *kind = kinds[env->lab->kind];
    problem *p = calloc(1, sizeof *p);
    void *state = kind->state_bytes ? calloc(1, kind->state_bytes) : NULL;
    if (!p || (kind->state_bytes && !state)) {
        free(p), free(state);
        return 0; /* the runner fails the checks never sent */
    }
    p->env = env, p->kind = kind, p->k = k, p->mod = &env->mod, p->state = state;
    init_checks(p);
    if (kind->setup)
        kind->setup(p);
    grade(p);
    if (kind->release) /* what a phase left allocated (a run that failed, say) */
        kind->release(p);
    int lost = p->lost;
    free(state);
    free(p);
    return lost ? KERNEL_CONTEXT_LOST : 0;
}
