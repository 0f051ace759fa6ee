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

/* Qualifiers that change nothing for a one-thread-at-a-time interpreter. */
static void m_ignore(dctx *c)
{
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

static int raw_simple(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    const ptx_tok *t = ptx_peek(p);
    memset(r, 0, sizeof *r);
    r->tok2 = r->base = PTX_NONE;
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
    memset(r, 0, sizeof *r);
    r->kind = R_ADDR;
    r->tok2 = r->base = PTX_NONE;
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
    memset(r, 0, sizeof *r);
    r->kind = R_VEC;
    r->tok2 = r->base = PTX_NONE;
    r->elem = c->ne;
    ptx_next(p); /* { */
    for (;;) {
        if (c->ne >= MAX_ELEMS || r->n >= 8)
            return ptx_err(p, p->pos, "a vector of more than 8 elements");
        if (raw_simple(c, &c->elems[c->ne]))
            return -1;
        c->ne++;
        r->n++;
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
    }
    return ptx_expect(p, TK_RBRACE, "to close a vector");
}

/* ( a, b, c ): the names of a call's arguments or results. */
static int raw_list(dctx *c, raw *r)
{
    ptx_parser *p = c->p;
    memset(r, 0, sizeof *r);
    r->kind = R_LIST;
    r->tok2 = r->base = PTX_NONE;
    ptx_next(p); /* ( */
    r->tok = (uint32_t)p->pos;
    while (ptx_peek(p)->kind != TK_RPAREN) {
        if (ptx_peek(p)->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a parameter name in ( )");
        if (r->count >= PTX_MAX_PARAM_LIST)
            return ptx_err(p, p->pos, "more than %d parameters", PTX_MAX_PARAM_LIST);
        r->count++;
        ptx_next(p);
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
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
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
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

/* --- decoders by family ------------------------------------------------------------------ */

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

/* d, a, b[, c...]: n sources of type ty (dest of type dty). */
static int dec_dsrc(dctx *c, int n, ptx_type ty)
{
    if (want(c, (uint32_t)n + 1, (uint32_t)n + 1) || dst_raw(c, &c->r[0], &c->in->o[0]))
        return -1;
    for (int i = 1; i <= n; i++)
        if (src_raw(c, &c->r[i], ty, &c->in->o[i]))
            return -1;
    c->in->nops = (uint8_t)(n + 1);
    return 0;
}

/* Float modifiers shared by arithmetic: rounding, ftz, sat. */
static void float_mods(dctx *c)
{
    ptx_instr *in = c->in;
    in->rnd = (uint8_t)m_rnd(c);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    if (m_has(c, "sat"))
        in->flags |= PF_SAT;
    if (m_has(c, "approx"))
        in->flags |= PF_APPROX;
    if (m_has(c, "full"))
        in->flags |= PF_FULL;
    if (m_has(c, "NaN"))
        in->flags |= PF_NAN;
    if (m_has(c, "relu"))
        in->flags |= PF_RELU;
}

/* add sub mul mad div rem abs neg min max and the like, integer or float. */
static int dec_arith(dctx *c, int nsrc)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    if (is_int(t)) {
        if (m_has(c, "hi"))
            in->flags |= PF_HI;
        if (m_has(c, "lo"))
            in->flags |= PF_LO;
        if (m_has(c, "wide"))
            in->flags |= PF_WIDE;
        if (m_has(c, "sat"))
            in->flags |= PF_SAT;
        if (m_has(c, "cc"))
            in->flags |= PF_CC;
        if (in->flags & PF_WIDE) {
            in->type2 = (uint8_t)wide_of(t);
            if (in->type2 == PT_NONE)
                in->flags |= PF_UNSUPPORTED;
            /* mad.wide: c has the wide type */
            if (want(c, (uint32_t)nsrc + 1, (uint32_t)nsrc + 1) ||
                dst_raw(c, &c->r[0], &in->o[0]) || src_raw(c, &c->r[1], t, &in->o[1]) ||
                src_raw(c, &c->r[2], t, &in->o[2]))
                return -1;
            if (nsrc == 3 && src_raw(c, &c->r[3], (ptx_type)in->type2, &in->o[3]))
                return -1;
            in->nops = (uint8_t)(nsrc + 1);
            return 0;
        }
    } else if (is_f3264(t) || is_half(t)) {
        float_mods(c);
    } else {
        in->flags |= PF_UNSUPPORTED;
    }
    return dec_dsrc(c, nsrc, t == PT_NONE ? PT_B32 : t);
}

/* min/max: two sources, or three (sm_90 three-input forms). */
static int dec_minmax(dctx *c)
{
    return dec_arith(c, c->nr == 4 ? 3 : 2);
}

/* d (u32), a (ty): popc, clz, bfind. */
static int dec_count(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    if (m_has(c, "shiftamt"))
        in->mod = PM_SHIFTAMT;
    if (want(c, 2, 2) || dst_raw(c, &c->r[0], &in->o[0]) ||
        src_raw(c, &c->r[1], (ptx_type)in->type, &in->o[1]))
        return -1;
    in->nops = 2;
    return 0;
}

/* Operands typed per position: shape gives the type of each source after d. */
static int dec_shape(dctx *c, int n, const ptx_type *types)
{
    ptx_instr *in = c->in;
    if (want(c, (uint32_t)n + 1, (uint32_t)n + 1) || dst_raw(c, &c->r[0], &in->o[0]))
        return -1;
    for (int i = 0; i < n; i++)
        if (src_raw(c, &c->r[i + 1], types[i], &in->o[i + 1]))
            return -1;
    in->nops = (uint8_t)(n + 1);
    return 0;
}

static int dec_bits(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    switch (in->op) {
    case OP_BFE: {
        ptx_type ts[3] = {t, PT_U32, PT_U32};
        return dec_shape(c, 3, ts);
    }
    case OP_BFI: {
        ptx_type ts[4] = {t, t, PT_U32, PT_U32};
        return dec_shape(c, 4, ts);
    }
    case OP_SHL:
    case OP_SHR: {
        ptx_type ts[2] = {t, PT_U32};
        return dec_shape(c, 2, ts);
    }
    case OP_SHF: {
        static const char *const lr[] = {"l", "r"}, *const wc[] = {"wrap", "clamp"};
        static const int lrv[] = {PM_L, PM_R}, wcv[] = {PM_WRAP, PM_CLAMP};
        in->mod = (uint8_t)m_pick(c, lr, lrv, 2);
        in->mod2 = (uint8_t)m_pick(c, wc, wcv, 2);
        ptx_type ts[3] = {t, t, PT_U32};
        return dec_shape(c, 3, ts);
    }
    case OP_PRMT: {
        static const char *const modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
        static const int mv[] = {PM_F4E, PM_B4E, PM_RC8, PM_ECL, PM_ECR, PM_RC16};
        in->mod = (uint8_t)m_pick(c, modes, mv, 6);
        ptx_type ts[3] = {t, t, t};
        return dec_shape(c, 3, ts);
    }
    case OP_LOP3: {
        ptx_type ts[4] = {t, t, t, PT_U32};
        if (c->nr != 5)
            in->flags |= PF_UNSUPPORTED; /* lop3.or with a predicate */
        return c->nr == 5 ? dec_shape(c, 4, ts) : 0;
    }
    case OP_SZEXT:
    case OP_BMSK: {
        static const char *const wc[] = {"wrap", "clamp"};
        static const int wcv[] = {PM_WRAP, PM_CLAMP};
        in->mod = (uint8_t)m_pick(c, wc, wcv, 2);
        ptx_type ts[2] = {in->op == OP_SZEXT ? t : PT_U32, PT_U32};
        return dec_shape(c, 2, ts);
    }
    default:
        return derr(c, "internal: not a bit operation");
    }
}

/* and or xor not cnot: integers or predicates. */
static int dec_logic(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    int n = (in->op == OP_NOT || in->op == OP_CNOT) ? 1 : 2;
    if (t != PT_PRED)
        return dec_dsrc(c, n, t);
    if (want(c, (uint32_t)n + 1, (uint32_t)n + 1) || c->r[0].kind != R_NAME ||
        pred_dst_tok(c, c->r[0].tok, &in->o[0]))
        return c->r[0].kind != R_NAME ? derr(c, "expected a predicate") : -1;
    for (int i = 1; i <= n; i++)
        if (pred_src_raw(c, &c->r[i], &in->o[i]))
            return -1;
    in->nops = (uint8_t)(n + 1);
    return 0;
}

static int dec_carry(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    if (m_has(c, "cc"))
        in->flags |= PF_CC;
    if (m_has(c, "hi"))
        in->flags |= PF_HI;
    if (m_has(c, "lo"))
        in->flags |= PF_LO;
    return dec_dsrc(c, in->op == OP_MADC ? 3 : 2, (ptx_type)in->type);
}

static int dec_dp4a(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    in->type2 = (uint8_t)m_type(c, 1);
    if (in->op == OP_DP2A)
        in->flags |= PF_UNSUPPORTED;
    ptx_type ts[3] = {PT_B32, PT_B32, PT_B32};
    return dec_shape(c, 3, ts);
}

/* fma rcp sqrt rsqrt sin cos lg2 ex2 tanh copysign: float only. */
static int dec_float(dctx *c, int nsrc)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    float_mods(c);
    if (!is_f3264(t) && !(is_half(t) && in->op == OP_FMA))
        in->flags |= PF_UNSUPPORTED;
    return dec_dsrc(c, nsrc, t == PT_NONE ? PT_F32 : t);
}

static int dec_testp(dctx *c)
{
    static const char *const names[] = {"finite", "infinite", "number",
                                        "notanumber", "normal", "subnormal"};
    static const int v[] = {PM_FINITE, PM_INFINITE, PM_NUMBER,
                            PM_NOTANUMBER, PM_NORMAL, PM_SUBNORMAL};
    ptx_instr *in = c->in;
    in->mod = (uint8_t)m_pick(c, names, v, 6);
    in->type = (uint8_t)m_type(c, 0);
    if (want(c, 2, 2) || c->r[0].kind != R_NAME || pred_dst_tok(c, c->r[0].tok, &in->o[0]) ||
        src_raw(c, &c->r[1], (ptx_type)in->type, &in->o[1]))
        return c->r[0].kind != R_NAME ? derr(c, "expected a predicate") : -1;
    in->nops = 2;
    return 0;
}

static int combine_mod(dctx *c)
{
    static const char *const names[] = {"and", "or", "xor"};
    static const int v[] = {PM_AND, PM_OR, PM_XOR};
    return m_pick(c, names, v, 3);
}

/* setp.cmp[.bool][.ftz].type p[|q], a, b[, {!}c] */
static int dec_setp(dctx *c)
{
    ptx_instr *in = c->in;
    int cmp = m_cmp(c);
    in->mod2 = (uint8_t)combine_mod(c);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    in->type = (uint8_t)m_type(c, 0);
    if (cmp < 0)
        return derr(c, "setp without a comparison");
    in->mod = (uint8_t)cmp;
    if (want(c, in->mod2 ? 4 : 3, in->mod2 ? 4 : 3) || c->r[0].kind != R_NAME)
        return derr(c, "wrong operands");
    if (pred_dst_tok(c, c->r[0].tok, &in->o[0]))
        return -1;
    if (c->r[0].tok2 != PTX_NONE) {
        if (pred_dst_tok(c, c->r[0].tok2, &in->o[1]))
            return -1;
    } else {
        in->o[1].kind = PO_NONE;
    }
    if (src_raw(c, &c->r[1], (ptx_type)in->type, &in->o[2]) ||
        src_raw(c, &c->r[2], (ptx_type)in->type, &in->o[3]))
        return -1;
    in->nops = 4;
    if (in->mod2) {
        if (pred_src_raw(c, &c->r[3], &in->o[4]))
            return -1;
        in->nops = 5;
    }
    return 0;
}

/* set.cmp[.bool][.ftz].dtype.stype d, a, b[, {!}c] */
static int dec_set(dctx *c)
{
    ptx_instr *in = c->in;
    int cmp = m_cmp(c);
    in->mod2 = (uint8_t)combine_mod(c);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    in->type = (uint8_t)m_type(c, 0);
    in->type2 = (uint8_t)m_type(c, 1);
    if (cmp < 0)
        return derr(c, "set without a comparison");
    in->mod = (uint8_t)cmp;
    if (want(c, in->mod2 ? 4 : 3, in->mod2 ? 4 : 3) || dst_raw(c, &c->r[0], &in->o[0]) ||
        src_raw(c, &c->r[1], (ptx_type)in->type2, &in->o[1]) ||
        src_raw(c, &c->r[2], (ptx_type)in->type2, &in->o[2]))
        return -1;
    in->nops = 3;
    if (in->mod2) {
        if (pred_src_raw(c, &c->r[3], &in->o[3]))
            return -1;
        in->nops = 4;
    }
    return 0;
}

static int dec_selp(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    if (want(c, 4, 4) || dst_raw(c, &c->r[0], &in->o[0]) || src_raw(c, &c->r[1], t, &in->o[1]) ||
        src_raw(c, &c->r[2], t, &in->o[2]) || pred_src_raw(c, &c->r[3], &in->o[3]))
        return -1;
    in->nops = 4;
    return 0;
}

static int dec_slct(dctx *c)
{
    ptx_instr *in = c->in;
    in->type = (uint8_t)m_type(c, 0);
    in->type2 = (uint8_t)m_type(c, 1);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    ptx_type ts[3] = {(ptx_type)in->type, (ptx_type)in->type, (ptx_type)in->type2};
    return dec_shape(c, 3, ts);
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

static int dec_mov(dctx *c)
{
    ptx_instr *in = c->in;
    ptx_type t = m_type(c, 0);
    in->type = (uint8_t)t;
    if (want(c, 2, 2))
        return -1;
    if (t == PT_PRED) {
        if (c->r[0].kind != R_NAME || pred_dst_tok(c, c->r[0].tok, &in->o[0]) ||
            pred_src_raw(c, &c->r[1], &in->o[1]))
            return c->r[0].kind != R_NAME ? derr(c, "expected a predicate") : -1;
        in->nops = 2;
        return 0;
    }
    const raw *v = c->r[0].kind == R_VEC ? &c->r[0] : c->r[1].kind == R_VEC ? &c->r[1] : NULL;
    if (!v)
        return dec_dsrc(c, 1, t);
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
    in->rnd = (uint8_t)m_rnd(c);
    if (m_has(c, "ftz"))
        in->flags |= PF_FTZ;
    if (m_has(c, "sat"))
        in->flags |= PF_SAT;
    if (m_has(c, "relu"))
        in->flags |= PF_RELU;
    if ((in->type == PT_F16X2 || in->type == PT_BF16X2) && in->type2 == PT_F32)
        return dec_dsrc(c, 2, PT_F32); /* two floats packed into one pair */
    if (in->type == PT_F16X2 || in->type == PT_BF16X2 || in->type2 == PT_F16X2 ||
        in->type2 == PT_BF16X2 || in->type == PT_NONE || in->type2 == PT_NONE) {
        in->flags |= PF_UNSUPPORTED;
        return 0; /* other packing forms: they never run */
    }
    return dec_dsrc(c, 1, (ptx_type)in->type2);
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
    return dec_dsrc(c, 1, in->type == PT_U32 ? PT_U32 : PT_U64);
}

static int dec_isspacep(dctx *c)
{
    ptx_instr *in = c->in;
    in->space = (uint8_t)m_space(c);
    if (in->space == PS_GENERIC)
        return derr(c, "isspacep without a state space");
    if (want(c, 2, 2) || c->r[0].kind != R_NAME || pred_dst_tok(c, c->r[0].tok, &in->o[0]) ||
        src_raw(c, &c->r[1], PT_U64, &in->o[1]))
        return c->r[0].kind != R_NAME ? derr(c, "expected a predicate") : -1;
    in->nops = 2;
    return 0;
}

static void mem_mods(dctx *c)
{
    ptx_instr *in = c->in;
    in->space = (uint8_t)m_space(c);
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

/* ld d, [a]{, policy}; ld.v4 {a, b, c, d}, [a] */
static int dec_ld(dctx *c)
{
    ptx_instr *in = c->in;
    mem_mods(c);
    if (c->nr < 2 || c->nr > 3)
        return derr(c, "wrong number of operands");
    if (in->flags & PF_UNSUPPORTED)
        return 0;
    ptx_type t = (ptx_type)in->type;
    if (in->vec > 1) {
        if (c->r[0].kind != R_VEC || c->r[0].n != in->vec)
            return derr(c, "expected a vector of registers");
        if (vec_regs(c, &c->r[0], 0, 1, t))
            return -1;
    } else if (dst_raw(c, &c->r[0], &in->o[0])) {
        return -1;
    }
    if (addr_raw(c, &c->r[1], &in->o[in->vec]))
        return -1;
    in->nops = (uint8_t)(in->vec + 1);
    return 0;
}

/* st [a], b{, policy}; st.v4 [a], {a, b, c, d} */
static int dec_st(dctx *c)
{
    ptx_instr *in = c->in;
    mem_mods(c);
    if (c->nr < 2 || c->nr > 3)
        return derr(c, "wrong number of operands");
    if (in->flags & PF_UNSUPPORTED)
        return 0;
    ptx_type t = (ptx_type)in->type;
    if (addr_raw(c, &c->r[0], &in->o[0]))
        return -1;
    if (in->vec > 1) {
        if (c->r[1].kind != R_VEC || c->r[1].n != in->vec)
            return derr(c, "expected a vector of registers");
        if (vec_regs(c, &c->r[1], 1, 0, t))
            return -1;
    } else if (src_raw(c, &c->r[1], t, &in->o[1])) {
        return -1;
    }
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

/* The member mask of a .sync warp instruction: given, or all lanes. */
static int member_mask(dctx *c, uint32_t ri, int k)
{
    if (ri < c->nr)
        return src_raw(c, &c->r[ri], PT_B32, &c->in->o[k]);
    return const_operand(c, -1, PTX_NONE, 4, &c->in->o[k]);
}

/* shfl[.sync].mode.b32 d[|p], a, b, c[, membermask] */
static int dec_shfl(dctx *c)
{
    static const char *const modes[] = {"up", "down", "bfly", "idx"};
    static const int mv[] = {PM_UP, PM_DOWN, PM_BFLY, PM_IDX};
    ptx_instr *in = c->in;
    int sync = m_has(c, "sync");
    in->mod = (uint8_t)m_pick(c, modes, mv, 4);
    in->type = (uint8_t)m_type(c, 0);
    if (in->mod == PM_NONE)
        return derr(c, "shfl without a mode");
    uint32_t n = sync ? 5 : 4;
    if (want(c, n, n))
        return -1;
    raw d = c->r[0];
    d.tok2 = PTX_NONE;
    if (dst_raw(c, &d, &in->o[0]))
        return -1;
    if (c->r[0].tok2 != PTX_NONE) {
        if (pred_dst_tok(c, c->r[0].tok2, &in->o[1]))
            return -1;
    } else {
        in->o[1].kind = PO_NONE;
    }
    if (src_raw(c, &c->r[1], PT_B32, &in->o[2]) || src_raw(c, &c->r[2], PT_B32, &in->o[3]) ||
        src_raw(c, &c->r[3], PT_B32, &in->o[4]) || member_mask(c, sync ? 4 : 99, 5))
        return -1;
    in->nops = 6;
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
    uint32_t n = sync ? 3 : 2;
    if (want(c, n, n))
        return -1;
    if (in->mod == PM_BALLOT) {
        if (dst_raw(c, &c->r[0], &in->o[0]))
            return -1;
    } else if (c->r[0].kind != R_NAME || pred_dst_tok(c, c->r[0].tok, &in->o[0])) {
        return c->r[0].kind != R_NAME ? derr(c, "expected a predicate") : -1;
    }
    if (pred_src_raw(c, &c->r[1], &in->o[1]) || member_mask(c, sync ? 2 : 99, 2))
        return -1;
    in->nops = 3;
    return 0;
}

/* match.sync.{any,all}.type d[|p], a, mask */
static int dec_match(dctx *c)
{
    static const char *const modes[] = {"any", "all"};
    static const int mv[] = {PM_ANY, PM_ALL};
    ptx_instr *in = c->in;
    m_has(c, "sync");
    in->mod = (uint8_t)m_pick(c, modes, mv, 2);
    in->type = (uint8_t)m_type(c, 0);
    if (want(c, 3, 3))
        return -1;
    raw d = c->r[0];
    d.tok2 = PTX_NONE;
    if (dst_raw(c, &d, &in->o[0]))
        return -1;
    if (c->r[0].tok2 != PTX_NONE) {
        if (pred_dst_tok(c, c->r[0].tok2, &in->o[1]))
            return -1;
    } else {
        in->o[1].kind = PO_NONE;
    }
    if (src_raw(c, &c->r[1], (ptx_type)in->type, &in->o[2]) || member_mask(c, 2, 3))
        return -1;
    in->nops = 4;
    return 0;
}

static int dec_redux(dctx *c)
{
    ptx_instr *in = c->in;
    m_has(c, "sync");
    in->mod = (uint8_t)m_pick(c, atom_names, atom_values, 8);
    in->type = (uint8_t)m_type(c, 0);
    if (ptx_type_is_float((ptx_type)in->type) || in->mod == PM_NONE || in->mod == PM_INC ||
        in->mod == PM_DEC)
        in->flags |= PF_UNSUPPORTED;
    if (want(c, 3, 3) || dst_raw(c, &c->r[0], &in->o[0]) ||
        src_raw(c, &c->r[1], PT_B32, &in->o[1]) || member_mask(c, 2, 2))
        return -1;
    in->nops = 3;
    return 0;
}

/* elect.sync d|p, mask */
static int dec_elect(dctx *c)
{
    ptx_instr *in = c->in;
    m_has(c, "sync");
    if (want(c, 2, 2) || (c->r[0].kind != R_NAME && c->r[0].kind != R_SINK))
        return derr(c, "wrong operands");
    raw d = c->r[0];
    d.tok2 = PTX_NONE;
    if (dst_raw(c, &d, &in->o[0]))
        return -1;
    if (c->r[0].tok2 == PTX_NONE)
        return derr(c, "elect needs a predicate destination");
    if (pred_dst_tok(c, c->r[0].tok2, &in->o[1]) || member_mask(c, 1, 2))
        return -1;
    in->nops = 3;
    return 0;
}

/* bar(rier){.cta}.{sync,arrive,red}...: o[0] d (red), o[1] a, o[2] b or none, o[3] c (red). */
static int dec_bar(dctx *c)
{
    ptx_instr *in = c->in;
    if (m_has(c, "warp")) {
        in->op = OP_BAR_WARP;
        m_has(c, "sync");
        if (want(c, 1, 1) || src_raw(c, &c->r[0], PT_B32, &in->o[0]))
            return -1;
        in->nops = 1;
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
    for (int k = 0; k < 4; k++)
        in->o[k].kind = PO_NONE;
    in->nops = 4;
    if (in->mod != PM_RED) {
        if (want(c, in->mod == PM_ARRIVE ? 2 : 1, 2) || src_raw(c, &c->r[0], PT_U32, &in->o[1]))
            return -1;
        return c->nr == 2 ? src_raw(c, &c->r[1], PT_U32, &in->o[2]) : 0;
    }
    if (in->mod2 == PM_NONE || want(c, 3, 4))
        return derr(c, "bar.red needs an operation and 3 or 4 operands");
    if (in->mod2 == PM_POPC) {
        if (dst_raw(c, &c->r[0], &in->o[0]))
            return -1;
    } else if (c->r[0].kind != R_NAME || pred_dst_tok(c, c->r[0].tok, &in->o[0])) {
        return c->r[0].kind != R_NAME ? derr(c, "expected a predicate") : -1;
    }
    if (src_raw(c, &c->r[1], PT_U32, &in->o[1]))
        return -1;
    if (c->nr == 4 && src_raw(c, &c->r[2], PT_U32, &in->o[2]))
        return -1;
    return pred_src_raw(c, &c->r[c->nr - 1], &in->o[3]);
}

static int dec_bra(dctx *c)
{
    ptx_instr *in = c->in;
    if (m_has(c, "uni"))
        in->flags |= PF_UNI;
    if (want(c, 1, 1) || label_raw(c, &c->r[0], 0))
        return -1;
    in->nops = 1;
    return 0;
}

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

static int dec_none(dctx *c)
{
    ptx_instr *in = c->in;
    if (m_has(c, "uni"))
        in->flags |= PF_UNI;
    return want(c, 0, 0);
}

static int dec_activemask(dctx *c)
{
    c->in->type = (uint8_t)m_type(c, 0);
    if (want(c, 1, 1) || dst_raw(c, &c->r[0], &c->in->o[0]))
        return -1;
    c->in->nops = 1;
    return 0;
}

/* --- the table of opcodes -------------------------------------------------------------- */

typedef struct op_entry {
    const char *name;
    uint16_t op;
    uint8_t skip;  /* no operands to read: membar, fence, prefetch, ... (runs as a no-op) */
} op_entry;

static const op_entry ops_table[] = {
    {"add", OP_ADD, 0},       {"sub", OP_SUB, 0},       {"mul", OP_MUL, 0},
    {"mad", OP_MAD, 0},       {"mul24", OP_MUL24, 0},   {"mad24", OP_MAD24, 0},
    {"sad", OP_SAD, 0},       {"div", OP_DIV, 0},       {"rem", OP_REM, 0},
    {"abs", OP_ABS, 0},       {"neg", OP_NEG, 0},       {"min", OP_MIN, 0},
    {"max", OP_MAX, 0},       {"popc", OP_POPC, 0},     {"clz", OP_CLZ, 0},
    {"bfind", OP_BFIND, 0},   {"brev", OP_BREV, 0},     {"bfe", OP_BFE, 0},
    {"bfi", OP_BFI, 0},       {"prmt", OP_PRMT, 0},     {"shf", OP_SHF, 0},
    {"shl", OP_SHL, 0},       {"shr", OP_SHR, 0},       {"and", OP_AND, 0},
    {"or", OP_OR, 0},         {"xor", OP_XOR, 0},       {"not", OP_NOT, 0},
    {"cnot", OP_CNOT, 0},     {"lop3", OP_LOP3, 0},     {"addc", OP_ADDC, 0},
    {"subc", OP_SUBC, 0},     {"madc", OP_MADC, 0},     {"szext", OP_SZEXT, 0},
    {"bmsk", OP_BMSK, 0},     {"dp4a", OP_DP4A, 0},     {"dp2a", OP_DP2A, 0},
    {"fma", OP_FMA, 0},       {"rcp", OP_RCP, 0},       {"sqrt", OP_SQRT, 0},
    {"rsqrt", OP_RSQRT, 0},   {"sin", OP_SIN, 0},       {"cos", OP_COS, 0},
    {"lg2", OP_LG2, 0},       {"ex2", OP_EX2, 0},       {"tanh", OP_TANH, 0},
    {"copysign", OP_COPYSIGN, 0}, {"testp", OP_TESTP, 0}, {"setp", OP_SETP, 0},
    {"set", OP_SET, 0},       {"selp", OP_SELP, 0},     {"slct", OP_SLCT, 0},
    {"mov", OP_MOV, 0},       {"cvt", OP_CVT, 0},       {"cvta", OP_CVTA, 0},
    {"isspacep", OP_ISSPACEP, 0}, {"ld", OP_LD, 0},     {"ldu", OP_LDU, 0},
    {"st", OP_ST, 0},         {"prefetch", OP_PREFETCH, 1}, {"prefetchu", OP_PREFETCH, 1},
    {"atom", OP_ATOM, 0},     {"red", OP_RED, 0},       {"cp", OP_CP_ASYNC, 0},
    {"ldmatrix", OP_LDMATRIX, 0}, {"stmatrix", OP_STMATRIX, 0},       {"shfl", OP_SHFL, 0},
    {"vote", OP_VOTE, 0},     {"match", OP_MATCH, 0},   {"activemask", OP_ACTIVEMASK, 0},
    {"redux", OP_REDUX, 0},   {"elect", OP_ELECT, 0},   {"bar", OP_BAR, 0},
    {"barrier", OP_BAR, 0},   {"membar", OP_MEMBAR, 1}, {"fence", OP_MEMBAR, 1},
    {"nanosleep", OP_NOP, 1}, {"pmevent", OP_NOP, 1},   {"griddepcontrol", OP_NOP, 1},
    {"discard", OP_NOP, 1},   {"applypriority", OP_NOP, 1},
    {"bra", OP_BRA, 0},       {"brx", OP_BRX, 0},       {"call", OP_CALL, 0},
    {"ret", OP_RET, 0},       {"exit", OP_EXIT, 0},     {"trap", OP_TRAP, 0},
    {"brkpt", OP_TRAP, 0},
};

static int decode_by_op(dctx *c)
{
    switch (c->in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM:
        return dec_arith(c, 2);
    case OP_MAD: case OP_SAD: case OP_MAD24:
        return dec_arith(c, 3);
    case OP_MUL24:
        return dec_arith(c, 2);
    case OP_ABS: case OP_NEG:
        return dec_arith(c, 1);
    case OP_MIN: case OP_MAX:
        return dec_minmax(c);
    case OP_POPC: case OP_CLZ: case OP_BFIND:
        return dec_count(c);
    case OP_BREV:
        c->in->type = (uint8_t)m_type(c, 0);
        return dec_dsrc(c, 1, (ptx_type)c->in->type);
    case OP_BFE: case OP_BFI: case OP_SHL: case OP_SHR: case OP_SHF: case OP_PRMT:
    case OP_LOP3: case OP_SZEXT: case OP_BMSK:
        return dec_bits(c);
    case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT:
        return dec_logic(c);
    case OP_ADDC: case OP_SUBC: case OP_MADC:
        return dec_carry(c);
    case OP_DP4A: case OP_DP2A:
        return dec_dp4a(c);
    case OP_FMA:
        return dec_float(c, 3);
    case OP_COPYSIGN:
        return dec_float(c, 2);
    case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_SIN: case OP_COS: case OP_LG2:
    case OP_EX2: case OP_TANH:
        return dec_float(c, 1);
    case OP_TESTP: return dec_testp(c);
    case OP_SETP: return dec_setp(c);
    case OP_SET: return dec_set(c);
    case OP_SELP: return dec_selp(c);
    case OP_SLCT: return dec_slct(c);
    case OP_MOV: return dec_mov(c);
    case OP_CVT: return dec_cvt(c);
    case OP_CVTA: return dec_cvta(c);
    case OP_ISSPACEP: return dec_isspacep(c);
    case OP_LD: case OP_LDU: return dec_ld(c);
    case OP_ST: return dec_st(c);
    case OP_ATOM: case OP_RED: return dec_atom(c);
    case OP_CP_ASYNC: return dec_cp_async(c);
    case OP_LDMATRIX: case OP_STMATRIX: return dec_matrix(c);
    case OP_SHFL: return dec_shfl(c);
    case OP_VOTE: return dec_vote(c);
    case OP_MATCH: return dec_match(c);
    case OP_ACTIVEMASK: return dec_activemask(c);
    case OP_REDUX: return dec_redux(c);
    case OP_ELECT: return dec_elect(c);
    case OP_BAR: return dec_bar(c);
    case OP_BRA: return dec_bra(c);
    case OP_BRX: return dec_brx(c);
    case OP_CALL: return dec_call(c);
    case OP_RET: case OP_EXIT: case OP_TRAP:
        return dec_none(c);
    default:
        return derr(c, "internal: no decoder");
    }
}

static int split_opcode(dctx *c, const ptx_tok *t, const op_entry **entry)
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
    const op_entry *e;
    int too_many = split_opcode(&c, t, &e);
    if (!e || too_many || e->skip) {
        in->op = e ? e->op : OP_UNKNOWN;
        if (!e || too_many)
            in->flags |= PF_UNSUPPORTED;
        return skip_operands(&c);
    }
    in->op = e->op;
    if (raw_operands(&c) || decode_by_op(&c))
        return -1;
    m_ignore(&c);
    m_finish(&c);
    return 0;
}
