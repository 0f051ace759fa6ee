/*
 * lab9.cu - Lab 9: transposing a matrix through shared memory.
 *
 * in holds ny rows of nx floats (row-major); a transpose writes out as nx rows
 * of ny floats, out[x * ny + y] = in[y * nx + x]. A warp's global load or store
 * is served a 32-byte sector at a time: 32 lanes reading 32 neighbouring floats
 * take 4 sectors, 32 lanes walking a column take 32. A transpose reads rows and
 * writes columns (or the other way round): only a shared tile makes both sides
 * coalesced. The grader counts the sectors of every global load and store.
 *
 * Contract (the grader relies on it; keep every name and signature):
 *   SMEMLAB_LAUNCHER void launch_copyRow(const float *in, float *out, int nx, int ny);    step 1
 *   SMEMLAB_LAUNCHER void launch_naiveRow(const float *in, float *out, int nx, int ny);   step 2
 *   SMEMLAB_LAUNCHER void launch_naiveCol(const float *in, float *out, int nx, int ny);   step 2
 *   SMEMLAB_LAUNCHER void launch_transposeSmem(const float *in, float *out, int nx, int ny); 3
 *   SMEMLAB_LAUNCHER void launch_transposeSmemPad(const float *in, float *out, int nx,
 *                                                 int ny);                              step 4
 *   SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPad(const float *in, float *out, int nx,
 *                                                       int ny);                        step 5
 *   SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPadDyn(const float *in, float *out,
 *                                                          int nx, int ny);             step 5
 *   - copyRow copies: out[y * nx + x] = in[y * nx + x]. Every other kernel
 *     transposes.
 *   - Blocks of BDIMX x BDIMY = 32 x 16 threads, one kernel a launcher; the
 *     matrix may have any size from 1 x 1 up (no multiple of anything): guard
 *     every load and store.
 *   - A launcher only launches, on the default stream: no cudaMalloc, no
 *     cudaMemcpy, no cudaDeviceSynchronize, no error checks.
 *
 *   Parameters (exported with SMEMLAB_PARAM; the contract fixes them):
 *     BDIMX = 32, BDIMY = 16 (the block), IPAD = 2 (words a tile row is padded by).
 *
 * Checks: correct (every matrix: one element, one row, one column,
 * non-multiples), load-coalescing and store-coalescing (sectors a request
 * against the ideal; step 2's strided side must be the strided one, and the
 * report draws what it costs), smem-conflicts (steps 3-5: the tile's bank
 * conflicts), race, dynamic-tile, speed (steps 4 and 5 against a copy of the
 * same 8192 x 8192 matrix; GPU only). Course: docs/lab9.md.
 *
 * Predict first: the conflict degree of the tile's shared loads (1 = none) in
 * the lines below; the grader says which were right (no points either way;
 * ? is skipped).
 *
 * Build and grade:   make lab9 && make grade
 */
#include "smemlab.h"

// PREDICT transposeSmem load ?
// PREDICT transposeSmemPad load ?

#define BDIMX 32
#define BDIMY 16
#define IPAD 2
SMEMLAB_PARAM(BDIMX, BDIMX);
SMEMLAB_PARAM(BDIMY, BDIMY);
SMEMLAB_PARAM(IPAD, IPAD);

/* Blocks covering w x h elements, cols elements of a block along x. */
static dim3 grid_for(int w, int h, int cols)
{
    return dim3((w + cols - 1) / cols, (h + BDIMY - 1) / BDIMY);
}

/* ---------------------------------------------------------------- step 1 */

/*
 * TODO(student): the roof: a row read, a row written, both coalesced (lane x of
 * a warp touches element x of a row segment). Every kernel below is measured
 * against what this one does.
 *     unsigned ix = blockIdx.x * BDIMX + threadIdx.x, iy = blockIdx.y * BDIMY + threadIdx.y;
 *     if (ix < nx && iy < ny) out[iy * nx + ix] = in[iy * nx + ix];
 * (size_t for the index: an 8192 x 8192 matrix has 2^26 elements, a large one more).
 */
