/* fault.c - one wording for an access outside its allocation; see fault.h. */
#include "fault.h"

#include "../base/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Append to buf (size bytes, at its end). */
static void add(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t size, const char *fmt, ...)
{
    size_t at = strlen(buf);
    if (at + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + at, size - at, fmt, ap);
    va_end(ap);
}

const char *fault_text(const fault_place *f, char *buf, size_t size)
{
    const char *op = f->op ? f->op : "access";
    buf[0] = '\0';
    if (f->file)
        add(buf, size, "%s:%d", check_file_base(f->file), f->line);
    for (int i = 0; i < f->n_calls && i < FAULT_MAX_CALLS; i++)
        if (f->call_file[i])
            add(buf, size, "%s%s:%d%s", i == 0 ? " (called from " : ", from ",
                check_file_base(f->call_file[i]), f->call_line[i], i + 1 == f->n_calls ? ")" : "");
    add(buf, size, "%s%s %s", buf[0] ? ": " : "", op[0] == 'a' ? "an" : "a", op);
    if (f->lane >= 0) {
        add(buf, size, " by lane %d of warp %d", f->lane, f->warp);
        if (f->have_block && (f->block[1] || f->block[2]))
            add(buf, size, " of block (%u, %u, %u)", f->block[0], f->block[1], f->block[2]);
        else if (f->have_block)
            add(buf, size, " of block %u", f->block[0]);
    }
    if (!f->array && f->space) {
        add(buf, size, " touches %s address 0x%llx, which no allocation holds", f->space,
            f->address);
        if (f->note)
            add(buf, size, "; %s", f->note);
        return buf;
    }
    const char *what = f->array ? f->array : "its allocation";
    if (f->reached <= 0)
        add(buf, size, " starts %lld byte%s before %s", -f->reached,
            f->reached == -1 ? "" : "s", what);
    else if (f->width > 1 && f->width <= f->reached)
        add(buf, size, " reaches bytes %lld to %lld of %s", f->reached - f->width,
            f->reached - 1, what);
    else /* the highest byte, counted from 0 as the student indexes */
        add(buf, size, " reaches byte %lld of %s", f->reached - 1, what);
    if (f->kind && f->bytes >= 0)
        add(buf, size, " (%s of %lld byte%s)", f->kind, f->bytes, f->bytes == 1 ? "" : "s");
    else if (f->kind)
        add(buf, size, " (%s)", f->kind);
    if (f->reached > 0 && f->bytes >= 0 && f->reached > f->bytes)
        add(buf, size, ", %lld byte%s past its end", f->reached - f->bytes,
            f->reached - f->bytes == 1 ? "" : "s");
    if (f->note)
        add(buf, size, "; %s", f->note);
    return buf;
}

int fault_worded(const char *message)
{
    return strstr(message, " reaches byte ") || strstr(message, " bytes before ") ||
           strstr(message, " byte before ");
}
