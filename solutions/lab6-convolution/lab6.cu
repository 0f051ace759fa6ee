/*
 * lab6.cu - SOLUTION of lab 6: convolution with shared-memory tiles and a
 * mask in constant memory.
 *
 * Contract (see common/smemlab.h and labs/lab6-convolution/lab6.cu):
 *   float32, ghost cells are 0, mask widths are odd, r = mask_width / 2.
 *   1-D: out[i] = sum_j in[i - r + j] * mask[j]                (not flipped)
 *   2-D: out(x, y) = sum_{i,j} in(x - r + j, y - r + i) * mask[i][j],
 *        images row-major, pixel (x, y) at y * width + x.
 *   SMEMLAB_LAUNCHER void launch_conv1dBasic(in, mask, out, n, mask_width);  step 1
 *   SMEMLAB_LAUNCHER void launch_conv1dTiled(in, out, n, mask_width);        step 2
 *   SMEMLAB_LAUNCHER void launch_conv2dTiled(in, out, width, height, mask_width); step 3
 *   __constant__ float c_mask1d[MAX_MASK1D], c_mask2d[MAX_MASK2D * MAX_MASK2D]:
 *   filled by the grader with cudaMemcpyToSymbol through the exported handles
 *   smemlab_symbol_c_mask1d / smemlab_symbol_c_mask2d; c_mask2d holds the
 *   mask_width x mask_width mask packed row-major: entry (i, j) at i * mask_width + j.
 *   Params: TILE1D (1024), THREADS1D (256), MAX_MASK1D (31),
 *           TILE2D (32), ROWS2D (4), MAX_MASK2D (7).
 *   Grader tolerance: per element 1e-3 of max(|ref|, sqrt(taps)*max|in|*max|mask|),
 *   overall ||out - ref||_2 / ||ref||_2 <= 1e-5 (grader/reference/tolerance.h).
 *   Build and grade: make lab6 && make grade
 */
#include "smemlab.h"

#define TILE1D 1024   /* outputs of one 1-D block */
#define THREADS1D 256 /* threads of one 1-D block: TILE1D / THREADS1D outputs each */
#define MAX_MASK1D 31
#define TILE2D 32     /* a 2-D block makes a TILE2D x TILE2D square of outputs */
#define ROWS2D 4      /* ... (TILE2D / 4) x (TILE2D / ROWS2D) threads, 4 x ROWS2D outputs each */
#define MAX_MASK2D 7
SMEMLAB_PARAM(TILE1D, TILE1D);
SMEMLAB_PARAM(THREADS1D, THREADS1D);
SMEMLAB_PARAM(MAX_MASK1D, MAX_MASK1D);
SMEMLAB_PARAM(TILE2D, TILE2D);
SMEMLAB_PARAM(ROWS2D, ROWS2D);
SMEMLAB_PARAM(MAX_MASK2D, MAX_MASK2D);

/*
 * The masks, written by the grader with cudaMemcpyToSymbol before each run.
 * nvcc (without -rdc) gives the host handle of a __constant__ variable
 * internal linkage, so dlsym cannot see c_mask1d itself: SMEMLAB_SYMBOL
 * (common/smemlab.h) exports that handle as smemlab_symbol_c_mask1d.
 */
__constant__ float c_mask1d[MAX_MASK1D];
__constant__ float c_mask2d[MAX_MASK2D * MAX_MASK2D];
SMEMLAB_SYMBOL(c_mask1d);
SMEMLAB_SYMBOL(c_mask2d);

/* ---------------------------------------------------------------- step 1 */

#define BASIC_BLOCK 256

/* One output per thread; input and mask straight from global memory. */
__global__ void conv1dBasic(const float *in, const float *mask, float *out, int n, int mask_width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int start = i - mask_width / 2;
    float sum = 0.0f;
    for (int j = 0; j < mask_width; j++) {
        int src = start + j;
        if (src >= 0 && src < n) /* a ghost cell adds 0 */
            sum += in[src] * mask[j];
    }
    out[i] = sum;
}

SMEMLAB_LAUNCHER void launch_conv1dBasic(const float *in, const float *mask, float *out, int n,
                                         int mask_width)
{
    conv1dBasic<<<(n + BASIC_BLOCK - 1) / BASIC_BLOCK, BASIC_BLOCK>>>(in, mask, out, n,
                                                                      mask_width);
}

/* ---------------------------------------------------------------- step 2 */

