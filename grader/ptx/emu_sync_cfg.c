/*
 * emu_sync_cfg.c - what the synchronisation checks need to know of a linked
 * program, worked out once when a kernel is linked (docs/emulator.md#sync).
 *
 * exitish: the instructions that only lead out of the kernel (exit, the
 * kernel's ret, a device function's ret whose every caller then leaves,
 * branches to them). Lanes that wait at one do nothing more: a thread that
 * returned early, whose lanes the warp has not retired yet, is as good as
 * exited for a barrier or a member mask (ptxas makes such a return an exit
 * before the barrier).
 *
 * after: for each instruction that observes or joins what a barrier orders
 * (a shared access, a global load or atomic, a barrier, a warp primitive),
 * the block-wide barriers it lies strictly after: it can be reached from the
 * barrier, and the barrier cannot be reached from it. Along any path these
 * sets only grow, so the union over what a thread ran says which barriers it
 * went past and read or synchronised beyond: a thread that skipped a barrier
 * instance and did that ran on without waiting, where one that skipped it to
 * store its results and leave is as good as exited.
 *
 * The flow graph spans the calls: a call reaches its callee and the
 * instruction after it; a device function's ret reaches every instruction
 * after a call to it (context-insensitive: more is reachable, so fewer
 * instructions are "strictly after", never more).
 */
#include "emu_internal.h"

#include <stdlib.h>
#include <string.h>

/* The skip check follows at most EMU_MAX_BARS barriers, and not in code so large that
   following them would cost more than this many instruction visits. */
#define AFTER_WORK_LIMIT (UINT64_C(1) << 26)
#define EXITISH_PASSES 64

typedef struct graph {
    uint32_t n;
    uint32_t *first, *to;     /* successors of i: to[first[i] .. first[i + 1]) */
    uint32_t *rfirst, *rto;   /* predecessors, the same way */
    uint32_t *starts;         /* the first instruction of each function, sorted */
    uint32_t n_starts;
    uint32_t *cfirst, *cont;  /* function s (an index in starts) returns to the
                                 instructions cont[cfirst[s] .. cfirst[s + 1]) */
} graph;

