/* sync_order.c - vector clocks of warps and shared words; see sync_order.h. */
#include "sync_order.h"

#include <stdlib.h>
#include <string.h>

#define WARPS 32 /* a block's most: 1024 threads */

typedef uint32_t vector[WARPS];

/* A warp's clock and knowledge, or a word's knowledge (clock unused). */
typedef struct party {
    uint32_t block, id; /* id: the warp, or the word */
    uint32_t clock, known;
} party;

typedef struct parties {
    party *v;
    size_t n, cap;
} parties;

struct sync_order {
    parties warps, words;
    vector *known; /* known[0]: all zero, a party that has acquired nothing */
    size_t n_known, cap_known;
};

sync_order *sync_order_new(void)
{
    sync_order *o = calloc(1, sizeof *o);
    if (o && !(o->known = calloc(1, sizeof *o->known))) {
        free(o);
        return NULL;
    }
    if (o) {
        o->n_known = 1;
        o->cap_known = 1;
    }
    return o;
}

void sync_order_free(sync_order *o)
{
    if (!o)
        return;
    free(o->warps.v);
    free(o->words.v);
    free(o->known);
    free(o);
}

void sync_order_forget(sync_order *o)
{
    o->warps.n = o->words.n = 0;
    o->n_known = 1;
}

int sync_order_seen(const sync_order *o)
{
    return o->words.n > 0;
}

/* The party (block, id) of ps, made with clock 1 and no knowledge if new; NULL: no memory.
   Few (a block's warps, the words it orders through): a list. */
static party *find(parties *ps, uint32_t block, uint32_t id)
{
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i].block == block && ps->v[i].id == id)
            return &ps->v[i];
    if (ps->n == ps->cap) {
        size_t ncap = ps->cap ? ps->cap * 2 : 64;
        party *nv = realloc(ps->v, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        ps->v = nv;
        ps->cap = ncap;
    }
    party *p = &ps->v[ps->n++];
    *p = (party){block, id, 1, 0};
    return p;
}

/* A new knowledge vector, v; its index, or 0 with no memory (callers check). */
static uint32_t keep(sync_order *o, const vector v)
{
    if (o->n_known == o->cap_known) {
        size_t ncap = o->cap_known * 2;
        vector *nk = realloc(o->known, ncap * sizeof *nk);
        if (!nk)
            return 0;
        o->known = nk;
        o->cap_known = ncap;
    }
    memcpy(o->known[o->n_known], v, sizeof(vector));
    return (uint32_t)o->n_known++;
}

/* into = into joined with from; whether it grew. */
static int join(vector into, const vector from)
{
    int grew = 0;
    for (int w = 0; w < WARPS; w++)
        if (from[w] > into[w]) {
            into[w] = from[w];
            grew = 1;
        }
    return grew;
}

int sync_order_acquire(sync_order *o, uint32_t block, uint32_t warp, uint32_t word)
{
    party *p = warp < WARPS ? find(&o->warps, block, warp) : NULL;
    party *x = find(&o->words, block, word);
    if (warp >= WARPS)
        return x ? 0 : -1;
    if (!p || !x)
        return -1;
    vector v;
    memcpy(v, o->known[p->known], sizeof v);
    if (!join(v, o->known[x->known]))
        return 0;
    uint32_t k = keep(o, v);
    if (!k)
        return -1;
    p->known = k;
    return 0;
}

int sync_order_release(sync_order *o, uint32_t block, uint32_t warp, uint32_t word)
{
    party *x = find(&o->words, block, word);
    party *p = warp < WARPS && x ? find(&o->warps, block, warp) : NULL;
    if (!x || (warp < WARPS && !p))
        return -1;
    if (!p)
        return 0;
    vector v;
    memcpy(v, o->known[x->known], sizeof v);
    join(v, o->known[p->known]);
    if (v[warp] < p->clock)
        v[warp] = p->clock; /* what the warp did up to here */
    uint32_t k = keep(o, v);
    if (!k)
        return -1;
    x->known = k;
    p->clock++; /* what it does next is not published yet */
    return 0;
}

int sync_order_stamp(sync_order *o, uint32_t block, uint32_t warp, sync_stamp *out)
{
    *out = (sync_stamp){1, 0};
    if (!sync_order_seen(o) || warp >= WARPS)
        return 0;
    party *p = find(&o->warps, block, warp);
    if (!p)
        return -1;
    *out = (sync_stamp){p->clock, p->known};
    return 0;
}

int sync_order_before(const sync_order *o, uint32_t a, sync_stamp sa, sync_stamp sb)
{
    return a < WARPS && sb.known < o->n_known && o->known[sb.known][a] >= sa.clock;
}
