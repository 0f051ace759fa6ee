/*
 * measure_cupti.c - hardware counters through CUPTI's range profiler
 * (cupti_range_profiler.h + cupti_profiler_host.h, CUDA 12.6 and later).
 *
 * Each measured launch is its own session: auto range (one range per kernel)
 * and kernel replay (CUPTI reruns the kernel once per counter pass and
 * restores device memory in between), then the ranges are decoded and summed.
 */
#include "../measure.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES 16 /* launches one measured call may make */

typedef struct cupti_state {
    CUpti_RangeProfiler_Object *profiler;
    CUpti_Profiler_Host_Object *host;
    const char *metrics[METRIC_COUNT];
    size_t n_metrics;
    uint8_t *config;
    size_t config_size;
    uint8_t *counter_data;
    size_t counter_data_size;
    int profiler_initialized;
} cupti_state;

static cupti_state g_state;

static measure_status status_of(CUptiResult r)
{
    switch (r) {
    case CUPTI_SUCCESS: return MEASURE_OK;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return MEASURE_NOT_PERMITTED;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        return MEASURE_UNSUPPORTED;
    default: return MEASURE_ERROR;
    }
}

/* Report a failed CUPTI call: returns its status, fills why. */
static measure_status fail(CUptiResult r, const char *call, char *why, size_t n)
{
    const char *text = NULL;
    cuptiGetResultString(r, &text);
    snprintf(why, n, "%s failed: %s", call, text ? text : "unknown CUPTI error");
    return status_of(r);
}

#define TRY(call, params)                                          \
    do {                                                           \
        CUptiResult r_ = call(&params);                            \
        if (r_ != CUPTI_SUCCESS)                                   \
            return fail(r_, #call, why, why_size);                 \
    } while (0)

static measure_status current_context(CUcontext *ctx, char *why, size_t why_size)
{
    CUresult (*get_current)(CUcontext *) = NULL;
    enum cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get_current, 12000,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || get_current(ctx) != CUDA_SUCCESS || !*ctx) {
        snprintf(why, why_size, "no current CUDA context to profile");
        return MEASURE_ERROR;
    }
    return MEASURE_OK;
}

/* Chip name and counter availability of the current device. */
static measure_status device_info(CUcontext ctx, const char **chip, uint8_t **avail,
                                  char *why, size_t why_size)
{
    int dev = 0;
    cudaGetDevice(&dev);
    CUpti_Device_GetChipName_Params name = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    name.deviceIndex = (size_t)dev;
    TRY(cuptiDeviceGetChipName, name);
    *chip = name.pChipName;

    CUpti_Profiler_GetCounterAvailability_Params av = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    av.ctx = ctx;
    TRY(cuptiProfilerGetCounterAvailability, av);
    *avail = calloc(1, av.counterAvailabilityImageSize);
    av.pCounterAvailabilityImage = *avail;
    TRY(cuptiProfilerGetCounterAvailability, av);
    return MEASURE_OK;
}

/* Host object and config image for our metric list. */
static measure_status build_config(cupti_state *s, const char *chip, const uint8_t *avail,
                                   char *why, size_t why_size)
{
    CUpti_Profiler_Host_Initialize_Params hi = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = avail;
    TRY(cuptiProfilerHostInitialize, hi);
    s->host = hi.pHostObject;

    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = s->host;
    add.ppMetricNames = s->metrics;
    add.numMetrics = s->n_metrics;
    TRY(cuptiProfilerHostConfigAddMetrics, add);

    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    sz.pHostObject = s->host;
    TRY(cuptiProfilerHostGetConfigImageSize, sz);
    s->config_size = sz.configImageSize;
    s->config = calloc(1, s->config_size);

    CUpti_Profiler_Host_GetConfigImage_Params img = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    img.pHostObject = s->host;
    img.configImageSize = s->config_size;
    img.pConfigImage = s->config;
    TRY(cuptiProfilerHostGetConfigImage, img);
    return MEASURE_OK;
}

