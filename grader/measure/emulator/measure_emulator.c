/*
 * measure_emulator.c - the emulator as a measuring backend: every shared
 * access, barrier and global load of the launches a measurement makes, as
 * the PTX machine (grader/ptx/) records them, turned into the records the
 * trace backend writes on a GPU (measure/access/trace_record.h) and analysed
 * a record at a time by measure/access/. Source lines come from the PTX's
 * .loc of each instruction.
 */
#include "emu_device.h"
#include "nc_written.h"

#include "../access/trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The machine's shared record is the trace's, field for field and flag for flag: one is
   copied into the other whole. */
#define SAME_FIELD(f) (offsetof(emu_shared_record, f) == offsetof(trace_record, f) && \
                       sizeof ((emu_shared_record *)0)->f == sizeof ((trace_record *)0)->f)
_Static_assert(sizeof(emu_shared_record) == sizeof(trace_record) && SAME_FIELD(pc) &&
               SAME_FIELD(block) && SAME_FIELD(warp) && SAME_FIELD(active) && SAME_FIELD(width) &&
               SAME_FIELD(lines) && SAME_FIELD(flags) && SAME_FIELD(addr),
               "emu_shared_record and trace_record differ in layout");
#define SAME_KIND(k) ((int)EMU_SYNC_##k == (int)TRACE_SYNC_##k)
_Static_assert(SAME_KIND(BARRIER_WARP) && SAME_KIND(BARRIER_BLOCK) && SAME_KIND(BARRIER_SPLIT) &&
               SAME_KIND(MASK_ABSENT) && SAME_KIND(MASK_SELF) && SAME_KIND(MASK_READ) &&
               EMU_SYNC_KINDS == 6 && EMU_BLOCK_WORDS == TRACE_BLOCK_WORDS,
               "the machine's synchronisation errors are not the trace's");
_Static_assert(EMU_REC_READ == TRACE_READ && EMU_REC_WRITE == TRACE_WRITE &&
               EMU_REC_BARRIER == TRACE_BARRIER && EMU_REC_ASYNC == TRACE_ASYNC &&
               EMU_REC_MATRIX == TRACE_MATRIX && EMU_REC_ATOM_EXCH == TRACE_ATOM_EXCH &&
               EMU_REC_ATOM_CAS == TRACE_ATOM_CAS && EMU_REC_ASYNC_SKEW == TRACE_ASYNC_SKEW &&
               EMU_REC_SYNCWARP == TRACE_SYNCWARP && EMU_REC_SHFL == TRACE_SHFL &&
               EMU_REC_ACQUIRE == TRACE_ACQUIRE && EMU_REC_RELEASE == TRACE_RELEASE &&
               EMU_RECORD_LANES == TRACE_LANES,
               "the machine's record flags are not the trace's");

/*
 * Lab 10's lesson is served from constant memory where the outputs are made: a warp that
 * stores outputs having made no constant load of its own got its coefficients from
 * somewhere else (shared memory one thread filled, another warp). An open-addressing set
 * of the measured launches' warps, keyed by launch, block and warp, with what each did.
 */
enum { WARP_STORED = 1, WARP_CONST = 2, WARP_WATCH = 4 };
typedef struct warp_set {
    uint64_t *key; /* (launch | block) << 32 | warp, + 1 (0: an empty slot) */
    unsigned char *did;
    size_t cap, n;
    int failed; /* out of memory: the counts are not given (0 warps) */
} warp_set;

static void warp_set_clear(warp_set *w)
{
    free(w->key), free(w->did);
    memset(w, 0, sizeof *w);
}

