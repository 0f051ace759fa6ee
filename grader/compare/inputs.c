/* inputs.c - what a kernel must only read, as correct's verdict; see inputs.h. */
#include "inputs.h"

#include <stdio.h>
#include <string.h>

/* "lab10.cu:197", or "pc 0x1a0" where no line is known. */
static const char *where(const trace_oob *a, char *buf, size_t size)
{
    if (a->file && a->line > 0)
        snprintf(buf, size, "%s:%d", check_file_base(a->file), a->line);
    else
        snprintf(buf, size, "pc 0x%llx", (unsigned long long)a->pc);
    return buf;
}

static const char *op_word(int op)
{
    return op == TRACE_OP_ATOMIC ? "an atomic" : op == TRACE_OP_STORE ? "a store" : "a load";
}

/* The access's line, for the report: its op the kind of finding. */
static void add_line(check_result *c, const trace_oob *a, const char *op)
{
    if (c->n_lines >= CHECK_MAX_LINES)
        return;
    check_line *l = &c->lines[c->n_lines++];
    memset(l, 0, sizeof *l);
    if (a->file)
        check_field(l->file, sizeof l->file, "%s", check_file_base(a->file));
    else
        check_field(l->file, sizeof l->file, "pc 0x%llx", (unsigned long long)a->pc);
    l->line = a->line;
    check_field(l->op, sizeof l->op, "%s", op);
}

int compare_input_written(check_result *correct, const trace_summary *s)
{
    char at[64], nc_at[64], nc_too[200] = "";
    if (!s || s->input_write_count <= 0)
        return 0;
    const trace_oob *w = &s->input_write;
    const char *name = w->array[0] ? w->array : "an input";
    where(w, at, sizeof at);
    if (s->nc_written_count > 0 && w->base && s->nc_load.base == w->base)
        snprintf(nc_too, sizeof nc_too, " It reads %s through the read-only cache too (%s), "
                 "which the CUDA Programming Guide allows only data read-only for the kernel's "
                 "whole lifetime.", name, where(&s->nc_load, nc_at, sizeof nc_at));
    check_set(correct, CHECK_FAIL, "writes its input %s: %s at %s by lane %u of warp %u of "
              "block %u (%ld lane%s in all), where the kernel must only read it", name,
              op_word(w->op), at, w->lane, w->warp, w->block, s->input_write_count,
              s->input_write_count == 1 ? "" : "s");
    check_field(correct->measured, sizeof correct->measured, "%ld store or atomic lane%s into "
                "%s", s->input_write_count, s->input_write_count == 1 ? "" : "s", name);
    check_field(correct->expected, sizeof correct->expected, "no store or atomic into an input "
                "(the launcher's const arguments)");
    check_field(correct->hint, sizeof correct->hint, "%s is an input: the contract gives it "
                "to the kernel as const, the caller's data to read and leave as it was. Your "
                "kernel writes it (%s, %s through a pointer that casts the const away or "
                "aliases it): whatever the output, the caller's %s is no longer what it "
                "gave.%s Keep what the kernel makes in registers, shared memory or its output "
                "(docs/troubleshooting.md#inputs).", name, at, op_word(w->op), name, nc_too);
    correct->n_lines = 0;
    add_line(correct, w, "input");
    return 1;
}

int compare_nc_written(check_result *correct, const trace_summary *s)
{
    char load_at[64], write_at[64];
    if (!s || s->nc_written_count <= 0)
        return 0;
    const trace_oob *ld = &s->nc_load, *wr = &s->nc_write;
    const char *name = ld->array[0] ? ld->array : "global memory";
    where(ld, load_at, sizeof load_at);
    where(wr, write_at, sizeof write_at);
    check_set(correct, CHECK_FAIL, "reads %s through the read-only cache and writes it in the "
              "same launch: the load at %s (ld.global.nc, block %u) reads a word that %s at %s "
              "writes", name, load_at, ld->block, op_word(wr->op), write_at);
    check_field(correct->measured, sizeof correct->measured, "%ld word%s read through the "
                "read-only cache and written", s->nc_written_count,
                s->nc_written_count == 1 ? "" : "s");
    check_field(correct->expected, sizeof correct->expected, "the read-only cache only for "
                "data no thread writes while the kernel runs");
    check_field(correct->hint, sizeof correct->hint, "__ldg() and const __restrict__ pointers "
                "make the compiler load through the read-only data cache (ld.global.nc). The "
                "CUDA Programming Guide allows it only for data read-only for the kernel's "
                "whole lifetime: the cache is not kept coherent with the kernel's own writes, "
                "so on a GPU such a load may return a word as it was before the write (%s), "
                "whatever this run gave. Read what the kernel writes with plain loads: no "
                "__ldg, and no const __restrict__ on a pointer to memory the kernel writes "
                "through another (docs/troubleshooting.md#inputs).", write_at);
    correct->n_lines = 0;
    add_line(correct, ld, "nc load");
    add_line(correct, wr, "written");
    return 1;
}