static void graph_free(graph *g)
{
    free(g->first);
    free(g->to);
    free(g->rfirst);
    free(g->rto);
    free(g->starts);
    free(g->cfirst);
    free(g->cont);
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The index in starts of the function pc belongs to (0: the kernel). */
static uint32_t owner_index(const graph *g, uint32_t pc)
{
    uint32_t lo = 0, hi = g->n_starts; /* starts[0] == 0 */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (g->starts[mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t owner(const graph *g, uint32_t pc)
{
    return g->starts[owner_index(g, pc)];
}

/* Each function a call instruction at pc may run, by its index in starts: visit(s). */
#define FOR_CALLEES(p, g, pc, s, ...)                                                     \
    do {                                                                                \
        const emu_call *c_ = (p)->code[pc].aux < (p)->n_calls ? &(p)->calls[(p)->code[pc].aux] \
                                                               : NULL;                  \
        uint32_t n_ = c_ && c_->kind == CALL_INDIRECT ? c_->n_alts : c_ ? 1 : 0;          \
        for (uint32_t a_ = 0; a_ < n_; a_++) {                                          \
            const emu_call *t_ = c_->kind == CALL_INDIRECT ? &(p)->calls[c_->first_alt + a_] \
                                                           : c_;                         \
            if (t_->kind != CALL_CODE || t_->target >= (p)->n_code)                     \
                continue;                                                               \
            uint32_t s = owner_index(g, t_->target);                                    \
            __VA_ARGS__;                                                                \
        }                                                                               \
    } while (0)

/* Where each function returns to: after every call that may run it. */
static int collect_returns(const emu_program *p, graph *g)
{
    g->cfirst = calloc(g->n_starts + 2, sizeof(uint32_t));
    if (!g->cfirst)
        return -1;
    uint64_t total = 0;
    for (uint32_t pc = 0; pc < p->n_code; pc++)
        if (p->code[pc].op == OP_CALL)
            FOR_CALLEES(p, g, pc, s, g->cfirst[s + 2]++; total++);
    if (total > UINT32_MAX / 2)
        return -1;
    for (uint32_t s = 0; s < g->n_starts; s++)
        g->cfirst[s + 2] += g->cfirst[s + 1];
    g->cont = malloc((total + 1) * sizeof(uint32_t));
    if (!g->cont)
        return -1;
    for (uint32_t pc = 0; pc < p->n_code; pc++)
        if (p->code[pc].op == OP_CALL)
            FOR_CALLEES(p, g, pc, s, g->cont[g->cfirst[s + 1]++] = pc + 1);
    return 0;
}

static int collect_starts(const emu_program *p, graph *g)
{
    g->starts = malloc((p->n_calls + 2) * sizeof(uint32_t));
    if (!g->starts)
        return -1;
    g->starts[g->n_starts++] = 0;
    for (uint32_t c = 0; c < p->n_calls; c++)
        if (p->calls[c].kind == CALL_CODE && p->calls[c].target < p->n_code)
            g->starts[g->n_starts++] = p->calls[c].target;
    qsort(g->starts, g->n_starts, sizeof(uint32_t), by_value);
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n_starts; i++)
        if (k == 0 || g->starts[k - 1] != g->starts[i])
            g->starts[k++] = g->starts[i];
    g->n_starts = k;
    return 0;
}

/* Successors of pc into out (count them when out is NULL); returns how many. */
static uint32_t successors(const emu_program *p, const graph *g, uint32_t pc, uint32_t *out)
{
    const ptx_instr *in = &p->code[pc];
    int guarded = in->guard != PTX_NONE, next = pc + 1 < p->n_code;
    uint32_t n = 0;
#define ADD(t) do { if ((t) < p->n_code) { if (out) out[n] = (t); n++; } } while (0)
    switch (in->op) {
    case OP_BRA:
        ADD(in->o[0].r);
        break;
    case OP_BRX:
        if (in->aux < p->n_tables)
            for (uint32_t e = 0; e < p->tables[in->aux].n; e++)
                ADD(p->tables[in->aux].targets[e]);
        break;
    case OP_CALL:
        FOR_CALLEES(p, g, pc, s, ADD(g->starts[s]));
        guarded = 1; /* the call comes back after its callee */
        break;
    case OP_RET: {
        uint32_t s = owner_index(g, pc);
        for (uint32_t e = g->cfirst[s]; s != 0 && e < g->cfirst[s + 1]; e++)
            ADD(g->cont[e]);
        break;
    }
    case OP_EXIT:
    case OP_TRAP:
        break;
    default:
        guarded = 1;
    }
    if (guarded && next)
        ADD(pc + 1);
#undef ADD
    return n;
}

static int build_graph(const emu_program *p, graph *g)
{
    uint32_t n = p->n_code;
    g->n = n;
    if (collect_starts(p, g) || collect_returns(p, g))
        return -1;
    g->first = malloc((n + 1) * sizeof(uint32_t));
    g->rfirst = calloc(n + 2, sizeof(uint32_t));
    if (!g->first || !g->rfirst)
        return -1;
    uint64_t edges = 0;
    for (uint32_t i = 0; i < n; i++) {
        g->first[i] = (uint32_t)edges;
        edges += successors(p, g, i, NULL);
        if (edges > UINT32_MAX / 2)
            return -1;
    }
    g->first[n] = (uint32_t)edges;
    g->to = malloc((edges + 1) * sizeof(uint32_t));
    g->rto = malloc((edges + 1) * sizeof(uint32_t));
    if (!g->to || !g->rto)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        successors(p, g, i, g->to + g->first[i]);
    for (uint32_t e = 0; e < edges; e++) /* predecessors: counted, summed, placed */
        g->rfirst[g->to[e] + 2]++;
    for (uint32_t i = 0; i < n; i++)
        g->rfirst[i + 2] += g->rfirst[i + 1];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t e = g->first[i]; e < g->first[i + 1]; e++)
            g->rto[g->rfirst[g->to[e] + 1]++] = i;
    return 0;
}

/* The least fixpoint: control instructions whose every successor leaves (none: exit,
   the kernel's ret) leave too; a loop of branches never leaves. */
static void mark_exitish(emu_program *p, const graph *g)
{
    for (int pass = 0, changed = 1; changed && pass < EXITISH_PASSES; pass++) {
        changed = 0;
        for (uint32_t i = g->n; i-- > 0;) {
            uint16_t op = p->code[i].op;
            if (p->exitish[i] || (op != OP_BRA && op != OP_BRX && op != OP_RET && op != OP_EXIT))
                continue;
            if ((p->code[i].flags & PF_UNSUPPORTED) != 0)
                continue;
            int all = 1;
            for (uint32_t e = g->first[i]; e < g->first[i + 1] && all; e++)
                all = p->exitish[g->to[e]];
            if (all) {
                p->exitish[i] = 1;
                changed = 1;
            }
        }
    }
}

/* An instruction that observes or joins what a barrier orders between threads. */
static int synchronised(const ptx_instr *in)
{
    switch (in->op) {
    case OP_LD:
    case OP_LDU:
        return in->space == PS_GLOBAL || in->space == PS_SHARED || in->space == PS_GENERIC;
    case OP_ST:
        return in->space == PS_SHARED || in->space == PS_GENERIC;
    case OP_ATOM:
    case OP_RED:
        return in->space != PS_LOCAL;
    case OP_CP_ASYNC: case OP_LDMATRIX: case OP_STMATRIX: case OP_BAR: case OP_BAR_WARP:
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_ELECT:
        return 1;
    default:
        return 0;
    }
}

static int block_wide(const ptx_instr *in)
{
    return in->op == OP_BAR && in->mod != PM_ARRIVE && in->o[2].kind == PO_NONE;
}

static int collect_barriers(emu_program *p, const graph *g)
{
    for (uint32_t i = 0; i < p->n_code; i++)
        p->n_bars += block_wide(&p->code[i]);
    p->bar_pc = malloc((p->n_bars + 1) * sizeof(uint32_t));
    p->bar_branch = malloc((p->n_bars + 1) * sizeof(uint32_t));
    if (!p->bar_pc || !p->bar_branch)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n_code; i++) {
        if (!block_wide(&p->code[i]))
            continue;
        /* the branch it is under: the nearest conditional branch before it, in its
           function, whose paths meet again only past it */
        uint32_t start = owner(g, i), branch = PTX_NONE;
        for (uint32_t c = i; c-- > start && branch == PTX_NONE;)
            if (p->code[c].op == OP_BRA && p->code[c].guard != PTX_NONE &&
                (p->reconv[c] == PTX_NONE || p->reconv[c] > i))
                branch = c;
        p->bar_pc[k] = i;
        p->bar_branch[k++] = branch;
    }
    return 0;
}

/* From barrier b's pc: what it reaches (forward, past it) and what reaches it. */
static void mark_after(emu_program *p, const graph *g, uint32_t b, uint8_t *fwd, uint8_t *bwd,
                       uint32_t *queue)
{
    uint32_t n = g->n, head = 0, tail = 0, at = p->bar_pc[b];
    memset(fwd, 0, n);
    memset(bwd, 0, n);
    for (uint32_t e = g->first[at]; e < g->first[at + 1]; e++)
        if (!fwd[g->to[e]])
            fwd[g->to[e]] = 1, queue[tail++] = g->to[e];
    while (head < tail) {
        uint32_t i = queue[head++];
        for (uint32_t e = g->first[i]; e < g->first[i + 1]; e++)
            if (!fwd[g->to[e]])
                fwd[g->to[e]] = 1, queue[tail++] = g->to[e];
    }
    head = tail = 0;
    bwd[at] = 1;
    queue[tail++] = at;
    while (head < tail) {
        uint32_t i = queue[head++];
        for (uint32_t e = g->rfirst[i]; e < g->rfirst[i + 1]; e++)
            if (!bwd[g->rto[e]])
                bwd[g->rto[e]] = 1, queue[tail++] = g->rto[e];
    }
    for (uint32_t i = 0; i < n; i++)
        if (fwd[i] && !bwd[i] && synchronised(&p->code[i]))
            p->after[i] |= UINT64_C(1) << b;
}

int emu_sync_cfg(emu_program *p)
{
    graph g;
    memset(&g, 0, sizeof g);
    int rc = -1;
    p->exitish = calloc(p->n_code + 1, 1);
    if (!p->exitish || build_graph(p, &g))
        goto done;
    mark_exitish(p, &g);
    if (collect_barriers(p, &g))
        goto done;
    uint32_t followed = p->n_bars < EMU_MAX_BARS ? p->n_bars : EMU_MAX_BARS;
    rc = 0;
    if (followed == 0 || (uint64_t)followed * (g.first[g.n] + g.n) > AFTER_WORK_LIMIT)
        goto done; /* nothing to follow, or too much: no skip check, never a wrong one */
    uint8_t *fwd = malloc(g.n + 1), *bwd = malloc(g.n + 1);
    uint32_t *queue = malloc((g.n + 1) * sizeof(uint32_t));
    p->after = calloc(g.n + 1, sizeof(uint64_t));
    if (fwd && bwd && queue && p->after)
        for (uint32_t b = 0; b < followed; b++)
            mark_after(p, &g, b, fwd, bwd, queue);
    else
        rc = -1;
    free(fwd);
    free(bwd);
    free(queue);
done:
    graph_free(&g);
    return rc;
}

int emu_bar_index(const emu_program *p, uint32_t pc)
{
    uint32_t lo = 0, hi = p->n_bars;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (p->bar_pc[mid] == pc)
            return (int)mid;
        if (p->bar_pc[mid] < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