__global__ void copyRow(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_copyRow(const float *in, float *out, int nx, int ny)
{
    copyRow<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 2 */

/*
 * TODO(student): the transpose straight through global memory, by rows: thread
 * (ix, iy) as in copyRow reads in[iy * nx + ix] (a row: coalesced) and writes it
 * to out[ix * ny + iy] (a column of out: ny floats between lanes). Right; the
 * report shows what the strided side costs in sectors.
 */
__global__ void naiveRow(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_naiveRow(const float *in, float *out, int nx, int ny)
{
    naiveRow<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/*
 * TODO(student): the same by columns: threads run along out's rows, ox =
 * blockIdx.x * BDIMX + threadIdx.x (0 .. ny), oy = blockIdx.y * BDIMY +
 * threadIdx.y (0 .. nx); out[oy * ny + ox] (a row: coalesced) = in[ox * nx + oy]
 * (a column of in).
 */
__global__ void naiveCol(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_naiveCol(const float *in, float *out, int nx, int ny)
{
    naiveCol<<<grid_for(ny, nx, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 3 */

/*
 * TODO(student): both sides coalesced through a shared tile.
 *  1. __shared__ float tile[BDIMY][BDIMX]; thread (tx, ty) reads its element
 *     in[iy * nx + ix] by rows (as copyRow) into tile[ty][tx], if it exists.
 *  2. __syncthreads(), for every thread of the block (none may skip it).
 *  3. The block writes its piece of out (BDIMX rows of BDIMY) by rows: thread
 *     bidx = ty * BDIMX + tx takes out's row irow = bidx / BDIMY and column
 *     icol = bidx % BDIMY within the piece, at ox = blockIdx.y * BDIMY + icol,
 *     oy = blockIdx.x * BDIMX + irow, and writes out[oy * ny + ox] =
 *     tile[icol][irow] where it exists.
 * Which banks do a warp's 32 reads of the tile fall in?
 */
__global__ void transposeSmem(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_transposeSmem(const float *in, float *out, int nx, int ny)
{
    transposeSmem<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 4 */

/*
 * TODO(student): step 3 with each tile row padded by IPAD words:
 * tile[BDIMY][BDIMX + IPAD]. Work out the bank of tile[icol][irow] for a warp's
 * lanes with 32 words a row, 33 and 34 (docs/lab9.md#pad).
 */
__global__ void transposeSmemPad(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_transposeSmemPad(const float *in, float *out, int nx, int ny)
{
    transposeSmemPad<<<grid_for(nx, ny, BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/* ---------------------------------------------------------------- step 5 */

/*
 * TODO(student): two elements a thread, half the blocks (the launcher below
 * already launches them). A block covers BDIMY rows of 2 * BDIMX columns; the
 * tile is BDIMY rows of 2 * BDIMX + IPAD words.
 *   ix = 2 * blockIdx.x * BDIMX + tx: thread reads in[iy * nx + ix] and, BDIMX
 *   further along the row, in[iy * nx + ix + BDIMX], into the tile's row ty at
 *   columns tx and tx + BDIMX. Guard each on its own: the second may lie past nx
 *   where the first does not.
 *   After the barrier it writes out[oy * ny + ox] = tile[icol][irow] and, BDIMX
 *   rows further down out, out[(oy + BDIMX) * ny + ox] = tile[icol][irow + BDIMX]
 *   (oy = 2 * blockIdx.x * BDIMX + irow), each where it exists.
 */
__global__ void transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
    transposeSmemUnrollPad<<<grid_for(nx, ny, 2 * BDIMX), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
}

/*
 * TODO(student): step 5 with a dynamic tile: extern __shared__ float tile[];
 * (no size: the launch gives it). Everything else as in step 5 (a __device__
 * function both kernels call keeps it in one place).
 */
__global__ void transposeSmemUnrollPadDyn(const float *in, float *out, int nx, int ny)
{
}

SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPadDyn(const float *in, float *out, int nx,
                                                       int ny)
{
    /* TODO(student): launch transposeSmemUnrollPadDyn as step 5's launcher does, with
     * the tile's size in bytes as the third launch argument: <<<grid, block, bytes>>>. */
}
