/*
 * ptx_decode.c - one PTX instruction statement to a ptx_instr.
 *
 * The opcode is split at its dots into a base name and modifiers; the
 * operands are read into a raw form first (names, numbers, addresses,
 * vectors, lists) and then typed by the base's decoder, which knows which
 * operand is a destination, a source of which type, a predicate, an address
 * or a label. Immediates become constant slots with the bits of the operand's
 * type, variable names constant slots holding their address.
 *
 * A form this emulator does not run (an unknown opcode, f16 arithmetic, a
 * modifier it does not know) still parses: it is marked PF_UNSUPPORTED and
 * fails only if a kernel executes it. Text that is not PTX is an error.
 */
#include "ptx_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_MODS 24
#define MAX_RAW 8
#define MAX_ELEMS 16

enum { R_NAME, R_NOT, R_NUM, R_ADDR, R_VEC, R_LIST, R_SINK };

typedef struct raw {
    uint8_t kind;
    uint8_t neg;        /* R_NUM: written with a minus */
    uint8_t n;          /* R_VEC: elements */
    uint32_t tok;       /* R_NAME, R_NOT, R_NUM: the token; R_LIST: the first name */
    uint32_t tok2;      /* R_NAME written a|b: b's token, else PTX_NONE */
    uint32_t base;      /* R_ADDR: the base name's token, or PTX_NONE */
    uint32_t count;     /* R_LIST: names */
    uint32_t elem;      /* R_VEC: first element in dctx.elems */
    int64_t off;        /* R_ADDR: the offset (an absolute address without a base) */
} raw;

typedef struct dctx {
    ptx_parser *p;
    ptx_instr *in;
    size_t at;          /* the opcode's token */
    uint32_t n_mods;
    struct {
        const char *s;
        uint32_t len;
        uint8_t used;
    } mods[MAX_MODS];
    raw r[MAX_RAW];
    uint32_t nr;
    raw elems[MAX_ELEMS];
    uint32_t ne;
    const char *shape;  /* how its operands read (operands()) */
    ptx_type t, t2;     /* the types the shape's t and T read */
    uint8_t t_set;      /* set by the decoder; else in->type and in->type2 */
} dctx;

static int derr(dctx *c, const char *what)
{
    return ptx_err(c->p, c->at, "`%s`: %s", ptx_instr_text(c->in), what);
}

static const ptx_tok *tok(dctx *c, uint32_t t)
{
    return &c->p->toks[t];
}
static const char *tok_text(dctx *c, uint32_t t)
{
    return c->p->text + c->p->toks[t].start;
}

/* --- modifiers ----------------------------------------------------------------- */

static int m_has(dctx *c, const char *s)
{
    size_t n = strlen(s);
    for (uint32_t i = 0; i < c->n_mods; i++)
        if (c->mods[i].len == n && memcmp(c->mods[i].s, s, n) == 0) {
            c->mods[i].used = 1;
            return 1;
        }
    return 0;
}

/* The k-th type among the modifiers (0: the first), PT_NONE if fewer. */
static ptx_type m_type(dctx *c, int k)
{
    for (uint32_t i = 0; i < c->n_mods; i++) {
        ptx_type t = ptx_type_parse(c->mods[i].s, c->mods[i].len);
        if (t != PT_NONE && k-- == 0) {
            c->mods[i].used = 1;
            return t;
        }
    }
    return PT_NONE;
}

static ptx_space m_space(dctx *c)
{
    if (m_has(c, "global"))
        return PS_GLOBAL;
    if (m_has(c, "shared") || m_has(c, "shared::cta"))
        return PS_SHARED;
    if (m_has(c, "local"))
        return PS_LOCAL;
    if (m_has(c, "const"))
        return PS_CONST;
    if (m_has(c, "param") || m_has(c, "param::entry") || m_has(c, "param::func"))
        return PS_PARAM;
    return PS_GENERIC;
}

static int m_rnd(dctx *c)
{
    static const char *const names[] = {"rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"};
    for (int i = 0; i < 9; i++)
        if (m_has(c, names[i]))
            return PR_RN + i;
    return PR_NONE;
}

static int m_cmp(dctx *c)
{
    static const char *const names[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                        "lo",  "ls",  "hi",  "hs",  "equ", "neu",
                                        "ltu", "leu", "gtu", "geu", "num", "nan"};
    for (int i = 0; i < 18; i++)
        if (m_has(c, names[i]))
            return i;
    return -1;
}

/* Sub-operation among names (mapped to PM_* values); PM_NONE if none. */
static int m_pick(dctx *c, const char *const *names, const int *values, int n)
{
    for (int i = 0; i < n; i++)
        if (m_has(c, names[i]))
            return values[i];
    return PM_NONE;
}

/* Modifiers that each set one flag of the instruction: "ftz" PF_FTZ, ... (names and
   flags, n of each). */
static void m_flags(dctx *c, const char *const *names, const uint16_t *flags, int n)
{
    for (int i = 0; i < n; i++)
        if (m_has(c, names[i]))
            c->in->flags |= flags[i];
}

/* Qualifiers that change nothing for a one-thread-at-a-time interpreter; the memory
   orders among them are kept for the race check (ptx_instr.sem). */
static void m_ignore(dctx *c)
{
    if (m_has(c, "acquire"))
        c->in->sem |= PSEM_ACQUIRE;
    if (m_has(c, "release"))
        c->in->sem |= PSEM_RELEASE;
    if (m_has(c, "acq_rel"))
        c->in->sem |= PSEM_ACQUIRE | PSEM_RELEASE;
    static const char *const names[] = {
        "cta",  "gpu",  "sys",   "cluster", "relaxed", "acquire", "release", "acq_rel",
        "sc",   "weak", "volatile", "mmio", "ca",     "cg",      "cs",      "lu",
        "cv",   "wb",   "wt",    "nc",      "aligned", "uni",     "noftz",   "L1",
        "L2",   "level", "async", "proxy",  "tensormap"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        m_has(c, names[i]);
    for (uint32_t i = 0; i < c->n_mods; i++)
        if (memchr(c->mods[i].s, ':', c->mods[i].len))
            c->mods[i].used = 1; /* L1::evict_last, L2::128B, L2::cache_hint, ... */
}

static void m_finish(dctx *c)
{
    for (uint32_t i = 0; i < c->n_mods; i++)
        if (!c->mods[i].used)
            c->in->flags |= PF_UNSUPPORTED;
}

/* --- raw operands ------------------------------------------------------------------- */

/* A raw operand of kind, nothing read into it yet (R_NAME and R_NUM: their kind is set
   once their token is seen). */
static void raw_clear(raw *r, uint8_t kind)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->tok2 = r->base = PTX_NONE;
}

/* After an element of a list written a, b, c: 1 when a comma follows (consumed). */
static int raw_more(ptx_parser *p)
{
    if (ptx_peek(p)->kind != TK_COMMA)
        return 0;
    ptx_next(p);
    return 1;
}

