/*
 * worker.h - the measuring process: it runs the student's kernels, never
 * the student's host code.
 *
 * The grader forks a worker after the recorder's launches were validated
 * (record_run.h). The worker opens the GPU, loads the student's device code
 * from the lab file (run/module.h), replays the validated launches on its
 * own buffers, and reports each check's outcome through a pipe. Only
 * outcomes: which checks run and what they are worth is the grader's
 * (runner.c), which also checks every message. A kernel that crashes the
 * worker or hangs costs only that kernel: the grader starts a new worker at
 * the next one.
 */
#ifndef SMEMLAB_WORKER_H
#define SMEMLAB_WORKER_H

#include "check.h"
#include "exit_codes.h"
#include "image/lab_image.h"
#include "lab_table.h"
#include "measure/measure.h"
#include "access/trace.h"
#include "record/plan.h"
#include "run/gpu.h"
#include "run/module.h"

/* Messages from worker to grader. */
typedef enum worker_msg_type {
    MSG_DEVICE = 1,  /* text: GPU name and what was measured with */
    MSG_BEGIN,       /* kernel index starts */
    MSG_CHECK,       /* one check's outcome */
    MSG_END,         /* kernel index done */
    MSG_ENVIRONMENT, /* text: the lab or GPU cannot be used; stop */
    MSG_GPU_WAIT,    /* text: the lock file; another grader measures on this GPU */
    MSG_GPU_HELD,    /* this worker has the GPU to itself from now on (gpu_lock.h) */
    MSG_EXIT         /* meter server to its proxy only (meter_server.h): the lab is done,
                        kernel: the status a worker would have exited with */
} worker_msg_type;

typedef struct worker_msg {
    int type;
    int kernel;
    char text[1024];
    check_result check; /* MSG_CHECK: status, measured, expected, message, hint; the
                           grader ignores any points in it */
} worker_msg;

typedef struct grade_options {
    const char *lib_path;
    int device;
    int repeats;          /* correctness runs per kernel */
    int use_counters;     /* 0: --no-counters */
    int measure;          /* measure_mode: --measure auto|counters|trace */
    double timeout_s;     /* per launch */
    unsigned long long seed;
    const char *run_as;   /* --run-as: the user the recorder runs as (when root) */
    const char *recorder; /* the recorder program; NULL: next to the grader */
    double kernel_budget_s; /* a worker's whole time for one kernel; 0: kernel_budget_s() */
    double gpu_wait_s;    /* how long to wait for another grader's GPU; 0: 30 minutes */
    int status_fd;        /* --status-fd: "gpu\n" written when the GPU is held; 0: none */
    const char *meter_socket; /* --meter-socket: measure through this meter server */
    const char *only_kernel;  /* --kernel: grade this kernel of the lab alone (NULL: all) */
} grade_options;

/* Everything a worker needs, decided by the grader before it is forked. */
typedef struct grade_job {
    const lab_def *lab;
    const grade_options *opt;
    const lab_image *img;
    const kernel_plan *plans; /* one per kernel of lab */
} grade_job;

/* What a problem module needs while grading one kernel. */
typedef struct worker_env {
    const lab_def *lab;
    const grade_options *opt;
    const lab_image *img;
    int kernel;              /* index of the kernel being graded */
    const kernel_plan *plan; /* its validated launches */
    device_module mod;
    gpu_info gpu;
    measure_backend *meter;
    measure_status meter_status;
    char meter_why[512];
    char meter_line[512]; /* which backend and why, for the device line */
    /* The trace, for the race check and the source lines: the meter when it
       is the trace, else NULL and tracer_why says why. */
    measure_backend *tracer;
    char tracer_why[256];
    int fd; /* pipe to the grader */
    /* What the lab's PTX declares (shared bytes, state spaces), read once a
       lab; NULL with decls_why where it cannot be read. */
    struct lab_decls *decls;
    char decls_why[256];
} worker_env;

/* Returned by a problem module when the CUDA context is lost. */
#define KERNEL_CONTEXT_LOST 1

/* Measure the launches of launch(arg) with the meter, out cleared first and the
   watchdog armed (the problem modules' only way to). */
measure_status worker_measure(worker_env *env, void (*launch)(void *), void *arg,
                              measurement *out, char *why, size_t why_size);

/*
 * The trace of the launch worker_measure measured last, for the race check
 * and the source lines; NULL with why filled where the meter is not the
 * trace (the counters: the two cannot share a process) or saw nothing.
 */
const trace_summary *worker_trace(worker_env *env, char *why, size_t why_size);

/*
 * The race check of the launch worker_measure measured last (st, why: its
 * outcome): judged from the trace, also when that run came out wrong; a
 * launch that could not be measured says so, as the other checks do.
 */
void worker_judge_races(worker_env *env, check_result *c, measure_status st, const char *why);

/*
 * With SMEMLAB_TIMINGS=1 in the environment, the worker prints to stderr how
 * long each phase of grading a kernel took ("correct", "measure", "speed"):
 * the time since the last mark, for finding where grading time goes. It also
 * runs each instrumented launch plain once first and prints both times: a
 * developer's tool (make bench-loops), not for grading (the measured run then
 * finds the plain run's output already in place).
 */
void worker_mark(const worker_env *env, const char *phase);

/*
 * Lab 2's lesson (and 3 and 4's dynamic kernels): the tile is dynamic. The
 * kernel the call launches declares no static __shared__ bytes, takes an
 * extern __shared__ array, and the launch gives at least `need` bytes.
 */
void worker_judge_dynamic(worker_env *env, const call_plan *call, uint32_t need,
                          check_result *c);

/*
 * Shared memory out of bounds: where an access of the measured launch
 * reached past the kernel's shared bytes (its static arrays plus the bytes
 * the launch gives), correct fails naming the line and the offset, whether
 * or not the GPU happened to fault.
 */
void worker_judge_bounds(worker_env *env, const call_plan *call, const trace_summary *s,
                         check_result *correct);

/* A message of type with text (cut to fit), everything else zero. */
void worker_msg_text(worker_msg *m, int type, int kernel, const char *text);

/* Send one check to the grader. */
void worker_emit(worker_env *env, const check_result *c);

/* One replay of a call, for the launch callbacks of gpu_run, timing and measuring. */
typedef struct replay {
    const worker_env *env;
    const call_plan *plan;
    void *bufs[CALL_MAX_BUFFERS];
} replay;
void replay_launch(void *replay_arg);

/* Grade every kernel with a plan from index `first` on; never returns. */
void worker_main(const grade_job *job, int first, int fd) __attribute__((noreturn));

/*
 * The same in steps, for a meter server that grades many labs in one
 * process: open the GPU once (0, or -1 with why), grade a job (0; -1 after
 * telling an environment error through fd; KERNEL_CONTEXT_LOST: nothing
 * more can run in this process), and give the GPU's turn back while idle.
 */
int worker_open(worker_env *env, const grade_options *opt, char *why, size_t why_size);
int worker_grade(worker_env *env, const grade_job *job, int first, int fd);
int worker_has_turn(void);
void worker_pause(worker_env *env);

/* Problem modules: grade one kernel. */
int tile_grade_kernel(worker_env *env, const lab_kernel *k);
int matmul_grade_kernel(worker_env *env, const lab_kernel *k);
int conv_grade_kernel(worker_env *env, const lab_kernel *k);
int idiom_grade_kernel(worker_env *env, const lab_kernel *k);
int reduce_grade_kernel(worker_env *env, const lab_kernel *k);

#endif /* SMEMLAB_WORKER_H */
