/*
 * emu_sync.c - synchronisation errors: how one is reported (its lines, its
 * block, once a launch for each kind and instruction), and the member mask
 * of a warp primitive judged against the lanes that execute it
 * (docs/emulator.md#sync).
 *
 * The rules are the CUDA Programming Guide's: "each calling thread must have
 * its own bit set in the mask and all non-exited threads named in mask must
 * execute the same intrinsic with the same mask, or the result is
 * undefined"; a shuffle "may only read data from another thread which is
 * actively participating". A lane that has exited, or waits only to leave
 * (emu_program.exitish), need not execute a primitive, but a shuffle must
 * not read it; a lane that waits elsewhere (diverged) must execute it. The
 * primitive then runs on the lanes there: a defined way on, so that the
 * kernel's other checks are graded.
 */
#include "emu_simt.h"

#include <string.h>

static void line_of(const emu_program *p, uint32_t pc, const char **file, int *line,
                    uint64_t *pc_out)
{
    *file = NULL;
    *line = 0;
    *pc_out = 0;
    if (pc == PTX_NONE || pc >= p->n_code)
        return;
    emu_where(p, &p->code[pc], file, line);
    *pc_out = (uint64_t)pc * 16;
}

void emu_sync_report(emu_warp *w, const ptx_instr *in, emu_sync_error *e)
{
    emu_ctx *x = w->b->x;
    const emu_program *p = x->prog;
    uint32_t pc = (uint32_t)(in - p->code);
    x->res->sync_errors++;
    for (uint32_t i = 0; i < x->n_sync_seen; i++)
        if (x->sync_seen[i].kind == e->kind && x->sync_seen[i].pc == pc)
            return;
    if (x->n_sync_seen >= EMU_SYNC_SEEN)
        return;
    x->sync_seen[x->n_sync_seen].kind = e->kind;
    x->sync_seen[x->n_sync_seen++].pc = pc;
    int first = x->n_sync_seen == 1;
    e->text = ptx_instr_text(in);
    e->pc = (uint64_t)pc * 16;
    emu_where(p, in, &e->file, &e->line);
    e->call_file = NULL;
    e->call_line = e->caller_line = 0;
    if (in->call_file != PTX_NONE && in->call_file < p->ptx->n_files) {
        e->call_file = p->ptx->files[in->call_file].path;
        e->call_line = (int)in->call_line;
        e->caller_line = (int)in->caller_line;
    }
    e->block = w->b->index;
    memcpy(e->ctaid, w->b->ctaid, sizeof e->ctaid);
    e->threads = x->nthreads;
    if (first)
        x->res->first_sync = *e;
    if (x->sink && x->sink->sync)
        x->sink->sync(x->sink->ctx, e);
}

/* Start an error of kind at the primitive: where the missing lanes wait (pc) and the
   branch that took them there (via). */
static void warp_error(emu_sync_error *e, const emu_warp *w, uint8_t kind, uint32_t at,
                       uint32_t via)
{
    const emu_program *p = w->b->x->prog;
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->warp = w->index;
    line_of(p, at, &e->other_file, &e->other_line, &e->other_pc);
    line_of(p, via, &e->branch_file, &e->branch_line, &e->branch_pc);
}

uint32_t emu_sync_members(emu_warp *w, const ptx_instr *in, int k, uint32_t m)
{
    const uint64_t *M = emu_reg(w, in->o[k].r);
    uint32_t mask = (uint32_t)M[__builtin_ctz(m)], self = 0;
    EMU_LANES(m, l, self |= (uint32_t)!((M[l] >> l) & 1u) << l);
    emu_sync_error e;
    if (self) {
        warp_error(&e, w, EMU_SYNC_MASK_SELF, PTX_NONE, PTX_NONE);
        e.mask = mask;
        e.lanes = m;
        e.missing = self;
        emu_sync_report(w, in, &e);
    }
    emu_lanes_at at;
    emu_simt_whereabouts(w, mask & ~m, &at);
    if (at.waiting) {
        warp_error(&e, w, EMU_SYNC_MASK_ABSENT, at.pc, at.via);
        e.mask = mask;
        e.lanes = m;
        e.missing = at.waiting;
        e.gone = mask & ~m & ~at.waiting;
        emu_sync_report(w, in, &e);
    }
    return mask;
}

void emu_sync_shuffle_reads(emu_warp *w, const ptx_instr *in, uint32_t m, uint32_t src)
{
    uint32_t mask = (uint32_t)emu_reg(w, in->o[5].r)[__builtin_ctz(m)];
    uint32_t absent = src & ~m;
    if (!absent)
        return;
    emu_lanes_at at;
    emu_simt_whereabouts(w, absent, &at);
    absent &= ~(mask & at.waiting); /* named and diverged: emu_sync_members said so */
    if (!absent)
        return;
    emu_sync_error e;
    warp_error(&e, w, EMU_SYNC_MASK_READ, at.waiting & absent ? at.pc : PTX_NONE,
               at.waiting & absent ? at.via : PTX_NONE);
    e.mask = mask;
    e.lanes = m;
    e.missing = absent;
    e.gone = absent & ~at.waiting;
    emu_sync_report(w, in, &e);
}
