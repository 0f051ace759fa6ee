/* problem.c - what every problem kind may call, and the table of kinds; see problem.h. */
#define _POSIX_C_SOURCE 200809L
#include "problem.h"

#include "../base/child.h"
#include "../compare/compare.h"
#include "../compare/sync.h"
#include "../measure/emulator/lab_decls.h"
#include "../run/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How each kind grades a kernel: a new kind is one row. */
typedef int (*grade_fn)(worker_env *env, const lab_kernel *k);

static const grade_fn grade_by_kind[] = {
    [PROBLEM_TILE] = tile_grade_kernel,
    [PROBLEM_MATMUL] = matmul_grade_kernel,
    [PROBLEM_CONV] = conv_grade_kernel,
    [PROBLEM_IDIOM] = idiom_grade_kernel,
    [PROBLEM_REDUCE] = reduce_grade_kernel,
    [PROBLEM_TRANSPOSE] = transpose_grade_kernel,
    [PROBLEM_STENCIL] = stencil_grade_kernel,
};

int problem_grade(worker_env *env, const lab_kernel *k)
{
    return grade_by_kind[env->lab->kind](env, k);
}

void worker_emit(worker_env *env, const check_result *c)
{
    env->emit(env, c);
}

static int timings_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("SMEMLAB_TIMINGS");
        on = v && *v && strcmp(v, "0") != 0;
    }
    return on;
}

void worker_mark(const worker_env *env, const char *phase)
{
    static struct timespec last;
    struct timespec now;
    if (!timings_on())
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (phase)
        fprintf(stderr, "[timing] %s %s: %s %.3f s\n", env->lab->id,
                env->lab->kernels[env->kernel].name, phase,
                (double)(now.tv_sec - last.tv_sec) + (double)(now.tv_nsec - last.tv_nsec) / 1e9);
    last = now;
}

/* How much slower than the slowest plain run an instrumented launch may be before
   it is a hang (the trace calls its code at every shared access and at the global
   loads of the first blocks), and the most it gets in units of --timeout. */
#define INSTRUMENTED_SLOWDOWN 200.0
#define INSTRUMENTED_MAX_FACTOR 6.0

/*
 * What the backend that measured cannot see, in a launched kernel: the hardware
 * counters count device printf's own shared accesses with the kernel's, and
 * neither they nor the trace see the tensor memory accelerator's bulk copies
 * (lab_decls_unmeasured). 1 with why ("not graded: ..." where no GPU backend
 * could measure it: an instrument's limit), else 0.
 */
static int meter_cannot_see(const worker_env *env, char *why, size_t why_size)
{
    const call_plan *p = &env->plan->calls[0];
    char what[300];
    for (int i = 0; env->decls && i < p->n_launches; i++) {
        const char *name = env->img->kernels[p->launches[i].kernel].name;
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
    }
    return 0;
}

measure_status worker_measure(worker_env *env, void (*launch)(void *), void *arg,
                              measurement *out, char *why, size_t why_size)
{
    measure_clear(out);
    /* the patched copy is the trace's alone */
    env->mod.measuring = env->meter == env->tracer && !device_is_emulator();
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
    if (timings_on() && env->mod.measuring) {
        env->mod.measuring = 0;
        t0 = child_now();
        plain = gpu_run(launch, arg, &lost, plain_why, sizeof plain_why) == 0 ? child_now() - t0 : -1;
        env->mod.measuring = 1;
    }
    t0 = child_now();
    gpu_watchdog_arm_for(limit);
    measure_status st = env->meter->measure(env->meter, launch, arg, out, why, why_size);
    gpu_watchdog_disarm();
    if (st == MEASURE_OK && !device_is_emulator() && meter_cannot_see(env, why, why_size))
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

void worker_judge_sync(worker_env *env, check_result *correct, check_result *race,
                       measure_status st)
{
    char why[256];
    if (st == MEASURE_OK || st == MEASURE_WRONG_RESULT)
        compare_sync(correct, race, worker_trace(env, why, sizeof why));
}

/* The kernel a launch of the call runs, and its shared bytes: static (PTX) and given. */
static int launch_shared(const worker_env *env, const plan_launch *l, uint32_t *static_bytes,
                         int *dynamic)
{
    const char *name = env->img->kernels[l->kernel].name;
    return env->decls ? lab_decls_shared(env->decls, name, static_bytes, dynamic) : -1;
}

void worker_init_checks(const worker_env *env, const lab_kernel *k, const char *const *ids,
                        int n, check_result *c, int *listed)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    int m = kernel_checks(env->lab, k, checks);
    for (int i = 0; i < n; i++) {
        check_init(&c[i], env->lab->id, k->name, ids[i], 0);
        if (listed)
            listed[i] = 0;
    }
    for (int j = 0; j < m; j++)
        for (int i = 0; i < n; i++)
            if (strcmp(ids[i], checks[j].id) == 0) {
                c[i].max_points = checks[j].points;
                if (listed)
                    listed[i] = 1;
            }
}

