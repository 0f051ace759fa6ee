/*
 * ptx_cfg.c - basic blocks and immediate post-dominators of a function.
 *
 * A warp that diverges at a branch runs both paths and reconverges where
 * every path from the branch meets again: the immediate post-dominator of
 * the branch's block (docs/emulator.md#semantics). Post-dominators are the
 * dominators of the reversed graph, rooted at a virtual exit that every
 * ret/exit/trap (and falling off the end) leads to; they are computed with
 * the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
 * Dominance Algorithm"). A block that cannot reach the exit (an endless
 * loop) has no post-dominator: its branches reconverge nowhere (PTX_NONE).
 */
#include "ptx.h"

#include <stdlib.h>
#include <string.h>

typedef struct cfg {
    uint32_t n;          /* blocks; node n is the virtual exit */
    uint32_t *start;     /* first instruction of each block */
    uint32_t *block_of;  /* instruction -> block */
    uint32_t *succ_off, *succ; /* forward successors (n: the exit) */
    uint32_t *pred_off, *pred; /* forward predecessors, for the walk from the exit */
    uint32_t *order;     /* postorder number in the reversed graph, PTX_NONE: unreached */
    uint32_t *by_order;  /* node of each postorder number */
    uint32_t *ipdom;
} cfg;

static int is_terminator(const ptx_instr *in)
{
    return in->op == OP_BRA || in->op == OP_BRX || in->op == OP_RET || in->op == OP_EXIT ||
           in->op == OP_TRAP;
}

/* Instruction index of label operand, clamped: a label at the end of the body is the end. */
static uint32_t target_of(const ptx_func *f, uint32_t t)
{
    return t < f->n_code ? t : f->n_code;
}

static void mark_leaders(const ptx_func *f, uint8_t *leader)
{
    leader[0] = 1;
    for (uint32_t i = 0; i < f->n_code; i++) {
        const ptx_instr *in = &f->code[i];
        if (in->op == OP_BRA)
            leader[target_of(f, in->o[0].r)] = 1;
        if (in->op == OP_BRX && in->aux < f->n_tables)
            for (uint32_t k = 0; k < f->tables[in->aux].n; k++)
                leader[target_of(f, f->tables[in->aux].targets[k])] = 1;
        if (is_terminator(in))
            leader[i + 1] = 1;
    }
}

/* Successors of the block ending at instruction last (into out, at most cap); count. */
static uint32_t successors(const ptx_func *f, const cfg *g, uint32_t last, uint32_t *out,
                           uint32_t cap)
{
    const ptx_instr *in = &f->code[last];
    uint32_t n = 0;
    uint32_t exit_node = g->n;
#define ADD(b) do { if (n < cap) out[n++] = (b); } while (0)
#define BLOCK_AT(i) ((i) >= f->n_code ? exit_node : g->block_of[i])
    int guarded = in->guard != PTX_NONE;
    switch (in->op) {
    case OP_BRA:
        ADD(BLOCK_AT(target_of(f, in->o[0].r)));
        if (guarded)
            ADD(BLOCK_AT(last + 1));
        break;
    case OP_BRX:
        if (in->aux < f->n_tables)
            for (uint32_t k = 0; k < f->tables[in->aux].n; k++)
                ADD(BLOCK_AT(target_of(f, f->tables[in->aux].targets[k])));
        if (guarded)
            ADD(BLOCK_AT(last + 1));
        break;
    case OP_RET:
    case OP_EXIT:
    case OP_TRAP:
        ADD(exit_node);
        if (guarded)
            ADD(BLOCK_AT(last + 1));
        break;
    default:
        ADD(BLOCK_AT(last + 1));
    }
#undef ADD
#undef BLOCK_AT
    return n;
}

static uint32_t block_cap(const ptx_func *f, uint32_t last)
{
    const ptx_instr *in = &f->code[last];
    if (in->op == OP_BRX && in->aux < f->n_tables)
        return f->tables[in->aux].n + 1;
    return 2;
}

static int build_blocks(const ptx_func *f, cfg *g)
{
    uint8_t *leader = calloc(f->n_code + 1, 1);
    if (!leader)
        return -1;
    mark_leaders(f, leader);
    g->n = 0;
    for (uint32_t i = 0; i < f->n_code; i++)
        g->n += leader[i];
    g->start = malloc((g->n + 1) * sizeof *g->start);
    g->block_of = malloc(f->n_code * sizeof *g->block_of);
    if (!g->start || !g->block_of) {
        free(leader);
        return -1;
    }
    uint32_t b = 0;
    for (uint32_t i = 0; i < f->n_code; i++) {
        if (leader[i])
            g->start[b++] = i;
        g->block_of[i] = b - 1;
    }
    g->start[g->n] = f->n_code;
    free(leader);
    return 0;
}

