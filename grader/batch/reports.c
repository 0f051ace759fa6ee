/*
 * reports.c - every format an instructor imports, from the class's results:
 *
 *   gradebook.csv                 RFC 4180: student, name, email, late, points, max, one
 *                                 column per kernel, status, reason, provenance (what
 *                                 graded it, how), max_here (what could be graded here),
 *                                 final (after the course's policy), policy, lms, lms_id,
 *                                 graded_with (version, table, seed, toolchain); safe to
 *                                 open in a spreadsheet (sb_csv)
 *   feedback/STUDENT.txt, .html   the student's report (same content; HTML escaped); the HTML
 *                                 links pages/SHA256.html, the grader's page of that source
 *                                 (pipeline.c asks for it: smemlab-grade --html)
 *   gradescope/STUDENT/results.json   Gradescope's autograder results schema
 *   autolab/STUDENT.txt           feedback, then Autolab's last-line JSON
 *                                 {"scores": {...}, "scoreboard": [...]}
 *   junit.xml                     one testsuite per student, one testcase per check
 */
#define _GNU_SOURCE
#include "batch.h"

#include "../base/check.h"

#include <cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <sys/stat.h>
#include <time.h>

#include "sb.h"

/* --- a growing string ------------------------------------------------------------ */
void sb_add(sb *b, const char *t, size_t len)
{
    if (b->n + len + 1 > b->cap) {
        b->cap = (b->n + len + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, t, len);
    b->n += len;
    b->s[b->n] = 0;
}
void sb_puts(sb *b, const char *t) { sb_add(b, t, strlen(t)); }
void sb_printf(sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *t = NULL;
    int n = vasprintf(&t, fmt, ap);
    va_end(ap);
    if (n >= 0)
        sb_add(b, t, (size_t)n);
    free(t);
}

/* XML and HTML: everything that could be markup, escaped; control bytes XML
 * 1.0 cannot hold become U+FFFD. */
void sb_xml(sb *b, const char *t)
{
    for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
        switch (*p) {
        case '&': sb_puts(b, "&amp;"); break;
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        case '\'': sb_puts(b, "&#39;"); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
                sb_puts(b, "\xef\xbf\xbd");
            else
                sb_add(b, (const char *)p, 1);
        }
    }
}

/*
 * CSV field, RFC 4180, and safe to open in a spreadsheet. A name or a reason
 * is the student's text: one that begins with '=', '+', '-', '@', a tab or a
 * CR (after any spaces) would be read as a formula, so it gets a leading
 * "'" that spreadsheets show as text (OWASP's rule for CSV injection). A field
 * is quoted when it holds a comma, a semicolon (the separator of some
 * locales), a quote, CR or LF, or was so prefixed.
 */
