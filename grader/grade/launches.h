/*
 * launches.h - smemlab-grade --check-launches: what each launcher launches,
 * found by the recorder alone (no GPU needed), or how it breaks the lab's
 * contract. A student can check launch configurations on a laptop.
 */
#ifndef SMEMLAB_LAUNCHES_H
#define SMEMLAB_LAUNCHES_H

#include "../labs/lab_table.h"
#include "worker.h"

#include <stdio.h>

/* Print the launches of lab's library; returns the exit status (0, 1 or 3). */
int check_launches(const lab_def *lab, const grade_options *opt, FILE *out);

#endif