static int build_edges(const ptx_func *f, cfg *g)
{
    uint64_t total = 0;
    for (uint32_t b = 0; b < g->n; b++)
        total += block_cap(f, g->start[b + 1] - 1);
    g->succ_off = calloc(g->n + 2, sizeof(uint32_t));
    g->succ = malloc((total + 1) * sizeof(uint32_t));
    g->pred_off = calloc(g->n + 2, sizeof(uint32_t));
    g->pred = malloc((total + 1) * sizeof(uint32_t));
    if (!g->succ_off || !g->succ || !g->pred_off || !g->pred)
        return -1;
    uint32_t k = 0;
    for (uint32_t b = 0; b < g->n; b++) {
        uint32_t last = g->start[b + 1] - 1;
        g->succ_off[b] = k;
        k += successors(f, g, last, g->succ + k, block_cap(f, last));
    }
    g->succ_off[g->n] = g->succ_off[g->n + 1] = k;
    /* predecessors by counting sort over the successor lists */
    for (uint32_t i = 0; i < k; i++)
        g->pred_off[g->succ[i] + 1]++;
    for (uint32_t v = 0; v <= g->n; v++)
        g->pred_off[v + 1] += g->pred_off[v];
    uint32_t *fill = calloc(g->n + 1, sizeof(uint32_t));
    if (!fill)
        return -1;
    for (uint32_t b = 0; b < g->n; b++)
        for (uint32_t i = g->succ_off[b]; i < g->succ_off[b + 1]; i++) {
            uint32_t s = g->succ[i];
            g->pred[g->pred_off[s] + fill[s]++] = b;
        }
    free(fill);
    return 0;
}

/* Postorder of the reversed graph from the exit (iterative depth-first walk). */
static int number_from_exit(cfg *g)
{
    uint32_t nodes = g->n + 1;
    g->order = malloc(nodes * sizeof(uint32_t));
    g->by_order = malloc(nodes * sizeof(uint32_t));
    uint32_t *stack = malloc(nodes * sizeof(uint32_t)), *next = calloc(nodes, sizeof(uint32_t));
    uint8_t *seen = calloc(nodes, 1);
    if (!g->order || !g->by_order || !stack || !next || !seen) {
        free(stack);
        free(next);
        free(seen);
        return -1;
    }
    for (uint32_t v = 0; v < nodes; v++)
        g->order[v] = PTX_NONE;
    uint32_t sp = 0, count = 0;
    stack[sp++] = g->n;
    seen[g->n] = 1;
    while (sp) {
        uint32_t v = stack[sp - 1];
        uint32_t i = g->pred_off[v] + next[v];
        if (i < g->pred_off[v + 1]) {
            next[v]++;
            uint32_t w = g->pred[i];
            if (!seen[w]) {
                seen[w] = 1;
                stack[sp++] = w;
            }
        } else {
            g->order[v] = count;
            g->by_order[count++] = v;
            sp--;
        }
    }
    free(stack);
    free(next);
    free(seen);
    return (int)count;
}

static uint32_t intersect(const cfg *g, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (g->order[a] < g->order[b])
            a = g->ipdom[a];
        while (g->order[b] < g->order[a])
            b = g->ipdom[b];
    }
    return a;
}

static int post_dominators(cfg *g)
{
    int count = number_from_exit(g);
    if (count < 0)
        return -1;
    g->ipdom = malloc((g->n + 1) * sizeof(uint32_t));
    if (!g->ipdom)
        return -1;
    for (uint32_t v = 0; v <= g->n; v++)
        g->ipdom[v] = PTX_NONE;
    g->ipdom[g->n] = g->n;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = count - 2; k >= 0; k--) { /* reverse postorder, the exit (last) first */
            uint32_t b = g->by_order[k], nd = PTX_NONE;
            /* predecessors in the reversed graph are the forward successors */
            for (uint32_t i = g->succ_off[b]; i < g->succ_off[b + 1]; i++) {
                uint32_t s = g->succ[i];
                if (g->ipdom[s] == PTX_NONE)
                    continue;
                nd = nd == PTX_NONE ? s : intersect(g, s, nd);
            }
            if (nd != g->ipdom[b]) {
                g->ipdom[b] = nd;
                changed = 1;
            }
        }
    }
    return 0;
}

static void cfg_free(cfg *g)
{
    free(g->start);
    free(g->block_of);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_off);
    free(g->pred);
    free(g->order);
    free(g->by_order);
    free(g->ipdom);
}

int ptx_cfg_build(ptx_func *f)
{
    free(f->reconv);
    f->reconv = NULL;
    if (f->n_code == 0)
        return 0;
    f->reconv = malloc(f->n_code * sizeof *f->reconv);
    if (!f->reconv)
        return -1;
    cfg g;
    memset(&g, 0, sizeof g);
    int rc = -1;
    if (build_blocks(f, &g) || build_edges(f, &g) || post_dominators(&g))
        goto done;
    for (uint32_t i = 0; i < f->n_code; i++) {
        uint32_t b = g.block_of[i], pd = g.ipdom[b];
        f->reconv[i] = (pd == PTX_NONE || pd == g.n) ? PTX_NONE : g.start[pd];
    }
    rc = 0;
done:
    cfg_free(&g);
    return rc;
}
