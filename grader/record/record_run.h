/*
 * record_run.h - the grader's side of recording: start the recorder, read
 * its records within a deadline, turn them into plans (plan.h).
 *
 * A launcher that crashes, hangs, exits or writes anything but records costs
 * only its own kernel: the recorder is stopped (with anything it started)
 * and a fresh one records the kernels after it.
 */
#ifndef SMEMLAB_RECORD_RUN_H
#define SMEMLAB_RECORD_RUN_H

#include "../base/child.h"
#include "../base/grade_options.h"
#include "../image/lab_image.h"
#include "../labs/lab_table.h"
#include "plan.h"

/*
 * Decide plans[k] for every kernel of lab (plans holds lab->n_kernels).
 * printed collects what the student's host code printed. Returns 0, or -1
 * with why when the recorder itself cannot run (an environment error).
 */
int record_lab(const lab_def *lab, const lab_image *img, const grade_options *opt,
               kernel_plan *plans, capture *printed, char *why, size_t why_size);

/* Where the recorder and its fake runtime are: next to the running grader. */
void record_default_paths(char *recorder, size_t rsize, char *fake, size_t fsize);

#endif
