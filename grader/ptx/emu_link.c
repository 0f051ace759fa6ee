/*
 * emu_link.c - one kernel and every device function it calls as one flat
 * program: the code the interpreter runs.
 *
 * Each function keeps its own registers, predicates and frame (its .local
 * and .param variables), placed after the caller's: no recursion, so no
 * function is active twice in a thread and a static layout suffices (a
 * recursive call is refused when it runs). Labels, reconvergence points and
 * call targets become indices in the flat array; every variable named by an
 * instruction becomes a number: a device address (global, const), an offset
 * in the block's shared memory (the kernel's static layout), in the thread's
 * frame (local, device-function params) or in the parameter buffer, or a
 * generic address where the instruction is generic. pc = index * 16.
 */
#include "emu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct linker {
    const ptx_module *m;
    uint32_t kernel;
    uint32_t *order;      /* reachable functions with a body, the kernel first */
    uint32_t n_order;
    uint32_t *code_base, *slot_base, *pred_base, *frame_base; /* by function, PTX_NONE: absent */
    uint32_t *call_base, *table_base;
    uint8_t *back_edge;   /* by edge (a call site and one function it may call): a call
                             that closes a cycle */
    uint32_t *call_site_base; /* by function: its first edge */
    uint32_t *taken;      /* functions whose address is taken (indirect calls reach them) */
    uint32_t n_taken;
    uint64_t *shared_off; /* by variable: offset in shared memory, UINT64_MAX: not placed */
    uint64_t *local_off;  /* by variable: module-scope .local in the kernel's frame */
    uint32_t static_shared, dyn_base, frame_bytes;
    int dynamic;
} linker;

