/*
 * problem.h - a problem kind: how the kernels of one kind of lab are graded
 * (tile.c: labs 1 to 4, matmul.c: lab 5, conv.c: lab 6, reduce.c: labs 7 and 8,
 * stencil.c: lab 10, idiom.c: the truth corpus), and what every kind is given and may call.
 *
 * The worker (grade/worker.c) loads the student's code, opens the device and
 * the meter, fills a worker_env and calls problem_grade for each kernel. A
 * kind runs the kernel's validated launches on its own buffers (run/), holds
 * the output to the host reference (reference/), measures through the
 * calls below (measure/), judges with compare/ and emits each check: it
 * reaches nothing above it, so a new kind is one file here and one row in
 * problem.c's table (docs: ARCHITECTURE.md, "Add a lab").
 *
 * May include: base/, labs/, image/, record/plan.h, run/, measure/,
 * reference/, compare/. Never grade/, score/, report/, cli/.
 */
#ifndef SMEMLAB_PROBLEM_H
#define SMEMLAB_PROBLEM_H

#include "../base/check.h"
#include "../base/grade_options.h"
#include "../image/lab_image.h"
#include "../labs/lab_table.h"
#include "../measure/access/trace.h"
#include "../measure/measure.h"
#include "../record/plan.h"
#include "../run/gpu.h"
#include "../run/module.h"

/* What a problem kind is given while it grades one kernel (the worker fills it). */
typedef struct worker_env worker_env;
struct worker_env {
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
    /* How a check's outcome reaches the grader (worker_emit calls it): the
       worker's, which sends it through fd. */
    void (*emit)(worker_env *env, const check_result *c);
    /* What the lab's PTX declares (shared bytes, state spaces), read once a
       lab; NULL with decls_why where it cannot be read. */
    struct lab_decls *decls;
    char decls_why[256];
};

/* Returned by a problem kind when the CUDA context is lost. */
#define KERNEL_CONTEXT_LOST 1

/* Measure the launches of launch(arg) with the meter, out cleared first and the
   watchdog armed (the problem kinds' only way to). */
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
/* The kernel's check slots c[0 .. n), named ids[i]: each initialised, with the points
   the lab table gives it; listed[i] (listed may be NULL) set where the table names
   it, 0 points or more. A check the table does not name keeps 0 points: not run. */
void worker_init_checks(const worker_env *env, const lab_kernel *k, const char *const *ids,
                        int n, check_result *c, int *listed);

/* Checks from .. to-1 of a kernel that did not run, but those whose bit is set in skip:
   not graded like correct where correct was not graded (an instrument's limit), else
   failed "not run". */
void worker_checks_not_run(check_result *c, int correct, int from, int to, unsigned long skip);

/* Whether a kernel's speed is to be timed now (1, right being correct's outcome and lost
   whether the context is gone); else 0 with speed saying why: not graded like correct,
   not measured where emulated, or not timed while the kernel is not correct. */
int worker_speed_due(const check_result *correct, check_result *speed, run_outcome right,
                     int lost);

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

/*
 * Synchronisation (docs/emulator.md#sync): where the launch worker_measure measured
 * last (st: its outcome) had a barrier not every thread reached, or a warp primitive
 * whose mask names lanes not there, correct fails naming it, and race (NULL: none)
 * where it is a barrier's. Called after the kind's own correct and race verdicts.
 */
void worker_judge_sync(worker_env *env, check_result *correct, check_result *race,
                       measure_status st);

/* Send one check to the grader (env->emit). */
void worker_emit(worker_env *env, const check_result *c);

/* Grade kernel k of env->lab (env->kernel, env->plan set) by its lab's kind: 0, or
   KERNEL_CONTEXT_LOST (nothing more can run in this process). */
int problem_grade(worker_env *env, const lab_kernel *k);

/* The kinds: grade one kernel (problem_grade calls the lab's). */
int tile_grade_kernel(worker_env *env, const lab_kernel *k);
int matmul_grade_kernel(worker_env *env, const lab_kernel *k);
int conv_grade_kernel(worker_env *env, const lab_kernel *k);
int idiom_grade_kernel(worker_env *env, const lab_kernel *k);
int reduce_grade_kernel(worker_env *env, const lab_kernel *k);
int transpose_grade_kernel(worker_env *env, const lab_kernel *k);
int stencil_grade_kernel(worker_env *env, const lab_kernel *k);

#endif /* SMEMLAB_PROBLEM_H */
