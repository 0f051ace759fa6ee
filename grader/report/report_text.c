/*
 * report_text.c - the report a student reads in the terminal: one screen.
 * A kernel that passes, was never started or could not be graded is one
 * line; a kernel with failures shows what failed, the numbers and a hint,
 * each hint once; the report ends with what to do next. --verbose shows
 * every check on its own line (the Gradescope and Autolab feedback use it);
 * the JSON report is complete either way.
 */
#include "report.h"

#include <string.h>
#include <unistd.h>

enum { RED = 31, GREEN = 32, YELLOW = 33 };

/* word in colour c on a terminal; plain otherwise. */
static void paint(FILE *f, const report_style *st, int c, const char *word)
{
    if (st->color)
        fprintf(f, "\033[%dm%s\033[0m", c, word);
    else
        fputs(word, f);
}

static void status_word(FILE *f, check_status s, const report_style *st)
{
    switch (s) {
    case CHECK_PASS: paint(f, st, GREEN, "PASS"); return;
    case CHECK_FAIL: paint(f, st, RED, "FAIL"); return;
    case CHECK_NOT_MEASURED: paint(f, st, YELLOW, "N/M "); return;
    case CHECK_SKIPPED: fputs("SKIP", f); return;
    case CHECK_NOT_GRADED: paint(f, st, YELLOW, "N/G "); return;
    }
    fputs("?   ", f);
}

/* Print hint once a report: 0 when it was said before (or is empty). */
static int say_once(report_style *st, const char *hint)
{
    if (!hint[0])
        return 0;
    for (int i = 0; i < st->n_said; i++)
        if (strcmp(st->said[i], hint) == 0)
            return 0;
    if (st->n_said < REPORT_MAX_SAID)
        st->said[st->n_said++] = hint;
    return 1;
}

/* What a check says beyond its line: the numbers, the hint, the lines, the bank map. */
static void print_details(FILE *f, const check_result *c, report_style *st)
{
    if (c->measured[0] && c->expected[0] && c->status != CHECK_NOT_MEASURED &&
        c->status != CHECK_NOT_GRADED)
        fprintf(f, "        measured %s; expected %s\n", c->measured, c->expected);
    if (st->verbose ? c->hint[0] != '\0' : say_once(st, c->hint))
        fprintf(f, "        hint: %s\n", c->hint);
    for (int i = 0; i < c->n_lines && i < CHECK_TEXT_LINES; i++) {
        char text[160];
        fprintf(f, "        at %s\n", check_line_text(&c->lines[i], text, sizeof text));
    }
    if (c->bank_map[0])
        fprintf(f, "%s", c->bank_map);
}

static void print_check(FILE *f, const check_result *c, report_style *st)
{
    fputs("  ", f);
    status_word(f, c->status, st);
    fprintf(f, "  %-16s %s\n", c->check, c->message);
    if (c->status != CHECK_PASS || st->verbose)
        print_details(f, c, st);
}

/* --- one kernel ------------------------------------------------------------ */

/* A kernel's checks: r->checks[first .. first + n). */
typedef struct kernel_view {
    const check_result *c;
    int n, index; /* index: the kernel in the lab table (-1: not there) */
    double points, max_points;
} kernel_view;

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const check_result *correct_of(const kernel_view *k)
{
    for (int i = 0; i < k->n; i++)
        if (check_id_of(k->c[i].check) == CHK_CORRECT)
            return &k->c[i];
    return NULL;
}

/* A check that has nothing to judge until something else is done: it says what it
   waits for ("waits for a shared tile: ..."), or waits for correct (its counts
   were of a wrong result, the kernel did not get that far, or its speed is not
   timed yet). What it waits for into what (at most size bytes); 0 if it does not. */
static int waits_for(const kernel_view *k, const check_result *c, char *what, size_t size)
{
    const check_result *correct = correct_of(k);
    if (c == correct || !check_waits(c))
        return 0;
    if (correct && correct->status != CHECK_PASS) { /* the first thing to fix */
        snprintf(what, size, "correct");
        return 1;
    }
    if (!starts(c->message, "waits for "))
        return 0; /* counts of a wrong measured run, correct passing: a failure */
    const char *from = c->message + strlen("waits for "), *colon = strchr(from, ':');
    int len = colon ? (int)(colon - from) : (int)strlen(from);
    snprintf(what, size, "%.*s", len, from);
    return 1;
}

