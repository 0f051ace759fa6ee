/*
 * emu_ops_cmp.c - comparisons and predicates: setp, set, selp, slct,
 * testp, and the predicate forms of and/or/xor/not/mov.
 *
 * Predicates are 32-bit lane masks; an instruction writes only the bits of
 * the lanes that execute it.
 */
#include "emu_internal.h"

#include <math.h>

static uint32_t pred_of(const emu_warp *w, const ptx_operand *o)
{
    return w->p[o->r] ^ (o->neg ? EMU_FULL : 0);
}

static void pred_set(emu_warp *w, const ptx_operand *o, uint32_t v, uint32_t m)
{
    if (o->kind == PO_PRED)
        w->p[o->r] = (w->p[o->r] & ~m) | (v & m);
}

/* --- comparisons to a lane mask ------------------------------------------------------ */

#define CMP_LOOP(T, expr)                                                  \
    EMU_LANES(m, l, {                                                      \
        T a = (T)A[l], b = (T)B[l];                                        \
        r |= (uint32_t)(expr) << l;                                        \
    })

/* Integer comparison of type T (its unsigned twin UT for lo, ls, hi, hs). */
#define CMP_INT(name, T, UT)                                                             \
    static uint32_t name(const uint64_t *A, const uint64_t *B, int op, uint32_t m)       \
    {                                                                                    \
        uint32_t r = 0;                                                                  \
        switch (op) {                                                                    \
        case PC_EQ: CMP_LOOP(T, a == b); break;                                          \
        case PC_NE: CMP_LOOP(T, a != b); break;                                          \
        case PC_LT: CMP_LOOP(T, a < b); break;                                           \
        case PC_LE: CMP_LOOP(T, a <= b); break;                                          \
        case PC_GT: CMP_LOOP(T, a > b); break;                                           \
        case PC_GE: CMP_LOOP(T, a >= b); break;                                          \
        case PC_LO: CMP_LOOP(UT, a < b); break;                                          \
        case PC_LS: CMP_LOOP(UT, a <= b); break;                                         \
        case PC_HI: CMP_LOOP(UT, a > b); break;                                          \
        case PC_HS: CMP_LOOP(UT, a >= b); break;                                         \
        default: break;                                                                  \
        }                                                                                \
        return r;                                                                        \
    }
CMP_INT(cmp_s16, int16_t, uint16_t)
CMP_INT(cmp_u16, uint16_t, uint16_t)
CMP_INT(cmp_s32, int32_t, uint32_t)
CMP_INT(cmp_u32, uint32_t, uint32_t)
CMP_INT(cmp_s64, int64_t, uint64_t)
CMP_INT(cmp_u64, uint64_t, uint64_t)

static int float_cmp(double a, double b, int op)
{
    int un = isnan(a) || isnan(b);
    switch (op) {
    case PC_EQ: return !un && a == b;
    case PC_NE: return !un && a != b;
    case PC_LT: return !un && a < b;
    case PC_LE: return !un && a <= b;
    case PC_GT: return !un && a > b;
    case PC_GE: return !un && a >= b;
    case PC_EQU: return un || a == b;
    case PC_NEU: return un || a != b;
    case PC_LTU: return un || a < b;
    case PC_LEU: return un || a <= b;
    case PC_GTU: return un || a > b;
    case PC_GEU: return un || a >= b;
    case PC_NUM: return !un;
    case PC_NAN: return un;
    default: return 0;
    }
}

/* f32 compares exactly in double (every float is a double). */
static uint32_t cmp_f32(const uint64_t *A, const uint64_t *B, int op, uint32_t m, int ftz)
{
    uint32_t r = 0;
    if (!ftz && op == PC_LT) { /* the labs' loop bounds: a plain fast path */
        EMU_LANES(m, l, r |= (uint32_t)(emu_f32(A[l]) < emu_f32(B[l])) << l);
        return r;
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        float a = emu_f32(A[l]), b = emu_f32(B[l]);
        if (ftz) {
            a = emu_ftz32(a);
            b = emu_ftz32(b);
        }
        r |= (uint32_t)float_cmp(a, b, op) << l;
    }
    return r;
}

