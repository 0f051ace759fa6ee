/*
 * emu_ops_bits.c - bit operations: and or xor not cnot shl shr shf lop3
 * popc clz bfind brev bfe bfi prmt szext bmsk dp4a, as PTX defines them
 * (shifts past the width give 0, or the sign for shr.s; bit fields clamp).
 */
#include "emu_internal.h"

#define BITS_TYPES(M, op)                                                  \
    M(16, uint16_t, int16_t, uint32_t, op)                                 \
    M(32, uint32_t, int32_t, uint32_t, op)                                 \
    M(64, uint64_t, int64_t, uint64_t, op)

/* d = a OP b, bitwise */
#define LOGIC_T(bits, UT, ST, UP, op)                                         \
    static int b_##op##bits(emu_warp *w, const ptx_instr *in, uint32_t m)           \
    {                                                                               \
        uint64_t *d = emu_reg(w, in->o[0].r);                                       \
        const uint64_t *A = emu_reg(w, in->o[1].r);                                 \
        const uint64_t *B = emu_reg(w, in->o[in->nops > 2 ? 2 : 1].r);              \
        EMU_LANES(m, l, {                                                           \
            UT a = (UT)A[l], b = (UT)B[l];                                          \
            (void)b;                                                                \
            d[l] = (uint64_t)(UT)(E_##op(bits, UP));                                            \
        });                                                                         \
        return 0;                                                                   \
    }
#define E_and(bits, UP) (a & b)
#define E_or(bits, UP) (a | b)
#define E_xor(bits, UP) (a ^ b)
#define E_not(bits, UP) (~a)
#define E_cnot(bits, UP) (a == 0)
BITS_TYPES(LOGIC_T, and)
BITS_TYPES(LOGIC_T, or)
BITS_TYPES(LOGIC_T, xor)
BITS_TYPES(LOGIC_T, not)
BITS_TYPES(LOGIC_T, cnot)

/* Shifts: the amount is an unsigned 32-bit value; past the width the result saturates. */
#define SHIFT_T(bits, UT, ST, UP, op)                                         \
    static int b_##op##bits(emu_warp *w, const ptx_instr *in, uint32_t m)           \
    {                                                                               \
        uint64_t *d = emu_reg(w, in->o[0].r);                                       \
        const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);    \
        EMU_LANES(m, l, {                                                           \
            UT a = (UT)A[l];                                                        \
            ST s = (ST)A[l];                                                        \
            uint32_t n = (uint32_t)B[l];                                            \
            (void)a;                                                                \
            (void)s;                                                                \
            d[l] = (uint64_t)(UT)(E_##op(bits, UP));                                            \
        });                                                                         \
        return 0;                                                                   \
    }
#define E_shl(bits, UP) (n >= bits ? 0 : (UP)a << n)
#define E_shru(bits, UP) (n >= bits ? 0 : a >> n)
#define E_shrs(bits, UP) (n >= bits ? (s < 0 ? -1 : 0) : s >> n)
BITS_TYPES(SHIFT_T, shl)
BITS_TYPES(SHIFT_T, shru)
BITS_TYPES(SHIFT_T, shrs)

#define PICK(op) (sz == 2 ? b_##op##16 : sz == 4 ? b_##op##32 : sz == 8 ? b_##op##64 : NULL)

/* --- counting ---------------------------------------------------------------------- */

static int b_popc(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    uint64_t mask = ptx_type_size((ptx_type)in->type) == 8 ? UINT64_MAX : 0xffffffffu;
    EMU_LANES(m, l, d[l] = (uint64_t)__builtin_popcountll(A[l] & mask));
    return 0;
}

static int b_clz(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    if (ptx_type_size((ptx_type)in->type) == 8)
        EMU_LANES(m, l, d[l] = A[l] ? (uint64_t)__builtin_clzll(A[l]) : 64);
    else
        EMU_LANES(m, l, d[l] = (uint32_t)A[l] ? (uint64_t)__builtin_clz((uint32_t)A[l]) : 32);
    return 0;
}

/* Position of the most significant bit that differs from the sign (signed) or is set. */
static int b_bfind(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    int bits = ptx_type_size((ptx_type)in->type) * 8;
    int sg = ptx_type_is_signed((ptx_type)in->type);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = bits == 64 ? A[l] : (uint32_t)A[l];
        if (sg && (a >> (bits - 1)) & 1)
            a = ~a & (bits == 64 ? UINT64_MAX : 0xffffffffu);
        if (!a) {
            d[l] = 0xffffffffu;
            continue;
        }
        uint32_t pos = 63u - (uint32_t)__builtin_clzll(a);
        d[l] = in->mod == PM_SHIFTAMT ? (uint32_t)(bits - 1) - pos : pos;
    }
    return 0;
}

