/*
 * lab6.cu - Lab 6: convolution with shared-memory tiles and the mask in
 * constant memory.
 *
 * Definitions (float32; r = mask_width / 2; mask widths are odd):
 *   1-D: out[i] = sum_{j=0}^{mask_width-1} in[i - r + j] * mask[j]
 *   2-D: out(x, y) = sum_{i,j} in(x - r + j, y - r + i) * mask[i * mask_width + j]
 *        images are row-major: pixel (x, y) at y * width + x.
 *   The mask is not flipped. Inputs outside the signal or image are ghost
 *   cells and read as 0.
 *
 * Contract (the grader relies on it; keep every name and signature):
 *   SMEMLAB_LAUNCHER void launch_conv1dBasic(const float *in, const float *mask, float *out,
 *                                            int n, int mask_width);        step 1
 *   SMEMLAB_LAUNCHER void launch_conv1dTiled(const float *in, float *out,
 *                                            int n, int mask_width);        step 2
 *   SMEMLAB_LAUNCHER void launch_conv2dTiled(const float *in, float *out,
 *                                            int width, int height, int mask_width); step 3
 *   A launcher only launches on the default stream: no cudaMalloc, no
 *   cudaMemcpy, no cudaDeviceSynchronize, no error checks. in, mask and out
 *   are device buffers the grader allocated.
 *
 *   __constant__ float c_mask1d[MAX_MASK1D], c_mask2d[MAX_MASK2D * MAX_MASK2D]
 *   (steps 2 and 3): the grader writes the mask there before each run with
 *   cudaMemcpyToSymbol; c_mask2d holds the mask_width x mask_width mask
 *   packed row-major (entry (i, j) at i * mask_width + j). Keep both at
 *   global scope with the SMEMLAB_SYMBOL lines below: that is how the grader
 *   finds them.
 *
 *   Parameters (exported with SMEMLAB_PARAM):
 *     must not change (the grader checks them when it loads your library):
 *       TILE1D = 1024 (outputs per 1-D block), MAX_MASK1D = 31, TILE2D = 32
 *       (a 2-D block makes a TILE2D x TILE2D square of outputs), MAX_MASK2D = 7.
 *     yours to choose (the grader does not read them):
 *       THREADS1D (threads per 1-D block, a divisor of TILE1D) and ROWS2D
 *       (outputs per thread in 2-D; blocks are TILE2D x TILE2D / ROWS2D).
 *       They start at THREADS1D = TILE1D and ROWS2D = 1 (one output per
 *       thread), the simplest start; raise them once the kernels are right.
 *
 * Checks: correct (all steps), global-loads (tiled vs basic),
 * smem-conflicts, speed (against a device-to-device copy of the same bytes).
 * Tolerance: an output passes if |out - ref| <= 1e-3 * max(|ref|, floor),
 * floor = sqrt(taps) * max|in| * max|mask|, and overall
 * ||out - ref||_2 / ||ref||_2 <= 1e-5. NaN never passes.
 *
 * Build and grade:   make lab6 && make grade
 */
#include "smemlab.h"

#define TILE1D 1024
#define THREADS1D 1024
#define MAX_MASK1D 31
#define TILE2D 32
#define ROWS2D 1
#define MAX_MASK2D 7
SMEMLAB_PARAM(TILE1D, TILE1D);
SMEMLAB_PARAM(THREADS1D, THREADS1D);
SMEMLAB_PARAM(MAX_MASK1D, MAX_MASK1D);
SMEMLAB_PARAM(TILE2D, TILE2D);
SMEMLAB_PARAM(ROWS2D, ROWS2D);
SMEMLAB_PARAM(MAX_MASK2D, MAX_MASK2D);

/*
 * The masks. nvcc gives the host-side handle of a __constant__ variable
 * internal linkage, so the grader could not find c_mask1d by name:
 * SMEMLAB_SYMBOL exports the handle as smemlab_symbol_c_mask1d. Keep it.
 */
__constant__ float c_mask1d[MAX_MASK1D];
__constant__ float c_mask2d[MAX_MASK2D * MAX_MASK2D];
SMEMLAB_SYMBOL(c_mask1d);
SMEMLAB_SYMBOL(c_mask2d);

/* ---------------------------------------------------------------- step 1 */

#define BASIC_BLOCK 256