void worker_checks_not_run(check_result *c, int correct, int from, int to, unsigned long skip)
{
    for (int i = from; i < to; i++)
        if (skip >> i & 1ul)
            continue;
        else if (c[correct].status == CHECK_NOT_GRADED)
            check_not_graded_like(&c[i], &c[correct]);
        else
            check_set(&c[i], CHECK_FAIL, "not run: the kernel did not run");
}

int worker_speed_due(const check_result *correct, check_result *speed, run_outcome right,
                     int lost)
{
    if (correct->status == CHECK_NOT_GRADED)
        check_not_graded_like(speed, correct);
    else if (right == RUN_RIGHT && device_is_emulator())
        check_set(speed, CHECK_NOT_MEASURED, "not measured: emulated on the CPU (speed is the "
                  "GPU's to tell)");
    else if (right == RUN_RIGHT && !lost)
        return 1;
    else
        check_set(speed, CHECK_FAIL, "not timed: the kernel is not correct yet");
    return 0;
}

void worker_judge_dynamic(worker_env *env, const call_plan *call, uint32_t need,
                          check_result *c)
{
    uint32_t st = 0;
    int dyn = 0;
    check_field(c->expected, sizeof c->expected, "no static __shared__ bytes; an extern "
                "__shared__ tile of at least %u bytes given at launch", need);
    if (call->n_launches == 0) {
        check_set(c, CHECK_FAIL, "no kernel was launched");
        return;
    }
    const plan_launch *l = &call->launches[0];
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

void worker_judge_bounds(worker_env *env, const call_plan *call, const trace_summary *s,
                         check_result *correct)
{
    uint64_t have = 0;
    char at[96];
    if (!s || s->shared_end == 0)
        return;
    for (int i = 0; i < call->n_launches; i++) {
        uint32_t st = 0;
        int dyn = 0;
        if (launch_shared(env, &call->launches[i], &st, &dyn) != 0)
            return; /* nothing to hold the accesses to */
        /* the dynamic area starts past the static bytes, aligned: allow the widest */
        uint64_t end = ((uint64_t)st + 127) / 128 * 128 + call->launches[i].shared_bytes;
        have = end > have ? end : have;
    }
    if (s->shared_end <= have)
        return;
    const trace_site *site = trace_find_site(s, s->shared_end_pc);
    if (site && site->file) {
        const char *slash = strrchr(site->file, '/');
        snprintf(at, sizeof at, "%s:%d", slash ? slash + 1 : site->file, site->line);
    } else {
        snprintf(at, sizeof at, "pc 0x%llx", (unsigned long long)s->shared_end_pc);
    }
    check_set(correct, CHECK_FAIL, "%s %s %u bytes into %llu bytes of shared memory", at,
              trace_op_name(s->shared_end_op), s->shared_end, (unsigned long long)have);
    check_field(correct->hint, sizeof correct->hint, "A thread reaches past the end of the "
                "kernel's shared memory (its __shared__ arrays plus the bytes the launch "
                "gives): an index past the tile, a pitch the tile was not declared with, or a "
                "launch that gives fewer bytes than the tile needs. A GPU does not always fault "
                "on it, so the output can come out right: the bytes past the end belong to "
                "nothing, or to another block.");
}
