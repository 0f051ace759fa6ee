/*
 * ptx_names.c - what an operand names, as the reader meets it in a function
 * body: a declared register and the slot its uses share, a variable (the
 * function's or the module's) and the functions that use it, a special
 * register, a constant slot, and a number as the bits of a type (immediates
 * and initialisers). ptx_parse.c declares the names; ptx_decode.c and
 * ptx_parse.c look them up here.
 */
#include "ptx_internal.h"

#include <stdlib.h>
#include <string.h>

uint32_t ptx_new_slot(ptx_parser *p)
{
    if (p->f->n_slots >= PTX_MAX_SLOTS)
        return PTX_NONE;
    return p->f->n_slots++;
}

static uint32_t slot_of(ptx_parser *p, uint32_t decl, uint32_t index)
{
    uint32_t s = ptx_imap_get(&p->regslots, decl, index);
    if (s != PTX_NONE)
        return s;
    if (p->regs[decl].type == PT_PRED) {
        if (p->f->n_preds >= PTX_MAX_SLOTS)
            return PTX_NONE;
        s = p->f->n_preds++;
    } else {
        s = ptx_new_slot(p);
        if (s == PTX_NONE)
            return PTX_NONE;
    }
    if (ptx_imap_put(&p->regslots, decl, index, s))
        return PTX_NONE;
    return s;
}

static uint32_t lookup_scope(ptx_parser *p, const char *name, size_t n, uint8_t what)
{
    uint32_t se = ptx_map_get(&p->names, name, n);
    if (se == PTX_NONE || se >= p->n_scope || p->scope[se].what != what)
        return PTX_NONE;
    return p->scope[se].index;
}

int ptx_lookup_reg(ptx_parser *p, const char *name, size_t n, uint32_t *slot, ptx_type *type)
{
    uint32_t d = lookup_scope(p, name, n, SE_REG);
    uint32_t index = 0;
    if (d != PTX_NONE && p->regs[d].range)
        d = PTX_NONE; /* "%r" alone names no register of %r<N> */
    if (d == PTX_NONE) {
        size_t k = n;
        while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
            k--;
        if (k == n || k == 0 || n - k > 10 || (name[k] == '0' && n - k > 1))
            return -1;
        uint64_t big = 0;
        for (size_t i = k; i < n; i++)
            big = big * 10 + (uint64_t)(name[i] - '0');
        if (big >= UINT32_MAX)
            return -1;
        index = (uint32_t)big;
        d = lookup_scope(p, name, k, SE_REG);
        if (d == PTX_NONE || !p->regs[d].range || index >= p->regs[d].count)
            return -1;
    }
    uint32_t s = slot_of(p, d, index);
    if (s == PTX_NONE)
        return -2;
    *slot = s;
    *type = (ptx_type)p->regs[d].type;
    return 0;
}

uint32_t ptx_lookup_var(ptx_parser *p, const char *name, size_t n)
{
    uint32_t v = p->f ? lookup_scope(p, name, n, SE_VAR) : PTX_NONE;
    if (v == PTX_NONE)
        v = ptx_map_get(&p->mvars, name, n);
    return v;
}

int ptx_use_var(ptx_parser *p, uint32_t var)
{
    if (p->m->vars[var].func != PTX_NONE || ptx_imap_get(&p->usedvars, var, 0) != PTX_NONE)
        return 0;
    if (ptx_imap_put(&p->usedvars, var, 0, 1) ||
        ptx_grow(&p->f->uses, &p->use_cap, p->f->n_uses, sizeof(uint32_t)))
        return -1;
    p->f->uses[p->f->n_uses++] = var;
    return 0;
}

