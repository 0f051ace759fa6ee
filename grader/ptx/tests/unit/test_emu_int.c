/*
 * test_emu_int.c - the emulator's integer instructions against C
 * (tests/kernels/int_ops.cu): every operation on edge values (0, 1, -1,
 * the extremes, shift counts past the width, division by zero) and on a
 * fixed pseudo-random mix.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu_testlib.h"

#define N 64

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Edge values first, then pseudo-random ones (some small, as shift counts and fields). */
static void inputs32(uint32_t *a, uint32_t *b, uint32_t *c)
{
    static const uint32_t edge[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 2, 31, 32,
                                    33, 0xfffffffeu, 0x12345678u, 0x00ff00ffu, 7, 100};
    const int ne = (int)(sizeof edge / sizeof edge[0]);
    uint64_t s = 42;
    for (int i = 0; i < N; i++) {
        a[i] = i < ne ? edge[i] : (uint32_t)mix(&s);
        b[i] = i < ne ? edge[(i * 5 + 3) % ne] : (uint32_t)mix(&s);
        c[i] = i < ne ? edge[(i * 7 + 1) % ne] : (uint32_t)mix(&s);
        if (i % 4 == 1) /* small values exercise shifts, fields and divisions */
            b[i] %= 40;
        if (i % 4 == 2)
            c[i] = (c[i] % 40) | ((c[i] >> 16) % 40) << 8;
    }
    b[20] = 0; /* division by zero */
    a[21] = 0x80000000u;
    b[21] = 0xffffffffu; /* INT_MIN / -1 */
}

static uint32_t brev32(uint32_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((x >> i) & 1u) << (31 - i);
    return r;
}

static int32_t sat(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static uint32_t bfe(uint32_t a, uint32_t pos, uint32_t len, int sg)
{
    pos &= 0xff;
    len &= 0xff;
    if (len == 0)
        return 0;
    uint32_t top = pos + len - 1 < 31 ? pos + len - 1 : 31;
    uint32_t sbit = sg ? (a >> top) & 1u : 0;
    uint32_t r = 0;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t bit = (i < len && pos + i <= 31) ? (a >> (pos + i)) & 1u : sbit;
        r |= bit << i;
    }
    return r;
}

static uint32_t bfind(uint32_t a, int sg, int shiftamt)
{
    if (sg && (a & 0x80000000u))
        a = ~a;
    if (!a)
        return 0xffffffffu;
    uint32_t pos = 31;
    while (!(a >> pos))
        pos--;
    return shiftamt ? 31 - pos : pos;
}

/* The generic prmt with a 4-nibble control; the modes as the PTX tables list their bytes. */
static uint32_t prmt_sel(uint32_t a, uint32_t b, const uint32_t sel[4], int sign)
{
    uint64_t src = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t byte = (uint32_t)(src >> ((sel[i] & 7) * 8)) & 0xff;
        if (sign && (sel[i] & 8))
            byte = byte & 0x80 ? 0xff : 0;
        r |= byte << (8 * i);
    }
    return r;
}

