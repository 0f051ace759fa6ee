/*
 * emu_perturb.c - the flow run's change of a value (emu_launch.perturb, emu.h;
 * docs/emulator.md#flow): what a load or a shuffle hands the kernel, changed by an
 * amount drawn from where the value came from, so that no computation a kernel makes
 * takes the change back by chance.
 */
#include "emu_half.h"
#include "emu_internal.h"

/* 64 well-mixed bits of key (splitmix64's finaliser). */
static uint64_t mix(uint64_t key)
{
    uint64_t z = key + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* 1 to 2, from the top 52 bits of h: the factor of a float's change. */
static double factor(uint64_t h)
{
    return 1.0 + (double)(h >> 12) / (double)(UINT64_C(1) << 52);
}

/* One 16-bit float (bits in the low 16) changed by scale times 1 to 2. */
static uint32_t half_changed(uint32_t bits, int bf16, uint64_t h)
{
    double v = bf16 ? emu_bf16_value(bits) : emu_f16_value(bits);
    double d = (bf16 ? 0x1p40 : 0x1p12) * factor(h);
    return bf16 ? emu_bf16_bits(v + d, EMU_BF16_NAN) : emu_f16_bits(v + d, EMU_F16_NAN);
}

uint64_t emu_perturb_value(uint64_t v, ptx_type t, int rsize, uint64_t key)
{
    uint64_t h = mix(key);
    switch (t) {
    case PT_F32:
        return emu_bits32(emu_f32(v) + (float)(0x1p40 * factor(h)));
    case PT_F64:
        return emu_bits64(emu_f64(v) + 0x1p40 * factor(h));
    case PT_F16:
    case PT_BF16:
        return (v & ~UINT64_C(0xffff)) | half_changed((uint32_t)v & 0xffffu, t == PT_BF16, h);
    case PT_F16X2:
    case PT_BF16X2: {
        uint32_t lo = half_changed((uint32_t)v & 0xffffu, t == PT_BF16X2, h);
        uint32_t hi = half_changed((uint32_t)(v >> 16) & 0xffffu, t == PT_BF16X2, mix(h));
        return (v & ~UINT64_C(0xffffffff)) | lo | (uint64_t)hi << 16;
    }
    default: {
        uint64_t keep = rsize >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * rsize)) - 1;
        return (v + (h | 1)) & keep;
    }
    }
}

int emu_perturb_here(emu_warp *w, const ptx_instr *in, uint64_t lanes)
{
    emu_ctx *x = w->b->x;
    const emu_launch *l = x->l;
    emu_result *res = x->res;
    emu_src_line at;
    emu_student_where(x->prog, in, &at.file, &at.line);
    if (l->perturb_at.line && (at.line != l->perturb_at.line || at.file != l->perturb_at.file))
        return 0;
    res->perturbed += lanes;
    if (in->op == OP_ATOM) /* its old value is its store's by-product, often never used: a
                              line of atomics alone is no line whose values must reach out */
        return 1;
    for (int i = 0; i < res->n_perturb_lines; i++)
        if (res->perturb_lines[i].line == at.line && res->perturb_lines[i].file == at.file)
            return 1;
    if (res->n_perturb_lines < EMU_PERTURB_LINES)
        res->perturb_lines[res->n_perturb_lines++] = at;
    return 1;
}

uint64_t emu_perturb_key(uint32_t source, uint64_t where)
{
    return mix(where ^ (uint64_t)source << 56);
}
