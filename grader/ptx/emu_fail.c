/*
 * emu_fail.c - how a launch stops: its status, one line for the student
 * naming the instruction, and the instruction's source line (and where it
 * was inlined from). Every part of the machine that stops a launch calls
 * emu_fail; nothing here calls back into them.
 */
#include "emu_internal.h"

#include <stdio.h>
#include <string.h>

const char *emu_status_name(emu_status s)
{
    static const char *const names[] = {"ok",      "fault",    "unsupported", "timeout",
                                        "deadlock", "trap",     "bad launch"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void emu_where(const emu_program *p, const ptx_instr *in, const char **file, int *line)
{
    *file = NULL;
    *line = 0;
    if (!in)
        return;
    if (in->file != PTX_NONE && in->file < p->ptx->n_files)
        *file = p->ptx->files[in->file].path;
    *line = (int)in->line;
}

void emu_student_where(const emu_program *p, const ptx_instr *in, const char **file, int *line)
{
    emu_where(p, in, file, line);
    const char *dot = *file ? strrchr(*file, '.') : NULL;
    int header = dot && (strcmp(dot, ".h") == 0 || strcmp(dot, ".hpp") == 0);
    if (header && in->call_file != PTX_NONE && in->call_file < p->ptx->n_files) {
        *file = p->ptx->files[in->call_file].path;
        *line = (int)in->call_line;
    }
}

emu_status emu_fail_result(emu_result *res, const emu_program *p, const ptx_instr *in,
                           emu_status s, const char *fmt, va_list ap)
{
    res->status = s;
    vsnprintf(res->why, sizeof res->why, fmt, ap);
    if (p)
        emu_where(p, in, &res->file, &res->line);
    res->call_file = NULL;
    res->call_line = 0;
    if (p && in && in->call_file != PTX_NONE && in->call_file < p->ptx->n_files) {
        res->call_file = p->ptx->files[in->call_file].path;
        res->call_line = (int)in->call_line;
    }
    return s;
}

int emu_fail(emu_warp *w, const ptx_instr *in, emu_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emu_fail_result(w->b->x->res, w->b->x->prog, in, s, fmt, ap);
    va_end(ap);
    return -1;
}
