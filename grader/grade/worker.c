/* worker.c - the measuring process; see worker.h. */
#define _POSIX_C_SOURCE 200809L
#include "worker.h"

#include "../base/exit_codes.h"
#include "../measure/emulator/emu_device.h"
#include "../measure/emulator/lab_decls.h"
#include "../measure/trace/measure_trace.h"
#include "../run/gpu_lock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void worker_msg_text(worker_msg *m, int type, int kernel, const char *text)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    m->kernel = kernel;
    snprintf(m->text, sizeof m->text, "%s", text);
}

/* worker_env.emit: a check's outcome to the grader. */
static void emit_check(worker_env *env, const check_result *c)
{
    worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_CHECK;
    m.kernel = env->kernel;
    m.check = *c;
    send(env->fd, &m);
}

static void send_text(int fd, worker_msg_type type, int kernel, const char *text)
{
    worker_msg m;
    worker_msg_text(&m, type, kernel, text);
    send(fd, &m);
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
    const emu_gpu *as = device_is_emulator() ? emu_device_gpu() : NULL;
    if (as)
        snprintf(text, sizeof text, "emulated on the CPU as %s %s (sm_%d%d): --gpu %s; speed not "
                 "measured (the PTX emulator, %d banks x %d bytes, the bank mode the course's "
                 "figures were measured in; 4 bytes where a launcher calls "
                 "cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeFourByte)%s)", as->whose,
                 as->name, as->major, as->minor, as->id, g->banks.banks, g->banks.bank_bytes,
                 env->meter_status == MEASURE_OK ? "" : "; conflicts not measured: --no-counters");
    else if (device_is_emulator())
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

/*
 * Wait for the GPU to be ours alone (gpu_lock.h), then open the meter: both
 * stay until worker_pause or the process ends. Without a usable lock file
 * the grade goes on unlocked, and the grader says why.
 */
static void begin_turn(worker *w)
{
    worker_env *env = &w->env;
    char why[512] = "";
    if (!w->has_turn && !device_is_emulator()) { /* an emulator shares no GPU */
        w->lock_fd = gpu_lock_take(env->gpu.pci, tell_waiting, env, why, sizeof why);
        if (w->lock_fd >= 0)
            why[0] = '\0';
        w->has_turn = 1;
    }
    send_text(env->fd, MSG_GPU_HELD, -1, why); /* text: why there is no lock */
    if (!w->meter_open)
        open_meter(env, w->trace_status == MEASURE_OK ? w->trace : NULL,
                   w->trace_why); /* a failed subscription is not tried late */
    w->meter_open = 1;
}

/*
 * The emulator stands in for the GPU: --measure emulator asks for it, and
 * auto takes it where no usable GPU or driver is found (docs/emulator.md).
 * Its launches run on the CPU, so each gets six times --timeout on the clock;
 * an endless one ends at its instruction budget first (which follows --timeout).
 */
static int open_emulator(worker_env *env, const char *reason)
{
    gpu_info *g = &env->gpu;
    const emu_gpu *as = emu_gpu_find(env->opt->gpu);
    device_use(&device_emulator);
    emu_device_as(as);
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", as ? as->name : reason);
    g->major = as ? as->major : 9, g->minor = as ? as->minor : 0;
    g->sm_count = as ? as->sm_count : EMU_DEFAULT_SM_COUNT; /* what its %nsmid says */
    emu_device_banks(&g->banks);
    emu_device_time_limit(env->opt->timeout_s);
    gpu_watchdog_set(GPU_EMULATED_WATCHDOG_FACTOR * env->opt->timeout_s, WORKER_EXIT_TIMEOUT);
    return 0;
}

int worker_open(worker *w, const grade_options *opt, char *why, size_t why_size)
{
    worker_env *env = &w->env;
    memset(w, 0, sizeof *w);
    w->lock_fd = -1;
    w->trace_status = MEASURE_DISABLED;
    env->opt = opt;
    const char *timings = getenv("SMEMLAB_TIMINGS");
    env->timings = timings && *timings && strcmp(timings, "0") != 0;
    const char *twin = getenv("SMEMLAB_TWIN");
    env->twin_off = twin && strcmp(twin, "off") == 0;
    env->twin_test = twin && *twin && strcmp(twin, "0") != 0 && !env->twin_off;
    if (opt->measure == MEASURE_MODE_EMULATOR)
        return open_emulator(env, opt->gpu ? "--gpu" : "--measure emulator");
    w->trace = early_trace(opt, &w->trace_status, w->trace_why, sizeof w->trace_why);
    /* Nothing loaded is instrumented but the copy load_code asks for: not
       the grader's kernels, not cuBLAS (its SGEMM is the speed reference). */
    measure_trace_patching(w->trace, 0);
    gpu_status st = gpu_open(opt->device, &env->gpu, why, why_size);
    if (st == GPU_OK)
        return 0;
    if (opt->measure == MEASURE_MODE_AUTO && (st == GPU_NO_DRIVER || st == GPU_NO_DEVICE))
        return open_emulator(env, "no GPU found");
    return -1;
}

/* The student's code; for the trace a second, instrumented copy that only measure() runs. */
static int load_code(worker *w, const lab_image *img, char *why, size_t n)
{
    int rc = module_load(&w->env.mod, img, why, n);
    if (rc == 0 && w->trace_status == MEASURE_OK && !device_is_emulator()) {
        measure_trace_patching(w->trace, 1);
        rc = module_load_measured_copy(&w->env.mod, why, n);
        measure_trace_patching(w->trace, 0);
    }
    return rc;
}

/* On a GPU graded as (--gpu), the banks the kernel's expectations are worked out on: those
   of its first launch, in the bank mode its launcher asked for (emu_gpu.h). */
static void kernel_banks(worker_env *env)
{
    const emu_gpu *as = device_is_emulator() ? emu_device_gpu() : NULL;
    const call_plan *first = env->plan->n_calls > 0 ? &env->plan->calls[0] : NULL;
    if (as)
        emu_gpu_banks(as, first && first->n_launches > 0 ? first->launches[0].smem_config
                                                          : REC_ATTR_UNSET, &env->gpu.banks);
}

int worker_grade(worker *w, const grade_job *job, int first, int fd)
{
    worker_env *env = &w->env;
    char why[512];
    env->lab = job->lab;
    env->opt = job->opt;
    env->img = job->img;
    env->fd = fd;
    env->emit = emit_check;
    if (load_code(w, job->img, why, sizeof why) != 0) {
        send_text(fd, MSG_ENVIRONMENT, -1, why);
        module_unload(&env->mod);
        return -1;
    }
    begin_turn(w);
    describe_device(env);
    lab_decls_free(env->decls);
    env->decls = lab_decls_read(job->img, env->decls_why, sizeof env->decls_why);

    for (int k = first; k < job->lab->n_kernels; k++) {
        if (job->plans[k].verdict != PLAN_OK)
            continue; /* the grader decided this kernel from its record */
        env->kernel = k;
        env->plan = &job->plans[k];
        kernel_banks(env);
        send_text(fd, MSG_BEGIN, k, job->lab->kernels[k].name);
        worker_mark(env, NULL);
        gpu_runs_forget(); /* the instrumented launch's limit comes from this kernel's runs */
        int lost = problem_grade(env, &job->lab->kernels[k]);
        send_text(fd, MSG_END, k, "");
        if (lost == KERNEL_CONTEXT_LOST)
            return KERNEL_CONTEXT_LOST; /* the grader starts a fresh worker at the next kernel */
    }
    module_unload(&env->mod);
    return 0;
}

int worker_has_turn(const worker *w)
{
    return w->has_turn;
}

void worker_pause(worker *w)
{
    /* The counters are the device's, one process at a time: closed. A trace
       is this process's own and cannot be opened again once CUDA runs. */
    if (w->meter_open && w->env.meter != w->trace) {
        w->env.meter->close(w->env.meter);
        w->meter_open = 0;
    }
    if (w->lock_fd >= 0)
        close(w->lock_fd);
    w->lock_fd = -1;
    w->has_turn = 0;
}

void worker_main(const grade_job *job, int first, int fd)
{
    char why[512];

    gpu_watchdog_set(job->opt->timeout_s, WORKER_EXIT_TIMEOUT);
    worker *w = calloc(1, sizeof *w); /* this process's: it ends with it */
    if (!w || worker_open(w, job->opt, why, sizeof why) != 0) {
        send_text(fd, MSG_ENVIRONMENT, -1, w ? why : "no memory for the worker");
        _exit(EXIT_ENVIRONMENT);
    }
    int rc = worker_grade(w, job, first, fd);
    if (rc < 0)
        _exit(EXIT_ENVIRONMENT);
    if (rc == 0)
        w->env.meter->close(w->env.meter);
    _exit(0);
}
