/*
 * worker.h - the process that runs a student's kernels.
 *
 * The grader forks a worker that opens the GPU, loads the lab library and
 * grades kernels from a given index on, sending each check back through a
 * pipe. A kernel that crashes the worker or hangs costs only that kernel:
 * the grader starts a new worker at the next one (runner.c).
 */
#ifndef SMEMLAB_WORKER_H
#define SMEMLAB_WORKER_H

#include "check.h"
#include "lab_table.h"
#include "loader.h"
#include "measure/measure.h"
#include "run/gpu.h"

/* Messages from worker to grader. */
typedef enum worker_msg_type {
    MSG_DEVICE,      /* text: GPU name and what was measured with */
    MSG_BEGIN,       /* kernel index starts */
    MSG_CHECK,       /* one check result */
    MSG_PROGRESS,    /* a new launch starts: the time limit starts again */
    MSG_END,         /* kernel index done */
    MSG_ENVIRONMENT  /* text: the lab or GPU cannot be used; stop */
} worker_msg_type;

typedef struct worker_msg {
    worker_msg_type type;
    int kernel;
    int env_code;   /* MSG_ENVIRONMENT: exit status class (see main.c) */
    char text[1024];
    check_result check;
} worker_msg;

typedef struct grade_options {
    const char *lib_path;
    int device;
    int repeats;          /* correctness runs per kernel */
    int use_counters;     /* 0: --no-counters */
    double timeout_s;     /* per kernel */
    unsigned long long seed;
} grade_options;

/* What a problem module needs while grading one kernel. */
typedef struct worker_env {
    const lab_def *lab;
    const grade_options *opt;
    lab_lib lib;
    gpu_info gpu;
    measure_backend *meter;
    measure_status meter_status;
    char meter_why[256];
    int fd; /* pipe to the grader */
} worker_env;

/* Returned by a problem module when the CUDA context is lost. */
#define KERNEL_CONTEXT_LOST 1

/* Send one check to the grader. */
void worker_emit(worker_env *env, const check_result *c);

/*
 * Tell the grader a new launch (or host reference) starts: the time limit
 * applies to each launch, not to all the sizes of a kernel together.
 */
void worker_progress(worker_env *env);

/* Grade every kernel from index `first` on; never returns. */
void worker_main(const lab_def *lab, const grade_options *opt, int first, int fd)
    __attribute__((noreturn));

/* Problem modules: grade one kernel. */
int tile_grade_kernel(worker_env *env, const lab_kernel *k);
int matmul_grade_kernel(worker_env *env, const lab_kernel *k);
int conv_grade_kernel(worker_env *env, const lab_kernel *k);

#endif /* SMEMLAB_WORKER_H */
