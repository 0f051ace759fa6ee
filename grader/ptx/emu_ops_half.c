/*
 * emu_ops_half.c - f16 and bf16 arithmetic, scalar and packed in pairs
 * (.f16x2, .bf16x2: the low half is element 0): add sub mul fma neg abs min
 * max, with .ftz (f16), .sat, .relu and .NaN as PTX defines them.
 *
 * Each element is computed in double, where the operands and the exact
 * result of add, sub and mul are representable, and rounded once to its
 * format (emu_half.h): the correctly rounded .rn result the GPU gives. A NaN
 * result is the canonical 0x7fff.
 */
#include "emu_half.h"
#include "emu_internal.h"

#include <math.h>

static int is_bf16(ptx_type t)
{
    return t == PT_BF16 || t == PT_BF16X2;
}

static double value_of(uint32_t bits, int bf, int ftz)
{
    if (bf)
        return emu_bf16_value(bits);
    return emu_f16_value(ftz ? emu_f16_ftz(bits) : bits);
}

static uint32_t bits_of(double v, int bf, int ftz)
{
    if (bf)
        return emu_bf16_bits(v, EMU_BF16_NAN);
    uint32_t b = emu_f16_bits(v, EMU_F16_NAN);
    return ftz ? emu_f16_ftz(b) : b;
}

/* min and max: -0 below +0; a NaN operand gives way to the other (.NaN: NaN wins). */
static double minmax(int max, double a, double b, int nan)
{
    if (isnan(a) || isnan(b))
        return (nan || (isnan(a) && isnan(b))) ? NAN : isnan(a) ? b : a;
    if (a == b)
        return (signbit(a) != 0) == (max != 0) ? b : a;
    return (a < b) != (max != 0) ? a : b;
}

/* One element of in's operation, as bits (lo 16). */
static uint32_t element(const ptx_instr *in, uint32_t a, uint32_t b, uint32_t c)
{
    int bf = is_bf16((ptx_type)in->type), ftz = (in->flags & PF_FTZ) && !bf;
    if (in->op == OP_NEG)
        return (a ^ 0x8000u) & 0xffffu;
    if (in->op == OP_ABS)
        return (ftz ? emu_f16_ftz(a) : a) & 0x7fffu;
    double x = value_of(a, bf, ftz), y = value_of(b, bf, ftz), r;
    switch (in->op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_FMA: case OP_MAD: r = fma(x, y, value_of(c, bf, ftz)); break;
    case OP_MIN: r = minmax(0, x, y, in->flags & PF_NAN); break;
    default: r = minmax(1, x, y, in->flags & PF_NAN); break;
    }
    if (in->flags & PF_SAT)
        r = isnan(r) ? 0.0 : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
    if ((in->flags & PF_RELU) && !isnan(r) && r < 0.0)
        r = 0.0;
    return bits_of(r, bf, ftz);
}

static int h_arith(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    int pairs = in->type == PT_F16X2 || in->type == PT_BF16X2;
    int nsrc = in->nops - 1;
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    const uint64_t *B = nsrc > 1 ? emu_reg(w, in->o[2].r) : A;
    const uint64_t *C = nsrc > 2 ? emu_reg(w, in->o[3].r) : A;
    EMU_LANES(m, l, {
        uint32_t out = 0;
        for (int h = 0; h <= pairs; h++) {
            int s = 16 * h;
            out |= element(in, (uint32_t)(A[l] >> s) & 0xffffu, (uint32_t)(B[l] >> s) & 0xffffu,
                           (uint32_t)(C[l] >> s) & 0xffffu) << s;
        }
        d[l] = out;
    });
    return 0;
}

emu_fn emu_bind_half(const ptx_instr *in)
{
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_NEG: case OP_ABS:
    case OP_MIN: case OP_MAX:
        return in->rnd == PR_NONE || in->rnd == PR_RN ? h_arith : NULL;
    default:
        return NULL;
    }
}

/* --- comparisons: setp on f16 / bf16 and their pairs ---------------------------------- */

double emu_half_element(uint64_t reg, ptx_type t, int half, int ftz)
{
    uint32_t bits = (uint32_t)(reg >> (16 * half)) & 0xffffu;
    return value_of(bits, is_bf16(t), ftz && !is_bf16(t));
}
