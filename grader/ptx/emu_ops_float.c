/*
 * emu_ops_float.c - f32 and f64 arithmetic (docs/emulator.md#semantics):
 * add sub mul fma mad div rcp sqrt rsqrt sin cos lg2 ex2 tanh abs neg min
 * max copysign.
 *
 * .rn (the default) is the C operator or fma; .rz .rm .rp switch the host's
 * rounding mode around the whole warp instruction; .ftz flushes subnormal
 * f32 inputs and results to zeros of their sign; .sat clamps to [0, 1] (NaN
 * to 0). The approximate forms compute the correctly rounded value, well
 * inside the GPU's documented error bounds. The plain .rn forms of add, mul
 * and fma have handlers of their own: they are most of what the labs run.
 */
#include "emu_internal.h"

#include <fenv.h>
#include <math.h>

/* --- fast paths --------------------------------------------------------------------- */

static int f_add32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    EMU_LANES(m, l, d[l] = emu_bits32(emu_f32(A[l]) + emu_f32(B[l])));
    return 0;
}

static int f_sub32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    EMU_LANES(m, l, d[l] = emu_bits32(emu_f32(A[l]) - emu_f32(B[l])));
    return 0;
}

static int f_mul32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    EMU_LANES(m, l, d[l] = emu_bits32(emu_f32(A[l]) * emu_f32(B[l])));
    return 0;
}

static int f_fma32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    EMU_LANES(m, l, d[l] = emu_bits32(fmaf(emu_f32(A[l]), emu_f32(B[l]), emu_f32(C[l]))));
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same loop compiled for AVX2 and FMA, chosen when the host has them: fmaf becomes one
   vector instruction for 8 lanes instead of a library call per lane (lab 5 is mostly fma). */
__attribute__((target("avx2,fma"))) static int f_fma32_avx2(emu_warp *w, const ptx_instr *in,
                                                            uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r),
                   *C = emu_reg(w, in->o[3].r);
    if (m != EMU_FULL) {
        EMU_LANES(m, l, d[l] = emu_bits32(fmaf(emu_f32(A[l]), emu_f32(B[l]), emu_f32(C[l]))));
        return 0;
    }
    float a[32], b[32], c[32]; /* copies: d may be a source, and the loops vectorise */
    for (int l = 0; l < 32; l++) {
        a[l] = emu_f32(A[l]);
        b[l] = emu_f32(B[l]);
        c[l] = emu_f32(C[l]);
    }
    for (int l = 0; l < 32; l++)
        d[l] = emu_bits32(fmaf(a[l], b[l], c[l]));
    return 0;
}

static emu_fn fma32_handler(void)
{
    return emu_host_avx2() ? f_fma32_avx2 : f_fma32;
}
#else
static emu_fn fma32_handler(void)
{
    return f_fma32;
}
#endif

/* --- everything else: one loop per operation, modifiers around it -------------------- */

static float min32(float a, float b, int nan)
{
    if (isnan(a) || isnan(b))
        return (nan || (isnan(a) && isnan(b))) ? emu_f32(0x7fffffffu) : isnan(a) ? b : a;
    if (a == b)
        return signbit(a) ? a : b; /* -0 is below +0 */
    return a < b ? a : b;
}
static float max32(float a, float b, int nan)
{
    if (isnan(a) || isnan(b))
        return (nan || (isnan(a) && isnan(b))) ? emu_f32(0x7fffffffu) : isnan(a) ? b : a;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}
static double min64(double a, double b, int nan)
{
    if (isnan(a) || isnan(b))
        return (nan || (isnan(a) && isnan(b))) ? emu_f64(UINT64_C(0x7fffffffffffffff))
                                               : isnan(a) ? b : a;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}
static double max64(double a, double b, int nan)
{
    if (isnan(a) || isnan(b))
        return (nan || (isnan(a) && isnan(b))) ? emu_f64(UINT64_C(0x7fffffffffffffff))
                                               : isnan(a) ? b : a;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

static float op32(int op, float a, float b, float c, int nan)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_FMA: case OP_MAD: return fmaf(a, b, c);
    case OP_DIV: return a / b;
    case OP_RCP: return 1.0f / a;
    case OP_SQRT: return sqrtf(a);
    case OP_RSQRT: return 1.0f / sqrtf(a);
    case OP_SIN: return sinf(a);
    case OP_COS: return cosf(a);
    case OP_LG2: return log2f(a);
    case OP_EX2: return exp2f(a);
    case OP_TANH: return tanhf(a);
    case OP_ABS: return emu_f32(emu_bits32(a) & 0x7fffffffu);
    case OP_NEG: return emu_f32(emu_bits32(a) ^ 0x80000000u);
    case OP_MIN: return min32(a, b, nan);
    case OP_MAX: return max32(a, b, nan);
    case OP_COPYSIGN: return copysignf(b, a);
    default: return 0.0f;
    }
}