static measure_status alloc_counter_data(cupti_state *s, char *why, size_t why_size)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params cs = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    cs.pRangeProfilerObject = s->profiler;
    cs.pMetricNames = s->metrics;
    cs.numMetrics = s->n_metrics;
    cs.maxNumOfRanges = MAX_RANGES;
    cs.maxNumRangeTreeNodes = MAX_RANGES;
    TRY(cuptiRangeProfilerGetCounterDataSize, cs);
    s->counter_data_size = cs.counterDataSize;
    s->counter_data = calloc(1, s->counter_data_size);
    return MEASURE_OK;
}

static measure_status cupti_open(measure_backend *self, char *why, size_t why_size)
{
    cupti_state *s = self->state;
    CUcontext ctx;
    const char *chip = NULL;
    uint8_t *avail = NULL;
    measure_status st;

    memset(s, 0, sizeof *s);
    for (int m = 0; m < METRIC_COUNTER_COUNT; m++)
        s->metrics[s->n_metrics++] = metric_name((metric_id)m);
    if ((st = current_context(&ctx, why, why_size)) != MEASURE_OK)
        return st;

    CUpti_Profiler_Initialize_Params init = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    TRY(cuptiProfilerInitialize, init);
    s->profiler_initialized = 1;

    CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    TRY(cuptiRangeProfilerEnable, en);
    s->profiler = en.pRangeProfilerObject;

    st = device_info(ctx, &chip, &avail, why, why_size);
    if (st == MEASURE_OK)
        st = build_config(s, chip, avail, why, why_size);
    free(avail);
    if (st == MEASURE_OK)
        st = alloc_counter_data(s, why, why_size);
    return st;
}

/* Start a fresh counter-data image and session configuration. */
static measure_status configure(cupti_state *s, char *why, size_t why_size)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ci.pRangeProfilerObject = s->profiler;
    ci.counterDataSize = s->counter_data_size;
    ci.pCounterData = s->counter_data;
    TRY(cuptiRangeProfilerCounterDataImageInitialize, ci);

    CUpti_RangeProfiler_SetConfig_Params sc = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = s->profiler;
    sc.configSize = s->config_size;
    sc.pConfig = s->config;
    sc.counterDataImageSize = s->counter_data_size;
    sc.pCounterDataImage = s->counter_data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = MAX_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    TRY(cuptiRangeProfilerSetConfig, sc);
    return MEASURE_OK;
}

/* Sum every range's metric values into out. */
static measure_status evaluate(cupti_state *s, measurement *out, char *why, size_t why_size)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = s->counter_data;
    info.counterDataImageSize = s->counter_data_size;
    TRY(cuptiRangeProfilerGetCounterDataInfo, info);
    if (info.numTotalRanges == 0) {
        snprintf(why, why_size, "no kernel ran while the counters were on");
        return MEASURE_NO_KERNEL;
    }
    for (int m = 0; m < METRIC_COUNT; m++)
        out->value[m] = 0.0;
    for (size_t r = 0; r < info.numTotalRanges; r++) {
        double values[METRIC_COUNTER_COUNT];
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = s->host;
        ev.pCounterDataImage = s->counter_data;
        ev.counterDataImageSize = s->counter_data_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = s->metrics;
        ev.numMetrics = s->n_metrics;
        ev.pMetricValues = values;
        TRY(cuptiProfilerHostEvaluateToGpuValues, ev);
        for (size_t m = 0; m < s->n_metrics; m++)
            out->value[m] += values[m];
    }
    if (out->value[METRIC_LDGSTS_REQUESTS] > 0) {
        snprintf(why, why_size, "the kernel copies with cp.async, whose shared wavefronts the "
                 "hardware counters do not tell apart; the trace measures them (--measure trace, "
                 "the default where the Compute Sanitizer is installed)");
        return MEASURE_UNSUPPORTED;
    }
    measure_fold_counters(out);
    return MEASURE_OK;
}

