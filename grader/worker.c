/* worker.c - the measuring process; see worker.h. */
#define _POSIX_C_SOURCE 200809L
#include "worker.h"

#include "exit_codes.h"
#include "compare.h"
#include "measure/emulator/emu_device.h"
#include "measure/emulator/lab_decls.h"
#include "measure/trace/measure_trace.h"
#include "run/child.h"
#include "run/gpu_lock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*grade_fn)(worker_env *env, const lab_kernel *k);

static const grade_fn grade_by_kind[] = {
    [PROBLEM_TILE] = tile_grade_kernel,
    [PROBLEM_MATMUL] = matmul_grade_kernel,
    [PROBLEM_CONV] = conv_grade_kernel,
    [PROBLEM_IDIOM] = idiom_grade_kernel,
    [PROBLEM_REDUCE] = reduce_grade_kernel,
};

static void send(int fd, const worker_msg *m)
{
    const char *p = (const char *)m;
    size_t left = sizeof *m;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(EXIT_ENVIRONMENT); /* the grader is gone */
        p += w;
        left -= (size_t)w;
    }
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

void worker_msg_text(worker_msg *m, int type, int kernel, const char *text)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    m->kernel = kernel;
    snprintf(m->text, sizeof m->text, "%s", text);
}

static void send_text(int fd, worker_msg_type type, int kernel, const char *text)
{
    static worker_msg m;
    worker_msg_text(&m, type, kernel, text);
    send(fd, &m);
}

void worker_emit(worker_env *env, const check_result *c)
{
    static worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_CHECK;
    m.kernel = env->kernel;
    m.check = *c;
    send(env->fd, &m);
}

void replay_launch(void *replay_arg)
{
    const replay *r = replay_arg;
    module_replay(&r->env->mod, r->plan, r->bufs); /* an error stays for cudaGetLastError */
}

/*
 * The trace subscribes before the process's first CUDA call (before
 * gpu_open), unless the counters were asked for: CUPTI does not start in a
 * process the Compute Sanitizer is subscribed to.
 */
static measure_backend *early_trace(const grade_options *opt, measure_status *st, char *why,
                                    size_t n)
{
    *st = MEASURE_DISABLED;
    if (!opt->use_counters || opt->measure == MEASURE_MODE_COUNTERS)
        return NULL;
    measure_backend *trace = measure_trace_backend(why, n);
    *st = trace ? trace->open(trace, why, n) : MEASURE_UNSUPPORTED;
    return trace;
}

/* On the emulator its own backend measures, which records every access too. */
static void open_emulator_meter(worker_env *env)
{
    env->meter = env->opt->use_counters ? measure_emulator_backend() : NULL;
    env->meter_status = env->meter ? env->meter->open(env->meter, env->meter_why,
                                                      sizeof env->meter_why) : MEASURE_DISABLED;
    snprintf(env->meter_line, sizeof env->meter_line, "the emulator: every access recorded");
    env->tracer = env->meter;
    if (!env->meter) {
        snprintf(env->meter_why, sizeof env->meter_why, "--no-counters was given");
        snprintf(env->tracer_why, sizeof env->tracer_why, "--no-counters was given");
        env->meter = measure_none_backend(env->meter_why);
    }
}

static void open_meter(worker_env *env, measure_backend *trace, const char *trace_why)
{
    measure_mode mode = (measure_mode)env->opt->measure;
    if (device_is_emulator()) {
        open_emulator_meter(env);
        return;
    }
    env->meter = NULL;
    if (env->opt->use_counters)
        env->meter = measure_choose(mode, mode == MEASURE_MODE_TRACE ? NULL : measure_cupti_backend(),
                                    trace, trace_why, &env->meter_status, env->meter_line,
                                    sizeof env->meter_line);
    env->tracer = env->meter && env->meter->last_trace ? env->meter : NULL;
    snprintf(env->tracer_why, sizeof env->tracer_why, "%.250s",
             !env->opt->use_counters ? "--no-counters was given"
             : mode == MEASURE_MODE_COUNTERS ? "--measure counters was given, and the trace "
               "cannot run beside the counters (CUPTI refuses a second tool in one process)"
             : trace_why[0] ? trace_why : "the trace backend did not open");
    if (!env->meter) {
        const char *why = env->opt->use_counters ? env->meter_line : "--no-counters was given";
        snprintf(env->meter_why, sizeof env->meter_why, "%s", why);
        env->meter = measure_none_backend(env->meter_why);
        measure_status st = env->meter_status;
        char same[sizeof env->meter_why]; /* the reason it returns is meter_why itself */
        env->meter->open(env->meter, same, sizeof same);
        env->meter_status = env->opt->use_counters ? st : MEASURE_DISABLED;
        if (env->meter_status == MEASURE_OK)
            env->meter_status = MEASURE_UNSUPPORTED;
    }
}