static uint64_t reverse64(uint64_t x)
{
    x = (x >> 1 & 0x5555555555555555ull) | (x & 0x5555555555555555ull) << 1;
    x = (x >> 2 & 0x3333333333333333ull) | (x & 0x3333333333333333ull) << 2;
    x = (x >> 4 & 0x0f0f0f0f0f0f0f0full) | (x & 0x0f0f0f0f0f0f0f0full) << 4;
    return __builtin_bswap64(x);
}

static int b_brev(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    if (ptx_type_size((ptx_type)in->type) == 8)
        EMU_LANES(m, l, d[l] = reverse64(A[l]));
    else
        EMU_LANES(m, l, d[l] = reverse64(A[l]) >> 32);
    return 0;
}

/* --- bit fields ------------------------------------------------------------------------ */

static uint64_t width_mask(int bits)
{
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

static int b_bfe(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    int bits = ptx_type_size((ptx_type)in->type) * 8, msb = bits - 1;
    int sg = ptx_type_is_signed((ptx_type)in->type);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t pos = (uint32_t)B[l] & 0xff, len = (uint32_t)C[l] & 0xff;
        uint64_t a = A[l] & width_mask(bits);
        uint32_t top = pos + len - 1 < (uint32_t)msb ? pos + len - 1 : (uint32_t)msb;
        int sbit = sg && len ? (int)((a >> top) & 1) : 0;
        uint64_t r = 0;
        for (uint32_t i = 0; i < (uint32_t)bits; i++) {
            int bit = (i < len && pos + i <= (uint32_t)msb) ? (int)((a >> (pos + i)) & 1) : sbit;
            r |= (uint64_t)bit << i;
        }
        d[l] = r;
    }
    return 0;
}

static int b_bfi(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r), *D = emu_reg(w, in->o[4].r);
    int bits = ptx_type_size((ptx_type)in->type) * 8;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t pos = (uint32_t)C[l] & 0xff, len = (uint32_t)D[l] & 0xff;
        uint64_t f = B[l] & width_mask(bits);
        for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++)
            f = (f & ~(UINT64_C(1) << (pos + i))) | (((A[l] >> i) & 1) << (pos + i));
        d[l] = f;
    }
    return 0;
}

/* One byte of prmt's 8-byte source {b, a}, by a selector. */
static uint32_t prmt_byte(uint64_t src, uint32_t sel, int sign_mode)
{
    uint32_t byte = (uint32_t)(src >> ((sel & 7) * 8)) & 0xff;
    if (sign_mode && (sel & 8))
        return (byte & 0x80) ? 0xff : 0;
    return byte;
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t src = (uint64_t)b << 32 | a;
    uint32_t sel[4];
    switch (mode) {
    case PM_NONE:
        for (int i = 0; i < 4; i++)
            sel[i] = (c >> (4 * i)) & 0xf;
        break;
    case PM_F4E: case PM_B4E: {
        uint32_t s = c & 3;
        for (int i = 0; i < 4; i++)
            sel[i] = mode == PM_F4E ? (s + (uint32_t)i) & 7 : (s - (uint32_t)i + 8) & 7;
        break;
    }
    case PM_RC8:
        sel[0] = sel[1] = sel[2] = sel[3] = c & 3;
        break;
    case PM_ECL: { /* edge clamp left */
        uint32_t s = c & 3;
        for (uint32_t i = 0; i < 4; i++)
            sel[i] = i >= s ? i : s;
        break;
    }
    case PM_ECR: { /* edge clamp right */
        uint32_t s = c & 3;
        for (uint32_t i = 0; i < 4; i++)
            sel[i] = i <= s ? i : s;
        break;
    }
    default: { /* rc16: replicate a half word */
        uint32_t s = (c & 1) * 2;
        sel[0] = sel[2] = s;
        sel[1] = sel[3] = s + 1;
    }
    }
    uint32_t r = 0;
    for (int i = 0; i < 4; i++)
        r |= prmt_byte(src, sel[i], mode == PM_NONE) << (8 * i);
    return r;
}

