/*
 * diag.c - a compiler that failed: the student's error, or the machine's?
 *
 * A build that ran to its end and failed is the student's when the compiler
 * named an error in the code: "FILE(LINE): error: ..." (nvcc's front end),
 * "FILE:LINE:COL: error: ..." (the host compiler), ptxas's errors about the
 * kernels (too much shared memory, an undefined device function), or an
 * undefined reference at link time. Anything else (a library of the
 * toolchain that will not load, a file it cannot read, nvcc refusing its
 * options, a compiler stage that crashed) says nothing about the code: the
 * grading machine's, so that no student is told their code does not compile
 * because of the machine.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* line with every "DIR/" of the submission's folder removed (as given and real). */
static void strip_dirs(const jail_opts *o, const char *line, char *out, size_t size)
{
    char given[4096];
    snprintf(given, sizeof given, "%s", o->source);
    const char *dirs[2] = {dirname(given), o->source_dir};
    size_t n = 0;
    for (const char *p = line; *p && n + 1 < size;) {
        size_t skip = 0;
        for (int d = 0; d < 2 && !skip; d++) {
            size_t dl = strlen(dirs[d]);
            if (dl > 1 && !strncmp(p, dirs[d], dl) && p[dl] == '/')
                skip = dl + 1;
        }
        if (skip) {
            p += skip;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = 0;
}

/* "error: MSG" or "error #20-D: MSG" at e: MSG, or NULL. */
static const char *error_text(const char *e)
{
    if (strncmp(e, "error", 5))
        return NULL;
    e += 5;
    if (*e == ' ' && e[1] == '#')
        for (e += 2; *e && *e != ':'; e++)
            ;
    return *e == ':' && e[1] == ' ' ? e + 2 : NULL;
}

/* A compiler diagnostic naming a place: FILE(LINE): [catastrophic ]error: MSG or
 * FILE:LINE[:COL]: [fatal ]error: MSG. 1 with file, line and msg filled. */
static int located_error(const char *s, char *file, size_t fsize, int *line, const char **msg)
{
    const char *paren = strchr(s, '(');
    if (paren && sscanf(paren, "(%d)", line) == 1) {
        const char *after = strstr(paren, "): ");
        if (after) {
            after += 3;
            if (!strncmp(after, "catastrophic ", 13))
                after += 13;
            if ((*msg = error_text(after))) {
                snprintf(file, fsize, "%.*s", (int)(paren - s), s);
                return 1;
            }
        }
    }
    for (const char *c = strchr(s, ':'); c; c = strchr(c + 1, ':')) {
        if (sscanf(c, ":%d", line) != 1)
            continue;
        const char *p = c + 1;
        while (isdigit((unsigned char)*p) || *p == ':')
            p++;
        while (*p == ' ')
            p++;
        if (!strncmp(p, "fatal ", 6))
            p += 6;
        if ((*msg = error_text(p))) {
            snprintf(file, fsize, "%.*s", (int)(c - s), s);
            return 1;
        }
        return 0;
    }
    return 0;
}

/* "ptxas error   : Entry function ..." -> "ptxas error: Entry function ..." */
static void squeeze(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 1 < size; s++) {
        if (*s == ' ' && (s[1] == ' ' || s[1] == ':'))
            continue;
        out[n++] = *s;
    }
    out[n] = 0;
}

/* The student's own error in one line of messages, into reason; 1 when there is one. */
static int student_error(const jail_opts *o, const char *s, char *reason, size_t size)
{
    char file[1024], text[1200];
    int line;
    const char *msg;
    if (located_error(s, file, sizeof file, &line, &msg)) {
        if (!strcmp(file, o->source_name) || !strncmp(file, "common/", 7))
            snprintf(reason, size, "does not compile: %s:%d: %.600s", file, line, msg);
        else /* never the text of another file's line */
            snprintf(reason, size, "does not compile: an error in a file that %s includes (%s)",
                     o->source_name, file[0] == '/' ? "outside the submission" : file);
        return 1;
    }
    if (strstr(s, "undefined reference") || strstr(s, "Undefined reference") ||
        strstr(s, "Unresolved extern function")) {
        snprintf(reason, size, "does not link: a function it calls is not defined");
        return 1;
    }
    if (!strncmp(s, "ptxas error", 11)) { /* about the kernels: shared memory, registers */
        squeeze(s, text, sizeof text);
        snprintf(reason, size, "does not compile: %.600s", text);
        return 1;
    }
    return 0;
}

/* Why a toolchain that printed `first` failed, and what to do about it. */
static const char *machine_fix(const char *first)
{
    if (strstr(first, "error while loading shared libraries"))
        return "a library of the toolchain will not load: reinstall the CUDA Toolkit, or "
               "fix LD_LIBRARY_PATH";
    if (strstr(first, "Permission denied"))
        return "the compiler cannot read a file it needs: make the toolchain and the kit "
               "readable by the user who builds";
    if (strstr(first, "nvcc fatal"))
        return "nvcc refused its options: check NVCC_ARCH and that the CUDA Toolkit is 12.6 "
               "or newer";
    if (strstr(first, "died due to signal") || strstr(first, "Segmentation fault"))
        return "a stage of the compiler crashed: try the build by hand (make lab-lib)";
    return "check that this machine builds the kit's labs (make lab1)";
}

int diag_failure(const jail_opts *o, const char *messages, int status, char *reason,
                 size_t size)
{
    char first[400] = "";
    const char *p = messages ? messages : "";
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char raw[2048], line[2048];
        snprintf(raw, sizeof raw, "%.*s", (int)(len < sizeof raw ? len : sizeof raw - 1), p);
        strip_dirs(o, raw, line, sizeof line);
        if (student_error(o, line, reason, size))
            return 1;
        if (!first[0] && line[strspn(line, " \t\r")])
            snprintf(first, sizeof first, "%s", line + strspn(line, " \t"));
        p = end ? end + 1 : p + len;
    }
    snprintf(reason, size, "the compiler stopped (status %d) without naming an error in %s "
             "(%s%s): %s", status, o->source_name, first[0] ? "it said: " : "it said nothing",
             first, machine_fix(first));
    return 0;
}

