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
    METRIC_GLOBAL_LD_REQUESTS,  /* warp-level global load instructions */
    METRIC_COUNT
} metric_id;

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
} measurement;

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
};

/* The counter names a hardware backend reads, by id. */
const char *metric_name(metric_id id);

/* Backends. */
measure_backend *measure_cupti_backend(void);
measure_backend *measure_none_backend(const char *reason);

/* What the student should do about a status, one line. */
const char *measure_status_advice(measure_status s);

#endif /* SMEMLAB_MEASURE_H */