static uint32_t align_to(uint32_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

static void linker_free(linker *k)
{
    free(k->order);
    free(k->code_base);
    free(k->slot_base);
    free(k->pred_base);
    free(k->frame_base);
    free(k->call_base);
    free(k->table_base);
    free(k->back_edge);
    free(k->call_site_base);
    free(k->taken);
    free(k->shared_off);
    free(k->local_off);
}

/* The functions call c may reach: its callee, or (through a register) every function
   whose address the module takes. */
static uint32_t edges_of(const linker *k, const ptx_call *c)
{
    return c->func == PTX_NONE ? k->n_taken : 1;
}
static uint32_t edge_callee(const linker *k, const ptx_call *c, uint32_t e)
{
    return c->func == PTX_NONE ? k->taken[e] : c->func;
}

/* Call site c of function f: its first edge. */
static uint32_t edge_base(const linker *k, uint32_t f, uint32_t c)
{
    uint32_t e = k->call_site_base[f];
    for (uint32_t i = 0; i < c; i++)
        e += edges_of(k, &k->m->funcs[f].calls[i]);
    return e;
}

/* Functions reachable from the kernel, depth first; edges that close a cycle are marked. */
static int reach(linker *k)
{
    const ptx_module *m = k->m;
    uint32_t nf = m->n_funcs, edges = 0;
    k->taken = malloc((nf + 1) * sizeof(uint32_t));
    if (!k->taken)
        return -1;
    for (uint32_t f = 0; f < nf; f++)
        if (m->funcs[f].addr_taken)
            k->taken[k->n_taken++] = f;
    k->call_site_base = malloc((nf + 1) * sizeof(uint32_t));
    if (!k->call_site_base)
        return -1;
    for (uint32_t f = 0; f < nf; f++) {
        k->call_site_base[f] = edges;
        for (uint32_t c = 0; c < m->funcs[f].n_calls; c++)
            edges += edges_of(k, &m->funcs[f].calls[c]);
    }
    k->back_edge = calloc(edges + 1, 1);
    k->order = malloc((nf + 1) * sizeof(uint32_t));
    uint8_t *color = calloc(nf, 1);
    uint32_t *stack = malloc((nf + 1) * sizeof(uint32_t)), *next = calloc(nf, sizeof(uint32_t));
    int rc = -1;
    if (!k->back_edge || !k->order || !color || !stack || !next)
        goto done;
    uint32_t sp = 0;
    stack[sp++] = k->kernel;
    color[k->kernel] = 1;
    k->order[k->n_order++] = k->kernel;
    while (sp) {
        uint32_t f = stack[sp - 1];
        uint32_t end = f + 1 < nf ? k->call_site_base[f + 1] : edges;
        uint32_t e = k->call_site_base[f] + next[f];
        if (e >= end) {
            color[f] = 2;
            sp--;
            continue;
        }
        next[f]++;
        uint32_t c = 0, first = k->call_site_base[f]; /* which call site holds edge e */
        while (first + edges_of(k, &m->funcs[f].calls[c]) <= e)
            first += edges_of(k, &m->funcs[f].calls[c++]);
        uint32_t g = edge_callee(k, &m->funcs[f].calls[c], e - first);
        if (color[g] == 1) {
            k->back_edge[e] = 1;
        } else if (color[g] == 0) {
            color[g] = 1;
            if (m->funcs[g].has_body)
                k->order[k->n_order++] = g;
            stack[sp++] = g;
        }
    }
    rc = 0;
done:
    free(color);
    free(stack);
    free(next);
    return rc;
}

static int shared_var_reachable(const linker *k, const uint8_t *in_order, uint32_t v)
{
    const ptx_var *var = &k->m->vars[v];
    if (var->space != PS_SHARED)
        return 0;
    if (var->func != PTX_NONE)
        return in_order[var->func];
    for (uint32_t i = 0; i < k->n_order; i++) {
        const ptx_func *f = &k->m->funcs[k->order[i]];
        for (uint32_t u = 0; u < f->n_uses; u++)
            if (f->uses[u] == v)
                return 1;
    }
    return 0;
}

/* Static shared variables in declaration order, then the dynamic area (16-aligned). */
static int layout_shared(linker *k)
{
    const ptx_module *m = k->m;
    uint8_t *in_order = calloc(m->n_funcs + 1, 1);
    k->shared_off = malloc((m->n_vars + 1) * sizeof(uint64_t));
    if (!in_order || !k->shared_off) {
        free(in_order);
        return -1;
    }
    for (uint32_t i = 0; i < k->n_order; i++)
        in_order[k->order[i]] = 1;
    uint64_t off = 0;
    uint32_t dyn_align = 16;
    for (uint32_t v = 0; v < m->n_vars; v++) {
        k->shared_off[v] = UINT64_MAX;
        if (!shared_var_reachable(k, in_order, v))
            continue;
        const ptx_var *var = &m->vars[v];
        if (var->unsized) {
            k->dynamic = 1;
            if (var->align > dyn_align)
                dyn_align = var->align;
            continue;
        }
        off = (off + var->align - 1) / var->align * var->align;
        k->shared_off[v] = off;
        off += var->size;
        if (off > UINT32_MAX / 2)
            off = UINT32_MAX / 2; /* refused at launch: far past any GPU's shared memory */
    }
    k->static_shared = (uint32_t)off;
    k->dyn_base = align_to((uint32_t)off, dyn_align);
    for (uint32_t v = 0; v < m->n_vars; v++)
        if (m->vars[v].unsized && m->vars[v].space == PS_SHARED &&
            shared_var_reachable(k, in_order, v))
            k->shared_off[v] = k->dyn_base;
    free(in_order);
    return 0;
}

void emu_shared_of(const ptx_module *m, uint32_t func, uint32_t *static_bytes, int *dynamic)
{
    linker k;
    memset(&k, 0, sizeof k);
    k.m = m;
    k.kernel = func;
    *static_bytes = 0;
    *dynamic = 0;
    if (reach(&k) == 0 && layout_shared(&k) == 0) {
        *static_bytes = k.static_shared;
        *dynamic = k.dynamic;
    }
    linker_free(&k);
}

int emu_newer_in(const ptx_module *m, uint32_t func, int sm, emu_newer *out)
{
    linker k;
    int found = -1;
    memset(&k, 0, sizeof k);
    k.m = m;
    k.kernel = func;
    if (reach(&k) == 0) {
        found = 0;
        for (uint32_t i = 0; i < k.n_order && !found; i++) {
            const ptx_func *f = &m->funcs[k.order[i]];
            for (uint32_t c = 0; c < f->n_code && !found; c++) {
                const ptx_instr *in = &f->code[c];
                int need = ptx_instr_sm(in);
                if (need <= sm)
                    continue;
                found = 1;
                *out = (emu_newer){ptx_instr_text(in), need, NULL, (int)in->line};
                if (in->file != PTX_NONE && in->file < m->n_files)
                    out->file = m->files[in->file].path;
            }
        }
    }
    linker_free(&k);
    return found;
}

int emu_shared_vars(const ptx_module *m, uint32_t func, emu_shared_var *out, int max)
{
    linker k;
    int n = -1;
    memset(&k, 0, sizeof k);
    k.m = m;
    k.kernel = func;
    if (reach(&k) == 0 && layout_shared(&k) == 0) {
        n = 0;
        for (uint32_t v = 0; v < m->n_vars; v++) {
            if (k.shared_off[v] == UINT64_MAX)
                continue;
            if (n < max)
                out[n] = (emu_shared_var){m->vars[v].name, k.shared_off[v],
                                          m->vars[v].unsized ? 0 : m->vars[v].size,
                                          m->vars[v].unsized};
            n++;
        }
    }
    linker_free(&k);
    return n;
}

/* Bases of each function's code, registers, predicates, frame, call sites, tables. */
static int layout_functions(linker *k, uint32_t *n_code, uint32_t *n_slots, uint32_t *n_preds,
                            uint32_t *n_calls, uint32_t *n_tables)
{
    const ptx_module *m = k->m;
    uint32_t nf = m->n_funcs;
    uint32_t **bases[] = {&k->code_base, &k->slot_base, &k->pred_base, &k->frame_base,
                          &k->call_base, &k->table_base};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        *bases[i] = malloc((nf + 1) * sizeof(uint32_t));
        if (!*bases[i])
            return -1;
        for (uint32_t f = 0; f <= nf; f++)
            (*bases[i])[f] = PTX_NONE;
    }
    uint64_t code = 0, slots = 0, preds = 0, frame = 0, calls = 0, alts = 0, tables = 0;
    for (uint32_t i = 0; i < k->n_order; i++) {
        const ptx_func *f = &m->funcs[k->order[i]];
        uint32_t fi = k->order[i];
        frame = (frame + 15) / 16 * 16;
        if (f->frame_align > 16)
            frame = (frame + f->frame_align - 1) / f->frame_align * f->frame_align;
        k->code_base[fi] = (uint32_t)code;
        k->slot_base[fi] = (uint32_t)slots;
        k->pred_base[fi] = (uint32_t)preds;
        k->frame_base[fi] = (uint32_t)frame;
        k->call_base[fi] = (uint32_t)calls;
        k->table_base[fi] = (uint32_t)tables;
        code += f->n_code + 1; /* an implicit ret at the end */
        slots += f->n_slots;
        preds += f->n_preds;
        frame += f->frame_bytes;
        calls += f->n_calls;
        for (uint32_t c = 0; c < f->n_calls; c++) /* an indirect call's alternatives */
            alts += f->calls[c].func == PTX_NONE ? k->n_taken : 0;
        tables += f->n_tables;
    }
    calls += alts; /* after every call site (link_calls) */
    /* module-scope .local variables the code names, after every frame */
    k->local_off = malloc((m->n_vars + 1) * sizeof(uint64_t));
    if (!k->local_off)
        return -1;
    for (uint32_t v = 0; v < m->n_vars; v++) {
        k->local_off[v] = UINT64_MAX;
        const ptx_var *var = &m->vars[v];
        if (var->space != PS_LOCAL || var->func != PTX_NONE)
            continue;
        frame = (frame + var->align - 1) / var->align * var->align;
        k->local_off[v] = frame;
        frame += var->size;
    }
    if (code > (1u << 26) || slots > (1u << 24) || preds > (1u << 24) || frame > (1u << 30))
        return -1;
    k->frame_bytes = (uint32_t)((frame + 15) / 16 * 16);
    *n_code = (uint32_t)code;
    *n_slots = (uint32_t)slots;
    *n_preds = (uint32_t)preds;
    *n_calls = (uint32_t)calls;
    *n_tables = (uint32_t)tables;
    return 0;
}

