/*
 * emu_barrier.c - the block's 16 named barriers (bar.sync, bar.arrive,
 * bar.red; barrier.* alike), and whether a block-wide one was reached by
 * every thread that had to (docs/emulator.md#sync).
 *
 * A warp arrives with its active lanes and counts as a whole warp (32
 * threads), as the hardware counts: "causes executing thread to wait for all
 * non-exited threads from its warp". Without a thread count a barrier
 * completes when every warp of the block that has not exited has arrived;
 * with one, when that many threads have. bar.arrive counts without waiting.
 * When a barrier completes its waiting warps run again and it is reset.
 *
 * A block-wide barrier (no thread count: __syncthreads(), its _count, _and
 * and _or forms) is the one every thread of the block must reach. A warp
 * whose lanes arrive before its others first runs those others' paths (the
 * arrived lanes wait, parked, as on a GPU since Volta): lanes that return
 * early then exit. The warp has arrived when no path of it is left to run;
 * lanes then neither there nor leaving the kernel never reached it
 * (EMU_SYNC_BARRIER_WARP). When the barrier completes, a thread of the block
 * that exited after reading or synchronising in code that lies strictly after
 * it, without waiting there, went past it (EMU_SYNC_BARRIER_BLOCK: one that
 * only stored its results and left is as good as exited); warps that waited at
 * different barrier instructions split (EMU_SYNC_BARRIER_SPLIT). Each is
 * reported and the launch goes on: the warp counts as arrived.
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

/* --- a block-wide barrier's instance, judged when it completes ------------------------ */

static void set_thread(uint32_t *words, uint32_t warp, uint32_t lanes)
{
    words[warp] |= lanes;
}

/* Warps that waited at another barrier instruction than the first warp did. */
static void judge_split(emu_block *b, const emu_barrier *bar)
{
    uint32_t first = PTX_NONE, other = PTX_NONE;
    emu_sync_error e;
    memset(&e, 0, sizeof e);
    for (uint32_t ww = bar->arrived; ww; ww &= ww - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(ww);
        if (first == PTX_NONE)
            first = bar->warp_pc[i];
        if (bar->warp_pc[i] == first) {
            set_thread(e.reached, i, bar->lanes[i]);
        } else {
            other = other == PTX_NONE ? bar->warp_pc[i] : other;
            set_thread(e.skipped, i, bar->lanes[i]);
        }
    }
    if (other == PTX_NONE)
        return;
    const emu_program *p = b->x->prog;
    e.kind = EMU_SYNC_BARRIER_SPLIT;
    e.other_pc = (uint64_t)other * 16;
    emu_student_where(p, &p->code[other], &e.other_file, &e.other_line);
    emu_warp *w = &b->warps[__builtin_ctz(bar->arrived)];
    emu_sync_report(w, &p->code[first], &e);
}

/* Threads that exited after going strictly past a barrier this instance was reached at,
   without waiting at it. */
static void judge_skips(emu_block *b, const emu_barrier *bar)
{
    const emu_program *p = b->x->prog;
    uint64_t bits = 0;
    uint32_t first = PTX_NONE;
    for (uint32_t ww = bar->arrived; ww; ww &= ww - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(ww);
        int k = emu_bar_index(p, bar->warp_pc[i]);
        if (first == PTX_NONE)
            first = bar->warp_pc[i];
        if (k >= 0 && k < EMU_MAX_BARS)
            bits |= UINT64_C(1) << k;
    }
    if (!bits || first == PTX_NONE)
        return;
    emu_sync_error e;
    memset(&e, 0, sizeof e);
    uint32_t any = 0, warp = 0;
    for (uint32_t i = 0; i < b->n_warps; i++) {
        const emu_warp *w = &b->warps[i];
        uint32_t arrived = bar->arrived >> i & 1u ? bar->lanes[i] : 0, went = 0;
        for (uint32_t mm = w->exited & ~arrived; mm; mm &= mm - 1)
            if (w->lane_beyond[__builtin_ctz(mm)] & bits)
                went |= 1u << __builtin_ctz(mm);
        set_thread(e.reached, i, arrived);
        set_thread(e.skipped, i, went);
        if (went && !any)
            warp = i;
        any |= went;
    }
    if (!any)
        return;
    int k = emu_bar_index(p, first);
    e.kind = EMU_SYNC_BARRIER_BLOCK;
    uint32_t via = k >= 0 ? p->bar_branch[k] : PTX_NONE;
    if (via != PTX_NONE) {
        e.branch_pc = (uint64_t)via * 16;
        emu_where(p, &p->code[via], &e.branch_file, &e.branch_line);
    }
    e.warp = warp;
    emu_sync_report(&b->warps[__builtin_ctz(bar->arrived)], &p->code[first], &e);
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
    if (!bar->expected && bar->started) {
        judge_split(b, bar);
        judge_skips(b, bar);
    }
    for (uint32_t ww = bar->waiting; ww; ww &= ww - 1) {
        emu_warp *w = &b->warps[__builtin_ctz(ww)];
        deliver_reduction(b, bar, w);
        if (w->state == WARP_WAIT)
            w->state = WARP_RUN;
    }
    memset(bar, 0, sizeof *bar);
}

