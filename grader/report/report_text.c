/* report_text.c - the report a student reads in the terminal. */
#include "report.h"

#include <string.h>

static const char *status_word(check_status s, const report_style *st)
{
    switch (s) {
    case CHECK_PASS: return st->color ? "\033[32mPASS\033[0m" : "PASS";
    case CHECK_FAIL: return st->color ? "\033[31mFAIL\033[0m" : "FAIL";
    case CHECK_NOT_MEASURED: return st->color ? "\033[33mN/M \033[0m" : "N/M ";
    case CHECK_SKIPPED: return "SKIP";
    case CHECK_NOT_GRADED: return st->color ? "\033[33mN/G \033[0m" : "N/G ";
    }
    return "?";
}

static void print_check(FILE *f, const check_result *c, const report_style *st)
{
    fprintf(f, "  %s  %-16s %s\n", status_word(c->status, st), c->check, c->message);
    if (c->status == CHECK_PASS && !st->verbose)
        return;
    if (c->measured[0] && c->expected[0] && c->status != CHECK_NOT_MEASURED &&
        c->status != CHECK_NOT_GRADED)
        fprintf(f, "        measured %s; expected %s\n", c->measured, c->expected);
    if (c->hint[0])
        fprintf(f, "        hint: %s\n", c->hint);
    for (int i = 0; i < c->n_lines && i < CHECK_MAX_LINES; i++) {
        char text[160];
        fprintf(f, "        at %s\n", check_line_text(&c->lines[i], text, sizeof text));
    }
    if (c->bank_map[0])
        fprintf(f, "%s", c->bank_map);
}

/* What the student's code printed, apart from the report it cannot write into. */
static void print_printed(FILE *f, const char *what, const char *text)
{
    if (!text || !*text)
        return;
    fprintf(f, "  -- %s printed (not part of the grade) --\n", what);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(f, "  | %.*s\n", len, line);
        line += len + (end != NULL);
    }
}

void report_text_lab(FILE *f, const lab_result *r, const report_style *st)
{
    const char *kernel = "";

    fprintf(f, "== %s: %s ==\n", r->lab->id, r->lab->title);
    if (r->env_code && r->n_checks == 0) {
        fprintf(f, "  not graded: %s\n\n", r->env_text);
        return;
    }
    if (r->device[0])
        fprintf(f, "GPU: %s\n", r->device);
    for (int i = 0; i < r->n_checks; i++) {
        const check_result *c = &r->checks[i];
        if (strcmp(kernel, c->kernel) != 0) {
            kernel = c->kernel;
            fprintf(f, "%s\n", kernel);
        }
        print_check(f, c, st);
    }
    if (r->env_code)
        fprintf(f, "  not graded from here on: %s\n", r->env_text);
    if (r->predictions) {
        fprintf(f, "  -- your predictions (no points) --\n");
        for (const char *line = r->predictions; *line;) {
            const char *end = strchr(line, '\n');
            int len = end ? (int)(end - line) : (int)strlen(line);
            fprintf(f, "  %.*s\n", len, line);
            line += len + (end != NULL);
        }
    }
    print_printed(f, "your launchers (host code)", r->host_printed);
    print_printed(f, "your kernels (device printf)", r->device_printed);
    fprintf(f, "%s: %g/%g points (%.2f s)\n\n", r->lab->id, r->points, r->max_points, r->seconds);
}

void report_text_total(FILE *f, const score *s)
{
    fprintf(f, "Score: %g/%g", s->points, s->max_points);
    if (s->failed)
        fprintf(f, "  (%d check%s failed)", s->failed, s->failed == 1 ? "" : "s");
    if (s->not_measured)
        fprintf(f, "  (%d check%s not measured: no points until measured; see each check)",
                s->not_measured, s->not_measured == 1 ? "" : "s");
    if (s->not_graded)
        fprintf(f, "  (%d check%s not graded: an instruction the grading tool cannot run here, "
                "no points lost or given; see each check)",
                s->not_graded, s->not_graded == 1 ? "" : "s");
    if (s->env_errors)
        fprintf(f, "  (%d lab%s not graded)", s->env_errors, s->env_errors == 1 ? "" : "s");
    fprintf(f, "\n");
}
