/*
 * report_html.c - the report page (docs/instructors.md#page): one lab's
 * result as a self-contained HTML file a student opens in any browser, on a
 * phone or offline. The student's file with its lines highlighted; every line
 * a check names marked with what it cost (conflict degree, wavefronts and
 * requests, or sectors a request, against the ideal) and coloured by how far
 * that is from what the exercise expects; the checks of each kernel with
 * their verdict, numbers and hint, linked to their lines and back; the two
 * lines of a race linked to each other; a line a message names (a fault's);
 * each marked line's worst warp drawn over the banks or the sectors
 * (report_svg.c); where the exercise pads a tile, what the pad changes, from
 * the model; the predictions judged; whether it was measured on a GPU or
 * emulated. No script, no network: one file of HTML, CSS and inline SVG.
 *
 * Everything the student wrote or printed is escaped (svg_escape): a file or
 * a message cannot make markup.
 */
#define _GNU_SOURCE
#include "report.h"
#include "report_page.h"
#include "report_svg.h"

#include "../compare/compare.h"
#include "../measure/emulator/emu_gpu.h"
#include "../run/module.h" /* REC_ATTR_UNSET (record.h, through plan.h) */
#include "../model/tile_model.h"
#include "../model/transpose_model.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- words ----------------------------------------------------------------------------------- */

static void escaped_part(FILE *f, const char *text, size_t n)
{
    char *part = strndup(text, n);
    if (part)
        svg_escape(f, part);
    free(part);
}

/* What a check or the grader says, escaped, with the folder of the student's file left out
   (a grader's scratch folder, smemlab-batch's or an autograder's, is nobody's business:
   the page names files as the student knows them) and each place in the file it names
   ("lab3.cu:73") linked to its line. */
static void said(FILE *f, const page *pg, const char *text)
{
    size_t n = strlen(pg->folder), cap = strlen(text) + 1;
    char *flat = malloc(cap), *out = flat;
    if (!flat) {
        svg_escape(f, text);
        return;
    }
    for (const char *at; n && (at = strstr(text, pg->folder)); text = at + n) {
        memcpy(out, text, (size_t)(at - text));
        out += at - text;
    }
    snprintf(out, cap - (size_t)(out - flat), "%s", text);
    const char *p = flat, *place;
    int line;
    while ((place = page_next_place(pg, p, &line))) {
        const char *end = place + strlen(pg->src.name) + 1;
        while (isdigit((unsigned char)*end))
            end++;
        escaped_part(f, p, (size_t)(place - p));
        fprintf(f, "<a href=\"#L%d\">", line);
        escaped_part(f, place, (size_t)(end - place));
        fputs("</a>", f);
        p = end;
    }
    svg_escape(f, p);
    free(flat);
}

static void degree_words(double d, char *buf, size_t n)
{
    if (d < 1.005)
        snprintf(buf, n, "conflict-free");
    else if (fabs(d - round(d)) < 0.05)
        snprintf(buf, n, "%.0f-way", round(d));
    else
        snprintf(buf, n, "%.2f-way", d);
}

/* "load 32-way: 1024 wavefronts / 32 requests (ideal 32)" or the global side's sectors. */
static void cost_words(const check_line *l, char *buf, size_t n)
{
    if (line_is_global(l)) {
        snprintf(buf, n, "global %s: %.2f sectors a request (%ld sectors / %ld requests, ideal "
                 "%ld)", l->op + 1, l->requests > 0 ? (double)l->wavefronts / l->requests : 0.0,
                 l->wavefronts, l->requests, l->ideal);
        return;
    }
    char d[32];
    degree_words(line_ratio(l), d, sizeof d);
    snprintf(buf, n, "%s %s: %ld wavefronts / %ld requests (ideal %ld)", l->op, d, l->wavefronts,
             l->requests, l->ideal);
}

