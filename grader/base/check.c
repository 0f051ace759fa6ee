/* check.c - building check records; see check.h. */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void check_field(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

void check_init(check_result *c, const char *lab, const char *kernel, const char *check,
                double max_points)
{
    memset(c, 0, sizeof *c);
    check_field(c->lab, sizeof c->lab, "%s", lab);
    check_field(c->kernel, sizeof c->kernel, "%s", kernel);
    check_field(c->check, sizeof c->check, "%s", check);
    c->status = CHECK_FAIL;
    c->max_points = max_points;
}

void check_set(check_result *c, check_status status, const char *fmt, ...)
{
    va_list ap;
    c->status = status;
    c->points = status == CHECK_PASS ? c->max_points : 0.0;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
}

const char *check_status_name(check_status s)
{
    switch (s) {
    case CHECK_PASS: return "pass";
    case CHECK_FAIL: return "fail";
    case CHECK_NOT_MEASURED: return "not-measured";
    case CHECK_SKIPPED: return "skipped";
    case CHECK_NOT_GRADED: return "not-graded";
    }
    return "?";
}

void check_warp_tidy(check_warp *w)
{
    int width_ok = w->width == 1 || w->width == 2 || w->width == 4 || w->width == 8 ||
                   w->width == 16;
    int banks_ok = (w->banks == 0 && w->bank_bytes == 0 && w->row_bytes == 0) || /* global */
                   (w->banks == 32 && (w->bank_bytes == 4 || w->bank_bytes == 8) &&
                    (w->row_bytes == 0 || w->row_bytes == w->bank_bytes || w->row_bytes == 8));
    if (!w->active || !width_ok || !banks_ok)
        memset(w, 0, sizeof *w);
}

const char *check_line_text(const check_line *l, char *buf, size_t size)
{
    if (strcmp(l->op, "gload") == 0 || strcmp(l->op, "gstore") == 0 ||
        strcmp(l->op, "gatomic") == 0) { /* sectors, not banks */
        char gat[sizeof l->file + 16];
        snprintf(gat, sizeof gat, l->line > 0 ? "%s:%d" : "%s", l->file, l->line);
        double r = l->ideal > 0 ? (double)l->wavefronts / (double)l->ideal : 1.0;
        snprintf(buf, size, "%s  global %s  %s%.2f sectors a request (%ld sectors / %ld requests, "
                 "ideal %ld)", gat, l->op + 1, r < 1.005 ? "coalesced, " : "", l->requests
                 ? (double)l->wavefronts / (double)l->requests : 0.0, l->wavefronts, l->requests,
                 l->ideal);
        return buf;
    }
    double d = l->ideal > 0 ? (double)l->wavefronts / (double)l->ideal : 1.0;
    char degree[32];
    if (d < 1.005)
        snprintf(degree, sizeof degree, "conflict-free");
    else if (fabs(d - round(d)) < 0.005)
        snprintf(degree, sizeof degree, "%.0f-way", round(d));
    else
        snprintf(degree, sizeof degree, "%.2f-way", d);
    char at[sizeof l->file + 16];
    if (l->line > 0)
        snprintf(at, sizeof at, "%s:%d", l->file, l->line);
    else /* not named: its pc ("pc 0xe0") */
        snprintf(at, sizeof at, "%s", l->file);
    if (l->requests > 0)
        snprintf(buf, size, "%s  %s  %s (%ld wavefronts / %ld requests)", at, l->op, degree,
                 l->wavefronts, l->requests);
    else if (strcmp(l->op, "cload") == 0) /* a constant load the compiled code names */
        snprintf(buf, size, "%s  constant load", at);
    else /* a race line: no counts */
        snprintf(buf, size, "%s  %s", at, l->op);
    return buf;
}

void check_not_graded_like(check_result *c, const check_result *cause)
{
    check_set(c, CHECK_NOT_GRADED, "%s", cause->message);
    check_field(c->hint, sizeof c->hint, "%s", cause->hint);
}

const char CHECK_HINT_HANG[] = "Look for a loop whose exit condition never becomes true, or a "
                               "__syncthreads() that only some threads of the block reach.";

const char CHECK_HINT_MISALIGNED[] =
    "A wide access (a float2 or float4, or a pointer cast to a wider type) needs an address "
    "that is a multiple of its size: 16 bytes for a float4. At this size a row starts at an "
    "element that is no multiple of 4 (a width that is not), or the array itself is not so "
    "aligned: take the wide path only where the address is aligned (the width a multiple "
    "of 4 and ((size_t)ptr & 15) == 0), the element-by-element path elsewhere.";

int check_why_not_graded(const char *why)
{
    return why && !strncmp(why, "not graded: ", 12);
}

const char CHECK_HINT_NOT_GRADED[] =
    "This is a limit of the grading tool, not a fault of your kernel: no points are lost "
    "and none are given for it. Where the message names the emulator, a GPU measures it "
    "(make grade there); where it names an older GPU the kit grades as (make grade "
    "GPU=kepler), that GPU could not run the kernel, and make grade without GPU= grades it; "
    "to have it graded anywhere, write the kernel without the instruction named.";

int check_waits(const check_result *c)
{
    static const char *const waiting[] = {"waits for ", "not run: ", "not timed: ",
                                          "not counted: the measured run gave a wrong result"};
    if (c->status != CHECK_FAIL)
        return 0;
    for (size_t i = 0; i < sizeof waiting / sizeof *waiting; i++)
        if (strncmp(c->message, waiting[i], strlen(waiting[i])) == 0)
            return 1;
    return 0;
}

int check_fail_launch(check_result *c, const char *at, const char *why, const char *hint)
{
    if (check_why_not_graded(why)) {
        check_set(c, CHECK_NOT_GRADED, "%s", why);
        check_field(c->hint, sizeof c->hint, "%s", CHECK_HINT_NOT_GRADED);
        return 1;
    }
    if (at)
        check_set(c, CHECK_FAIL, "CUDA error at %s: %s", at, why);
    else
        check_set(c, CHECK_FAIL, "CUDA error: %s", why);
    /* a launch that never ended (the emulator's instruction budget) is no fault; a
       misaligned access has one cause whatever the kernel */
    check_field(c->hint, sizeof c->hint, "%s", strstr(why, "timed out") ? CHECK_HINT_HANG
                                               : strstr(why, "misaligned address")
                                                   ? CHECK_HINT_MISALIGNED
                                                   : hint);
    return 0;
}

const char *check_file_base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "?";
}