void sb_csv(sb *b, const char *t)
{
    const char *first = t + strspn(t, " ");
    int formula = *first && strchr("=+-@\t\r", *first);
    if (!formula && !strpbrk(t, ",;\"\r\n")) {
        sb_puts(b, t);
        return;
    }
    sb_puts(b, formula ? "\"'" : "\"");
    for (const char *p = t; *p; p++)
        sb_add(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    sb_puts(b, "\"");
}

static long jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

/*
 * What the grader says beyond the hint for a check that did not pass, as
 * its text report says it: the source lines behind the verdict ("        at
 * lab3.cu:41  load  32-way (1024 wavefronts / 32 requests)", worded by the
 * grader's own check_line_text) and the drawing of the student's worst warp
 * instruction (indented by the grader).
 */
static void detail_text(sb *b, const check_rec *c)
{
    if (!strcmp(c->status, "pass"))
        return;
    const cJSON *x;
    int shown = 0;
    cJSON_ArrayForEach(x, c->lines) {
        if (shown++ == CHECK_TEXT_LINES) /* the rest: the report page's */
            break;
        check_line l = {.line = (int)jnum(x, "line"), .requests = jnum(x, "requests"),
                        .wavefronts = jnum(x, "wavefronts"), .ideal = jnum(x, "ideal")};
        snprintf(l.file, sizeof l.file, "%s", jstr(x, "file"));
        snprintf(l.op, sizeof l.op, "%s", jstr(x, "op"));
        char text[200];
        sb_printf(b, "        at %s\n", check_line_text(&l, text, sizeof text));
    }
    if (c->bank_map && c->bank_map[0])
        sb_puts(b, c->bank_map);
}

/* detail_text into b between before and after (XML-escaped if xml), when there is any. */
static void sb_detail(sb *b, const check_rec *c, const char *before, const char *after, int xml)
{
    sb d = {0};
    detail_text(&d, c);
    if (d.n) {
        sb_puts(b, before);
        if (xml)
            sb_xml(b, d.s);
        else
            sb_puts(b, d.s);
        sb_puts(b, after);
    }
    free(d.s);
}

static double kernel_points(const result *r, const char *kernel, int *seen)
{
    double pts = 0;
    *seen = 0;
    for (int i = 0; i < r->n_checks; i++)
        if (!strcmp(r->checks[i].kernel, kernel)) {
            pts += r->checks[i].points;
            *seen = 1;
        }
    return pts;
}

static const char *verdict(const result *r)
{
    switch (r->status) {
    case ST_GRADED:
        return r->points >= r->max_points && r->max_points > 0 ? "full marks"
               : r->points >= r->max_here && r->max_here > 0 ? "full marks of what was graded here"
                                                              : "graded";
    case ST_NOT_COMPILED: return "does not compile";
    case ST_NOT_GRADED: return "not graded";
    case ST_REJECTED: return "not a usable submission";
    default: return "pending";
    }
}

/* A check's status as the report shows it; one this batch does not know is
 * never a pass ("?", counted apart like not-measured). */
static const char *check_word(const char *status)
{
    if (!strcmp(status, "pass")) return "PASS";
    if (!strcmp(status, "fail")) return "FAIL";
    if (!strcmp(status, "not-measured")) return "N/M";
    if (!strcmp(status, "not-graded")) return "N/G";
    if (!strcmp(status, "skipped")) return "SKIP";
    if (!strcmp(status, "waiting")) return "WAIT";
    return "?";
}

/* --- feedback: one content, two renderings ------------------------------------------ */

/* "Ada Lovelace (Ada_Lovelace_12-1a2b3c4d)", or the id alone when it is the name. */
static void who_text(sb *b, const result *r, int xml)
{
    int named = r->name[0] && strcmp(r->name, r->student);
    if (named) {
        if (xml)
            sb_xml(b, r->name);
        else
            sb_puts(b, r->name);
        sb_puts(b, " (");
    }
    if (xml)
        sb_xml(b, r->student);
    else
        sb_puts(b, r->student);
    if (named)
        sb_puts(b, ")");
}

static void feedback_text(sb *b, const lab_def *lab, const result *r)
{
    sb_printf(b, "smemlab %s (%s): ", lab->id, lab->title);
    who_text(b, r, 0);
    sb_puts(b, "\n");
    if (r->late)
        sb_puts(b, "Submitted late (as the learning system marks it)\n");
    if (r->source[0])
        sb_printf(b, "Source: %s%s%s%s\n", r->source, r->source_note[0] ? " (" : "",
                  r->source_note, r->source_note[0] ? ")" : "");
    sb_printf(b, "Result: %g/%g, %s\n", r->points, r->max_points, verdict(r));
    if (r->status == ST_GRADED && r->max_here < r->max_points)
        sb_printf(b, "Graded here: %g/%g (%g points need a GPU: not measured here, none lost)\n",
                  r->points, r->max_here, r->max_points - r->max_here);
    if (r->policy[0])
        sb_printf(b, "Final: %g (%s)\n", r->final_points, r->policy);
    if (r->provenance[0])
        sb_printf(b, "Graded by: %s\n", r->provenance);
    if (r->graded_with[0])
        sb_printf(b, "Graded with: %s\n", r->graded_with);
    if (r->reason[0])
        sb_printf(b, "Why: %s\n", r->reason);
    if (r->compiler[0])
        sb_printf(b, "\nThe compiler's first lines:\n%s", r->compiler);
    const char *kernel = "";
    for (int i = 0; i < r->n_checks; i++) {
        const check_rec *c = &r->checks[i];
        if (strcmp(c->kernel, kernel)) {
            sb_printf(b, "\n%s\n", c->kernel);
            kernel = c->kernel;
        }
        sb_printf(b, "  %-4s  %-16s %g/%g  %s\n", check_word(c->status), c->check, c->points,
                  c->max_points, c->message);
        if (strcmp(c->status, "pass") && (c->measured[0] || c->expected[0]))
            sb_printf(b, "        measured %s; expected %s\n", c->measured, c->expected);
        if (strcmp(c->status, "pass") && c->hint[0])
            sb_printf(b, "        hint: %s\n", c->hint);
        detail_text(b, c);
    }
    if (r->predictions[0]) /* lines that each end in a newline */
        sb_printf(b, "\nYour predictions (no points):\n%s", r->predictions);
    sb_printf(b, "\nScore: %g/%g\n", r->points, r->max_points);
}

/* The page the grader wrote for this source (pipeline.c: RESULTS/pages/SHA256.html). */
static int page_exists(const char *results, const result *r)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/pages/%s.html", results, r->sha256);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void feedback_html(sb *b, const lab_def *lab, const result *r, const char *results)
{
    sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    sb_printf(b, "smemlab %s: ", lab->id);
    who_text(b, r, 1);
    sb_puts(b, "</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
               "td,th{padding:.2em .6em;text-align:left;vertical-align:top}"
               ".pass{color:#070}.fail{color:#b00}.not-measured,.not-graded,.skipped,.waiting{color:#a60}"
               "small{color:#555}</style>\n</head>\n<body>\n<h1>smemlab ");
    sb_xml(b, lab->id);
    sb_puts(b, " (");
    sb_xml(b, lab->title);
    sb_puts(b, "): ");
    who_text(b, r, 1);
    sb_puts(b, "</h1>\n<dl>\n");
    if (r->late)
        sb_puts(b, "<dt>Submitted late</dt><dd>as the learning system marks it</dd>\n");
    if (r->source[0]) {
        sb_puts(b, "<dt>Source</dt><dd><code>");
        sb_xml(b, r->source);
        sb_puts(b, "</code>");
        if (r->source_note[0]) {
            sb_puts(b, " (");
            sb_xml(b, r->source_note);
            sb_puts(b, ")");
        }
        sb_puts(b, "</dd>\n");
    }
    sb_printf(b, "<dt>Result</dt><dd>%g/%g, %s</dd>\n", r->points, r->max_points, verdict(r));
    if (r->status == ST_GRADED && r->max_here < r->max_points)
        sb_printf(b, "<dt>Graded here</dt><dd>%g/%g (%g points need a GPU: not measured here, "
                  "none lost)</dd>\n", r->points, r->max_here, r->max_points - r->max_here);
    if (r->policy[0]) {
        sb_printf(b, "<dt>Final</dt><dd>%g (", r->final_points);
        sb_xml(b, r->policy);
        sb_puts(b, ")</dd>\n");
    }
    if (r->provenance[0]) {
        sb_puts(b, "<dt>Graded by</dt><dd>");
        sb_xml(b, r->provenance);
        sb_puts(b, "</dd>\n");
    }
    if (r->graded_with[0]) {
        sb_puts(b, "<dt>Graded with</dt><dd>");
        sb_xml(b, r->graded_with);
        sb_puts(b, "</dd>\n");
    }
    if (r->reason[0]) {
        sb_puts(b, "<dt>Why</dt><dd>");
        sb_xml(b, r->reason);
        sb_puts(b, "</dd>\n");
    }
    if (r->sha256[0] && page_exists(results, r)) /* the grader's report page of this source */
        sb_printf(b, "<dt>Your file, line by line</dt><dd><a href=\"../pages/%s.html\">each "
                  "memory line's cost, its warp drawn</a></dd>\n", r->sha256);
    sb_puts(b, "</dl>\n");
    if (r->compiler[0]) {
        sb_puts(b, "<p>The compiler's first lines:</p>\n<pre>");
        sb_xml(b, r->compiler);
        sb_puts(b, "</pre>\n");
    }
    if (r->n_checks) {
        sb_puts(b, "<table>\n<tr><th>kernel</th><th>check</th><th>result</th><th>points</th>"
                   "<th>message</th></tr>\n");
        for (int i = 0; i < r->n_checks; i++) {
            const check_rec *c = &r->checks[i];
            sb_puts(b, "<tr class=\"");
            sb_xml(b, c->status);
            sb_puts(b, "\"><td>");
            sb_xml(b, c->kernel);
            sb_puts(b, "</td><td>");
            sb_xml(b, c->check);
            sb_printf(b, "</td><td>%s</td><td>%g/%g</td><td>", check_word(c->status), c->points,
                      c->max_points);
            sb_xml(b, c->message);
            if (strcmp(c->status, "pass") && (c->measured[0] || c->expected[0])) {
                sb_puts(b, "<br><small>measured ");
                sb_xml(b, c->measured);
                sb_puts(b, "; expected ");
                sb_xml(b, c->expected);
                sb_puts(b, "</small>");
            }
            if (strcmp(c->status, "pass") && c->hint[0]) {
                sb_puts(b, "<br><small>hint: ");
                sb_xml(b, c->hint);
                sb_puts(b, "</small>");
            }
            sb_detail(b, c, "<pre>", "</pre>", 1);
            sb_puts(b, "</td></tr>\n");
        }
        sb_puts(b, "</table>\n");
    }
    if (r->predictions[0]) {
        sb_puts(b, "<p>Your predictions (no points):</p>\n<pre>");
        sb_xml(b, r->predictions);
        sb_puts(b, "</pre>\n");
    }
    sb_printf(b, "<p><strong>Score: %g/%g</strong></p>\n</body>\n</html>\n", r->points,
              r->max_points);
}

/* --- Gradescope and Autolab ------------------------------------------------------------- */

/* A check this machine could not measure or grade (speed, emulated): no points given or
   lost. A status the batch does not know is not one: it is never a pass, and fails. */
static int apart(const check_rec *c)
{
    return !strcmp(c->status, "not-measured") || !strcmp(c->status, "not-graded");
}

/* A check that waits for another to pass ("waits for correct"): not run yet, not failed. */
static int waiting(const check_rec *c)
{
    return !strcmp(c->status, "waiting");
}

/* Neither passed nor set aside: a failure in JUnit's count. */
static int failure(const check_rec *c)
{
    return strcmp(c->status, "pass") && strcmp(c->status, "skipped") && !apart(c) && !waiting(c);
}

static char *gradescope_json(const lab_def *lab, const result *r, const char *feedback)
{
    cJSON *o = cJSON_CreateObject(), *tests = cJSON_CreateArray();
    cJSON_AddNumberToObject(o, "score", r->final_points);
    if (r->grading || r->graded_with[0]) { /* what graded it, for the instructor (extra_data) */
        cJSON *x = cJSON_AddObjectToObject(o, "extra_data");
        cJSON_AddStringToObject(x, "graded_with", r->graded_with);
        if (r->grading)
            cJSON_AddItemToObject(x, "grading", cJSON_Duplicate(r->grading, 1));
    }
    cJSON_AddNumberToObject(o, "execution_time", r->build_seconds + r->grade_seconds);
    cJSON_AddStringToObject(o, "output", feedback);
    cJSON_AddStringToObject(o, "visibility", "visible");
    cJSON_AddStringToObject(o, "stdout_visibility", "hidden");
    if (r->n_checks == 0) { /* one failed test that says why, worth the lab */
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", lab->id);
        cJSON_AddNumberToObject(t, "score", 0);
        cJSON_AddNumberToObject(t, "max_score", r->max_points);
        cJSON_AddStringToObject(t, "status", "failed");
        cJSON_AddStringToObject(t, "output", r->reason);
        cJSON_AddStringToObject(t, "visibility", "visible");
        cJSON_AddItemToArray(tests, t);
    }
    for (int i = 0; i < r->n_checks; i++) {
        const check_rec *c = &r->checks[i];
        cJSON *t = cJSON_CreateObject();
        char name[512];
        snprintf(name, sizeof name, "%s: %s", c->kernel, c->check);
        sb out = {0};
        sb_printf(&out, "%s", c->message);
        if (strcmp(c->status, "pass") && (c->measured[0] || c->expected[0]))
            sb_printf(&out, "\nmeasured %s; expected %s", c->measured, c->expected);
        if (strcmp(c->status, "pass") && c->hint[0])
            sb_printf(&out, "\nhint: %s", c->hint);
        sb_detail(&out, c, "\n", "", 0);
        if (apart(c)) { /* Gradescope has no "skipped": worth nothing here, and no verdict */
            snprintf(name, sizeof name, "%s: %s (%s here)", c->kernel, c->check,
                     !strcmp(c->status, "not-graded") ? "not graded" : "not measured");
            cJSON_AddStringToObject(t, "name", name);
            cJSON_AddNumberToObject(t, "score", 0);
            cJSON_AddNumberToObject(t, "max_score", 0);
            cJSON_AddStringToObject(t, "output", out.s ? out.s : "");
            cJSON_AddStringToObject(t, "visibility", "visible");
            free(out.s);
            cJSON_AddItemToArray(tests, t);
            continue;
        }
        if (waiting(c)) /* its points are still to win: no verdict, its name says why */
            snprintf(name, sizeof name, "%s: %s (not run yet)", c->kernel, c->check);
        cJSON_AddStringToObject(t, "name", name);
        cJSON_AddNumberToObject(t, "score", c->points);
        cJSON_AddNumberToObject(t, "max_score", c->max_points);
        if (!waiting(c))
            cJSON_AddStringToObject(t, "status", !strcmp(c->status, "pass") ? "passed" : "failed");
        cJSON_AddStringToObject(t, "output", out.s ? out.s : "");
        cJSON_AddStringToObject(t, "visibility", "visible");
        free(out.s);
        cJSON_AddItemToArray(tests, t);
    }
    /* Graded part-way (the grader stopped): the rest is one failed test saying why. */
    double graded_max = 0;
    for (int i = 0; i < r->n_checks; i++)
        graded_max += r->checks[i].max_points; /* the checks apart too: worth 0 above, not missing */
    if (r->n_checks > 0 && r->max_points - graded_max > 1e-9) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", lab->id);
        cJSON_AddNumberToObject(t, "score", 0);
        cJSON_AddNumberToObject(t, "max_score", r->max_points - graded_max);
        cJSON_AddStringToObject(t, "status", "failed");
        cJSON_AddStringToObject(t, "output", r->reason);
        cJSON_AddStringToObject(t, "visibility", "visible");
        cJSON_AddItemToArray(tests, t);
    }
    cJSON_AddItemToObject(o, "tests", tests);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

static char *autolab_line(const lab_def *lab, const result *r)
{
    cJSON *o = cJSON_CreateObject(), *scores = cJSON_CreateObject(), *board = cJSON_CreateArray();
    cJSON_AddItemToArray(board, cJSON_CreateNumber(r->points));
    for (int k = 0; k < lab->n_kernels; k++) {
        int seen;
        double p = kernel_points(r, lab->kernels[k].name, &seen);
        cJSON_AddNumberToObject(scores, lab->kernels[k].name, p);
        cJSON_AddItemToArray(board, cJSON_CreateNumber(p));
    }
    cJSON_AddItemToObject(o, "scores", scores);
    cJSON_AddItemToObject(o, "scoreboard", board);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

/* --- JUnit ------------------------------------------------------------------------------- */

static void junit(sb *b, const lab_def *lab, const result *rs, int n)
{
    int tests = 0, failures = 0, errors = 0;
    double time = 0;
    for (int i = 0; i < n; i++) {
        const result *r = &rs[i];
        time += r->build_seconds + r->grade_seconds;
        if (r->n_checks == 0) {
            tests++;
            errors++;
        }
        for (int c = 0; c < r->n_checks; c++) {
            tests++;
            failures += failure(&r->checks[c]);
        }
    }
    sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(b, "<testsuites name=\"smemlab %s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
                 "time=\"%.3f\">\n", lab->id, tests, failures, errors, time);
    for (int i = 0; i < n; i++) {
        const result *r = &rs[i];
        int t = r->n_checks ? r->n_checks : 1, f = 0, sk = 0;
        for (int c = 0; c < r->n_checks; c++) { /* not measured here, waiting: skipped */
            sk += !strcmp(r->checks[c].status, "skipped") || apart(&r->checks[c]) || waiting(&r->checks[c]);
            f += failure(&r->checks[c]);
        }
        sb_puts(b, "  <testsuite name=\"");
        sb_xml(b, r->student);
        sb_printf(b, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\" "
                     "id=\"%d\" package=\"%s\">\n", t, f, r->n_checks ? 0 : 1, sk,
                  r->build_seconds + r->grade_seconds, i, lab->id);
        sb_printf(b, "    <properties>\n      <property name=\"points\" value=\"%g\"/>\n"
                     "      <property name=\"max_points\" value=\"%g\"/>\n"
                     "      <property name=\"status\" value=\"%s\"/>\n",
                  r->points, r->max_points, status_name(r->status));
        sb_puts(b, "      <property name=\"name\" value=\"");
        sb_xml(b, r->name);
        sb_puts(b, "\"/>\n      <property name=\"provenance\" value=\"");
        sb_xml(b, r->provenance);
        sb_puts(b, "\"/>\n      <property name=\"graded_with\" value=\"");
        sb_xml(b, r->graded_with);
        sb_printf(b, "\"/>\n      <property name=\"max_here\" value=\"%g\"/>\n"
                     "      <property name=\"final\" value=\"%g\"/>\n", r->max_here, r->final_points);
        sb_puts(b, "    </properties>\n");
        if (r->n_checks == 0) {
            sb_puts(b, "    <testcase name=\"");
            sb_xml(b, lab->id);
            sb_puts(b, "\" classname=\"");
            sb_xml(b, r->student);
            sb_puts(b, "\" time=\"0\">\n      <error message=\"");
            sb_xml(b, r->reason);
            sb_printf(b, "\" type=\"%s\">", status_name(r->status));
            sb_xml(b, r->reason);
            sb_puts(b, "</error>\n    </testcase>\n");
        }
        for (int c = 0; c < r->n_checks; c++) {
            const check_rec *k = &r->checks[c];
            sb_puts(b, "    <testcase name=\"");
            sb_xml(b, k->check);
            sb_puts(b, "\" classname=\"");
            sb_xml(b, r->student);
            sb_puts(b, ".");
            sb_xml(b, k->kernel);
            sb_puts(b, "\" time=\"0\">");
            if (!strcmp(k->status, "skipped") || apart(k) || waiting(k)) {
                sb_puts(b, "\n      <skipped message=\"");
                if (apart(k))
                    sb_printf(b, "%s here: ", !strcmp(k->status, "not-graded") ? "not graded"
                                                                            : "not measured");
                else if (waiting(k))
                    sb_puts(b, "not run yet: ");
                sb_xml(b, k->message);
                sb_puts(b, "\"/>\n    ");
            } else if (strcmp(k->status, "pass")) {
                sb_puts(b, "\n      <failure message=\"");
                sb_xml(b, k->message);
                sb_puts(b, "\" type=\"");
                sb_xml(b, k->status);
                sb_puts(b, "\">");
                sb_printf(b, "measured: ");
                sb_xml(b, k->measured);
                sb_puts(b, "\nexpected: ");
                sb_xml(b, k->expected);
                sb_puts(b, "\nhint: ");
                sb_xml(b, k->hint);
                sb_detail(b, k, "\n", "", 1);
                sb_puts(b, "</failure>\n    ");
            }
            sb_puts(b, "</testcase>\n");
        }
        sb_puts(b, "  </testsuite>\n");
    }
    sb_puts(b, "</testsuites>\n");
}

/* --- all of them ----------------------------------------------------------------------------- */

static int put(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
    return write_file_atomic(dir, name, text, strlen(text), err, errlen);
}

int reports_write(const batch_opts *o, const result *rs, int n, char *err, size_t errlen)
{
    const lab_def *lab = o->lab;
    char d_fb[4200], d_gs[4200], d_al[4200], d_st[4400], name[ID_MAX + 16];
    snprintf(d_fb, sizeof d_fb, "%s/feedback", o->results);
    snprintf(d_gs, sizeof d_gs, "%s/gradescope", o->results);
    snprintf(d_al, sizeof d_al, "%s/autolab", o->results);
    if (mkdir_p(d_fb, 0755) || mkdir_p(d_gs, 0755) || mkdir_p(d_al, 0755)) {
        snprintf(err, errlen, "cannot make the report folders in %s", o->results);
        return -1;
    }
    sb csv = {0};
    sb_puts(&csv, "student,name,email,late,points,max");
    for (int k = 0; k < lab->n_kernels; k++) {
        sb_puts(&csv, ",");
        sb_csv(&csv, lab->kernels[k].name);
    }
    sb_puts(&csv, ",status,reason,provenance,max_here,final,policy,lms,lms_id,graded_with\r\n");
    int rc = 0;
    char **pages = calloc((size_t)(n ? n : 1), sizeof *pages); /* the HTML feedback, for lms.c */
    for (int i = 0; i < n && rc == 0; i++) {
        const result *r = &rs[i];
        sb_csv(&csv, r->student);
        sb_puts(&csv, ",");
        sb_csv(&csv, r->name);
        sb_puts(&csv, ",");
        sb_csv(&csv, r->email);
        sb_puts(&csv, r->late ? ",late" : ",");
        sb_printf(&csv, ",%g,%g", r->points, r->max_points);
        for (int k = 0; k < lab->n_kernels; k++) {
            int seen;
            double p = kernel_points(r, lab->kernels[k].name, &seen);
            if (seen)
                sb_printf(&csv, ",%g", p);
            else
                sb_puts(&csv, ",");
        }
        sb_printf(&csv, ",%s,", status_name(r->status));
        sb_csv(&csv, r->reason);
        sb_puts(&csv, ",");
        sb_csv(&csv, r->provenance);
        sb_printf(&csv, ",%g,%g,", r->max_here, r->final_points);
        sb_csv(&csv, r->policy);
        sb_puts(&csv, ",");
        sb_csv(&csv, r->lms);
        sb_puts(&csv, ",");
        sb_csv(&csv, r->lms_id);
        sb_puts(&csv, ",");
        sb_csv(&csv, r->graded_with);
        sb_puts(&csv, "\r\n");

        sb txt = {0}, html = {0};
        feedback_text(&txt, lab, r);
        feedback_html(&html, lab, r, o->results);
        snprintf(name, sizeof name, "%s.txt", r->student);
        rc |= put(d_fb, name, txt.s, err, errlen);
        snprintf(name, sizeof name, "%s.html", r->student);
        rc |= rc ? 0 : put(d_fb, name, html.s, err, errlen);

        char *gs = gradescope_json(lab, r, txt.s);
        snprintf(d_st, sizeof d_st, "%s/%s", d_gs, r->student);
        if (!rc && mkdir_p(d_st, 0755) == 0)
            rc |= put(d_st, "results.json", gs, err, errlen);
        free(gs);

        char *line = autolab_line(lab, r);
        sb al = {0};
        sb_printf(&al, "%s\n%s\n", txt.s, line);
        snprintf(name, sizeof name, "%s.txt", r->student);
        rc |= rc ? 0 : put(d_al, name, al.s, err, errlen);
        free(line);
        free(al.s);
        free(txt.s);
        pages[i] = html.s;
    }
    if (!rc)
        rc = put(o->results, "gradebook.csv", csv.s, err, errlen);
    if (!rc)
        rc = lms_write(o, rs, n, pages, err, errlen);
    for (int i = 0; i < n; i++)
        free(pages[i]);
    free(pages);
    if (!rc)
        similar_write(o, rs, n);
    free(csv.s);
    if (!rc) {
        sb x = {0};
        junit(&x, lab, rs, n);
        rc = put(o->results, "junit.xml", x.s, err, errlen);
        free(x.s);
    }
    if (!rc) { /* what the reports are now, and what an earlier run left set apart */
        static const char *const class_wide[] = {"gradebook.csv", "junit.xml", "class.json",
            "similar.txt", "lms/moodle-grading-worksheet.csv", "lms/moodle-feedback.zip",
            "lms/canvas-gradebook.csv", "lms/README.txt"};
        stale_sweep(o, rs, n, class_wide, (int)(sizeof class_wide / sizeof class_wide[0]));
    }
    return rc ? -1 : 0;
}

/* --- the terminal summary ---------------------------------------------------------------------- */

typedef struct why { const char *text; int count; } why;

/* name and the spaces that fill it to `cols` columns on a terminal: a name's
   bytes are not its width (Zoë, 李), and %-20s pads by bytes. */
static void print_padded(FILE *f, const char *name, int cols)
{
    int width = 0;
    mbstate_t st = {0};
    const char *p = name;
    size_t left = strlen(name);
    while (left > 0) {
        wchar_t wc;
        size_t len = mbrtowc(&wc, p, left, &st);
        if (len == (size_t)-1 || len == (size_t)-2) { /* not UTF-8: a byte a column */
            width += (int)left;
            break;
        }
        int w = wcwidth(wc);
        width += w > 0 ? w : 0;
        p += len ? len : 1;
        left -= len ? len : 1;
    }
    fprintf(f, "%s%*s", name, width < cols ? cols - width : 0, "");
}

static void reasons_print(FILE *f, const result *rs, int n, sub_status st)
{
    if (st == ST_REJECTED || st == ST_NOT_COMPILED) { /* each its own: name them */
        int shown = 0, total = 0;
        for (int i = 0; i < n; i++) {
            if (rs[i].status != st)
                continue;
            if (total++ < 30) {
                fprintf(f, "      ");
                print_padded(f, rs[i].name[0] ? rs[i].name : rs[i].student, 20);
                fprintf(f, " %.160s\n", rs[i].reason);
                shown++;
            }
        }
        if (total > shown)
            fprintf(f, "      ... and %d more: see gradebook.csv\n", total - shown);
        return;
    }
    why w[16];
    int nw = 0, other = 0;
    for (int i = 0; i < n; i++) {
        if (rs[i].status != st)
            continue;
        const char *t = rs[i].reason;
        if (!strncmp(t, "not graded: ", 12))
            t += 12;
        int k;
        for (k = 0; k < nw; k++)
            if (!strcmp(w[k].text, t))
                break;
        if (k < nw)
            w[k].count++;
        else if (nw < 16)
            w[nw++] = (why){t, 1};
        else
            other++;
    }
    for (int k = 0; k < nw; k++)
        fprintf(f, "      %4d  %.160s\n", w[k].count, w[k].text);
    if (other)
        fprintf(f, "      %4d  (other reasons: see gradebook.csv)\n", other);
}

/* What graded the class, as the graders said: one line per device and backend. */
static void provenance_print(FILE *f, const result *rs, int n)
{
    for (int i = 0; i < n; i++) {
        int first = 1, count = 0;
        for (int j = 0; j < i && first; j++)
            first = strcmp(rs[j].provenance, rs[i].provenance) != 0;
        if (!rs[i].provenance[0] || !first)
            continue;
        for (int j = i; j < n; j++)
            count += !strcmp(rs[j].provenance, rs[i].provenance);
        fprintf(f, "    graded by     %5d  %s\n", count, rs[i].provenance);
    }
}

/* The ways the class was graded (graded_with): more than one is said loudly. */
static void graded_with_print(FILE *f, const result *rs, int n)
{
    int ways = 0;
    for (int i = 0; i < n; i++) {
        int first = rs[i].graded_with[0] != 0, count = 0;
        for (int j = 0; j < i && first; j++)
            first = strcmp(rs[j].graded_with, rs[i].graded_with) != 0;
        if (!first)
            continue;
        for (int j = i; j < n; j++)
            count += !strcmp(rs[j].graded_with, rs[i].graded_with);
        fprintf(f, "    graded with   %5d  %s\n", count, rs[i].graded_with);
        ways++;
    }
    if (ways > 1)
        fprintf(f, "    (the class was graded %d ways: see class.json, and --regrade to grade it "
                "one way)\n", ways);
}

static int failed_checks(const result *r)
{
    int n = 0;
    for (int i = 0; i < r->n_checks; i++)
        n += r->checks[i].status && strcmp(r->checks[i].status, "fail") == 0;
    return n;
}

void summary_print(FILE *f, const batch_opts *o, const result *rs, int n)
{
    int graded = 0, full = 0, failed = 0, nc = 0, ng = 0, rej = 0, nm = 0;
    double here = -1, whole = 0;
    for (int i = 0; i < n; i++) {
        switch (rs[i].status) {
        case ST_GRADED:
            graded++;
            /* full marks of what could be graded here (speed aside, emulated) */
            if (rs[i].points >= rs[i].max_here && rs[i].max_here > 0)
                full++;
            if (rs[i].max_here < rs[i].max_points)
                here = rs[i].max_here, whole = rs[i].max_points;
            failed += failed_checks(&rs[i]) > 0; /* short of full marks by unmeasured
                                                    checks alone is no failure */
            nm += rs[i].not_measured > 0;
            break;
        case ST_NOT_COMPILED: nc++; break;
        case ST_NOT_GRADED: ng++; break;
        case ST_REJECTED: rej++; break;
        default: break;
        }
    }
    char count[48];
    fprintf(f, "\n%s: %s, results in %s\n", o->lab->id,
            count_of(n, "submission", "submissions", count, sizeof count), o->results);
    fprintf(f, "  graded          %5d\n", graded);
    fprintf(f, "    full marks    %5d\n", full);
    fprintf(f, "    failed checks %5d\n", failed);
    if (nm)
        fprintf(f, "    (%d with checks not measured or not graded: no points until they "
                "are; see their feedback)\n", nm);
    if (here >= 0)
        fprintf(f, "    out of %g here, %g in all: %g points (speed) need a GPU. Set the "
                "assignment's total to %g in the learning system, or grade speed on a GPU "
                "(--regrade-not-measured there; docs/instructors.md#emulated-classes)\n", here,
                whole, whole - here, here);
    provenance_print(f, rs, n);
    graded_with_print(f, rs, n);
    fprintf(f, "  not compiled    %5d\n", nc);
    reasons_print(f, rs, n, ST_NOT_COMPILED);
    fprintf(f, "  not graded      %5d\n", ng);
    reasons_print(f, rs, n, ST_NOT_GRADED);
    fprintf(f, "  not usable      %5d\n", rej);
    reasons_print(f, rs, n, ST_REJECTED);
    fprintf(f, "Reports: gradebook.csv, junit.xml, feedback/, gradescope/, autolab/, lms/ (the "
            "learning system's import files), similar.txt, manifest.txt\n");
}