static void describe_device(worker_env *env)
{
    char text[1024];
    const gpu_info *g = &env->gpu;
    if (device_is_emulator())
        snprintf(text, sizeof text, "emulated on the CPU: %s; speed not measured (the PTX "
                 "emulator, %d banks x %d bytes%s)", g->name, g->banks.banks, g->banks.bank_bytes,
                 env->meter_status == MEASURE_OK ? "" : "; conflicts not measured: --no-counters");
    else if (env->meter_status == MEASURE_OK)
        snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %d banks x %d bytes); measured by %s",
                 g->name, g->major, g->minor, g->sm_count, g->banks.banks, g->banks.bank_bytes,
                 env->meter_line);
    else
        snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %d banks x %d bytes); counters NOT "
                 "measured: %s", g->name, g->major, g->minor, g->sm_count, g->banks.banks,
                 g->banks.bank_bytes, env->meter_why);
    send_text(env->fd, MSG_DEVICE, -1, text);
}

static void tell_waiting(void *env, const char *lock_path)
{
    send_text(((worker_env *)env)->fd, MSG_GPU_WAIT, -1, lock_path); /* a long one is cut */
}

/* What outlives one lab in a meter server: how it measures and whether the GPU is its turn. */
static struct {
    measure_backend *trace;
    measure_status trace_status;
    char trace_why[512];
    int lock_fd;     /* the GPU's lock while held; -1 otherwise */
    int has_turn;    /* the lock was tried (held, or no lock file to hold) */
    int meter_open;
} g_session = {.lock_fd = -1};

/*
 * Wait for the GPU to be ours alone (gpu_lock.h), then open the meter: both
 * stay until worker_pause or the process ends. Without a usable lock file
 * the grade goes on unlocked, and the grader says why.
 */
static void begin_turn(worker_env *env)
{
    char why[512] = "";
    if (!g_session.has_turn && !device_is_emulator()) { /* an emulator shares no GPU */
        g_session.lock_fd = gpu_lock_take(env->gpu.pci, tell_waiting, env, why, sizeof why);
        if (g_session.lock_fd >= 0)
            why[0] = '\0';
        g_session.has_turn = 1;
    }
    send_text(env->fd, MSG_GPU_HELD, -1, why); /* text: why there is no lock */
    if (!g_session.meter_open)
        open_meter(env, g_session.trace_status == MEASURE_OK ? g_session.trace : NULL,
                   g_session.trace_why); /* a failed subscription is not tried late */
    g_session.meter_open = 1;
}

/*
 * The emulator stands in for the GPU: --measure emulator asks for it, and
 * auto takes it where no usable GPU or driver is found (docs/emulator.md).
 * Its launches run on the CPU, so each gets six times --timeout on the clock;
 * an endless one ends at its instruction budget first.
 */
static int open_emulator(worker_env *env, const char *reason)
{
    gpu_info *g = &env->gpu;
    device_use(&device_emulator);
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", reason);
    g->major = 9, g->minor = 0, g->sm_count = 1;
    bank_geometry_for(g->major, g->minor, 32, 0, &g->banks);
    gpu_watchdog_set(6 * env->opt->timeout_s, WORKER_EXIT_TIMEOUT);
    return 0;
}

