/*
 * CANDIDATE (issue 41, item 2): solutions/lab9-transpose/lab9.cu with step 5's
 * transposeSmemUnrollPad covering two tiles stacked a block (2 BDIMY rows of
 * 2 BDIMX): four loads a thread issued before the barrier, where the solution's
 * two leave an H200's HBM3e idle (71.9 % of a copy there, 81.8 % on an H100: two
 * floats a thread are 16 KB in flight an SM at full occupancy; its latency wants
 * about twice that). Every other kernel is the solution's. make bench
 * BENCH_CANDIDATES=1 times it beside the solution (rows lab9-tall:...); to adopt
 * it, copy its step 5 into the solution (solutions/candidates/README.md).
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
 * Two tiles a block, one above the other (rows iy and iy + BDIMY of in): each thread's
 * four loads are issued before the barrier, then its four stores, each tile as step 5
 * moves it (the same padded rows, the same column reads).
 */
__global__ void transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
    const unsigned W = 2 * BDIMX + IPAD, T = BDIMY * W; /* words a tile row, a tile */
    __shared__ float tile[2 * BDIMY * (2 * BDIMX + IPAD)];
    unsigned ix = 2 * blockIdx.x * BDIMX + threadIdx.x;
    unsigned iy = 2 * blockIdx.y * BDIMY + threadIdx.y;
    unsigned row = threadIdx.y * W + threadIdx.x;
#pragma unroll
    for (unsigned k = 0; k < 2; k++) {
        unsigned y = iy + k * BDIMY;
        if (y < (unsigned)ny) {
            if (ix < (unsigned)nx)
                tile[k * T + row] = in[(size_t)y * nx + ix];
            if (ix + BDIMX < (unsigned)nx)
                tile[k * T + row + BDIMX] = in[(size_t)y * nx + ix + BDIMX];
        }
    }
    __syncthreads();
    unsigned bidx = threadIdx.y * BDIMX + threadIdx.x;
    unsigned irow = bidx / BDIMY, icol = bidx % BDIMY;
    unsigned oy = 2 * blockIdx.x * BDIMX + irow, col = icol * W + irow;
#pragma unroll
    for (unsigned k = 0; k < 2; k++) {
        unsigned ox = 2 * blockIdx.y * BDIMY + k * BDIMY + icol;
        if (ox < (unsigned)ny) {
            if (oy < (unsigned)nx)
                out[(size_t)oy * ny + ox] = tile[k * T + col];
            if (oy + BDIMX < (unsigned)nx)
                out[(size_t)(oy + BDIMX) * ny + ox] = tile[k * T + col + BDIMX];
        }
    }
}

SMEMLAB_LAUNCHER void launch_transposeSmemUnrollPad(const float *in, float *out, int nx, int ny)
{
    dim3 grid((nx + 2 * BDIMX - 1) / (2 * BDIMX), (ny + 2 * BDIMY - 1) / (2 * BDIMY));
    transposeSmemUnrollPad<<<grid, dim3(BDIMX, BDIMY)>>>(in, out, nx, ny);
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
