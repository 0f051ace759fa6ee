/*
 * conv2d_column.cu - lab 6 step 3 as it stood before the reference solution's
 * wide reads, for `make bench`: the before beside the after.
 *
 *   conv2dColumn   the tile copied a float a thread in linear order, each
 *                  thread making ROWS2D = 8 outputs of one column, every tile
 *                  value read with a 4-byte load and reused for up to 7 of
 *                  them. Right, conflict-free, and the halo loaded once, but
 *                  at about 62 % of a copy on an H100: the shared reads and
 *                  the instructions that feed 49 multiply-adds per output.
 *
 * solutions/lab6-convolution/lab6.cu's conv2dTiled makes 4 x ROWS2D outputs
 * a thread from float4 reads of a float4-aligned tile (docs/lab6.md#tiles-2d).
 * Not part of any lab's contract: the grader never loads this file. The
 * launcher only launches, like the lab's; bench fills c_mask2d.
 */
#include "smemlab.h"

#define TILE2D 32 /* a block makes a TILE2D x TILE2D square of outputs */
#define ROWS2D 8  /* ... with TILE2D x (TILE2D / ROWS2D) threads, ROWS2D outputs each */
#define MAX_MASK2D 7

__constant__ float c_mask2d[MAX_MASK2D * MAX_MASK2D];
SMEMLAB_SYMBOL(c_mask2d);

#define TILE2D_IN (TILE2D + MAX_MASK2D - 1)
#define THREADS2D (TILE2D * TILE2D / ROWS2D)
#define LOADS2D ((TILE2D_IN * TILE2D_IN + THREADS2D - 1) / THREADS2D)

/*
 * Copy the span x span square of input (span = TILE2D + 2r) that a block
 * needs into shared memory, ghosts as 0, stored row-major with row pitch
 * span. Threads are numbered linearly and walk the square in that order, so
 * consecutive threads read consecutive pixels of a row (coalesced) and write
 * consecutive shared words (no bank conflicts, whatever the mask width). As
 * in 1-D, all loads are issued before the first store.
 */
__device__ __forceinline__ void conv2d_load_tile(float *tile, const float *in, int width,
                                                 int height, int span)
{
    int r = (span - TILE2D) / 2;
    int x0 = blockIdx.x * TILE2D - r, y0 = blockIdx.y * TILE2D - r; /* tile[0] */
    int tid = threadIdx.y * TILE2D + threadIdx.x;
    float v[LOADS2D];
#pragma unroll
    for (int q = 0; q < LOADS2D; q++) {
        int s = tid + q * THREADS2D;
        int x = x0 + s % span, y = y0 + s / span;
        bool inside = s < span * span && x >= 0 && x < width && y >= 0 && y < height;
        v[q] = inside ? in[(size_t)y * width + x] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < LOADS2D; q++) {
        int s = tid + q * THREADS2D;
        if (s < span * span)
            tile[s] = v[q];
    }
}

/*
 * The ROWS2D outputs of one thread are vertically adjacent: input row rr of
 * the tile meets mask row rr - o for output o, so each shared value is read
 * once and used by up to ROWS2D outputs. MW is the mask width as a
 * compile-time constant: the loops unroll, and every c_mask2d index and tile
 * offset becomes a constant in the instruction.
 */
template <int MW>
__device__ __forceinline__ void conv2d_rows(const float *tile, int tx, int ty0,
                                            float acc[ROWS2D])
{
    const int span = TILE2D + MW - 1;
#pragma unroll
    for (int rr = 0; rr < ROWS2D + MW - 1; rr++)
#pragma unroll
        for (int j = 0; j < MW; j++) {
            float v = tile[(ty0 + rr) * span + tx + j];
#pragma unroll
            for (int o = 0; o < ROWS2D; o++)
                if (rr - o >= 0 && rr - o < MW)
                    acc[o] += v * c_mask2d[(rr - o) * MW + j];
        }
}

/* The same for a mask width known only at run time: plain loops. */
__device__ __forceinline__ void conv2d_rows_any(const float *tile, int tx, int ty0, int mw,
                                                float acc[ROWS2D])
{
    int span = TILE2D + mw - 1;
#pragma unroll
    for (int o = 0; o < ROWS2D; o++)
        for (int i = 0; i < mw; i++)
            for (int j = 0; j < mw; j++)
                acc[o] += tile[(ty0 + o + i) * span + tx + j] * c_mask2d[i * mw + j];
}

/*
 * A block of TILE2D x (TILE2D / ROWS2D) threads makes a TILE2D x TILE2D square
 * of outputs; thread (tx, ty) makes column tx, rows ROWS2D * ty + 0 .. ROWS2D-1.
 * A warp is one row of threads: its shared reads are consecutive words.
 * MW = 0: mask width taken from mask_width at run time.
 */
template <int MW>
__global__ void conv2dColumn(const float *in, float *out, int width, int height, int mask_width)
{
    __shared__ float tile[TILE2D_IN * TILE2D_IN];
    int mw = MW > 0 ? MW : mask_width;
    conv2d_load_tile(tile, in, width, height, TILE2D + mw - 1);
    __syncthreads();

    int tx = threadIdx.x, ty0 = threadIdx.y * ROWS2D;
    float acc[ROWS2D] = {};
    if (MW > 0)
        conv2d_rows<MW>(tile, tx, ty0, acc);
    else
        conv2d_rows_any(tile, tx, ty0, mw, acc);

    int x = blockIdx.x * TILE2D + tx;
#pragma unroll
    for (int o = 0; o < ROWS2D; o++) {
        int y = blockIdx.y * TILE2D + ty0 + o;
        if (x < width && y < height)
            out[(size_t)y * width + x] = acc[o];
    }
}

/* The contract's widths (odd, up to MAX_MASK2D) get unrolled kernels. */
SMEMLAB_LAUNCHER void launch_conv2dColumn(const float *in, float *out, int width, int height,
                                         int mask_width)
{
    dim3 block(TILE2D, TILE2D / ROWS2D);
    dim3 grid((width + TILE2D - 1) / TILE2D, (height + TILE2D - 1) / TILE2D);
    switch (mask_width) {
    case 1: conv2dColumn<1><<<grid, block>>>(in, out, width, height, mask_width); break;
    case 3: conv2dColumn<3><<<grid, block>>>(in, out, width, height, mask_width); break;
    case 5: conv2dColumn<5><<<grid, block>>>(in, out, width, height, mask_width); break;
    case 7: conv2dColumn<7><<<grid, block>>>(in, out, width, height, mask_width); break;
    default: /* outside the contract; wider than MAX_MASK2D would overflow the tile */
        if (mask_width >= 1 && mask_width <= MAX_MASK2D)
            conv2dColumn<0><<<grid, block>>>(in, out, width, height, mask_width);
    }
}