static int waits(const kernel_view *k, const check_result *c)
{
    char what[96];
    return waits_for(k, c, what, sizeof what);
}

static int all_status(const kernel_view *k, check_status s)
{
    for (int i = 0; i < k->n; i++)
        if (k->c[i].status != s)
            return 0;
    return k->n > 0;
}

/* Every check not graded, for one reason. */
static int not_graded_alike(const kernel_view *k)
{
    if (!all_status(k, CHECK_NOT_GRADED))
        return 0;
    for (int i = 1; i < k->n; i++)
        if (strcmp(k->c[i].message, k->c[0].message) != 0)
            return 0;
    return 1;
}

/* Passed but for what this machine cannot measure (speed when emulated). */
static int done(const kernel_view *k)
{
    for (int i = 0; i < k->n; i++)
        if (k->c[i].status == CHECK_FAIL)
            return 0;
    return 1;
}

static const kernel_place *place_of(const lab_result *r, const kernel_view *k)
{
    return r->places && k->index >= 0 ? &r->places[k->index] : NULL;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/*
 * A kernel never started: its output was never written, or its launcher,
 * still a TODO, launched nothing. Says where to start into buf (file as
 * given: a base name in the kernel's line, the path in Next:); 0 if started.
 */
static int not_started(const lab_result *r, const kernel_view *k, const char *file, char *buf,
                       size_t size)
{
    const check_result *correct = correct_of(k);
    const kernel_place *p = place_of(r, k);
    if (!correct || correct->status != CHECK_FAIL)
        return 0;
    if (strstr(correct->message, "launched no kernel of your file") && p && p->launcher_todo) {
        snprintf(buf, size, "its launcher launches nothing yet; fill the TODO at %s:%d", file,
                 p->launcher_todo);
        return 1;
    }
    if (!strstr(correct->message, "never written"))
        return 0;
    const char *what = strstr(correct->message, "the output") ? "the output" : "out";
    if (p && p->todo)
        snprintf(buf, size, "%s was never written; fill the TODO at %s:%d", what, file, p->todo);
    else if (p && p->kernel)
        snprintf(buf, size, "%s was never written; see your kernel at %s:%d", what, file,
                 p->kernel);
    else
        snprintf(buf, size, "%s was never written", what);
    return 1;
}

/* "kernel  3/7  " with the name padded to the lab's widest. */
static void kernel_head(FILE *f, const kernel_view *k, int width)
{
    char pts[32];
    snprintf(pts, sizeof pts, "%g/%g", k->points, k->max_points);
    fprintf(f, "%-*s %6s  ", width, k->c[0].kernel, pts);
}

/* The waiting checks of k, a line for each thing they wait for, in report order:
   "WAIT  2 checks wait for a shared tile: smem-conflicts, race". */
static void print_waiting(FILE *f, const kernel_view *k)
{
    int said[CHECK_IDS] = {0};
    for (int i = 0; i < k->n && i < CHECK_IDS; i++) {
        char what[96], other[96], names[256] = "";
        int n = 0;
        if (said[i] || !waits_for(k, &k->c[i], what, sizeof what))
            continue;
        for (int j = i; j < k->n && j < CHECK_IDS; j++) {
            if (said[j] || !waits_for(k, &k->c[j], other, sizeof other) || strcmp(what, other))
                continue;
            size_t at = strlen(names);
            snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", k->c[j].check);
            said[j] = 1;
            n++;
        }
        fprintf(f, "  WAIT  %d check%s wait%s for %s: %s\n", n, n == 1 ? "" : "s",
                n == 1 ? "s" : "", what, names);
    }
}

/* Passing checks on one line, waiting ones a line for what they wait for, the rest each
   in full. */
static void print_mixed(FILE *f, const kernel_view *k, int width, report_style *st)
{
    char passed[256] = "";
    char pts[32];
    snprintf(pts, sizeof pts, "%g/%g", k->points, k->max_points);
    fprintf(f, "%-*s %6s\n", width, k->c[0].kernel, pts);
    for (int i = 0; i < k->n; i++) {
        const check_result *c = &k->c[i];
        if (c->status != CHECK_PASS)
            continue;
        size_t at = strlen(passed);
        snprintf(passed + at, sizeof passed - at, "%s%s", at ? ", " : "", c->check);
    }
    if (passed[0]) {
        fputs("  ", f);
        status_word(f, CHECK_PASS, st);
        fprintf(f, "  %s\n", passed);
    }
    for (int i = 0; i < k->n; i++)
        if (k->c[i].status != CHECK_PASS && !waits(k, &k->c[i]))
            print_check(f, &k->c[i], st);
    print_waiting(f, k);
}

static void print_kernel(FILE *f, const lab_result *r, const kernel_view *k, int width,
                         report_style *st)
{
    char where[320];
    if (st->verbose) {
        fprintf(f, "%s\n", k->c[0].kernel);
        for (int i = 0; i < k->n; i++)
            print_check(f, &k->c[i], st);
        return;
    }
    if (all_status(k, CHECK_PASS) || all_status(k, CHECK_SKIPPED)) {
        kernel_head(f, k, width);
        status_word(f, k->c[0].status, st);
        if (k->c[0].status == CHECK_PASS)
            fprintf(f, "  %d of %d check%s\n", k->n, k->n, k->n == 1 ? "" : "s");
        else
            fprintf(f, "  %s\n", k->c[0].message);
    } else if (not_graded_alike(k)) {
        kernel_head(f, k, width);
        status_word(f, CHECK_NOT_GRADED, st);
        fprintf(f, "  %s\n", k->c[0].message);
        if (say_once(st, k->c[0].hint))
            fprintf(f, "        hint: %s\n", k->c[0].hint);
    } else if (not_started(r, k, base_name(r->source), where, sizeof where)) {
        kernel_head(f, k, width);
        paint(f, st, RED, "TODO");
        fprintf(f, "  not started: %s\n", where);
    } else {
        print_mixed(f, k, width, st);
    }
}

/* The kernels of r one by one: the view of the one whose checks start at *at. */
static int next_kernel(const lab_result *r, int *at, kernel_view *k)
{
    if (*at >= r->n_checks)
        return 0;
    memset(k, 0, sizeof *k);
    k->c = &r->checks[*at];
    while (*at + k->n < r->n_checks && strcmp(r->checks[*at + k->n].kernel, k->c->kernel) == 0) {
        k->points += k->c[k->n].points;
        k->max_points += k->c[k->n].max_points;
        k->n++;
    }
    *at += k->n;
    k->index = -1;
    for (int i = 0; i < r->lab->n_kernels; i++)
        if (strcmp(r->lab->kernels[i].name, k->c->kernel) == 0)
            k->index = i;
    return 1;
}

int report_kernel_todo(const lab_result *r, int first, int n, char *buf, size_t size)
{
    kernel_view k;
    int at = first;
    if (!next_kernel(r, &at, &k) || k.n != n)
        return 0;
    return not_started(r, &k, base_name(r->source), buf, size);
}

int report_check_waits(const lab_result *r, int first, int n, int ci, char *buf, size_t size)
{
    kernel_view k;
    int at = first;
    if (ci < first || ci >= first + n || !next_kernel(r, &at, &k) || k.n != n)
        return 0;
    return waits_for(&k, &r->checks[ci], buf, size);
}

/* What someone's code printed, apart from the report it cannot write into. */
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

static void print_predictions(FILE *f, const char *text)
{
    if (!text)
        return;
    fprintf(f, "  -- your predictions (no points) --\n");
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(f, "  %.*s\n", len, line);
        line += len + (end != NULL);
    }
}