int worker_open(worker_env *env, const grade_options *opt, char *why, size_t why_size)
{
    memset(env, 0, sizeof *env);
    env->opt = opt;
    if (opt->measure == MEASURE_MODE_EMULATOR)
        return open_emulator(env, "--measure emulator");
    g_session.trace = early_trace(opt, &g_session.trace_status, g_session.trace_why,
                                  sizeof g_session.trace_why);
    /* Nothing loaded is instrumented but the copy load_code asks for: not
       the grader's kernels, not cuBLAS (its SGEMM is the speed reference). */
    measure_trace_patching(g_session.trace, 0);
    gpu_status st = gpu_open(opt->device, &env->gpu, why, why_size);
    if (st == GPU_OK)
        return 0;
    if (opt->measure == MEASURE_MODE_AUTO && (st == GPU_NO_DRIVER || st == GPU_NO_DEVICE))
        return open_emulator(env, "no GPU found");
    return -1;
}

/* The student's code; for the trace a second, instrumented copy that only measure() runs. */
static int load_code(worker_env *env, const lab_image *img, char *why, size_t n)
{
    int rc = module_load(&env->mod, img, why, n);
    if (rc == 0 && g_session.trace_status == MEASURE_OK && !device_is_emulator()) {
        measure_trace_patching(g_session.trace, 1);
        rc = module_load_measured_copy(&env->mod, why, n);
        measure_trace_patching(g_session.trace, 0);
    }
    return rc;
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

/* The kernel a launch of the call runs, and its shared bytes: static (PTX) and given. */
static int launch_shared(const worker_env *env, const plan_launch *l, uint32_t *static_bytes,
                         int *dynamic)
{
    const char *name = env->img->kernels[l->kernel].name;
    return env->decls ? lab_decls_shared(env->decls, name, static_bytes, dynamic) : -1;
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

int worker_grade(worker_env *env, const grade_job *job, int first, int fd)
{
    char why[512];
    env->lab = job->lab;
    env->opt = job->opt;
    env->img = job->img;
    env->fd = fd;
    if (load_code(env, job->img, why, sizeof why) != 0) {
        send_text(fd, MSG_ENVIRONMENT, -1, why);
        module_unload(&env->mod);
        return -1;
    }
    begin_turn(env);
    describe_device(env);
    lab_decls_free(env->decls);
    env->decls = lab_decls_read(job->img, env->decls_why, sizeof env->decls_why);

    grade_fn grade = grade_by_kind[job->lab->kind];
    for (int k = first; k < job->lab->n_kernels; k++) {
        if (job->plans[k].verdict != PLAN_OK)
            continue; /* the grader decided this kernel from its record */
        env->kernel = k;
        env->plan = &job->plans[k];
        send_text(fd, MSG_BEGIN, k, job->lab->kernels[k].name);
        worker_mark(env, NULL);
        gpu_runs_forget(); /* the instrumented launch's limit comes from this kernel's runs */
        int lost = grade(env, &job->lab->kernels[k]);
        send_text(fd, MSG_END, k, "");
        if (lost == KERNEL_CONTEXT_LOST)
            return KERNEL_CONTEXT_LOST; /* the grader starts a fresh worker at the next kernel */
    }
    module_unload(&env->mod);
    return 0;
}

int worker_has_turn(void)
{
    return g_session.has_turn;
}

void worker_pause(worker_env *env)
{
    /* The counters are the device's, one process at a time: closed. A trace
       is this process's own and cannot be opened again once CUDA runs. */
    if (g_session.meter_open && env->meter != g_session.trace) {
        env->meter->close(env->meter);
        g_session.meter_open = 0;
    }
    if (g_session.lock_fd >= 0)
        close(g_session.lock_fd);
    g_session.lock_fd = -1;
    g_session.has_turn = 0;
}

void worker_main(const grade_job *job, int first, int fd)
{
    static worker_env env;
    char why[512];

    gpu_watchdog_set(job->opt->timeout_s, WORKER_EXIT_TIMEOUT);
    if (worker_open(&env, job->opt, why, sizeof why) != 0) {
        send_text(fd, MSG_ENVIRONMENT, -1, why);
        _exit(EXIT_ENVIRONMENT);
    }
    int rc = worker_grade(&env, job, first, fd);
    if (rc < 0)
        _exit(EXIT_ENVIRONMENT);
    if (rc == 0)
        env.meter->close(env.meter);
    _exit(0);
}
