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
#include "worker.h"

/* Where a kernel lives in the student's file (0: not found): the report points there. */
typedef struct kernel_place {
    int kernel;        /* its __global__ line */
    int todo;          /* the TODO that asks for it: inside its body, else just above it */
    int launcher_todo; /* a TODO inside or above its launcher */
} kernel_place;

typedef struct lab_result {
    const lab_def *lab;
    check_result *checks; /* in the table's order: kernel by kernel */
    int n_checks, cap;
    double points, max_points; /* computed once, here; every report uses these */
    char device[1024];  /* GPU and counter backend, as the worker saw them */
    int env_code;       /* 0, or EXIT_ENVIRONMENT when the lab could not run */
    char env_text[1024];
    double seconds;     /* wall time of the whole lab */
    char *host_printed;   /* what the launchers (host code) printed, capped; NULL: nothing */
    char *device_printed; /* what the kernels printed (device printf), capped; NULL: nothing */
    int rejected_messages; /* worker messages refused (unknown id, duplicate, bad index) */
    char *predictions;     /* the student's predictions judged, one per line; NULL: none */
    char source[256];      /* the student's file the places are in ("": none read) */
    kernel_place *places;  /* one per kernel of lab, or NULL (report_find_places) */
} lab_result;

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

void lab_result_free(lab_result *r);

/* Seconds a worker may spend on one kernel, whatever it says: no message extends it. */
double kernel_budget_s(const grade_options *opt);

#endif /* SMEMLAB_RUNNER_H */