/* A variable's address in its own state space, as the kernel lays things out. */
static uint64_t own_addr(const linker *k, uint32_t v)
{
    const ptx_var *var = &k->m->vars[v];
    switch (var->space) {
    case PS_GLOBAL:
    case PS_CONST:
        return var->addr;
    case PS_SHARED:
        return k->shared_off[v] == UINT64_MAX ? 0 : k->shared_off[v];
    case PS_LOCAL:
        if (var->func == PTX_NONE)
            return k->local_off[v] == UINT64_MAX ? 0 : k->local_off[v];
        return k->frame_base[var->func] == PTX_NONE ? 0 : k->frame_base[var->func] + var->addr;
    case PS_PARAM:
        if (var->kparam)
            return var->addr;
        return k->frame_base[var->func] == PTX_NONE ? 0 : k->frame_base[var->func] + var->addr;
    default:
        return 0;
    }
}

static uint64_t generic_addr(const linker *k, uint32_t v)
{
    const ptx_var *var = &k->m->vars[v];
    uint64_t a = own_addr(k, v);
    switch (var->space) {
    case PS_SHARED: return EMU_SHARED_WINDOW + a;
    case PS_LOCAL: return EMU_LOCAL_WINDOW + a;
    case PS_PARAM: return (var->kparam ? EMU_PARAM_WINDOW : EMU_LOCAL_WINDOW) + a;
    default: return a;
    }
}

