/*
 * emu_ops_cvt.c - data movement and conversion: mov (with the clocks and
 * vector pack/unpack), cvt in every direction with rounding and saturation,
 * cvta and isspacep (docs/emulator.md#semantics).
 */
#include "emu_half.h"
#include "emu_internal.h"

#include <fenv.h>
#include <math.h>

static uint64_t width_mask(int bytes)
{
    return bytes >= 8 || bytes <= 0 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
}

/* --- mov ----------------------------------------------------------------------------- */

static int v_mov32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    EMU_LANES(m, l, d[l] = (uint32_t)A[l]);
    return 0;
}

static int v_mov(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    uint64_t mask = width_mask(ptx_type_size((ptx_type)in->type));
    EMU_LANES(m, l, d[l] = A[l] & mask);
    return 0;
}

/* The clocks run on from the launch's time base with its instruction count, a cycle
   and 10 ns each: they only ever go forward, from where a GPU's would be. */
static int v_mov_clock(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const emu_launch *l = w->b->x->l;
    uint64_t t = l->time_base + w->b->x->executed, ns = l->time_base + w->b->x->executed * 10;
    uint64_t v;
    switch (in->o[1].r) {
    case PSR_CLOCK: v = (uint32_t)t; break;
    case PSR_CLOCK_HI: v = (uint32_t)(t >> 32); break;
    case PSR_GLOBALTIMER: v = ns; break;
    case PSR_GLOBALTIMER_LO: v = (uint32_t)ns; break;
    case PSR_GLOBALTIMER_HI: v = (uint32_t)(ns >> 32); break;
    default: v = t; break;
    }
    v &= width_mask(ptx_type_size((ptx_type)in->type));
    EMU_LANES(m, l, d[l] = v);
    return 0;
}

/* mov.b64 d, {a, b}: element i in bits [i * size, (i + 1) * size). */
static int v_pack(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    int es = ptx_type_size((ptx_type)in->type2), n = in->vec;
    uint64_t em = width_mask(es);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t v = 0;
        for (int i = 0; i < n; i++)
            v |= (emu_reg(w, in->o[1 + i].r)[l] & em) << (8 * es * i);
        d[l] = v;
    }
    return 0;
}

/* mov.b64 {a, b}, s */
static int v_unpack(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    int es = ptx_type_size((ptx_type)in->type2), n = in->vec;
    uint64_t em = width_mask(es);
    const uint64_t *S = emu_reg(w, in->o[n].r);
    uint64_t src[32];
    for (int l = 0; l < 32; l++) /* the source may be one of the destinations */
        src[l] = S[l];
    for (int i = 0; i < n; i++) {
        uint64_t *d = emu_reg(w, in->o[i].r);
        EMU_LANES(m, l, d[l] = (src[l] >> (8 * es * i)) & em);
    }
    return 0;
}

/* --- cvt ----------------------------------------------------------------------------- */

static int64_t sext(uint64_t v, int bytes)
{
    if (bytes >= 8)
        return (int64_t)v;
    int sh = 64 - 8 * bytes;
    return (int64_t)(v << sh) >> sh;
}

/* A register value of type t, as a signed or unsigned 64-bit integer. */
static int64_t int_value(uint64_t v, ptx_type t)
{
    int sz = ptx_type_size(t);
    return ptx_type_is_signed(t) ? sext(v, sz) : (int64_t)(v & width_mask(sz));
}

static void int_range(ptx_type t, double *lo, double *hi)
{
    int bits = ptx_type_size(t) * 8;
    if (ptx_type_is_signed(t)) {
        *lo = -ldexp(1.0, bits - 1);
        *hi = ldexp(1.0, bits - 1) - 1.0;
    } else {
        *lo = 0.0;
        *hi = ldexp(1.0, bits) - 1.0;
    }
}

static uint64_t int_to_int(int64_t v, ptx_type src, ptx_type dst, int sat)
{
    if (sat) {
        int bits = ptx_type_size(dst) * 8;
        int src_signed = ptx_type_is_signed(src);
        if (ptx_type_is_signed(dst)) {
            int64_t hi = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
            int64_t lo = -hi - 1;
            if (!src_signed && (uint64_t)v > (uint64_t)hi)
                v = hi;
            else if (src_signed && v > hi)
                v = hi;
            else if (src_signed && v < lo)
                v = lo;
        } else {
            uint64_t hi = width_mask(bits / 8);
            if (src_signed && v < 0)
                v = 0;
            else if ((uint64_t)v > hi)
                v = (int64_t)hi;
        }
    }
    return (uint64_t)v;
}

/* Round to an integral value as cvt's .rni .rzi .rmi .rpi say (.rni: ties to even). */
static double round_int(double v, int rnd)
{
    switch (rnd) {
    case PR_RZI: return trunc(v);
    case PR_RMI: return floor(v);
    case PR_RPI: return ceil(v);
    default: return nearbyint(v);
    }
}

