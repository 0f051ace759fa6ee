/*
 * emu_ops_warp.c - warp-wide instructions: shfl, vote, match, activemask,
 * redux, elect, bar.warp.sync.
 *
 * A warp runs in lockstep here, so these see every lane that executes them
 * at once. Their member mask is judged against those lanes (emu_sync.c): a
 * lane it names that waits elsewhere, an executing lane it leaves out, and a
 * shuffle's read of a lane that does not execute it are synchronisation
 * errors, reported, and the instruction runs on the lanes there
 * (docs/emulator.md#sync).
 */
#include "emu_internal.h"

#include <string.h>

/* A shuffle or a __syncwarp, for the meter (a record with no address: EMU_REC_SHFL is
   counted, EMU_REC_SYNCWARP orders the lanes' accesses in the race check). */
static void record_warp_op(emu_warp *w, const ptx_instr *in, uint32_t m, uint16_t flags)
{
    emu_ctx *x = w->b->x;
    if (!x->sink || !x->sink->shared)
        return;
    emu_shared_record r;
    memset(&r, 0, sizeof r);
    r.pc = (uint64_t)(in - x->prog->code) * 16;
    r.block = w->b->index;
    r.warp = w->index;
    r.active = m;
    r.flags = flags;
    x->sink->shared(x->sink->ctx, &r);
}

static void pred_write(emu_warp *w, const ptx_operand *o, uint32_t v, uint32_t m)
{
    if (o->kind == PO_PRED)
        w->p[o->r] = (w->p[o->r] & ~m) | (v & m);
}

/* The flow run (emu_launch.perturb): what a shuffle delivers to the lanes m from another
   lane, changed by an amount drawn from the instruction, the warp and the lane each
   receives. A lane's own value (shflUp's first lanes, the broadcast's source, a shuffle
   to its own lane) moved nothing and is not the shuffle's: out[t] = __shfl_sync(full,
   in[t ^ laneMask], t) reads in, not a shuffle. */
static void shfl_perturb(emu_warp *w, const ptx_instr *in, uint32_t m, uint64_t out[32])
{
    emu_ctx *x = w->b->x;
    uint64_t pc = (uint64_t)(in - x->prog->code);
    uint64_t warp = (uint64_t)w->b->index * 64 + w->index;
    if (!emu_perturb_here(w, in, (uint64_t)__builtin_popcount(m)))
        return;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t where = (pc << 32) ^ (warp << 5) ^ (uint64_t)l;
        out[l] = emu_perturb_value(out[l], PT_B32, 4,
                                   emu_perturb_key(EMU_PERTURB_SHUFFLE, where));
    }
}

/* shfl.sync.mode.b32 d|p, a, b, c, membermask: o[0] d, o[1] p, o[2] a, o[3] b, o[4] c */
static int w_shfl(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    emu_sync_members(w, in, 5, m);
    const uint64_t *A = emu_reg(w, in->o[2].r), *B = emu_reg(w, in->o[3].r),
                   *C = emu_reg(w, in->o[4].r);
    uint64_t src[32], out[32];
    memcpy(src, A, sizeof src); /* d may be a */
    uint32_t pv = 0, read = 0, moved = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int lane = __builtin_ctz(mm);
        int bval = (int)(B[lane] & 31), cval = (int)(C[lane] & 31), seg = (int)((C[lane] >> 8) & 31);
        int max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg;
        int j, ok;
        switch (in->mod) {
        case PM_UP: j = lane - bval; ok = j >= max_lane; break;
        case PM_DOWN: j = lane + bval; ok = j <= max_lane; break;
        case PM_BFLY: j = lane ^ bval; ok = j <= max_lane; break;
        default: j = min_lane | (bval & ~seg); ok = j <= max_lane; break;
        }
        if (!ok || j < 0 || j > 31)
            j = lane;
        out[lane] = (uint32_t)src[j];
        pv |= (uint32_t)ok << lane;
        read |= 1u << j;
        moved |= (uint32_t)(j != lane) << lane;
    }
    emu_sync_shuffle_reads(w, in, m, read);
    if (w->b->x->l->perturb & EMU_PERTURB_SHUFFLE) /* the flow run: every value delivered,
                                                      keyed by the shuffle and the lane */
        shfl_perturb(w, in, m & moved, out);
    uint64_t *d = emu_reg(w, in->o[0].r);
    EMU_LANES(m, l, d[l] = out[l]);
    pred_write(w, &in->o[1], pv, m);
    record_warp_op(w, in, m, EMU_REC_SHFL);
    return 0;
}