/* Rewrite one instruction of function fi for the flat program. */
static void relocate(const linker *k, uint32_t fi, ptx_instr *in)
{
    const ptx_func *f = &k->m->funcs[fi];
    uint32_t sb = k->slot_base[fi], pb = k->pred_base[fi], cb = k->code_base[fi];
    if (in->guard != PTX_NONE)
        in->guard += pb;
    uint32_t addr_sym = PTX_NONE;
    for (int i = 0; i < in->nops && i < PTX_MAX_OPS; i++) {
        ptx_operand *o = &in->o[i];
        switch (o->kind) {
        case PO_REG:
        case PO_SINK:
            o->r += sb;
            break;
        case PO_PRED:
            o->r += pb;
            break;
        case PO_LABEL:
            o->r = cb + (o->r < f->n_code ? o->r : f->n_code);
            break;
        case PO_ADDR:
            if (o->r != PTX_NONE)
                o->r += sb;
            if (o->sym != PTX_NONE) {
                addr_sym = o->sym;
                o->imm += (int64_t)(in->space == PS_GENERIC ? generic_addr(k, o->sym)
                                                            : own_addr(k, o->sym));
            }
            break;
        default:
            break;
        }
    }
    if (in->op == OP_CALL)
        in->aux += k->call_base[fi];
    if (in->op == OP_BRX)
        in->aux += k->table_base[fi];
    if (in->space == PS_PARAM) { /* the kernel's buffer, or this thread's frame */
        int kparam = addr_sym != PTX_NONE ? k->m->vars[addr_sym].kparam : f->is_entry;
        in->space = kparam ? PS_KPARAM : PS_LOCAL;
    }
}

static void implicit_ret(ptx_instr *in, const ptx_func *f)
{
    memset(in, 0, sizeof *in);
    in->op = OP_RET;
    in->guard = PTX_NONE;
    in->text = "ret";
    in->line = f->n_code ? f->code[f->n_code - 1].line : f->line;
    in->file = f->n_code ? f->code[f->n_code - 1].file : PTX_NONE;
    in->call_file = PTX_NONE;
}

static int copy_code(const linker *k, emu_program *p)
{
    for (uint32_t i = 0; i < k->n_order; i++) {
        uint32_t fi = k->order[i], cb = k->code_base[fi];
        const ptx_func *f = &k->m->funcs[fi];
        for (uint32_t j = 0; j < f->n_code; j++) {
            p->code[cb + j] = f->code[j];
            relocate(k, fi, &p->code[cb + j]);
            uint32_t rc = f->reconv ? f->reconv[j] : PTX_NONE;
            p->reconv[cb + j] = rc == PTX_NONE ? PTX_NONE : cb + rc;
        }
        implicit_ret(&p->code[cb + f->n_code], f);
        p->reconv[cb + f->n_code] = PTX_NONE;
    }
    return 0;
}

static int copy_tables(const linker *k, emu_program *p)
{
    for (uint32_t i = 0; i < k->n_order; i++) {
        uint32_t fi = k->order[i];
        const ptx_func *f = &k->m->funcs[fi];
        for (uint32_t t = 0; t < f->n_tables; t++) {
            ptx_table *dst = &p->tables[k->table_base[fi] + t];
            dst->n = f->tables[t].n;
            dst->targets = malloc((dst->n + 1) * sizeof(uint32_t));
            if (!dst->targets)
                return -1;
            for (uint32_t e = 0; e < dst->n; e++) {
                uint32_t tg = f->tables[t].targets[e];
                dst->targets[e] = k->code_base[fi] + (tg < f->n_code ? tg : f->n_code);
            }
        }
    }
    return 0;
}

