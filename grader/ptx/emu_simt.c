/*
 * emu_simt.c - a warp's control flow: the SIMT stack, branches, calls,
 * returns and exits (docs/emulator.md#semantics).
 *
 * The running entry (w->cur) holds the pc, the active lanes and the point
 * where they reconverge (rpc); the stack below holds the paths still to run
 * and the entries waiting at reconvergence points. A divergent branch makes
 * the current entry wait at the branch's immediate post-dominator R with its
 * whole mask, pushes the fall-through path and then the taken path (which
 * runs first); an entry that reaches its rpc is popped. When R is where the
 * current entry reconverges anyway, the current entry itself becomes the
 * fall-through path: loops with a divergent break then do not grow the stack.
 *
 * A call pushes an entry marked with its call site (the frame); ret clears
 * its lanes from every entry down to that frame, and the frame entry's lanes
 * continue after the call once its callee's entries are empty. exit clears
 * lanes for good (lazily from the entries below the current one).
 */
#include "emu_simt.h"

#include <string.h>

int emu_simt_push(emu_warp *w, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t call)
{
    if (w->sp >= EMU_SIMT_DEPTH)
        return -1;
    uint64_t beyond = w->cur.beyond; /* the new path's lanes come from the current one */
    w->stack[w->sp++] = w->cur;
    w->cur = (simt_entry){pc, rpc, mask, call, PTX_NONE, ENTRY_PATH, beyond};
    return 0;
}

int emu_simt_pop(emu_warp *w)
{
    /* a path that reached its reconvergence point brings what its lanes went past */
    if (w->cur.pc == w->cur.rpc && w->cur.beyond && (w->cur.mask & ~w->exited))
        for (uint32_t i = w->sp; i-- > 0;)
            if (w->stack[i].kind == ENTRY_JOIN && w->stack[i].pc == w->cur.rpc) {
                w->stack[i].beyond |= w->cur.beyond;
                break;
            }
    for (;;) {
        if (w->sp == 0) {
            w->cur.mask = 0;
            return 0;
        }
        w->cur = w->stack[--w->sp];
        w->cur.mask &= ~w->exited;
        if (w->cur.mask)
            return 1;
    }
}

int emu_simt_diverge(emu_warp *w, uint32_t pc, uint32_t target, uint32_t taken)
{
    uint32_t rpc = w->b->x->prog->reconv[pc];
    uint32_t rest = w->cur.mask & ~taken;
    if (rpc == w->cur.rpc) {
        w->cur.pc = pc + 1;
        w->cur.mask = rest;
        w->cur.kind = ENTRY_PATH;
        w->cur.src = pc;
        if (emu_simt_push(w, target, rpc, taken, PTX_NONE))
            return -1;
        w->cur.src = pc;
        return 0;
    }
    if (w->sp + 2 > EMU_SIMT_DEPTH)
        return -1;
    w->cur.pc = rpc;
    w->cur.kind = ENTRY_JOIN;
    w->cur.src = pc;
    emu_simt_push(w, pc + 1, rpc, rest, PTX_NONE);
    w->cur.src = pc;
    emu_simt_push(w, target, rpc, taken, PTX_NONE);
    w->cur.src = pc;
    return 0;
}

int emu_simt_branch(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m)
{
    uint32_t target = in->o[0].r;
    if (m == w->cur.mask)
        w->cur.pc = target;
    else if (m == 0)
        w->cur.pc = pc + 1;
    else if (emu_simt_diverge(w, pc, target, m))
        return emu_fail(w, in, EMU_UNSUPPORTED, "branches nested more than %d deep",
                        EMU_SIMT_DEPTH / 2);
    return 0;
}

