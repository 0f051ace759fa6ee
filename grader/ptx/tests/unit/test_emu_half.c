/*
 * test_emu_half.c - the emulator's f16 and bf16 arithmetic and conversions
 * (tests/kernels/half_ops.cu) against a reference that shares nothing with
 * it: the nearest value of the format found by searching all its values,
 * ties to the even one.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "emu_testlib.h"

#define N 64

/* --- the reference: every positive finite value of a format, in order ---------------- */

static double f16_at(uint32_t i) /* i: 0 .. 0x7bff */
{
    uint32_t e = i >> 10, m = i & 0x3ff;
    return e == 0 ? m * 0x1p-24 : (1024.0 + m) * pow(2.0, (double)e - 25.0);
}

static double bf16_at(uint32_t i) /* i: 0 .. 0x7f7f */
{
    uint32_t u = i << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Round v to the format whose positive finite values are at(0..top) (top + 1: infinity),
   nearest, ties to even; toward zero when rz. */
static uint16_t nearest(double v, double (*at)(uint32_t), uint32_t top, int rz)
{
    if (isnan(v))
        return 0x7fff;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    uint32_t lo = 0, hi = top;
    if (a >= at(top)) {
        lo = top;
    } else {
        while (hi - lo > 1) { /* at(lo) <= a < at(hi) */
            uint32_t mid = (lo + hi) / 2;
            if (at(mid) <= a)
                lo = mid;
            else
                hi = mid;
        }
    }
    if (rz || a == at(lo))
        return sign | (uint16_t)lo;
    double up = lo == top ? at(top) + (at(top) - at(top - 1)) : at(lo + 1); /* past top: inf */
    double dl = a - at(lo), du = up - a;
    uint32_t r = dl < du ? lo : du < dl ? lo + 1 : (lo % 2 == 0 ? lo : lo + 1);
    return sign | (uint16_t)r; /* r = top + 1: the format's infinity */
}

static uint16_t ref_f16(double v, int rz)
{
    if (isinf(v))
        return signbit(v) ? 0xfc00 : 0x7c00;
    uint16_t b = nearest(v, f16_at, 0x7bff, rz);
    return (b & 0x7fff) == 0x7c00 ? (b & 0x8000) | 0x7c00 : b;
}

static uint16_t ref_bf16(double v)
{
    if (isinf(v))
        return signbit(v) ? 0xff80 : 0x7f80;
    return nearest(v, bf16_at, 0x7f7f, 0);
}

static double f16_val(uint16_t b)
{
    uint32_t i = b & 0x7fff;
    if (i > 0x7c00)
        return NAN;
    double a = i == 0x7c00 ? INFINITY : f16_at(i);
    return b & 0x8000 ? -a : a;
}

static double bf16_val(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* --- inputs ----------------------------------------------------------------------------- */

static float input(int i)
{
    static const float edge[] = {0.0f,    -0.0f,   1.0f,   -1.0f,    0.5f,      INFINITY,
                                 -INFINITY, NAN,   65504.0f, 65519.0f, 65520.0f, 1e-7f,
                                 6.1e-5f,  3e-8f,  1.0f / 3.0f, -2.5f,   2049.0f,   1.0009765625f,
                                 -0.333333f, 100.0f, 1e38f,  -7.25f,   0.1f,      2048.5f};
    int n = (int)(sizeof edge / sizeof edge[0]);
    if (i < n)
        return edge[i];
    uint32_t x = (uint32_t)i * 2654435761u;
    return (float)((int32_t)(x >> 8) % 20000) / 97.0f; /* within f16's range, all signs */
}

/* a = in[t], b = in[t + 64], c = in[t + 128]: every edge value against many others. */
static void inputs(float *a, float *b, float *c)
{
    for (int t = 0; t < N; t++) {
        a[t] = input(t);
        b[t] = input((t * 7 + 5) % N);
        c[t] = input((t * 13 + 3) % N);
    }
}

static et *run(const char *kernel, uint16_t *out, int rows, float *a, float *b, float *c)
{
    et *e = et_load("half_ops");
    float in[3 * N];
    inputs(a, b, c);
    memcpy(in, a, N * sizeof *a);
    memcpy(in + N, b, N * sizeof *b);
    memcpy(in + 2 * N, c, N * sizeof *c);
    uint64_t din = et_buf(e, in, sizeof in), dout = et_buf(e, NULL, (size_t)rows * N * 2);
    uint64_t p[2] = {din, dout};
    ck_assert_int_eq(et_run(e, kernel, 1, N, 1, 0, p, 2), EMU_OK);
    et_get(e, out, dout, (size_t)rows * N * 2);
    return e;
}

#define EXPECT(row, want)                                                                  \
    ck_assert_msg(out[(row) * N + t] == (uint16_t)(want),                                  \
                  "row %d lane %d (a %g b %g c %g): emulator 0x%04x, reference 0x%04x", row, \
                  t, (double)fa[t], (double)fb[t], (double)fc[t], out[(row) * N + t],       \
                  (uint16_t)(want))

static double fmin_ptx(double a, double b, int max)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? NAN : isnan(a) ? b : a;
    if (a == b)
        return (signbit(a) != 0) == (max != 0) ? b : a;
    return (a < b) == (max == 0) ? a : b;
}

START_TEST(test_f16_ops)
{
    uint16_t out[18 * N];
    float fa[N], fb[N], fc[N];
    et *e = run("f16_ops", out, 18, fa, fb, fc);
    for (int t = 0; t < N; t++) {
        uint16_t ha = ref_f16(fa[t], 0), hb = ref_f16(fb[t], 0), hc = ref_f16(fc[t], 0);
        double a = f16_val(ha), b = f16_val(hb), c = f16_val(hc);
        EXPECT(0, ha);
        EXPECT(1, ref_f16(a + b, 0));
        EXPECT(2, ref_f16(a - b, 0));
        EXPECT(3, ref_f16(a * b, 0));
        EXPECT(4, ref_f16(fma(a, b, c), 0));
        EXPECT(5, ha ^ 0x8000);
        EXPECT(6, ha & 0x7fff);
        EXPECT(7, ref_f16(fmin_ptx(a, b, 0), 0));
        EXPECT(8, ref_f16(fmin_ptx(a, b, 1), 0));
        double s = a + b;
        EXPECT(9, ref_f16(isnan(s) ? 0.0 : s < 0 ? 0.0 : s > 1 ? 1.0 : s, 0));
        double r = fma(a, b, c);
        EXPECT(10, isnan(r) ? 0x7fff : ref_f16(r < 0 ? 0.0 : r, 0));
        int lt = a < b, ge = a >= c, equ = isnan(a) || isnan(b) || a == b, nan = isnan(a) != 0;
        EXPECT(11, lt | ge << 1 | equ << 2 | nan << 3);
        /* p = (a, b), q = (c, a): r = p * q + (p + q), element by element, each rounded */
        uint16_t plo = ref_f16(a + c, 0), phi = ref_f16(b + a, 0);
        EXPECT(12, ref_f16(fma(a, c, f16_val(plo)), 0));
        EXPECT(13, ref_f16(fma(b, a, f16_val(phi)), 0));
        EXPECT(14, ha);
        EXPECT(15, hb);
        int blt = a < c && b < a, bgt = a > c && b > a; /* __hblt2: both halves */
        EXPECT(16, blt | bgt << 1);
        EXPECT(17, ref_f16(fa[t], 1));
    }
    et_free(e);
}
END_TEST

START_TEST(test_bf16_ops)
{
    uint16_t out[9 * N];
    float fa[N], fb[N], fc[N];
    et *e = run("bf16_ops", out, 9, fa, fb, fc);
    for (int t = 0; t < N; t++) {
        uint16_t ha = ref_bf16(fa[t]), hb = ref_bf16(fb[t]), hc = ref_bf16(fc[t]);
        double a = bf16_val(ha), b = bf16_val(hb), c = bf16_val(hc);
        if (isnan(fa[t])) /* a float NaN converts to a NaN: its payload is the GPU's own */
            continue;
        EXPECT(0, ha);
        EXPECT(1, ref_bf16(a + b));
        EXPECT(2, ref_bf16(a - b));
        EXPECT(3, ref_bf16(a * b));
        EXPECT(4, ref_bf16(fma(a, b, c)));
        EXPECT(5, ref_bf16(fmin_ptx(a, b, 1)));
        EXPECT(6, ref_bf16(a * a));
        EXPECT(7, ref_bf16(b * b));
        EXPECT(8, a < b);
    }
    et_free(e);
}
END_TEST

Suite *emu_half_suite(void)
{
    Suite *s = suite_create("emu_half");
    TCase *tc = tcase_create("emu_half");
    tcase_add_test(tc, test_f16_ops);
    tcase_add_test(tc, test_bf16_ops);
    suite_add_tcase(s, tc);
    return s;
}
