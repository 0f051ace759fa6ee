/*
 * emu_ops_int.c - integer arithmetic: add sub mul mad (lo, hi, wide) mul24
 * mad24 sad div rem abs neg min max, saturating and carry forms.
 *
 * Each handler is generated for the C type of its PTX type (u16 ... s64), so
 * that a warp instruction is one tight loop over 32 lanes. Registers hold
 * values zero-extended to 64 bits; a handler reads them as its type and
 * writes its result truncated to its type. Arithmetic that may overflow runs
 * in unsigned types (wrapping, as the GPU does); division by zero gives all
 * ones and remainder the dividend, as NVIDIA GPUs do.
 */
#include "emu_internal.h"

/* name, C type, unsigned type, unsigned type for arithmetic, double-width type, bits, signed */
#define INT_TYPES(M, op)                                                            \
    M(u16, uint16_t, uint16_t, uint32_t, uint32_t, 16, 0, op)               \
    M(s16, int16_t, uint16_t, uint32_t, int32_t, 16, 1, op)                 \
    M(u32, uint32_t, uint32_t, uint32_t, uint64_t, 32, 0, op)               \
    M(s32, int32_t, uint32_t, uint32_t, int64_t, 32, 1, op)                 \
    M(u64, uint64_t, uint64_t, uint64_t, unsigned __int128, 64, 0, op)      \
    M(s64, int64_t, uint64_t, uint64_t, __int128, 64, 1, op)

#define TABLE_ENTRY(tn, T, UT, UP, WT, BITS, SG, op) i_##op##_##tn,
#define TABLE(op) static const emu_fn t_##op[6] = {INT_TYPES(TABLE_ENTRY, op)}

