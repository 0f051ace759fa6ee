/* bounds.c - a global access out of bounds as correct's verdict; see bounds.h. */
#include "bounds.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* "lab7.cu:63", or "pc 0x1a0" where no line is known. */
static const char *where(const trace_oob *o, char *buf, size_t size)
{
    if (o->file && o->line > 0)
        snprintf(buf, size, "%s:%d", base_name(o->file), o->line);
    else
        snprintf(buf, size, "pc 0x%" PRIx64, o->pc);
    return buf;
}

static const char *verb(int op)
{
    return op == TRACE_OP_STORE ? "writes" : op == TRACE_OP_ATOMIC ? "updates" : "reads";
}

/* "in[1]" where the access is an element of the array's width, else "byte 6 of in". */
static const char *element(const trace_oob *o, const char *name, char *buf, size_t size)
{
    int64_t off = (int64_t)(o->addr - o->base);
    if (o->width > 0 && off % (int64_t)o->width == 0)
        snprintf(buf, size, "%s[%" PRId64 "]", name, off / (int64_t)o->width);
    else
        snprintf(buf, size, "byte %" PRId64 " of %s", off, name);
    return buf;
}

const char *compare_oob_text(const trace_oob *o, char *buf, size_t size)
{
    char at[96], what[64];
    const char *name = o->array[0] ? o->array : "an array";
    uint64_t end = o->base + o->bytes;
    element(o, o->array[0] ? o->array : "the array", what, sizeof what);
    where(o, at, sizeof at);
    if (o->addr >= o->base)
        snprintf(buf, size, "out of bounds: %s %s %s, %" PRIu64 " bytes past its end (%s holds "
                 "%" PRIu64 " bytes); thread %u of block %u", at, verb(o->op), what,
                 o->addr + o->width - end, name, o->bytes, o->warp * 32 + o->lane, o->block);
    else
        snprintf(buf, size, "out of bounds: %s %s %s, %" PRIu64 " bytes before its start (%s "
                 "holds %" PRIu64 " bytes); thread %u of block %u", at, verb(o->op), what,
                 o->base - o->addr, name, o->bytes, o->warp * 32 + o->lane, o->block);
    return buf;
}

int compare_oob(check_result *correct, const trace_summary *s)
{
    char text[256];
    if (!s || s->oob_count <= 0)
        return 0;
    const trace_oob *o = &s->oob;
    int past = o->addr >= o->base;
    const char *name = o->array[0] ? o->array : "the array";
    check_set(correct, CHECK_FAIL, "%s", compare_oob_text(o, text, sizeof text));
    check_field(correct->measured, sizeof correct->measured, "%ld access%s out of bounds "
                "(lanes)", s->oob_count, s->oob_count == 1 ? "" : "es");
    check_field(correct->expected, sizeof correct->expected, "every global access inside the "
                "array it indexes");
    check_field(correct->hint, sizeof correct->hint, "A thread %s %s %s: an index one element "
                "too far (a first step that adds in[i + stride] or a halo that reads in[i + r] "
                "without checking it is below n), or a block past the data. A GPU does not "
                "catch it: the bytes %s %s belong to another array or to none, so the output "
                "can come out right or wrong by chance (the grader lays a guard zone around "
                "every array and names the access, on every device). Guard the access with the "
                "bounds check, and give what is missing its neutral value (0 for a sum).",
                verb(o->op), past ? "past the end of" : "before the start of", name,
                past ? "past" : "before", name);
    check_line *l = &correct->lines[0];
    memset(l, 0, sizeof *l);
    if (o->file)
        check_field(l->file, sizeof l->file, "%s", base_name(o->file));
    else
        check_field(l->file, sizeof l->file, "pc 0x%" PRIx64, o->pc);
    l->line = o->line;
    check_field(l->op, sizeof l->op, "bounds");
    correct->n_lines = 1;
    return 1;
}