/* FNV-1a: paragraphs are compared by hash and length (a collision would hide one
   repeated warning, never an error the build failed on: the verdict reads them all). */
static unsigned long long hash_of(const char *p, size_t n)
{
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h;
}

#define SEEN_MAX 4096 /* past that many different paragraphs, every one is shown */

/* nvcc closes its warnings with a flag to silence them, which a student cannot pass
   through make: they read what they can do in their own file instead. */
static const char NVCC_SUPPRESS_REMARK[] = "Remark: The warnings can be suppressed with";
static const char KIT_SUPPRESS_REMARK[] =
    "Remark: each warning names a line of your file to fix (the kit's build takes no flags of "
    "yours; to keep one on purpose, put #pragma nv_diag_suppress NUMBER above it, NUMBER from "
    "its \"warning #NUMBER-D\")\n";

static void print_paragraph(FILE *out, const char *p, size_t n)
{
    if (n >= sizeof NVCC_SUPPRESS_REMARK - 1 &&
        !memcmp(p, NVCC_SUPPRESS_REMARK, sizeof NVCC_SUPPRESS_REMARK - 1)) {
        fputs(KIT_SUPPRESS_REMARK, out);
        if (n > 1 && p[n - 2] == '\n') /* the paragraph's empty line */
            fputc('\n', out);
        return;
    }
    fwrite(p, 1, n, out);
}

void diag_print_once(FILE *out, const char *messages, size_t len)
{
    static struct { unsigned long long hash; size_t len; } seen[SEEN_MAX];
    size_t n_seen = 0, at = 0;
    while (at < len) {
        /* a paragraph: through the next empty line, or to the end */
        size_t n = len - at;
        for (size_t i = at; i + 1 < len; i++)
            if (messages[i] == '\n' && messages[i + 1] == '\n') {
                n = i + 2 - at;
                break;
            }
        size_t text = n; /* compared without its newlines: the last one may have but one */
        while (text && messages[at + text - 1] == '\n')
            text--;
        unsigned long long h = hash_of(messages + at, text);
        int again = 0;
        for (size_t k = 0; k < n_seen && !again; k++)
            again = seen[k].hash == h && seen[k].len == text;
        if (!again) {
            print_paragraph(out, messages + at, n);
            if (n_seen < SEEN_MAX) {
                seen[n_seen].hash = h;
                seen[n_seen++].len = text;
            }
        }
        at += n;
    }
}