static int b_prmt(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    int mode = in->mod;
    EMU_LANES(m, l, d[l] = prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], mode));
    return 0;
}

/* Funnel shift of the 64-bit {b, a} by c: .l keeps the high word, .r the low one. */
static int b_shf(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    int left = in->mod == PM_L, clamp = in->mod2 == PM_CLAMP;
    EMU_LANES(m, l, {
        uint32_t c = (uint32_t)C[l];
        uint32_t n = clamp ? (c < 32 ? c : 32) : (c & 31);
        uint64_t x = (uint64_t)(uint32_t)B[l] << 32 | (uint32_t)A[l];
        d[l] = left ? (uint32_t)((x << n) >> 32) : (uint32_t)(x >> n);
    });
    return 0;
}

static int b_lop3(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r), *L = emu_reg(w, in->o[4].r);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], lut = (uint32_t)L[l];
        uint32_t r = 0;
        for (int i = 0; i < 8; i++) /* minterm i: a is bit 2, b bit 1, c bit 0 */
            if (lut >> i & 1)
                r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
        d[l] = r;
    }
    return 0;
}

static int b_szext(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    int sg = in->type == PT_S32, clamp = in->mod == PM_CLAMP;
    EMU_LANES(m, l, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], b1 = b & 31;
        int too_large = b >= 32 && clamp;
        uint32_t mask = too_large ? 0 : ~0u << b1;
        int sign = b1 && !too_large && sg ? (int)((a >> ((b1 - 1) & 31)) & 1) : 0;
        d[l] = (a & ~mask) | (sign ? mask : 0);
    });
    return 0;
}

static int b_bmsk(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    int clamp = in->mod == PM_CLAMP;
    EMU_LANES(m, l, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], a1 = a & 31, b1 = b & 31;
        uint32_t mask0 = ~0u << a1, sum = a1 + b1;
        uint32_t mask1 = sum >= 32 ? 0 : ~0u << sum;
        int over = sum >= 32 || (clamp && (a >= 32 || b >= 32));
        if (clamp && a >= 32)
            mask0 = 0;
        if (over)
            mask1 = 0;
        else if (b1 == 0)
            mask1 = ~0u;
        d[l] = mask0 & ~mask1;
    });
    return 0;
}

/* dp4a: c plus the dot product of the four bytes of a and of b. */
static int b_dp4a(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    int sa = in->type == PT_S32, sb = in->type2 == PT_S32;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int64_t acc = sa || sb ? (int64_t)(int32_t)C[l] : (int64_t)(uint32_t)C[l];
        for (int i = 0; i < 4; i++) {
            uint32_t x = ((uint32_t)A[l] >> (8 * i)) & 0xff, y = ((uint32_t)B[l] >> (8 * i)) & 0xff;
            int64_t xa = sa ? (int8_t)x : (int64_t)x, yb = sb ? (int8_t)y : (int64_t)y;
            acc += xa * yb;
        }
        d[l] = (uint32_t)acc;
    }
    return 0;
}

emu_fn emu_bind_bits(const ptx_instr *in)
{
    int sz = ptx_type_size((ptx_type)in->type);
    int bits32 = sz == 4, any = sz == 4 || sz == 8;
    switch (in->op) {
    case OP_AND: return PICK(and);
    case OP_OR: return PICK(or);
    case OP_XOR: return PICK(xor);
    case OP_NOT: return PICK(not);
    case OP_CNOT: return PICK(cnot);
    case OP_SHL: return PICK(shl);
    case OP_SHR: return ptx_type_is_signed((ptx_type)in->type) ? PICK(shrs) : PICK(shru);
    case OP_POPC: return any ? b_popc : NULL;
    case OP_CLZ: return any ? b_clz : NULL;
    case OP_BFIND: return any ? b_bfind : NULL;
    case OP_BREV: return any ? b_brev : NULL;
    case OP_BFE: return any ? b_bfe : NULL;
    case OP_BFI: return any ? b_bfi : NULL;
    case OP_PRMT: return bits32 ? b_prmt : NULL;
    case OP_SHF: return bits32 && in->mod != PM_NONE ? b_shf : NULL;
    case OP_LOP3: return bits32 && in->nops == 5 ? b_lop3 : NULL;
    case OP_SZEXT: return bits32 ? b_szext : NULL;
    case OP_BMSK: return b_bmsk;
    case OP_DP4A: return b_dp4a;
    default: return NULL;
    }
}