/* What the check expects of the line's side, in words ("" where it does not say). */
static void expect_words(const check_result *c, const check_line *l, char *buf, size_t n)
{
    double want = line_is_store(l) ? c->expect_store : c->expect_load;
    char d[32];
    buf[0] = '\0';
    if (line_is_global(l))
        snprintf(buf, n, "%s", want == CHECK_EXPECT_STRIDED ? "strided, on purpose"
                               : want > 0 ? "coalesced" : "");
    else if (want > 0) {
        degree_words(want, d, sizeof d);
        snprintf(buf, n, "%s", d);
    }
}

static const char *status_word(check_status s)
{
    switch (s) {
    case CHECK_PASS: return "PASS";
    case CHECK_FAIL: return "FAIL";
    case CHECK_NOT_MEASURED: return "N/M";
    case CHECK_SKIPPED: return "SKIP";
    case CHECK_NOT_GRADED: return "N/G";
    }
    return "?";
}

static void check_anchor(const check_result *c, char *buf, size_t n)
{
    snprintf(buf, n, "c-%s-%s", c->kernel, c->check);
}

/* --- the page's parts -------------------------------------------------------------------------- */

static const char STYLE[] =
    ":root{color-scheme:light dark;--bg:#ffffff;--fg:#1a1a1a;--muted:#4d4d4d;--line:#d0d0d0;"
    "--code-bg:#f7f7f7;--link:#0b5cad;--kw:#7a1f8f;--ty:#0f5d75;--cu:#8a4a00;--str:#1d6b1d;"
    "--com:#5c5c5c;--num:#8f1f3a;--pp:#5b4a8a;--ok:#0b5cad;--ok-bg:#e3eefa;--near:#8a5200;"
    "--near-bg:#fdf0d8;--far:#a8320b;--far-bg:#fde3da;--info:#4d4d4d;--info-bg:#eeeeee;"
    "--target:#fff6b3}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#e8e8e8;--muted:#b8b8b8;"
    "--line:#3a3a3a;--code-bg:#1c1c1c;--link:#8cc4ff;--kw:#e0a3f0;--ty:#7fd4ea;--cu:#f2b56b;"
    "--str:#9fdc8f;--com:#a6a6a6;--num:#ff9fb3;--pp:#c7b8f5;--ok:#8cc4ff;--ok-bg:#14304d;"
    "--near:#ffc86b;--near-bg:#3d2c0a;--far:#ff9f80;--far-bg:#4a1c10;--info:#c8c8c8;"
    "--info-bg:#2a2a2a;--target:#4a4410}}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0 auto;max-width:64rem;padding:0 1rem 3rem;background:var(--bg);color:var(--fg);"
    "font:16px/1.5 system-ui,'DejaVu Sans','Segoe UI',Helvetica,Arial,sans-serif;"
    "overflow-wrap:anywhere}\n" /* a message's long instruction or path breaks, not the page */
    "a{color:var(--link)}a:focus-visible,summary:focus-visible{outline:3px solid var(--link);"
    "outline-offset:2px}\n"
    ".skip{position:absolute;left:-999px}.skip:focus{position:static}\n"
    "h1{font-size:1.5rem;margin:1rem 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;"
    "border-bottom:1px solid var(--line)}h3{font-size:1.05rem;margin:1rem 0 .25rem}\n"
    "p{margin:.35rem 0}.muted{color:var(--muted)}code,pre{font-family:'DejaVu Sans Mono',"
    "Menlo,Consolas,monospace;font-size:.875rem}\n"
    ".how{display:inline-block;padding:.1rem .5rem;border-radius:.3rem;background:var(--info-bg)}\n"
    ".verdict{display:inline-block;min-width:3.2em;padding:0 .35em;border-radius:.25rem;"
    "font-weight:bold;text-align:center}\n"
    ".v-pass,.v-ok{color:var(--ok);background:var(--ok-bg)}.v-fail,.v-far{color:var(--far);"
    "background:var(--far-bg)}.v-near{color:var(--near);background:var(--near-bg)}"
    ".v-n-m,.v-n-g,.v-skip,.v-info,.v-wait{color:var(--info);background:var(--info-bg)}\n"
    "ul.kernels,ul.lines,ul.legend{padding-left:1.2rem}\n"
    ".check{border-left:4px solid var(--line);padding:.1rem 0 .1rem .75rem;margin:.75rem 0}"
    ".check.fail{border-color:var(--far)}.check.pass{border-color:var(--ok)}"
    ".check.wait{border-color:var(--info)}summary{cursor:pointer;color:var(--link)}\n"
    ".check h3{display:flex;flex-wrap:wrap;gap:.5rem;align-items:baseline}\n"
    ".hint{background:var(--code-bg);padding:.35rem .6rem;border-radius:.3rem}\n"
    "figure{margin:1rem 0}figure svg{display:block;width:100%;height:auto;"
    "border:1px solid var(--line);border-radius:.3rem}figcaption{font-size:.9rem;"
    "color:var(--muted)}\n"
    ".src{background:var(--code-bg);border:1px solid var(--line);border-radius:.3rem;"
    "padding:.5rem 0;margin:0;white-space:break-spaces;overflow-wrap:anywhere}\n"
    ".src .l{display:block;padding:0 .5rem 0 4.2em;text-indent:-3.7em;min-height:1.5em}"
    ".src .n{display:inline-block;width:3.2em;margin-right:.5em;text-indent:0;text-align:right;"
    "color:var(--muted);user-select:none}\n"
    ".src .l:target{background:var(--target)}\n"
    ".src .m-ok{box-shadow:inset 4px 0 var(--ok)}.src .m-near{box-shadow:inset 4px 0 "
    "var(--near);background:var(--near-bg)}.src .m-far{box-shadow:inset 4px 0 var(--far);"
    "background:var(--far-bg)}.src .m-info{box-shadow:inset 4px 0 var(--info)}\n"
    ".src .ann{display:block;margin:0 .5rem .3rem 4.2em;padding:.2rem .5rem;border-radius:.3rem;"
    "background:var(--bg);border:1px solid var(--line);font-family:system-ui,'DejaVu Sans',"
    "sans-serif;font-size:.85rem;white-space:normal}\n"
    ".kw{color:var(--kw)}.ty{color:var(--ty)}.cu{color:var(--cu);font-weight:bold}"
    ".str{color:var(--str)}.com{color:var(--com);font-style:italic}.num{color:var(--num)}"
    ".pp{color:var(--pp)}\n"
    ".pad{display:grid;gap:.5rem;grid-template-columns:1fr}"
    "@media (min-width:50rem){.pad{grid-template-columns:1fr 1fr}}\n"
    "pre.out{background:var(--code-bg);padding:.5rem;white-space:break-spaces;"
    "overflow-wrap:anywhere}\n";