/* Float to integer: rounded, NaN to 0, clamped to the destination's range. */
static uint64_t float_to_int(double v, ptx_type dst, int rnd)
{
    if (isnan(v))
        return 0;
    int bits = ptx_type_size(dst) * 8, sg = ptx_type_is_signed(dst);
    double lo, hi;
    int_range(dst, &lo, &hi); /* for 64 bits hi rounds up to 2^63 or 2^64: compared with >= */
    v = round_int(v, rnd == PR_NONE ? PR_RZI : rnd);
    if (v <= lo)
        return sg ? (uint64_t)(bits == 64 ? INT64_MIN : (int64_t)lo) : 0;
    if (v >= hi)
        return sg ? (uint64_t)(bits == 64 ? INT64_MAX : (int64_t)hi)
                  : (bits == 64 ? UINT64_MAX : (uint64_t)hi);
    return sg ? (uint64_t)(int64_t)v : (uint64_t)v;
}

/* A register value of float type t as a double (exact for every type here). */
static double float_value(uint64_t v, ptx_type t, int ftz)
{
    switch (t) {
    case PT_F16: return emu_f16_value((uint32_t)v);
    case PT_BF16: return emu_bf16_value((uint32_t)v);
    case PT_F32: return ftz ? emu_ftz32(emu_f32(v)) : emu_f32(v);
    default: return emu_f64(v);
    }
}

static int host_mode(int rnd)
{
    switch (rnd) {
    case PR_RZ: return FE_TOWARDZERO;
    case PR_RM: return FE_DOWNWARD;
    case PR_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

/* A double (or integer) to float type t under the current rounding mode. */
static uint64_t to_float_bits(double v, ptx_type t, int ftz, int sat)
{
    if (sat)
        v = v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0;
    switch (t) {
    case PT_F16: return emu_f16_bits(v, EMU_F16_NAN);
    case PT_BF16: return emu_bf16_bits(v, EMU_BF16_NAN);
    case PT_F32: {
        volatile float f = (float)v;
        return emu_bits32(ftz ? emu_ftz32(f) : f);
    }
    default: return emu_bits64(v);
    }
}

/* One lane of cvt: the destination's bits (before extending into the register). */
static uint64_t cvt_one(uint64_t a, ptx_type dt, ptx_type st, int rnd, int ftz, int sat)
{
    int df = ptx_type_is_float(dt), sf = ptx_type_is_float(st);
    if (!df && !sf)
        return int_to_int(int_value(a, st), st, dt, sat);
    if (!df)
        return float_to_int(float_value(a, st, ftz), dt, rnd);
    if (!sf) { /* integer to float; 64-bit integers may round, by the current mode */
        int64_t v = int_value(a, st);
        if (dt != PT_F32) /* exact in a double (|v| < 2^53 for every value a half holds) */
            return to_float_bits(ptx_type_is_signed(st) ? (double)v : (double)(uint64_t)v, dt,
                                 0, sat);
        volatile float f = ptx_type_is_signed(st) ? (float)v : (float)(uint64_t)v;
        return to_float_bits(f, dt, ftz, sat);
    }
    double v = float_value(a, st, ftz);
    if (rnd >= PR_RNI) /* round to an integral value in the same format */
        v = round_int(v, rnd);
    return to_float_bits(v, dt, ftz, sat);
}

static int v_cvt(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    ptx_type dt = (ptx_type)in->type, st = (ptx_type)in->type2;
    int ftz = (in->flags & PF_FTZ) != 0, sat = (in->flags & PF_SAT) != 0;
    int rnd = in->rnd;
    int dsz = ptx_type_size(dt), rsz = in->o[0].size ? in->o[0].size : dsz;
    int dsigned = ptx_type_is_signed(dt) && !ptx_type_is_float(dt);
    int mode = rnd >= PR_RZ && rnd <= PR_RP ? host_mode(rnd) : FE_TONEAREST;
    if (mode != FE_TONEAREST)
        fesetround(mode);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = A[l];
        if ((in->flags & PF_RELU) && ptx_type_is_float(st) && float_value(a, st, ftz) < 0.0)
            a = 0; /* .relu: a negative source converts as +0 */
        uint64_t v = cvt_one(a, dt, st, rnd, ftz, sat) & width_mask(dsz);
        if (dsigned) /* a narrow signed result fills a wider register with its sign */
            v = (uint64_t)sext(v, dsz);
        d[l] = v & width_mask(rsz > dsz ? rsz : dsz);
    }
    if (mode != FE_TONEAREST)
        fesetround(FE_TONEAREST);
    return 0;
}

/* .relu (to f16/bf16): a negative result becomes +0 (NaN stays NaN). */
static double relu(double v)
{
    return !isnan(v) && v < 0.0 ? 0.0 : v;
}

/* cvt.rnd{.relu}.{f16x2,bf16x2}.f32 d, a, b: a converted into the high half, b the low. */
static int v_cvt_pack(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r), *B = emu_reg(w, in->o[2].r);
    ptx_type et = in->type == PT_F16X2 ? PT_F16 : PT_BF16;
    int mode = in->rnd >= PR_RZ && in->rnd <= PR_RP ? host_mode(in->rnd) : FE_TONEAREST;
    int r = (in->flags & PF_RELU) != 0, sat = (in->flags & PF_SAT) != 0;
    if (mode != FE_TONEAREST)
        fesetround(mode);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        double a = emu_f32(A[l]), b = emu_f32(B[l]);
        uint64_t hi = to_float_bits(r ? relu(a) : a, et, 0, sat);
        uint64_t lo = to_float_bits(r ? relu(b) : b, et, 0, sat);
        d[l] = (hi & 0xffffu) << 16 | (lo & 0xffffu);
    }
    if (mode != FE_TONEAREST)
        fesetround(FE_TONEAREST);
    return 0;
}

