/* nc_written.c - words read through the read-only cache and written; see nc_written.h. */
#include "nc_written.h"

#include "../access/trace.h"

#include <stdlib.h>
#include <string.h>

/* One access as kept: enough to name it again. */
typedef struct kept {
    uint64_t pc, addr;
    uint32_t block, warp, lane, width;
    int op;
} kept;

enum { READ_NC = 1, WRITTEN = 2 };

/* An open-addressing set of (launch, 4-byte word), with what each did first. */
typedef struct slot {
    uint64_t key; /* word << 8 | launch % 256, + 1 (0: empty) */
    unsigned char did;
    kept nc, write;
} slot;

struct nc_written {
    slot *v;
    size_t cap, n;
    long clashes;
    int have_first;
    trace_oob first_load, first_write;
};

nc_written *nc_written_new(void)
{
    return calloc(1, sizeof(nc_written));
}

void nc_written_free(nc_written *w)
{
    if (w)
        free(w->v);
    free(w);
}

static size_t hash(uint64_t key, size_t cap)
{
    return (size_t)(key * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static int grow(nc_written *w)
{
    size_t cap = w->cap ? 2 * w->cap : 4096;
    slot *v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < w->cap; i++) {
        if (!w->v[i].key)
            continue;
        size_t h = hash(w->v[i].key, cap);
        while (v[h].key)
            h = (h + 1) & (cap - 1);
        v[h] = w->v[i];
    }
    free(w->v);
    w->v = v, w->cap = cap;
    return 0;
}

static slot *find(nc_written *w, uint64_t key)
{
    if (2 * (w->n + 1) > w->cap && grow(w) != 0)
        return NULL;
    size_t h = hash(key, w->cap);
    while (w->v[h].key && w->v[h].key != key)
        h = (h + 1) & (w->cap - 1);
    if (!w->v[h].key) {
        w->v[h].key = key;
        w->n++;
    }
    return &w->v[h];
}

static kept keep(const trace_oob *a)
{
    return (kept){a->pc, a->addr, a->block, a->warp, a->lane, a->width, a->op};
}

static trace_oob named(const kept *k)
{
    trace_oob t;
    memset(&t, 0, sizeof t);
    t.pc = k->pc, t.addr = k->addr, t.width = k->width, t.op = k->op;
    t.block = k->block, t.warp = k->warp, t.lane = k->lane;
    return t;
}

/* A word of the launch touched by a: 1 where it is now both, and was not before. */
static int add_word(nc_written *w, uint64_t word, uint32_t launch, const trace_oob *a)
{
    slot *s = find(w, (word << 8 | (launch & 0xffu)) + 1);
    if (!s)
        return -1;
    int nc = a->op == TRACE_OP_LOAD, was = s->did;
    if (!(s->did & (nc ? READ_NC : WRITTEN))) {
        s->did |= nc ? READ_NC : WRITTEN;
        *(nc ? &s->nc : &s->write) = keep(a);
    }
    if (s->did != (READ_NC | WRITTEN) || was == s->did)
        return 0;
    w->clashes++;
    if (!w->have_first) {
        w->first_load = named(&s->nc);
        w->first_write = named(&s->write);
        w->have_first = 1;
    }
    return 1;
}

int nc_written_add(nc_written *w, uint32_t launch, const trace_oob *a)
{
    int any = 0;
    uint32_t width = a->width ? a->width : 1;
    for (uint64_t word = a->addr / 4; word <= (a->addr + width - 1) / 4; word++) {
        int rc = add_word(w, word, launch, a);
        if (rc < 0)
            return -1;
        any |= rc;
    }
    return any;
}

long nc_written_count(const nc_written *w)
{
    return w ? w->clashes : 0;
}

const trace_oob *nc_written_load(const nc_written *w)
{
    return w && w->have_first ? &w->first_load : NULL;
}

const trace_oob *nc_written_write(const nc_written *w)
{
    return w && w->have_first ? &w->first_write : NULL;
}