static measure_status measure_once(measure_backend *self, void (*launch)(void *), void *arg,
                                   measurement *out, char *why, size_t why_size)
{
    cupti_state *s = self->state;
    measure_status st = configure(s, why, why_size);
    if (st != MEASURE_OK)
        return st;

    CUpti_RangeProfiler_Start_Params start = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = s->profiler;
    TRY(cuptiRangeProfilerStart, start);
    cudaGetLastError(); /* an error left by earlier work is not this launch's */
    launch(arg);
    cudaError_t launched = cudaGetLastError(); /* a bad launch is not "no kernel" */
    if (launched == cudaSuccess)
        launched = cudaDeviceSynchronize();
    CUpti_RangeProfiler_Stop_Params stop = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = s->profiler;
    TRY(cuptiRangeProfilerStop, stop);
    if (launched != cudaSuccess) {
        snprintf(why, why_size, "the kernel failed under the profiler: %s",
                 cudaGetErrorString(launched));
        return MEASURE_ERROR;
    }

    CUpti_RangeProfiler_DecodeData_Params dec = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dec.pRangeProfilerObject = s->profiler;
    TRY(cuptiRangeProfilerDecodeData, dec);
    if (dec.numOfRangeDropped > 0) { /* an undercount would flatter the kernel */
        snprintf(why, why_size, "the launcher made more than %d launches; the counters "
                 "cannot cover them all", MAX_RANGES);
        return MEASURE_ERROR;
    }
    return evaluate(s, out, why, why_size);
}

static double shared_wavefronts(const measurement *m)
{
    return m->value[METRIC_SHARED_LD_WAVEFRONTS] + m->value[METRIC_SHARED_ST_WAVEFRONTS];
}

/*
 * The hardware's counters now and then count a few shared wavefronts more than a kernel
 * makes: on an H200, transposeSmemPad's tile reads came out 1.05-way in two whole-lab
 * grades of check-gpu and conflict-free in three runs alone, where the trace and Nsight
 * Compute's truth corpus say conflict-free (which saw it too: "not repeatable on the
 * hardware", a store 5/4 in one pass, 4/4 in the next). A kernel's accesses are the same
 * every run on the same bytes, so the measured launch runs twice, the second finding
 * every array as the first did (relaunches: the caller puts them back, problem.c's
 * meter_measure; a kernel that stores into its input or adds into its output would
 * otherwise give a wrong result), and the run with fewer wavefronts is the kernel's:
 * an overcount must then come twice in a row.
 */
static measure_status cupti_measure(measure_backend *self, void (*launch)(void *), void *arg,
                                    measurement *out, char *why, size_t why_size)
{
    measurement again;
    measure_status st = measure_once(self, launch, arg, out, why, why_size);
    if (st != MEASURE_OK)
        return st;
    if (measure_once(self, launch, arg, &again, why, why_size) == MEASURE_OK &&
        shared_wavefronts(&again) < shared_wavefronts(out))
        *out = again;
    return MEASURE_OK;
}

static void cupti_close(measure_backend *self)
{
    cupti_state *s = self->state;
    if (s->profiler) {
        CUpti_RangeProfiler_Disable_Params dis = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        dis.pRangeProfilerObject = s->profiler;
        cuptiRangeProfilerDisable(&dis);
    }
    if (s->host) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {
            .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        hd.pHostObject = s->host;
        cuptiProfilerHostDeinitialize(&hd);
    }
    if (s->profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params di = {.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        cuptiProfilerDeInitialize(&di);
    }
    free(s->config);
    free(s->counter_data);
    memset(s, 0, sizeof *s);
}

measure_backend *measure_cupti_backend(void)
{
    static measure_backend backend = {"cupti-range-profiler", cupti_open, cupti_measure,
                                      cupti_close, &g_state, NULL /* records nothing */,
                                      1 /* cupti_measure runs twice */};
    return &backend;
}