static int make_copies(const linker *k, uint32_t caller, const uint32_t *vars, uint32_t n,
                       const uint32_t *formal, uint32_t callee, int to_callee, emu_pcopy **out)
{
    *out = calloc(n + 1, sizeof(emu_pcopy));
    if (!*out)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const ptx_var *a = &k->m->vars[vars[i]], *b = &k->m->vars[formal[i]];
        uint32_t at_caller = (uint32_t)(k->frame_base[caller] + a->addr);
        uint32_t at_callee = (uint32_t)(k->frame_base[callee] + b->addr);
        uint32_t size = (uint32_t)(a->size < b->size ? a->size : b->size);
        (*out)[i] = to_callee ? (emu_pcopy){at_caller, at_callee, size}
                              : (emu_pcopy){at_callee, at_caller, size};
    }
    return 0;
}

/* A call from fi to function g through edge e, the arguments and results of call. */
static int link_callee(const linker *k, uint32_t fi, const ptx_call *call, uint32_t g,
                       uint32_t e, emu_call *out)
{
    const ptx_func *callee = &k->m->funcs[g];
    memset(out, 0, sizeof *out);
    out->kind = CALL_REFUSED;
    out->func = g;
    if (!callee->has_body) {
        if (strcmp(callee->name, "vprintf") == 0 && call->n_args == 2) {
            out->kind = CALL_PRINTF; /* args: the format and the argument buffer */
            out->n_args = call->n_args;
            out->n_rets = call->n_rets;
            return make_copies(k, fi, call->args, call->n_args, call->args, fi, 1, &out->args) ||
                   make_copies(k, fi, call->rets, call->n_rets, call->rets, fi, 1, &out->rets);
        }
        if (strcmp(callee->name, "__assertfail") == 0) {
            out->kind = CALL_ASSERT;
            return 0;
        }
        snprintf(out->why, sizeof out->why, "the emulator does not support calling `%s`",
                 callee->name);
        return 0;
    }
    if (k->back_edge[e]) {
        snprintf(out->why, sizeof out->why, "the emulator does not support the recursive call "
                 "to `%s`", callee->name);
        return 0;
    }
    if (call->n_args != callee->n_params || call->n_rets != callee->n_rets) {
        snprintf(out->why, sizeof out->why, "a call to `%s` with a different number of "
                 "parameters", callee->name);
        return 0;
    }
    out->kind = CALL_CODE;
    out->target = k->code_base[g];
    out->n_args = call->n_args;
    out->n_rets = call->n_rets;
    if (make_copies(k, fi, call->args, call->n_args, callee->params, g, 1, &out->args) ||
        make_copies(k, fi, call->rets, call->n_rets, callee->rets, g, 0, &out->rets))
        return -1;
    return 0;
}

/* Call site c of fi; an indirect one's alternatives go to calls[*next] on. */
static int link_call(const linker *k, uint32_t fi, uint32_t c, emu_call *calls, uint32_t at,
                     uint32_t *next)
{
    const ptx_call *call = &k->m->funcs[fi].calls[c];
    uint32_t e = edge_base(k, fi, c);
    if (call->func != PTX_NONE)
        return link_callee(k, fi, call, call->func, e, &calls[at]);
    memset(&calls[at], 0, sizeof calls[at]);
    calls[at].kind = CALL_INDIRECT;
    calls[at].func = PTX_NONE;
    calls[at].first_alt = *next;
    calls[at].n_alts = k->n_taken;
    for (uint32_t t = 0; t < k->n_taken; t++)
        if (link_callee(k, fi, call, k->taken[t], e + t, &calls[(*next)++]))
            return -1;
    return 0;
}

