/* score.h - points per lab and overall, and the exit status they imply. */
#ifndef SMEMLAB_SCORE_H
#define SMEMLAB_SCORE_H

#include "../grade/runner.h"

typedef struct score {
    double points, max_points;
    int failed, not_measured, passed, skipped;
    int not_graded; /* checks an instrument could not grade (CHECK_NOT_GRADED) */
    int env_errors;
} score;

/* Add one lab's checks (and whether it could run at all) to *s. */
void score_add(score *s, const lab_result *r);

/* Exit status for the whole run (exit_codes.h). */
int score_exit_code(const score *s);

#endif
