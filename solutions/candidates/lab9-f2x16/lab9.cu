/*
 * CANDIDATE (issue 41, item 2): solutions/lab9-transpose/lab9.cu with step 5's
 * transposeSmemUnrollPad changed: eight padded tiles stacked a block (128 rows, 33 KB); a
 * block inside the matrix loads float2 and stores float2 as lab9-f2x8: eight 8-byte loads
 * a thread before the barrier, 64 bytes in flight a thread as lab9-f4x16 keeps, in twice
 * its requests. The border blocks (any size, any alignment) move one float at a time, each
 * guarded, as the solution does. Every other kernel is the solution's. make bench
 * BENCH_CANDIDATES=1 times it beside the solution (rows lab9-f2x16:...);
 * solutions/candidates/README.md has the figures.
 */

/*
 * lab9.cu - SOLUTION of lab 9: transposing a matrix through shared memory.
 *
 * Contract (see common/smemlab.h and labs/lab9-transpose/lab9.cu):
 *   float data, row-major. in holds ny rows of nx floats; a transpose writes
 *   out as nx rows of ny floats, out[x * ny + y] = in[y * nx + x]; copyRow
 *   copies, out[y * nx + x] = in[y * nx + x]. nx, ny >= 1, any size.
 *   Blocks of BDIMX x BDIMY threads; one kernel a launcher.
 *   SMEMLAB_LAUNCHER void launch_copyRow(const float *in, float *out, int nx, int ny);      step 1
 *   SMEMLAB_LAUNCHER void launch_naiveRow(const float *in, float *out, int nx, int ny);     step 2
 *   SMEMLAB_LAUNCHER void launch_naiveCol(const float *in, float *out, int nx, int ny);     step 2
 *   SMEMLAB_LAUNCHER void launch_transposeSmem(const float *in, float *out, int nx, int ny); step 3
 *   SMEMLAB_LAUNCHER void launch_transposeSmemPad(const float *in, float *out, int nx, int ny); 4
 *   SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPad(const float *in, float *out, int nx,
 *                                                       int ny);                        step 5
 *   SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPadDyn(const float *in, float *out, int nx,
 *                                                          int ny);                     step 5
 *   Params: BDIMX (32), BDIMY (16), IPAD (2).
 *   Build and grade: make lab9 && make grade
 */
#include "smemlab.h"

#define BDIMX 32 /* threads of a block along x: a warp reads a row segment */
#define BDIMY 16
#define IPAD 2   /* tile words a row is padded by (see step 4) */
SMEMLAB_PARAM(BDIMX, BDIMX);
SMEMLAB_PARAM(BDIMY, BDIMY);
SMEMLAB_PARAM(IPAD, IPAD);

/* Blocks covering w x h elements, cols elements of a block along x. */
static dim3 grid_for(int w, int h, int cols)
{
    return dim3((w + cols - 1) / cols, (h + BDIMY - 1) / BDIMY);
}

/* ---------------------------------------------------------------- step 1 */

/* The roof: read a row, write a row. Both sides coalesced. */
__global__ void copyRow(const float *in, float *out, int nx, int ny)
{
    unsigned ix = blockIdx.x * BDIMX + threadIdx.x, iy = blockIdx.y * BDIMY + threadIdx.y;
    if (ix < (unsigned)nx && iy < (unsigned)ny)
        out[(size_t)iy * nx + ix] = in[(size_t)iy * nx + ix];
}