/*
 * A block makes TILE1D outputs. They need TILE1D + 2r inputs: the tile itself
 * and r halo cells on each side, which the neighbouring blocks read too. The
 * block copies all of them into shared memory once (ghosts as 0), so each
 * input comes from global memory about once instead of mask_width times.
 *
 * Layout: tile[HALO_PAD + k] holds in[first + k] for k in [-r, TILE1D + r).
 * HALO_PAD is a multiple of 4, so the body starts 16-byte aligned: thread t
 * moves the body's float4 number t with one 16-byte load and one 16-byte
 * store (a warp covers 512 contiguous bytes: coalesced, conflict-free), and
 * threads t < r add one halo cell on each side. Wide accesses matter here:
 * the kernel streams memory, and one float per thread leaves too few bytes
 * in flight to keep an H100's DRAM busy.
 *
 * Outputs: thread t makes the four outputs of its own float4, 4t .. 4t + 3,
 * from a window of the tile in registers (see conv1dTiled).
 */
#define HALO_PAD 16
static_assert(HALO_PAD >= MAX_MASK1D / 2 && HALO_PAD % 4 == 0, "halo pad");
static_assert(TILE1D == 4 * THREADS1D, "one float4 of the body per thread");

/* in[i], or 0 for a ghost cell. */
__device__ __forceinline__ float input_or_ghost(const float *in, int n, int i)
{
    return i >= 0 && i < n ? in[i] : 0.0f;
}

/* The tile and its halo. VEC: in is 16-byte aligned, so whole float4 inside [0, n) load
   in one go. */
template <bool VEC>
__device__ __forceinline__ void conv1d_load_tile(float *tile, const float *in, int n, int first,
                                                 int r)
{
    int t = threadIdx.x, i = first + 4 * t;
    float4 v;
    if (VEC && i + 3 < n) {
        v = *reinterpret_cast<const float4 *>(in + i);
    } else { /* the signal's last, partial float4 (or an unaligned in) */
        v.x = input_or_ghost(in, n, i);
        v.y = input_or_ghost(in, n, i + 1);
        v.z = input_or_ghost(in, n, i + 2);
        v.w = input_or_ghost(in, n, i + 3);
    }
    if (t < r) { /* the halo */
        tile[HALO_PAD - r + t] = input_or_ghost(in, n, first - r + t);
        tile[HALO_PAD + TILE1D + t] = input_or_ghost(in, n, first + TILE1D + t);
    }
    *reinterpret_cast<float4 *>(&tile[HALO_PAD + 4 * t]) = v;
}

/*
 * Outputs first + 4t .. first + 4t + 3 of thread t. Output 4t + k, tap j reads
 * tile[HALO_PAD - r + 4t + k + j]: all of them lie in thread t's own float4 of
 * the tile and the RQ = ceil(r / 4) float4 on either side, so the thread loads
 * those 2 RQ + 1 float4 (a warp reads 512 contiguous bytes a load:
 * conflict-free) into registers, where each word serves up to four outputs,
 * and stores its four outputs with one 16-byte store. For the 7-tap mask that
 * is three shared loads a thread where one word a tap takes 28: on an H200
 * the single-word reads and a loop over a run-time width held the kernel to
 * 75 % of a copy's speed, the window makes 97 % (docs/lab6.md). The window
 * needs the mask width at compile time (MW, the odd widths up to 15); MW = 0
 * (any other width) keeps the plain loop: thread t makes outputs t, t +
 * THREADS1D, ..., and a warp reads consecutive words of the tile at every tap.
 * VEC: in and out are 16-byte aligned.
 */
template <int MW, bool VEC>
__global__ void conv1dTiled(const float *in, float *out, int n, int mask_width)
{
    __shared__ __align__(16) float tile[HALO_PAD + TILE1D + HALO_PAD];
    int first = blockIdx.x * TILE1D; /* first output of the block, at tile[HALO_PAD] */
    int r = MW > 0 ? MW / 2 : mask_width / 2, t = threadIdx.x;
    conv1d_load_tile<VEC>(tile, in, n, first, r);
    __syncthreads();

    if constexpr (MW > 0) {
        /* w[4 RQ + m] is tile[HALO_PAD + 4t + m]; the words past the halo (m < -r or
           m > 3 + r) are loaded with their float4 and never used. */
        constexpr int R = MW / 2, RQ = (R + 3) / 4, NW = 4 * (2 * RQ + 1);
        int i = first + 4 * t;
        if (i >= n)
            return;
        const float4 *p = reinterpret_cast<const float4 *>(tile + HALO_PAD + 4 * t - 4 * RQ);
        float w[NW];
#pragma unroll
        for (int q = 0; q < 2 * RQ + 1; q++) {
            float4 v = p[q];
            w[4 * q] = v.x, w[4 * q + 1] = v.y, w[4 * q + 2] = v.z, w[4 * q + 3] = v.w;
        }
        float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int j = 0; j < MW; j++) {
            float m = c_mask1d[j]; /* all lanes read the same c_mask1d[j]: a broadcast */
#pragma unroll
            for (int k = 0; k < 4; k++)
                s[k] += w[4 * RQ - R + k + j] * m;
        }
        if (VEC && i + 3 < n) {
            *reinterpret_cast<float4 *>(out + i) = make_float4(s[0], s[1], s[2], s[3]);
        } else { /* the signal's last, partial float4 (or an unaligned out) */
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (i + k < n)
                    out[i + k] = s[k];
        }
    } else {
#pragma unroll
        for (int q = 0; q < TILE1D / THREADS1D; q++) {
            int o = t + q * THREADS1D;
            if (first + o >= n)
                return;
            float sum = 0.0f;
            for (int j = 0; j < mask_width; j++) /* every lane the same c_mask1d[j]: a broadcast */
                sum += tile[HALO_PAD - r + o + j] * c_mask1d[j];
            out[first + o] = sum;
        }
    }
}

