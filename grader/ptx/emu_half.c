/* emu_half.c - f16 and bf16 to and from doubles; see emu_half.h. */
#include "emu_half.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

double emu_f16_value(uint32_t bits)
{
    uint32_t e = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
    double sign = (bits & 0x8000u) ? -1.0 : 1.0;
    if (e == 0x1f)
        return mant ? NAN : sign * INFINITY;
    if (e == 0) /* zero or subnormal: multiples of 2^-24 */
        return sign * ldexp((double)mant, -24);
    return sign * ldexp((double)(mant | 0x400u), (int)e - 25);
}

double emu_bf16_value(uint32_t bits)
{
    uint32_t f = (bits & 0xffffu) << 16;
    float v;
    memcpy(&v, &f, 4);
    return (double)v;
}

/* A format of p significand bits (the leading one included) whose normal
   exponents run from emin to emax. */
typedef struct fmt {
    int p, emin, emax;
} fmt;

/* The largest finite value of the format. */
static double fmt_max(fmt f)
{
    return ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax);
}

/* v on the format's grid, rounded under the current mode; +-inf past the largest finite
   value where the mode rounds away from it, +-max where it rounds towards it. */
static double round_to(double v, fmt f)
{
    if (v == 0.0 || isnan(v) || isinf(v))
        return v;
    int e;
    frexp(v, &e); /* |v| in [2^(e-1), 2^e) */
    int exp = e - 1 < f.emin ? f.emin : e - 1 > f.emax ? f.emax : e - 1;
    double q = ldexp(1.0, exp - (f.p - 1)); /* the spacing of the grid there */
    double r = nearbyint(v / q) * q;
    double max = fmt_max(f);
    if (fabs(r) <= max)
        return r == 0.0 ? copysign(0.0, v) : r;
    int mode = fegetround();
    int toward = mode == FE_TOWARDZERO || (mode == FE_DOWNWARD && v > 0) ||
                 (mode == FE_UPWARD && v < 0);
    return toward ? copysign(max, v) : copysign(INFINITY, v);
}

/* Exact f16 bits of a value the format holds (r from round_to). */
static uint32_t f16_encode(double r)
{
    uint32_t sign = signbit(r) ? 0x8000u : 0;
    double a = fabs(r);
    if (isinf(a))
        return sign | 0x7c00u;
    if (a < ldexp(1.0, -14)) /* zero or subnormal */
        return sign | (uint32_t)ldexp(a, 24);
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    return sign | (uint32_t)(e - 1 + 15) << 10 | ((uint32_t)ldexp(m, 11) & 0x3ffu);
}

uint32_t emu_f16_bits(double v, uint32_t nan_bits)
{
    static const fmt f16 = {11, -14, 15};
    if (isnan(v))
        return nan_bits;
    return f16_encode(round_to(v, f16));
}

uint32_t emu_bf16_bits(double v, uint32_t nan_bits)
{
    static const fmt bf16 = {8, -126, 127};
    if (isnan(v))
        return nan_bits;
    float exact = (float)round_to(v, bf16); /* on bf16's grid: exact in a float */
    uint32_t u;
    memcpy(&u, &exact, 4);
    return u >> 16;
}

uint32_t emu_f16_ftz(uint32_t bits)
{
    return (bits & 0x7c00u) == 0 ? bits & 0x8000u : bits;
}
