/*
 * emu_printf.c - device printf (vprintf): each lane's format string and
 * argument buffer read from the kernel's memory and formatted as the CUDA
 * runtime formats them on the host, into the launch's output.
 *
 * The buffer holds the arguments as nvcc lays them out: each at the next
 * offset aligned to its size, ints and chars as 4 bytes, long and long long
 * as 8, every floating point value as a double (C's promotion), %s and %p
 * as 8-byte generic pointers. What a launch prints is delivered once it has
 * ended (emu_launch.print), as the GPU's output appears at the next
 * synchronisation, and only its newest EMU_PRINTF_FIFO bytes of records are
 * kept, as the GPU's circular buffer keeps them.
 */
#include "emu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_MAX 4096  /* bytes of a format string read, and of one %s */
#define LINE_MAX_OUT 8192

/* The bytes at generic address a for lane l of w, whichever space holds them. 0 or -1. */
static int read_generic(emu_warp *w, int l, uint64_t a, void *dst, uint32_t n)
{
    emu_block *b = w->b;
    if (a >= EMU_LOCAL_WINDOW && a - EMU_LOCAL_WINDOW < EMU_WINDOW_SIZE) {
        uint64_t off = a - EMU_LOCAL_WINDOW;
        if (off > b->local_bytes || b->local_bytes - off < n)
            return -1;
        memcpy(dst, b->local + ((size_t)w->index * 32 + (size_t)l) * b->local_bytes + off, n);
        return 0;
    }
    if (a >= EMU_SHARED_WINDOW && a - EMU_SHARED_WINDOW < EMU_WINDOW_SIZE) {
        uint64_t off = a - EMU_SHARED_WINDOW;
        if (off > b->shared_bytes || b->shared_bytes - off < n)
            return -1;
        memcpy(dst, b->shared + off, n);
        return 0;
    }
    emu_region *r = emu_region_find(b->x->dev, a, n);
    if (!r)
        return -1;
    memcpy(dst, r->host + (a - r->addr), n);
    return 0;
}

/* A NUL-terminated string at a, at most size - 1 bytes of it. */
static int read_string(emu_warp *w, int l, uint64_t a, char *out, size_t size)
{
    size_t n = 0;
    while (n + 1 < size) {
        char ch;
        if (read_generic(w, l, a + n, &ch, 1))
            return n ? 0 : -1;
        if (!ch)
            break;
        out[n++] = ch;
    }
    out[n] = '\0';
    return 0;
}

typedef struct args {
    emu_warp *w;
    int lane;
    uint64_t base;
    uint32_t off;
    int count, bad;
} args;

/* The next argument of size bytes (aligned to them), zero-extended. */
static uint64_t next_arg(args *a, uint32_t size)
{
    uint64_t v = 0;
    a->off = (a->off + size - 1) / size * size;
    if (read_generic(a->w, a->lane, a->base + a->off, &v, size))
        a->bad = 1;
    a->off += size;
    a->count++;
    return v;
}

/* One conversion: spec is "%" flags width precision, conv the letter, len 0/'h'/'l'/'L'. */
static int convert(args *a, const char *spec, char conv, char len, char *out, size_t size)
{
    char f[64];
    switch (conv) {
    case 'd': case 'i': {
        int64_t v = len == 'l' ? (int64_t)next_arg(a, 8) : (int64_t)(int32_t)next_arg(a, 4);
        v = len == 'h' ? (int16_t)v : len == 'H' ? (int8_t)v : v;
        snprintf(f, sizeof f, "%slld", spec);
        return snprintf(out, size, f, (long long)v);
    }
    case 'u': case 'x': case 'X': case 'o': {
        uint64_t v = len == 'l' ? next_arg(a, 8) : (uint32_t)next_arg(a, 4);
        v = len == 'h' ? (uint16_t)v : len == 'H' ? (uint8_t)v : v;
        snprintf(f, sizeof f, "%sll%c", spec, conv);
        return snprintf(out, size, f, (unsigned long long)v);
    }
    case 'c': {
        snprintf(f, sizeof f, "%sc", spec);
        return snprintf(out, size, f, (int)(unsigned char)next_arg(a, 4));
    }
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        uint64_t bits = next_arg(a, 8);
        double d;
        memcpy(&d, &bits, 8);
        snprintf(f, sizeof f, "%s%c", spec, conv);
        return snprintf(out, size, f, d);
    }
    case 'p': {
        snprintf(f, sizeof f, "%sp", spec);
        return snprintf(out, size, f, (void *)(uintptr_t)next_arg(a, 8));
    }
    case 's': {
        uint64_t p = next_arg(a, 8);
        char str[FORMAT_MAX];
        if (!p)
            snprintf(str, sizeof str, "(null)");
        else if (read_string(a->w, a->lane, p, str, sizeof str))
            snprintf(str, sizeof str, "<unreadable string at 0x%llx>", (unsigned long long)p);
        snprintf(f, sizeof f, "%ss", spec);
        return snprintf(out, size, f, str);
    }
    default:
        return -1;
    }
}