/* brx.idx: each lane's index picks a target; lanes with one target go together. */
int emu_simt_brx(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m)
{
    const emu_program *p = w->b->x->prog;
    if (m == 0) {
        w->cur.pc = pc + 1;
        return 0;
    }
    const ptx_table *t = &p->tables[in->aux];
    const uint64_t *idx = emu_reg(w, in->o[0].r);
    uint32_t targets[32], masks[32], n = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t i = (uint32_t)idx[l];
        if (i >= t->n)
            return emu_fail(w, in, EMU_FAULT, "brx.idx index %u past its %u targets", i, t->n);
        uint32_t k = 0;
        while (k < n && targets[k] != t->targets[i])
            k++;
        if (k == n) {
            targets[n] = t->targets[i];
            masks[n++] = 0;
        }
        masks[k] |= 1u << l;
    }
    uint32_t rest = w->cur.mask & ~m;
    if (n == 1 && rest == 0) {
        w->cur.pc = targets[0];
        return 0;
    }
    uint32_t rpc = p->reconv[pc];
    if (w->sp + n + 2 > EMU_SIMT_DEPTH)
        return emu_fail(w, in, EMU_UNSUPPORTED, "branches nested too deep");
    w->cur.pc = rpc;
    w->cur.kind = ENTRY_JOIN;
    w->cur.src = pc;
    if (rest) {
        emu_simt_push(w, pc + 1, rpc, rest, PTX_NONE);
        w->cur.src = pc;
    }
    for (uint32_t k = n; k-- > 0;) {
        emu_simt_push(w, targets[k], rpc, masks[k], PTX_NONE);
        w->cur.src = pc;
    }
    return 0;
}

/* Lanes m leave for good. 0: the warp goes on; 1: every lane has exited. */
int emu_simt_exit(emu_warp *w, uint32_t m)
{
    for (uint32_t mm = m & ~w->exited; mm; mm &= mm - 1)
        w->lane_beyond[__builtin_ctz(mm)] = w->cur.beyond;
    w->exited |= m;
    w->cur.mask &= ~m;
    if (w->cur.mask)
        return 0;
    return emu_simt_pop(w) ? 0 : 1;
}

/* The thread's frame memory: lane l of the warp, byte offset off, size bytes. */
static uint8_t *frame_at(emu_warp *w, int l, uint32_t off, uint32_t size)
{
    emu_block *b = w->b;
    if ((uint64_t)off + size > b->local_bytes)
        return NULL;
    return b->local + ((size_t)w->index * 32 + (size_t)l) * b->local_bytes + off;
}

static int copy_frames(emu_warp *w, const ptx_instr *in, const emu_pcopy *c, uint32_t n,
                       uint32_t m, int zero)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint8_t *to = frame_at(w, l, c[i].to, c[i].size);
            uint8_t *from = frame_at(w, l, c[i].from, c[i].size);
            if (!to || !from)
                return emu_fail(w, in, EMU_FAULT, "a call's parameters lie outside its frame");
            if (zero)
                memset(to, 0, c[i].size);
            else
                memmove(to, from, c[i].size);
        }
    return 0;
}

/* Lanes m make call k (an index in prog->calls): the callee runs as a new entry. */
static int call_one(emu_warp *w, const ptx_instr *in, uint32_t k, uint32_t m)
{
    const emu_call *c = &w->b->x->prog->calls[k];
    switch (c->kind) {
    case CALL_REFUSED:
        return emu_fail(w, in, EMU_UNSUPPORTED, "%s", c->why);
    case CALL_ASSERT:
        return emu_fail(w, in, EMU_TRAP, "an assert in the kernel failed");
    case CALL_PRINTF:
        return emu_printf(w, in, c, m);
    default:
        break;
    }
    if (copy_frames(w, in, c->args, c->n_args, m, 0))
        return -1;
    w->cur.kind = ENTRY_JOIN; /* the caller's lanes wait for the callee's */
    if (emu_simt_push(w, c->target, PTX_NONE, m, k))
        return emu_fail(w, in, EMU_UNSUPPORTED, "calls nested too deep");
    return 0;
}

/* Through a register: the lanes that hold one function's address call it together. */
static int call_indirect(emu_warp *w, const ptx_instr *in, const emu_call *c, uint32_t m)
{
    const uint64_t *T = emu_reg(w, in->o[0].r);
    while (m) {
        uint64_t t = T[__builtin_ctz(m)];
        uint32_t same = 0;
        EMU_LANES(m, l, same |= (uint32_t)(T[l] == t) << l);
        uint32_t k = PTX_NONE;
        for (uint32_t a = 0; a < c->n_alts && k == PTX_NONE; a++) {
            uint32_t f = w->b->x->prog->calls[c->first_alt + a].func;
            if (t == PTX_CODE_BASE + 16 * (uint64_t)f)
                k = c->first_alt + a;
        }
        if (k == PTX_NONE)
            return emu_fail(w, in, EMU_FAULT, "an indirect call to 0x%llx, which is not the "
                            "address of a function (lane %d)", (unsigned long long)t,
                            __builtin_ctz(m));
        if (call_one(w, in, k, same))
            return -1;
        m &= ~same;
    }
    return 0;
}

