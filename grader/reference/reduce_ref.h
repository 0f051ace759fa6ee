/*
 * reduce_ref.h - host references of labs 7 and 8 (pure C11, no CUDA).
 *
 * Sums are of ints as the GPU adds them: modulo 2^32 (two's complement wrap
 * around), so the order of the additions never matters and any correct
 * tree gives exactly the reference.
 */
#ifndef SMEMLAB_REDUCE_REF_H
#define SMEMLAB_REDUCE_REF_H

#include "../labs/lab_table.h"
#include "../labs/reduce_sizes.h"

#include <stddef.h>
#include <stdint.h>

/* n ints of the kind v asks for, drawn from seed. */
void reduce_fill(int32_t *x, size_t n, reduce_values v, uint64_t seed);

/* x[0] + ... + x[n - 1], wrapping as int arithmetic on the GPU does (0 for n = 0). */
int32_t ref_sum(const int32_t *x, size_t n);

/* The partial sum of each of `blocks` blocks of `per_block` elements (the last
   block: what is left of n; a block past n: 0). */
void ref_partials(const int32_t *x, size_t n, size_t per_block, int32_t *out, size_t blocks);

/* The sum of an array of partial sums, wrapping. */
int32_t ref_sum_partials(const int32_t *p, size_t blocks);

/* Lab 8's exercise ex with its lane parameter on one warp's in[] (32 ints, or 128
   for EXERCISE_XOR_ARRAY): out[] as the lab defines it. */
void ref_shuffle(reduce_exercise ex, int param, const int32_t *in, int32_t *out);

/* Elements of in and out an exercise has (32, or 128 for the array). */
int ref_shuffle_elems(reduce_exercise ex);

#endif