static void head(FILE *f, const lab_result *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"smemlab-grade\">\n<title>", f);
    svg_escape(f, r->lab->id);
    fputs(": ", f);
    svg_escape(f, r->lab->title);
    fprintf(f, ", %g/%g points</title>\n<style>\n%s</style>\n</head>\n<body>\n", r->points,
            r->max_points, STYLE);
}

/* How it was measured: a GPU's words, or the emulator's. */
static void measured_how(FILE *f, const lab_result *r)
{
    static const char EMULATED[] = "emulated on the CPU";
    int emulated = strncmp(r->device, EMULATED, sizeof EMULATED - 1) == 0;
    const char *rest = r->device + (emulated ? sizeof EMULATED - 1 : 0);
    rest += strspn(rest, ": ");
    fputs("<p><span class=\"how\" id=\"how\">", f);
    fputs(emulated ? "Emulated on the CPU" : r->device[0] ? "Measured on a GPU" : "Not measured",
          f);
    fputs("</span> ", f);
    svg_escape(f, r->device[0] ? rest : "no device was opened");
    fputs("</p>\n", f);
}

/* The kernels in the lab's order: [first, first + n) of r->checks each. */
static int kernel_span(const lab_result *r, int first, double *points, double *max)
{
    int n = 0;
    *points = *max = 0;
    while (first + n < r->n_checks &&
           strcmp(r->checks[first + n].kernel, r->checks[first].kernel) == 0) {
        *points += r->checks[first + n].points;
        *max += r->checks[first + n].max_points;
        n++;
    }
    return n;
}

