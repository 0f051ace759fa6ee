/* lane_race.c - races between the lanes of one warp; see lane_race.h. */
#include "lane_race.h"

#include <stdlib.h>
#include <string.h>

/* What one warp last did to one shared word. */
typedef struct word_state {
    uint64_t key;          /* (block << 32 | warp) + 1; 0: empty slot */
    uint32_t word;
    uint32_t write_epoch;  /* the warp's sync count at the last store (+1; 0: none) */
    uint32_t read_epoch;   /* at the reads in `readers` (+1; 0: none) */
    uint32_t readers;      /* lanes that read the word in read_epoch */
    uint8_t writer;        /* lane of the last store */
    uint64_t write_pc, read_pc, write_index;
} word_state;

/* A warp's sync count (barriers and __syncwarp). */
typedef struct warp_epoch {
    uint64_t key; /* (block, warp) + 1 */
    uint32_t epoch;
} warp_epoch;

struct lane_races {
    word_state *w;
    size_t w_cap, w_n;
    warp_epoch *e;
    size_t e_cap, e_n;
    trace_race *races;
    int n_races, cap;
};

static size_t home(uint64_t key, size_t cap)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    key ^= key >> 31;
    return (size_t)(key % cap);
}

lane_races *lane_races_new(void)
{
    return calloc(1, sizeof(lane_races));
}

void lane_races_free(lane_races *l)
{
    if (!l)
        return;
    free(l->w);
    free(l->e);
    free(l->races);
    free(l);
}

static warp_epoch *epoch_of(lane_races *l, uint32_t block, uint32_t warp)
{
    uint64_t key = ((uint64_t)block << 32 | warp) + 1;
    if (l->e_n * 2 >= l->e_cap) {
        size_t ncap = l->e_cap ? l->e_cap * 2 : 64;
        warp_epoch *ne = calloc(ncap, sizeof *ne);
        if (!ne)
            return NULL;
        for (size_t i = 0; i < l->e_cap; i++)
            if (l->e[i].key) {
                size_t j = home(l->e[i].key, ncap);
                while (ne[j].key)
                    j = (j + 1) % ncap;
                ne[j] = l->e[i];
            }
        free(l->e);
        l->e = ne;
        l->e_cap = ncap;
    }
    size_t j = home(key, l->e_cap);
    while (l->e[j].key && l->e[j].key != key)
        j = (j + 1) % l->e_cap;
    if (!l->e[j].key) {
        l->e[j].key = key;
        l->e[j].epoch = 0;
        l->e_n++;
    }
    return &l->e[j];
}

static word_state *word_of(lane_races *l, uint32_t block, uint32_t warp, uint32_t word)
{
    uint64_t key = ((uint64_t)block << 32 | warp) + 1;
    if (l->w_n * 2 >= l->w_cap) {
        size_t ncap = l->w_cap ? l->w_cap * 2 : 1024;
        word_state *nw = calloc(ncap, sizeof *nw);
        if (!nw)
            return NULL;
        for (size_t i = 0; i < l->w_cap; i++)
            if (l->w[i].key) {
                size_t j = home(l->w[i].key * 0x9e3779b97f4a7c15ull + l->w[i].word, ncap);
                while (nw[j].key)
                    j = (j + 1) % ncap;
                nw[j] = l->w[i];
            }
        free(l->w);
        l->w = nw;
        l->w_cap = ncap;
    }
    size_t j = home(key * 0x9e3779b97f4a7c15ull + word, l->w_cap);
    while (l->w[j].key && (l->w[j].key != key || l->w[j].word != word))
        j = (j + 1) % l->w_cap;
    if (!l->w[j].key) {
        memset(&l->w[j], 0, sizeof l->w[j]);
        l->w[j].key = key;
        l->w[j].word = word;
        l->w_n++;
    }
    return &l->w[j];
}

void lane_races_forget(lane_races *l)
{
    if (l->w)
        memset(l->w, 0, l->w_cap * sizeof *l->w);
    if (l->e)
        memset(l->e, 0, l->e_cap * sizeof *l->e);
    l->w_n = l->e_n = 0;
}

int lane_races_sync(lane_races *l, uint32_t block, uint32_t warp)
{
    warp_epoch *e = epoch_of(l, block, warp);
    if (!e)
        return -1;
    e->epoch++;
    return 0;
}