/* d = f(a) */
#define UN_T(tn, T, UT, UP, WT, BITS, SG, op)                                  \
    static int i_##op##_##tn(emu_warp *w, const ptx_instr *in, uint32_t m)          \
    {                                                                               \
        uint64_t *d = emu_reg(w, in->o[0].r);                                       \
        const uint64_t *A = emu_reg(w, in->o[1].r);                                 \
        EMU_LANES(m, l, {                                                           \
            T a = (T)A[l];                                                          \
            d[l] = (uint64_t)(UT)(E_##op(T, UT, UP, WT, BITS, SG));            \
        });                                                                         \
        return 0;                                                                   \
    }
/* d = f(a, b) */
#define BIN_T(tn, T, UT, UP, WT, BITS, SG, op)                                 \
    static int i_##op##_##tn(emu_warp *w, const ptx_instr *in, uint32_t m)          \
    {                                                                               \
        uint64_t *d = emu_reg(w, in->o[0].r);                                       \
        const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);    \
        EMU_LANES(m, l, {                                                           \
            T a = (T)A[l], b = (T)B[l];                                             \
            d[l] = (uint64_t)(UT)(E_##op(T, UT, UP, WT, BITS, SG));            \
        });                                                                         \
        return 0;                                                                   \
    }
/* d = f(a, b, c) */
#define TER_T(tn, T, UT, UP, WT, BITS, SG, op)                                 \
    static int i_##op##_##tn(emu_warp *w, const ptx_instr *in, uint32_t m)          \
    {                                                                               \
        uint64_t *d = emu_reg(w, in->o[0].r);                                       \
        const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);    \
        const uint64_t *C = emu_reg(w, in->o[3].r);                                 \
        EMU_LANES(m, l, {                                                           \
            T a = (T)A[l], b = (T)B[l], c = (T)C[l];                                \
            d[l] = (uint64_t)(UT)(E_##op(T, UT, UP, WT, BITS, SG));            \
        });                                                                         \
        return 0;                                                                   \
    }

/* Each operation is a macro E_op of the types, expanded inside the handler. */
#define UNARY(op) INT_TYPES(UN_T, op) TABLE(op);
#define BINARY(op) INT_TYPES(BIN_T, op) TABLE(op);
#define TERNARY(op) INT_TYPES(TER_T, op) TABLE(op);

/* The operations, as expressions of a, b, c (type T) and the types of the handler. */
#define E_add(T, UT, UP, WT, BITS, SG) ((UP)a + (UP)b)
#define E_sub(T, UT, UP, WT, BITS, SG) ((UP)a - (UP)b)
#define E_mullo(T, UT, UP, WT, BITS, SG) ((UP)a * (UP)b)
#define E_mulhi(T, UT, UP, WT, BITS, SG) ((UT)(((WT)a * (WT)b) >> BITS))
#define E_min(T, UT, UP, WT, BITS, SG) (a < b ? a : b)
#define E_max(T, UT, UP, WT, BITS, SG) (a > b ? a : b)
/* b == -1 is negation (the signed minimum stays itself, as on the GPU) */
#define E_div(T, UT, UP, WT, BITS, SG)                                                   \
    (b == 0 ? (UT)~(UT)0 : (SG && b == (T)~(UT)0) ? (UT)(0 - (UP)a) : (UT)(a / b))
#define E_rem(T, UT, UP, WT, BITS, SG)                                                   \
    (b == 0 ? (UT)a : (SG && b == (T)~(UT)0) ? (UT)0 : (UT)(a % b))
#define E_madlo(T, UT, UP, WT, BITS, SG) ((UP)a * (UP)b + (UP)c)
#define E_madhi(T, UT, UP, WT, BITS, SG) ((UP)(UT)(((WT)a * (WT)b) >> BITS) + (UP)c)
#define E_sad(T, UT, UP, WT, BITS, SG) ((a < b ? (UP)b - (UP)a : (UP)a - (UP)b) + (UP)c)
#define E_neg(T, UT, UP, WT, BITS, SG) (0 - (UP)a)
#define E_abs(T, UT, UP, WT, BITS, SG) ((SG && (UP)a >> (BITS - 1)) ? 0 - (UP)a : (UP)a)

BINARY(add)
BINARY(sub)
BINARY(mullo)
BINARY(mulhi)
BINARY(min)
BINARY(max)
BINARY(div)
BINARY(rem)
TERNARY(madlo)
TERNARY(madhi)
TERNARY(sad)
UNARY(neg)
UNARY(abs)

static int type_index(ptx_type t)
{
    switch (t) {
    case PT_U16: case PT_B16: return 0;
    case PT_S16: return 1;
    case PT_U32: case PT_B32: return 2;
    case PT_S32: return 3;
    case PT_U64: case PT_B64: return 4;
    case PT_S64: return 5;
    default: return -1;
    }
}

/* --- widening multiply: 16 -> 32 and 32 -> 64 bits ------------------------------- */

#define WIDE(tn, T, WT, WU)                                                          \
    static int i_mulwide_##tn(emu_warp *w, const ptx_instr *in, uint32_t m)          \
    {                                                                                \
        uint64_t *d = emu_reg(w, in->o[0].r);                                        \
        const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);     \
        EMU_LANES(m, l, d[l] = (uint64_t)(WU)((WT)(T)A[l] * (WT)(T)B[l]));            \
        return 0;                                                                    \
    }                                                                                \
    static int i_madwide_##tn(emu_warp *w, const ptx_instr *in, uint32_t m)          \
    {                                                                                \
        uint64_t *d = emu_reg(w, in->o[0].r);                                        \
        const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);     \
        const uint64_t *C = emu_reg(w, in->o[3].r);                                  \
        EMU_LANES(m, l, d[l] = (uint64_t)(WU)((WU)((WT)(T)A[l] * (WT)(T)B[l]) + (WU)C[l])); \
        return 0;                                                                    \
    }
WIDE(u16, uint16_t, uint32_t, uint32_t)
WIDE(s16, int16_t, int32_t, uint32_t)
WIDE(u32, uint32_t, uint64_t, uint64_t)
WIDE(s32, int32_t, int64_t, uint64_t)
static const emu_fn t_mulwide[4] = {i_mulwide_u16, i_mulwide_s16, i_mulwide_u32, i_mulwide_s32};
static const emu_fn t_madwide[4] = {i_madwide_u16, i_madwide_s16, i_madwide_u32, i_madwide_s32};

/* --- saturating s32 ----------------------------------------------------------------- */

static int32_t sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int i_addsat(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    int sub = in->op == OP_SUB;
    EMU_LANES(m, l, {
        int64_t a = (int32_t)A[l], b = (int32_t)B[l];
        d[l] = (uint32_t)sat32(sub ? a - b : a + b);
    });
    return 0;
}