SMEMLAB_LAUNCHER void launch_copyRow(const float *in, float *out, int nx, int ny)
{
    copyRow<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 2 */

/* Read rows (coalesced), write columns: lane x writes out[x * ny + y], ny floats
   apart, a 32-byte sector a lane. */
__global__ void naiveRow(const float *in, float *out, int nx, int ny)
{
    unsigned ix = blockIdx.x * BDIMX + threadIdx.x, iy = blockIdx.y * BDIMY + threadIdx.y;
    if (ix < (unsigned)nx && iy < (unsigned)ny)
        out[(size_t)ix * ny + iy] = in[(size_t)iy * nx + ix];
}

SMEMLAB_LAUNCHER void launch_naiveRow(const float *in, float *out, int nx, int ny)
{
    naiveRow<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* Read columns, write rows (coalesced): threads run along out's rows. */
__global__ void naiveCol(const float *in, float *out, int nx, int ny)
{
    unsigned ox = blockIdx.x * BDIMX + threadIdx.x, oy = blockIdx.y * BDIMY + threadIdx.y;
    if (ox < (unsigned)ny && oy < (unsigned)nx)
        out[(size_t)oy * ny + ox] = in[(size_t)ox * nx + oy];
}

SMEMLAB_LAUNCHER void launch_naiveCol(const float *in, float *out, int nx, int ny)
{
    naiveCol<<<grid_for(ny, nx, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 3 */

/*
 * Through a tile: the block reads its BDIMY x BDIMX piece by rows into the tile,
 * and writes the transposed piece (BDIMX rows of BDIMY) by rows of out: thread
 * bidx = ty * BDIMX + tx takes out's row irow = bidx / BDIMY, column icol =
 * bidx % BDIMY, and reads it from tile[icol][irow], a column of the tile.
 * Both global sides coalesced; the column read is a 16-way bank conflict
 * (every tile row 32 words: lanes with one irow share a bank).
 */
template <int PAD>
__device__ void transpose_tile(const float *in, float *out, int nx, int ny)
{
    __shared__ float tile[BDIMY][BDIMX + PAD];
    unsigned ix = blockIdx.x * BDIMX + threadIdx.x, iy = blockIdx.y * BDIMY + threadIdx.y;
    if (ix < (unsigned)nx && iy < (unsigned)ny)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)iy * nx + ix];
    __syncthreads(); /* every thread, edge or not: the tile is whole before it is read */
    unsigned bidx = threadIdx.y * BDIMX + threadIdx.x;
    unsigned irow = bidx / BDIMY, icol = bidx % BDIMY;
    unsigned ox = blockIdx.y * BDIMY + icol, oy = blockIdx.x * BDIMX + irow;
    if (ox < (unsigned)ny && oy < (unsigned)nx)
        out[(size_t)oy * ny + ox] = tile[icol][irow];
}

__global__ void transposeSmem(const float *in, float *out, int nx, int ny)
{
    transpose_tile<0>(in, out, nx, ny);
}

SMEMLAB_LAUNCHER void launch_transposeSmem(const float *in, float *out, int nx, int ny)
{
    transposeSmem<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 4 */

/* Rows of BDIMX + IPAD words: lane (icol, irow) lands in bank 2 * icol + irow, the
   warp's two columns in the even and the odd banks: conflict-free. */
__global__ void transposeSmemPad(const float *in, float *out, int nx, int ny)
{
    transpose_tile<IPAD>(in, out, nx, ny);
}

SMEMLAB_LAUNCHER void launch_transposeSmemPad(const float *in, float *out, int nx, int ny)
{
    transposeSmemPad<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 5 */

/*
 * Two elements a thread: a block covers BDIMY x 2 * BDIMX, half the blocks. The
 * second element is BDIMX further along the row (its own coalesced segment) and
 * its transpose BDIMX rows further down out. Each is guarded on its own: a
 * matrix whose width is no multiple of 2 * BDIMX leaves the second element of the
 * last blocks' threads outside, not the first.
 */
__device__ void transpose_unrolled(float *tile, const float *in, float *out, int nx, int ny)
{
    const unsigned W = 2 * BDIMX + IPAD; /* words a tile row */
    unsigned ix = 2 * blockIdx.x * BDIMX + threadIdx.x, iy = blockIdx.y * BDIMY + threadIdx.y;
    unsigned row = threadIdx.y * W + threadIdx.x;
    if (iy < (unsigned)ny) {
        if (ix < (unsigned)nx)
            tile[row] = in[(size_t)iy * nx + ix];
        if (ix + BDIMX < (unsigned)nx)
            tile[row + BDIMX] = in[(size_t)iy * nx + ix + BDIMX];
    }
    __syncthreads();
    unsigned bidx = threadIdx.y * BDIMX + threadIdx.x;
    unsigned irow = bidx / BDIMY, icol = bidx % BDIMY;
    unsigned ox = blockIdx.y * BDIMY + icol, oy = 2 * blockIdx.x * BDIMX + irow;
    unsigned col = icol * W + irow;
    if (ox < (unsigned)ny) {
        if (oy < (unsigned)nx)
            out[(size_t)oy * ny + ox] = tile[col];
        if (oy + BDIMX < (unsigned)nx)
            out[(size_t)(oy + BDIMX) * ny + ox] = tile[col + BDIMX];
    }
}

/*
 * CANDIDATE's step 5: K padded tiles of BDIMY x 2 * BDIMX stacked a block (K * BDIMY rows
 * of W = 2 * BDIMX + IPAD words), every load of a thread issued before the barrier.
 * A block wholly inside the matrix, rows 16-byte aligned (FULL), moves V floats a
 * global load and VO a global store; the border blocks move one float at a time,
 * each guarded, as the solution's step 5.
 *   V = 1: columns tx and tx + BDIMX of each of the K row groups (the solution's, K
 *          times); V = 2: columns 2 tx, 2 tx + 1 as one float2 (a warp: a row's 64
 *          floats), stored as one 8-byte word (a half-warp's 32 words: conflict-free);
 *          V = 4: a float4, a warp two rows, stored as two 8-byte halves, the lanes of
 *          the upper half of each half-warp storing their second half first (banks
 *          2-3, 6-7, ... while the lower half fill 0-1, 4-5, ...: conflict-free).
 *   VO = 1: the solution's read (lane (icol, irow) reads tile[icol][irow]); VO = 2 or
 *          4: lane (p, r) reads VO consecutive tile rows VO p .. VO p + VO - 1 of
 *          column r, bank (2 VO p + r) % 32 over 32 / VO values of p and VO of r:
 *          conflict-free, and writes them as one float2 or float4 of out's row r.
 */
template <int K, int V>
__device__ __forceinline__ void tile_load_full(float *tile, const float *in, int nx)
{
    const unsigned W = 2 * BDIMX + IPAD, tx = threadIdx.x, ty = threadIdx.y;
    const float *src = in + (size_t)blockIdx.y * K * BDIMY * nx + 2 * blockIdx.x * BDIMX;
    if constexpr (V == 1) {
        float v[K][2];
#pragma unroll
        for (int k = 0; k < K; k++) {
            v[k][0] = src[(size_t)(k * BDIMY + ty) * nx + tx];
            v[k][1] = src[(size_t)(k * BDIMY + ty) * nx + tx + BDIMX];
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            tile[(k * BDIMY + ty) * W + tx] = v[k][0];
            tile[(k * BDIMY + ty) * W + tx + BDIMX] = v[k][1];
        }
    } else if constexpr (V == 2) {
        float2 v[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            v[k] = *reinterpret_cast<const float2 *>(src + (size_t)(k * BDIMY + ty) * nx + 2 * tx);
#pragma unroll
        for (int k = 0; k < K; k++)
            *reinterpret_cast<float2 *>(&tile[(k * BDIMY + ty) * W + 2 * tx]) = v[k];
    } else {
        constexpr int G = K * BDIMY / 32; /* 32 rows a load: 16 float4 a row */
        unsigned bidx = ty * BDIMX + tx, r = bidx / 16, c = bidx % 16, hi = c >= 8;
        float4 v[G];
#pragma unroll
        for (int g = 0; g < G; g++)
            v[g] = *reinterpret_cast<const float4 *>(src + (size_t)(32 * g + r) * nx + 4 * c);
#pragma unroll
        for (int g = 0; g < G; g++) {
            float2 *t = reinterpret_cast<float2 *>(&tile[(32 * g + r) * W + 4 * c]);
            float2 lo = make_float2(v[g].x, v[g].y), up = make_float2(v[g].z, v[g].w);
            t[hi] = hi ? up : lo; /* 8-byte stores: a half-warp one tile row */
            t[!hi] = hi ? lo : up;
        }
    }
}

template <int K, int VO>
__device__ __forceinline__ void tile_store_full(const float *tile, float *out, int ny)
{
    const unsigned W = 2 * BDIMX + IPAD, bidx = threadIdx.y * BDIMX + threadIdx.x;
    float *dst = out + (size_t)2 * blockIdx.x * BDIMX * ny + blockIdx.y * K * BDIMY;
    if constexpr (VO == 1) {
        unsigned irow = bidx / BDIMY, icol = bidx % BDIMY;
#pragma unroll
        for (int k = 0; k < K; k++) {
            dst[(size_t)irow * ny + k * BDIMY + icol] = tile[(k * BDIMY + icol) * W + irow];
            dst[(size_t)(irow + BDIMX) * ny + k * BDIMY + icol] =
                tile[(k * BDIMY + icol) * W + irow + BDIMX];
        }
    } else if constexpr (VO == 2) {
        unsigned p = bidx % 8, r = bidx / 8; /* r: out's row, 0 .. 2 BDIMX - 1 */
#pragma unroll
        for (int k = 0; k < K; k++) {
            const float *t = &tile[(k * BDIMY + 2 * p) * W + r];
            *reinterpret_cast<float2 *>(dst + (size_t)r * ny + k * BDIMY + 2 * p) =
                make_float2(t[0], t[W]);
        }
    } else {
        unsigned q = bidx % 4, r = (bidx / 4) % 64, h = bidx / 256; /* h: which BDIMY rows */
#pragma unroll
        for (int g = 0; g < K / 2; g++) {
            unsigned row = (2 * g + h) * BDIMY + 4 * q;
            const float *t = &tile[row * W + r];
            *reinterpret_cast<float4 *>(dst + (size_t)r * ny + row) =
                make_float4(t[0], t[W], t[2 * W], t[3 * W]);
        }
    }
}

/* A border block: each element on its own, guarded, as step 5 moves it, K times. */
template <int K>
__device__ __forceinline__ void tile_load_guarded(float *tile, const float *in, int nx, int ny)
{
    const unsigned W = 2 * BDIMX + IPAD;
    unsigned ix = 2 * blockIdx.x * BDIMX + threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++) {
        unsigned iy = (blockIdx.y * K + k) * BDIMY + threadIdx.y;
        unsigned row = (k * BDIMY + threadIdx.y) * W + threadIdx.x;
        if (iy < (unsigned)ny) {
            if (ix < (unsigned)nx)
                tile[row] = in[(size_t)iy * nx + ix];
            if (ix + BDIMX < (unsigned)nx)
                tile[row + BDIMX] = in[(size_t)iy * nx + ix + BDIMX];
        }
    }
}

template <int K>
__device__ __forceinline__ void tile_store_guarded(const float *tile, float *out, int nx, int ny)
{
    const unsigned W = 2 * BDIMX + IPAD;
    unsigned bidx = threadIdx.y * BDIMX + threadIdx.x;
    unsigned irow = bidx / BDIMY, icol = bidx % BDIMY, oy = 2 * blockIdx.x * BDIMX + irow;
#pragma unroll
    for (int k = 0; k < K; k++) {
        unsigned ox = (blockIdx.y * K + k) * BDIMY + icol, col = (k * BDIMY + icol) * W + irow;
        if (ox < (unsigned)ny) {
            if (oy < (unsigned)nx)
                out[(size_t)oy * ny + ox] = tile[col];
            if (oy + BDIMX < (unsigned)nx)
                out[(size_t)(oy + BDIMX) * ny + ox] = tile[col + BDIMX];
        }
    }
}

template <int K, int V, int VO>
__device__ __forceinline__ void transpose_stacked(float *tile, const float *in, float *out,
                                                  int nx, int ny, bool vec)
{
    bool full = vec && (2 * blockIdx.x + 2) * BDIMX <= (unsigned)nx &&
                (blockIdx.y + 1) * K * BDIMY <= (unsigned)ny; /* the same for the whole block */
    if (full)
        tile_load_full<K, V>(tile, in, nx);
    else
        tile_load_guarded<K>(tile, in, nx, ny);
    __syncthreads();
    if (full)
        tile_store_full<K, VO>(tile, out, ny);
    else
        tile_store_guarded<K>(tile, out, nx, ny);
}

__global__ void transposeSmemUnrollPad(const float *in, float *out, int nx, int ny, bool vec)
{
    __shared__ __align__(16) float tile[8 * BDIMY * (2 * BDIMX + IPAD)];
    transpose_stacked<8, 2, 2>(tile, in, out, nx, ny, vec);
}

SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
    /* whole float4 rows on both sides: in and out 16-byte aligned, both widths multiples of 4 */
    bool vec = ((size_t)in & 15) == 0 && ((size_t)out & 15) == 0 && nx % 4 == 0 && ny % 4 == 0;
    dim3 grid((nx + 2 * BDIMX - 1) / (2 * BDIMX), (ny + 8 * BDIMY - 1) / (8 * BDIMY));
    transposeSmemUnrollPad<<<grid, dim3(BDIMX, BDIMY)>>>(in, out, nx, ny, vec);
}

/* The same with the tile sized at launch: extern __shared__, its bytes the launch's
   third argument. */
__global__ void transposeSmemUnrollPadDyn(const float *in, float *out, int nx, int ny)
{
    extern __shared__ float dtile[];
    transpose_unrolled(dtile, in, out, nx, ny);
}

SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPadDyn(const float *in, float *out, int nx,
                                                       int ny)
{
    transposeSmemUnrollPadDyn<<<grid_for(nx, ny, 2 * BDIMX), dim3(BDIMX, BDIMY),
                                BDIMY * (2 * BDIMX + IPAD) * sizeof(float)>>>(in, out, nx, ny);
}