static int warp_set_grow(warp_set *w)
{
    size_t cap = w->cap ? 2 * w->cap : 1024;
    uint64_t *key = calloc(cap, sizeof *key);
    unsigned char *did = calloc(cap, 1);
    if (!key || !did) {
        free(key), free(did);
        return -1;
    }
    for (size_t i = 0; i < w->cap; i++) {
        if (!w->key[i])
            continue;
        size_t h = (size_t)(w->key[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (key[h])
            h = (h + 1) & (cap - 1);
        key[h] = w->key[i], did[h] = w->did[i];
    }
    free(w->key), free(w->did);
    w->key = key, w->did = did, w->cap = cap;
    return 0;
}

static void warp_set_mark(warp_set *w, uint32_t block, uint32_t warp, unsigned char what)
{
    if (w->failed || (2 * (w->n + 1) > w->cap && warp_set_grow(w) != 0)) {
        w->failed = 1;
        return;
    }
    uint64_t k = ((uint64_t)block << 32 | warp) + 1;
    size_t h = (size_t)(k * 0x9E3779B97F4A7C15ull) & (w->cap - 1);
    while (w->key[h] && w->key[h] != k)
        h = (h + 1) & (w->cap - 1);
    w->n += !w->key[h];
    w->key[h] = k;
    w->did[h] |= what;
}

/* Warps that stored to global memory, and of them those that loaded no constant, and
   those that loaded nothing of the watched range. */
static void warp_set_count(const warp_set *w, double *stored, double *no_const,
                           double *no_watch)
{
    *stored = *no_const = *no_watch = 0;
    for (size_t i = 0; i < w->cap && !w->failed; i++)
        if (w->did[i] & WARP_STORED) {
            *stored += 1;
            *no_const += !(w->did[i] & WARP_CONST);
            *no_watch += !(w->did[i] & WARP_WATCH);
        }
}

typedef struct emu_meter {
    trace_analyzer *analyzer;
    int failed;
    char why[256];
    unsigned long long global_loads; /* warp-level global load instructions */
    unsigned long long global_stores, shuffles; /* ... store and shfl.sync instructions */
    unsigned long long global_atomics; /* ... global atomics and reductions (atom, red) */
    unsigned long long sectors[2], ideal[2];    /* of the global loads [0] and stores [1] */
    unsigned long long const_loads, const_addresses; /* ld.const: requests, distinct addresses */
    unsigned long long const_lanes;                  /* ... and the lanes they served */
    unsigned long long const_slices;                 /* ... and those that read a slice */
    warp_set warps; /* the warps that stored to global memory, or loaded constant memory */
    unsigned long long watch_plain, watch_nc; /* global loads of the watched range */
    unsigned long long watch_lanes, watch_slices; /* their lanes, and those reading a slice */
    trace_summary last;
    int have_last;
    char function[256];
    trace_sync sync[TRACE_SYNC_MAX]; /* the measured launches' synchronisation errors */
    int n_sync;
    long sync_count;
    trace_oob oob; /* the measured launches' first access out of bounds */
    long oob_count;
    trace_oob input_write; /* ... first store or atomic into an input (measure_inputs) */
    long input_writes;     /* ... lanes that made one */
    nc_written *nc;        /* ... words read through the read-only cache and written */
    int banks_of;  /* the launch (emu_device_launches) whose banks the analyzer counts by */
} emu_meter;

static emu_meter meter;

static uint64_t watch_lo, watch_hi; /* measure_watch_range; hi 0: none */

void measure_watch_range(const void *lo, size_t bytes)
{
    watch_lo = (uint64_t)(uintptr_t)lo;
    watch_hi = bytes ? watch_lo + bytes : 0;
}

static unsigned long long input_lo[MEASURE_MAX_INPUTS], input_hi[MEASURE_MAX_INPUTS];
static int n_inputs; /* measure_inputs */

void measure_inputs(const unsigned long long *lo, const unsigned long long *hi, int n)
{
    n_inputs = n < 0 ? 0 : n > MEASURE_MAX_INPUTS ? MEASURE_MAX_INPUTS : n;
    for (int i = 0; i < n_inputs; i++)
        input_lo[i] = lo[i], input_hi[i] = hi[i];
}

/* Distinct addresses among the active lanes: the passes the constant cache makes. */
static unsigned distinct_addresses(const emu_global_record *g)
{
    unsigned n = 0;
    for (int l = 0; l < EMU_RECORD_LANES; l++) {
        int seen = 0;
        if (!(g->active >> l & 1u))
            continue;
        for (int k = 0; k < l && !seen; k++)
            seen = (g->active >> k & 1u) && g->addr[k] == g->addr[l];
        n += !seen;
    }
    return n;
}

/* A request that reads a slice of an array, not words chosen by data: 8 lanes or more,
   each a different address, evenly spaced once sorted (lane l reads base + l * stride, or
   any order of those). Keys drawn at random do that almost never. */
static int reads_a_slice(const emu_global_record *g)
{
    uint64_t a[EMU_RECORD_LANES];
    int n = 0;
    for (int l = 0; l < EMU_RECORD_LANES; l++)
        if (g->active >> l & 1u) {
            int at = n++;
            for (; at > 0 && a[at - 1] > g->addr[l]; at--)
                a[at] = a[at - 1];
            a[at] = g->addr[l];
        }
    if (n < 8 || a[1] == a[0])
        return 0;
    for (int i = 2; i < n; i++)
        if (a[i] - a[i - 1] != a[1] - a[0])
            return 0;
    return 1;
}

/* A load of the watched range: every active lane inside it. */
static int watched(const emu_global_record *g)
{
    if (!watch_hi || !g->active)
        return 0;
    for (int l = 0; l < EMU_RECORD_LANES; l++)
        if ((g->active >> l & 1u) && (g->addr[l] < watch_lo || g->addr[l] >= watch_hi))
            return 0;
    return 1;
}

/* The launch a record belongs to, in its block's high bits, as the trace backend
   marks them: launches never race with each other (a kernel launched twice), and each
   is held to its own shared memory. */
static uint32_t launch_bits(void)
{
    int n = emu_device_launches();
    return n > 0 ? (uint32_t)(n - 1) << TRACE_LAUNCH_SHIFT : 0;
}

static void on_shared(void *ctx, const emu_shared_record *r)
{
    emu_meter *m = ctx;
    if (r->flags & EMU_REC_SHFL) { /* counted; nothing for the analysis */
        m->shuffles++;
        return;
    }
    trace_record x;
    memcpy(&x, r, sizeof x);
    x.block |= launch_bits();
    if (m->banks_of != emu_device_launches()) { /* a launch of its own bank mode (Kepler) */
        bank_geometry g;
        emu_device_banks(&g);
        m->banks_of = emu_device_launches();
        if (m->analyzer)
            trace_analyzer_geometry(m->analyzer, &g);
    }
    if (!m->failed && trace_analyzer_add(m->analyzer, &x, m->why, sizeof m->why) != 0)
        m->failed = 1;
}

/* The machine's error in the trace's words, field for field. */
static void to_trace_sync(const emu_sync_error *e, trace_sync *t)
{
    memset(t, 0, sizeof *t);
    t->kind = e->kind;
    t->text = e->text;
    t->pc = e->pc;
    t->file = e->file;
    t->line = e->line;
    t->call_file = e->call_file;
    t->call_line = e->call_line;
    t->caller_line = e->caller_line;
    t->other_pc = e->other_pc;
    t->other_file = e->other_file;
    t->other_line = e->other_line;
    t->branch_pc = e->branch_pc;
    t->branch_file = e->branch_file;
    t->branch_line = e->branch_line;
    t->block = e->block;
    memcpy(t->ctaid, e->ctaid, sizeof t->ctaid);
    t->threads = e->threads;
    t->warp = e->warp;
    t->mask = e->mask;
    t->lanes = e->lanes;
    t->missing = e->missing;
    t->gone = e->gone;
    memcpy(t->reached, e->reached, sizeof t->reached);
    memcpy(t->skipped, e->skipped, sizeof t->skipped);
}

/* A synchronisation error of a measured launch, kept for the summary: the first few. */
static void on_sync(void *ctx, const emu_sync_error *e)
{
    emu_meter *m = ctx;
    m->sync_count++;
    if (m->n_sync < TRACE_SYNC_MAX)
        to_trace_sync(e, &m->sync[m->n_sync++]);
}

/* The machine's access out of bounds in the trace's words, its array named (dev_name). */
static void to_trace_oob(const emu_oob *e, const char *array, trace_oob *t)
{
    int read = (e->flags & EMU_REC_READ) != 0, write = (e->flags & EMU_REC_WRITE) != 0;
    memset(t, 0, sizeof *t);
    t->pc = e->pc;
    t->file = e->file, t->line = e->line;
    t->call_file = e->call_file, t->call_line = e->call_line;
    t->op = read && write ? TRACE_OP_ATOMIC : write ? TRACE_OP_STORE : TRACE_OP_LOAD;
    t->addr = e->addr;
    t->width = e->width;
    t->block = e->block, t->warp = e->warp, t->lane = e->lane;
    t->base = e->base, t->bytes = e->size;
    snprintf(t->array, sizeof t->array, "%s", array ? array : "");
}

/* A measured launch's access out of bounds: the first kept, its array named now (it is
   freed later), every lane counted. */
static void on_oob(void *ctx, const emu_oob *e)
{
    emu_meter *m = ctx;
    dev_array a;
    if (m->oob_count++ == 0)
        to_trace_oob(e, dev_array_at(e->base, &a) ? a.name : "", &m->oob);
}

/* The first access out of bounds of the kernel's runs before this measurement, else of
   the measured launch, and how many lanes made one in all, into the summary. */
static void keep_oob(emu_meter *m, trace_summary *s)
{
    emu_oob before;
    char array[DEV_NAME_BYTES];
    long count = 0;
    const emu_module *mod;
    const char *name;
    int k;
    if (emu_device_last_launch(&mod, &k, &name) == 0 &&
        emu_device_take_oob(mod, k, &before, array, &count))
        to_trace_oob(&before, array, &s->oob);
    else if (m->oob_count > 0)
        s->oob = m->oob;
    s->oob_count = count + m->oob_count;
}

/* The errors of the kernel's runs before this measurement (its correctness runs, on
   other sizes: edges the measured launch may not have), then the measured launch's,
   into the summary (which frees them). 0, or -1 out of memory. */
static int keep_sync(emu_meter *m, trace_summary *s)
{
    emu_sync_error before[TRACE_SYNC_MAX];
    long count = 0;
    const emu_module *mod;
    const char *name;
    int k, n = 0;
    if (emu_device_last_launch(&mod, &k, &name) == 0)
        n = emu_device_take_sync(mod, k, before, TRACE_SYNC_MAX, &count);
    s->sync_count = m->sync_count + count;
    if (n + m->n_sync == 0)
        return 0;
    s->sync = malloc(TRACE_SYNC_MAX * sizeof *s->sync);
    if (!s->sync)
        return -1;
    for (int i = 0; i < n; i++)
        to_trace_sync(&before[i], &s->sync[s->n_sync++]);
    for (int i = 0; i < m->n_sync && s->n_sync < TRACE_SYNC_MAX; i++) {
        int seen = 0; /* the measured launch met it again */
        for (int j = 0; j < n && !seen; j++)
            seen = s->sync[j].kind == m->sync[i].kind && s->sync[j].pc == m->sync[i].pc;
        if (!seen)
            s->sync[s->n_sync++] = m->sync[i];
    }
    return 0;
}

/* A plain global load or store (not an atomic, not cp.async's source) into the kernel's
   sector totals, by the sector model the trace's patches count by too. */
static void count_sectors(emu_meter *m, const emu_global_record *g, int store)
{
    global_access a;
    a.active = g->active;
    a.width = g->width;
    for (int lane = 0; lane < SECTOR_LANES; lane++)
        a.addr[lane] = g->addr[lane];
    m->sectors[store] += (unsigned long long)sector_count(&a);
    m->ideal[store] += (unsigned long long)sector_ideal(&a);
}

/* The array that holds an access, named now (it is freed later). */
static void name_array(trace_oob *t)
{
    dev_array a;
    if (dev_array_at(t->addr, &a)) {
        t->base = a.base, t->bytes = a.bytes;
        snprintf(t->array, sizeof t->array, "%s", a.name);
    }
}

/* Lane `lane` of a global record as the summary names an access. */
static void access_of(const emu_global_record *g, int lane, trace_oob *t)
{
    int read = (g->flags & EMU_REC_READ) != 0, write = (g->flags & EMU_REC_WRITE) != 0;
    memset(t, 0, sizeof *t);
    t->pc = g->pc;
    t->op = read && write ? TRACE_OP_ATOMIC : write ? TRACE_OP_STORE : TRACE_OP_LOAD;
    t->addr = g->addr[lane];
    t->width = g->width;
    t->block = g->block, t->warp = g->warp, t->lane = (uint32_t)lane;
}

/* A store or an atomic into an input (measure_inputs): every lane counted, the first kept. */
static void note_input_writes(emu_meter *m, const emu_global_record *g)
{
    for (int lane = 0; lane < EMU_RECORD_LANES; lane++) {
        if (!(g->active >> lane & 1u))
            continue;
        for (int i = 0; i < n_inputs; i++)
            if (g->addr[lane] < input_hi[i] && g->addr[lane] + g->width > input_lo[i]) {
                if (m->input_writes++ == 0) {
                    access_of(g, lane, &m->input_write);
                    name_array(&m->input_write);
                }
                break;
            }
    }
}

/* Every lane of an nc load or a global write, into the words read through the read-only
   cache and written (nc_written.h); out of memory, the words stop being followed. */
static void note_nc_words(emu_meter *m, const emu_global_record *g)
{
    trace_oob a;
    uint32_t launch = (uint32_t)emu_device_launches();
    for (int lane = 0; lane < EMU_RECORD_LANES && m->nc; lane++) {
        if (!(g->active >> lane & 1u))
            continue;
        access_of(g, lane, &a);
        if (nc_written_add(m->nc, launch, &a) < 0) {
            nc_written_free(m->nc);
            m->nc = NULL;
        }
    }
}

/* Global loads, stores and atomics: counted, the sectors of loads and stores too, and
   those of the first blocks analysed address by address as the trace's patches record them
   (the low half of each). An atomic (READ and WRITE) is a side of its own, as Nsight
   Compute counts it: a read-modify-write of global memory, neither a load nor a store. */
static void on_global(void *ctx, const emu_global_record *g)
{
    emu_meter *m = ctx;
    if (g->flags & EMU_REC_CONST) { /* constant memory: counted apart, never a global load */
        m->const_loads++;
        m->const_addresses += distinct_addresses(g);
        m->const_lanes += (unsigned long long)__builtin_popcount(g->active);
        m->const_slices += (unsigned long long)reads_a_slice(g);
        warp_set_mark(&m->warps, g->block | launch_bits(), g->warp, WARP_CONST);
        return;
    }
    int read = (g->flags & EMU_REC_READ) != 0, write = (g->flags & EMU_REC_WRITE) != 0;
    int async = (g->flags & EMU_REC_ASYNC) != 0, atomic = read && write;
    if (!read && !write)
        return;
    if (write && g->active) /* an atomic writes its output as a store does (lab 10) */
        warp_set_mark(&m->warps, g->block | launch_bits(), g->warp, WARP_STORED);
    if (write && n_inputs)
        note_input_writes(m, g);
    if (write || (g->flags & EMU_REC_NC))
        note_nc_words(m, g);
    if (atomic)
        m->global_atomics++;
    else if (write)
        m->global_stores++;
    else
        m->global_loads++;
    if (!write && watched(g)) {
        ++*(g->flags & EMU_REC_NC ? &m->watch_nc : &m->watch_plain);
        m->watch_lanes += (unsigned long long)__builtin_popcount(g->active);
        m->watch_slices += (unsigned long long)reads_a_slice(g);
        warp_set_mark(&m->warps, g->block | launch_bits(), g->warp, WARP_WATCH);
    }
    if (!async && !atomic && g->active)
        count_sectors(m, g, write);
    if (g->block >= TRACE_GLOBAL_BLOCKS || m->failed || !g->active)
        return; /* (a cp.async whose lanes all read nothing is a request all the same) */
    trace_record r;
    memset(&r, 0, sizeof r);
    r.pc = g->pc;
    r.block = g->block | launch_bits();
    r.warp = g->warp;
    r.active = g->active;
    r.width = (uint8_t)g->width;
    r.flags = (uint16_t)((write ? TRACE_WRITE : 0) | (read ? TRACE_READ : 0) | TRACE_GLOBAL |
                         (async ? TRACE_ASYNC : 0));
    for (int lane = 0; lane < TRACE_LANES; lane++)
        r.addr[lane] = (uint32_t)g->addr[lane];
    if (trace_analyzer_add(m->analyzer, &r, m->why, sizeof m->why) != 0)
        m->failed = 1;
}

/* The measured launches' writes into an input and words read through the read-only
   cache and written, into the summary; the words let go. */
static void keep_inputs(emu_meter *m, trace_summary *s)
{
    s->input_write_count = m->input_writes;
    if (m->input_writes > 0)
        s->input_write = m->input_write;
    s->nc_written_count = nc_written_count(m->nc);
    if (s->nc_written_count > 0) {
        s->nc_load = *nc_written_load(m->nc);
        s->nc_write = *nc_written_write(m->nc);
        name_array(&s->nc_load);
        name_array(&s->nc_write);
    }
    nc_written_free(m->nc);
    m->nc = NULL;
}

static measure_status emu_open(measure_backend *self, char *why, size_t n)
{
    (void)self, (void)why, (void)n;
    return MEASURE_OK;
}

/* Name every site and race by the PTX line of its instruction. */
static void attribute(trace_summary *s)
{
    const emu_module *mod;
    const char *name;
    int k;
    if (emu_device_last_launch(&mod, &k, &name) != 0)
        return;
    snprintf(meter.function, sizeof meter.function, "%s", name);
    for (int i = 0; i < s->n_sites; i++)
        emu_line(mod, k, s->sites[i].pc, &s->sites[i].file, &s->sites[i].line);
    for (int i = 0; i < s->global.n; i++) /* (an atomic's or __ldg's header at the student's
                                              line, as the trace's line table names it) */
        emu_student_line(mod, k, s->global.v[i].pc, &s->global.v[i].file, &s->global.v[i].line);
    for (int i = 0; i < s->n_races; i++) {
        emu_line(mod, k, s->races[i].pc_a, &s->races[i].file_a, &s->races[i].line_a);
        emu_line(mod, k, s->races[i].pc_b, &s->races[i].file_b, &s->races[i].line_b);
    }
    if (s->input_write_count > 0) /* (an atomic's intrinsic at the student's line) */
        emu_student_line(mod, k, s->input_write.pc, &s->input_write.file, &s->input_write.line);
    if (s->nc_written_count > 0) { /* (__ldg's at the line that called it) */
        emu_student_line(mod, k, s->nc_load.pc, &s->nc_load.file, &s->nc_load.line);
        emu_student_line(mod, k, s->nc_write.pc, &s->nc_write.file, &s->nc_write.line);
    }
}

static measure_status emu_measure(measure_backend *self, void (*launch)(void *), void *arg,
                                  measurement *out, char *why, size_t n)
{
    emu_meter *m = self->state;
    bank_geometry g;
    emu_sink sink = {m, on_shared, on_global, on_sync, on_oob};
    measure_clear(out);
    if (m->have_last)
        trace_summary_free(&m->last);
    m->have_last = 0;
    m->failed = 0;
    m->global_loads = m->global_stores = m->global_atomics = m->shuffles = 0;
    memset(m->sectors, 0, sizeof m->sectors);
    memset(m->ideal, 0, sizeof m->ideal);
    m->const_loads = m->const_addresses = m->const_lanes = m->const_slices = 0;
    m->watch_plain = m->watch_nc = m->watch_lanes = m->watch_slices = 0;
    warp_set_clear(&m->warps);
    m->n_sync = 0;
    m->sync_count = 0;
    m->oob_count = 0;
    m->input_writes = 0;
    nc_written_free(m->nc);
    m->nc = nc_written_new(); /* NULL: the words are not followed */
    emu_device_banks(&g); /* 32 banks of 4 bytes as on every GPU the kit runs on, or the
                             GPU graded as (--gpu: each launch its own, on_shared) */
    m->banks_of = 0;
    if (!(m->analyzer = trace_analyzer_new(&g))) {
        snprintf(why, n, "out of memory starting the analysis");
        return MEASURE_ERROR;
    }
    emu_device_record(&sink);
    dev_last_error();
    launch(arg);
    cudaError_t err = dev_last_error();
    int launches = emu_device_launches();
    emu_device_record(NULL);
    if (err != cudaSuccess || m->failed || launches == 0) {
        trace_analyzer_free(m->analyzer);
        m->analyzer = NULL;
        snprintf(why, n, "%s", err != cudaSuccess ? dev_error_text(err)
                               : m->failed ? m->why : "no kernel ran while it was measured");
        return launches == 0 && err == cudaSuccess ? MEASURE_NO_KERNEL : MEASURE_ERROR;
    }
    if (trace_analyzer_finish(m->analyzer, &m->last, why, n) != 0) {
        m->analyzer = NULL;
        return MEASURE_ERROR;
    }
    m->analyzer = NULL;
    m->have_last = 1;
    if (keep_sync(m, &m->last) != 0) {
        snprintf(why, n, "out of memory keeping the synchronisation errors");
        return MEASURE_ERROR;
    }
    keep_oob(m, &m->last);
    keep_inputs(m, &m->last);
    attribute(&m->last);
    trace_to_measurement(&m->last, out);
    out->value[METRIC_GLOBAL_LD_REQUESTS] = (double)m->global_loads;
    out->value[METRIC_GLOBAL_ST_REQUESTS] = (double)m->global_stores;
    out->value[METRIC_GLOBAL_ATOM_REQUESTS] = (double)m->global_atomics;
    out->value[METRIC_SHUFFLES] = (double)m->shuffles;
    out->value[METRIC_GLOBAL_LD_SECTORS] = (double)m->sectors[0];
    out->value[METRIC_GLOBAL_ST_SECTORS] = (double)m->sectors[1];
    out->value[METRIC_GLOBAL_LD_IDEAL] = (double)m->ideal[0];
    out->value[METRIC_GLOBAL_ST_IDEAL] = (double)m->ideal[1];
    out->value[METRIC_CONST_LD_REQUESTS] = (double)m->const_loads;
    out->value[METRIC_CONST_LD_ADDRESSES] = (double)m->const_addresses;
    out->value[METRIC_WATCH_LD_PLAIN] = (double)m->watch_plain;
    out->value[METRIC_WATCH_LD_NC] = (double)m->watch_nc;
    out->value[METRIC_CONST_LD_LANES] = (double)m->const_lanes;
    out->value[METRIC_CONST_LD_SLICES] = (double)m->const_slices;
    out->value[METRIC_WATCH_LD_LANES] = (double)m->watch_lanes;
    out->value[METRIC_WATCH_LD_SLICES] = (double)m->watch_slices;
    warp_set_count(&m->warps, &out->value[METRIC_STORE_WARPS],
                   &out->value[METRIC_STORE_WARPS_NO_CONST],
                   &out->value[METRIC_STORE_WARPS_NO_WATCH]);
    warp_set_clear(&m->warps);
    return MEASURE_OK;
}

static void emu_close(measure_backend *self)
{
    emu_meter *m = self->state;
    nc_written_free(m->nc);
    m->nc = NULL;
    if (m->have_last)
        trace_summary_free(&m->last);
    m->have_last = 0;
}

static const trace_summary *emu_last(measure_backend *self, const char **function)
{
    emu_meter *m = self->state;
    if (function)
        *function = m->function;
    return m->have_last ? &m->last : NULL;
}

measure_backend *measure_emulator_backend(void)
{
    static measure_backend backend = {"emulator", emu_open, emu_measure, emu_close, &meter,
                                      emu_last, 0};
    return &backend;
}