static uint32_t cmp_f64(const uint64_t *A, const uint64_t *B, int op, uint32_t m)
{
    uint32_t r = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        r |= (uint32_t)float_cmp(emu_f64(A[l]), emu_f64(B[l]), op) << l;
    }
    return r;
}

/* f16 and bf16: element `half` of each operand (0: the low 16 bits). */
static uint32_t cmp_half(const uint64_t *A, const uint64_t *B, ptx_type t, int half, int op,
                         uint32_t m, int ftz)
{
    uint32_t r = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        r |= (uint32_t)float_cmp(emu_half_element(A[l], t, half, ftz),
                                 emu_half_element(B[l], t, half, ftz), op) << l;
    }
    return r;
}

/* The comparison of operands a, b of type t for lanes m. */
static uint32_t compare(emu_warp *w, const ptx_instr *in, ptx_type t, int ka, uint32_t m)
{
    const uint64_t *A = emu_reg(w, in->o[ka].r), *B = emu_reg(w, in->o[ka + 1].r);
    int op = in->mod;
    switch (t) {
    case PT_S16: return cmp_s16(A, B, op, m);
    case PT_U16: case PT_B16: return cmp_u16(A, B, op, m);
    case PT_S32: return cmp_s32(A, B, op, m);
    case PT_U32: case PT_B32: return cmp_u32(A, B, op, m);
    case PT_S64: return cmp_s64(A, B, op, m);
    case PT_U64: case PT_B64: return cmp_u64(A, B, op, m);
    case PT_F32: return cmp_f32(A, B, op, m, (in->flags & PF_FTZ) != 0);
    case PT_F16: case PT_BF16: case PT_F16X2: case PT_BF16X2:
        return cmp_half(A, B, t, 0, op, m, (in->flags & PF_FTZ) != 0);
    default: return cmp_f64(A, B, op, m);
    }
}

static uint32_t combine(uint32_t x, uint32_t c, int op)
{
    switch (op) {
    case PM_AND: return x & c;
    case PM_OR: return x | c;
    case PM_XOR: return x ^ c;
    default: return x;
    }
}

/* setp.cmp[.bool].type p[|q], a, b[, c]: o[0] p, o[1] q, o[2] a, o[3] b, o[4] c */
static int c_setp(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint32_t x = compare(w, in, (ptx_type)in->type, 2, m);
    uint32_t c = in->mod2 ? pred_of(w, &in->o[4]) : 0;
    uint32_t p = combine(x, c, in->mod2), q = combine(~x, c, in->mod2);
    if (in->type == PT_F16X2 || in->type == PT_BF16X2) { /* p: the low halves, q: the high */
        const uint64_t *A = emu_reg(w, in->o[2].r), *B = emu_reg(w, in->o[3].r);
        uint32_t y = cmp_half(A, B, (ptx_type)in->type, 1, in->mod, m, (in->flags & PF_FTZ) != 0);
        q = combine(y, c, in->mod2);
    }
    pred_set(w, &in->o[0], p, m);
    pred_set(w, &in->o[1], q, m);
    return 0;
}

/* set.cmp[.bool].dtype.stype d, a, b[, c]: all ones (integers) or 1.0 (f32) where true */
static int c_set(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    ptx_type st = (ptx_type)in->type2, dt = (ptx_type)in->type;
    uint32_t x = compare(w, in, st, 1, m);
    uint32_t c = in->mod2 ? pred_of(w, &in->o[3]) : 0;
    x = combine(x, c, in->mod2);
    uint64_t *d = emu_reg(w, in->o[0].r);
    if (st == PT_F16X2 || st == PT_BF16X2) { /* a pair: each half its own answer */
        const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
        uint32_t y = combine(cmp_half(A, B, st, 1, in->mod, m, (in->flags & PF_FTZ) != 0), c,
                             in->mod2);
        uint64_t one = dt == PT_F16X2 ? 0x3c00u : dt == PT_BF16X2 ? 0x3f80u : 0xffffu;
        EMU_LANES(m, l, d[l] = ((x >> l & 1) ? one : 0) | ((y >> l & 1) ? one << 16 : 0));
        return 0;
    }
    uint64_t yes = dt == PT_F32 ? 0x3f800000u : dt == PT_F16 ? 0x3c00u
                 : dt == PT_BF16 ? 0x3f80u : ptx_type_size(dt) == 2 ? 0xffffu : 0xffffffffu;
    EMU_LANES(m, l, d[l] = (x >> l & 1) ? yes : 0);
    return 0;
}