/* vote.sync.mode d, {!}a, membermask */
static int w_vote(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    emu_sync_members(w, in, 2, m);
    const ptx_operand *a = &in->o[1];
    uint32_t v = (w->p[a->r] ^ (a->neg ? EMU_FULL : 0)) & m;
    if (in->mod == PM_BALLOT) {
        uint64_t *d = emu_reg(w, in->o[0].r);
        EMU_LANES(m, l, d[l] = v);
        return 0;
    }
    int r = in->mod == PM_ALL ? v == m : in->mod == PM_ANY ? v != 0 : (v == 0 || v == m);
    pred_write(w, &in->o[0], r ? EMU_FULL : 0, m);
    return 0;
}

/* match.sync.{any,all}.type d|p, a, membermask: o[0] d, o[1] p, o[2] a */
static int w_match(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    emu_sync_members(w, in, 3, m);
    const uint64_t *A = emu_reg(w, in->o[2].r);
    uint64_t vm = ptx_type_size((ptx_type)in->type) == 8 ? UINT64_MAX : 0xffffffffu;
    uint32_t same[32];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        same[l] = 0;
        for (uint32_t nn = m; nn; nn &= nn - 1) {
            int k = __builtin_ctz(nn);
            if ((A[k] & vm) == (A[l] & vm))
                same[l] |= 1u << k;
        }
    }
    int all = same[__builtin_ctz(m)] == m;
    uint64_t *d = emu_reg(w, in->o[0].r);
    if (in->mod == PM_ALL)
        EMU_LANES(m, l, d[l] = all ? m : 0);
    else
        EMU_LANES(m, l, d[l] = same[l]);
    pred_write(w, &in->o[1], all ? EMU_FULL : 0, m);
    return 0;
}

static int w_activemask(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    EMU_LANES(m, l, d[l] = m);
    return 0;
}

/* redux.sync.op.type d, a, membermask */
static int w_redux(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    emu_sync_members(w, in, 2, m);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    int sg = in->type == PT_S32;
    uint32_t acc = 0;
    int first = 1;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        uint32_t v = (uint32_t)A[__builtin_ctz(mm)];
        if (first) {
            acc = v;
            first = 0;
            continue;
        }
        switch (in->mod) {
        case PM_ADD: acc += v; break;
        case PM_MIN: acc = sg ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
        case PM_MAX: acc = sg ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
        case PM_AND: acc &= v; break;
        case PM_OR: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    uint64_t *d = emu_reg(w, in->o[0].r);
    EMU_LANES(m, l, d[l] = acc);
    return 0;
}

/* elect.sync d|p, membermask: the lowest executing lane of the mask is the leader. */
static int w_elect(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint32_t mask = (uint32_t)emu_reg(w, in->o[2].r)[__builtin_ctz(m)];
    uint32_t cand = mask & m;
    int leader = cand ? __builtin_ctz(cand) : -1;
    uint64_t *d = emu_reg(w, in->o[0].r);
    EMU_LANES(m, l, d[l] = leader < 0 ? 0 : (uint32_t)leader);
    pred_write(w, &in->o[1], leader < 0 ? 0 : 1u << leader, m);
    return 0;
}

static int w_bar_warp(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    emu_sync_members(w, in, 0, m);
    record_warp_op(w, in, m, EMU_REC_SYNCWARP);
    return 0;
}

emu_fn emu_bind_warp(const ptx_instr *in)
{
    switch (in->op) {
    case OP_SHFL: return in->type == PT_B32 ? w_shfl : NULL;
    case OP_VOTE: return w_vote;
    case OP_MATCH:
        return ptx_type_size((ptx_type)in->type) == 4 || ptx_type_size((ptx_type)in->type) == 8
                   ? w_match : NULL;
    case OP_ACTIVEMASK: return w_activemask;
    case OP_REDUX: return w_redux;
    case OP_ELECT: return w_elect;
    case OP_BAR_WARP: return w_bar_warp;
    default: return NULL;
    }
}