static int link_calls(const linker *k, emu_program *p)
{
    uint32_t next = 0; /* alternatives of indirect calls, after every call site */
    for (uint32_t i = 0; i < k->n_order; i++) {
        uint32_t fi = k->order[i];
        next += k->m->funcs[fi].n_calls;
    }
    for (uint32_t i = 0; i < k->n_order; i++) {
        uint32_t fi = k->order[i];
        for (uint32_t c = 0; c < k->m->funcs[fi].n_calls; c++)
            if (link_call(k, fi, c, p->calls, k->call_base[fi] + c, &next))
                return -1;
    }
    return 0;
}

/* Constant slots, special registers and constant predicates of every function. */
static int collect_inits(const linker *k, emu_program *p)
{
    uint32_t nc = 0, ns = 0, npf = 0, npt = 0;
    for (uint32_t i = 0; i < k->n_order; i++) {
        const ptx_func *f = &k->m->funcs[k->order[i]];
        nc += f->n_consts;
        ns += f->n_sregs;
        npf += f->pred_const[0] != PTX_NONE;
        npt += f->pred_const[1] != PTX_NONE;
    }
    p->consts = malloc((nc + 1) * sizeof *p->consts);
    p->sregs = malloc((ns + 1) * sizeof *p->sregs);
    p->pred_false = malloc((npf + 1) * sizeof(uint32_t));
    p->pred_true = malloc((npt + 1) * sizeof(uint32_t));
    if (!p->consts || !p->sregs || !p->pred_false || !p->pred_true)
        return -1;
    for (uint32_t i = 0; i < k->n_order; i++) {
        uint32_t fi = k->order[i];
        const ptx_func *f = &k->m->funcs[fi];
        for (uint32_t c = 0; c < f->n_consts; c++) {
            const ptx_const *pc = &f->consts[c];
            uint64_t v = (uint64_t)pc->value;
            if (pc->sym != PTX_NONE)
                v += own_addr(k, pc->sym);
            p->consts[p->n_consts++] = (emu_init){pc->slot + k->slot_base[fi], v};
        }
        for (uint32_t s = 0; s < f->n_sregs; s++)
            p->sregs[p->n_sregs++] =
                (ptx_sreg_slot){f->sregs[s].slot + k->slot_base[fi], f->sregs[s].sreg};
        if (f->pred_const[0] != PTX_NONE)
            p->pred_false[p->n_pred_false++] = f->pred_const[0] + k->pred_base[fi];
        if (f->pred_const[1] != PTX_NONE)
            p->pred_true[p->n_pred_true++] = f->pred_const[1] + k->pred_base[fi];
    }
    return 0;
}

static uint8_t ctl_of(const ptx_instr *in)
{
    if (in->flags & PF_UNSUPPORTED)
        return CTL_UNSUPPORTED;
    switch (in->op) {
    case OP_BRA: return CTL_BRA;
    case OP_BRX: return CTL_BRX;
    case OP_CALL: return CTL_CALL;
    case OP_RET: return CTL_RET;
    case OP_EXIT: return CTL_EXIT;
    case OP_TRAP: return CTL_TRAP;
    case OP_BAR: return CTL_BAR;
    default: return CTL_PLAIN;
    }
}

static void bind_steps(emu_program *p)
{
    for (uint32_t i = 0; i < p->n_code; i++) {
        emu_step *s = &p->steps[i];
        s->ctl = ctl_of(&p->code[i]);
        s->fn = NULL;
        if (s->ctl == CTL_PLAIN) {
            s->fn = emu_bind(&p->code[i]);
            if (!s->fn)
                s->ctl = CTL_UNSUPPORTED;
        }
    }
}

void emu_program_free(emu_program *p)
{
    if (!p)
        return;
    free(p->code);
    free(p->steps);
    free(p->reconv);
    free(p->consts);
    free(p->sregs);
    free(p->pred_false);
    free(p->pred_true);
    for (uint32_t i = 0; i < p->n_calls; i++) {
        free(p->calls[i].args);
        free(p->calls[i].rets);
    }
    free(p->calls);
    for (uint32_t i = 0; i < p->n_tables; i++)
        free(p->tables[i].targets);
    free(p->tables);
    free(p->record_fix);
    free(p->exitish);
    free(p->bar_pc);
    free(p->bar_branch);
    free(p->after);
    free(p);
}

