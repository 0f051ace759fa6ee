/*
 * report_source.c - where each kernel lives in the student's file, so that
 * the report can say "fill the TODO at lab1.cu:64" instead of naming a
 * kernel the student must then find. A light scan, not a parser: it tracks
 * comments, strings and brace depth, enough for the skeletons and anything
 * written in their shape; whatever it cannot find stays 0 and the report
 * names the kernel alone.
 */
#include "report.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether line declares name: `name(` with no identifier character before it. */
static int declares(const char *line, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(line, name); p; p = strstr(p + 1, name)) {
        const char *after = p + n;
        while (*after == ' ' || *after == '\t')
            after++;
        if ((p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) && *after == '(')
            return 1;
    }
    return 0;
}

/* The brace depth after line, from depth before; *in_comment carries a block
   comment over lines; *closed: a brace brought the depth back to 0. Braces in
   comments, strings and characters do not count. */
static int depth_after(const char *line, int depth, int *in_comment, int *closed)
{
    *closed = 0;
    for (const char *p = line; *p; p++) {
        if (*in_comment) {
            if (p[0] == '*' && p[1] == '/')
                *in_comment = 0, p++;
        } else if (p[0] == '/' && p[1] == '*') {
            *in_comment = 1, p++;
        } else if (p[0] == '/' && p[1] == '/') {
            break;
        } else if (*p == '"' || *p == '\'') {
            char q = *p;
            while (p[1] && p[1] != q)
                p += p[1] == '\\' && p[2] ? 2 : 1;
            if (p[1])
                p++;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}' && depth > 0) {
            *closed |= --depth == 0;
        }
    }
    return depth;
}

/* What a definition line starts: kernel k (2k), its launcher (2k + 1), or -1. */
static int definition(const lab_def *lab, const char *line)
{
    int launcher = strstr(line, "SMEMLAB_LAUNCHER") != NULL;
    if (!launcher && !strstr(line, "__global__"))
        return -1;
    for (int k = 0; k < lab->n_kernels; k++)
        if (declares(line, launcher ? lab->kernels[k].launcher : lab->kernels[k].name))
            return 2 * k + launcher;
    return -1;
}

/* Whether line calls a CUDA runtime function (cudaXxx( as a word) before any // comment. */
static int calls_runtime(const char *line)
{
    const char *comment = strstr(line, "//");
    for (const char *c = strstr(line, "cuda"); c && (!comment || c < comment);
         c = strstr(c + 4, "cuda")) {
        const char *e = c + 4;
        if (c > line && (isalnum((unsigned char)c[-1]) || c[-1] == '_'))
            continue;
        if (!isupper((unsigned char)*e))
            continue;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        while (*e == ' ' || *e == '\t')
            e++;
        if (*e == '(')
            return 1;
    }
    return 0;
}

/* Record a TODO for definition def: the first one in its body wins over one above it. */
static void note_todo(kernel_place *places, int def, int line, int inside)
{
    int *slot = def % 2 ? &places[def / 2].launcher_todo : &places[def / 2].todo;
    if (inside ? *slot <= 0 : *slot == 0)
        *slot = inside ? line : -line; /* above: negative until the definition is met */
}

void report_find_places(lab_result *r, const char *source)
{
    const lab_def *lab = r->lab;
    char line[1024];
    FILE *f = source ? fopen(source, "r") : NULL;
    if (!f)
        return;
    kernel_place *places = calloc((size_t)lab->n_kernels, sizeof *places);
    int depth = 0, in_comment = 0, current = -1, pending = 0, no = 0;
    while (places && fgets(line, sizeof line, f)) {
        no++;
        int def = depth == 0 ? definition(lab, line) : -1;
        if (def >= 0) {
            current = def;
            if (def % 2 == 0)
                places[def / 2].kernel = no;
            if (pending) /* the TODO just above this definition is its own */
                note_todo(places, def, pending, 0);
            pending = 0;
        }
        if (depth > 0 && current >= 0 && current % 2 && !in_comment) { /* a launcher's body */
            kernel_place *lp = &places[current / 2];
            if (!lp->launch && strstr(line, "<<<"))
                lp->launch = no;
            if (!lp->runtime_call && calls_runtime(line))
                lp->runtime_call = no;
        }
        if (strstr(line, "TODO")) {
            if (depth > 0 && current >= 0)
                note_todo(places, current, no, 1);
            else if (def < 0 && !pending)
                pending = no; /* a comment above whatever comes next */
        }
        int closed;
        depth = depth_after(line, depth, &in_comment, &closed);
        if (closed)
            pending = 0, current = -1; /* a body ended: what follows is no one's yet */
    }
    fclose(f);
    if (!places)
        return;
    for (int k = 0; k < lab->n_kernels; k++) { /* above-the-definition TODOs: back to positive */
        places[k].todo = abs(places[k].todo);
        places[k].launcher_todo = abs(places[k].launcher_todo);
    }
    free(r->places);
    r->places = places;
    snprintf(r->source, sizeof r->source, "%s", source);
}