void report_text_lab(FILE *f, const lab_result *r, report_style *st)
{
    kernel_view k;
    int at = 0, width = 0;

    fprintf(f, "== %s: %s ==\n", r->lab->id, r->lab->title);
    if (r->env_code && r->n_checks == 0) {
        fprintf(f, "  not graded: %s\n\n", r->env_text);
        return;
    }
    if (r->device[0])
        fprintf(f, "GPU: %s\n", r->device);
    for (int i = 0; i < r->n_checks; i++) {
        int len = (int)strlen(r->checks[i].kernel);
        width = len > width ? len : width;
    }
    while (next_kernel(r, &at, &k))
        print_kernel(f, r, &k, width, st);
    if (r->env_code)
        fprintf(f, "  not graded from here on: %s\n", r->env_text);
    print_predictions(f, r->predictions);
    print_printed(f, "your launchers (host code)", r->host_printed);
    print_printed(f, "your kernels (device printf)", r->device_printed);
    fprintf(f, "%s: %g/%g points (%.2f s)\n", r->lab->id, r->points, r->max_points, r->seconds);
    if (r->page[0]) /* the same, with the file and each line's cost: docs/lab1.md#page */
        fprintf(f, "Page: %s (your file with each memory line's cost; open it in a browser)\n",
                r->page);
    fputs("\n", f);
}

