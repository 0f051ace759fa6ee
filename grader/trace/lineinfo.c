// lineinfo.c - parsing `nvdisasm --print-line-info` output; see lineinfo.h.
//
// The format, as NVIDIA's "CUDA Binary Utilities" documents nvdisasm
// (https://docs.nvidia.com/cuda/cuda-binary-utilities/index.html, section
// "nvdisasm", option --print-line-info / -g: "Annotate disassembly with source
// line information obtained from .debug_line section, if present.") and as
// published disassemblies show it:
//
//   .text._Z13setRowReadColPi:
//           //## File "/home/u/smemlab/labs/lab1-square/lab1.cu", line 41
//           /*0000*/                   MOV R1, c[0x0][0x28] ;
//           //## File "/usr/local/cuda/include/x.h", line 10 inlined at "/home/u/lab1.cu", line 41
//           //## File "/home/u/lab1.cu", line 41
//           /*0010*/                   STS [R2], R3 ;
//
// A `.text.NAME:` label opens a function (offsets restart at 0). A block of
// consecutive `//## File` comments applies to the instructions after it, up
// to the next block; its first comment is the innermost frame, and an
// `inlined at` clause names the call site. An instruction line starts with
// its byte offset in a comment, /*HEX*/; encoding comments (/* 0x... */)
// have a space after the opening and are not instructions.
#define _POSIX_C_SOURCE 200809L
#include "lineinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int intern(char ***list, int *n, const char *s, size_t len)
{
    for (int i = 0; i < *n; i++)
        if (strlen((*list)[i]) == len && strncmp((*list)[i], s, len) == 0)
            return i;
    char **nl = realloc(*list, (size_t)(*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    if (!(nl[*n] = strndup(s, len)))
        return -1;
    return (*n)++;
}

/* `"PATH", line N` at *p; advances past it. Returns 0 or -1. */
static int file_line(line_table *t, const char **p, const char **file, int *line)
{
    const char *s = *p, *q;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '"' || !(q = strchr(s + 1, '"')))
        return -1;
    int f = intern(&t->files, &t->n_files, s + 1, (size_t)(q - s - 1));
    if (f < 0)
        return -1;
    char *end;
    q++;
    if (strncmp(q, ", line ", 7) != 0)
        return -1;
    long n = strtol(q + 7, &end, 10);
    if (end == q + 7 || n < 0 || n > 10000000)
        return -1;
    *file = t->files[f];
    *line = (int)n;
    *p = end;
    return 0;
}

int lineinfo_parse(const char *text, line_table *t, char *why, size_t why_size)
{
    size_t cap = 0, line_no = 0;
    int function = -1, in_block = 0;
    line_loc cur = {0};

    memset(t, 0, sizeof *t);
    char buf[4096];
    for (const char *p = text; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= sizeof buf)
            len = sizeof buf - 1; /* no line of interest is that long */
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = eol ? eol + 1 : NULL;
        line_no++;
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;

        if (strncmp(s, ".text.", 6) == 0) {
            const char *colon = strchr(s, ':');
            if (colon) {
                function = intern(&t->functions, &t->n_functions, s + 6, (size_t)(colon - s - 6));
                if (function < 0)
                    goto oom;
                memset(&cur, 0, sizeof cur);
                in_block = 0;
            }
            continue;
        }
        if (strncmp(s, "//## File ", 10) == 0) {
            const char *q = s + 10, *file;
            int line;
            if (file_line(t, &q, &file, &line) != 0) {
                snprintf(why, why_size, "nvdisasm output line %zu: expected //## File \"PATH\", "
                         "line N", line_no);
                goto bad;
            }
            if (!in_block) { /* a new block: its first comment is the innermost frame */
                memset(&cur, 0, sizeof cur);
                cur.file = file;
                cur.line = line;
                in_block = 1;
            }
            if (strncmp(q, " inlined at ", 12) == 0) {
                q += 12;
                if (file_line(t, &q, &file, &line) != 0) {
                    snprintf(why, why_size, "nvdisasm output line %zu: expected inlined at "
                             "\"PATH\", line N", line_no);
                    goto bad;
                }
                cur.call_file = file; /* the last frame's call site wins: the outermost */
                cur.call_line = line;
            }
            continue;
        }
        if (s[0] == '/' && s[1] == '*' && isxdigit((unsigned char)s[2])) {
            char *end;
            unsigned long long off = strtoull(s + 2, &end, 16);
            if (end[0] != '*' || end[1] != '/')
                continue;
            in_block = 0;
            if (function < 0) {
                snprintf(why, why_size, "nvdisasm output line %zu: an instruction before any "
                         ".text.FUNCTION: label (run nvdisasm on a cubin, not a fatbinary)",
                         line_no);
                goto bad;
            }
            if (!cur.file)
                continue; /* no line information yet */
            if (t->n_entries == cap) {
                size_t ncap = cap ? cap * 2 : 256;
                line_entry *ne = realloc(t->entries, ncap * sizeof *ne);
                if (!ne)
                    goto oom;
                t->entries = ne;
                cap = ncap;
            }
            t->entries[t->n_entries++] = (line_entry){function, off, cur};
        }
    }
    if (t->n_functions == 0) {
        snprintf(why, why_size, "no .text.FUNCTION: label in the nvdisasm output: is it the "
                 "disassembly of a cubin?");
        goto bad;
    }
    if (t->n_entries == 0) {
        snprintf(why, why_size, "no line information in the nvdisasm output: build the lab "
                 "with -lineinfo and run nvdisasm with --print-line-info");
        goto bad;
    }
    return 0;
oom:
    snprintf(why, why_size, "out of memory reading nvdisasm output");
bad:
    lineinfo_free(t);
    return -1;
}

void lineinfo_free(line_table *t)
{
    for (int i = 0; i < t->n_functions; i++)
        free(t->functions[i]);
    for (int i = 0; i < t->n_files; i++)
        free(t->files[i]);
    free(t->functions);
    free(t->files);
    free(t->entries);
    memset(t, 0, sizeof *t);
}

int lineinfo_lookup(const line_table *t, const char *function, uint64_t offset, line_loc *out)
{
    int f = -1;
    const line_entry *best = NULL;
    for (int i = 0; i < t->n_functions && f < 0; i++)
        if (strcmp(t->functions[i], function) == 0)
            f = i;
    if (f < 0)
        return -1;
    for (size_t i = 0; i < t->n_entries; i++) {
        const line_entry *e = &t->entries[i];
        if (e->function == f && e->offset <= offset && (!best || e->offset > best->offset))
            best = e;
    }
    if (!best)
        return -1;
    *out = best->loc;
    return 0;
}

static void name(const line_table *t, const char *function, uint64_t pc, const char **file,
                 int *line)
{
    line_loc loc;
    *file = NULL;
    *line = 0;
    if (lineinfo_lookup(t, function, pc, &loc) != 0)
        return;
    if (strstr(loc.file, "/include/") && loc.call_file) {
        *file = loc.call_file;
        *line = loc.call_line;
    } else {
        *file = loc.file;
        *line = loc.line;
    }
}

void trace_attribute(trace_summary *s, const line_table *t, const char *function)
{
    for (int i = 0; i < s->n_sites; i++)
        name(t, function, s->sites[i].pc, &s->sites[i].file, &s->sites[i].line);
    for (int i = 0; i < s->n_races; i++) {
        name(t, function, s->races[i].pc_a, &s->races[i].file_a, &s->races[i].line_a);
        name(t, function, s->races[i].pc_b, &s->races[i].file_b, &s->races[i].line_b);
    }
}
