/*
 * report_predict.c - the student's predictions (predict.h) against what was
 * measured: one line each, no points. Runs in the grader on the conflict
 * degrees its checks recorded.
 */
#include "report.h"

#include "../compare/predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREDICTIONS_TEXT 8192

static void append(char *buf, size_t *at, const char *line)
{
    int n = snprintf(buf + *at, PREDICTIONS_TEXT - *at, "%s\n", line);
    if (n > 0 && *at + (size_t)n < PREDICTIONS_TEXT)
        *at += (size_t)n;
}

void report_judge_predictions(lab_result *r, const char *source)
{
    static predict_set set;
    char err[256], line[320];
    size_t at = 0;
    int right = 0, judged = 0, not_judged = 0;

    if (!source || predict_parse(source, &set, err, sizeof err) != 0 || set.count == 0)
        return;
    char *text = calloc(1, PREDICTIONS_TEXT);
    if (!text)
        return;
    for (int i = 0; i < r->n_checks; i++) {
        const check_result *c = &r->checks[i];
        predict_access access;
        check_id id = check_id_of(c->check);
        if (id == CHK_STORE_CONFLICTS)
            access = PREDICT_STORE;
        else if (id == CHK_LOAD_CONFLICTS ||
                 id == CHK_SMEM_CONFLICTS) /* labs 5 to 10: the loads' degree */
            access = PREDICT_LOAD;
        else if (id == CHK_CONST_SERIAL) /* lab 10: distinct addresses a request */
            access = PREDICT_CONST;
        else
            continue;
        const prediction *p = predict_find(&set, c->kernel, access);
        if (!p)
            continue;
        /* measured where the check was; judged as the check judges the code, and not at
           all where the code is what failed it */
        int measured = c->degree > 0 && (c->status == CHECK_PASS || c->status == CHECK_FAIL);
        predict_against against = {measured ? c->degree : -1, c->accept_lo, c->accept_hi,
                                   c->status == CHECK_FAIL, c->check};
        predict_verdict v = predict_judge(p, &against, line, sizeof line);
        judged += v == PREDICT_RIGHT || v == PREDICT_WRONG;
        right += v == PREDICT_RIGHT;
        not_judged += v == PREDICT_NOT_JUDGED;
        append(text, &at, line);
    }
    for (int i = 0; i < set.n_notes; i++)
        append(text, &at, set.notes[i]);
    if (at == 0) {
        free(text);
        return;
    }
    if (not_judged && !judged) /* "0 of 0 right" read as a score */
        snprintf(line, sizeof line, "%d prediction%s wait%s for the code to pass %s check, none "
                 "judged yet", not_judged, not_judged == 1 ? "" : "s", not_judged == 1 ? "s" : "",
                 not_judged == 1 ? "its" : "their");
    else if (not_judged)
        snprintf(line, sizeof line, "%d of %d predictions right (%d wait%s for the code to pass "
                 "its check)", right, judged, not_judged, not_judged == 1 ? "s" : "");
    else
        snprintf(line, sizeof line, "%d of %d predictions right", right, judged);
    append(text, &at, line);
    r->predictions = text;
}
