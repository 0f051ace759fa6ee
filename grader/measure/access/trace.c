/* trace.c - trace records to requests, wavefronts and races; see trace.h. */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"

#include "lane_race.h"
#include "sync_order.h"

#include "../../base/check.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static trace_op op_of(uint16_t flags)
{
    if ((flags & TRACE_READ) && (flags & TRACE_WRITE))
        return TRACE_OP_ATOMIC;
    return (flags & TRACE_WRITE) ? TRACE_OP_STORE : TRACE_OP_LOAD;
}

const char *trace_op_name(trace_op op)
{
    switch (op) {
    case TRACE_OP_LOAD: return "load";
    case TRACE_OP_STORE: return "store";
    case TRACE_OP_ATOMIC: return "atomic";
    }
    return "?";
}

/*
 * A 16-byte load (LDS.128) one of whose four words the program never uses: the
 * Compute Sanitizer reports it 12 bytes wide, and the hardware serves it as the
 * whole 16 bytes from their aligned start (Nsight Compute on an H100: the same
 * wavefronts with the word used or not, tests/truth/gen-idioms.py "dead word").
 * Races look at the 12 bytes reported; the bank model at the 16 served.
 */
static int dead_word_load(const trace_record *r)
{
    return r->width == 12 && op_of(r->flags) == TRACE_OP_LOAD;
}

static int valid_width(const trace_record *r)
{
    int w = r->width;
    return w == 1 || w == 2 || w == 4 || w == 8 || w == 16 || dead_word_load(r);
}

static int served_width(const trace_record *r)
{
    return dead_word_load(r) ? 16 : r->width;
}

static void to_warp_access(const trace_record *r, warp_access *a)
{
    uint32_t align = dead_word_load(r) ? ~15u : ~0u;
    a->active = r->active;
    a->width = served_width(r);
    a->load = op_of(r->flags) == TRACE_OP_LOAD; /* an atomic writes: never paired */
    a->kind = (r->flags & TRACE_ATOM_CAS)    ? BANK_CAS
              : (r->flags & TRACE_ATOM_EXCH) ? BANK_EXCH
              : op_of(r->flags) == TRACE_OP_ATOMIC ? BANK_ATOMIC
              : (r->flags & TRACE_ASYNC)     ? BANK_ASYNC
                                              : BANK_PLAIN;
    a->lines = r->lines;
    a->skewed = (r->flags & TRACE_ASYNC_SKEW) != 0;
    for (int lane = 0; lane < TRACE_LANES; lane++)
        a->addr[lane] = (r->active >> lane & 1u) ? r->addr[lane] & align : 0;
}

/* --- sites -------------------------------------------------------------- */

/* The first site whose pc is not below pc (n_sites when none). */
static int site_lower_bound(const trace_summary *s, uint64_t pc)
{
    int lo = 0, hi = s->n_sites;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->sites[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Sites are few (a kernel has a handful of shared instructions): a sorted
 * array with binary search, grown as new PCs turn up. */
static trace_site *site_for(trace_summary *s, int *cap, uint64_t pc, trace_op op)
{
    int lo = site_lower_bound(s, pc);
    if (lo < s->n_sites && s->sites[lo].pc == pc)
        return &s->sites[lo];
    if (s->n_sites == *cap) {
        int ncap = *cap ? *cap * 2 : 16;
        trace_site *ns = realloc(s->sites, (size_t)ncap * sizeof *ns);
        if (!ns)
            return NULL;
        s->sites = ns;
        *cap = ncap;
    }
    memmove(&s->sites[lo + 1], &s->sites[lo], (size_t)(s->n_sites - lo) * sizeof *s->sites);
    memset(&s->sites[lo], 0, sizeof *s->sites);
    s->sites[lo].pc = pc;
    s->sites[lo].op = op;
    s->sites[lo].worst_wavefronts = -1;
    s->n_sites++;
    return &s->sites[lo];
}

/* --- races -------------------------------------------------------------- */

/* One shared word touched by one warp in one barrier interval; st: what the warp knew
   of the others then (sync_order.h: release and acquire between the barriers). */
typedef struct touch {
    uint32_t block, epoch, word, warp;
    uint64_t pc;
    int writes;
    sync_stamp st;
} touch;

static int by_place(const void *a, const void *b)
{
    const touch *x = a, *y = b;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    if (x->epoch != y->epoch) return x->epoch < y->epoch ? -1 : 1;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    if (x->warp != y->warp) return x->warp < y->warp ? -1 : 1;
    return (x->pc > y->pc) - (x->pc < y->pc);
}

typedef struct touches {
    touch *t;
    size_t n, cap;
} touches;

static int add_touch(touches *ts, touch t)
{
    if (ts->n == ts->cap) {
        size_t ncap = ts->cap ? ts->cap * 2 : 1024;
        touch *nt = realloc(ts->t, ncap * sizeof *nt);
        if (!nt)
            return -1;
        ts->t = nt;
        ts->cap = ncap;
    }
    ts->t[ts->n++] = t;
    return 0;
}

/* Barriers each warp of each block has passed so far: an open-addressed map
 * from (block, warp) to a count. */
typedef struct epoch_map {
    uint64_t *key; /* (block << 32 | warp) + 1; 0 = empty */
    uint32_t *count;
    size_t cap, n;
} epoch_map;

/* Where key starts its probe: all 64 bits mixed (splitmix64's finalizer).
 * Keys differ in the block, the high half: a hash of the low bits alone put
 * every block of a warp on one chain (30 s for a 1M-record trace on labs 5, 6). */
static size_t epoch_home(uint64_t key, size_t cap)
{
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    key ^= key >> 31;
    return (size_t)(key % cap);
}

static uint32_t *epoch_slot(epoch_map *m, uint32_t block, uint32_t warp)
{
    uint64_t key = ((uint64_t)block << 32 | warp) + 1;
    if (m->n * 2 >= m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 256;
        uint64_t *nk = calloc(ncap, sizeof *nk);
        uint32_t *nc = calloc(ncap, sizeof *nc);
        if (!nk || !nc) {
            free(nk);
            free(nc);
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i])
                continue;
            size_t j = epoch_home(m->key[i], ncap);
            while (nk[j])
                j = (j + 1) % ncap;
            nk[j] = m->key[i];
            nc[j] = m->count[i];
        }
        free(m->key);
        free(m->count);
        m->key = nk;
        m->count = nc;
        m->cap = ncap;
    }
    size_t j = epoch_home(key, m->cap);
    while (m->key[j] && m->key[j] != key)
        j = (j + 1) % m->cap;
    if (!m->key[j]) {
        m->key[j] = key;
        m->count[j] = 0;
        m->n++;
    }
    return &m->count[j];
}

