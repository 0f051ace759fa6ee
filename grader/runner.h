/*
 * runner.h - grading a lab in isolated worker processes.
 *
 * Nothing is lost when a kernel crashes or hangs: the kernel gets a failing
 * check that says what happened, and a fresh worker grades the rest.
 */
#ifndef SMEMLAB_RUNNER_H
#define SMEMLAB_RUNNER_H

#include "check.h"
#include "lab_table.h"
#include "worker.h"

typedef struct lab_result {
    const lab_def *lab;
    check_result *checks;
    int n_checks, cap;
    char device[1024];  /* GPU and counter backend, as the worker saw them */
    int env_code;       /* 0, or EXIT_ENVIRONMENT when the lab could not run */
    char env_text[1024];
    double seconds;     /* wall time of the whole lab */
} lab_result;

/* Grade every kernel of lab with the library opt->lib_path. */
void run_lab(const lab_def *lab, const grade_options *opt, lab_result *out);

/*
 * What runs in a worker process: grade kernels from `first` on, talking
 * through fd, and never return. worker_main in production; the tests plug in
 * workers that hang, crash or lie, to prove the runner copes with each.
 */
typedef void (*worker_entry)(const lab_def *lab, const grade_options *opt, int first, int fd);
void run_lab_with(const lab_def *lab, const grade_options *opt, worker_entry entry,
                  lab_result *out);

void lab_result_free(lab_result *r);


#endif /* SMEMLAB_RUNNER_H */