/* pc_a wrote (lane_a); pc_b read or wrote (lane_b): one race a pair of instructions. */
static int note(lane_races *l, uint32_t block, uint32_t warp, uint32_t word, uint64_t pc_a,
                int lane_a, uint64_t pc_b, int lane_b, int b_writes, int read_first)
{
    for (int i = 0; i < l->n_races; i++) {
        trace_race *r = &l->races[i];
        if (r->pc_a == pc_a && r->pc_b == pc_b && r->b_writes == b_writes &&
            r->read_first == read_first) {
            r->words++;
            /* the one shown: the lowest block, warp and word, whatever order the
               warps' records came in */
            if (block < r->block || (block == r->block && (warp < r->warp_a ||
                                     (warp == r->warp_a && word * 4u < r->word_offset)))) {
                r->block = block;
                r->warp_a = r->warp_b = warp;
                r->lane_a = (uint32_t)lane_a;
                r->lane_b = (uint32_t)lane_b;
                r->word_offset = word * 4u;
            }
            return 0;
        }
    }
    if (l->n_races == l->cap) {
        int ncap = l->cap ? l->cap * 2 : 8;
        trace_race *nr = realloc(l->races, (size_t)ncap * sizeof *nr);
        if (!nr)
            return -1;
        l->races = nr;
        l->cap = ncap;
    }
    trace_race *r = &l->races[l->n_races++];
    memset(r, 0, sizeof *r);
    r->pc_a = pc_a;
    r->pc_b = pc_b;
    r->b_writes = b_writes;
    r->block = block;
    r->warp_a = r->warp_b = warp;
    r->in_warp = 1;
    r->lane_a = (uint32_t)lane_a;
    r->lane_b = (uint32_t)lane_b;
    r->read_first = read_first;
    r->word_offset = word * 4u;
    r->words = 1;
    return 0;
}

int lane_races_add(lane_races *l, const trace_record *x, int writes, uint64_t index)
{
    warp_epoch *e = epoch_of(l, x->block, x->warp);
    if (!e)
        return -1;
    uint32_t now = e->epoch + 1;
    for (int lane = 0; lane < TRACE_LANES; lane++) {
        if (!(x->active >> lane & 1u))
            continue;
        uint32_t first = x->addr[lane] / 4u, last = (x->addr[lane] + x->width - 1u) / 4u;
        for (uint32_t word = first; word <= last; word++) {
            word_state *s = word_of(l, x->block, x->warp, word);
            if (!s)
                return -1;
            int other_wrote = s->write_epoch == now && s->writer != lane &&
                              s->write_index != index;
            if (!writes) {
                if (other_wrote &&
                    note(l, x->block, x->warp, word, s->write_pc, s->writer, x->pc, lane, 0, 0))
                    return -1;
                if (s->read_epoch != now)
                    s->read_epoch = now, s->readers = 0;
                s->readers |= 1u << lane;
                s->read_pc = x->pc;
                continue;
            }
            uint32_t others = s->read_epoch == now ? s->readers & ~(1u << lane) : 0;
            if (others && note(l, x->block, x->warp, word, x->pc, lane, s->read_pc,
                               __builtin_ctz(others), 0, 1))
                return -1;
            if (other_wrote &&
                note(l, x->block, x->warp, word, s->write_pc, s->writer, x->pc, lane, 1, 0))
                return -1;
            s->write_epoch = now;
            s->writer = (uint8_t)lane;
            s->write_pc = x->pc;
            s->write_index = index;
        }
    }
    return 0;
}

static int by_words(const void *a, const void *b)
{
    long x = ((const trace_race *)a)->words, y = ((const trace_race *)b)->words;
    if (x != y)
        return x > y ? -1 : 1;
    uint64_t p = ((const trace_race *)a)->pc_a, q = ((const trace_race *)b)->pc_a;
    return (p > q) - (p < q);
}

int lane_races_finish(lane_races *l, trace_race **races, int *n_races)
{
    if (l->n_races == 0)
        return 0;
    qsort(l->races, (size_t)l->n_races, sizeof *l->races, by_words);
    trace_race *nr = realloc(*races, (size_t)(*n_races + l->n_races) * sizeof *nr);
    if (!nr)
        return -1;
    memcpy(nr + *n_races, l->races, (size_t)l->n_races * sizeof *nr);
    *races = nr;
    *n_races += l->n_races;
    return 0;
}