void report_text_total(FILE *f, const score *s)
{
    fprintf(f, "Score: %g/%g", s->points, s->max_points);
    int failed = s->failed - s->waiting; /* those to fix: the others wait for them */
    if (failed > 0 && s->waiting > 0)
        fprintf(f, "  (%d check%s failed, %d more wait%s for %s)", failed, failed == 1 ? "" : "s",
                s->waiting, s->waiting == 1 ? "s" : "", failed == 1 ? "it" : "them");
    else if (failed > 0)
        fprintf(f, "  (%d check%s failed)", failed, failed == 1 ? "" : "s");
    else if (s->waiting > 0) /* none failed on its own: each waits for what its line names */
        fprintf(f, "  (%d check%s wait%s, no points: see %s line)", s->waiting,
                s->waiting == 1 ? "" : "s", s->waiting == 1 ? "s" : "",
                s->waiting == 1 ? "its" : "their");
    if (s->not_measured)
        fprintf(f, "  (%d check%s not measured: no points until measured; see each check)",
                s->not_measured, s->not_measured == 1 ? "" : "s");
    if (s->not_graded)
        fprintf(f, "  (%d check%s not graded: the grader cannot tell here, no points "
                "given; see each check)",
                s->not_graded, s->not_graded == 1 ? "" : "s");
    if (s->env_errors)
        fprintf(f, "  (%d lab%s not graded)", s->env_errors, s->env_errors == 1 ? "" : "s");
    fprintf(f, "\n");
}

/* --- what to do next ---------------------------------------------------------- */

/* The page of the course that teaches section of lab id, as the reader has it:
   the student kit's course/, the rendered build/docs/, else the markdown. */
static const char *course_page(const report_style *st, const char *id, const char *section,
                               char *buf, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "course/%s.html", id);
    if (access(path, R_OK) != 0)
        snprintf(path, sizeof path, "%s/docs/%s.html", st->build_dir ? st->build_dir : "build", id);
    if (access(path, R_OK) != 0)
        snprintf(path, sizeof path, "docs/%s.md", id);
    snprintf(buf, size, "%s#%s", path, section ? section : "exercise");
    return buf;
}

/* The first line of the student's file a check names (its worst), or 0. */
static int line_in_source(const lab_result *r, const check_result *c)
{
    for (int i = 0; r->source[0] && i < c->n_lines && i < CHECK_MAX_LINES; i++)
        if (c->lines[i].line > 0 && strcmp(c->lines[i].file, base_name(r->source)) == 0)
            return c->lines[i].line;
    return 0;
}

/* Where the launcher did what a check's failure names, or 0: a call a launcher may not
   make (correct: "launch_x called cudaMemcpyToSymbol"), a dynamic tile's size (given at
   the launch). */
static int launcher_line(const kernel_place *p, const check_result *c)
{
    if (!p)
        return 0;
    if (strcmp(c->check, "correct") == 0 && strstr(c->message, " called cuda"))
        return p->runtime_call;
    if (strcmp(c->check, "dynamic-tile") == 0)
        return p->launch;
    return 0;
}

static void next_for(FILE *f, const lab_result *r, const kernel_view *k, const report_style *st)
{
    char what[400], page[600];
    const lab_kernel *lk = k->index >= 0 ? &r->lab->kernels[k->index] : NULL;
    const kernel_place *p = place_of(r, k);
    if (!not_started(r, k, r->source, what, sizeof what)) {
        /* the first failure that waits for nothing: what the others wait for */
        const check_result *first = NULL, *waiting = NULL;
        for (int i = 0; i < k->n && !first; i++)
            if (k->c[i].status == CHECK_FAIL && !waits(k, &k->c[i]))
                first = &k->c[i];
            else if (k->c[i].status == CHECK_FAIL && !waiting)
                waiting = &k->c[i];
        char waits_what[96] = "";
        if (!first && waiting)
            waits_for(k, waiting, waits_what, sizeof waits_what);
        int n = first || !waiting
                    ? snprintf(what, sizeof what, "%s fails", first ? first->check : "a check")
                    : snprintf(what, sizeof what, "%s waits for %s", waiting->check, waits_what);
        int at = first ? line_in_source(r, first) : 0;
        if (first && !at)
            at = launcher_line(p, first);
        for (int i = 0; first && !at && p && i < k->n; i++) /* a tile the launch sizes short */
            if (k->c[i].status == CHECK_FAIL && strcmp(k->c[i].check, "dynamic-tile") == 0)
                at = p->launch;
        if (at > 0) /* the line it names: past the TODO, where the student works now */
            snprintf(what + n, sizeof what - (size_t)n, " at %s:%d", r->source, at);
        else if (p && (p->todo || p->kernel))
            snprintf(what + n, sizeof what - (size_t)n, "; its %s is at %s:%d",
                     p->todo ? "TODO" : "kernel", r->source, p->todo ? p->todo : p->kernel);
    }
    fputs("\n", f);
    paint(f, st, 1, "Next:");
    fprintf(f, " %s: %s. Course: %s\n", k->c[0].kernel, what,
            course_page(st, r->lab->id, lk ? lk->section : NULL, page, sizeof page));
}