/* A failure of its own (not one that waits for another check), as the text counts it. */
static int kernel_failed(const lab_result *r, int first, int n)
{
    char what[96];
    for (int i = first; i < first + n; i++)
        if (r->checks[i].status == CHECK_FAIL &&
            !report_check_waits(r, first, n, i, what, sizeof what))
            return 1;
    return 0;
}

static void header(FILE *f, page *pg)
{
    const lab_result *r = pg->r;
    fputs("<a class=\"skip\" href=\"#main\">Skip to the kernels</a>\n<header>\n<h1>", f);
    svg_escape(f, r->lab->id);
    fputs(": ", f);
    svg_escape(f, r->lab->title);
    fprintf(f, "</h1>\n<p><strong>%g/%g points</strong>", r->points, r->max_points);
    if (pg->have_src) {
        fputs(" for <a href=\"#source\"><code>", f);
        svg_escape(f, pg->src.name);
        fputs("</code></a>", f);
    }
    fputs("</p>\n", f);
    measured_how(f, r);
    if (r->env_code) {
        fputs("<p class=\"check fail\"><strong>Not graded", f);
        fputs(r->n_checks ? " from here on" : "", f);
        fputs(":</strong> ", f);
        said(f, pg, r->env_text);
        fputs("</p>\n", f);
    }
    fputs("<nav aria-label=\"Kernels\">\n<ul class=\"kernels\">\n", f);
    for (int at = 0; at < r->n_checks;) {
        double pts, max;
        char todo[320];
        int n = kernel_span(r, at, &pts, &max), bad = kernel_failed(r, at, n);
        int fresh = report_kernel_todo(r, at, n, todo, sizeof todo);
        fprintf(f, "<li><a href=\"#k-%s\">%s</a> <span class=\"verdict v-%s\">%g/%g</span>%s</li>\n",
                r->checks[at].kernel, r->checks[at].kernel, bad ? "fail" : "pass", pts, max,
                fresh ? " not started" : bad ? " a check failed" : "");
        at += n;
    }
    if (r->predictions)
        fputs("<li><a href=\"#predictions\">Your predictions</a></li>\n", f);
    if (pg->have_src)
        fputs("<li><a href=\"#source\">Your file, line by line</a></li>\n", f);
    fputs("</ul>\n</nav>\n</header>\n", f);
}

/* "line 70" linked to the listing where the file is shown. */
static void line_link(FILE *f, const page *pg, const check_line *l)
{
    if (page_same_file(pg, l) && l->line > 0 && l->line <= pg->src.n)
        fprintf(f, "<a href=\"#L%d\">line %d</a>", l->line, l->line);
    else {
        fputs("<code>", f);
        svg_escape(f, l->file);
        if (l->line > 0)
            fprintf(f, ":%d", l->line);
        fputs("</code>", f);
    }
}

static const mark *mark_of(const page *pg, int check, int entry)
{
    for (int i = 0; i < pg->n_marks; i++)
        if (pg->marks[i].check == check && pg->marks[i].entry == entry)
            return &pg->marks[i];
    return NULL;
}

