/* measure.c - metric names and the backend that measures nothing. */
#include "measure.h"

#include <stdio.h>
#include <string.h>

/* Instructions count where a lane at least executed them (_pred_on_any): ptxas pads
   some sequences with shared loads that never run (`@!PT LDS`), which touch nothing. */
static const char *const names[METRIC_COUNT] = {
    [METRIC_SHARED_LD_REQUESTS] = "smsp__inst_executed_op_shared_ld_pred_on_any.sum",
    [METRIC_SHARED_ST_REQUESTS] = "smsp__inst_executed_op_shared_st_pred_on_any.sum",
    [METRIC_SHARED_LD_WAVEFRONTS] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    [METRIC_SHARED_ST_WAVEFRONTS] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    [METRIC_SHARED_LD_CONFLICTS] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    [METRIC_SHARED_ST_CONFLICTS] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    [METRIC_GLOBAL_LD_REQUESTS] = "smsp__inst_executed_op_global_ld_pred_on_any.sum",
    [METRIC_SHARED_ATOM_REQUESTS] = "smsp__inst_executed_op_shared_atom_pred_on_any.sum",
    [METRIC_SHARED_ATOM_WAVEFRONTS] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    [METRIC_GLOBAL_ST_REQUESTS] = "smsp__inst_executed_op_global_st_pred_on_any.sum",
    [METRIC_GLOBAL_LD_SECTORS] = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    [METRIC_GLOBAL_ST_SECTORS] = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    /* requests, one a warp-level instruction, of global memory's atomics (ATOMG, an ATOM
       whose address is global) and reductions (RED: an atomic whose old value is unused),
       as Nsight Compute's memory tables count them ("Global Atom", "Global Red") */
    [METRIC_GLOBAL_ATOM_REQUESTS] = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    [METRIC_LDSM_REQUESTS] = "smsp__inst_executed_op_ldsm_pred_on_any.sum",
    [METRIC_STSM_REQUESTS] = "smsp__inst_executed_op_shared_stsm_pred_on_any.sum",
    [METRIC_LDGSTS_REQUESTS] = "smsp__inst_executed_op_ldgsts_pred_on_any.sum",
    [METRIC_SHARED_ALL_WAVEFRONTS] = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    [METRIC_GLOBAL_RED_REQUESTS] = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
};

void measure_fold_counters(measurement *m)
{
    double *v = m->value;
    double async_waves = v[METRIC_SHARED_ALL_WAVEFRONTS] - v[METRIC_SHARED_LD_WAVEFRONTS] -
                         v[METRIC_SHARED_ST_WAVEFRONTS] - v[METRIC_SHARED_ATOM_WAVEFRONTS];
    if (v[METRIC_LDGSTS_REQUESTS] <= 0 || async_waves < 0)
        async_waves = 0;
    v[METRIC_SHARED_LD_REQUESTS] += v[METRIC_LDSM_REQUESTS];
    v[METRIC_SHARED_ST_REQUESTS] += v[METRIC_STSM_REQUESTS] + v[METRIC_LDGSTS_REQUESTS];
    v[METRIC_SHARED_ST_WAVEFRONTS] += async_waves;
    v[METRIC_GLOBAL_LD_REQUESTS] += v[METRIC_LDGSTS_REQUESTS];
    v[METRIC_GLOBAL_ATOM_REQUESTS] += v[METRIC_GLOBAL_RED_REQUESTS];
    for (int i = METRIC_FIRST_RAW; i < METRIC_COUNTER_COUNT; i++)
        v[i] = 0;
    v[METRIC_SHUFFLES] = -1; /* no counter counts them */
}

const char *metric_name(metric_id id)
{
    return id >= 0 && id < METRIC_COUNT && names[id] ? names[id] : "?";
}

const char *measure_status_advice(measure_status s)
{
    switch (s) {
    case MEASURE_OK:
        return "";
    case MEASURE_NOT_PERMITTED:
        return "the driver lets only administrators read GPU performance counters "
               "(ERR_NVGPUCTRPERM). Ask an administrator to load the nvidia module with "
               "NVreg_RestrictProfilingToAdminUsers=0 (see docs/troubleshooting), or run "
               "the grader as root.";
    case MEASURE_UNSUPPORTED:
        return "this GPU or driver does not offer the counters the grader reads.";
    case MEASURE_ERROR:
        return "reading the counters failed; the message above says where.";
    case MEASURE_DISABLED:
        return "drop --no-counters to measure requests and bank conflicts.";
    case MEASURE_NO_KERNEL:
        return "the launcher returned without launching a kernel: write the launch "
               "(kernel<<<grid, block, bytes>>>(out)) in the launcher.";
    case MEASURE_WRONG_RESULT:
        return "the grader checks the result of the very run it counts: make the kernel "
               "correct first (see the correct check).";
    }
    return "";
}