static int by_words(const void *a, const void *b)
{
    long x = ((const trace_race *)a)->words, y = ((const trace_race *)b)->words;
    if (x != y)
        return x > y ? -1 : 1;
    uint64_t p = ((const trace_race *)a)->pc_a, q = ((const trace_race *)b)->pc_a;
    return (p > q) - (p < q);
}

static int note_race(trace_summary *s, int *cap, const touch *w, const touch *o, int tiles)
{
    for (int i = 0; i < s->n_races; i++) {
        trace_race *r = &s->races[i];
        if (r->pc_a == w->pc && r->pc_b == o->pc && r->b_writes == o->writes) {
            r->words++;
            return 0;
        }
    }
    if (s->n_races == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        trace_race *nr = realloc(s->races, (size_t)ncap * sizeof *nr);
        if (!nr)
            return -1;
        s->races = nr;
        *cap = ncap;
    }
    trace_race *r = &s->races[s->n_races++];
    memset(r, 0, sizeof *r);
    r->pc_a = w->pc;
    r->pc_b = o->pc;
    r->b_writes = o->writes;
    r->block = w->block;
    r->warp_a = w->warp;
    r->warp_b = o->warp;
    r->word_offset = w->word * 4u;
    r->epoch = w->epoch;
    r->words = 1;
    r->tile_synced = tiles;
    return 0;
}

/* Bits needed to write max. */
static int bits_for(uint64_t max)
{
    int b = 0;
    while (b < 64 && (max >> b) != 0)
        b++;
    return b;
}

/* LSD radix sort, a byte a pass, skipping the bytes every key shares. */
static int radix_sort(uint64_t *keys, size_t n)
{
    uint64_t *tmp = malloc(n * sizeof *tmp), *from = keys, *to = tmp;
    uint64_t all_and = ~0ull, all_or = 0;
    if (!tmp)
        return -1;
    for (size_t i = 0; i < n; i++) {
        all_and &= keys[i];
        all_or |= keys[i];
    }
    for (int shift = 0; shift < 64; shift += 8) {
        size_t start[257] = {0};
        if ((((all_and ^ all_or) >> shift) & 0xffu) == 0)
            continue;
        for (size_t i = 0; i < n; i++)
            start[((from[i] >> shift) & 0xffu) + 1]++;
        for (int d = 0; d < 256; d++)
            start[d + 1] += start[d];
        for (size_t i = 0; i < n; i++)
            to[start[(from[i] >> shift) & 0xffu]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != keys)
        memcpy(keys, from, n * sizeof *keys);
    free(tmp);
    return 0;
}

/* The rank of pc among the sites (sorted by pc; every touch has its site). */
static uint64_t site_rank(const trace_summary *s, uint64_t pc)
{
    return (uint64_t)site_lower_bound(s, pc);
}

/*
 * Touches in by_place order. A trace's touches number in the hundreds of
 * thousands and come in the order warps ran: packed into one 64-bit key
 * (block rank, epoch, word, warp, site rank; each field as wide as its
 * largest value) they sort by radix in a fraction of qsort's time. Where the
 * fields do not fit in 64 bits, qsort it is.
 */
static int order_touches(const trace_summary *s, touches *ts, const uint32_t *race_blocks,
                         int n_blocks, int stamped)
{
    uint32_t blocks[TRACE_RACE_BLOCKS];
    uint32_t max_epoch = 0, max_word = 0, max_warp = 0;
    int n = 0;
    for (int i = 0; i < n_blocks; i++) { /* the race blocks, by value */
        int at = n++;
        while (at > 0 && blocks[at - 1] > race_blocks[i]) {
            blocks[at] = blocks[at - 1];
            at--;
        }
        blocks[at] = race_blocks[i];
    }
    for (size_t i = 0; i < ts->n; i++) {
        max_epoch = ts->t[i].epoch > max_epoch ? ts->t[i].epoch : max_epoch;
        max_word = ts->t[i].word > max_word ? ts->t[i].word : max_word;
        max_warp = ts->t[i].warp > max_warp ? ts->t[i].warp : max_warp;
    }
    int bb = bits_for(n > 0 ? (uint64_t)n - 1 : 0), eb = bits_for(max_epoch),
        wb = bits_for(max_word), vb = bits_for(max_warp),
        pb = bits_for(s->n_sites > 0 ? (uint64_t)s->n_sites - 1 : 0);
    /* stamped touches keep their stamps: the key has no room for them */
    uint64_t *keys = bb + eb + wb + vb + pb <= 64 && !stamped ? malloc(ts->n * sizeof *keys)
                                                              : NULL;
    if (!keys) {
        qsort(ts->t, ts->n, sizeof *ts->t, by_place);
        return 0;
    }
    for (size_t i = 0; i < ts->n; i++) {
        const touch *t = &ts->t[i];
        uint64_t rank = 0;
        while (blocks[rank] != t->block)
            rank++;
        keys[i] = ((((rank << eb | t->epoch) << wb | t->word) << vb | t->warp) << pb) |
                  site_rank(s, t->pc);
    }
    if (radix_sort(keys, ts->n) != 0) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < ts->n; i++) {
        uint64_t k = keys[i]; /* every field is 32 bits wide at most: the shifts are defined */
        const trace_site *site = &s->sites[k & ((1ull << pb) - 1)];
        touch *t = &ts->t[i];
        k >>= pb;
        t->warp = (uint32_t)(k & ((1ull << vb) - 1));
        k >>= vb;
        t->word = (uint32_t)(k & ((1ull << wb) - 1));
        k >>= wb;
        t->epoch = (uint32_t)(k & ((1ull << eb) - 1));
        k >>= eb;
        t->block = blocks[k];
        t->pc = site->pc;
        t->writes = site->op == TRACE_OP_STORE;
        t->st = (sync_stamp){1, 0};
    }
    free(keys);
    return 0;
}