static const struct {
    const char *name;
    ptx_sreg sreg;
} sregs[] = {
    {"%tid.x", PSR_TID_X}, {"%tid.y", PSR_TID_Y}, {"%tid.z", PSR_TID_Z},
    {"%ntid.x", PSR_NTID_X}, {"%ntid.y", PSR_NTID_Y}, {"%ntid.z", PSR_NTID_Z},
    {"%ctaid.x", PSR_CTAID_X}, {"%ctaid.y", PSR_CTAID_Y}, {"%ctaid.z", PSR_CTAID_Z},
    {"%nctaid.x", PSR_NCTAID_X}, {"%nctaid.y", PSR_NCTAID_Y}, {"%nctaid.z", PSR_NCTAID_Z},
    {"%laneid", PSR_LANEID}, {"%warpid", PSR_WARPID}, {"%nwarpid", PSR_NWARPID},
    {"%smid", PSR_SMID}, {"%nsmid", PSR_NSMID}, {"%gridid", PSR_GRIDID},
    {"%lanemask_eq", PSR_LANEMASK_EQ}, {"%lanemask_le", PSR_LANEMASK_LE},
    {"%lanemask_lt", PSR_LANEMASK_LT}, {"%lanemask_ge", PSR_LANEMASK_GE},
    {"%lanemask_gt", PSR_LANEMASK_GT}, {"%dynamic_smem_size", PSR_DYNAMIC_SMEM},
    {"%total_smem_size", PSR_TOTAL_SMEM}, {"%aggr_smem_size", PSR_AGGR_SMEM},
    {"%cluster_ctaid.x", PSR_CLUSTER_CTAID_X}, {"%cluster_ctaid.y", PSR_CLUSTER_CTAID_Y},
    {"%cluster_ctaid.z", PSR_CLUSTER_CTAID_Z}, {"%cluster_nctaid.x", PSR_CLUSTER_NCTAID_X},
    {"%cluster_nctaid.y", PSR_CLUSTER_NCTAID_Y}, {"%cluster_nctaid.z", PSR_CLUSTER_NCTAID_Z},
    {"%clusterid.x", PSR_CLUSTERID_X}, {"%clusterid.y", PSR_CLUSTERID_Y},
    {"%clusterid.z", PSR_CLUSTERID_Z}, {"%nclusterid.x", PSR_NCLUSTERID_X},
    {"%nclusterid.y", PSR_NCLUSTERID_Y}, {"%nclusterid.z", PSR_NCLUSTERID_Z},
    {"%cluster_ctarank", PSR_CLUSTER_CTARANK}, {"%cluster_nctarank", PSR_CLUSTER_NCTARANK},
    {"%is_explicit_cluster", PSR_IS_EXPLICIT_CLUSTER},
    {"%clock", PSR_CLOCK}, {"%clock_hi", PSR_CLOCK_HI}, {"%clock64", PSR_CLOCK64},
    {"%globaltimer", PSR_GLOBALTIMER}, {"%globaltimer_lo", PSR_GLOBALTIMER_LO},
    {"%globaltimer_hi", PSR_GLOBALTIMER_HI},
    {"%reserved_smem_offset_begin", PSR_RESERVED_SMEM_BEGIN},
    {"%reserved_smem_offset_end", PSR_RESERVED_SMEM_END},
    {"%reserved_smem_offset_cap", PSR_RESERVED_SMEM_CAP},
    {"%reserved_smem_offset_0", PSR_RESERVED_SMEM_0},
    {"%reserved_smem_offset_1", PSR_RESERVED_SMEM_1},
    {"%current_graph_exec", PSR_CURRENT_GRAPH_EXEC},
};

/* name[0..n) is prefix, a decimal number below limit (no leading zero), then suffix. */
static int numbered(const char *name, size_t n, const char *prefix, unsigned limit,
                    const char *suffix)
{
    size_t p = strlen(prefix), s = strlen(suffix);
    if (n <= p + s || memcmp(name, prefix, p) != 0 || memcmp(name + n - s, suffix, s) != 0)
        return 0;
    if (name[p] == '0' && n - s > p + 1)
        return 0;
    unsigned v = 0;
    for (size_t i = p; i < n - s; i++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        v = v * 10 + (unsigned)(name[i] - '0');
        if (v >= limit)
            return 0;
    }
    return 1;
}

int ptx_lookup_sreg(const char *name, size_t n, ptx_sreg *out)
{
    for (size_t i = 0; i < sizeof sregs / sizeof sregs[0]; i++)
        if (strlen(sregs[i].name) == n && memcmp(sregs[i].name, name, n) == 0) {
            *out = sregs[i].sreg;
            return 0;
        }
    /* the numbered families of the PTX ISA's special registers */
    if (numbered(name, n, "%pm", 8, "_64"))
        *out = PSR_PM64;
    else if (numbered(name, n, "%pm", 8, ""))
        *out = PSR_PM;
    else if (numbered(name, n, "%envreg", 32, ""))
        *out = PSR_ENVREG;
    else
        return -1;
    return 0;
}