typedef struct none_state {
    const char *reason;
} none_state;

/* The backend of --no-counters: every measurement is declined, with the reason. */
static measure_status none_open(measure_backend *self, char *why, size_t n)
{
    snprintf(why, n, "%s", ((none_state *)self->state)->reason);
    return MEASURE_DISABLED;
}

static measure_status none_measure(measure_backend *self, void (*launch)(void *), void *arg,
                                   measurement *out, char *why, size_t n)
{
    (void)launch, (void)arg, (void)out;
    return none_open(self, why, n);
}

static void none_close(measure_backend *self)
{
    (void)self;
}

measure_backend *measure_none_backend(const char *reason)
{
    static none_state state;
    static measure_backend backend = {"none", none_open, none_measure, none_close, &state, NULL, 0};
    state.reason = reason;
    return &backend;
}

void measure_clear(measurement *m)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        m->value[i] = 0.0;
    m->ideal_ld = m->ideal_st = 0.0;
    m->ideal_set = 0;
}

const char *measure_mode_name(measure_mode m)
{
    switch (m) {
    case MEASURE_MODE_AUTO: return "auto";
    case MEASURE_MODE_COUNTERS: return "counters";
    case MEASURE_MODE_TRACE: return "trace";
    case MEASURE_MODE_EMULATOR: return "emulator";
    }
    return "?";
}

int measure_mode_parse(const char *s, measure_mode *out)
{
    for (int m = MEASURE_MODE_AUTO; m <= MEASURE_MODE_EMULATOR; m++)
        if (s && strcmp(s, measure_mode_name((measure_mode)m)) == 0) {
            *out = (measure_mode)m;
            return 0;
        }
    return -1;
}

/*
 * auto takes the trace wherever it opens: it sees what the counters cannot
 * (access widths, source lines, races between warps), and CUPTI refuses to
 * start in a process the Compute Sanitizer is subscribed to
 * (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, measured on an H100), so
 * the two never share one. The counters are the fallback where there is no
 * trace. The trace is opened first: it must subscribe before the process's
 * first CUDA call, and opening the counters makes one.
 */
measure_backend *measure_choose(measure_mode mode, measure_backend *counters,
                                measure_backend *trace, const char *trace_missing,
                                measure_status *status, char *line, size_t line_size)
{
    char why_trace[256] = "", why_counters[256] = "";
    measure_status st_trace = MEASURE_UNSUPPORTED, st_counters = MEASURE_UNSUPPORTED;
    const char *missing = trace_missing && *trace_missing ? trace_missing
                                                          : "the trace backend is not built";

    if (mode != MEASURE_MODE_COUNTERS) {
        if (trace)
            st_trace = trace->open(trace, why_trace, sizeof why_trace);
        else
            snprintf(why_trace, sizeof why_trace, "%s", missing);
        *status = st_trace;
        if (st_trace == MEASURE_OK) {
            snprintf(line, line_size, "trace (Compute Sanitizer)%s", mode == MEASURE_MODE_TRACE
                     ? ", as --measure trace asks" : ": it sees widths, lines and races");
            return trace;
        }
        if (mode == MEASURE_MODE_TRACE) {
            snprintf(line, line_size, "not measured: --measure trace, but %s", why_trace);
            return NULL;
        }
    }
    if (counters)
        st_counters = counters->open(counters, why_counters, sizeof why_counters);
    else
        snprintf(why_counters, sizeof why_counters, "no counter backend in this build");
    *status = st_counters;
    if (st_counters == MEASURE_OK) {
        if (mode == MEASURE_MODE_COUNTERS)
            snprintf(line, line_size, "counters (CUPTI), as --measure counters asks");
        else
            snprintf(line, line_size, "counters (CUPTI), without the trace: %s", why_trace);
        return counters;
    }
    if (counters)
        counters->close(counters);
    if (mode == MEASURE_MODE_AUTO)
        snprintf(line, line_size, "not measured: trace: %s; counters: %s", why_trace,
                 why_counters);
    else
        snprintf(line, line_size, "not measured: --measure counters, but %s", why_counters);
    return NULL;
}
