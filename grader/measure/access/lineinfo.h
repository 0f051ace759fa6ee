/*
 * lineinfo.h - which source line each instruction of a kernel comes from.
 *
 * The labs are built with -lineinfo, so their cubins carry a .debug_line
 * section. The capture (measure_trace.c) reads it straight from the module's
 * cubin (lineinfo_from_cubin); where that fails it falls back to
 * `nvdisasm --print-line-info` (about 0.5 s a module) and parses its
 * comments. Both readers are plain C, unit-tested on recorded samples
 * (tests/traces/lab1.cubin, lab1.nvdisasm).
 */
#ifndef SMEMLAB_LINEINFO_H
#define SMEMLAB_LINEINFO_H

#include "trace.h"

#include <stddef.h>
#include <stdint.h>

typedef struct line_loc {
    const char *file; /* as the compiler recorded it (often an absolute path) */
    int line;
    const char *call_file; /* where the innermost frame was inlined, or NULL */
    int call_line;
} line_loc;

typedef struct line_entry {
    int function;    /* index into functions */
    uint64_t offset; /* byte offset of the instruction in its function */
    line_loc loc;
} line_entry;

typedef struct line_table {
    char **functions; /* mangled names, as in .text.NAME */
    int n_functions;
    char **files;     /* interned file names */
    int n_files;
    line_entry *entries;
    size_t n_entries;
} line_table;

/*
 * Parse nvdisasm -g output. Returns 0, or -1 with why (no function header, a
 * malformed //## line, no instruction at all).
 */
int lineinfo_parse(const char *text, line_table *t, char *why, size_t why_size);

/*
 * The same table read straight from a cubin (an ELF with the .debug_line a
 * -lineinfo build carries, DWARF 2 to 4; each sequence is tied to its
 * function by its relocation in .rela.debug_line). No inlining frames.
 * Returns 0, or -1 with why (not a cubin, no line table, malformed).
 */
int lineinfo_from_cubin(const void *cubin, size_t size, line_table *t, char *why,
                        size_t why_size);

void lineinfo_free(line_table *t);

/*
 * Source location of the instruction at byte `offset` of `function` (its
 * mangled name): the entry at that offset, or the closest one before it.
 * Returns 0, or -1 when the function has no line information.
 */
int lineinfo_lookup(const line_table *t, const char *function, uint64_t offset, line_loc *out);

/*
 * Name each site, race and repeated global load of s by file and line. A frame inside a header of
 * the toolkit (a path with /include/) is named by its call site instead.
 * The names point into t: keep t until s is no longer printed.
 */
void trace_attribute(trace_summary *s, const line_table *t, const char *function);

#endif /* SMEMLAB_LINEINFO_H */