static uint64_t type_mask(ptx_type t)
{
    int sz = ptx_type_size(t);
    return sz >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * sz)) - 1;
}

static int c_selp(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    uint32_t c = pred_of(w, &in->o[3]);
    uint64_t mask = type_mask((ptx_type)in->type);
    EMU_LANES(m, l, d[l] = ((c >> l & 1) ? A[l] : B[l]) & mask);
    return 0;
}

/* slct.dtype.ctype d, a, b, c: a where c >= 0, else b */
static int c_slct(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    uint64_t mask = type_mask((ptx_type)in->type);
    int f = in->type2 == PT_F32, ftz = (in->flags & PF_FTZ) != 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int ge = f ? (ftz ? emu_ftz32(emu_f32(C[l])) : emu_f32(C[l])) >= 0.0f
                   : (int32_t)C[l] >= 0;
        d[l] = (ge ? A[l] : B[l]) & mask;
    }
    return 0;
}

static int c_testp(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    const uint64_t *A = emu_reg(w, in->o[1].r);
    uint32_t r = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        double v = in->type == PT_F32 ? (double)emu_f32(A[l]) : emu_f64(A[l]);
        int cls = in->type == PT_F32 ? fpclassify(emu_f32(A[l])) : fpclassify(v);
        int t;
        switch (in->mod) {
        case PM_FINITE: t = isfinite(v); break;
        case PM_INFINITE: t = isinf(v); break;
        case PM_NUMBER: t = !isnan(v); break;
        case PM_NOTANUMBER: t = isnan(v); break;
        case PM_NORMAL: t = cls == FP_NORMAL; break;
        default: t = cls == FP_SUBNORMAL; break;
        }
        r |= (uint32_t)(t != 0) << l;
    }
    pred_set(w, &in->o[0], r, m);
    return 0;
}

/* and/or/xor/not/mov on predicates */
static int c_pred_logic(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint32_t a = pred_of(w, &in->o[1]);
    uint32_t b = in->nops > 2 ? pred_of(w, &in->o[2]) : 0, r;
    switch (in->op) {
    case OP_AND: r = a & b; break;
    case OP_OR: r = a | b; break;
    case OP_XOR: r = a ^ b; break;
    case OP_NOT: r = ~a; break;
    default: r = a; break; /* mov */
    }
    pred_set(w, &in->o[0], r, m);
    return 0;
}

static int cmp_type_ok(ptx_type t)
{
    return (t >= PT_B16 && t <= PT_B64) || (t >= PT_U16 && t <= PT_U64) ||
           (t >= PT_S16 && t <= PT_S64) || t == PT_F32 || t == PT_F64 || t == PT_F16 ||
           t == PT_BF16;
}

emu_fn emu_bind_cmp(const ptx_instr *in)
{
    ptx_type t = (ptx_type)in->type;
    switch (in->op) {
    case OP_SETP: return cmp_type_ok(t) || t == PT_F16X2 || t == PT_BF16X2 ? c_setp : NULL;
    case OP_SET: {
        ptx_type st = (ptx_type)in->type2;
        return cmp_type_ok(st) || st == PT_F16X2 || st == PT_BF16X2 ? c_set : NULL;
    }
    case OP_SELP: return ptx_type_size(t) > 0 && ptx_type_size(t) <= 8 ? c_selp : NULL;
    case OP_SLCT:
        return (in->type2 == PT_S32 || in->type2 == PT_F32) && ptx_type_size(t) <= 8 ? c_slct
                                                                                     : NULL;
    case OP_TESTP: return t == PT_F32 || t == PT_F64 ? c_testp : NULL;
    case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_MOV:
        return t == PT_PRED ? c_pred_logic : NULL;
    default: return NULL;
    }
}