int emu_simt_call(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m)
{
    const emu_call *c = &w->b->x->prog->calls[in->aux];
    w->cur.pc = pc + 1;
    if (m == 0)
        return 0;
    if (c->kind == CALL_INDIRECT)
        return call_indirect(w, in, c, m);
    return call_one(w, in, in->aux, m);
}

/* Lanes m return: 0 the warp goes on, 1 every lane is done (a kernel's ret). */
int emu_simt_ret(emu_warp *w, const ptx_instr *in, uint32_t pc, uint32_t m)
{
    w->cur.pc = pc + 1;
    if (m == 0)
        return 0;
    /* the innermost frame: the current entry or one below it */
    int frame = w->cur.call != PTX_NONE ? (int)w->sp : -1;
    for (int i = (int)w->sp - 1; frame < 0 && i >= 0; i--)
        if (w->stack[i].call != PTX_NONE)
            frame = i;
    if (frame < 0)
        return emu_simt_exit(w, m);
    uint32_t k = frame == (int)w->sp ? w->cur.call : w->stack[frame].call;
    const emu_call *c = &w->b->x->prog->calls[k];
    if (copy_frames(w, in, c->rets, c->n_rets, m, 0))
        return -1;
    w->cur.mask &= ~m;
    for (int i = (int)w->sp - 1; i >= frame; i--)
        w->stack[i].mask &= ~m;
    if (w->cur.mask)
        return 0;
    return emu_simt_pop(w) ? 0 : 1;
}

/* --- what the synchronisation checks ask of the stack (emu_sync.c, emu_barrier.c) -- */

void emu_simt_whereabouts(const emu_warp *w, uint32_t lanes, emu_lanes_at *out)
{
    const uint8_t *exitish = w->b->x->prog->exitish;
    lanes &= w->present & ~w->exited;
    out->leaving = out->waiting = 0;
    out->pc = out->via = PTX_NONE;
    for (uint32_t i = w->sp; i-- > 0 && lanes;) { /* the topmost entry of a lane: where it is */
        const simt_entry *e = &w->stack[i];
        uint32_t hit = e->mask & lanes;
        if (!hit)
            continue;
        lanes &= ~hit;
        if (e->kind != ENTRY_PARKED && exitish && exitish[e->pc]) {
            out->leaving |= hit;
            continue;
        }
        out->waiting |= hit;
        if (out->pc == PTX_NONE) {
            out->pc = e->pc;
            out->via = e->src;
        }
    }
    out->waiting |= lanes; /* on no entry: cannot happen; never excused */
}

int emu_simt_run_another(emu_warp *w, uint32_t pc)
{
    if (w->cur.call != PTX_NONE)
        return 0; /* the current entry begins a callee's frame: nothing of it lies below */
    for (uint32_t i = w->sp; i-- > 0;) {
        simt_entry e = w->stack[i];
        if (e.call != PTX_NONE)
            return 0; /* a frame's bottom: its paths belong to another function */
        if (e.kind != ENTRY_PATH || !(e.mask & ~w->exited))
            continue;
        memmove(&w->stack[i], &w->stack[i + 1], (w->sp - 1 - i) * sizeof *w->stack);
        w->cur.pc = pc; /* it comes back to the barrier, which finds its lanes arrived */
        w->cur.kind = ENTRY_PARKED;
        w->stack[w->sp - 1] = w->cur;
        w->cur = e;
        return 1;
    }
    return 0;
}

void emu_simt_unpark(emu_warp *w)
{
    for (uint32_t i = 0; i < w->sp; i++)
        if (w->stack[i].kind == ENTRY_PARKED) {
            w->stack[i].pc++;
            w->stack[i].kind = ENTRY_PATH;
        }
    if (w->cur.kind == ENTRY_PARKED)
        w->cur.kind = ENTRY_PATH;
}