/* Format lane l's printf into out; the number of arguments it used, or -1. */
static int format_lane(emu_warp *w, int l, uint64_t fmt_addr, uint64_t buf, char *out,
                       size_t size, size_t *len)
{
    char fmt[FORMAT_MAX];
    *len = 0;
    if (!fmt_addr || read_string(w, l, fmt_addr, fmt, sizeof fmt))
        return -1;
    args a = {w, l, buf, 0, 0, 0};
    size_t n = 0;
    for (const char *s = fmt; *s && n + 1 < size;) {
        if (*s != '%') {
            out[n++] = *s++;
            continue;
        }
        if (s[1] == '%') {
            out[n++] = '%';
            s += 2;
            continue;
        }
        char spec[32];
        size_t k = 0;
        spec[k++] = *s++;
        while (*s && strchr("-+ #0", *s) && k < 8)
            spec[k++] = *s++;
        while (*s >= '0' && *s <= '9' && k < 16)
            spec[k++] = *s++;
        if (*s == '.') {
            spec[k++] = *s++;
            while (*s >= '0' && *s <= '9' && k < 24)
                spec[k++] = *s++;
        }
        spec[k] = '\0';
        char len = 0; /* 'H': hh, 'h': h, 'l': l, ll and the 8-byte ones */
        while (*s == 'h' || *s == 'l' || *s == 'L' || *s == 'z' || *s == 'j' || *s == 't') {
            len = *s == 'h' ? (len == 'h' ? 'H' : 'h') : 'l';
            s++;
        }
        int got = *s ? convert(&a, spec, *s, len, out + n, size - n) : -1;
        if (got < 0) { /* not a conversion printf knows: printed as written */
            size_t t = strlen(spec);
            if (t > size - n - 1)
                t = size - n - 1;
            memcpy(out + n, spec, t);
            n += t;
            continue;
        }
        n += (size_t)got < size - n ? (size_t)got : size - n - 1;
        s++;
    }
    out[n] = '\0';
    *len = n;
    return a.bad ? -2 : a.count;
}

/* Keep one formatted call (cost: the bytes its record takes in the GPU's buffer). */
static int keep(emu_ctx *x, const char *text, size_t len, uint32_t cost)
{
    emu_printed *p = &x->printed;
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 64;
        emu_print_rec *nr = realloc(p->recs, (size_t)cap * sizeof *nr);
        if (!nr)
            return -1;
        p->recs = nr;
        p->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, text, len + 1);
    p->recs[p->n++] = (emu_print_rec){copy, len, cost};
    p->bytes += cost;
    while (p->bytes > EMU_PRINTF_FIFO && p->first < p->n) { /* the oldest are overwritten */
        p->bytes -= p->recs[p->first].cost;
        free(p->recs[p->first].text);
        p->recs[p->first++].text = NULL;
    }
    return 0;
}

static uint8_t *frame_of(emu_warp *w, int l, uint32_t off, uint32_t n)
{
    emu_block *b = w->b;
    if ((uint64_t)off + n > b->local_bytes)
        return NULL;
    return b->local + ((size_t)w->index * 32 + (size_t)l) * b->local_bytes + off;
}

int emu_printf(emu_warp *w, const ptx_instr *in, const emu_call *c, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t fmt = 0, buf = 0;
        uint8_t *pf = frame_of(w, l, c->args[0].from, 8), *pb = frame_of(w, l, c->args[1].from, 8);
        if (!pf || !pb)
            return emu_fail(w, in, EMU_FAULT, "printf's parameters lie outside its frame");
        memcpy(&fmt, pf, 8);
        memcpy(&buf, pb, 8);
        char text[LINE_MAX_OUT];
        size_t len;
        int32_t said = format_lane(w, l, fmt, buf, text, sizeof text, &len);
        if (said >= 0 && keep(w->b->x, text, len, EMU_PRINTF_RECORD(said)))
            return emu_fail(w, in, EMU_UNSUPPORTED, "out of memory for printf's output");
        for (uint32_t i = 0; i < c->n_rets; i++) {
            uint8_t *r = frame_of(w, l, c->rets[i].to, 4);
            if (r)
                memcpy(r, &said, 4);
        }
    }
    return 0;
}

void emu_printed_flush(emu_ctx *x)
{
    emu_printed *p = &x->printed;
    for (uint32_t i = p->first; i < p->n; i++) {
        if (x->l->print)
            x->l->print(x->l->print_ctx, p->recs[i].text, p->recs[i].len);
        free(p->recs[i].text);
    }
    free(p->recs);
    memset(p, 0, sizeof *p);
}