/* The instance's reduction and first values, as lanes m arrive with their predicate. */
static void count_lanes(emu_warp *w, const ptx_instr *in, emu_barrier *bar, uint32_t m)
{
    if (!bar->started) {
        bar->started = 1;
        bar->all = 1;
        bar->any = 0;
        bar->popc = 0;
    }
    if (in->mod == PM_RED && m) {
        const ptx_operand *c = &in->o[3];
        uint32_t v = w->p[c->r] ^ (c->neg ? EMU_FULL : 0);
        bar->popc += (uint32_t)__builtin_popcount(v & m);
        bar->all &= (v & m) == m;
        bar->any |= (v & m) != 0;
    }
}

/* The warp's arrival is complete: it counts, and waits unless it only arrives. */
static void warp_arrives(emu_warp *w, const ptx_instr *in, uint32_t id, uint32_t pc,
                         uint32_t lanes, uint32_t count)
{
    emu_block *b = w->b;
    emu_barrier *bar = &b->bars[id];
    uint32_t bit = 1u << w->index;
    record_barrier(w, pc, lanes, count);
    if (!bar->arrived)
        bar->expected = count;
    bar->arrived |= bit;
    bar->threads += 32;
    bar->warp_pc[w->index] = pc;
    bar->lanes[w->index] = lanes;
    if (in->mod != PM_ARRIVE) {
        bar->waiting |= bit;
        w->state = WARP_WAIT;
        w->bar_id = (uint8_t)id;
        w->bar_pc = pc;
        w->bar_lanes = lanes;
    }
    try_release(b, id);
}

/* Lanes m of a block-wide barrier: the warp's other paths run first; when none is left,
   lanes that are neither there nor leaving never reached it. */
static int block_wide_arrive(emu_warp *w, const ptx_instr *in, uint32_t id, uint32_t pc,
                             uint32_t m)
{
    emu_barrier *bar = &w->b->bars[id];
    uint32_t fresh = m & ~w->arr_lanes;
    if (!w->arr_lanes) {
        w->arr_pc = pc;
        w->arr_id = (uint8_t)id;
    } else if (fresh && (pc != w->arr_pc || id != w->arr_id)) {
        /* lanes of the warp at another barrier instruction than its first lanes */
        emu_sync_error e;
        memset(&e, 0, sizeof e);
        e.kind = EMU_SYNC_BARRIER_SPLIT;
        const emu_program *p = w->b->x->prog;
        e.other_pc = (uint64_t)w->arr_pc * 16;
        emu_student_where(p, &p->code[w->arr_pc], &e.other_file, &e.other_line);
        set_thread(e.reached, w->index, fresh);
        set_thread(e.skipped, w->index, w->arr_lanes);
        e.warp = w->index;
        emu_sync_report(w, in, &e);
    }
    count_lanes(w, in, bar, fresh);
    w->arr_lanes |= m;
    uint32_t missing = w->present & ~w->exited & ~w->arr_lanes;
    if (missing && emu_simt_run_another(w, pc))
        return 0; /* the others first: this entry comes back to the barrier */
    emu_lanes_at at;
    emu_simt_whereabouts(w, missing, &at);
    if (at.waiting) {
        emu_sync_error e;
        const emu_program *p = w->b->x->prog;
        memset(&e, 0, sizeof e);
        e.kind = EMU_SYNC_BARRIER_WARP;
        e.warp = w->index;
        e.lanes = w->arr_lanes;
        e.missing = at.waiting;
        if (at.pc != PTX_NONE) {
            e.other_pc = (uint64_t)at.pc * 16;
            emu_student_where(p, &p->code[at.pc], &e.other_file, &e.other_line);
        }
        if (at.via != PTX_NONE) {
            e.branch_pc = (uint64_t)at.via * 16;
            emu_where(p, &p->code[at.via], &e.branch_file, &e.branch_line);
        }
        emu_sync_report(w, in, &e);
    }
    uint32_t lanes = w->arr_lanes;
    pc = w->arr_pc;
    id = w->arr_id;
    w->arr_lanes = 0;
    emu_simt_unpark(w);
    warp_arrives(w, &w->b->x->prog->code[pc], id, pc, lanes, 0);
    return 0;
}

int emu_barrier_arrive(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m)
{
    uint32_t id = uniform_u32(w, in, 1, m);
    uint32_t count = in->o[2].kind == PO_NONE ? 0 : uniform_u32(w, in, 2, m);
    if (id >= 16)
        return emu_fail(w, in, EMU_FAULT, "barrier %u does not exist (0 to 15)", id);
    if (in->o[2].kind != PO_NONE && (count == 0 || count > EMU_MAX_THREADS))
        return emu_fail(w, in, EMU_FAULT, "a barrier for %u threads", count);
    if (in->o[2].kind == PO_NONE && in->mod != PM_ARRIVE)
        return block_wide_arrive(w, in, id, pc, m);
    count_lanes(w, in, &w->b->bars[id], m);
    warp_arrives(w, in, id, pc, m, count);
    return 0;
}

void emu_barrier_warp_done(emu_block *b, emu_warp *w)
{
    w->state = WARP_DONE;
    b->live &= ~(1u << w->index);
    for (uint32_t id = 0; id < 16; id++)
        try_release(b, id);
}