template <bool VEC>
static void launch_conv1d(const float *in, float *out, int n, int mask_width)
{
    int blocks = (n + TILE1D - 1) / TILE1D;
    switch (mask_width) { /* the odd widths up to 15 get the window, unrolled */
    case 1: conv1dTiled<1, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 3: conv1dTiled<3, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 5: conv1dTiled<5, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 7: conv1dTiled<7, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 9: conv1dTiled<9, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 11: conv1dTiled<11, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 13: conv1dTiled<13, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    case 15: conv1dTiled<15, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width); break;
    default: conv1dTiled<0, VEC><<<blocks, THREADS1D>>>(in, out, n, mask_width);
    }
}

SMEMLAB_LAUNCHER void launch_conv1dTiled(const float *in, float *out, int n, int mask_width)
{
    if (mask_width < 1 || mask_width > MAX_MASK1D) /* outside the contract: would overflow tile */
        return;
    if (((size_t)in & 15) == 0 && ((size_t)out & 15) == 0)
        launch_conv1d<true>(in, out, n, mask_width);
    else
        launch_conv1d<false>(in, out, n, mask_width);
}

/* ---------------------------------------------------------------- step 3 */

/*
 * The 2-D kernel streams an image the way step 2 streams a signal, and what
 * holds it below a copy's speed is not DRAM but the instructions per output:
 * 49 multiply-adds for a 7 x 7 mask, and the shared reads that feed them.
 * So each thread makes a COLS2D x ROWS2D patch of neighbouring outputs and
 * reads each tile row it needs once, as 12 floats in wide aligned loads (the
 * 4 columns plus a halo of up to 4 on either side), reusing every value for
 * up to COLS2D x ROWS2D multiply-adds.
 *
 * Layout: block (bx, by) makes the TILE2D x TILE2D outputs with x in
 * [bx * TILE2D, bx * TILE2D + TILE2D) and y likewise. Its tile holds input
 * rows y0 - r .. y0 + TILE2D + r - 1 and columns x0 - PAD2D .. x0 + TILE2D +
 * PAD2D - 1: PAD2D = 4 >= r keeps every float4 of the tile 16-byte aligned
 * in global memory (when the width is a multiple of 4) and in shared memory.
 * Threads are TILE2D / COLS2D wide: a warp covers consecutive float4 of a
 * row, so global reads are coalesced and shared float4 reads conflict-free.
 */
#define COLS2D 4 /* adjacent outputs of a row per thread: one float4 */
#define PAD2D 4  /* tile columns left and right of the outputs */
#define PITCH2D (TILE2D + 2 * PAD2D)
#define TILE2D_ROWS (TILE2D + MAX_MASK2D - 1)
#define THREADS2D ((TILE2D / COLS2D) * (TILE2D / ROWS2D))
#define LOADS2D ((PITCH2D / 4 * TILE2D_ROWS + THREADS2D - 1) / THREADS2D)
static_assert(MAX_MASK2D / 2 <= PAD2D && PAD2D % 4 == 0, "the halo fits the float4 pad");
static_assert(TILE2D % COLS2D == 0 && TILE2D % ROWS2D == 0, "threads tile the outputs");

/* Pixel (x, y), or 0 for a ghost cell. */
__device__ __forceinline__ float pixel_or_ghost(const float *in, int width, int height, int x,
                                                int y)
{
    return x >= 0 && x < width && y >= 0 && y < height ? in[(size_t)y * width + x] : 0.0f;
}