/* A barrier instruction, kept once in PC order (the first TRACE_BARRIER_SITES). */
static void note_barrier_pc(trace_summary *s, uint64_t pc)
{
    int at = 0;
    while (at < s->n_barrier_pcs && s->barrier_pc[at] < pc)
        at++;
    if ((at < s->n_barrier_pcs && s->barrier_pc[at] == pc) || s->n_barrier_pcs == TRACE_BARRIER_SITES)
        return;
    memmove(&s->barrier_pc[at + 1], &s->barrier_pc[at],
            (size_t)(s->n_barrier_pcs - at) * sizeof s->barrier_pc[0]);
    s->barrier_pc[at] = pc;
    s->n_barrier_pcs++;
}

/* Whether a barrier instruction lies strictly between the race's two PCs. */
static int barrier_between(const trace_summary *s, const trace_race *r)
{
    uint64_t lo = r->pc_a < r->pc_b ? r->pc_a : r->pc_b, hi = r->pc_a ^ r->pc_b ^ lo;
    for (int i = 0; i < s->n_barrier_pcs; i++)
        if (s->barrier_pc[i] > lo && s->barrier_pc[i] < hi)
            return 1;
    return 0;
}

/* Whether release and acquire between the barriers put x and y in order. */
static int ordered(const sync_order *order, const touch *x, const touch *y)
{
    return sync_order_before(order, x->warp, x->st, y->st) ||
           sync_order_before(order, y->warp, y->st, x->st);
}

/*
 * Within one (block, barrier interval, word) group: a race is a writing touch
 * and a touch of the same word by another warp that no release and acquire
 * put in order. Each pair of PCs counts once per word (a write-write pair is
 * kept with the lower PC first). cap: the room s->races has, kept between
 * calls (a stream finds its races block by block).
 */
static int find_races(trace_summary *s, touches *ts, const uint32_t *race_blocks, int n_blocks,
                      int *cap, const sync_order *order)
{
    int stamped = sync_order_seen(order);
    if (order_touches(s, ts, race_blocks, n_blocks, stamped) != 0)
        return -1;
    for (size_t i = 0; i < ts->n;) {
        size_t j = i;
        while (j < ts->n && ts->t[j].block == ts->t[i].block && ts->t[j].epoch == ts->t[i].epoch &&
               ts->t[j].word == ts->t[i].word)
            j++;
        if (ts->t[i].warp != ts->t[j - 1].warp) { /* sorted by warp: two warps or more */
            touch done[16][2]; /* pairs already counted for this word */
            int ndone = 0;
            for (size_t a = i; a < j; a++) {
                if (!ts->t[a].writes)
                    continue;
                for (size_t b = i; b < j; b++) {
                    const touch *w = &ts->t[a], *o = &ts->t[b];
                    if (o->warp == w->warp || (stamped && ordered(order, w, o)))
                        continue;
                    if (o->writes && o->pc < w->pc) {
                        const touch *t = w;
                        w = o;
                        o = t;
                    }
                    int seen = 0;
                    for (int k = 0; k < ndone && !seen; k++)
                        seen = done[k][0].pc == w->pc && done[k][1].pc == o->pc &&
                               done[k][1].writes == o->writes;
                    if (seen)
                        continue;
                    if (ndone < 16) {
                        done[ndone][0] = *w;
                        done[ndone][1] = *o;
                        ndone++;
                    }
                    if (note_race(s, cap, w, o, stamped) != 0)
                        return -1;
                }
            }
        }
        i = j;
    }
    return 0;
}

/* The races found, most words first, each told whether a barrier lies between its
   two lines (then they race across passes of a loop). */
static void sort_races(trace_summary *s)
{
    qsort(s->races, (size_t)s->n_races, sizeof *s->races, by_words);
    for (int r = 0; r < s->n_races; r++)
        s->races[r].across_passes = s->races[r].epoch > 0 && barrier_between(s, &s->races[r]);
}

/* --- analysis ----------------------------------------------------------- */

/* Whether block takes part in a whole trace's race check: the TRACE_RACE_BLOCKS
 * lowest blocks do, named beforehand (name_blocks; it bounds the memory the check
 * needs on labs 5 and 6). A stream checks every block (next_block). */
static int race_block(const uint32_t *blocks, int n, uint32_t block)
{
    for (int i = 0; i < n; i++)
        if (blocks[i] == block)
            return 1;
    return 0;
}

/* The first block's threads: their first load and store address, and counts. */
static void note_flow(trace_summary *s, const trace_record *x, trace_op op)
{
    if (x->block != s->flow_block || op == TRACE_OP_ATOMIC)
        return;
    for (int lane = 0; lane < TRACE_LANES; lane++) {
        uint64_t t = (uint64_t)x->warp * TRACE_LANES + (uint64_t)lane;
        if (!(x->active >> lane & 1u) || t >= TRACE_FLOW_THREADS)
            continue;
        trace_thread *th = &s->threads[t];
        if (op == TRACE_OP_LOAD && th->loads++ == 0)
            th->load_addr = x->addr[lane];
        if (op == TRACE_OP_STORE && th->stores++ == 0)
            th->store_addr = x->addr[lane];
    }
}

