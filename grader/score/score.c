/* score.c - totals and the exit status; see score.h. */
#include "score.h"

#include "../base/exit_codes.h"

#include <stdlib.h>
#include <string.h>

void score_add(score *s, const lab_result *r)
{
    /* A lab that stopped part-way keeps what it graded before it stopped. */
    s->env_errors += r->env_code != 0;
    for (int i = 0; i < r->n_checks; i++) {
        const check_result *c = &r->checks[i];
        s->points += c->points;
        s->max_points += c->max_points;
        s->passed += c->status == CHECK_PASS;
        s->failed += c->status == CHECK_FAIL;
        s->waiting += check_waits(c);
        s->not_measured += c->status == CHECK_NOT_MEASURED;
        s->skipped += c->status == CHECK_SKIPPED;
        s->not_graded += c->status == CHECK_NOT_GRADED;
    }
}

int score_exit_code(const score *s)
{
    if (s->failed)
        return EXIT_CHECK_FAILED;
    if (s->env_errors)
        return EXIT_ENVIRONMENT;
    if (s->not_measured || s->not_graded)
        return EXIT_NOT_MEASURED;
    return EXIT_ALL_PASSED;
}

void lab_result_free(lab_result *r)
{
    free(r->checks);
    free(r->host_printed);
    free(r->device_printed);
    free(r->predictions);
    free(r->places);
    memset(r, 0, sizeof *r);
}
