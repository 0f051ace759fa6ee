/* sizes.c - the size lists of labs 5 and 6; see sizes.h. */
#include "sizes.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const matmul_size sizes_matmul[] = {
    {1, 1, 1, "1x1x1: a single product", SIZE_BOTH},
    {1, 300, 37, "one row (1 x N)", SIZE_BOTH},
    {300, 1, 37, "one column (N x 1)", SIZE_BOTH},
    {64, 64, 1, "K = 1: one partial tile along K", SIZE_BOTH},
    /* the edge run's: 20 blocks of 16 x 16, the last row and column ragged */
    {67, 53, 97, "primes: no tile divides any side", SIZE_BOTH | SIZE_EDGE},
    {191, 19, 41, "tall and thin, primes", SIZE_BOTH},
    {19, 191, 43, "short and wide, primes", SIZE_BOTH},
    {200, 136, 36, "multiples of 4 (vector path) but not of 16 or 128", SIZE_BOTH},
    {257, 129, 145, "one past multiples of 16 and 128", SIZE_BOTH},
    {521, 389, 263, "several step-3 tiles with ragged edges, primes", SIZE_GPU},
    {1024, 1024, 1024, "large: races between warps have time to show", SIZE_GPU},
};
const int sizes_matmul_count = COUNT(sizes_matmul);

/* 128^3: a multiple of every tile the kit's kernels use (step 3's block tile is
   128), so every kernel's loads are what its tiles make them (the limit is a
   ratio), and small for the instrumented run: on an H100 the trace of
   matmulTiled took 1.2 s at 256^3 (5.6 s at 1024^3). One size for the GPU and
   the emulator. */
const matmul_size sizes_matmul_traffic = {128, 128, 128, "global-load count", SIZE_BOTH};
const matmul_size sizes_matmul_speed = {4096, 4096, 4096, "speed against cuBLAS", SIZE_GPU};

const matmul_size sizes_matmul_bench[] = {
    {1024, 1024, 1024, "bench", SIZE_GPU},
    {2048, 2048, 2048, "bench", SIZE_GPU},
    {4096, 4096, 4096, "bench", SIZE_GPU},
};
const int sizes_matmul_bench_count = COUNT(sizes_matmul_bench);

/* Edges of common tiles: 255-257 for TILE1D 256, 1023-1025 for the kit's 1024. */
const signal_size sizes_conv1d_n[] = {
    {1, SIZE_BOTH}, {2, SIZE_BOTH}, {7, SIZE_BOTH}, {31, SIZE_BOTH}, {255, SIZE_BOTH},
    {256, SIZE_BOTH}, {257, SIZE_BOTH}, {1000, SIZE_BOTH}, {1023, SIZE_BOTH}, {1024, SIZE_BOTH},
    {1025, SIZE_BOTH}, {4099, SIZE_BOTH | SIZE_EDGE}, {65537, SIZE_GPU}, {1000003, SIZE_GPU}};
const int sizes_conv1d_n_count = COUNT(sizes_conv1d_n);
/* Wider than the signal (n = 1, 2, 7) too: every tap then falls on a ghost or the data. */
const int sizes_conv1d_mask[] = {1, 3, 5, 7, 15, 31};
const int sizes_conv1d_mask_count = COUNT(sizes_conv1d_mask);

const image_size sizes_conv2d[] = {
    {1, 1, "one pixel: every neighbour is a ghost", SIZE_BOTH},
    {3, 2, "smaller than the mask", SIZE_BOTH},
    {7, 5, "primes, smaller than a tile", SIZE_BOTH},
    {13, 17, "primes", SIZE_BOTH},
    {32, 32, "exactly one 32 x 32 tile", SIZE_BOTH},
    {33, 31, "one past / one short of a tile", SIZE_BOTH},
    {61, 67, "primes, several tiles", SIZE_BOTH},
    {127, 1, "a single row", SIZE_BOTH},
    {1, 129, "a single column", SIZE_BOTH},
    {131, 97, "not square, ragged tiles", SIZE_EMULATOR | SIZE_EDGE},
    {132, 100, "float4 rows, blocks wholly inside the image", SIZE_EMULATOR},
    {1000, 700, "not square, ragged tiles", SIZE_GPU},
    {1024, 1024, "large", SIZE_GPU},
};
const int sizes_conv2d_count = COUNT(sizes_conv2d);
const int sizes_conv2d_mask[] = {1, 3, 5, 7};
const int sizes_conv2d_mask_count = COUNT(sizes_conv2d_mask);

/* The instrumented run's inputs, about 1 MB: hundreds of blocks, a ragged last
   one in each direction (the speed inputs, 256 MB, took the trace 1 s each on
   an H100; 4 MB and 3 MB still 0.3 s and 0.6 s, the 2-D kernel recording 49
   shared reads an output). */
const int sizes_conv1d_traffic_n = (1 << 18) + 7;
const image_size sizes_conv2d_traffic = {512 + 7, 384 + 5, "global-load count", SIZE_GPU};
const int sizes_conv1d_traffic_emulated_n = 8192 + 7;
const image_size sizes_conv2d_traffic_emulated = {256, 192, "global-load count", SIZE_EMULATOR};

const int sizes_conv1d_speed_n = 1 << 26; /* 256 MB in, 256 MB out */
const int sizes_conv1d_speed_mask = 7;
const image_size sizes_conv2d_speed = {8192, 8192, "speed", SIZE_GPU}; /* 256 MB each way */
const int sizes_conv2d_speed_mask = 7;

int sizes_is_prime(long n)
{
    if (n < 2)
        return 0;
    for (long d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}
