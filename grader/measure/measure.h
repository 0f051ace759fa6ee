/*
 * measure.h - reading a kernel's memory counters, behind one interface.
 *
 * The grader asks a backend for the counters of one kernel launch at a time.
 * Today the backend is CUPTI's range profiler (hardware counters); a backend
 * that replays an emulated address trace can implement the same calls.
 */
#ifndef SMEMLAB_MEASURE_H
#define SMEMLAB_MEASURE_H

#include <stddef.h>

typedef enum metric_id {
    METRIC_SHARED_LD_REQUESTS,  /* warp-level shared load instructions */
    METRIC_SHARED_ST_REQUESTS,
    METRIC_SHARED_LD_WAVEFRONTS,
    METRIC_SHARED_ST_WAVEFRONTS,
    METRIC_SHARED_LD_CONFLICTS, /* wavefronts beyond one per request phase */
    METRIC_SHARED_ST_CONFLICTS,
    METRIC_GLOBAL_LD_REQUESTS,  /* warp-level global load instructions, cp.async's too */
    METRIC_SHARED_ATOM_REQUESTS, /* shared atomics (ATOMS): a side of their own */
    METRIC_SHARED_ATOM_WAVEFRONTS,
    METRIC_GLOBAL_ST_REQUESTS,  /* warp-level global store instructions (labs 7, 8) */
    /* 32-byte sectors the global loads and stores touched (model/sector.h; lab 9) */
    METRIC_GLOBAL_LD_SECTORS,
    METRIC_GLOBAL_ST_SECTORS,
    /* warp-level global atomic and reduction instructions (atom.global, red.global; ATOMG,
       RED): read-modify-writes of global memory, neither loads nor stores (labs 7, 8 count
       them with the stores: docs/lab7.md#grader). The counters read the atomics here and
       the reductions in METRIC_GLOBAL_RED_REQUESTS, folded in. */
    METRIC_GLOBAL_ATOM_REQUESTS,
    /* What the counters read beside, folded into the sides above by
       measure_fold_counters (the trace and the emulator fill the sides directly):
       ldmatrix requests are loads, stmatrix and cp.async's shared side stores, and
       cp.async a global load; its shared wavefronts are the rest of all of them; global
       reductions are global atomics. */
    METRIC_LDSM_REQUESTS,
    METRIC_STSM_REQUESTS,
    METRIC_LDGSTS_REQUESTS,
    METRIC_SHARED_ALL_WAVEFRONTS,
    METRIC_GLOBAL_RED_REQUESTS,
    /* Warp-level shuffle instructions (shfl.sync; lab 8): counted by the trace and
       the emulator; the counters have no such counter and give -1 (not counted). */
    METRIC_SHUFFLES,
    /* The sectors those global loads and stores would take for their widths and lanes
       laid end to end (sector_ideal): the trace and the emulator know them; the
       counters give 0 (unknown), and the grader takes the exercise's model. */
    METRIC_GLOBAL_LD_IDEAL,
    METRIC_GLOBAL_ST_IDEAL,
    /* Lab 10, the emulator alone (the trace and the counters leave them 0; the checks
       built on them say "not graded" there): warp-level constant-memory loads
       (ld.const), the distinct addresses of each summed (the constant cache serves a
       warp's request one distinct address after another), and the global loads of the
       range measure_watch_range names, plain and through the read-only cache
       (ld.global.nc). */
    METRIC_CONST_LD_REQUESTS,
    METRIC_CONST_LD_ADDRESSES,
    METRIC_WATCH_LD_PLAIN,
    METRIC_WATCH_LD_NC,
    /* Lab 10 too, the emulator alone: the lanes the constant loads served, those loads
       that read a slice of the array (8 lanes or more, distinct words evenly spaced: a
       copy, not a lookup by key), the warps of the measured launches that stored to
       global memory, and of them those that made no constant load (their outputs'
       coefficients or table came from elsewhere); the same of the watched range's loads. */
    METRIC_CONST_LD_LANES,
    METRIC_CONST_LD_SLICES,
    METRIC_WATCH_LD_LANES,
    METRIC_WATCH_LD_SLICES,
    METRIC_STORE_WARPS,
    METRIC_STORE_WARPS_NO_CONST,
    METRIC_STORE_WARPS_NO_WATCH,
    METRIC_COUNT
} metric_id;

/* The metrics the hardware counters read: all but the shuffles. */
#define METRIC_COUNTER_COUNT METRIC_SHUFFLES

/* The first metric a backend that records accesses leaves at 0 (see above). */
#define METRIC_FIRST_RAW METRIC_LDSM_REQUESTS

typedef enum measure_status {
    MEASURE_OK,
    MEASURE_NOT_PERMITTED, /* the driver restricts counters to admins */
    MEASURE_UNSUPPORTED,   /* no backend for this device or build */
    MEASURE_ERROR,
    MEASURE_NO_KERNEL,     /* the launch under measurement launched nothing */
    MEASURE_DISABLED,      /* the user asked for no counters (--no-counters) */
    MEASURE_WRONG_RESULT   /* measured, but the run gave a wrong result: nothing earned */
} measure_status;