static uint32_t prmt_mode(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    static const uint32_t tables[6][4][4] = {
        /* f4e */ {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
        /* b4e */ {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
        /* rc8 */ {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
        /* ecl */ {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
        /* ecr */ {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
        /* rc16 */ {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
    };
    return prmt_sel(a, b, tables[mode][c & 3], 0);
}

static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) {
        uint32_t idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        r |= ((lut >> idx) & 1u) << i;
    }
    return r;
}

static uint32_t funnel(uint32_t a, uint32_t b, uint32_t c, int left, int clamp)
{
    uint32_t s = clamp ? (c < 32 ? c : 32) : c & 31;
    uint64_t x = (uint64_t)b << 32 | a;
    return left ? (uint32_t)((x << s) >> 32) : (uint32_t)(x >> s);
}

static int64_t lo24(uint32_t x, int sg)
{
    x &= 0xffffff;
    return sg && (x & 0x800000) ? (int64_t)x - 0x1000000 : x;
}

static uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, int sa)
{
    int64_t acc = (int32_t)c;
    for (int i = 0; i < 4; i++) {
        int64_t x = (a >> (8 * i)) & 0xff, y = (int8_t)((b >> (8 * i)) & 0xff);
        if (sa)
            x = (int8_t)x;
        acc += x * y;
    }
    return (uint32_t)acc;
}

static uint32_t szext(uint32_t a, uint32_t b, int sg, int clamp)
{
    if (b >= 32 && clamp)
        return a;
    uint32_t n = b & 31;
    if (n == 0)
        return 0;
    uint32_t mask = ~0u << n;
    uint32_t sign = sg ? (a >> (n - 1)) & 1 : 0;
    return (a & ~mask) | (sign ? mask : 0);
}

static uint32_t bmsk(uint32_t a, uint32_t b, int clamp)
{
    if (clamp && a >= 32)
        return 0;
    uint32_t pos = a & 31, width = b & 31;
    if (clamp && b >= 32)
        return ~0u << pos;
    if (pos + width >= 32)
        return ~0u << pos;
    if (width == 0)
        return 0;
    return (~0u << pos) & ~(~0u << (pos + width));
}

/* What op k of int32_ops gives for (a, b, c); writes the second result of pairs too. */
static uint32_t expect32(int k, uint32_t a, uint32_t b, uint32_t c)
{
    int32_t sa = (int32_t)a, sb = (int32_t)b, sc = (int32_t)c;
    uint64_t wide = (uint64_t)a + b;
    switch (k) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return (uint32_t)(((int64_t)sa * sb) >> 32);
    case 4: return (uint32_t)(((uint64_t)a * b) >> 32);
    case 5: return b == 0 ? 0xffffffffu : (sb == -1 ? 0u - a : (uint32_t)(sa / sb));
    case 6: return b == 0 ? 0xffffffffu : a / b;
    case 7: return b == 0 ? a : (sb == -1 ? 0 : (uint32_t)(sa % sb));
    case 8: return b == 0 ? a : a % b;
    case 9: return (uint32_t)(sa < sb ? sa : sb);
    case 10: return a < b ? a : b;
    case 11: return (uint32_t)(sa > sb ? sa : sb);
    case 12: return a > b ? a : b;
    case 13: return (uint32_t)(lo24(a, 1) * lo24(b, 1));
    case 14: return (uint32_t)((uint64_t)(lo24(a, 0) * lo24(b, 0)) >> 16);
    case 15: return a * b + c;
    case 16: return (uint32_t)(((uint64_t)a * b) >> 32) + c;
    case 17: return (uint32_t)(lo24(a, 0) * lo24(b, 0)) + c;
    case 18: return (a < b ? b - a : a - b) + c;
    case 19: return (sa < sb ? (uint32_t)sb - a : a - (uint32_t)sb) + c;
    case 20: return sa < 0 ? 0u - a : a;
    case 21: return 0u - a;
    case 22: return (uint32_t)__builtin_popcount(a);
    case 23: return a ? (uint32_t)__builtin_clz(a) : 32;
    case 24: return bfind(a, 0, 0);
    case 25: return bfind(a, 1, 0);
    case 26: return brev32(a);
    case 27: return bfind(a, 0, 1);
    case 28: return a & b;
    case 29: return a | b;
    case 30: return a ^ b;
    case 31: return ~a;
    case 32: return a == 0;
    case 33: return b >= 32 ? 0 : a << b;
    case 34: return b >= 32 ? 0 : a >> b;
    case 35: return b >= 32 ? (sa < 0 ? 0xffffffffu : 0) : (uint32_t)(sa >> b);
    case 36: return bfe(a, b, c, 0);
    case 37: return bfe(a, b, c, 1);
    case 38: {
        uint32_t sel[4] = {c & 15, (c >> 4) & 15, (c >> 8) & 15, (c >> 12) & 15};
        return prmt_sel(a, b, sel, 1);
    }
    case 39: return funnel(a, b, c, 1, 0);
    case 40: return funnel(a, b, c, 0, 1);
    case 41: return funnel(a, b, c, 1, 1);
    case 42: return funnel(a, b, c, 0, 0);
    case 43: return (uint32_t)sat((int64_t)sa + sb);
    case 44: return (uint32_t)sat((int64_t)sa - sb);
    case 45: return (uint32_t)sat((((int64_t)sa * sb) >> 32) + sc);
    case 46: case 47: case 48: case 49: case 50: case 51: return prmt_mode(a, b, c, k - 46);
    case 52: return szext(a, b, 1, 0);
    case 53: return szext(a, b, 0, 1);
    case 54: return bmsk(a, b, 1);
    case 55: return bmsk(a, b, 0);
    case 56: return dp4a(a, b, c, 0);
    case 57: return dp4a(a, b, c, 1);
    case 58: {
        uint32_t pos = c & 0xff, len = (c >> 8) & 0xff, f = b;
        for (uint32_t i = 0; i < len && pos + i < 32; i++)
            f = (f & ~(1u << (pos + i))) | (((a >> i) & 1u) << (pos + i));
        return f;
    }
    case 59: return lop3(a, b, c, 0x96);
    case 60: return lop3(a, b, c, 0xe8);
    case 61: return (uint32_t)wide;
    case 62: return c + a + (uint32_t)(wide >> 32);
    case 63: return a - b;
    case 64: return c - a - (a < b);
    case 65: {
        uint64_t lo = (uint64_t)(uint32_t)(a * b) + c;
        return (uint32_t)(((uint64_t)a * b) >> 32) + (uint32_t)(lo >> 32);
    }
    case 66: return a + 16;
    case 67: return a - 7;
    case 68: return a ^ 10;
    case 69: return a | 15;
    default: return 0;
    }
}

#define OPS32 70

START_TEST(test_int32_ops)
{
    uint32_t a[N], b[N], c[N], out[OPS32 * N];
    inputs32(a, b, c);
    et *e = et_load("int_ops");
    uint64_t params[5] = {et_buf(e, a, sizeof a), et_buf(e, b, sizeof b), et_buf(e, c, sizeof c),
                          et_buf(e, NULL, sizeof out), N};
    ck_assert_int_eq(et_run(e, "int32_ops", 1, N, 1, 0, params, 5), EMU_OK);
    et_get(e, out, params[3], sizeof out);
    for (int k = 0; k < OPS32; k++)
        for (int i = 0; i < N; i++)
            ck_assert_msg(out[k * N + i] == expect32(k, a[i], b[i], c[i]),
                          "op %d lane %d (a=0x%08x b=0x%08x c=0x%08x): got 0x%08x, want 0x%08x", k,
                          i, a[i], b[i], c[i], out[k * N + i], expect32(k, a[i], b[i], c[i]));
    et_free(e);
}
END_TEST

static uint64_t expect64(int k, uint64_t a, uint64_t b, uint64_t c)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    uint32_t b32 = (uint32_t)b;
    switch (k) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return (uint64_t)(((__int128)sa * sb) >> 64);
    case 4: return (uint64_t)(((unsigned __int128)a * b) >> 64);
    case 5: return b == 0 ? UINT64_MAX : (sb == -1 ? 0 - a : (uint64_t)(sa / sb));
    case 6: return b == 0 ? UINT64_MAX : a / b;
    case 7: return b == 0 ? a : (sb == -1 ? 0 : (uint64_t)(sa % sb));
    case 8: return b == 0 ? a : a % b;
    case 9: return (uint64_t)(sa < sb ? sa : sb);
    case 10: return a > b ? a : b;
    case 11: return a * b + c;
    case 12: return (uint64_t)(((__int128)sa * sb) >> 64) + c;
    case 13: return sa < 0 ? 0 - a : a;
    case 14: return 0 - a;
    case 15: return a & b;
    case 16: return a | b;
    case 17: return a ^ b;
    case 18: return ~a;
    case 19: return b32 >= 64 ? 0 : a << b32;
    case 20: return b32 >= 64 ? 0 : a >> b32;
    case 21: return b32 >= 64 ? (sa < 0 ? UINT64_MAX : 0) : (uint64_t)(sa >> b32);
    case 22: {
        uint64_t r = 0;
        for (int i = 0; i < 64; i++)
            r |= ((a >> i) & 1) << (63 - i);
        return r;
    }
    case 23: return (uint64_t)__builtin_popcountll(a);
    case 24: return a ? (uint64_t)__builtin_clzll(a) : 64;
    case 25: {
        uint64_t x = sa < 0 ? ~a : a;
        return x ? 63u - (uint64_t)__builtin_clzll(x) : 0xffffffffu;
    }
    case 26: {
        uint32_t pos = b32 & 0xff, len = (uint32_t)c & 0xff;
        if (!len)
            return 0;
        uint32_t top = pos + len - 1 < 63 ? pos + len - 1 : 63;
        uint64_t sbit = (a >> top) & 1, r = 0;
        for (uint32_t i = 0; i < 64; i++)
            r |= ((i < len && pos + i <= 63) ? (a >> (pos + i)) & 1 : sbit) << i;
        return r;
    }
    case 27: {
        uint32_t pos = (uint32_t)c & 0xff, len = (uint32_t)(c >> 8) & 0xff;
        uint64_t f = b;
        for (uint32_t i = 0; i < len && pos + i < 64; i++)
            f = (f & ~(UINT64_C(1) << (pos + i))) | (((a >> i) & 1) << (pos + i));
        return f;
    }
    case 28: return (uint64_t)((int64_t)(int32_t)a * (int32_t)b);
    case 29: return (uint64_t)(uint32_t)a * (uint32_t)b;
    case 30: return (uint64_t)((int64_t)(int32_t)a * (int32_t)b) + c;
    case 31: return (uint64_t)(uint32_t)b << 32 | (uint32_t)a;
    case 32: return a >> 32;
    case 33: return (uint32_t)a;
    case 34: return a - 1;
    case 35: return a - UINT64_C(0x7fffffffffffffff);
    default: return 0;
    }
}

