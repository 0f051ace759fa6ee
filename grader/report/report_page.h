/*
 * report_page.h - what the report page (report_html.c) is made of, inside
 * report/: the student's file read and highlighted (report_listing.c), and
 * the lines the checks name, each judged against what the exercise expects
 * (report_marks.c).
 */
#ifndef SMEMLAB_REPORT_PAGE_H
#define SMEMLAB_REPORT_PAGE_H

#include "../score/score.h"

#include <stdio.h>

/* --- the student's file (report_listing.c) --- */

#define PAGE_MAX_SOURCE (1L << 20) /* bytes of the student's file shown */
#define PAGE_MAX_LINES 20000

typedef struct source_text {
    char *text;       /* the file, NUL-separated into lines */
    char **line;      /* line[i]: line i + 1 */
    int n;
    int cut;          /* the file went on past what is shown */
    const char *name; /* its base name, as the trace names lines */
} source_text;

/* A regular file only (a FIFO or a device would hang or flood the grader), at most
   PAGE_MAX_SOURCE bytes and PAGE_MAX_LINES lines. 0, or -1 (nothing to show). */
int source_read(const char *path, source_text *s);
void source_free(source_text *s);

/* One line of C or CUDA, escaped and highlighted (keywords, types, CUDA's words,
   strings, numbers, comments, the preprocessor); *in_comment carries a block
   comment from line to line. */
void source_highlight(FILE *f, const char *line, int *in_comment);

/* --- the lines the checks name (report_marks.c) --- */

typedef enum cost_class {
    COST_INFO,  /* named by a check that judged nothing (not measured, not graded) */
    COST_OK,    /* as the exercise expects */
    COST_NEAR,  /* off, within twice */
    COST_FAR,   /* twice or more off, a race, a fault */
} cost_class;

extern const char *const COST_CLASS_NAME[];  /* "info", "ok", "near", "far": CSS */
extern const char *const COST_CLASS_WORDS[]; /* "not judged", "as expected", ... */

typedef enum mark_kind { MARK_COST, MARK_RACE, MARK_NAMED } mark_kind;

/* One line a check names, and why. */
typedef struct mark {
    int line;
    int check;      /* r->checks[check] */
    int entry;      /* its lines[entry]; -1: named in its words */
    mark_kind kind;
    cost_class cls;
    int partner;    /* a race's other line (0: none) */
    char fig[96];   /* the id of its drawing ("": none) */
} mark;

typedef struct page {
    const lab_result *r;
    source_text src;
    int have_src;
    char folder[512];   /* the student's file's folder, with its '/' ("": none) */
    mark *marks;
    int n_marks, cap;
} page;

/* A global line (gload, gstore: its wavefronts are sectors); a store (or atomic). */
int line_is_global(const check_line *l);
int line_is_store(const check_line *l);

/* Its cost per ideal: the conflict degree, or sectors per ideal. */
double line_ratio(const check_line *l);

/* Where a line of check c stands against what the exercise expects of it. */
cost_class line_class(const check_result *c, const check_line *l);

/* Whether l is a line of the student's file shown on the page. */
int page_same_file(const page *pg, const check_line *l);

/* The id of the drawing of c's lines[entry]. */
void page_fig_id(const check_result *c, int entry, char *buf, size_t n);

/* Where in text the next "NAME:LINE" of the student's file begins (NAME not part of a
   longer name), its line in *line; NULL: none. */
const char *page_next_place(const page *pg, const char *text, int *line);

/* Every line each check of pg->r names, into pg->marks: its lines (a race's two,
   linked to each other), and the places its words name where it did not pass. */
void page_collect_marks(page *pg);

/* The worst class of line no, or -1 where nothing marks it. */
int page_line_worst(const page *pg, int no);

#endif /* SMEMLAB_REPORT_PAGE_H */
