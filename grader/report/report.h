/* report.h - writing results: text for people, JSON for machines. */
#ifndef SMEMLAB_REPORT_H
#define SMEMLAB_REPORT_H

#include "../runner.h"
#include "../score.h"

#include <stdio.h>

typedef struct report_style {
    int color;   /* ANSI colours (a terminal, NO_COLOR unset) */
    int verbose; /* hints for passing checks too, measured/expected always */
} report_style;

void report_text_lab(FILE *f, const lab_result *r, const report_style *st);
void report_text_total(FILE *f, const score *s);

/* Whole run as JSON; returns 0, or -1 with errno set when f fails. */
int report_json(FILE *f, const lab_result *results, int n, const score *s, int exit_code);

/*
 * Judge the PREDICT lines of the student's lab file (source; NULL: none)
 * against the conflict degrees measured, into r->predictions. No points.
 */
void report_judge_predictions(lab_result *r, const char *source);

#endif
