/*
 * runner.h - grading a lab: record the launchers, then measure the kernels.
 *
 * The grader (this process) owns the plan and the points: the lab table
 * says which kernels and checks run and what each is worth. The untrusted
 * recorder says only what the launchers launch (record/); the measuring
 * worker (worker.h) reports only outcomes of the checks it was asked for,
 * and every message is checked here. Nothing is lost when a kernel crashes
 * or hangs: it gets a failing check that says what happened, and a fresh
 * worker grades the rest.
 */
#ifndef SMEMLAB_RUNNER_H
#define SMEMLAB_RUNNER_H

#include "../base/check.h"
#include "../labs/lab_table.h"
#include "../score/score.h"
#include "worker.h"

/* Grade every kernel of lab with the library opt->lib_path. */
void run_lab(const lab_def *lab, const grade_options *opt, lab_result *out);

/*
 * What runs in a worker process: grade kernels from `first` on, talking
 * through fd, and never return. worker_main in production; the tests plug in
 * workers that hang, crash or lie, to prove the runner copes with each.
 */
typedef void (*worker_entry)(const grade_job *job, int first, int fd);

/* The measuring half of run_lab, for a job whose plans are decided. */
void run_plans(const grade_job *job, worker_entry entry, lab_result *out);

/* Seconds a worker may spend on one kernel, whatever it says: no message extends it. */
double kernel_budget_s(const grade_options *opt);

#endif /* SMEMLAB_RUNNER_H */
