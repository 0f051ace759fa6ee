/* coalesce.c - global accesses per instruction and their drawing; see coalesce.h. */
#include "coalesce.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void coalesce_access_of(const trace_record *r, global_access *a)
{
    memset(a, 0, sizeof *a);
    a->active = r->active;
    a->width = r->width;
    for (int lane = 0; lane < SECTOR_LANES; lane++)
        a->addr[lane] = r->active >> lane & 1u ? r->addr[lane] : 0;
}

/* The site of pc (kept sorted), made where there is none; NULL out of memory. */
static coalesce_site *site_for(coalesce_sites *s, uint64_t pc, int side)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->v[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n && s->v[lo].pc == pc)
        return &s->v[lo];
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        coalesce_site *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        s->v = v;
        s->cap = cap;
    }
    memmove(&s->v[lo + 1], &s->v[lo], (size_t)(s->n - lo) * sizeof *s->v);
    s->n++;
    memset(&s->v[lo], 0, sizeof s->v[lo]);
    s->v[lo].pc = pc;
    s->v[lo].side = side;
    s->v[lo].worst_excess = LONG_MIN; /* the first execution is kept: a broadcast's excess is
                                         below 0, and its site still has a warp to draw */
    return &s->v[lo];
}

int coalesce_add(coalesce_sites *s, const trace_record *r)
{
    if (!(r->flags & TRACE_GLOBAL) || (r->flags & TRACE_ASYNC) || !r->active)
        return 0; /* cp.async: not the loads counted here */
    int rw = r->flags & (TRACE_READ | TRACE_WRITE);
    global_access a;
    coalesce_access_of(r, &a);
    coalesce_site *site = site_for(s, r->pc, rw == (TRACE_READ | TRACE_WRITE) ? COALESCE_ATOMIC
                                             : rw == TRACE_WRITE ? COALESCE_STORE : COALESCE_LOAD);
    if (!site)
        return -1;
    long sectors = sector_count(&a), ideal = sector_ideal(&a), excess = sectors - ideal;
    site->requests++;
    site->sectors += sectors;
    site->ideal += ideal;
    if (r->width > site->width)
        site->width = r->width;
    /* ties go to the lowest block and warp: the same drawing whatever order warps ran in */
    if (excess > site->worst_excess ||
        (excess == site->worst_excess &&
         (r->block < site->worst_block || (r->block == site->worst_block && r->warp < site->worst_warp)))) {
        site->worst_excess = excess;
        site->worst = a;
        site->worst_block = r->block;
        site->worst_warp = r->warp;
    }
    return 0;
}

void coalesce_free(coalesce_sites *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

const coalesce_site *coalesce_worst(const coalesce_sites *s, int side)
{
    const coalesce_site *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const coalesce_site *x = &s->v[i];
        if (x->side != side)
            continue;
        if (!best || x->sectors - x->ideal > best->sectors - best->ideal)
            best = x;
    }
    return best;
}

/* Append printf output at *used, never past size. */
static void put(char *buf, size_t size, size_t *used, const char *fmt, int value)
{
    if (*used + 1 >= size)
        return;
    int n = snprintf(buf + *used, size - *used, fmt, value);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

static void put_s(char *buf, size_t size, size_t *used, const char *s)
{
    if (*used + 1 >= size)
        return;
    int n = snprintf(buf + *used, size - *used, "%s", s);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

const char *sector_map_text(const global_access *a, const char *title, const char *indent,
                            char *buf, size_t size)
{
    int number[SECTOR_LANES];
    size_t used = 0;
    int total = sector_lane_numbers(a, number);
    if (size == 0)
        return buf;
    buf[0] = '\0';
    put_s(buf, size, &used, indent);
    put_s(buf, size, &used, title);
    put(buf, size, &used, ": %d sector", total);
    put_s(buf, size, &used, total == 1 ? "" : "s");
    put(buf, size, &used, ", ideal %d\n", sector_ideal(a));
    for (int row = 0; row < 2; row++) {
        put_s(buf, size, &used, indent);
        put_s(buf, size, &used, row ? "sector" : "lane  ");
        for (int lane = 0; lane < SECTOR_LANES; lane++) {
            if (row == 0)
                put(buf, size, &used, "%3d", lane);
            else if (!(a->active >> lane & 1u))
                put_s(buf, size, &used, "  -");
            else
                put(buf, size, &used, "%3d", number[lane]);
        }
        put_s(buf, size, &used, "\n");
    }
    return buf;
}