static double op64(int op, double a, double b, double c, int nan)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_FMA: case OP_MAD: return fma(a, b, c);
    case OP_DIV: return a / b;
    case OP_RCP: return 1.0 / a;
    case OP_SQRT: return sqrt(a);
    case OP_RSQRT: return 1.0 / sqrt(a);
    case OP_ABS: return emu_f64(emu_bits64(a) & UINT64_C(0x7fffffffffffffff));
    case OP_NEG: return emu_f64(emu_bits64(a) ^ UINT64_C(0x8000000000000000));
    case OP_MIN: return min64(a, b, nan);
    case OP_MAX: return max64(a, b, nan);
    case OP_COPYSIGN: return copysign(b, a);
    default: return 0.0;
    }
}

static float sat32(float v)
{
    return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; /* NaN fails v > 0: 0 */
}

/* The host rounding mode for a PTX one; -1: leave it (round to nearest). */
static int host_mode(int rnd)
{
    switch (rnd) {
    case PR_RZ: return FE_TOWARDZERO;
    case PR_RM: return FE_DOWNWARD;
    case PR_RP: return FE_UPWARD;
    default: return -1;
    }
}

static int f_any32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    int n = in->nops - 1;
    const uint64_t *A = emu_reg(w, in->o[1].r);
    const uint64_t *B = n > 1 ? emu_reg(w, in->o[2].r) : A, *C = n > 2 ? emu_reg(w, in->o[3].r) : A;
    int ftz = (in->flags & PF_FTZ) != 0, sat = (in->flags & PF_SAT) != 0;
    int nan = (in->flags & PF_NAN) != 0, op = in->op;
    int mode = host_mode(in->rnd);
    if (mode >= 0)
        fesetround(mode);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        float a = emu_f32(A[l]), b = emu_f32(B[l]), c = emu_f32(C[l]);
        if (ftz) {
            a = emu_ftz32(a);
            b = emu_ftz32(b);
            c = emu_ftz32(c);
        }
        volatile float r = op32(op, a, b, c, nan);
        float v = r;
        if (ftz)
            v = emu_ftz32(v);
        if (sat)
            v = sat32(v);
        d[l] = emu_bits32(v);
    }
    if (mode >= 0)
        fesetround(FE_TONEAREST);
    return 0;
}

static int f_any64(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    int n = in->nops - 1;
    const uint64_t *A = emu_reg(w, in->o[1].r);
    const uint64_t *B = n > 1 ? emu_reg(w, in->o[2].r) : A, *C = n > 2 ? emu_reg(w, in->o[3].r) : A;
    int nan = (in->flags & PF_NAN) != 0, op = in->op;
    int mode = host_mode(in->rnd);
    if (mode >= 0)
        fesetround(mode);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        volatile double r = op64(op, emu_f64(A[l]), emu_f64(B[l]), emu_f64(C[l]), nan);
        double v = r;
        if (in->flags & PF_SAT)
            v = v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0;
        d[l] = emu_bits64(v);
    }
    if (mode >= 0)
        fesetround(FE_TONEAREST);
    return 0;
}

static int f64_op_ok(int op)
{
    switch (op) {
    case OP_SIN: case OP_COS: case OP_LG2: case OP_EX2: case OP_TANH: return 0;
    default: return 1;
    }
}

emu_fn emu_bind_float(const ptx_instr *in)
{
    int plain = (in->rnd == PR_NONE || in->rnd == PR_RN) &&
                !(in->flags & (PF_FTZ | PF_SAT | PF_NAN));
    if (in->type == PT_F32) {
        if (plain && in->op == OP_ADD)
            return f_add32;
        if (plain && in->op == OP_SUB)
            return f_sub32;
        if (plain && in->op == OP_MUL)
            return f_mul32;
        if (plain && (in->op == OP_FMA || in->op == OP_MAD))
            return fma32_handler();
        if ((in->op == OP_MIN || in->op == OP_MAX) && in->nops != 3)
            return NULL;
        return f_any32;
    }
    if (in->type == PT_F64 && f64_op_ok(in->op) &&
        !((in->op == OP_MIN || in->op == OP_MAX) && in->nops != 3))
        return f_any64;
    return NULL;
}