typedef struct measurement {
    double value[METRIC_COUNT];
    /*
     * Wavefronts the shared loads and stores would need with no conflict at
     * all, for the widths the kernel actually used (one per 128 bytes a warp
     * touches). A backend that knows them (the trace) sets them; 0 means
     * unknown, and the grader then takes the ideal from the model of the
     * exercise. Backends start from measure_clear(), which zeroes both.
     * They count only when ideal_set is MEASURE_IDEAL_SET: a backend that
     * never heard of them (and leaves the struct as it found it) cannot
     * have stack garbage read as an ideal.
     */
    double ideal_ld, ideal_st;
    unsigned ideal_set;
} measurement;

#define MEASURE_IDEAL_SET 0x1dea15e7u

/* Zero every value (call before a backend fills *m). */
void measure_clear(measurement *m);

/* The hardware counters' raw values folded into the sides (see metric_id). */
void measure_fold_counters(measurement *m);

struct trace_summary; /* grader/measure/access/trace.h */

typedef struct measure_backend measure_backend;
struct measure_backend {
    const char *name;
    /* Prepare to measure kernels on the current device. */
    measure_status (*open)(measure_backend *self, char *why, size_t why_size);
    /* Counters of exactly the launches made by launch(arg) (one kernel). */
    measure_status (*measure)(measure_backend *self, void (*launch)(void *), void *arg,
                              measurement *out, char *why, size_t why_size);
    void (*close)(measure_backend *self);
    void *state;
    /*
     * Backends that record every access (the trace, the emulator): the
     * analysis of the launch measure() measured last (sites and their lines,
     * races, bounds, the first block's threads), valid until the next
     * measure; the launched function's name in *function. NULL as a member
     * where a backend records nothing (the counters), or as a result when
     * nothing was measured yet.
     */
    const struct trace_summary *(*last_trace)(measure_backend *self, const char **function);
    /* 1 where measure() may call launch(arg) more than once (the counters: twice; the
       trace: again with a bigger buffer): each call must then find every array as the
       first did (problems/problem.c's meter_measure puts them back). */
    int relaunches;
};

/*
 * Lab 10: count the global loads of the device bytes [lo, lo + bytes) apart
 * (METRIC_WATCH_LD_*) in the measurements that follow; bytes 0 ends it. Only
 * the emulator's meter, which sees each load's state space, counts them.
 */
void measure_watch_range(const void *lo, size_t bytes);

/*
 * The inputs of the launches that follow: the arrays [lo[i], hi[i]) the kernel must only
 * read (labs/calls.h, call_spec.inputs), named by the device (run/device.h). A backend
 * that records every global access (the emulator's meter; the trace's patches, handed them
 * by measure_trace_inputs) keeps the first store or atomic into one in its summary
 * (trace.h: input_write). n 0: none. At most MEASURE_MAX_INPUTS.
 */
#define MEASURE_MAX_INPUTS 4
void measure_inputs(const unsigned long long *lo, const unsigned long long *hi, int n);

/* The counter names a hardware backend reads, by id. */
const char *metric_name(metric_id id);

/* Backends. */
measure_backend *measure_cupti_backend(void);
measure_backend *measure_none_backend(const char *reason);
/*
 * The trace backend (Compute Sanitizer API, no counter permission needed):
 * measure_trace.c, built only where the sanitizer headers exist, in a
 * library loaded at run time. Open it before the process's first CUDA call.
 * NULL with why filled where it is not built or not installed.
 */
measure_backend *measure_trace_backend(char *why, size_t why_size);

/* --measure: which backend grades the conflict checks. */
typedef enum measure_mode {
    MEASURE_MODE_AUTO,     /* the trace where it is installed, else the counters; the
                              emulator where there is no usable GPU */
    MEASURE_MODE_COUNTERS,
    MEASURE_MODE_TRACE,
    MEASURE_MODE_EMULATOR  /* the PTX emulator, a GPU or not (docs/emulator.md) */
} measure_mode;

/* "auto", "counters", "trace", "emulator" <-> mode; parse returns -1 on anything else. */
const char *measure_mode_name(measure_mode m);
int measure_mode_parse(const char *s, measure_mode *out);

/*
 * Open the backend the mode asks for and say in `line` which one it is and
 * why, for the report's device line ("trace (Compute Sanitizer): ...",
 * "counters (CUPTI), as --measure counters asks"). auto opens the trace and
 * takes it; where it does not open, the counters (the two cannot share a
 * process, measure.c). counters/trace may be NULL (not available). Returns
 * the opened backend, or NULL with *status and line saying why nothing could
 * be opened.
 */
measure_backend *measure_choose(measure_mode mode, measure_backend *counters,
                                measure_backend *trace, const char *trace_missing,
                                measure_status *status, char *line, size_t line_size);

/* What the student should do about a status, one line. */
const char *measure_status_advice(measure_status s);

#endif /* SMEMLAB_MEASURE_H */
