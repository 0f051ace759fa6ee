/*
 * reduce_sizes.h - the inputs of labs 7 and 8, as data (pure C11).
 *
 * The reductions run on every entry: n = 0 and 1, a warp, a block, one past
 * each, sizes no power of two divides, and 2^24 + 7 on a GPU (many blocks, a
 * ragged last one); on inputs of small values, all-negative values, and
 * values large enough that their int sum wraps around (the GPU's int adds
 * wrap; so does the reference). The shuffle exercises run with each value
 * of their lane parameter listed here.
 */
#ifndef SMEMLAB_REDUCE_SIZES_H
#define SMEMLAB_REDUCE_SIZES_H

#include "sizes.h"

typedef enum reduce_values {
    VALUES_SMALL,    /* -1000 .. 1000 */
    VALUES_NEGATIVE, /* -1000 .. -1 */
    VALUES_WRAP      /* within 2^16 of INT_MAX or INT_MIN: the sum wraps around */
} reduce_values;

typedef struct reduce_size {
    int n;
    reduce_values values;
    const char *why;
    int devices; /* SIZE_* */
} reduce_size;

extern const reduce_size sizes_reduce[];
extern const int sizes_reduce_count;

/* The instrumented run's input (global traffic, the tree, shuffles, races):
   on a GPU, and smaller for the emulator; both a ragged last block. */
extern const reduce_size sizes_reduce_traffic;
extern const reduce_size sizes_reduce_traffic_emulated;

/* Speed against CUB: 2^26 ints (256 MB), from DRAM rather than L2. */
extern const reduce_size sizes_reduce_speed;

/* The values of lab 8's exercises' lane parameter (srcLane, delta, offset, laneMask). */
extern const int sizes_shfl_broadcast[], sizes_shfl_delta[], sizes_shfl_wrap[],
    sizes_shfl_xor[];
extern const int sizes_shfl_broadcast_count, sizes_shfl_delta_count, sizes_shfl_wrap_count,
    sizes_shfl_xor_count;

/* The values' words in a size's label ("all negative"). */
const char *reduce_values_name(reduce_values v);

#endif
