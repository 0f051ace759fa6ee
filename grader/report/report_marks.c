/* report_marks.c - the lines the checks name, each judged against what the exercise
   expects of it; see report_page.h. */
#include "report_page.h"

#include "../compare/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const COST_CLASS_NAME[] = {"info", "ok", "near", "far"};
const char *const COST_CLASS_WORDS[] = {"not judged", "as expected", "off", "far off"};

int line_is_global(const check_line *l)
{
    return l->op[0] == 'g';
}

int line_is_store(const check_line *l)
{
    return strstr(l->op, "store") != NULL || strstr(l->op, "atomic") != NULL;
}

double line_ratio(const check_line *l)
{
    return l->ideal > 0 ? (double)l->wavefronts / (double)l->ideal : 1.0;
}

/*
 * A line of a passing check is as expected, whatever it costs (lab 1's column
 * read is 32-way on purpose); a line of a failing check is as far from the
 * exercise's expectation of its side as its own cost is (check.h: expect_load,
 * expect_store; the ideal where the check does not say).
 */
cost_class line_class(const check_result *c, const check_line *l)
{
    if (c->status == CHECK_PASS)
        return COST_OK;
    if (c->status != CHECK_FAIL)
        return COST_INFO;
    double ratio = line_ratio(l), want = line_is_store(l) ? c->expect_store : c->expect_load;
    if (line_is_global(l)) {
        if (want == CHECK_EXPECT_STRIDED) /* a naive step: the column walk is the lesson */
            return ratio > COALESCE_TOLERANCE ? COST_OK : COST_FAR;
        return ratio <= COALESCE_TOLERANCE ? COST_OK : ratio <= 2 * COALESCE_TOLERANCE ? COST_NEAR
                                                                                   : COST_FAR;
    }
    double q = ratio / (want > 0 ? want : 1.0);
    if (fabs(q - 1.0) <= DEGREE_TOLERANCE)
        return COST_OK;
    return q >= 2.0 || q <= 0.5 ? COST_FAR : COST_NEAR;
}

static void add_mark(page *pg, mark m)
{
    if (m.line <= 0 || (pg->have_src && m.line > pg->src.n))
        return;
    for (int i = 0; i < pg->n_marks; i++) /* a line a check names twice: once */
        if (pg->marks[i].line == m.line && pg->marks[i].check == m.check &&
            (m.kind == MARK_NAMED ||
             (pg->marks[i].kind == m.kind && (m.kind != MARK_COST || pg->marks[i].entry == m.entry))))
            return;
    if (pg->n_marks == pg->cap) {
        int cap = pg->cap ? 2 * pg->cap : 32;
        mark *v = realloc(pg->marks, (size_t)cap * sizeof *v);
        if (!v)
            return;
        pg->marks = v;
        pg->cap = cap;
    }
    pg->marks[pg->n_marks++] = m;
}

const char *page_next_place(const page *pg, const char *text, int *line)
{
    const char *name = pg->have_src ? pg->src.name : NULL;
    size_t n = name ? strlen(name) : 0;
    for (const char *p = n ? strstr(text, name) : NULL; p; p = strstr(p + 1, name)) {
        if ((p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-')) ||
            p[n] != ':' || !isdigit((unsigned char)p[n + 1]))
            continue;
        *line = atoi(p + n + 1);
        if (*line > 0 && *line <= pg->src.n)
            return p;
    }
    return NULL;
}

/* The lines of the student's file a check's words name ("lab3.cu:70"): a fault's, say. */
static void named_lines(page *pg, int ci, const char *text)
{
    const check_result *c = &pg->r->checks[ci];
    int line;
    for (const char *at = text; (at = page_next_place(pg, at, &line)); at++)
        add_mark(pg, (mark){.line = line, .check = ci, .entry = -1, .kind = MARK_NAMED,
                            .cls = c->status == CHECK_FAIL ? COST_FAR : COST_INFO});
}

void page_fig_id(const check_result *c, int entry, char *buf, size_t n)
{
    snprintf(buf, n, "f-%s-%s-%d", c->kernel, c->check, entry);
}

int page_same_file(const page *pg, const check_line *l)
{
    return pg->have_src && strcmp(l->file, pg->src.name) == 0;
}

/*
 * A failing check's lines all at their expected cost: it failed for something else
 * its words say (an element wider than the exercise's, requests a divergent tree
 * adds, shared memory where a shuffle was asked), and its worst line, the first it
 * names, is where: off, not as expected.
 */
static void mark_the_worst(page *pg, int ci)
{
    mark *first = NULL;
    for (int i = 0; i < pg->n_marks; i++) {
        mark *m = &pg->marks[i];
        if (m->check != ci)
            continue;
        if (m->cls >= COST_NEAR)
            return;
        if (m->kind == MARK_COST && (!first || m->entry < first->entry))
            first = m;
    }
    if (first)
        first->cls = COST_NEAR;
}

void page_collect_marks(page *pg)
{
    const lab_result *r = pg->r;
    for (int ci = 0; ci < r->n_checks; ci++) {
        const check_result *c = &r->checks[ci];
        int race = strcmp(c->check, "race") == 0 && c->status == CHECK_FAIL && c->n_lines == 2;
        for (int i = 0; i < c->n_lines && i < CHECK_MAX_LINES; i++) {
            const check_line *l = &c->lines[i];
            if (!page_same_file(pg, l))
                continue;
            mark m = {.line = l->line, .check = ci, .entry = i};
            if (race) {
                m.kind = MARK_RACE;
                m.cls = COST_FAR;
                m.partner = c->lines[1 - i].line;
            } else if (l->requests > 0) {
                m.kind = MARK_COST;
                m.cls = line_class(c, l);
            } else {
                m.kind = MARK_NAMED;
                m.cls = c->status == CHECK_FAIL ? COST_FAR : COST_INFO;
            }
            if (l->worst.active && l->requests > 0)
                page_fig_id(c, i, m.fig, sizeof m.fig);
            add_mark(pg, m);
        }
        if (c->status == CHECK_FAIL)
            mark_the_worst(pg, ci);
        if (c->status != CHECK_SKIPPED) /* a passing check's words may name a line too
                                               (what a twin could not judge, and where) */
            named_lines(pg, ci, c->message);
        if (c->status != CHECK_PASS && c->status != CHECK_SKIPPED)
            named_lines(pg, ci, c->hint);
    }
}

int page_line_worst(const page *pg, int no)
{
    int worst = -1;
    for (int i = 0; i < pg->n_marks; i++)
        if (pg->marks[i].line == no && (int)pg->marks[i].cls > worst)
            worst = (int)pg->marks[i].cls;
    return worst;
}

