/*
 * emu_barrier.c - the block's 16 named barriers (bar.sync, bar.arrive,
 * bar.red; barrier.* alike).
 *
 * A warp arrives with its active lanes and counts as a whole warp (32
 * threads), as the hardware counts: "causes executing thread to wait for all
 * non-exited threads from its warp". Without a thread count a barrier
 * completes when every warp of the block that has not exited has arrived;
 * with one, when that many threads have. bar.arrive counts without waiting.
 * When a barrier completes its waiting warps run again and it is reset.
 */
#include "emu_simt.h"

#include <string.h>

/* The value of operand k for the first lane of m (barrier ids and counts are uniform). */
static uint32_t uniform_u32(emu_warp *w, const ptx_instr *in, int k, uint32_t m)
{
    return (uint32_t)emu_reg(w, in->o[k].r)[__builtin_ctz(m)];
}

/* Recorded as the trace backend records it: only a barrier the whole block waits
   at orders one warp's access before another's, so a partial one (bar.sync 1, 64)
   is no barrier to the race check and the accesses around it still race. */
static void record_barrier(emu_warp *w, uint32_t pc, uint32_t m, uint32_t count)
{
    emu_ctx *x = w->b->x;
    if (!x->sink || !x->sink->shared)
        return;
    if (count != 0 && count < x->nthreads)
        return;
    emu_shared_record r;
    memset(&r, 0, sizeof r);
    r.pc = (uint64_t)pc * 16;
    r.block = w->b->index;
    r.warp = w->index;
    r.active = m;
    r.flags = EMU_REC_BARRIER;
    x->sink->shared(x->sink->ctx, &r);
}

/* bar.red's result to the destination of each warp that waited for it. */
static void deliver_reduction(emu_block *b, const emu_barrier *bar, emu_warp *w)
{
    const ptx_instr *in = &b->x->prog->code[w->bar_pc];
    if (in->mod != PM_RED || in->o[0].kind == PO_NONE)
        return;
    for (uint32_t mm = w->bar_lanes; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (in->mod2 == PM_POPC)
            emu_reg(w, in->o[0].r)[l] = bar->popc;
    }
    if (in->mod2 == PM_AND || in->mod2 == PM_OR) {
        int v = in->mod2 == PM_AND ? bar->all : bar->any;
        uint32_t *p = &w->p[in->o[0].r];
        *p = v ? (*p | w->bar_lanes) : (*p & ~w->bar_lanes);
    }
}

static void try_release(emu_block *b, uint32_t id)
{
    emu_barrier *bar = &b->bars[id];
    if (!bar->arrived)
        return;
    int complete = bar->expected ? bar->threads >= bar->expected
                                 : (b->live & ~bar->arrived) == 0;
    if (!complete)
        return;
    for (uint32_t ww = bar->waiting; ww; ww &= ww - 1) {
        emu_warp *w = &b->warps[__builtin_ctz(ww)];
        deliver_reduction(b, bar, w);
        if (w->state == WARP_WAIT)
            w->state = WARP_RUN;
    }
    memset(bar, 0, sizeof *bar);
}

int emu_barrier_arrive(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m)
{
    emu_block *b = w->b;
    uint32_t id = uniform_u32(w, in, 1, m);
    uint32_t count = in->o[2].kind == PO_NONE ? 0 : uniform_u32(w, in, 2, m);
    if (id >= 16)
        return emu_fail(w, in, EMU_FAULT, "barrier %u does not exist (0 to 15)", id);
    if (in->o[2].kind != PO_NONE && (count == 0 || count > EMU_MAX_THREADS))
        return emu_fail(w, in, EMU_FAULT, "a barrier for %u threads", count);
    record_barrier(w, pc, m, count);
    emu_barrier *bar = &b->bars[id];
    uint32_t bit = 1u << w->index;
    if (!bar->arrived) {
        bar->expected = count;
        bar->all = 1;
        bar->any = 0;
        bar->popc = 0;
    }
    bar->arrived |= bit;
    bar->threads += 32;
    if (in->mod == PM_RED) {
        const ptx_operand *c = &in->o[3];
        uint32_t v = w->p[c->r] ^ (c->neg ? EMU_FULL : 0);
        bar->popc += (uint32_t)__builtin_popcount(v & m);
        bar->all &= (v & m) == m;
        bar->any |= (v & m) != 0;
    }
    if (in->mod != PM_ARRIVE) {
        bar->waiting |= bit;
        w->state = WARP_WAIT;
        w->bar_id = (uint8_t)id;
        w->bar_pc = pc;
        w->bar_lanes = m;
    }
    try_release(b, id);
    return 0;
}

void emu_barrier_warp_done(emu_block *b, emu_warp *w)
{
    w->state = WARP_DONE;
    b->live &= ~(1u << w->index);
    for (uint32_t id = 0; id < 16; id++)
        try_release(b, id);
}