/* The highest shared byte any lane of x reached, and which instruction did. */
static void extend(trace_extent *e, const trace_record *x, trace_op op)
{
    for (int lane = 0; lane < TRACE_LANES; lane++) {
        uint64_t end = (uint64_t)x->addr[lane] + x->width;
        if ((x->active >> lane & 1u) && (end > e->end || (end == e->end && x->pc < e->pc))) {
            e->end = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
            e->pc = x->pc;
            e->op = op;
        }
    }
}

/* The extent of the whole trace, and of the launch x came from. */
static void note_extent(trace_summary *s, const trace_record *x, trace_op op)
{
    uint32_t launch = x->block >> TRACE_LAUNCH_SHIFT;
    extend(&s->extent, x, op);
    if (launch < TRACE_EXTENT_LAUNCHES)
        extend(&s->launch_extent[launch], x, op);
}

/* The global addresses each of the first blocks read: an open-addressed set of
   (block, address) keys, 0 empty. */
typedef struct address_set {
    uint64_t *key;
    size_t cap, n;
} address_set;

/* Adds key; 1 if it was new, 0 if there already, -1 out of memory. */
static int address_add(address_set *s, uint64_t key)
{
    key += 1; /* 0 marks an empty slot */
    if (s->n * 2 >= s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 1024;
        uint64_t *nk = calloc(ncap, sizeof *nk);
        if (!nk)
            return -1;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->key[i])
                continue;
            size_t j = epoch_home(s->key[i], ncap);
            while (nk[j])
                j = (j + 1) % ncap;
            nk[j] = s->key[i];
        }
        free(s->key);
        s->key = nk;
        s->cap = ncap;
    }
    size_t j = epoch_home(key, s->cap);
    while (s->key[j] && s->key[j] != key)
        j = (j + 1) % s->cap;
    if (s->key[j])
        return 0;
    s->key[j] = key;
    s->n++;
    return 1;
}

struct trace_analyzer {
    bank_geometry g;
    trace_summary out;
    int site_cap, n_race_blocks, started;
    uint32_t race_blocks[TRACE_RACE_BLOCKS];
    int fixed_blocks;   /* race_blocks and flow_block named before the records */
    int race_cap;       /* room in out.races */
    int streaming;      /* a stream: `block`'s touches held, the blocks before done */
    uint32_t block;
    epoch_map epochs;
    long repeats_of[TRACE_GLOBAL_BLOCKS]; /* global reads of an address read before */
    uint64_t repeat_pc_of[TRACE_GLOBAL_BLOCKS];
    touches ts;
    sync_order *order;  /* release and acquire between warps (sync_order.h) */
    lane_races *lanes;  /* races between the lanes of a warp (lane_race.h) */
    address_set loaded; /* global addresses of the first blocks */
    size_t index;       /* records added, for messages */
};

trace_analyzer *trace_analyzer_new(const bank_geometry *g)
{
    trace_analyzer *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->g = *g;
    a->out.threads = calloc(TRACE_FLOW_THREADS, sizeof *a->out.threads);
    a->lanes = lane_races_new();
    a->order = sync_order_new();
    if (!a->out.threads || !a->lanes || !a->order) {
        free(a->out.threads);
        lane_races_free(a->lanes);
        sync_order_free(a->order);
        free(a);
        return NULL;
    }
    return a;
}

void trace_analyzer_geometry(trace_analyzer *a, const bank_geometry *g)
{
    a->g = *g;
}

void trace_analyzer_free(trace_analyzer *a)
{
    if (!a)
        return;
    trace_summary_free(&a->out);
    free(a->loaded.key);
    free(a->ts.t);
    lane_races_free(a->lanes);
    sync_order_free(a->order);
    free(a->epochs.key);
    free(a->epochs.count);
    free(a);
}

/* Every 4-byte word each lane of x touches, once per word for this warp, as
   touches of the race check (the first TRACE_RACE_BLOCKS blocks only). */
static int add_touches(trace_analyzer *a, const trace_record *x, uint32_t epoch, trace_op op)
{
    uint32_t seen[TRACE_LANES * 4];
    int nseen = 0;
    /* atomics and ordered accesses (a flag's release and acquire) do not race with each
       other; left out of the check */
    if (op == TRACE_OP_ATOMIC || (x->flags & (TRACE_ACQUIRE | TRACE_RELEASE)))
        return 0;
    if (a->fixed_blocks && !race_block(a->race_blocks, a->n_race_blocks, x->block))
        return 0;
    sync_stamp st;
    if (sync_order_stamp(a->order, x->block, x->warp, &st) != 0)
        return -1;
    if (lane_races_add(a->lanes, x, op == TRACE_OP_STORE, a->index) != 0)
        return -1;
    for (int lane = 0; lane < TRACE_LANES; lane++) {
        if (!(x->active >> lane & 1u))
            continue;
        uint32_t first = x->addr[lane] / 4u, last = (x->addr[lane] + x->width - 1u) / 4u;
        for (uint32_t w = first; w <= last; w++) {
            int dup = 0;
            for (int k = 0; k < nseen && !dup; k++)
                dup = seen[k] == w;
            if (dup)
                continue;
            seen[nseen++] = w;
            touch t = {x->block, epoch, w, x->warp, x->pc, op == TRACE_OP_STORE, st};
            if (add_touch(&a->ts, t) != 0)
                return -1;
        }
    }
    return 0;
}