uint32_t ptx_sreg_slot_of(ptx_parser *p, ptx_sreg s)
{
    uint32_t slot = ptx_imap_get(&p->sregslots, (uint32_t)s, 0);
    if (slot != PTX_NONE)
        return slot;
    slot = ptx_new_slot(p);
    if (slot == PTX_NONE || ptx_imap_put(&p->sregslots, (uint32_t)s, 0, slot) ||
        ptx_grow(&p->f->sregs, &p->sreg_cap, p->f->n_sregs, sizeof(ptx_sreg_slot)))
        return PTX_NONE;
    p->f->sregs[p->f->n_sregs++] = (ptx_sreg_slot){slot, (uint32_t)s};
    return slot;
}

uint32_t ptx_const_slot(ptx_parser *p, int64_t value, uint32_t sym)
{
    uint32_t lo = (uint32_t)value, hi = (uint32_t)((uint64_t)value >> 32);
    if (sym == PTX_NONE) {
        uint32_t s = ptx_imap_get(&p->constslots, lo, hi);
        if (s != PTX_NONE)
            return s;
    }
    uint32_t slot = ptx_new_slot(p);
    if (slot == PTX_NONE ||
        ptx_grow(&p->f->consts, &p->const_cap, p->f->n_consts, sizeof(ptx_const)))
        return PTX_NONE;
    if (sym == PTX_NONE && ptx_imap_put(&p->constslots, lo, hi, slot))
        return PTX_NONE;
    p->f->consts[p->f->n_consts++] = (ptx_const){slot, sym, value};
    return slot;
}

/* --- numbers as bits of a type (initialisers and immediates) ------------------- */

static uint16_t f32_to_f16_bits(float f);

int ptx_imm_bits(ptx_parser *p, const ptx_tok *t, int neg, ptx_type ty, uint64_t *out)
{
    int sz = ptx_type_size(ty);
    if (t->kind == TK_INT) {
        int64_t v = (int64_t)(neg ? 0 - t->u : t->u); /* wraps: -2^63 has no positive twin */
        if (ty == PT_F32) {
            float f = (float)v;
            uint32_t b;
            memcpy(&b, &f, 4);
            *out = b;
        } else if (ty == PT_F64) {
            double d = (double)v;
            memcpy(out, &d, 8);
        } else {
            *out = sz == 0 || sz >= 8 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << (8 * sz)) - 1);
        }
        return 0;
    }
    double d;
    float f;
    uint32_t b32 = (uint32_t)t->u;
    if (t->fk == FK_F32) {
        memcpy(&f, &b32, 4);
        d = f;
    } else {
        memcpy(&d, &t->u, 8);
    }
    if (neg)
        d = -d;
    if (ty == PT_F64) {
        if (t->fk == FK_F64 && !neg) {
            *out = t->u;
        } else {
            memcpy(out, &d, 8);
        }
    } else if (ty == PT_F32 || ((sz == 4) && t->fk != FK_DEC)) {
        if (t->fk == FK_F32 && !neg) {
            *out = b32;
        } else {
            f = (float)d;
            memcpy(&b32, &f, 4);
            *out = b32;
        }
    } else if (sz == 8 && t->fk != FK_DEC) {
        memcpy(out, &d, 8);
        if (t->fk == FK_F64 && !neg)
            *out = t->u;
    } else if (ty == PT_F16 || (sz == 2 && t->fk != FK_DEC)) {
        *out = f32_to_f16_bits((float)d);
    } else {
        return ptx_err(p, (size_t)(t - p->toks), "a float literal for a .%s value",
                       ptx_type_name(ty));
    }
    return 0;
}

/* Round to nearest even; enough for literals (the emulator's cvt has its own). */
static uint16_t f32_to_f16_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xff, mant = x & 0x7fffffu;
    if (e == 0xff)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    int exp = (int)e - 127 + 15;
    if (exp >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = (uint32_t)exp << 10 | mant >> 13, rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}