static int build(linker *k, emu_program *p)
{
    const ptx_func *kf = &k->m->funcs[k->kernel];
    uint32_t n_code, n_slots, n_preds, n_calls, n_tables;
    if (reach(k) || layout_shared(k) ||
        layout_functions(k, &n_code, &n_slots, &n_preds, &n_calls, &n_tables))
        return -1;
    p->ptx = k->m;
    p->name = kf->name;
    p->n_code = n_code;
    p->n_slots = n_slots;
    p->n_preds = n_preds;
    p->code = calloc(n_code + 1, sizeof *p->code);
    p->steps = calloc(n_code + 1, sizeof *p->steps);
    p->reconv = calloc(n_code + 1, sizeof *p->reconv);
    p->calls = calloc(n_calls + 1, sizeof *p->calls);
    p->tables = calloc(n_tables + 1, sizeof *p->tables);
    if (!p->code || !p->steps || !p->reconv || !p->calls || !p->tables)
        return -1;
    p->n_calls = n_calls;
    p->n_tables = n_tables;
    p->local_bytes = k->frame_bytes;
    p->static_shared = k->static_shared;
    p->dyn_base = k->dyn_base;
    p->dynamic_shared = k->dynamic;
    p->param_bytes = kf->param_bytes;
    memcpy(p->maxntid, kf->maxntid, sizeof p->maxntid);
    memcpy(p->reqntid, kf->reqntid, sizeof p->reqntid);
    if (copy_code(k, p) || copy_tables(k, p) || link_calls(k, p) || collect_inits(k, p) ||
        emu_sync_cfg(p))
        return -1;
    bind_steps(p);
    return 0;
}

/* The fixes of the functions linked, by instruction of the flat program. */
static int place_fixes(const linker *k, emu_program *p, const emu_access_fix *fixes, int n)
{
    for (int i = 0; i < n; i++) {
        const emu_access_fix *f = &fixes[i];
        if (f->func >= k->m->n_funcs || k->code_base[f->func] == PTX_NONE ||
            f->instr >= k->m->funcs[f->func].n_code)
            continue;
        if (!p->record_fix && !(p->record_fix = calloc(p->n_code + 1, sizeof *p->record_fix)))
            return -1;
        p->record_fix[k->code_base[f->func] + f->instr] =
            (emu_record_fix){f->width, f->shift, f->merged};
    }
    return 0;
}

/* A function the kernel reaches whose body the reader set aside (ptx.h: ptx_func.bad):
   why names it and what the reader said; its source line, and where it was inlined. */
static int unreadable(const linker *k, char *why, size_t why_size, emu_where_at *at)
{
    const ptx_module *m = k->m;
    for (uint32_t i = 0; i < k->n_order; i++) {
        const ptx_func *f = &m->funcs[k->order[i]];
        if (!f->bad)
            continue;
        if (i == 0)
            snprintf(why, why_size, "the emulator cannot read the PTX nvcc made of this "
                     "kernel (PTX %s)", f->bad);
        else
            snprintf(why, why_size, "the emulator cannot read the PTX nvcc made of `%s`, a "
                     "function the kernel calls (PTX %s)", f->name, f->bad);
        if (at) {
            at->file = f->bad_file < m->n_files ? m->files[f->bad_file].path : NULL;
            at->line = (int)f->bad_line;
            at->call_file = f->bad_call_file < m->n_files ? m->files[f->bad_call_file].path
                                                           : NULL;
            at->call_line = at->call_file ? (int)f->bad_call_line : 0;
        }
        return 1;
    }
    return 0;
}

int emu_link(const ptx_module *m, uint32_t func, const emu_access_fix *fixes, int n_fixes,
             emu_program **out, char *why, size_t why_size, emu_where_at *at)
{
    linker k;
    memset(&k, 0, sizeof k);
    k.m = m;
    k.kernel = func;
    *out = NULL;
    if (at)
        memset(at, 0, sizeof *at);
    if (reach(&k) == 0 && unreadable(&k, why, why_size, at)) {
        linker_free(&k);
        return -1;
    }
    linker_free(&k);
    memset(&k, 0, sizeof k);
    k.m = m;
    k.kernel = func;
    emu_program *p = calloc(1, sizeof *p);
    if (!p || build(&k, p) || place_fixes(&k, p, fixes, n_fixes)) {
        snprintf(why, why_size, "the kernel is too large for the emulator (or out of memory)");
        emu_program_free(p);
        linker_free(&k);
        return -1;
    }
    linker_free(&k);
    *out = p;
    return 0;
}