/* One access record into its site and the side's totals. */
static void add_counts(trace_analyzer *a, trace_site *site, const trace_record *x, trace_op op)
{
    trace_summary *out = &a->out;
    warp_access w;
    to_warp_access(x, &w);
    int waves = bank_wavefronts(&a->g, &w), ideal = bank_ideal_wavefronts(&a->g, &w);
    site->requests++;
    site->wavefronts += waves;
    site->ideal += ideal;
    if (served_width(x) > site->width)
        site->width = served_width(x);
    /* ties go to the lowest block and warp: the same map whatever order warps ran in */
    if (waves > site->worst_wavefronts ||
        (waves == site->worst_wavefronts &&
         (x->block < site->worst_block || (x->block == site->worst_block && x->warp < site->worst_warp)))) {
        site->worst_wavefronts = waves;
        site->worst = w;
        site->worst_block = x->block;
        site->worst_warp = x->warp;
    }
    out->requests[op]++;
    out->wavefronts[op] += waves;
    out->ideal[op] += ideal;
}

/* A global load of one of the first blocks: which lanes read an address the
   block had read before (a tile's halo read from global memory at every tap). */
/* Whether two or more lanes of x, and all of its active ones, read one address: a
   broadcast (a coefficient each warp loads for itself, lab 10), not a tile's input. */
static int one_address(const trace_record *x)
{
    int first = -1, lanes = 0;
    for (int lane = 0; lane < TRACE_LANES; lane++) {
        if (!(x->active >> lane & 1u))
            continue;
        lanes++;
        if (first < 0)
            first = lane;
        else if (x->addr[lane] != x->addr[first])
            return 0;
    }
    return lanes >= 2;
}

static int note_global(trace_analyzer *a, const trace_record *x)
{
    trace_summary *out = &a->out;
    if (x->block >= TRACE_GLOBAL_BLOCKS || one_address(x))
        return 0;
    for (int lane = 0; lane < TRACE_LANES; lane++) {
        if (!(x->active >> lane & 1u))
            continue;
        int fresh = address_add(&a->loaded, (uint64_t)x->block << 32 | x->addr[lane]);
        if (fresh < 0)
            return -1;
        out->global_lanes++;
        if (fresh)
            continue;
        out->global_repeats++;
        if (a->repeats_of[x->block]++ == 0)
            a->repeat_pc_of[x->block] = x->pc;
    }
    return 0;
}

/* The repeats reported: those of the lowest block that has any (a count that
   does not depend on the order the block's warps ran in). */
static void pick_repeat_block(trace_analyzer *a)
{
    for (uint32_t b = 0; b < TRACE_GLOBAL_BLOCKS; b++)
        if (a->repeats_of[b]) {
            a->out.repeat_block = b;
            a->out.repeat_pc = a->repeat_pc_of[b];
            a->out.repeat_count = a->repeats_of[b];
            return;
        }
}

/* A stream's races are found block by block (its records come in block order: the
   emulator runs one block after another): at the first record of another block, the
   one held is checked and its touches let go. Every block is checked, in memory one
   block's touches need. */
static int next_block(trace_analyzer *a, uint32_t block)
{
    if (a->fixed_blocks || (a->streaming && a->block == block))
        return 0;
    if (a->streaming && find_races(&a->out, &a->ts, &a->block, 1, &a->race_cap, a->order) != 0)
        return -1;
    a->ts.n = 0;
    lane_races_forget(a->lanes);
    sync_order_forget(a->order);
    a->streaming = 1;
    a->block = block;
    a->n_race_blocks++;
    return 0;
}

/* An ordered access: its warp acquires each word its lanes read, then releases each
   (atom.acq_rel: both, in that order), for the blocks the race check looks at. */
static int order_warps(trace_analyzer *a, const trace_record *x)
{
    if (a->fixed_blocks && !race_block(a->race_blocks, a->n_race_blocks, x->block))
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        uint16_t want = pass ? TRACE_RELEASE : TRACE_ACQUIRE;
        if (!(x->flags & want))
            continue;
        for (int lane = 0; lane < TRACE_LANES; lane++) {
            if (!(x->active >> lane & 1u))
                continue;
            uint32_t word = x->addr[lane] / 4u;
            int rc = pass ? sync_order_release(a->order, x->block, x->warp, word)
                          : sync_order_acquire(a->order, x->block, x->warp, word);
            if (rc != 0)
                return -1;
        }
    }
    return 0;
}

int trace_analyzer_add(trace_analyzer *a, const trace_record *x, char *why, size_t why_size)
{
    trace_summary *out = &a->out;
    size_t i = a->index++;
    if (!(x->flags & TRACE_GLOBAL) && next_block(a, x->block) != 0)
        goto oom;
    if (x->flags & TRACE_GLOBAL) {
        if ((x->flags & (TRACE_READ | TRACE_WRITE)) == TRACE_READ && note_global(a, x) != 0)
            goto oom;
        if (x->block < TRACE_GLOBAL_BLOCKS && coalesce_add(&out->global, x) != 0)
            goto oom;
        return 0;
    }
    if (x->flags & (TRACE_ACQUIRE | TRACE_RELEASE)) {
        if (order_warps(a, x) != 0)
            goto oom;
        if (!(x->flags & (TRACE_READ | TRACE_WRITE))) /* the toolkit's word: nothing more */
            return 0;
    }
    if (!a->started) {
        out->flow_block = x->block;
        a->started = 1;
    }
    uint32_t *epoch = epoch_slot(&a->epochs, x->block, x->warp);
    if (!epoch)
        goto oom;
    out->records++;
    if (x->flags & (TRACE_BARRIER | TRACE_SYNCWARP)) { /* both order a warp's lanes */
        if (lane_races_sync(a->lanes, x->block, x->warp) != 0)
            goto oom;
        if (x->flags & TRACE_SYNCWARP) /* no barrier between warps */
            return 0;
        (*epoch)++;
        out->barriers++;
        note_barrier_pc(out, x->pc);
        return 0;
    }
    if (x->flags & TRACE_SHFL) /* counted by the emulator's meter, nothing to analyse */
        return 0;
    if (!valid_width(x)) {
        snprintf(why, why_size, "record %zu (pc 0x%" PRIx64 "): access width %u bytes; "
                 "shared accesses are 1, 2, 4, 8 or 16 bytes wide (12: a load only)", i, x->pc,
                 x->width);
        return -1;
    }
    if (x->active == 0) {
        snprintf(why, why_size, "record %zu (pc 0x%" PRIx64 "): no active lane", i, x->pc);
        return -1;
    }
    if (!(x->flags & (TRACE_READ | TRACE_WRITE))) {
        snprintf(why, why_size, "record %zu (pc 0x%" PRIx64 "): neither a read nor a write",
                 i, x->pc);
        return -1;
    }
    trace_op op = op_of(x->flags);
    trace_site *site = site_for(out, &a->site_cap, x->pc, op);
    if (!site)
        goto oom;
    if (site->op != op) {
        snprintf(why, why_size, "pc 0x%" PRIx64 " is both a %s and a %s: the trace mixes "
                 "kernels or is corrupt", x->pc, trace_op_name(site->op), trace_op_name(op));
        return -1;
    }
    note_flow(out, x, op);
    note_extent(out, x, op);
    add_counts(a, site, x, op);
    if (add_touches(a, x, *epoch, op) != 0)
        goto oom;
    return 0;
oom:
    snprintf(why, why_size, "out of memory analysing %zu trace records", a->index);
    return -1;
}

