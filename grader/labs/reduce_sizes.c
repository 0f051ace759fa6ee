/* reduce_sizes.c - the inputs of labs 7 and 8; see reduce_sizes.h. */
#include "reduce_sizes.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* DIM = 256 threads a block, UNROLL = 4: 1024 elements a block of steps 3 and 4. */
const reduce_size sizes_reduce[] = {
    {0, VALUES_SMALL, "nothing to add: the sum is 0", SIZE_BOTH},
    {1, VALUES_SMALL, "one element", SIZE_BOTH},
    {32, VALUES_NEGATIVE, "a warp", SIZE_BOTH},
    {33, VALUES_SMALL, "a warp and one", SIZE_BOTH},
    {256, VALUES_SMALL, "a block (DIM)", SIZE_BOTH},
    {257, VALUES_NEGATIVE, "a block and one", SIZE_BOTH},
    {1000, VALUES_SMALL, "no power of two", SIZE_BOTH},
    {1024, VALUES_WRAP, "UNROLL x DIM", SIZE_BOTH},
    {1025, VALUES_SMALL, "UNROLL x DIM and one", SIZE_BOTH},
    {4099, VALUES_NEGATIVE, "a prime, several blocks", SIZE_BOTH},
    {12289, VALUES_WRAP, "several blocks, the last one ragged", SIZE_BOTH},
    /* 69 blocks of DIM, 18 of UNROLL x DIM: more than a GPU trace's race window */
    {17409, VALUES_SMALL, "more blocks than the race window, the last one ragged",
     SIZE_BOTH | SIZE_EDGE},
    {65537, VALUES_SMALL, "2^16 + 1", SIZE_GPU},
    {1000003, VALUES_WRAP, "a prime, many blocks", SIZE_GPU},
    {(1 << 24) + 7, VALUES_SMALL, "2^24 + 7: many blocks, a ragged last one", SIZE_GPU},
};
const int sizes_reduce_count = COUNT(sizes_reduce);

const reduce_size sizes_reduce_traffic = {(1 << 20) + 7, VALUES_SMALL, "global traffic",
                                          SIZE_GPU};
const reduce_size sizes_reduce_traffic_emulated = {8 * 1024 + 7, VALUES_SMALL, "global traffic",
                                                   SIZE_EMULATOR};
const reduce_size sizes_reduce_speed = {1 << 26, VALUES_SMALL, "speed against CUB", SIZE_GPU};

const int sizes_shfl_broadcast[] = {0, 5, 31};
const int sizes_shfl_delta[] = {1, 3, 16, 31};
const int sizes_shfl_wrap[] = {1, 7, 31};
const int sizes_shfl_xor[] = {1, 2, 16, 31};
const int sizes_shfl_broadcast_count = COUNT(sizes_shfl_broadcast);
const int sizes_shfl_delta_count = COUNT(sizes_shfl_delta);
const int sizes_shfl_wrap_count = COUNT(sizes_shfl_wrap);
const int sizes_shfl_xor_count = COUNT(sizes_shfl_xor);

const char *reduce_values_name(reduce_values v)
{
    switch (v) {
    case VALUES_NEGATIVE: return "all negative";
    case VALUES_WRAP: return "large values: the sum wraps around";
    default: return "small values";
    }
}
