/*
 * emu_exec.c - a launch: blocks one after another, warps of a block in
 * turns (each runs until it waits at a barrier, exits, or has run
 * EMU_SLICE instructions), and the interpreter loop of one warp.
 *
 * Everything is deterministic: block order, warp order, lane order. A warp
 * instruction is one handler call over 32 lanes of registers stored
 * lane-major (docs/emulator.md#speed).
 */
#include "emu_simt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef EMU_STATS
uint64_t emu_stat_lane_ops;
#endif

static emu_status refuse(emu_result *res, emu_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static emu_status refuse(emu_result *res, emu_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emu_fail_result(res, NULL, NULL, s, fmt, ap);
    va_end(ap);
    return s;
}

/* --- special registers ---------------------------------------------------------- */

uint64_t emu_sreg_value(const emu_warp *w, ptx_sreg s, int lane)
{
    const emu_ctx *x = w->b->x;
    const emu_block *b = w->b;
    uint32_t t = w->index * 32 + (uint32_t)lane;
    uint32_t bx = x->block_dim[0], by = x->block_dim[1];
    uint32_t lt = lane ? (1u << lane) - 1 : 0;
    uint32_t shared = b->shared_bytes;
    switch (s) {
    case PSR_TID_X: return t % bx;
    case PSR_TID_Y: return (t / bx) % by;
    case PSR_TID_Z: return t / (bx * by);
    case PSR_NTID_X: case PSR_NTID_Y: case PSR_NTID_Z:
        return x->block_dim[s - PSR_NTID_X];
    case PSR_CTAID_X: case PSR_CTAID_Y: case PSR_CTAID_Z:
        return b->ctaid[s - PSR_CTAID_X];
    case PSR_NCTAID_X: case PSR_NCTAID_Y: case PSR_NCTAID_Z:
        return x->grid_dim[s - PSR_NCTAID_X];
    case PSR_CLUSTERID_X: case PSR_CLUSTERID_Y: case PSR_CLUSTERID_Z:
        return b->ctaid[s - PSR_CLUSTERID_X]; /* every block is a cluster of one */
    case PSR_NCLUSTERID_X: case PSR_NCLUSTERID_Y: case PSR_NCLUSTERID_Z:
        return x->grid_dim[s - PSR_NCLUSTERID_X];
    case PSR_CLUSTER_NCTAID_X: case PSR_CLUSTER_NCTAID_Y: case PSR_CLUSTER_NCTAID_Z:
    case PSR_CLUSTER_NCTARANK:
        return 1;
    case PSR_NSMID: return x->l->sm_count ? x->l->sm_count : 1;
    case PSR_SMID: return b->index % (x->l->sm_count ? x->l->sm_count : 1);
    case PSR_GRIDID: return x->l->grid_id;
    case PSR_LANEID: return (uint64_t)lane;
    case PSR_WARPID: return w->index;
    case PSR_NWARPID: return 64;
    case PSR_LANEMASK_EQ: return 1u << lane;
    case PSR_LANEMASK_LT: return lt;
    case PSR_LANEMASK_LE: return lt | (1u << lane);
    case PSR_LANEMASK_GE: return ~lt;
    case PSR_LANEMASK_GT: return ~(lt | (1u << lane));
    case PSR_DYNAMIC_SMEM: return x->l->dynamic_shared;
    case PSR_TOTAL_SMEM: case PSR_AGGR_SMEM: return shared;
    case PSR_RESERVED_SMEM_BEGIN: case PSR_RESERVED_SMEM_0: case PSR_RESERVED_SMEM_1:
        return EMU_RESERVED_OFFSET;
    case PSR_RESERVED_SMEM_END: return EMU_RESERVED_OFFSET + EMU_RESERVED_USED;
    case PSR_RESERVED_SMEM_CAP: return EMU_RESERVED_OFFSET + EMU_RESERVED_BYTES;
    default: return 0; /* cluster ranks and ids inside a cluster of one */
    }
}

/* A special register's 32 lanes; the thread indices (the common ones) without a call a lane. */
static void fill_sreg(const emu_warp *w, ptx_sreg s, uint64_t *r)
{
    const emu_ctx *x = w->b->x;
    uint32_t bx = x->block_dim[0], by = x->block_dim[1], t0 = w->index * 32;
    switch (s) {
    case PSR_TID_X:
        for (uint32_t l = 0; l < 32; l++)
            r[l] = (t0 + l) % bx;
        return;
    case PSR_TID_Y:
        for (uint32_t l = 0; l < 32; l++)
            r[l] = (t0 + l) / bx % by;
        return;
    case PSR_LANEID:
        for (uint32_t l = 0; l < 32; l++)
            r[l] = l;
        return;
    default: {
        uint64_t v0 = emu_sreg_value(w, s, 0);
        if (s <= PSR_TID_Z || (s >= PSR_LANEMASK_EQ && s <= PSR_LANEMASK_GT)) {
            for (int l = 0; l < 32; l++)
                r[l] = emu_sreg_value(w, s, l);
        } else {
            for (int l = 0; l < 32; l++) /* the same for the whole warp */
                r[l] = v0;
        }
    }
    }
}

/* --- one warp ------------------------------------------------------------------------ */

static int timeout(emu_warp *w, const ptx_instr *in)
{
    return emu_fail(w, in, EMU_TIMEOUT,
                    "the launch ran past %llu warp instructions: an endless loop?",
                    (unsigned long long)w->b->x->budget);
}

static int unsupported(emu_warp *w, const ptx_instr *in)
{
    return emu_fail(w, in, EMU_UNSUPPORTED, "the emulator does not support `%s`",
                    ptx_instr_text(in));
}

/* A warp's last lane is gone. */
static void warp_done(emu_warp *w)
{
    emu_barrier_warp_done(w->b, w);
}

/* Control instructions; 0 on, -1 stop, 1 the warp is done or waits. */
static int control(emu_warp *w, const ptx_instr *in, uint8_t ctl, uint32_t pc, uint32_t m)
{
    int r;
    switch (ctl) {
    case CTL_BRA:
        return emu_simt_branch(w, in, pc, m);
    case CTL_BRX:
        return emu_simt_brx(w, in, pc, m);
    case CTL_CALL:
        return emu_simt_call(w, in, pc, m);
    case CTL_RET:
        r = emu_simt_ret(w, in, pc, m);
        break;
    case CTL_EXIT:
        w->cur.pc = pc + 1;
        r = m ? emu_simt_exit(w, m) : 0;
        break;
    case CTL_TRAP:
        if (m)
            return emu_fail(w, in, EMU_TRAP, "the kernel executed `%s`", ptx_instr_text(in));
        w->cur.pc = pc + 1;
        return 0;
    case CTL_BAR:
        w->cur.pc = pc + 1;
        if (!m)
            return 0;
        if (emu_barrier_arrive(w, in, pc, m))
            return -1;
        return w->state == WARP_WAIT ? 1 : 0;
    default:
        if (m)
            return unsupported(w, in);
        w->cur.pc = pc + 1;
        return 0;
    }
    if (r == 1) {
        warp_done(w);
        return 1;
    }
    return r;
}

/* Run one warp for up to EMU_SLICE instructions. 0, or -1 when the launch stopped. */
static int run_warp(emu_ctx *x, emu_warp *w)
{
    const emu_program *p = x->prog;
    const ptx_instr *code = p->code;
    const emu_step *steps = p->steps;
    const uint64_t *after = p->after;
    for (int n = 0; n < EMU_SLICE; n++) {
        if (w->cur.pc == w->cur.rpc) {
            if (!emu_simt_pop(w)) {
                warp_done(w);
                return 0;
            }
            continue;
        }
        uint32_t pc = w->cur.pc;
        if (pc >= p->n_code) /* cannot happen: every function ends in a ret */
            return emu_fail(w, NULL, EMU_FAULT, "the warp ran past the kernel's end");
        const ptx_instr *in = &code[pc];
        uint32_t m = w->cur.mask;
        if (in->guard != PTX_NONE)
            m &= w->p[in->guard] ^ (in->guard_neg ? EMU_FULL : 0);
        if (++x->executed > x->budget)
            return timeout(w, in);
        if (after) /* what the warp's lanes went past, for the barriers they skip */
            w->cur.beyond |= after[pc];
#ifdef EMU_STATS
        emu_stat_lane_ops += (uint64_t)__builtin_popcount(m);
#endif
        const emu_step *s = &steps[pc];
        if (s->ctl == CTL_PLAIN) {
            if (m && s->fn(w, in, m))
                return -1;
            w->cur.pc = pc + 1;
            continue;
        }
        int r = control(w, in, s->ctl, pc, m);
        if (r < 0)
            return -1;
        if (r > 0)
            return 0;
    }
    return 0;
}

/* --- one block ---------------------------------------------------------------------- */

static void init_warp(emu_ctx *x, emu_block *b, uint32_t i)
{
    emu_warp *w = &b->warps[i];
    const emu_program *p = x->prog;
    w->b = b;
    w->index = i;
    w->r = x->regs + (size_t)i * p->n_slots * 32;
    w->p = x->preds + (size_t)i * (p->n_preds ? p->n_preds : 1);
    uint32_t threads = x->nthreads - i * 32;
    w->present = threads >= 32 ? EMU_FULL : (1u << threads) - 1;
    w->exited = w->carry = 0;
    memset(w->commits, 0, sizeof w->commits);
    memset(w->lane_beyond, 0, sizeof w->lane_beyond);
    w->arr_lanes = 0;
    w->tile_word = w->tile_bits = 0;
    w->sp = 0;
    w->cur = (simt_entry){0, PTX_NONE, w->present, PTX_NONE, PTX_NONE, ENTRY_PATH, 0};
    w->state = WARP_RUN;
    for (uint32_t k = 0; k < p->n_sregs; k++)
        fill_sreg(w, (ptx_sreg)p->sregs[k].sreg, emu_reg(w, p->sregs[k].slot));
    for (uint32_t k = 0; k < p->n_pred_false; k++)
        w->p[p->pred_false[k]] = 0;
    for (uint32_t k = 0; k < p->n_pred_true; k++)
        w->p[p->pred_true[k]] = EMU_FULL;
}

static void init_block(emu_ctx *x, uint32_t index)
{
    emu_block *b = &x->blk;
    b->index = index;
    b->ctaid[0] = index % x->grid_dim[0];
    b->ctaid[1] = index / x->grid_dim[0] % x->grid_dim[1];
    b->ctaid[2] = index / x->grid_dim[0] / x->grid_dim[1];
    uint32_t fill = x->l->shared_fill;
    for (uint32_t i = 0; i + 4 <= b->shared_limit; i += 4)
        memcpy(b->shared + i, &fill, 4);
    for (uint32_t i = 0; i < EMU_RESERVED_BYTES; i += 4) /* a GPU leaves old bytes there too */
        memcpy(b->reserved + i, &fill, 4);
    /* local memory is not cleared between blocks: PTX leaves it undefined, and what a
       block finds is still the same every run in the same order (emu_launch.reverse) */
    memset(b->bars, 0, sizeof b->bars);
    b->n_async = 0; /* a copy never waited for lands nowhere the next block sees */
    b->live = x->nwarps == 32 ? EMU_FULL : (1u << x->nwarps) - 1;
    for (uint32_t i = 0; i < x->nwarps; i++)
        init_warp(x, b, i);
}

static int deadlock(emu_ctx *x)
{
    emu_block *b = &x->blk;
    for (uint32_t i = 0; i < b->n_warps; i++) {
        emu_warp *w = &b->warps[i];
        if (w->state == WARP_WAIT)
            return emu_fail(w, &x->prog->code[w->bar_pc], EMU_DEADLOCK,
                            "warps wait at barriers that the other warps never reach "
                            "(warp %u waits at `%s`, barrier %u)", w->index,
                            ptx_instr_text(&x->prog->code[w->bar_pc]), w->bar_id);
    }
    return 0;
}

static int run_block(emu_ctx *x, uint32_t index)
{
    emu_block *b = &x->blk;
    init_block(x, index);
    for (;;) {
        int ran = 0;
        for (uint32_t k = 0; k < b->n_warps; k++) {
            emu_warp *w = &b->warps[x->l->reverse ? b->n_warps - 1 - k : k];
            if (w->state != WARP_RUN)
                continue;
            ran = 1;
            if (run_warp(x, w))
                return -1;
        }
        if (!b->live)
            return 0;
        if (!ran) { /* every warp left waits at a barrier */
            deadlock(x);
            return -1;
        }
    }
}

/* --- the launch --------------------------------------------------------------------- */

static emu_status check_launch(const emu_module *m, const emu_launch *l, emu_result *res)
{
    if (!l || l->kernel < 0 || (uint32_t)l->kernel >= m->n_kernels)
        return refuse(res, EMU_BAD_LAUNCH, "no kernel %d in the module", l ? l->kernel : -1);
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (threads == 0 || threads > EMU_MAX_THREADS || l->block[2] > 64)
        return refuse(res, EMU_BAD_LAUNCH, "a block of %u x %u x %u threads", l->block[0],
                      l->block[1], l->block[2]);
    if (l->grid[0] == 0 || l->grid[1] == 0 || l->grid[2] == 0 || l->grid[1] > 65535 ||
        l->grid[2] > 65535 || (uint64_t)l->grid[0] * l->grid[1] * l->grid[2] > UINT32_MAX)
        return refuse(res, EMU_BAD_LAUNCH, "a grid of %u x %u x %u blocks", l->grid[0],
                      l->grid[1], l->grid[2]);
    return EMU_OK;
}

static emu_status check_program(const emu_program *p, const emu_launch *l, emu_result *res)
{
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    const uint32_t *mx = p->maxntid, *rq = p->reqntid;
    if ((mx[0] && threads > (uint64_t)mx[0] * (mx[1] ? mx[1] : 1) * (mx[2] ? mx[2] : 1)) ||
        (rq[0] && (l->block[0] != rq[0] || l->block[1] != (rq[1] ? rq[1] : 1) ||
                   l->block[2] != (rq[2] ? rq[2] : 1))))
        return refuse(res, EMU_BAD_LAUNCH,
                      "a block of %u x %u x %u threads for a kernel declared for fewer "
                      "(__launch_bounds__)", l->block[0], l->block[1], l->block[2]);
    if ((uint64_t)p->static_shared + l->dynamic_shared > EMU_MAX_SHARED)
        return refuse(res, EMU_BAD_LAUNCH, "%u bytes of shared memory per block (at most %u)",
                      p->static_shared + l->dynamic_shared, EMU_MAX_SHARED);
    if (l->param_bytes < p->param_bytes || (p->param_bytes && !l->params))
        return refuse(res, EMU_BAD_LAUNCH, "%u bytes of parameters for a kernel that takes %u",
                      l->param_bytes, p->param_bytes);
    if (p->local_bytes > EMU_MAX_LOCAL)
        return refuse(res, EMU_UNSUPPORTED,
                      "the kernel needs %u bytes of local memory per thread; the emulator "
                      "gives at most %u", p->local_bytes, EMU_MAX_LOCAL);
    return EMU_OK;
}

static int alloc_ctx(emu_ctx *x)
{
    const emu_program *p = x->prog;
    emu_block *b = &x->blk;
    size_t regs = (size_t)x->nwarps * p->n_slots * 32;
    if ((uint64_t)regs * 8 > (UINT64_C(1) << 30))
        return -1;
    x->regs = malloc((regs ? regs : 1) * sizeof(uint64_t));
    x->preds = calloc((size_t)x->nwarps * (p->n_preds ? p->n_preds : 1), sizeof(uint32_t));
    b->warps = calloc(x->nwarps, sizeof(emu_warp));
    b->n_warps = x->nwarps;
    b->shared_bytes = p->static_shared ? p->static_shared : 0;
    if (x->l->dynamic_shared)
        b->shared_bytes = p->dyn_base + x->l->dynamic_shared;
    b->shared_limit = (b->shared_bytes + 127u) & ~127u;
    b->shared = malloc(b->shared_limit ? b->shared_limit : 4);
    b->local_bytes = p->local_bytes;
    b->local = p->local_bytes ? calloc((size_t)p->local_bytes * x->nwarps, 32) : NULL;
    b->x = x;
    if (!x->regs || !x->preds || !b->warps || !b->shared || (p->local_bytes && !b->local))
        return -1;
    memset(x->regs, 0, regs * sizeof(uint64_t));
    for (uint32_t i = 0; i < x->nwarps; i++) { /* constants once: no instruction writes them */
        uint64_t *r = x->regs + (size_t)i * p->n_slots * 32;
        for (uint32_t k = 0; k < p->n_consts; k++)
            for (int l = 0; l < 32; l++)
                r[(size_t)p->consts[k].slot * 32 + (size_t)l] = p->consts[k].value;
    }
    return 0;
}

static void free_ctx(emu_ctx *x)
{
    free(x->regs);
    free(x->preds);
    free(x->blk.warps);
    free(x->blk.shared);
    free(x->blk.local);
    free(x->blk.async);
}

static emu_status get_program(emu_module *m, int k, emu_result *res, emu_program **out)
{
    emu_where_at at;
    if (!m->progs[k] && emu_link(m->ptx, m->kernel_func[k], m->fixes, m->n_fixes, &m->progs[k],
                                 res->why, sizeof res->why, &at)) {
        res->status = EMU_UNSUPPORTED;
        res->file = at.file;
        res->line = at.line;
        res->call_file = at.call_file;
        res->call_line = at.call_line;
        return EMU_UNSUPPORTED;
    }
    *out = m->progs[k];
    return EMU_OK;
}

/* A launch that stopped (a timeout, a deadlock, a trap) after a shared access past the
   block's bytes: why says so too, with the access's line. A store there moved nothing
   and a load read no array's bytes (emu_ops_mem.c): a loop waiting on such a word never
   ends, and the student is told where it began. */
static void name_shared_past(emu_result *res)
{
    const emu_oob *e = &res->first_shared_past;
    size_t n = strlen(res->why);
    const char *op = e->flags == (EMU_REC_READ | EMU_REC_WRITE) ? "an atomic"
                     : e->flags & EMU_REC_WRITE ? "a store" : "a load";
    snprintf(res->why + n, sizeof res->why - n,
             "; before it, %s of %u bytes at shared offset %llu (%s:%d, lane %u of warp %u), "
             "past the block's %llu bytes of shared memory, moved nothing real", op, e->width,
             (unsigned long long)e->addr, e->file ? e->file : "?", e->line, e->lane, e->warp,
             (unsigned long long)e->size);
}

emu_status emu_run(emu_module *m, const emu_launch *l, const emu_sink *sink,
                   uint64_t max_warp_instructions, emu_result *res)
{
    memset(res, 0, sizeof *res);
    emu_program *p;
    if (check_launch(m, l, res) || get_program(m, l->kernel, res, &p) ||
        check_program(p, l, res))
        return res->status;
    emu_ctx x;
    memset(&x, 0, sizeof x);
    x.m = m;
    x.prog = p;
    x.dev = m->dev;
    x.l = l;
    x.sink = sink;
    x.res = res;
    x.budget = max_warp_instructions;
    x.params = l->params;
    memcpy(x.block_dim, l->block, sizeof x.block_dim);
    memcpy(x.grid_dim, l->grid, sizeof x.grid_dim);
    x.nthreads = l->block[0] * l->block[1] * l->block[2];
    x.nwarps = (x.nthreads + 31) / 32;
    if (alloc_ctx(&x)) {
        free_ctx(&x);
        return refuse(res, EMU_UNSUPPORTED, "the kernel needs more memory than the emulator gives "
                                            "a launch");
    }
    uint32_t blocks = l->grid[0] * l->grid[1] * l->grid[2];
    res->status = EMU_OK;
    for (uint32_t i = 0; i < blocks && res->status == EMU_OK; i++)
        if (run_block(&x, l->reverse ? blocks - 1 - i : i) && res->status == EMU_OK)
            res->status = EMU_FAULT; /* a failure that said nothing: never expected */
    res->warp_instructions = x.executed > x.budget ? x.budget : x.executed;
    if (res->status != EMU_OK && res->status != EMU_FAULT && res->shared_past)
        name_shared_past(res);
    emu_printed_flush(&x); /* also what a failed launch printed before it stopped */
    free_ctx(&x);
    return res->status;
}
