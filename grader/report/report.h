/* report.h - writing results: text for people, JSON for machines. */
#ifndef SMEMLAB_REPORT_H
#define SMEMLAB_REPORT_H

#include "../score/score.h"

#include <stdio.h>

#define REPORT_MAX_SAID 64

typedef struct report_style {
    int color;   /* ANSI colours (a terminal, NO_COLOR unset) */
    int verbose; /* every check, hints for passing checks too, measured/expected always */
    const char *build_dir; /* where make put the rendered course (NULL: "build") */
    int handin;  /* a handed-in file (an autograder): the Next: line names no make command */
    /* The hints printed so far: a report says each once. */
    const char *said[REPORT_MAX_SAID];
    int n_said;
} report_style;

/*
 * One lab. Compact unless verbose: a kernel whose checks all pass, that was
 * never started, or that no instrument could grade is one line; checks that
 * could not run until another passes are one line; a hint is said once.
 */
void report_text_lab(FILE *f, const lab_result *r, report_style *st);
void report_text_total(FILE *f, const score *s);

/* The last line: what to do next (the first kernel that fails, where its TODO
   is and which page of the course teaches it), or which lab comes next. */
void report_text_next(FILE *f, const lab_result *results, int n, const report_style *st);

/* As the text says it, for the page: the kernel whose checks are r->checks[first ..
   first + n) was never started (where to start into buf: 1), or not (0); check ci of
   it waits for another (what it waits for into buf: 1), or not (0). */
int report_kernel_todo(const lab_result *r, int first, int n, char *buf, size_t size);
int report_check_waits(const lab_result *r, int first, int n, int ci, char *buf, size_t size);

/* Where each kernel of r->lab is in source (its TODO, its launcher's), into
   r->places and r->source; nothing when source is NULL or cannot be read. */
void report_find_places(lab_result *r, const char *source);

/*
 * The report page of one lab (report_html.c, docs/instructors.md#page): a
 * self-contained HTML file with the student's file (source: NULL or unreadable,
 * the lines are named but not shown), each line a check names marked with its
 * cost, the checks, and each line's worst warp drawn. 0, or -1 when f fails.
 */
int report_html(FILE *f, const lab_result *r, const char *source);

/* Whole run as JSON; returns 0, or -1 with errno set when f fails. */
int report_json(FILE *f, const lab_result *results, int n, const score *s, int exit_code);
/* The same with what graded them (provenance.h): a "provenance" object at the top and
   each lab's table digest and toolchain (docs/instructors.md#provenance). */
struct run_provenance;
int report_json_with(FILE *f, const lab_result *results, int n, const score *s, int exit_code,
                     const struct run_provenance *p);

/*
 * Judge the PREDICT lines of the student's lab file (source; NULL: none)
 * against the conflict degrees measured, into r->predictions. No points.
 */
void report_judge_predictions(lab_result *r, const char *source);

#endif
