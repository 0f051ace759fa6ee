/* bounds.c - a global access out of bounds as correct's verdict; see bounds.h. */
#include "bounds.h"
#include "fault.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *op_name(int op)
{
    return op == TRACE_OP_STORE ? "store" : op == TRACE_OP_ATOMIC ? "atomic" : "load";
}

/* In fault.h's one wording for an access outside its allocation, after "out of bounds: "
   (the line, where it was inlined from, who, the array and how far past its end). */
const char *compare_oob_text(const trace_oob *o, char *buf, size_t size)
{
    char where[64] = "";
    fault_place f;
    memset(&f, 0, sizeof f);
    f.op = op_name(o->op);
    if (o->file && o->line > 0)
        f.file = o->file, f.line = o->line;
    else
        snprintf(where, sizeof where, "pc 0x%" PRIx64 ": ", o->pc);
    if (o->call_file && o->call_line > 0)
        f.call_file[0] = o->call_file, f.call_line[0] = o->call_line, f.n_calls = 1;
    f.array = o->array[0] ? o->array : "the array";
    f.kind = "an argument";
    f.bytes = (long long)o->bytes;
    f.reached = o->addr >= o->base ? (long long)(o->addr + o->width - o->base)
                                   : -(long long)(o->base - o->addr);
    f.width = (int)o->width;
    f.lane = (int)o->lane, f.warp = (int)o->warp;
    f.block[0] = o->block, f.have_block = 1;
    char text[240];
    snprintf(buf, size, "out of bounds: %s%s", where, fault_text(&f, text, sizeof text));
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
    const char *op = op_name(o->op);
    char elems[48] = ""; /* "4 bytes" alone left the walkthrough working out a 1 x 1 matrix */
    if (o->width == 4 && o->bytes % 4 == 0) /* read as 4-byte elements: a float's, an int's */
        snprintf(elems, sizeof elems, " (%" PRIu64 " element%s of 4 bytes)", o->bytes / 4,
                 o->bytes / 4 == 1 ? "" : "s");
    check_field(correct->hint, sizeof correct->hint, "The %s reaches %s %s, which holds %" PRIu64
                " bytes%s at that size: guard every access against the array's own size (at a "
                "size that is no multiple of a block's, a block's threads, or a thread's "
                "elements, reach past it), and index it with its own pitch. A GPU does not "
                "catch it: the bytes %s %s belong to another array or to none, so the output "
                "comes out right or wrong by chance; the grader lays a guard zone around every "
                "array and names the access on every device.", op,
                past ? "past the end of" : "before the start of", name, o->bytes, elems,
                past ? "past" : "before", name);
    check_line *l = &correct->lines[0];
    memset(l, 0, sizeof *l);
    if (o->file)
        check_field(l->file, sizeof l->file, "%s", check_file_base(o->file));
    else
        check_field(l->file, sizeof l->file, "pc 0x%" PRIx64, o->pc);
    l->line = o->line;
    check_field(l->op, sizeof l->op, "bounds");
    correct->n_lines = 1;
    return 1;
}