/*
 * Copy the tile's TILE2D + 2r rows into shared memory, a float4 a thread at a
 * time, numbered linearly so neighbouring threads take neighbouring float4.
 * VEC: the image's rows are 16-byte aligned (in aligned, width % 4 == 0), so
 * a float4 is inside the image whole or not at all. All loads are issued
 * before the first store, as in step 2.
 */
template <bool VEC>
__device__ __forceinline__ void conv2d_load_tile(float *tile, const float *in, int width,
                                                 int height, int r)
{
    const int quads = PITCH2D / 4, rows = TILE2D + 2 * r;
    int x0 = blockIdx.x * TILE2D - PAD2D, y0 = blockIdx.y * TILE2D - r;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    float4 v[LOADS2D];
#pragma unroll
    for (int q = 0; q < LOADS2D; q++) {
        int s = tid + q * THREADS2D, x = x0 + 4 * (s % quads), y = y0 + s / quads;
        if (VEC && x >= 0 && x + 3 < width && y >= 0 && y < height && s < quads * rows)
            v[q] = *reinterpret_cast<const float4 *>(in + (size_t)y * width + x);
        else if (s < quads * rows)
            v[q] = make_float4(pixel_or_ghost(in, width, height, x, y),
                               pixel_or_ghost(in, width, height, x + 1, y),
                               pixel_or_ghost(in, width, height, x + 2, y),
                               pixel_or_ghost(in, width, height, x + 3, y));
    }
#pragma unroll
    for (int q = 0; q < LOADS2D; q++) {
        int s = tid + q * THREADS2D;
        if (s < quads * rows)
            *reinterpret_cast<float4 *>(&tile[4 * s]) = v[q];
    }
}

/*
 * Thread (tx, ty) makes columns COLS2D * tx + 0..3 and rows ROWS2D * ty +
 * 0..ROWS2D-1 of the block's outputs. Tile row rr meets mask row rr - o for
 * output row o; its 12-float window w serves the 4 columns: output column k,
 * tap j reads w[PAD2D - r + k + j]. MW is the mask width as a compile-time
 * constant, so every loop unrolls and every index is a constant.
 */
template <int MW>
__device__ __forceinline__ void conv2d_patch(const float *tile, float acc[ROWS2D][COLS2D])
{
    const int r = MW / 2;
    const float *row0 = tile + threadIdx.y * ROWS2D * PITCH2D + COLS2D * threadIdx.x;
#pragma unroll
    for (int rr = 0; rr < ROWS2D + MW - 1; rr++) {
        const float4 *p = reinterpret_cast<const float4 *>(row0 + rr * PITCH2D);
        float4 a = p[0], b = p[1], c = p[2];
        const float w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
        for (int o = 0; o < ROWS2D; o++)
            if (rr - o >= 0 && rr - o < MW)
#pragma unroll
                for (int j = 0; j < MW; j++) {
                    float m = c_mask2d[(rr - o) * MW + j]; /* the same for every lane */
#pragma unroll
                    for (int k = 0; k < COLS2D; k++)
                        acc[o][k] += w[PAD2D - r + k + j] * m;
                }
    }
}

/* The same for a mask width known only at run time: plain loops. */
__device__ __forceinline__ void conv2d_patch_any(const float *tile, int mw,
                                                 float acc[ROWS2D][COLS2D])
{
    int r = mw / 2;
    const float *row0 = tile + threadIdx.y * ROWS2D * PITCH2D + COLS2D * threadIdx.x + PAD2D - r;
    for (int o = 0; o < ROWS2D; o++)
        for (int i = 0; i < mw; i++)
            for (int j = 0; j < mw; j++)
                for (int k = 0; k < COLS2D; k++)
                    acc[o][k] += row0[(o + i) * PITCH2D + k + j] * c_mask2d[i * mw + j];
}

/*
 * A block whose tile, halo included, lies inside the image (and whose rows are 16-byte
 * aligned) needs no bounds check: thread tid loads float4 column lx = tid % 10 of tile
 * rows ly, ly + PER_PASS, ... (PER_PASS = the threads' whole rows of 10), one pointer
 * stepped PER_PASS image rows a pass; every load issued before the first store.
 */
template <int MW>
__device__ __forceinline__ bool conv2d_inside(int width, int height)
{
    int x0 = blockIdx.x * TILE2D - PAD2D, y0 = blockIdx.y * TILE2D - MW / 2;
    return x0 >= 0 && x0 + PITCH2D <= width && y0 >= 0 && y0 + TILE2D + MW - 1 <= height;
}