int trace_analyzer_finish(trace_analyzer *a, trace_summary *out, char *why, size_t why_size)
{
    int rc = 0;
    a->out.race_blocks = a->n_race_blocks;
    pick_repeat_block(a);
    int found = a->fixed_blocks ? find_races(&a->out, &a->ts, a->race_blocks, a->n_race_blocks,
                                             &a->race_cap, a->order)
                : a->streaming ? find_races(&a->out, &a->ts, &a->block, 1, &a->race_cap, a->order)
                               : 0;
    if (found == 0)
        sort_races(&a->out);
    if (found != 0 ||
        lane_races_finish(a->lanes, &a->out.races, &a->out.n_races) != 0) {
        snprintf(why, why_size, "out of memory finding races in %zu trace records", a->index);
        rc = -1;
    } else {
        *out = a->out;
        memset(&a->out, 0, sizeof a->out); /* out owns it now */
    }
    trace_analyzer_free(a);
    return rc;
}

/*
 * A whole trace comes in the order its warps ran on the GPU: the blocks the
 * race check and the tile-flow check look at are named from it beforehand,
 * the lowest ones, so that a race confined to some blocks is found, or not,
 * the same way in every run.
 */
static void name_blocks(trace_analyzer *a, const trace_record *r, size_t n)
{
    uint32_t *low = a->race_blocks;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b = r[i].block;
        if (r[i].flags & TRACE_GLOBAL)
            continue;
        int at = k, known = 0;
        for (int j = 0; j < k && !known; j++)
            known = low[j] == b;
        if (known || (k == TRACE_RACE_BLOCKS && b > low[k - 1]))
            continue;
        if (k < TRACE_RACE_BLOCKS)
            k++;
        at = k - 1; /* sorted insertion; the highest falls out when full */
        while (at > 0 && low[at - 1] > b) {
            low[at] = low[at - 1];
            at--;
        }
        low[at] = b;
    }
    a->n_race_blocks = k;
    a->fixed_blocks = 1;
    if (k > 0) {
        a->out.flow_block = low[0];
        a->started = 1;
    }
}

int trace_analyze(const bank_geometry *g, const trace_record *r, size_t n, trace_summary *out,
                  char *why, size_t why_size)
{
    trace_analyzer *a = trace_analyzer_new(g);
    memset(out, 0, sizeof *out);
    if (!a) {
        snprintf(why, why_size, "out of memory analysing %zu trace records", n);
        return -1;
    }
    name_blocks(a, r, n);
    for (size_t i = 0; i < n; i++)
        if (trace_analyzer_add(a, &r[i], why, why_size) != 0) {
            trace_analyzer_free(a);
            return -1;
        }
    return trace_analyzer_finish(a, out, why, why_size);
}

void trace_summary_free(trace_summary *s)
{
    free(s->sites);
    free(s->races);
    free(s->threads);
    free(s->sync);
    coalesce_free(&s->global);
    memset(s, 0, sizeof *s);
}

void trace_to_measurement(const trace_summary *s, measurement *m)
{
    measure_clear(m);
    m->value[METRIC_SHARED_LD_REQUESTS] = (double)s->requests[0];
    m->value[METRIC_SHARED_ST_REQUESTS] = (double)s->requests[1];
    m->value[METRIC_SHARED_LD_WAVEFRONTS] = (double)s->wavefronts[0];
    m->value[METRIC_SHARED_ST_WAVEFRONTS] = (double)s->wavefronts[1];
    m->value[METRIC_SHARED_LD_CONFLICTS] = (double)(s->wavefronts[0] - s->ideal[0]);
    m->value[METRIC_SHARED_ST_CONFLICTS] = (double)(s->wavefronts[1] - s->ideal[1]);
    m->value[METRIC_SHARED_ATOM_REQUESTS] = (double)s->requests[TRACE_OP_ATOMIC];
    m->value[METRIC_SHARED_ATOM_WAVEFRONTS] = (double)s->wavefronts[TRACE_OP_ATOMIC];
    m->ideal_ld = (double)s->ideal[0];
    m->ideal_st = (double)s->ideal[1];
    m->ideal_set = MEASURE_IDEAL_SET;
    /* Global requests are counted where they happen (every block; the backends set
       them); the sectors here are the first blocks', which the backends replace. */
    m->value[METRIC_GLOBAL_LD_REQUESTS] = 0.0;
    for (int i = 0; i < s->global.n; i++) {
        const coalesce_site *g = &s->global.v[i];
        int store = g->side == COALESCE_STORE;
        if (g->side == COALESCE_ATOMIC)
            continue; /* no side of sectors (lab 9's are loads' and stores') */
        m->value[store ? METRIC_GLOBAL_ST_SECTORS : METRIC_GLOBAL_LD_SECTORS] += (double)g->sectors;
        m->value[store ? METRIC_GLOBAL_ST_IDEAL : METRIC_GLOBAL_LD_IDEAL] += (double)g->ideal;
    }
}

