/*
 * emu_half.h - the 16-bit float formats, f16 (IEEE binary16) and bf16, as
 * bits in a register and as exact doubles (emu_half.c).
 *
 * Every f16 and bf16 value is exact in a double, and so is the result of
 * adding, subtracting or multiplying two of them: arithmetic is done in
 * double and rounded once to the format, under the host's rounding mode
 * (the handlers switch it for .rz .rm .rp), which is the correctly rounded
 * result the GPU gives.
 */
#ifndef SMEMLAB_EMU_HALF_H
#define SMEMLAB_EMU_HALF_H

#include <stdint.h>

/* The canonical NaN the GPU writes for f16 and bf16 results. */
#define EMU_F16_NAN 0x7fffu
#define EMU_BF16_NAN 0x7fffu

double emu_f16_value(uint32_t bits);  /* the low 16 bits */
double emu_bf16_value(uint32_t bits); /* the low 16 bits */

/* v rounded to the format under the current rounding mode (overflow as IEEE
   says for that mode), NaN as nan_bits. */
uint32_t emu_f16_bits(double v, uint32_t nan_bits);
uint32_t emu_bf16_bits(double v, uint32_t nan_bits);

/* A subnormal f16 (bits) as a zero of its sign (.ftz). */
uint32_t emu_f16_ftz(uint32_t bits);

#endif /* SMEMLAB_EMU_HALF_H */
