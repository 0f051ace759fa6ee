/* measure.c - metric names and the backend that measures nothing. */
#include "measure.h"

#include <stdio.h>

static const char *const names[METRIC_COUNT] = {
    [METRIC_SHARED_LD_REQUESTS] = "smsp__inst_executed_op_shared_ld.sum",
    [METRIC_SHARED_ST_REQUESTS] = "smsp__inst_executed_op_shared_st.sum",
    [METRIC_SHARED_LD_WAVEFRONTS] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    [METRIC_SHARED_ST_WAVEFRONTS] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    [METRIC_SHARED_LD_CONFLICTS] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    [METRIC_SHARED_ST_CONFLICTS] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    [METRIC_GLOBAL_LD_REQUESTS] = "smsp__inst_executed_op_global_ld.sum",
};

const char *metric_name(metric_id id)
{
    return id >= 0 && id < METRIC_COUNT ? names[id] : "?";
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
    static measure_backend backend = {"none", none_open, none_measure, none_close, &state};
    state.reason = reason;
    return &backend;
}

void measure_clear(measurement *m)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        m->value[i] = 0.0;
    m->ideal_ld = m->ideal_st = 0.0;
}
