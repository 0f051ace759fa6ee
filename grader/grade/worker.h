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

#include "../base/check.h"
#include "../base/exit_codes.h"
#include "../base/grade_options.h"
#include "../image/lab_image.h"
#include "../labs/lab_table.h"
#include "../problems/problem.h"
#include "../record/plan.h"

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

/* Everything a worker needs, decided by the grader before it is forked. */
typedef struct grade_job {
    const lab_def *lab;
    const grade_options *opt;
    const lab_image *img;
    const kernel_plan *plans; /* one per kernel of lab */
} grade_job;

/*
 * A measuring process: the env its problem kinds are given (problems/problem.h),
 * and what outlives one lab in a meter server (how it measures, whether the GPU
 * is its turn). The process owns one; nothing of it is kept anywhere else.
 */
typedef struct worker {
    worker_env env;
    measure_backend *trace; /* subscribed before the first CUDA call (early_trace) */
    measure_status trace_status;
    char trace_why[512];
    int lock_fd;    /* the GPU's lock while held; -1 otherwise */
    int has_turn;   /* the lock was tried (held, or no lock file to hold) */
    int meter_open;
} worker;

/* A message of type with text (cut to fit), everything else zero. */
void worker_msg_text(worker_msg *m, int type, int kernel, const char *text);

/* Grade every kernel with a plan from index `first` on; never returns. */
void worker_main(const grade_job *job, int first, int fd) __attribute__((noreturn));

/*
 * The same in steps, for a meter server that grades many labs in one
 * process: open the GPU once (0, or -1 with why), grade a job (0; -1 after
 * telling an environment error through fd; KERNEL_CONTEXT_LOST: nothing
 * more can run in this process), and give the GPU's turn back while idle.
 */
int worker_open(worker *w, const grade_options *opt, char *why, size_t why_size);
int worker_grade(worker *w, const grade_job *job, int first, int fd);
int worker_has_turn(const worker *w);
void worker_pause(worker *w);

#endif /* SMEMLAB_WORKER_H */