/* The commonest conversions get loops of their own. */
static int v_cvt_s64_s32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    EMU_LANES(m, l, d[l] = (uint64_t)(int64_t)(int32_t)A[l]);
    return 0;
}

static int v_cvt_u64_u32(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    EMU_LANES(m, l, d[l] = (uint32_t)A[l]);
    return 0;
}

static int v_cvt_u32_u64(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    EMU_LANES(m, l, d[l] = (uint32_t)A[l]);
    return 0;
}

/* --- generic addresses ------------------------------------------------------------------ */

static uint64_t window_of(int space)
{
    switch (space) {
    case PS_SHARED: return EMU_SHARED_WINDOW;
    case PS_LOCAL: return EMU_LOCAL_WINDOW;
    case PS_PARAM: return EMU_PARAM_WINDOW;
    default: return 0; /* global and const addresses are generic already */
    }
}

static int v_cvta(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    uint64_t *d = emu_reg(w, in->o[0].r);
    const uint64_t *A = emu_reg(w, in->o[1].r);
    uint64_t base = window_of(in->space);
    uint64_t mask = in->type == PT_U32 ? 0xffffffffu : UINT64_MAX;
    if (in->flags & PF_TO)
        EMU_LANES(m, l, d[l] = (A[l] - base) & mask);
    else
        EMU_LANES(m, l, d[l] = (A[l] + base) & mask);
    return 0;
}

static int v_isspacep(emu_warp *w, const ptx_instr *in, uint32_t m)
{
    const uint64_t *A = emu_reg(w, in->o[1].r);
    uint32_t r = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = A[l];
        int t;
        if (in->space == PS_GLOBAL) {
            t = a >= EMU_GLOBAL_BASE && a < EMU_GLOBAL_END;
        } else if (in->space == PS_CONST) {
            emu_region *rg = emu_region_find(w->b->x->dev, a, 1);
            t = rg && rg->kind == EMU_ALLOC_CONST_VAR;
        } else {
            uint64_t base = window_of(in->space);
            t = a >= base && a - base < EMU_WINDOW_SIZE;
        }
        r |= (uint32_t)t << l;
    }
    uint32_t *p = &w->p[in->o[0].r];
    *p = (*p & ~m) | (r & m);
    return 0;
}

static int cvt_type_ok(ptx_type t)
{
    return (t >= PT_U8 && t <= PT_S64) || (t >= PT_B8 && t <= PT_B64) || t == PT_F16 ||
           t == PT_BF16 || t == PT_F32 || t == PT_F64;
}

emu_fn emu_bind_cvt(const ptx_instr *in)
{
    ptx_type t = (ptx_type)in->type;
    switch (in->op) {
    case OP_MOV:
        if (in->mod == PM_PACK)
            return v_pack;
        if (in->mod == PM_UNPACK)
            return v_unpack;
        if (in->o[1].kind == PO_SREG)
            return v_mov_clock;
        if (ptx_type_size(t) == 4)
            return v_mov32;
        return ptx_type_size(t) > 0 && ptx_type_size(t) <= 8 ? v_mov : NULL;
    case OP_CVT:
        if ((t == PT_F16X2 || t == PT_BF16X2) && in->type2 == PT_F32 && in->nops == 3)
            return v_cvt_pack;
        if (!cvt_type_ok(t) || !cvt_type_ok((ptx_type)in->type2))
            return NULL;
        if (t == PT_S64 && in->type2 == PT_S32 && !(in->flags & PF_SAT))
            return v_cvt_s64_s32;
        if (t == PT_U64 && in->type2 == PT_U32 && !(in->flags & PF_SAT))
            return v_cvt_u64_u32;
        if ((t == PT_U32 || t == PT_S32) && (in->type2 == PT_U64 || in->type2 == PT_S64) &&
            !(in->flags & PF_SAT) && in->o[0].size == 4)
            return v_cvt_u32_u64; /* the low word */
        return v_cvt;
    case OP_CVTA:
        return (t == PT_U32 || t == PT_U64) ? v_cvta : NULL;
    case OP_ISSPACEP:
        return v_isspacep;
    default:
        return NULL;
    }
}