template <int MW>
__device__ __forceinline__ void conv2d_load_inside(float *tile, const float *in, int width)
{
    constexpr int QUADS = PITCH2D / 4, PER_PASS = THREADS2D / QUADS, ROWS = TILE2D + MW - 1;
    constexpr int PASSES = (ROWS + PER_PASS - 1) / PER_PASS;
    static_assert(PER_PASS >= 1, "a pass loads whole tile rows");
    int tid = threadIdx.y * blockDim.x + threadIdx.x, lx = tid % QUADS, ly = tid / QUADS;
    if (ly >= PER_PASS) /* the threads past the last whole row of 10 */
        return;
    const float *src = in + (size_t)(blockIdx.y * TILE2D - MW / 2 + ly) * width +
                       blockIdx.x * TILE2D - PAD2D + 4 * lx;
    size_t step = (size_t)PER_PASS * width;
    float4 v[PASSES];
#pragma unroll
    for (int p = 0; p < PASSES; p++, src += step) /* the last pass: the rows left */
        if (p < PASSES - 1 || ly + p * PER_PASS < ROWS)
            v[p] = *reinterpret_cast<const float4 *>(src);
#pragma unroll
    for (int p = 0; p < PASSES; p++)
        if (ly + p * PER_PASS < ROWS)
            *reinterpret_cast<float4 *>(&tile[(ly + p * PER_PASS) * PITCH2D + 4 * lx]) = v[p];
}

/* MW = 0: the mask width is taken from mask_width at run time. */
template <int MW, bool VEC>
__global__ void conv2dTiled(const float *in, float *out, int width, int height, int mask_width)
{
    __shared__ __align__(16) float tile[TILE2D_ROWS * PITCH2D];
    int mw = MW > 0 ? MW : mask_width;
    bool inside = MW > 0 && VEC && conv2d_inside<MW>(width, height); /* the whole block's */
    if (inside)
        conv2d_load_inside<MW>(tile, in, width);
    else
        conv2d_load_tile<VEC>(tile, in, width, height, mw / 2);
    __syncthreads();

    float acc[ROWS2D][COLS2D] = {};
    if (MW > 0)
        conv2d_patch<MW>(tile, acc);
    else
        conv2d_patch_any(tile, mw, acc);

    int x = blockIdx.x * TILE2D + COLS2D * threadIdx.x;
    if (inside) { /* every output row inside, every float4 aligned */
        float *dst = out + (size_t)(blockIdx.y * TILE2D + threadIdx.y * ROWS2D) * width + x;
#pragma unroll
        for (int o = 0; o < ROWS2D; o++)
            *reinterpret_cast<float4 *>(dst + (size_t)o * width) =
                make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
        return;
    }
#pragma unroll
    for (int o = 0; o < ROWS2D; o++) {
        int y = blockIdx.y * TILE2D + threadIdx.y * ROWS2D + o;
        if (y >= height)
            break;
        float *dst = out + (size_t)y * width + x;
        if (VEC && x + 3 < width)
            *reinterpret_cast<float4 *>(dst) = make_float4(acc[o][0], acc[o][1], acc[o][2],
                                                           acc[o][3]);
        else
            for (int k = 0; k < COLS2D && x + k < width; k++)
                dst[k] = acc[o][k];
    }
}

template <bool VEC>
static void launch_conv2d(const float *in, float *out, int width, int height, int mask_width)
{
    dim3 block(TILE2D / COLS2D, TILE2D / ROWS2D);
    dim3 grid((width + TILE2D - 1) / TILE2D, (height + TILE2D - 1) / TILE2D);
    switch (mask_width) { /* the contract's widths (odd, up to MAX_MASK2D) get unrolled kernels */
    case 1: conv2dTiled<1, VEC><<<grid, block>>>(in, out, width, height, mask_width); break;
    case 3: conv2dTiled<3, VEC><<<grid, block>>>(in, out, width, height, mask_width); break;
    case 5: conv2dTiled<5, VEC><<<grid, block>>>(in, out, width, height, mask_width); break;
    case 7: conv2dTiled<7, VEC><<<grid, block>>>(in, out, width, height, mask_width); break;
    default: /* outside the contract; wider than MAX_MASK2D would overflow the tile */
        if (mask_width >= 1 && mask_width <= MAX_MASK2D)
            conv2dTiled<0, VEC><<<grid, block>>>(in, out, width, height, mask_width);
    }
}

SMEMLAB_LAUNCHER void launch_conv2dTiled(const float *in, float *out, int width, int height,
                                         int mask_width)
{
    bool aligned = ((size_t)in & 15) == 0 && ((size_t)out & 15) == 0 && width % 4 == 0;
    if (aligned)
        launch_conv2d<true>(in, out, width, height, mask_width);
    else
        launch_conv2d<false>(in, out, width, height, mask_width);
}