const trace_site *trace_find_site(const trace_summary *s, uint64_t pc)
{
    for (int i = 0; i < s->n_sites; i++)
        if (s->sites[i].pc == pc)
            return &s->sites[i];
    return NULL;
}

int trace_side_width(const trace_summary *s, trace_op op)
{
    int width = 0;
    for (int i = 0; i < s->n_sites; i++) {
        if (s->sites[i].op != op)
            continue;
        if (width && s->sites[i].width != width)
            return -1;
        width = s->sites[i].width;
    }
    return width;
}

const trace_site *trace_worst_site(const trace_summary *s, trace_op op)
{
    const trace_site *best = NULL;
    for (int i = 0; i < s->n_sites; i++) {
        const trace_site *x = &s->sites[i];
        if (x->op != op)
            continue;
        if (!best || x->wavefronts - x->ideal > best->wavefronts - best->ideal)
            best = x;
    }
    return best;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *trace_where(const char *file, int line, uint64_t pc, char *buf, size_t size)
{
    if (file)
        snprintf(buf, size, "%s:%d", base_name(file), line);
    else
        snprintf(buf, size, "pc 0x%" PRIx64, pc);
    return buf;
}

const char *trace_site_text(const trace_site *site, char *buf, size_t size)
{
    check_line l;
    memset(&l, 0, sizeof l);
    snprintf(l.file, sizeof l.file, "%s", site->file ? base_name(site->file) : "pc");
    l.line = site->line;
    snprintf(l.op, sizeof l.op, "%s", trace_op_name(site->op));
    l.requests = site->requests;
    l.wavefronts = site->wavefronts;
    l.ideal = site->ideal;
    if (site->file)
        return check_line_text(&l, buf, size);
    /* no line information: the PC stands in for file:line */
    char text[160], *rest;
    check_line_text(&l, text, sizeof text);
    rest = strchr(text, ' ');
    snprintf(buf, size, "pc 0x%" PRIx64 "%s", site->pc, rest ? rest : "");
    return buf;
}

const char *trace_race_text(const trace_race *race, char *buf, size_t size)
{
    char a[160], b[160];
    if (race->across_passes) { /* name the later instruction first: it ran in the earlier pass */
        int a_first = race->pc_a > race->pc_b;
        const char *op_b = race->b_writes ? "store" : "load";
        snprintf(buf, size, "%s (%s) in one pass of a loop and %s (%s) in the next race: warps "
                 "%u and %u of block %u touch shared byte 0x%x with no barrier between them; "
                 "the two lines race on %ld word%s in all",
                 a_first ? trace_where(race->file_a, race->line_a, race->pc_a, a, sizeof a)
                         : trace_where(race->file_b, race->line_b, race->pc_b, a, sizeof a),
                 a_first ? "store" : op_b,
                 a_first ? trace_where(race->file_b, race->line_b, race->pc_b, b, sizeof b)
                         : trace_where(race->file_a, race->line_a, race->pc_a, b, sizeof b),
                 a_first ? op_b : "store", race->warp_a, race->warp_b, race->block,
                 race->word_offset, race->words, race->words == 1 ? "" : "s");
        return buf;
    }
    if (race->in_warp) {
        snprintf(buf, size, "%s (store) and %s (%s) race: lanes %u and %u of warp %u of block %u "
                 "touch shared byte 0x%x with no __syncwarp() between; the two lines race "
                 "on %ld word%s in all",
                 trace_where(race->file_a, race->line_a, race->pc_a, a, sizeof a),
                 trace_where(race->file_b, race->line_b, race->pc_b, b, sizeof b),
                 race->b_writes ? "store" : "load", race->lane_a, race->lane_b, race->warp_a,
                 race->block, race->word_offset, race->words, race->words == 1 ? "" : "s");
        return buf;
    }
    snprintf(buf, size, "%s (store) and %s (%s) race: warps %u and %u of block %u touch shared "
             "byte 0x%x with no barrier between%s; the two lines race on %ld word%s in all",
             trace_where(race->file_a, race->line_a, race->pc_a, a, sizeof a),
             trace_where(race->file_b, race->line_b, race->pc_b, b, sizeof b),
             race->b_writes ? "store" : "load", race->warp_a, race->warp_b, race->block,
             race->word_offset,
             race->tile_synced ? " that both wait at (a tile's sync() orders the warps of its "
                                 "own tile only)" : "",
             race->words, race->words == 1 ? "" : "s");
    return buf;
}

/* --- text traces -------------------------------------------------------- */

/* The record kinds of the text form, by the flags they stand for. */
static const struct {
    const char *name;
    uint16_t flags;
} text_ops[] = {
    {"ld", TRACE_READ},
    {"st", TRACE_WRITE},
    {"atom", TRACE_READ | TRACE_WRITE},
    {"atomx", TRACE_READ | TRACE_WRITE | TRACE_ATOM_EXCH},
    {"atomc", TRACE_READ | TRACE_WRITE | TRACE_ATOM_CAS},
    {"ldm", TRACE_READ | TRACE_MATRIX},
    {"stm", TRACE_WRITE | TRACE_MATRIX},
    {"cp", TRACE_WRITE | TRACE_ASYNC},               /* then LINES after WIDTH */
    {"cpx", TRACE_WRITE | TRACE_ASYNC | TRACE_ASYNC_SKEW},
    {"gl", TRACE_READ | TRACE_GLOBAL},
    {"gcp", TRACE_READ | TRACE_GLOBAL | TRACE_ASYNC},
    {"gs", TRACE_WRITE | TRACE_GLOBAL},
    {"ga", TRACE_READ | TRACE_WRITE | TRACE_GLOBAL}, /* a global atomic or reduction */
    {"bar", TRACE_BARRIER},
    {"sync", TRACE_SYNCWARP},
    {"acq", TRACE_ACQUIRE},   /* a warp acquires, releases, or both, the words ADDR... */
    {"rel", TRACE_RELEASE},   /* (the toolkit's: no access of the kernel's) */
    {"acqrel", TRACE_ACQUIRE | TRACE_RELEASE},
};

int trace_write_record(FILE *f, const trace_record *r)
{
    const char *op = NULL;
    for (size_t i = 0; i < sizeof text_ops / sizeof text_ops[0] && !op; i++)
        if (text_ops[i].flags == r->flags)
            op = text_ops[i].name;
    if (!op)
        return -1;
    if (r->flags & (TRACE_BARRIER | TRACE_SYNCWARP))
        return fprintf(f, "%s 0x%" PRIx64 " %u %u %08x\n", op, r->pc, r->block, r->warp,
                       r->active) < 0 ? -1 : 0;
    if (fprintf(f, "%s 0x%" PRIx64 " %u %u %u", op, r->pc, r->block, r->warp, r->width) < 0 ||
        ((r->flags & TRACE_ASYNC) && !(r->flags & TRACE_GLOBAL) && fprintf(f, " %u", r->lines) < 0) ||
        fprintf(f, " %08x", r->active) < 0)
        return -1;
    for (int lane = 0; lane < TRACE_LANES; lane++)
        if (r->active >> lane & 1u)
            fprintf(f, " %x", r->addr[lane]);
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* Next whitespace-separated field as an unsigned number in base; -1 if none. */
static int field(char **p, int base, uint64_t max, uint64_t *out)
{
    char *end;
    while (isspace((unsigned char)**p))
        (*p)++;
    if (!**p || **p == '-')
        return -1;
    uint64_t v = strtoull(*p, &end, base);
    if (end == *p || (*end && !isspace((unsigned char)*end)) || v > max)
        return -1;
    *out = v;
    *p = end;
    return 0;
}

trace_record *trace_read(FILE *f, const char *name, size_t *n, char *why, size_t why_size)
{
    trace_record *rec = NULL;
    size_t cap = 0, line_no = 0;
    char line[1024];

    *n = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        char *p = line, *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(why, why_size, "%s:%zu: line longer than %zu characters", name, line_no,
                     sizeof line - 1);
            goto bad;
        }
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            trace_record *nr = realloc(rec, ncap * sizeof *nr);
            if (!nr) {
                snprintf(why, why_size, "%s:%zu: out of memory", name, line_no);
                goto bad;
            }
            rec = nr;
            cap = ncap;
        }
        trace_record *r = &rec[*n];
        memset(r, 0, sizeof *r);
        char op[8] = "";
        int len = 0, is_bar = 0;
        if (sscanf(p, "%7s%n", op, &len) != 1)
            goto syntax;
        p += len;
        uint64_t pc, block, warp, width = 0, mask;
        int known = 0;
        for (size_t i = 0; i < sizeof text_ops / sizeof text_ops[0] && !known; i++)
            if (strcmp(op, text_ops[i].name) == 0) {
                r->flags = text_ops[i].flags;
                known = 1;
            }
        if (!known) {
            snprintf(why, why_size, "%s:%zu: unknown record '%s' (ld, st, atom, atomx, atomc, "
                     "ldm, stm, cp, cpx, gl, gcp, gs, ga, bar, sync, acq, rel or acqrel)", name,
                     line_no, op);
            goto bad;
        }
        is_bar = r->flags == TRACE_BARRIER || r->flags == TRACE_SYNCWARP;
        int has_lines = (r->flags & TRACE_ASYNC) && !(r->flags & TRACE_GLOBAL);
        uint64_t lines = 0;
        if (field(&p, 16, UINT64_MAX, &pc) || field(&p, 10, UINT32_MAX, &block) ||
            field(&p, 10, UINT32_MAX, &warp) ||
            (!is_bar && field(&p, 10, 16, &width)) || (has_lines && field(&p, 10, 32, &lines)) ||
            field(&p, 16, UINT32_MAX, &mask))
            goto syntax;
        r->lines = (uint8_t)lines;
        r->pc = pc;
        r->block = (uint32_t)block;
        r->warp = (uint32_t)warp;
        r->width = (uint8_t)width;
        r->active = (uint32_t)mask;
        if (!is_bar) {
            for (int lane = 0; lane < TRACE_LANES; lane++) {
                uint64_t a;
                if (!(r->active >> lane & 1u))
                    continue;
                if (field(&p, 16, UINT32_MAX, &a)) {
                    snprintf(why, why_size, "%s:%zu: mask %08x has lane %d active but the line "
                             "gives no address for it", name, line_no, r->active, lane);
                    goto bad;
                }
                r->addr[lane] = (uint32_t)a;
            }
        }
        while (isspace((unsigned char)*p))
            p++;
        if (*p) {
            snprintf(why, why_size, "%s:%zu: more fields than the mask has active lanes", name,
                     line_no);
            goto bad;
        }
        (*n)++;
        continue;
syntax:
        snprintf(why, why_size, "%s:%zu: expected '%s PC BLOCK WARP%s MASK%s' (hex PC, MASK, "
                 "ADDR; decimal BLOCK, WARP, WIDTH, LINES)", name, line_no, op,
                 is_bar ? "" : strcmp(op, "cp") && strcmp(op, "cpx") ? " WIDTH" : " WIDTH LINES",
                 is_bar ? "" : " ADDR...");
        goto bad;
    }
    if (ferror(f)) {
        snprintf(why, why_size, "%s: read error", name);
        goto bad;
    }
    if (!rec) {
        snprintf(why, why_size, "%s: no records", name);
        goto bad;
    }
    return rec;
bad:
    free(rec);
    *n = 0;
    return NULL;
}