static void check_block(FILE *f, const page *pg, int ci, int first, int n)
{
    const check_result *c = &pg->r->checks[ci];
    char anchor[96], words[200], want[64], what[96];
    const char *st = report_check_waits(pg->r, first, n, ci, what, sizeof what)
                         ? "WAIT" /* nothing to judge until another check passes */
                         : status_word(c->status);
    char cls[8];
    snprintf(cls, sizeof cls, "%s", st);
    for (char *p = cls; *p; p++)
        *p = *p == '/' ? '-' : (char)tolower((unsigned char)*p);
    check_anchor(c, anchor, sizeof anchor);
    fprintf(f, "<div class=\"check %s\" id=\"%s\">\n<h3><span>%s</span> <span class=\"verdict "
               "v-%s\">%s</span> <span class=\"muted\">%g/%g</span></h3>\n<p>", cls, anchor,
            c->check, cls, st, c->points, c->max_points);
    said(f, pg, c->message);
    fputs("</p>\n", f);
    if (c->measured[0] || c->expected[0]) {
        fputs("<p class=\"muted\">measured ", f);
        said(f, pg, c->measured[0] ? c->measured : "-");
        fputs("; expected ", f);
        said(f, pg, c->expected[0] ? c->expected : "-");
        fputs("</p>\n", f);
    }
    if (c->hint[0] && c->status != CHECK_PASS) {
        fputs("<p class=\"hint\"><strong>Hint:</strong> ", f);
        said(f, pg, c->hint);
        fputs("</p>\n", f);
    }
    if (c->n_lines > 0) {
        fputs("<ul class=\"lines\">\n", f);
        for (int i = 0; i < c->n_lines && i < CHECK_MAX_LINES; i++) {
            const check_line *l = &c->lines[i];
            const mark *m = mark_of(pg, ci, i);
            fputs("<li>", f);
            line_link(f, pg, l);
            if (m && m->kind == MARK_RACE) {
                fprintf(f, ": %s, racing with <a href=\"#L%d\">line %d</a>", l->op, m->partner,
                        m->partner);
            } else if (l->requests > 0) {
                cost_words(l, words, sizeof words);
                fputs(": ", f);
                svg_escape(f, words);
                expect_words(c, l, want, sizeof want);
                if (want[0] && c->status == CHECK_FAIL)
                    fprintf(f, "; expected %s", want);
                if (m)
                    fprintf(f, " <span class=\"verdict v-%s\">%s</span>", COST_CLASS_NAME[m->cls],
                            COST_CLASS_WORDS[m->cls]);
                if (m && m->fig[0])
                    fprintf(f, " <a href=\"#%s\">the warp, drawn</a>", m->fig);
            } else {
                fputs(": ", f);
                svg_escape(f, strcmp(l->op, "cload") == 0 ? "a constant load" : l->op);
            }
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    fputs("</div>\n", f);
}

/* The line's worst warp over the banks, or over the sectors. */
static void warp_figure(FILE *f, const page *pg, const check_result *c, const check_line *l,
                        const char *id)
{
    const check_warp *w = &l->worst;
    char title[200], at[80], words[200];
    if (page_same_file(pg, l) && l->line > 0)
        snprintf(at, sizeof at, "line %d", l->line);
    else
        snprintf(at, sizeof at, "%s", l->file);
    snprintf(title, sizeof title, "%s, %s: warp %u of block %u, your worst %s%s",
             c->kernel, at, w->warp, w->block, line_is_global(l) ? "global " : "",
             line_is_global(l) ? l->op + 1 : l->op);
    fprintf(f, "<figure id=\"%s\">\n", id);
    if (line_is_global(l)) {
        global_access a = {.active = w->active, .width = w->width};
        for (int lane = 0; lane < SECTOR_LANES && lane < CHECK_WARP_LANES; lane++)
            a.addr[lane] = w->addr[lane];
        svg_sector_warp(f, &a, id, title);
    } else {
        bank_geometry g = {.banks = w->banks, .bank_bytes = w->bank_bytes, .warp_size = 32,
                           .row_bytes = w->row_bytes};
        warp_access a = {.active = w->active, .width = w->width, .load = !line_is_store(l),
                         .kind = w->kind, .lines = w->lines, .skewed = w->skewed};
        for (int lane = 0; lane < BANK_MAX_LANES && lane < CHECK_WARP_LANES; lane++)
            a.addr[lane] = w->addr[lane];
        svg_bank_warp(f, &g, &a, id, title);
    }
    fputs("<figcaption>", f);
    cost_words(l, words, sizeof words);
    svg_escape(f, title);
    fputs(". The whole line: ", f);
    svg_escape(f, words);
    if (page_same_file(pg, l) && l->line > 0)
        fprintf(f, ". <a href=\"#L%d\">Back to line %d</a>", l->line, l->line);
    fputs(".</figcaption>\n</figure>\n", f);
}

/* --- what the pad changes (labs 3, 4, 9), from the model ----------------------------------- */

typedef struct pad_view {
    int unpadded, padded; /* row lengths in words */
    warp_access without, with;
    const char *code;     /* the read, as the exercise writes it */
} pad_view;

/* The banks a lab was graded on: today's 4-byte ones, or the GPU graded as (--gpu), in the
   mode a launch gets unless its launcher asks for another. */
static void graded_banks(const lab_result *r, bank_geometry *g)
{
    const emu_gpu *as = emu_gpu_find(r->graded_as);
    if (as)
        emu_gpu_banks(as, REC_ATTR_UNSET, g);
    else
        bank_geometry_for(7, 5, 32, 0, g);
}

/* Whether kernel k's exercise pads its tile; its read's first warp both ways, on g. */
static int pad_of(const lab_def *lab, const lab_kernel *k, const bank_geometry *g, pad_view *v)
{
    tile_spec t;
    memset(v, 0, sizeof *v);
    tile_spec_on(lab, k, g, &t);
    if (lab->kind == PROBLEM_TILE && t.load.pitch > lab->bdimx && t.elem_parts == 0 &&
        (t.load.order == TILE_COL || t.load.order == TILE_TRANSPOSED)) {
        tile_access a = t.load;
        v->padded = a.pitch;
        v->unpadded = lab->bdimx;
        tile_warp_access(g, &a, lab->bdimx, lab->bdimy, 4, 1, 0, &v->with);
        a.pitch = lab->bdimx;
        tile_warp_access(g, &a, lab->bdimx, lab->bdimy, 4, 1, 0, &v->without);
        v->code = t.load_code;
        return 1;
    }
    if (lab->kind == PROBLEM_TRANSPOSE && k->transpose.tile_pad > 0) {
        v->unpadded = k->transpose.unroll * lab->bdimx;
        v->padded = v->unpadded + k->transpose.tile_pad;
        transpose_read_access(lab->bdimx, lab->bdimy, v->unpadded, 0, &v->without);
        transpose_read_access(lab->bdimx, lab->bdimy, v->padded, 0, &v->with);
        v->code = "tile[icol][irow]";
        return 1;
    }
    return 0;
}

static void pad_figure(FILE *f, const lab_result *r, const lab_kernel *k)
{
    pad_view v;
    bank_geometry g;
    char id[96], title[200];
    graded_banks(r, &g);
    if (!pad_of(r->lab, k, &g, &v))
        return;
    fprintf(f, "<figure class=\"padfig\" id=\"pad-%s\">\n<div class=\"pad\">\n", k->name);
    for (int side = 0; side < 2; side++) {
        snprintf(id, sizeof id, "pad-%s-%d", k->name, side);
        snprintf(title, sizeof title, "%s, rows of %d words (%s): warp 0, the model",
                 v.code, side ? v.padded : v.unpadded, side ? "padded" : "no pad");
        svg_bank_warp(f, &g, side ? &v.with : &v.without, id, title);
    }
    int w0 = bank_wavefronts(&g, &v.without), w1 = bank_wavefronts(&g, &v.with);
    fprintf(f, "</div>\n<figcaption>What the pad changes: the exercise's read <code>");
    svg_escape(f, v.code);
    fprintf(f, "</code> takes %d wavefront%s a warp with rows of %d words and %d with rows of %d, "
               "as the grader's bank model (and the course's figures) give it. Your own warp, as "
               "measured, is drawn beside the check.</figcaption>\n</figure>\n", w0,
            w0 == 1 ? "" : "s", v.unpadded, w1, v.padded);
}

static void kernel_section(FILE *f, page *pg, int first, int n)
{
    const lab_result *r = pg->r;
    const char *name = r->checks[first].kernel;
    const lab_kernel *k = NULL;
    int index = -1;
    double pts, max;
    kernel_span(r, first, &pts, &max);
    for (int i = 0; i < r->lab->n_kernels && !k; i++)
        if (strcmp(r->lab->kernels[i].name, name) == 0) {
            k = &r->lab->kernels[i];
            index = i;
        }
    fprintf(f, "<section id=\"k-%s\" aria-labelledby=\"k-%s-h\">\n<h2 id=\"k-%s-h\">%s "
               "<span class=\"muted\">%g/%g</span></h2>\n", name, name, name, name, pts, max);
    if (k && k->teaches) {
        fputs("<p class=\"muted\">", f);
        svg_escape(f, k->teaches);
        if (r->places && index >= 0 && pg->have_src && r->places[index].kernel > 0 &&
            r->places[index].kernel <= pg->src.n)
            fprintf(f, " (your kernel: <a href=\"#L%d\">line %d</a>)", r->places[index].kernel,
                    r->places[index].kernel);
        fputs("</p>\n", f);
    }
    char todo[320];
    if (report_kernel_todo(r, first, n, todo, sizeof todo)) {
        /* as the text says it: one line, the checks that wait for it folded away */
        fputs("<p class=\"check fail\"><strong>TODO, not started:</strong> ", f);
        said(f, pg, todo);
        fprintf(f, "</p>\n<details><summary>Its %d checks, none run yet</summary>\n", n);
        for (int i = first; i < first + n; i++)
            check_block(f, pg, i, first, n);
        fputs("</details>\n</section>\n", f);
        return;
    }
    for (int i = first; i < first + n; i++)
        check_block(f, pg, i, first, n);
    int drawn = 0;
    for (int i = first; i < first + n; i++) {
        const check_result *c = &r->checks[i];
        for (int e = 0; e < c->n_lines && e < CHECK_MAX_LINES; e++) {
            char id[96];
            if (!c->lines[e].worst.active || c->lines[e].requests <= 0)
                continue;
            page_fig_id(c, e, id, sizeof id);
            if (!drawn++)
                fputs("<h3>Your warps, drawn</h3>\n", f);
            warp_figure(f, pg, c, &c->lines[e], id);
        }
    }
    if (k)
        pad_figure(f, r, k);
    fputs("</section>\n", f);
}

static void predictions(FILE *f, const page *pg)
{
    const lab_result *r = pg->r;
    if (!r->predictions)
        return;
    fputs("<section id=\"predictions\" aria-labelledby=\"predictions-h\">\n<h2 id=\"predictions-h\">"
          "Your predictions and what was measured</h2>\n<p class=\"muted\">No points either way: "
          "the PREDICT lines of your file, judged against the conflict degrees the checks "
          "measured.</p>\n<ul>\n", f);
    for (const char *p = r->predictions; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *line = strndup(p, n);
        if (line && *line) {
            fputs("<li>", f);
            said(f, pg, line);
            fputs("</li>\n", f);
        }
        free(line);
        p += n + (end != NULL);
    }
    fputs("</ul>\n</section>\n", f);
}

static void printed(FILE *f, const page *pg, const char *what, const char *text)
{
    if (!text || !*text)
        return;
    fputs("<details>\n<summary>What ", f);
    fputs(what, f);
    fputs(" printed (not part of the grade)</summary>\n<pre class=\"out\">", f);
    said(f, pg, text);
    fputs("</pre>\n</details>\n", f);
}

/* A marked line's annotation: each thing said of it, linked to its check (and drawing). */
static void annotation(FILE *f, const page *pg, int no)
{
    int any = 0;
    for (int i = 0; i < pg->n_marks; i++) {
        const mark *m = &pg->marks[i];
        if (m->line != no)
            continue;
        const check_result *c = &pg->r->checks[m->check];
        char anchor[96], words[200], want[64];
        check_anchor(c, anchor, sizeof anchor);
        fputs(any++ ? "<br>" : "<span class=\"ann\">", f);
        fprintf(f, "<span class=\"verdict v-%s\">%s</span> ", COST_CLASS_NAME[m->cls],
                COST_CLASS_WORDS[m->cls]);
        if (m->kind == MARK_RACE) {
            fprintf(f, "races with <a href=\"#L%d\">line %d</a> ", m->partner, m->partner);
        } else if (m->kind == MARK_COST) {
            const check_line *l = &c->lines[m->entry];
            cost_words(l, words, sizeof words);
            svg_escape(f, words);
            expect_words(c, l, want, sizeof want);
            if (want[0])
                fprintf(f, "; expected %s", want);
            fputc(' ', f);
        } else {
            fputs("named by ", f);
        }
        fprintf(f, "<a href=\"#%s\">%s: %s %s</a>", anchor, c->kernel, c->check,
                status_word(c->status));
        if (m->fig[0])
            fprintf(f, " <a href=\"#%s\">the warp, drawn</a>", m->fig);
    }
    if (any)
        fputs("</span>", f);
}

static void listing(FILE *f, const page *pg)
{
    if (!pg->have_src) {
        fputs("<section id=\"source\" aria-labelledby=\"source-h\">\n<h2 id=\"source-h\">Your "
              "file</h2>\n<p>Your file could not be read here, so its lines are named above but "
              "not shown.</p>\n</section>\n", f);
        return;
    }
    fputs("<section id=\"source\" aria-labelledby=\"source-h\">\n<h2 id=\"source-h\">Your file, "
          "<code>", f);
    svg_escape(f, pg->src.name);
    fputs("</code></h2>\n<p>Each line a check names is marked with what it cost, coloured by how "
          "far that is from what the exercise expects:</p>\n<ul class=\"legend\">\n"
          "<li><span class=\"verdict v-ok\">as expected</span> what the exercise asks "
          "(a 32-way read too, where the exercise asks for one)</li>\n"
          "<li><span class=\"verdict v-near\">off</span> within twice the expected cost, or "
          "the first line of a check that failed for what its words say</li>\n"
          "<li><span class=\"verdict v-far\">far off</span> twice or more, a race, or a line "
          "a failing check names (a fault)</li>\n"
          "<li><span class=\"verdict v-info\">not judged</span> named by a check that could not "
          "be measured here</li>\n</ul>\n", f);
    if (pg->n_marks == 0 && pg->r->n_checks > 0)
        fputs(strstr(pg->r->device, "counters") && !strstr(pg->r->device, "trace")
              ? "<p>No check names a line of your file here: the hardware counters count "
                "without lines. The trace (the Compute Sanitizer, on a GPU) and the emulator "
                "name them.</p>\n"
              : "<p>No check names a line of your file: no check judged an access of "
                "it.</p>\n", f);
    fputs("<pre class=\"src\"><code>", f);
    int in_comment = 0;
    for (int i = 0; i < pg->src.n; i++) {
        int no = i + 1, worst = page_line_worst(pg, no);
        fprintf(f, "<span class=\"l%s%s\" id=\"L%d\"><span class=\"n\">%d</span>",
                worst >= 0 ? " m-" : "", worst >= 0 ? COST_CLASS_NAME[worst] : "", no, no);
        source_highlight(f, pg->src.line[i], &in_comment);
        fputs("</span>", f);
        annotation(f, pg, no); /* block spans: a newline between them would be a blank line */
    }
    fputs("</code></pre>\n", f);
    if (pg->src.cut)
        fprintf(f, "<p>The file goes on past what is shown here (%ld bytes, %d lines).</p>\n",
                PAGE_MAX_SOURCE, PAGE_MAX_LINES);
    fputs("</section>\n", f);
}

int report_html(FILE *f, const lab_result *r, const char *source)
{
    page pg = {.r = r};
    pg.have_src = source_read(source, &pg.src) == 0;
    const char *slash = source ? strrchr(source, '/') : NULL;
    if (slash && slash > source)
        snprintf(pg.folder, sizeof pg.folder, "%.*s", (int)(slash - source + 1), source);
    page_collect_marks(&pg);
    head(f, r);
    header(f, &pg);
    fputs("<main id=\"main\">\n", f);
    for (int at = 0; at < r->n_checks;) {
        double pts, max;
        int n = kernel_span(r, at, &pts, &max);
        kernel_section(f, &pg, at, n);
        at += n;
    }
    predictions(f, &pg);
    printed(f, &pg, "your launchers (host code)", r->host_printed);
    printed(f, &pg, "your kernels (device printf)", r->device_printed);
    listing(f, &pg);
    fputs("</main>\n<footer><p class=\"muted\">Written by smemlab-grade: the same results as "
          "its text report and <code>--json</code>. The drawings come from the grader's bank "
          "and sector models, applied to the addresses it recorded.</p></footer>\n"
          "</body>\n</html>\n", f);
    free(pg.marks);
    if (pg.have_src)
        source_free(&pg.src);
    return ferror(f) ? -1 : 0;
}