/*
 * After "nothing left to fix": what was not measured here, so that a finished lab
 * does not end on a number. Emulated, speed is the GPU's to measure: a line says
 * so and which kernels' points wait for one (make grade then succeeds; the grader
 * still exits 4 for scripts). Anything else not measured is named, each N/M line
 * above saying why.
 */
static void print_unmeasured(FILE *f, const lab_result *results, int n)
{
    char speed[256] = "", other[256] = "";
    double points = 0;
    int n_speed = 0, n_other = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < results[i].n_checks; j++) {
            const check_result *c = &results[i].checks[j];
            if (c->status != CHECK_NOT_MEASURED)
                continue;
            int emulated_speed = check_id_of(c->check) == CHK_SPEED &&
                                 strstr(c->message, "emulated on the CPU");
            char *list = emulated_speed ? speed : other;
            size_t at = strlen(list);
            snprintf(list + at, sizeof speed - at, "%s%s%s%s", at ? ", " : "", c->kernel,
                     emulated_speed ? "" : "'s ", emulated_speed ? "" : c->check);
            n_speed += emulated_speed;
            n_other += !emulated_speed;
            points += emulated_speed ? c->max_points : 0;
        }
    if (n_speed)
        fprintf(f, "Speed is measured on a GPU: this run was emulated, so the speed of %s "
                "(%g point%s) waits for one; nothing failed.\n", speed, points,
                points == 1 ? "" : "s");
    if (n_other)
        fprintf(f, "Not measured here: %s (each N/M line above says why); nothing failed.\n",
                other);
}

void report_text_next(FILE *f, const lab_result *results, int n, const report_style *st)
{
    const lab_result *last = NULL;
    kernel_view k;
    const char *kernel = NULL; /* the last lab's last kernel */
    int graded = 0;            /* kernels of the last lab: fewer than its table's under --kernel */
    for (int i = 0; i < n; i++) {
        const lab_result *r = &results[i];
        int at = 0;
        if (r->env_code)
            return; /* its reason says what to do */
        for (graded = 0; next_kernel(r, &at, &k); graded++, kernel = k.c[0].kernel)
            if (!done(&k)) {
                next_for(f, r, &k, st);
                return;
            }
        last = r;
    }
    if (!last || strcmp(last->lab->id, "corpus") == 0)
        return;
    fputs("\n", f);
    paint(f, st, 1, "Next:");
    if (graded == 1 && last->lab->n_kernels > 1) {
        if (st->handin)
            fprintf(f, " %s has nothing left to fix.\n", kernel);
        else
            fprintf(f, " %s has nothing left to fix; make grade grades the rest of %s\n", kernel,
                    last->lab->id);
        print_unmeasured(f, results, n);
        return;
    }
    const lab_def *after = NULL;
    for (int i = 0; i + 1 < lab_registry_count; i++)
        if (lab_registry[i] == last->lab)
            after = lab_registry[i + 1];
    if (st->handin) /* the course says what comes next, not this kit's make */
        fprintf(f, " %s has nothing left to fix: this submission has every point that "
                   "could be graded here.\n", last->lab->id);
    else if (after)
        fprintf(f, " %s has nothing left to fix. On to %s: make %s && make grade\n",
                last->lab->id, after->id, after->id);
    else
        fprintf(f, " %s has nothing left to fix, and it is the last lab.\n", last->lab->id);
    print_unmeasured(f, results, n);
}