#define OPS64 36

START_TEST(test_int64_ops)
{
    uint64_t a[N], b[N], c[N], out[OPS64 * N];
    uint32_t a32[N], b32[N], c32[N];
    inputs32(a32, b32, c32);
    uint64_t s = 7;
    for (int i = 0; i < N; i++) {
        a[i] = i < 16 ? (uint64_t)(int64_t)(int32_t)a32[i] : mix(&s);
        b[i] = i % 4 == 1 ? b32[i] % 70 : mix(&s);
        c[i] = i % 4 == 2 ? c32[i] : mix(&s);
    }
    a[3] = UINT64_C(0x8000000000000000);
    b[3] = UINT64_MAX; /* INT64_MIN / -1 */
    b[5] = 0;
    et *e = et_load("int_ops");
    uint64_t params[5] = {et_buf(e, a, sizeof a), et_buf(e, b, sizeof b), et_buf(e, c, sizeof c),
                          et_buf(e, NULL, sizeof out), N};
    ck_assert_int_eq(et_run(e, "int64_ops", 1, N, 1, 0, params, 5), EMU_OK);
    et_get(e, out, params[3], sizeof out);
    for (int k = 0; k < OPS64; k++)
        for (int i = 0; i < N; i++)
            ck_assert_msg(out[k * N + i] == expect64(k, a[i], b[i], c[i]),
                          "op %d lane %d: got 0x%016llx, want 0x%016llx", k, i,
                          (unsigned long long)out[k * N + i],
                          (unsigned long long)expect64(k, a[i], b[i], c[i]));
    et_free(e);
}
END_TEST