/*
 * TODO(student): one thread per output, everything from global memory.
 *  - i = blockIdx.x * blockDim.x + threadIdx.x; threads with i >= n return.
 *  - Sum in[i - r + j] * mask[j] over j, skipping taps that fall outside
 *    [0, n): they are ghost cells (0), and reading them would read outside
 *    the buffer.
 * Every input is read mask_width times, and every thread reads the whole
 * mask from global memory: steps 2 and 3 remove both.
 */
__global__ void conv1dBasic(const float *in, const float *mask, float *out, int n, int mask_width)
{
}

SMEMLAB_LAUNCHER void launch_conv1dBasic(const float *in, const float *mask, float *out, int n,
                                         int mask_width)
{
    conv1dBasic<<<(n + BASIC_BLOCK - 1) / BASIC_BLOCK, BASIC_BLOCK>>>(in, mask, out, n,
                                                                      mask_width);
}

/* ---------------------------------------------------------------- step 2 */

/*
 * TODO(student): block b makes outputs [b * TILE1D, (b + 1) * TILE1D).
 *  1. Those outputs need inputs from b * TILE1D - r to (b + 1) * TILE1D - 1 + r:
 *     the tile plus a halo of r cells on each side, TILE1D + mask_width - 1
 *     in all. Copy them into __shared__ float tile[TILE1D + MAX_MASK1D - 1],
 *     writing 0 for ghost cells (before 0 or from n on). With fewer threads
 *     than inputs, thread t copies t, t + THREADS1D, ... so that a warp reads
 *     consecutive addresses (coalesced).
 *  2. __syncthreads(): the halo comes from other threads' loads.
 *  3. Output o of the block (thread t makes o = t, t + THREADS1D, ...) is
 *     sum_j tile[o + j] * c_mask1d[j]; skip outputs at or past n.
 * Each input now comes from global memory about once per block, and the mask
 * from constant memory: all threads of a warp read the same c_mask1d[j] at
 * the same time, which the constant cache serves as one broadcast.
 * Speed: one load per thread does not keep an H100's memory busy; a few
 * independent loads per thread (several outputs each) do.
 */
__global__ void conv1dTiled(const float *in, float *out, int n, int mask_width)
{
}

SMEMLAB_LAUNCHER void launch_conv1dTiled(const float *in, float *out, int n, int mask_width)
{
    conv1dTiled<<<(n + TILE1D - 1) / TILE1D, THREADS1D>>>(in, out, n, mask_width);
}

/* ---------------------------------------------------------------- step 3 */

/*
 * TODO(student): the 2-D version. Block (bx, by) makes the outputs with
 * x in [bx * TILE2D, bx * TILE2D + TILE2D) and y likewise.
 *  1. They need a span x span square of input around them, span =
 *     TILE2D + mask_width - 1 (a halo of r on every side). Copy it into
 *     __shared__ float tile[(TILE2D + MAX_MASK2D - 1) * (TILE2D + MAX_MASK2D - 1)]
 *     row-major with row pitch span, 0 for pixels outside the image. Number
 *     the threads linearly and walk the square in that order: neighbouring
 *     threads then read neighbouring pixels and write neighbouring shared
 *     words. (A 2-D array [TILE2D + MAX_MASK2D - 1][...] works too if every
 *     warp stores within one row of it; filled in this linear order, its
 *     rows have gaps for masks narrower than MAX_MASK2D and some stores
 *     then share a bank. docs/lab6.md#tiles-2d explains.)
 *  2. __syncthreads().
 *  3. Thread (tx, ty) makes column tx and ROWS2D rows (e.g. ty * ROWS2D + 0 ..
 *     ROWS2D - 1): out(x, y) = sum_{i,j} tile[(row + i) * span + tx + j] *
 *     c_mask2d[i * mask_width + j], row being y's place in the tile.
 *     Skip outputs outside the image.
 * Bank conflicts: a warp is one row of 32 threads here; which words does it
 * read from tile at one (i, j)?
 * Speed, once correct: with ROWS2D > 1, a value read from tile serves up to
 * ROWS2D outputs of the same thread; a mask width known at compile time
 * (a template over 1, 3, 5, 7) lets the compiler unroll every loop.
 */
__global__ void conv2dTiled(const float *in, float *out, int width, int height, int mask_width)
{
}

SMEMLAB_LAUNCHER void launch_conv2dTiled(const float *in, float *out, int width, int height,
                                         int mask_width)
{
    dim3 block(TILE2D, TILE2D / ROWS2D);
    dim3 grid((width + TILE2D - 1) / TILE2D, (height + TILE2D - 1) / TILE2D);
    conv2dTiled<<<grid, block>>>(in, out, width, height, mask_width);
}