static int raw_simple(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    const ptx_tok *t = ptx_peek(p);
    raw_clear(r, R_NAME);
    if (t->kind == TK_IDENT) {
        r->kind = ptx_tok_is(p, t, "_") ? R_SINK : R_NAME;
        r->tok = (uint32_t)p->pos;
        ptx_next(p);
        return 0;
    }
    if (t->kind == TK_BANG) {
        ptx_next(p);
        if (ptx_peek(p)->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a predicate after '!'");
        r->kind = R_NOT;
        r->tok = (uint32_t)p->pos;
        ptx_next(p);
        return 0;
    }
    if (t->kind == TK_MINUS) {
        r->neg = 1;
        ptx_next(p);
        t = ptx_peek(p);
    }
    if (t->kind == TK_INT || t->kind == TK_FLOAT) {
        r->kind = R_NUM;
        r->tok = (uint32_t)p->pos;
        ptx_next(p);
        return 0;
    }
    return ptx_err(p, p->pos, "expected an operand");
}

static int raw_addr(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    raw_clear(r, R_ADDR);
    ptx_next(p); /* [ */
    const ptx_tok *t = ptx_peek(p);
    int have_num = 0;
    if (t->kind == TK_IDENT) {
        r->base = (uint32_t)p->pos;
        ptx_next(p);
    } else if (t->kind == TK_INT) {
        if (t->u > INT64_MAX)
            return ptx_err(p, p->pos, "an address past 2^63");
        r->off = (int64_t)t->u;
        have_num = 1;
        ptx_next(p);
    } else {
        return ptx_err(p, p->pos, "expected a register, a variable or an address in [ ]");
    }
    if (!have_num && (ptx_peek(p)->kind == TK_PLUS || ptx_peek(p)->kind == TK_MINUS)) {
        int neg = ptx_next(p)->kind == TK_MINUS;
        if (ptx_peek(p)->kind == TK_MINUS) { /* [x+-4] */
            neg = !neg;
            ptx_next(p);
        }
        t = ptx_peek(p);
        if (t->kind != TK_INT || t->u > INT64_MAX)
            return ptx_err(p, p->pos, "expected an offset in [ ]");
        r->off = neg ? -(int64_t)t->u : (int64_t)t->u;
        ptx_next(p);
    }
    return ptx_expect(p, TK_RBRACK, "to close an address");
}

static int raw_vec(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    raw_clear(r, R_VEC);
    r->elem = c->ne;
    ptx_next(p); /* { */
    for (;;) {
        if (c->ne >= MAX_ELEMS || r->n >= 8)
            return ptx_err(p, p->pos, "a vector of more than 8 elements");
        if (raw_simple(c, &c->elems[c->ne]))
            return -1;
        c->ne++;
        r->n++;
        if (!raw_more(p))
            break;
    }
    return ptx_expect(p, TK_RBRACE, "to close a vector");
}

/* ( a, b, c ): the names of a call's arguments or results. */
static int raw_list(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    raw_clear(r, R_LIST);
    ptx_next(p); /* ( */
    r->tok = (uint32_t)p->pos;
    while (ptx_peek(p)->kind != TK_RPAREN) {
        if (ptx_peek(p)->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a parameter name in ( )");
        if (r->count >= PTX_MAX_PARAM_LIST)
            return ptx_err(p, p->pos, "more than %d parameters", PTX_MAX_PARAM_LIST);
        r->count++;
        ptx_next(p);
        if (!raw_more(p))
            break;
    }
    return ptx_expect(p, TK_RPAREN, "to close a parameter list");
}

static int raw_operand(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    switch (ptx_peek(p)->kind) {
    case TK_LBRACK: return raw_addr(c, r);
    case TK_LBRACE: return raw_vec(c, r);
    case TK_LPAREN: return raw_list(c, r);
    default: break;
    }
    if (raw_simple(c, r))
        return -1;
    if (r->kind == R_NAME && ptx_peek(p)->kind == TK_PIPE) {
        ptx_next(p);
        if (ptx_peek(p)->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a predicate after '|'");
        r->tok2 = (uint32_t)p->pos;
        ptx_next(p);
    }
    return 0;
}

static int raw_operands(dctx *c)
{
    ptx_parser *p = c->p;
    c->nr = c->ne = 0;
    if (ptx_peek(p)->kind == TK_SEMI) {
        ptx_next(p);
        return 0;
    }
    for (;;) {
        if (c->nr >= MAX_RAW)
            return ptx_err(p, p->pos, "more than %d operands", MAX_RAW);
        if (raw_operand(c, &c->r[c->nr]))
            return -1;
        c->nr++;
        if (!raw_more(p))
            break;
    }
    return ptx_expect(p, TK_SEMI, "at the end of an instruction");
}

/* The operands of an instruction that will not run: skipped up to its ';' (vectors in
   them may hold braces, the body's closing brace may not come first). */
static int skip_operands(dctx *c)
{
    ptx_parser *p = c->p;
    int depth = 0;
    while (ptx_peek(p)->kind != TK_SEMI || depth > 0) {
        tok_kind k = (tok_kind)ptx_peek(p)->kind;
        if (k == TK_EOF || (k == TK_RBRACE && depth == 0))
            return ptx_err(p, p->pos, "an instruction without ';'");
        depth += k == TK_LBRACE;
        depth -= k == TK_RBRACE;
        ptx_next(p);
    }
    ptx_next(p);
    return 0;
}

/* --- typed operands --------------------------------------------------------------------- */

static int want(dctx *c, uint32_t lo, uint32_t hi)
{
    if (c->nr < lo || c->nr > hi)
        return derr(c, lo == hi ? "wrong number of operands" : "wrong number of operands");
    return 0;
}

static uint32_t sink_slot(dctx *c)
{
    if (c->p->sink_slot == PTX_NONE)
        c->p->sink_slot = ptx_new_slot(c->p);
    return c->p->sink_slot;
}

/* A register named by token t (not a predicate unless pred). */
static int name_reg(dctx *c, uint32_t t, int pred, ptx_operand *o)
{
    uint32_t slot;
    ptx_type ty;
    int rc = ptx_lookup_reg(c->p, tok_text(c, t), tok(c, t)->len, &slot, &ty);
    if (rc == -2)
        return ptx_err(c->p, t, "more than %u registers in one function", PTX_MAX_SLOTS);
    if (rc)
        return ptx_err(c->p, t, "`%.*s` is not a declared register", (int)tok(c, t)->len,
                       tok_text(c, t));
    if ((ty == PT_PRED) != (pred != 0))
        return ptx_err(c->p, t, pred ? "`%.*s` is not a predicate" : "`%.*s` is a predicate",
                       (int)tok(c, t)->len, tok_text(c, t));
    memset(o, 0, sizeof *o);
    o->kind = pred ? PO_PRED : PO_REG;
    o->r = slot;
    o->sym = PTX_NONE;
    o->size = (uint8_t)ptx_type_size(ty);
    return 0;
}

static int dst_raw(dctx *c, const raw *r, ptx_operand *o)
{
    if (r->kind == R_SINK) {
        memset(o, 0, sizeof *o);
        o->kind = PO_SINK;
        o->r = sink_slot(c);
        o->sym = PTX_NONE;
        o->size = 8;
        return o->r == PTX_NONE ? derr(c, "too many registers") : 0;
    }
    if (r->kind != R_NAME || r->tok2 != PTX_NONE)
        return derr(c, "expected a destination register");
    return name_reg(c, r->tok, 0, o);
}

static int pred_dst_tok(dctx *c, uint32_t t, ptx_operand *o)
{
    if (ptx_tok_is(c->p, tok(c, t), "_")) {
        memset(o, 0, sizeof *o);
        o->kind = PO_PRED;
        o->sym = PTX_NONE;
        if (c->p->f->n_preds >= PTX_MAX_SLOTS)
            return derr(c, "too many predicates");
        o->r = c->p->f->n_preds++; /* a scratch predicate */
        return 0;
    }
    return name_reg(c, t, 1, o);
}

/* A constant slot of value (plus the address of sym). */
static int const_operand(dctx *c, int64_t value, uint32_t sym, int size, ptx_operand *o)
{
    memset(o, 0, sizeof *o);
    o->kind = PO_REG;
    o->is_imm = 1;
    o->size = (uint8_t)size;
    o->sym = sym;
    o->imm = value;
    o->r = ptx_const_slot(c->p, value, sym);
    return o->r == PTX_NONE ? derr(c, "too many registers") : 0;
}

/* The predicate that always holds v (mov.pred %p, 1). */
static int const_pred(dctx *c, int v, ptx_operand *o)
{
    ptx_func *f = c->p->f;
    if (f->pred_const[v] == PTX_NONE) {
        if (f->n_preds >= PTX_MAX_SLOTS)
            return derr(c, "too many predicates");
        f->pred_const[v] = f->n_preds++;
    }
    memset(o, 0, sizeof *o);
    o->kind = PO_PRED;
    o->r = f->pred_const[v];
    o->sym = PTX_NONE;
    return 0;
}

static int src_name(dctx *c, uint32_t t, ptx_type ty, ptx_operand *o)
{
    ptx_parser *p = c->p;
    const char *s = tok_text(c, t);
    uint32_t n = tok(c, t)->len;
    uint32_t slot;
    ptx_type rty;
    int rc = ptx_lookup_reg(p, s, n, &slot, &rty);
    if (rc == 0)
        return name_reg(c, t, ty == PT_PRED, o);
    if (rc == -2)
        return ptx_err(p, t, "more than %u registers in one function", PTX_MAX_SLOTS);
    ptx_sreg sr;
    if (ptx_lookup_sreg(s, n, &sr) == 0) {
        memset(o, 0, sizeof *o);
        o->sym = PTX_NONE;
        if (sr > PSR_LAST_FIXED) {
            o->kind = PO_SREG;
            o->r = (uint32_t)sr;
            o->size = 8;
            return 0;
        }
        o->kind = PO_REG;
        o->r = ptx_sreg_slot_of(p, sr);
        o->size = 4;
        return o->r == PTX_NONE ? derr(c, "too many registers") : 0;
    }
    uint32_t v = ptx_lookup_var(p, s, n);
    if (v != PTX_NONE) {
        if (ptx_use_var(p, v))
            return derr(c, "out of memory");
        return const_operand(c, 0, v, 8, o);
    }
    uint32_t fi = ptx_map_get(&p->funcs, s, n);
    if (fi != PTX_NONE) { /* a function's address, for an indirect call */
        p->m->funcs[fi].addr_taken = 1;
        return const_operand(c, (int64_t)(PTX_CODE_BASE + 16 * (uint64_t)fi), PTX_NONE, 8, o);
    }
    if (n == 7 && memcmp(s, "WARP_SZ", 7) == 0) /* the PTX ISA's one predefined constant */
        return const_operand(c, 32, PTX_NONE, 4, o);
    return ptx_err(p, t, "unknown name `%.*s`", (int)n, s);
}

/* A source value of type ty: register, immediate, variable address, special register. */
static int src_raw(dctx *c, const raw *r, ptx_type ty, ptx_operand *o)
{
    if (r->kind == R_NUM) {
        uint64_t bits;
        if (ty == PT_PRED) {
            const ptx_tok *t = tok(c, r->tok);
            if (t->kind != TK_INT)
                return derr(c, "expected a predicate");
            return const_pred(c, t->u != 0, o); /* 1 and -1 are true, 0 false */
        }
        if (ptx_imm_bits(c->p, tok(c, r->tok), r->neg, ty, &bits))
            return -1;
        return const_operand(c, (int64_t)bits, PTX_NONE, ptx_type_size(ty), o);
    }
    if (r->kind == R_NOT) {
        if (ty != PT_PRED)
            return derr(c, "'!' on a value that is not a predicate");
        if (name_reg(c, r->tok, 1, o))
            return -1;
        o->neg = 1;
        return 0;
    }
    if (r->kind != R_NAME || r->tok2 != PTX_NONE)
        return derr(c, "expected a register or a constant");
    return src_name(c, r->tok, ty, o);
}

static int addr_raw(dctx *c, const raw *r, ptx_operand *o)
{
    if (r->kind != R_ADDR)
        return derr(c, "expected an address [ ... ]");
    memset(o, 0, sizeof *o);
    o->kind = PO_ADDR;
    o->r = o->sym = PTX_NONE;
    o->imm = r->off;
    if (r->base == PTX_NONE)
        return 0;
    const char *s = tok_text(c, r->base);
    uint32_t n = tok(c, r->base)->len;
    uint32_t slot;
    ptx_type ty;
    int rc = ptx_lookup_reg(c->p, s, n, &slot, &ty);
    if (rc == 0) {
        if (ty == PT_PRED)
            return derr(c, "a predicate as an address");
        o->r = slot;
        o->size = (uint8_t)ptx_type_size(ty);
        return 0;
    }
    uint32_t v = ptx_lookup_var(c->p, s, n);
    if (v == PTX_NONE)
        return ptx_err(c->p, r->base, "unknown name `%.*s` in an address", (int)n, s);
    if (ptx_use_var(c->p, v))
        return derr(c, "out of memory");
    o->sym = v;
    return 0;
}

/* Predicate sources may be written !%p. */
static int pred_src_raw(dctx *c, const raw *r, ptx_operand *o)
{
    return src_raw(c, r, PT_PRED, o);
}

static int label_raw(dctx *c, const raw *r, int k)
{
    ptx_parser *p = c->p;
    if (r->kind != R_NAME)
        return derr(c, "expected a label");
    ptx_instr *in = c->in;
    memset(&in->o[k], 0, sizeof in->o[k]);
    in->o[k].kind = PO_LABEL;
    in->o[k].r = PTX_NONE;
    in->o[k].sym = PTX_NONE;
    if (ptx_grow(&p->fixes, &p->fixes_cap, p->n_fixes, sizeof(label_fix)))
        return derr(c, "out of memory");
    p->fixes[p->n_fixes++] = (label_fix){p->f->n_code, (uint8_t)k, 0, 0, r->tok};
    return 0;
}

int ptx_resolve_labels(ptx_parser *p)
{
    for (uint32_t i = 0; i < p->n_fixes; i++) {
        label_fix *fx = &p->fixes[i];
        const ptx_tok *t = &p->toks[fx->tok];
        uint32_t at = ptx_map_get(&p->labels, p->text + t->start, t->len);
        if (at == PTX_NONE || (at & 0x80000000u))
            return ptx_err(p, fx->tok, "unknown label `%.*s`", (int)t->len, p->text + t->start);
        if (fx->op == 0xff)
            p->f->tables[fx->table].targets[fx->entry] = at;
        else
            p->f->code[fx->instr].o[fx->op].r = at;
    }
    return 0;
}

/* --- types ---------------------------------------------------------------------------- */

static int is_int(ptx_type t)
{
    return t >= PT_B8 && t <= PT_S64 && t != PT_B128;
}
static int is_f3264(ptx_type t)
{
    return t == PT_F32 || t == PT_F64;
}
static int is_half(ptx_type t)
{
    return t == PT_F16 || t == PT_F16X2 || t == PT_BF16 || t == PT_BF16X2;
}

/* Wider integer of the same signedness (mul.wide, mad.wide). */
static ptx_type wide_of(ptx_type t)
{
    switch (t) {
    case PT_U16: return PT_U32;
    case PT_S16: return PT_S32;
    case PT_U32: return PT_U64;
    case PT_S32: return PT_S64;
    default: return PT_NONE;
    }
}

/* Float modifiers shared by arithmetic: rounding, ftz, sat. */
static void float_mods(dctx *c)
{
    ptx_instr *in = c->in;
    static const char *const names[] = {"ftz", "sat", "approx", "full", "NaN", "relu"};
    static const uint16_t flags[] = {PF_FTZ, PF_SAT, PF_APPROX, PF_FULL, PF_NAN, PF_RELU};
    in->rnd = (uint8_t)m_rnd(c);
    m_flags(c, names, flags, 6);
}

/* --- operands by shape --------------------------------------------------------------- */

/*
 * The operands of an instruction, as its table row (or its decoder) gives them: one
 * letter an operand, in order, each filling the next o[] slot (spaces are ignored).
 *   d  a destination register (or the sink _)    P  a destination predicate
 *   R  d[|p]: a destination register, then a predicate or none (two slots)
 *   D  p[|q]: a destination predicate, then a second one or none (two slots)
 *   t  a source of c->t (register, immediate, a variable's address, special register)
 *   T  a source of c->t2     u  of .u32     b  of .b32     q  of .u64
 *   p  a source predicate, {!}p                 a  an address [ ... ]   l  a label
 *   m  the member mask of a .sync warp instruction (a .b32 source)
 *   M  the member mask not written: every lane (no operand read)
 *   -  a slot left empty (no operand read)
 *   ?x x when the instruction has more operands than the letters after it need, else an
 *      empty slot
 * The instruction must have as many operands as the letters ask ("wrong number of
 * operands"); nops is the slots filled.
 */
static int operands(dctx *c, const char *shape)
{
    ptx_instr *in = c->in;
    uint32_t need = 0, optional = 0;
    for (const char *s = shape; *s; s++) {
        if (*s == '?')
            optional++, s++;
        else if (*s != ' ' && *s != 'M' && *s != '-')
            need++;
    }
    if (want(c, need, need + optional))
        return -1;
    uint32_t ri = 0, k = 0, extra = c->nr - need; /* optional operands present */
    for (const char *s = shape; *s; s++) {
        if (*s == ' ')
            continue;
        if (*s == '?') {
            s++;
            if (extra == 0) {
                in->o[k++].kind = PO_NONE;
                continue;
            }
            extra--;
        }
        if (*s == '-') {
            in->o[k++].kind = PO_NONE;
            continue;
        }
        if (*s == 'M') {
            if (const_operand(c, -1, PTX_NONE, 4, &in->o[k++]))
                return -1;
            continue;
        }
        const raw *r = &c->r[ri++];
        int rc;
        switch (*s) {
        case 'd': rc = dst_raw(c, r, &in->o[k++]); break;
        case 'P':
            rc = r->kind != R_NAME ? derr(c, "expected a predicate")
                                   : pred_dst_tok(c, r->tok, &in->o[k++]);
            break;
        case 'R': case 'D': {
            raw first = *r;
            first.tok2 = PTX_NONE;
            if (*s == 'D')
                rc = r->kind != R_NAME ? derr(c, "expected a predicate")
                                       : pred_dst_tok(c, r->tok, &in->o[k]);
            else
                rc = dst_raw(c, &first, &in->o[k]);
            k++;
            if (rc == 0 && r->tok2 != PTX_NONE)
                rc = pred_dst_tok(c, r->tok2, &in->o[k]);
            else if (rc == 0)
                in->o[k].kind = PO_NONE;
            k++;
            break;
        }
        case 't': rc = src_raw(c, r, c->t, &in->o[k++]); break;
        case 'T': rc = src_raw(c, r, c->t2, &in->o[k++]); break;
        case 'u': rc = src_raw(c, r, PT_U32, &in->o[k++]); break;
        case 'b': case 'm': rc = src_raw(c, r, PT_B32, &in->o[k++]); break;
        case 'q': rc = src_raw(c, r, PT_U64, &in->o[k++]); break;
        case 'p': rc = pred_src_raw(c, r, &in->o[k++]); break;
        case 'a': rc = addr_raw(c, r, &in->o[k++]); break;
        case 'l': rc = label_raw(c, r, (int)k++); break;
        default: rc = derr(c, "internal: a bad operand shape");
        }
        if (rc)
            return -1;
    }
    in->nops = (uint8_t)k;
    return 0;
}

/* --- decoders: the modifiers of each instruction, then its operands' shape -------------- */

/*
 * A decoder reads the instruction's modifiers into in (type, rounding, flags, the
 * sub-operation) and may change the shape of its operands (c->shape, the row's by
 * default) and the types the letters t and T read (c->t, c->t2: in->type and
 * in->type2 by default). It returns 0 for the operands to be read by c->shape, -1 on
 * an error, or DECODED when it has read them itself or there are none to read (a form
 * that never runs).
 */
#define DECODED 1

/* The decoder reads the operands itself (c->shape = OWN: ld, st, atom, call, ...). */
#define OWN "*"
/* A row's shape: its operands are skipped, it runs as a no-op (membar, fence, prefetch). */
#define SKIP "~"

/* Sources the letter t (T) reads: of type t (t2), not in->type (in->type2). */
static void source_types(dctx *c, ptx_type t, ptx_type t2)
{
    c->t = t;
    c->t2 = t2;
    c->t_set = 1;
}

/* brev, bfe, bfi, shl, shr, selp, activemask: the type alone. */
static int dec_typed(dctx *c)
{
    c->in->type = (uint8_t)m_type(c, 0);
    return 0;
}

/* bra, ret, exit, trap: .uni alone. */
static int dec_uni(dctx *c)
{
    if (m_has(c, "uni"))
        c->in->flags |= PF_UNI;
    return 0;
}

/* add sub mul div rem mul24 abs neg min max mad sad mad24, integer or float. */
static int dec_arith(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    if (is_int(t)) {
        static const char *const names[] = {"hi", "lo", "wide", "sat", "cc"};
        static const uint16_t flags[] = {PF_HI, PF_LO, PF_WIDE, PF_SAT, PF_CC};
        m_flags(c, names, flags, 5);
        if (in->flags & PF_WIDE) {
            in->type2 = (uint8_t)wide_of(t);
            if (in->type2 == PT_NONE)
                in->flags |= PF_UNSUPPORTED;
            return 0;
        }
    } else if (is_f3264(t) || is_half(t)) {
        float_mods(c);
    } else {
        in->flags |= PF_UNSUPPORTED;
    }
    source_types(c, t == PT_NONE ? PT_B32 : t, (ptx_type)in->type2);
    return 0;
}

/* mad sad mad24: mad.wide's c has the wide type. */
static int dec_arith3(dctx *c)
{
    if (dec_arith(c))
        return -1;
    if (c->in->flags & PF_WIDE)
        c->shape = "d t t T";
    return 0;
}

/* min/max: two sources, or three (sm_90 three-input forms). */
static int dec_minmax(dctx *c)
{
    if (c->nr != 4)
        return dec_arith(c);
    c->shape = "d t t t";
    return dec_arith3(c);
}

/* popc, clz, bfind: d (u32), a (type). */
static int dec_count(dctx *c)
{
    c->in->type = (uint8_t)m_type(c, 0);
    if (m_has(c, "shiftamt"))
        c->in->mod = PM_SHIFTAMT;
    return 0;
}

static int dec_shf(dctx *c)
{
    static const char *const lr[] = {"l", "r"}, *const wc[] = {"wrap", "clamp"};
    static const int lrv[] = {PM_L, PM_R}, wcv[] = {PM_WRAP, PM_CLAMP};
    c->in->type = (uint8_t)m_type(c, 0);
    c->in->mod = (uint8_t)m_pick(c, lr, lrv, 2);
    c->in->mod2 = (uint8_t)m_pick(c, wc, wcv, 2);
    return 0;
}

static int dec_prmt(dctx *c)
{
    static const char *const modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    static const int mv[] = {PM_F4E, PM_B4E, PM_RC8, PM_ECL, PM_ECR, PM_RC16};
    c->in->type = (uint8_t)m_type(c, 0);
    c->in->mod = (uint8_t)m_pick(c, modes, mv, 6);
    return 0;
}

/* lop3.b32 d, a, b, c, immLut; lop3.or with a predicate never runs. */
static int dec_lop3(dctx *c)
{
    c->in->type = (uint8_t)m_type(c, 0);
    if (c->nr != 5) {
        c->in->flags |= PF_UNSUPPORTED;
        c->shape = OWN;
    }
    return 0;
}

/* szext, bmsk: .wrap or .clamp. */
static int dec_wrap_clamp(dctx *c)
{
    static const char *const wc[] = {"wrap", "clamp"};
    static const int wcv[] = {PM_WRAP, PM_CLAMP};
    c->in->type = (uint8_t)m_type(c, 0);
    c->in->mod = (uint8_t)m_pick(c, wc, wcv, 2);
    return 0;
}

/* and or xor not cnot: integers or predicates. */
static int dec_logic(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    if (in->type == PT_PRED)
        c->shape = in->op == OP_NOT || in->op == OP_CNOT ? "P p" : "P p p";
    return 0;
}

/* addc subc madc */
static int dec_carry(dctx *c)
{
    ptx_instr *in = c->in;
    static const char *const names[] = {"cc", "hi", "lo"};
    static const uint16_t flags[] = {PF_CC, PF_HI, PF_LO};
    in->type = (uint8_t)m_type(c, 0);
    m_flags(c, names, flags, 3);
    return 0;
}

static int dec_dp4a(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    in->type2 = (uint8_t)m_type(c, 1);
    if (in->op == OP_DP2A)
        in->flags |= PF_UNSUPPORTED;
    return 0;
}

/* fma rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign: float only. */
static int dec_float(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    float_mods(c);
    if (!is_f3264(t) && !(is_half(t) && in->op == OP_FMA))
        in->flags |= PF_UNSUPPORTED;
    source_types(c, t == PT_NONE ? PT_F32 : t, PT_NONE);
    return 0;
}

static int dec_testp(dctx *c)
{
    static const char *const names[] = {"finite", "infinite", "number",
                                        "notanumber", "normal", "subnormal"};
    static const int v[] = {PM_FINITE, PM_INFINITE, PM_NUMBER,
                            PM_NOTANUMBER, PM_NORMAL, PM_SUBNORMAL};
    c->in->mod = (uint8_t)m_pick(c, names, v, 6);
    c->in->type = (uint8_t)m_type(c, 0);
    return 0;
}

/* The comparison, the boolean operation that combines its result ([.bool]) and
   .ftz of setp and set: -1 without a comparison. */
static int compare_mods(dctx *c)
{
    static const char *const names[] = {"and", "or", "xor"};
    static const int v[] = {PM_AND, PM_OR, PM_XOR};
    ptx_instr *in = c->in;
    int cmp = m_cmp(c);
    in->mod2 = (uint8_t)m_pick(c, names, v, 3);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    in->type = (uint8_t)m_type(c, 0);
    in->mod = (uint8_t)(cmp < 0 ? 0 : cmp);
    return cmp;
}

/* setp.cmp[.bool][.ftz].type p[|q], a, b[, {!}c] */
static int dec_setp(dctx *c)
{
    if (compare_mods(c) < 0)
        return derr(c, "setp without a comparison");
    if (c->nr != (c->in->mod2 ? 4u : 3u) || c->r[0].kind != R_NAME)
        return derr(c, "wrong operands");
    if (c->in->mod2)
        c->shape = "D t t p";
    return 0;
}

/* set.cmp[.bool][.ftz].dtype.stype d, a, b[, {!}c] */
static int dec_set(dctx *c)
{
    if (compare_mods(c) < 0)
        return derr(c, "set without a comparison");
    c->in->type2 = (uint8_t)m_type(c, 1);
    if (c->in->mod2)
        c->shape = "d T T p";
    return 0;
}

static int dec_slct(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    in->type2 = (uint8_t)m_type(c, 1);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    return 0;
}

/* The register operands of a vector raw, each of element type et. */
static int vec_regs(dctx *c, const raw *v, int first, int dst, ptx_type et)
{
    ptx_instr *in = c->in;
    if (v->n > 4 || first + v->n > PTX_MAX_OPS)
        return derr(c, "vectors of more than 4 elements are not supported");
    for (int i = 0; i < v->n; i++) {
        const raw *e = &c->elems[v->elem + (uint32_t)i];
        if (dst ? dst_raw(c, e, &in->o[first + i]) : src_raw(c, e, et, &in->o[first + i]))
            return -1;
    }
    return 0;
}

/* mov.type d, a; mov.pred p, {!}q; the pack and unpack forms: mov.b64 d, {a, b} and
   mov.b64 {a, b}, d (vec elements, mod PM_PACK or PM_UNPACK). */
static int dec_mov(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    if (t == PT_PRED) {
        c->shape = "P p";
        return 0;
    }
    const raw *v = c->nr != 2                ? NULL
                   : c->r[0].kind == R_VEC ? &c->r[0]
                   : c->r[1].kind == R_VEC ? &c->r[1] : NULL;
    if (!v)
        return 0;
    c->shape = OWN;
    int size = ptx_type_size(t);
    if (v->n < 2 || v->n > 4 || size % v->n)
        return derr(c, "a vector that does not split the type evenly");
    ptx_type et = v->n == 2 ? (size == 8 ? PT_B32 : size == 4 ? PT_B16 : PT_B8)
                            : (size == 8 ? PT_B16 : PT_B8);
    in->type2 = (uint8_t)et;
    in->vec = v->n;
    if (v == &c->r[0]) { /* unpack: {a, b} = x */
        in->mod = PM_UNPACK;
        if (vec_regs(c, v, 0, 1, et) || src_raw(c, &c->r[1], t, &in->o[v->n]))
            return -1;
    } else { /* pack: x = {a, b} */
        in->mod = PM_PACK;
        if (dst_raw(c, &c->r[0], &in->o[0]) || vec_regs(c, v, 1, 0, et))
            return -1;
    }
    in->nops = (uint8_t)(v->n + 1);
    return 0;
}

static int dec_cvt(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    in->type2 = (uint8_t)m_type(c, 1);
    static const char *const names[] = {"ftz", "sat", "relu"};
    static const uint16_t flags[] = {PF_FTZ, PF_SAT, PF_RELU};
    in->rnd = (uint8_t)m_rnd(c);
    m_flags(c, names, flags, 3);
    if ((in->type == PT_F16X2 || in->type == PT_BF16X2) && in->type2 == PT_F32) {
        c->shape = "d T T"; /* two floats packed into one pair */
    } else if (in->type == PT_F16X2 || in->type == PT_BF16X2 || in->type2 == PT_F16X2 ||
               in->type2 == PT_BF16X2 || in->type == PT_NONE || in->type2 == PT_NONE) {
        in->flags |= PF_UNSUPPORTED;
        c->shape = OWN; /* other packing forms: they never run */
    }
    return 0;
}

static int dec_cvta(dctx *c)
{
    ptx_instr *in = c->in;
    if (m_has(c, "to"))
        in->flags |= PF_TO;
    in->space = (uint8_t)m_space(c);
    in->type = (uint8_t)m_type(c, 0);
    if (in->space == PS_GENERIC)
        return derr(c, "cvta without a state space");
    source_types(c, in->type == PT_U32 ? PT_U32 : PT_U64, PT_NONE);
    return 0;
}

static int dec_isspacep(dctx *c)
{
    c->in->space = (uint8_t)m_space(c);
    if (c->in->space == PS_GENERIC)
        return derr(c, "isspacep without a state space");
    return 0;
}

/* --- memory --------------------------------------------------------------------------- */

static void mem_mods(dctx *c)
{
    ptx_instr *in = c->in;
    in->space = (uint8_t)m_space(c);
    if (m_has(c, "nc"))
        in->flags |= PF_NC; /* recorded: lab 10 asks for the read-only path */
    in->vec = 1;
    if (m_has(c, "v2"))
        in->vec = 2;
    else if (m_has(c, "v4"))
        in->vec = 4;
    else if (m_has(c, "v8"))
        in->flags |= PF_UNSUPPORTED;
    in->type = (uint8_t)m_type(c, 0);
    if (in->type == PT_NONE || in->type == PT_PRED || ptx_type_size((ptx_type)in->type) > 8)
        in->flags |= PF_UNSUPPORTED;
}

/* ld d, [a]{, policy}; ld.v4 {a, b, c, d}, [a]; st [a], b{, policy}; st.v4 [a], {a, b, c, d} */
static int dec_ldst(dctx *c)
{
    ptx_instr *in = c->in;
    int ld = in->op != OP_ST;
    mem_mods(c);
    if (c->nr < 2 || c->nr > 3)
        return derr(c, "wrong number of operands");
    if (in->flags & PF_UNSUPPORTED)
        return 0;
    ptx_type t = (ptx_type)in->type;
    const raw *value = &c->r[ld ? 0 : 1], *addr = &c->r[ld ? 1 : 0];
    if (!ld && addr_raw(c, addr, &in->o[0]))
        return -1;
    if (in->vec > 1) {
        if (value->kind != R_VEC || value->n != in->vec)
            return derr(c, "expected a vector of registers");
        if (vec_regs(c, value, ld ? 0 : 1, ld, t))
            return -1;
    } else if (ld ? dst_raw(c, value, &in->o[0]) : src_raw(c, value, t, &in->o[1])) {
        return -1;
    }
    if (ld && addr_raw(c, addr, &in->o[in->vec]))
        return -1;
    in->nops = (uint8_t)(in->vec + 1);
    return 0;
}

static const char *const atom_names[] = {"add", "min", "max", "inc",  "dec",
                                         "and", "or",  "xor", "exch", "cas"};
static const int atom_values[] = {PM_ADD, PM_MIN, PM_MAX, PM_INC, PM_DEC,
                                  PM_AND, PM_OR,  PM_XOR, PM_EXCH, PM_CAS};

/* atom d, [a], b{, c}; red [a], b */
static int dec_atom(dctx *c)
{
    ptx_instr *in = c->in;
    in->space = (uint8_t)m_space(c);
    in->mod = (uint8_t)m_pick(c, atom_names, atom_values, 10);
    if (m_has(c, "v2") || m_has(c, "v4") || m_has(c, "v8"))
        in->flags |= PF_UNSUPPORTED;
    in->type = (uint8_t)m_type(c, 0);
    ptx_type t = (ptx_type)in->type;
    int sz = ptx_type_size(t);
    if (in->mod == PM_NONE || (sz != 4 && sz != 8))
        in->flags |= PF_UNSUPPORTED;
    int red = in->op == OP_RED;
    uint32_t nsrc = in->mod == PM_CAS ? 2 : 1;
    int base = red ? 0 : 1;
    if (c->nr < base + 1 + nsrc || c->nr > base + 2 + nsrc) /* an optional cache policy */
        return derr(c, "wrong number of operands");
    if (!red && dst_raw(c, &c->r[0], &in->o[0]))
        return -1;
    if (addr_raw(c, &c->r[base], &in->o[base]))
        return -1;
    for (uint32_t i = 0; i < nsrc; i++)
        if (src_raw(c, &c->r[base + 1 + i], t == PT_NONE ? PT_B32 : t, &in->o[base + 1 + i]))
            return -1;
    in->nops = (uint8_t)(base + 1 + nsrc);
    return 0;
}

/*
 * cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}
 * cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all
 * The copy: o[0] dst (shared), o[1] src (global), type B32/B64/B128 by cp-size, o[2]
 * src-size (a register or constant; PO_NONE: all of it), o[3] ignore-src (PO_NONE: none).
 * The bulk, mbarrier and tensor forms are not run.
 */
static int dec_cp_async(dctx *c)
{
    ptx_instr *in = c->in;
    if (!m_has(c, "async") || m_has(c, "bulk") || m_has(c, "mbarrier")) {
        in->flags |= PF_UNSUPPORTED;
        return 0;
    }
    if (m_has(c, "commit_group") || m_has(c, "wait_all")) {
        in->mod = m_has(c, "commit_group") ? PM_COMMIT : PM_WAIT_ALL;
        return want(c, 0, 0);
    }
    if (m_has(c, "wait_group")) {
        in->mod = PM_WAIT;
        if (want(c, 1, 1) || c->r[0].kind != R_NUM)
            return derr(c, "expected the number of groups that may stay pending");
        in->nops = 1;
        return src_raw(c, &c->r[0], PT_U32, &in->o[0]);
    }
    m_has(c, "ca");
    m_has(c, "cg");
    int shared = m_has(c, "shared") || m_has(c, "shared::cta"), global = m_has(c, "global");
    in->space = PS_SHARED;
    if (!shared || !global)
        in->flags |= PF_UNSUPPORTED;
    if (c->nr < 3 || c->nr > 5 || c->r[2].kind != R_NUM)
        return derr(c, "wrong operands: [dst], [src], cp-size{, src-size}{, cache-policy}");
    const ptx_tok *size = tok(c, c->r[2].tok);
    in->type = size->u == 4 ? PT_B32 : size->u == 8 ? PT_B64 : size->u == 16 ? PT_B128 : PT_NONE;
    if (in->type == PT_NONE)
        return derr(c, "cp-size must be 4, 8 or 16");
    if (addr_raw(c, &c->r[0], &in->o[0]) || addr_raw(c, &c->r[1], &in->o[1]))
        return -1;
    in->o[2].kind = in->o[3].kind = PO_NONE;
    in->nops = 4;
    if (c->nr < 4)
        return 0;
    const raw *x = &c->r[3]; /* src-size, ignore-src, or (with neither) the cache policy */
    uint32_t slot;
    ptx_type ty = PT_NONE;
    if (x->kind == R_NAME)
        ptx_lookup_reg(c->p, tok_text(c, x->tok), tok(c, x->tok)->len, &slot, &ty);
    if (x->kind == R_NOT || ty == PT_PRED)
        return pred_src_raw(c, x, &in->o[3]);
    if (x->kind == R_NUM || ptx_type_size(ty) == 4)
        return src_raw(c, x, PT_U32, &in->o[2]);
    return 0; /* a 64-bit cache policy */
}

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 {d...}, [a];
   stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 [a], {s...};
   vec: matrices, mod: PM_TRANS or none. */
static int dec_matrix(dctx *c)
{
    ptx_instr *in = c->in;
    int ld = in->op == OP_LDMATRIX;
    m_has(c, "sync");
    m_has(c, "aligned");
    in->vec = m_has(c, "x1") ? 1 : m_has(c, "x2") ? 2 : m_has(c, "x4") ? 4 : 0;
    if (m_has(c, "trans"))
        in->mod = PM_TRANS;
    in->space = (uint8_t)m_space(c);
    in->type = (uint8_t)m_type(c, 0);
    if (!m_has(c, "m8n8") || in->vec == 0 || in->type != PT_B16 ||
        (in->space != PS_SHARED && in->space != PS_GENERIC))
        in->flags |= PF_UNSUPPORTED;
    if (in->vec == 0)
        return 0;
    const raw *regs = &c->r[ld ? 0 : 1], *addr = &c->r[ld ? 1 : 0];
    if (want(c, 2, 2) || regs->kind != R_VEC || regs->n != in->vec)
        return derr(c, "expected a vector of one register a matrix and an address");
    if (vec_regs(c, regs, ld ? 0 : 1, ld, PT_B32) ||
        addr_raw(c, addr, &in->o[ld ? in->vec : 0]))
        return -1;
    in->nops = (uint8_t)(in->vec + 1);
    return 0;
}

/* --- warp instructions --------------------------------------------------------------- */

/* .sync: the member mask is the last operand; without it every lane takes part. */
static const char *synced(dctx *c, const char *with_mask, const char *without)
{
    return m_has(c, "sync") ? with_mask : without;
}

/* shfl[.sync].mode.b32 d[|p], a, b, c[, membermask] */
static int dec_shfl(dctx *c)
{
    static const char *const modes[] = {"up", "down", "bfly", "idx"};
    static const int mv[] = {PM_UP, PM_DOWN, PM_BFLY, PM_IDX};
    ptx_instr *in = c->in;
    c->shape = synced(c, "R b b b m", "R b b b M");
    in->mod = (uint8_t)m_pick(c, modes, mv, 4);
    in->type = (uint8_t)m_type(c, 0);
    if (in->mod == PM_NONE)
        return derr(c, "shfl without a mode");
    return 0;
}

/* vote[.sync].mode.pred d, {!}a[, mask]; vote.sync.ballot.b32 d, {!}a, mask */
static int dec_vote(dctx *c)
{
    static const char *const modes[] = {"all", "any", "uni", "ballot"};
    static const int mv[] = {PM_ALL, PM_ANY, PM_UNI, PM_BALLOT};
    ptx_instr *in = c->in;
    int sync = m_has(c, "sync");
    in->mod = (uint8_t)m_pick(c, modes, mv, 4);
    in->type = (uint8_t)m_type(c, 0);
    if (in->mod == PM_NONE)
        return derr(c, "vote without a mode");
    c->shape = in->mod == PM_BALLOT ? (sync ? "d p m" : "d p M") : (sync ? "P p m" : "P p M");
    return 0;
}

/* match.sync.{any,all}.type d[|p], a, mask */
static int dec_match(dctx *c)
{
    static const char *const modes[] = {"any", "all"};
    static const int mv[] = {PM_ANY, PM_ALL};
    m_has(c, "sync");
    c->in->mod = (uint8_t)m_pick(c, modes, mv, 2);
    c->in->type = (uint8_t)m_type(c, 0);
    return 0;
}

/* redux.sync.op.type d, a, mask */
static int dec_redux(dctx *c)
{
    ptx_instr *in = c->in;
    m_has(c, "sync");
    in->mod = (uint8_t)m_pick(c, atom_names, atom_values, 8);
    in->type = (uint8_t)m_type(c, 0);
    if (ptx_type_is_float((ptx_type)in->type) || in->mod == PM_NONE || in->mod == PM_INC ||
        in->mod == PM_DEC)
        in->flags |= PF_UNSUPPORTED;
    return 0;
}

/* elect.sync d|p, mask */
static int dec_elect(dctx *c)
{
    m_has(c, "sync");
    if (c->nr != 2 || (c->r[0].kind != R_NAME && c->r[0].kind != R_SINK))
        return derr(c, "wrong operands");
    if (c->r[0].tok2 == PTX_NONE)
        return derr(c, "elect needs a predicate destination");
    return 0;
}

/* bar(rier){.cta}.{sync,arrive,red}...: o[0] d (red), o[1] a, o[2] b or none, o[3] c (red);
   bar.warp.sync mask. */
static int dec_bar(dctx *c)
{
    ptx_instr *in = c->in;
    if (m_has(c, "warp")) {
        in->op = OP_BAR_WARP;
        m_has(c, "sync");
        c->shape = "b";
        return 0;
    }
    if (m_has(c, "red"))
        in->mod = PM_RED;
    else if (m_has(c, "arrive"))
        in->mod = PM_ARRIVE;
    else if (m_has(c, "sync") || c->n_mods == 0 || m_has(c, "cta"))
        in->mod = PM_SYNC;
    m_has(c, "sync"); /* barrier.sync.aligned, bar.cta.sync */
    static const char *const ops[] = {"popc", "and", "or"};
    static const int ov[] = {PM_POPC, PM_AND, PM_OR};
    in->mod2 = (uint8_t)m_pick(c, ops, ov, 3);
    in->type = (uint8_t)m_type(c, 0);
    if (in->mod != PM_RED) {
        c->shape = in->mod == PM_ARRIVE ? "- u u -" : "- u ?u -";
        return 0;
    }
    if (in->mod2 == PM_NONE || c->nr < 3 || c->nr > 4)
        return derr(c, "bar.red needs an operation and 3 or 4 operands");
    c->shape = in->mod2 == PM_POPC ? "d u ?u p" : "P u ?u p";
    return 0;
}

/* --- control --------------------------------------------------------------------------- */

/* brx.idx{.uni} index, table */
static int dec_brx(dctx *c)
{
    ptx_instr *in = c->in;
    m_has(c, "idx");
    if (m_has(c, "uni"))
        in->flags |= PF_UNI;
    if (want(c, 2, 2) || src_raw(c, &c->r[0], PT_U32, &in->o[0]) || c->r[1].kind != R_NAME)
        return c->r[1].kind != R_NAME ? derr(c, "expected a .branchtargets name") : -1;
    const ptx_tok *t = tok(c, c->r[1].tok);
    uint32_t at = ptx_map_get(&c->p->labels, c->p->text + t->start, t->len);
    if (at == PTX_NONE || !(at & 0x80000000u))
        return derr(c, "brx.idx needs a .branchtargets list declared before it");
    in->aux = at & 0x7fffffffu;
    in->nops = 1;
    return 0;
}

/* Variables named by a call's ( ) list. */
static int call_list(dctx *c, const raw *r, uint32_t **out, uint32_t *n)
{
    *n = r->count;
    *out = r->count ? calloc(r->count, sizeof(uint32_t)) : NULL;
    if (r->count && !*out)
        return derr(c, "out of memory");
    for (uint32_t i = 0; i < r->count; i++) {
        const ptx_tok *t = tok(c, r->tok + 2 * i);
        uint32_t v = ptx_lookup_var(c->p, c->p->text + t->start, t->len);
        if (v == PTX_NONE || c->p->m->vars[v].space != PS_PARAM)
            return ptx_err(c->p, r->tok + 2 * i, "`%.*s` is not a .param variable", (int)t->len,
                           c->p->text + t->start);
        (*out)[i] = v;
    }
    return 0;
}

/* call{.uni} (rets), func, (args){, prototype} */
static int dec_call(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_parser *p = c->p;
    if (m_has(c, "uni"))
        in->flags |= PF_UNI;
    uint32_t i = 0;
    const raw *rets = NULL, *args = NULL;
    if (i < c->nr && c->r[i].kind == R_LIST)
        rets = &c->r[i++];
    if (i >= c->nr || c->r[i].kind != R_NAME)
        return derr(c, "expected the called function");
    const ptx_tok *ft = tok(c, c->r[i].tok);
    uint32_t fi = ptx_map_get(&p->funcs, p->text + ft->start, ft->len), target = i;
    i++;
    if (i < c->nr && c->r[i].kind == R_LIST)
        args = &c->r[i++];
    if (fi == PTX_NONE) { /* through a register: then a prototype or a .calltargets name */
        if (i + 1 != c->nr || c->r[i].kind != R_NAME)
            return derr(c, "an indirect call without its prototype");
        if (src_raw(c, &c->r[target], PT_U64, &in->o[0]))
            return -1;
    } else if (i != c->nr) {
        return derr(c, "unexpected operands after the argument list");
    } else {
        in->o[0] = (ptx_operand){PO_FUNC, 0, 0, 0, fi, PTX_NONE, 0};
    }
    ptx_func *f = p->f;
    if (ptx_grow(&f->calls, &p->call_cap, f->n_calls, sizeof(ptx_call)))
        return derr(c, "out of memory");
    ptx_call *call = &f->calls[f->n_calls];
    memset(call, 0, sizeof *call);
    call->func = fi;
    in->aux = f->n_calls++;
    if ((rets && call_list(c, rets, &call->rets, &call->n_rets)) ||
        (args && call_list(c, args, &call->args, &call->n_args)))
        return -1;
    in->nops = 1;
    return 0;
}

/* --- the instruction set: one row an instruction --------------------------------------- */

/*
 * An instruction's base name (the opcode before its first dot), what it is, the shape
 * of its operands (operands(); "*": OWN, the decoder reads them; "~": SKIP, none are
 * read and it runs as a no-op) and the decoder of its modifiers (NULL: it has none).
 * A new instruction is a row here and, where no decoder fits, one decoder above; the
 * emulator runs it by a handler (emu_bind.c).
 */
typedef struct op_row {
    const char *name;
    uint16_t op;
    const char *shape;
    int (*decode)(dctx *c);
} op_row;

static const op_row ops_table[] = {
    /* integer and float arithmetic */
    {"add",            OP_ADD,         "d t t",     dec_arith},
    {"sub",            OP_SUB,         "d t t",     dec_arith},
    {"mul",            OP_MUL,         "d t t",     dec_arith},
    {"div",            OP_DIV,         "d t t",     dec_arith},
    {"rem",            OP_REM,         "d t t",     dec_arith},
    {"mul24",          OP_MUL24,       "d t t",     dec_arith},
    {"mad",            OP_MAD,         "d t t t",   dec_arith3},
    {"sad",            OP_SAD,         "d t t t",   dec_arith3},
    {"mad24",          OP_MAD24,       "d t t t",   dec_arith3},
    {"abs",            OP_ABS,         "d t",       dec_arith},
    {"neg",            OP_NEG,         "d t",       dec_arith},
    {"min",            OP_MIN,         "d t t",     dec_minmax},
    {"max",            OP_MAX,         "d t t",     dec_minmax},
    {"addc",           OP_ADDC,        "d t t",     dec_carry},
    {"subc",           OP_SUBC,        "d t t",     dec_carry},
    {"madc",           OP_MADC,        "d t t t",   dec_carry},
    {"dp4a",           OP_DP4A,        "d b b b",   dec_dp4a},
    {"dp2a",           OP_DP2A,        "d b b b",   dec_dp4a},
    /* bits */
    {"popc",           OP_POPC,        "d t",       dec_count},
    {"clz",            OP_CLZ,         "d t",       dec_count},
    {"bfind",          OP_BFIND,       "d t",       dec_count},
    {"brev",           OP_BREV,        "d t",       dec_typed},
    {"bfe",            OP_BFE,         "d t u u",   dec_typed},
    {"bfi",            OP_BFI,         "d t t u u", dec_typed},
    {"shl",            OP_SHL,         "d t u",     dec_typed},
    {"shr",            OP_SHR,         "d t u",     dec_typed},
    {"shf",            OP_SHF,         "d t t u",   dec_shf},
    {"prmt",           OP_PRMT,        "d t t t",   dec_prmt},
    {"lop3",           OP_LOP3,        "d t t t u", dec_lop3},
    {"szext",          OP_SZEXT,       "d t u",     dec_wrap_clamp},
    {"bmsk",           OP_BMSK,        "d u u",     dec_wrap_clamp},
    {"and",            OP_AND,         "d t t",     dec_logic},
    {"or",             OP_OR,          "d t t",     dec_logic},
    {"xor",            OP_XOR,         "d t t",     dec_logic},
    {"not",            OP_NOT,         "d t",       dec_logic},
    {"cnot",           OP_CNOT,        "d t",       dec_logic},
    /* float only */
    {"fma",            OP_FMA,         "d t t t",   dec_float},
    {"copysign",       OP_COPYSIGN,    "d t t",     dec_float},
    {"rcp",            OP_RCP,         "d t",       dec_float},
    {"sqrt",           OP_SQRT,        "d t",       dec_float},
    {"rsqrt",          OP_RSQRT,       "d t",       dec_float},
    {"sin",            OP_SIN,         "d t",       dec_float},
    {"cos",            OP_COS,         "d t",       dec_float},
    {"lg2",            OP_LG2,         "d t",       dec_float},
    {"ex2",            OP_EX2,         "d t",       dec_float},
    {"tanh",           OP_TANH,        "d t",       dec_float},
    {"testp",          OP_TESTP,       "P t",       dec_testp},
    /* comparison and selection */
    {"setp",           OP_SETP,        "D t t",     dec_setp},
    {"set",            OP_SET,         "d T T",     dec_set},
    {"selp",           OP_SELP,        "d t t p",   dec_typed},
    {"slct",           OP_SLCT,        "d t t T",   dec_slct},
    /* moves, conversions, memory */
    {"mov",            OP_MOV,         "d t",       dec_mov},
    {"cvt",            OP_CVT,         "d T",       dec_cvt},
    {"cvta",           OP_CVTA,        "d t",       dec_cvta},
    {"isspacep",       OP_ISSPACEP,    "P q",       dec_isspacep},
    {"ld",             OP_LD,          "*",         dec_ldst},
    {"ldu",            OP_LDU,         "*",         dec_ldst},
    {"st",             OP_ST,          "*",         dec_ldst},
    {"atom",           OP_ATOM,        "*",         dec_atom},
    {"red",            OP_RED,         "*",         dec_atom},
    {"cp",             OP_CP_ASYNC,    "*",         dec_cp_async},
    {"ldmatrix",       OP_LDMATRIX,    "*",         dec_matrix},
    {"stmatrix",       OP_STMATRIX,    "*",         dec_matrix},
    {"prefetch",       OP_PREFETCH,    "~",        NULL},
    {"prefetchu",      OP_PREFETCH,    "~",        NULL},
    /* warps and blocks */
    {"shfl",           OP_SHFL,        "R b b b m", dec_shfl},
    {"vote",           OP_VOTE,        "P p m",     dec_vote},
    {"match",          OP_MATCH,       "R t m",     dec_match},
    {"activemask",     OP_ACTIVEMASK,  "d",         dec_typed},
    {"redux",          OP_REDUX,       "d b m",     dec_redux},
    {"elect",          OP_ELECT,       "R m",       dec_elect},
    {"bar",            OP_BAR,         "- u ?u -",  dec_bar},
    {"barrier",        OP_BAR,         "- u ?u -",  dec_bar},
    {"membar",         OP_MEMBAR,      "~",        NULL},
    {"fence",          OP_MEMBAR,      "~",        NULL},
    {"nanosleep",      OP_NOP,         "~",        NULL},
    {"pmevent",        OP_NOP,         "~",        NULL},
    {"griddepcontrol", OP_NOP,         "~",        NULL},
    {"discard",        OP_NOP,         "~",        NULL},
    {"applypriority",  OP_NOP,         "~",        NULL},
    /* control */
    {"bra",            OP_BRA,         "l",         dec_uni},
    {"brx",            OP_BRX,         "*",         dec_brx},
    {"call",           OP_CALL,        "*",         dec_call},
    {"ret",            OP_RET,         "",          dec_uni},
    {"exit",           OP_EXIT,        "",          dec_uni},
    {"trap",           OP_TRAP,        "",          dec_uni},
    {"brkpt",          OP_TRAP,        "",          dec_uni},
};

static int split_opcode(dctx *c, const ptx_tok *t, const op_row **entry)
{
    const char *s = c->p->text + t->start;
    uint32_t n = t->len, i = 0;
    while (i < n && s[i] != '.')
        i++;
    *entry = NULL;
    for (size_t k = 0; k < sizeof ops_table / sizeof ops_table[0]; k++)
        if (strlen(ops_table[k].name) == i && memcmp(ops_table[k].name, s, i) == 0)
            *entry = &ops_table[k];
    c->n_mods = 0;
    while (i < n) {
        uint32_t start = ++i;
        while (i < n && s[i] != '.')
            i++;
        if (c->n_mods >= MAX_MODS)
            return -1;
        c->mods[c->n_mods].s = s + start;
        c->mods[c->n_mods].len = i - start;
        c->mods[c->n_mods].used = 0;
        c->n_mods++;
    }
    return 0;
}

int ptx_decode_instr(ptx_parser *p, ptx_instr *in)
{
    dctx c;
    c.p = p;
    c.in = in;
    c.at = p->pos;
    const ptx_tok *t = ptx_peek(p);
    if (t->kind != TK_IDENT)
        return ptx_err(p, p->pos, "expected an instruction");
    in->text = ptx_arena_str(p->arena, p->text + t->start, t->len);
    if (!in->text)
        return ptx_err(p, p->pos, "out of memory");
    ptx_next(p);
    const op_row *e;
    int too_many = split_opcode(&c, t, &e);
    if (!e || too_many || strcmp(e->shape, SKIP) == 0) {
        in->op = e ? e->op : OP_UNKNOWN;
        if (!e || too_many)
            in->flags |= PF_UNSUPPORTED;
        return skip_operands(&c);
    }
    in->op = e->op;
    c.shape = e->shape;
    c.t_set = 0;
    if (raw_operands(&c) || (e->decode && e->decode(&c)))
        return -1;
    if (!c.t_set) {
        c.t = (ptx_type)in->type;
        c.t2 = (ptx_type)in->type2;
    }
    if (strcmp(c.shape, OWN) != 0 && operands(&c, c.shape))
        return -1;
    m_ignore(&c);
    m_finish(&c);
    return 0;
}