static uint32_t expect16(int k, uint16_t a, uint16_t b)
{
    int16_t sa = (int16_t)a, sb = (int16_t)b;
    switch (k) {
    case 0: return (uint16_t)(a + b);
    case 1: return (uint16_t)(a - b);
    case 2: return (uint16_t)(a * b);
    case 3: return (uint16_t)((sa * sb) >> 16);
    case 4: return b == 0 ? 0xffff : (uint16_t)(sb == -1 ? -sa : sa / sb);
    case 5: return b == 0 ? a : a % b;
    case 6: return (uint16_t)(sa < sb ? sa : sb);
    case 7: return a > b ? a : b;
    case 8: return a & b;
    case 9: return a ^ b;
    case 10: return (uint32_t)(sa * sb);
    case 11: return (uint16_t)((b & 31) >= 16 ? 0 : a << (b & 31));
    case 12: return (uint16_t)((b & 31) >= 16 ? (sa < 0 ? -1 : 0) : sa >> (b & 31));
    case 13: return sa < sb;
    case 14: return (uint32_t)(int32_t)sa;
    case 15: return a;
    default: return 0;
    }
}

START_TEST(test_int16_ops)
{
    uint16_t a[N], b[N];
    uint32_t out[16 * N];
    uint64_t s = 3;
    for (int i = 0; i < N; i++) {
        a[i] = (uint16_t)mix(&s);
        b[i] = (uint16_t)mix(&s);
    }
    a[0] = 0x8000;
    b[0] = 0xffff;
    b[1] = 0;
    b[2] = 20;
    et *e = et_load("int_ops");
    uint64_t params[4] = {et_buf(e, a, sizeof a), et_buf(e, b, sizeof b),
                          et_buf(e, NULL, sizeof out), N};
    ck_assert_int_eq(et_run(e, "int16_ops", 1, N, 1, 0, params, 4), EMU_OK);
    et_get(e, out, params[2], sizeof out);
    for (int k = 0; k < 16; k++)
        for (int i = 0; i < N; i++)
            ck_assert_msg(out[k * N + i] == expect16(k, a[i], b[i]),
                          "op %d lane %d (a=0x%04x b=0x%04x): got 0x%08x, want 0x%08x", k, i,
                          a[i], b[i], out[k * N + i], expect16(k, a[i], b[i]));
    et_free(e);
}
END_TEST

Suite *emu_int_suite(void)
{
    Suite *s = suite_create("emu_int");
    TCase *tc = tcase_create("emu_int");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_int32_ops);
    tcase_add_test(tc, test_int64_ops);
    tcase_add_test(tc, test_int16_ops);
    suite_add_tcase(s, tc);
    return s;
}
