/*
 * ATTACK VARIANT: lab9-dyn-short
 * transposeSmemUnrollPadDyn's launch gives its dynamic tile half the bytes it
 * uses (STACK 4 tiles of 66-word rows read and written, 2 given): the upper tiles lie
 * past the allocation. Expected: correct fails (a shared access out of bounds) or
 * dynamic-tile fails (too few bytes given).
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
 * Two elements a thread: the second is BDIMX further along the row (its own
 * coalesced segment) and its transpose BDIMX rows further down out. And STACK
 * padded tiles of BDIMY x 2 * BDIMX stacked a block (64 rows of 66 words): a thread
 * issues its eight loads before the barrier, 32 bytes in flight where one tile
 * gives 8 (an H200's HBM3e wants about 25 KB in flight an SM; one tile a block
 * keeps 16 KB there, 73 % of a device-to-device copy, four 96 %).
 * A block wholly inside the matrix moves its elements unguarded. A border block
 * guards each element on its own: a matrix whose width is no multiple of
 * 2 * BDIMX leaves the second element of the last blocks' threads outside, not
 * the first.
 */
#define STACK 4 /* tiles a block: rows of the matrix a block covers, in BDIMY */

__device__ void transpose_unrolled(float *tile, const float *in, float *out, int nx, int ny)
{
    const unsigned W = 2 * BDIMX + IPAD; /* words a tile row */
    unsigned ix = 2 * blockIdx.x * BDIMX + threadIdx.x;
    unsigned iy = blockIdx.y * STACK * BDIMY + threadIdx.y;
    unsigned row = threadIdx.y * W + threadIdx.x;
    bool inside = (2 * blockIdx.x + 2) * BDIMX <= (unsigned)nx && /* the same for the block */
                  (blockIdx.y + 1) * STACK * BDIMY <= (unsigned)ny;
    if (inside) {
        float v[STACK][2];
#pragma unroll
        for (int k = 0; k < STACK; k++) { /* every load issued before the first store */
            v[k][0] = in[(size_t)(iy + k * BDIMY) * nx + ix];
            v[k][1] = in[(size_t)(iy + k * BDIMY) * nx + ix + BDIMX];
        }
#pragma unroll
        for (int k = 0; k < STACK; k++) {
            tile[row + k * BDIMY * W] = v[k][0];
            tile[row + k * BDIMY * W + BDIMX] = v[k][1];
        }
    } else {
#pragma unroll
        for (int k = 0; k < STACK; k++, iy += BDIMY, row += BDIMY * W) {
            if (iy < (unsigned)ny) {
                if (ix < (unsigned)nx)
                    tile[row] = in[(size_t)iy * nx + ix];
                if (ix + BDIMX < (unsigned)nx)
                    tile[row + BDIMX] = in[(size_t)iy * nx + ix + BDIMX];
            }
        }
    }
    __syncthreads();
    unsigned bidx = threadIdx.y * BDIMX + threadIdx.x;
    unsigned irow = bidx / BDIMY, icol = bidx % BDIMY;
    unsigned ox = blockIdx.y * STACK * BDIMY + icol, oy = 2 * blockIdx.x * BDIMX + irow;
    unsigned col = icol * W + irow;
    if (inside) {
#pragma unroll
        for (int k = 0; k < STACK; k++) {
            out[(size_t)oy * ny + ox + k * BDIMY] = tile[col + k * BDIMY * W];
            out[(size_t)(oy + BDIMX) * ny + ox + k * BDIMY] = tile[col + k * BDIMY * W + BDIMX];
        }
    } else {
#pragma unroll
        for (int k = 0; k < STACK; k++, ox += BDIMY, col += BDIMY * W) {
            if (ox < (unsigned)ny) {
                if (oy < (unsigned)nx)
                    out[(size_t)oy * ny + ox] = tile[col];
                if (oy + BDIMX < (unsigned)nx)
                    out[(size_t)(oy + BDIMX) * ny + ox] = tile[col + BDIMX];
            }
        }
    }
}

__global__ void transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
    __shared__ float tile[STACK * BDIMY * (2 * BDIMX + IPAD)];
    transpose_unrolled(tile, in, out, nx, ny);
}

/* Blocks covering nx x ny, 2 * BDIMX columns and STACK * BDIMY rows a block. */
static dim3 grid_unrolled(int nx, int ny)
{
    return dim3((nx + 2 * BDIMX - 1) / (2 * BDIMX), (ny + STACK * BDIMY - 1) / (STACK * BDIMY));
}

SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
    transposeSmemUnrollPad<<<grid_unrolled(nx, ny), dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
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
    transposeSmemUnrollPadDyn<<<grid_unrolled(nx, ny), dim3(BDIMX, BDIMY),
                                STACK / 2 * BDIMY * (2 * BDIMX + IPAD) * sizeof(float)>>>(in, out, nx,
                                                                                      ny);
}