static int i_madhisat(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    const uint64_t *C = emu_reg(w, in->o[3].r);
    EMU_LANES(m, l, {
        int64_t hi = ((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32;
        d[l] = (uint32_t)sat32(hi + (int32_t)C[l]);
    });
    return 0;
}

/* --- 24-bit multiply (the low 24 bits of each source) ------------------------------ */

static int64_t low24(uint64_t v, int sg)
{
    uint32_t x = (uint32_t)v & 0xffffffu;
    return sg && (x & 0x800000u) ? (int64_t)x - 0x1000000 : (int64_t)x;
}

static int i_mul24(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    const uint64_t *C = in->op == OP_MAD24 ? emu_reg(w, in->o[3].r) : NULL;
    int sg = in->type == PT_S32, hi = (in->flags & PF_HI) != 0;
    EMU_LANES(m, l, {
        uint64_t p = (uint64_t)(low24(A[l], sg) * low24(B[l], sg)); /* 48 bits */
        uint32_t r = hi ? (uint32_t)(p >> 16) : (uint32_t)p;
        d[l] = (uint32_t)(r + (C ? (uint32_t)C[l] : 0));
    });
    return 0;
}

/* --- carry chains: add.cc, addc, sub.cc, subc, mad.cc, madc ------------------------- */

static int i_carry(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    const uint64_t *C = in->nops > 3 ? emu_reg(w, in->o[3].r) : NULL;
    int bits = ptx_type_size((ptx_type)in->type) * 8;
    int use_cf = in->op == OP_ADDC || in->op == OP_SUBC || in->op == OP_MADC;
    int sub = in->op == OP_SUB || in->op == OP_SUBC;
    int set_cf = (in->flags & PF_CC) != 0;
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint32_t cf_out = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        unsigned __int128 a = A[l] & mask, b = B[l] & mask;
        unsigned __int128 cin = use_cf ? (w->carry >> l) & 1u : 0;
        unsigned __int128 r;
        if (C) { /* mad: the product's low or high half, plus c and the carry */
            unsigned __int128 prod = a * b;
            unsigned __int128 half = (in->flags & PF_HI) ? prod >> bits : prod & mask;
            r = half + (C[l] & mask) + cin;
        } else if (sub) { /* a - b - borrow: the carry flag is the borrow */
            r = a - b - cin;
        } else {
            r = a + b + cin;
        }
        d[l] = (uint64_t)r & mask;
        if ((r >> bits) & 1u)
            cf_out |= 1u << l;
    }
    if (set_cf)
        w->carry = (w->carry & ~m) | cf_out;
    return 0;
}

static int carry_form(const ptx_instr *in)
{
    return (in->flags & PF_CC) || in->op == OP_ADDC || in->op == OP_SUBC || in->op == OP_MADC;
}

static emu_fn bind_mul(const ptx_instr *in, int ti)
{
    if (in->flags & PF_WIDE)
        return ti < 4 ? (in->op == OP_MUL ? t_mulwide : t_madwide)[ti] : NULL;
    if (in->op == OP_MAD && (in->flags & PF_SAT))
        return in->type == PT_S32 && (in->flags & PF_HI) ? i_madhisat : NULL;
    if (in->flags & PF_HI)
        return (in->op == OP_MUL ? t_mulhi : t_madhi)[ti];
    return (in->op == OP_MUL ? t_mullo : t_madlo)[ti];
}

emu_fn emu_bind_int(const ptx_instr *in)
{
    int ti = type_index((ptx_type)in->type);
    if (ti < 0)
        return NULL;
    int sg = ti & 1;
    if (carry_form(in))
        return ti >= 2 ? i_carry : NULL;
    if ((in->flags & PF_SAT) && in->op != OP_MAD)
        return (in->op == OP_ADD || in->op == OP_SUB) && in->type == PT_S32 ? i_addsat : NULL;
    switch (in->op) {
    case OP_ADD: return t_add[ti];
    case OP_SUB: return t_sub[ti];
    case OP_MUL:
    case OP_MAD: return bind_mul(in, ti);
    case OP_MUL24:
    case OP_MAD24: return (ti == 2 || ti == 3) ? i_mul24 : NULL;
    case OP_SAD: return t_sad[ti];
    case OP_DIV: return t_div[ti];
    case OP_REM: return t_rem[ti];
    case OP_ABS: return sg ? t_abs[ti] : NULL;
    case OP_NEG: return sg ? t_neg[ti] : NULL;
    case OP_MIN: return in->nops == 3 ? t_min[ti] : NULL;
    case OP_MAX: return in->nops == 3 ? t_max[ti] : NULL;
    default: return NULL;
    }
}
