/*
 * PLANTED DEFECT: tests/planted/lab4-transpose-as-square.cu
 * A copy of solutions/lab4-rectangle/lab4.cu with exactly one defect:
 *   setRowReadCol reads tile[threadIdx.x][threadIdx.y] as in the square
 *   lab. With the [BDIMY][BDIMX] = [16][32] tile, threads with tx >= 16
 *   read past the end of the tile (and the others read wrong elements).
 *   On an H100 the out-of-range shared load faults ("an illegal memory
 *   access was encountered"), so the kernel reports a CUDA error rather
 *   than wrong values.
 * The grader must report:
 *   setRowReadCol correct FAIL: "cuda error"
 * The failing kernel's other checks cannot be measured once it faults
 * or hangs; every check of the other kernels must pass.
 */

/*
 * lab4.cu - Lab 4: a rectangular shared-memory tile.
 *
 * Contract (the grader relies on it; keep every name, signature and size):
 *
 *   BDIMX 32, BDIMY 16: one block of BDIMX x BDIMY threads, grid dim3(1).
 *   IPAD: pad columns per tile row in the Pad kernels; yours to choose, but
 *   the grader expects both Pad kernels to be free of bank conflicts. It is
 *   exported as smemlab_param_IPAD for the grader's report.
 *   out: BDIMX * BDIMY ints, allocated by the grader.
 *   (below: tx, ty = threadIdx.x, threadIdx.y)
 *     idx  = ty * blockDim.x + tx
 *     irow = idx / blockDim.y,  icol = idx % blockDim.y
 *       (the transposed coordinates: element [icol][irow] holds id
 *        icol * BDIMX + irow)
 *   Each kernel makes one shared store and one shared load per thread, with a
 *   __syncthreads() between them; the grader counts those requests and their
 *   bank conflicts.
 *
 *   __global__ void setRowReadRow(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadRow(int *out)
 *       tile:  __shared__ int tile[BDIMY][BDIMX]
 *       store: tile[ty][tx] = idx      load: out[idx] = tile[ty][tx]
 *       out[idx] == idx
 *
 *   __global__ void setColReadCol(int *out)
 *   SMEMLAB_LAUNCHER void launch_setColReadCol(int *out)
 *       tile:  __shared__ int tile[BDIMX][BDIMY]
 *       store: tile[tx][ty] = idx      load: out[idx] = tile[tx][ty]
 *       out[idx] == idx
 *
 *   __global__ void setRowReadCol(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadCol(int *out)
 *       tile:  __shared__ int tile[BDIMY][BDIMX]
 *       store: tile[ty][tx] = idx      load: out[idx] = tile[icol][irow]
 *       out[idx] == icol * BDIMX + irow
 *
 *   __global__ void setRowReadColDyn(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadColDyn(int *out)
 *       tile:  extern __shared__ int tile[];
 *              launched with BDIMX * BDIMY * sizeof(int) bytes
 *       col_idx = icol * blockDim.x + irow
 *       store: tile[idx] = idx         load: out[idx] = tile[col_idx]
 *       out[idx] == icol * BDIMX + irow
 *
 *   __global__ void setRowReadColPad(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadColPad(int *out)
 *       tile:  __shared__ int tile[BDIMY][BDIMX + IPAD]
 *       store: tile[ty][tx] = idx      load: out[idx] = tile[icol][irow]
 *       out[idx] == icol * BDIMX + irow
 *
 *   __global__ void setRowReadColDynPad(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadColDynPad(int *out)
 *       tile:  extern __shared__ int tile[];
 *              launched with (BDIMX + IPAD) * BDIMY * sizeof(int) bytes
 *       row_idx = ty * (blockDim.x + IPAD) + tx
 *       col_idx = icol * (blockDim.x + IPAD) + irow
 *       store: tile[row_idx] = idx     load: out[idx] = tile[col_idx]
 *       out[idx] == icol * BDIMX + irow
 *
 *   Launchers only launch: <<<dim3(1), dim3(BDIMX, BDIMY)[, bytes]>>>, no
 *   sync, no allocation, no error check (the grader does those).
 *
 * Build and grade:  make lab4 && make grade
 */
#include "smemlab.h"

#define BDIMX 32
#define BDIMY 16

/*
 * Two pad columns, not one. A warp covers idx = 32w .. 32w+31, so its lanes
 * read tile[icol][irow] with icol = 0..15 twice over and irow = 2w (lanes
 * 0-15) or 2w+1 (lanes 16-31). With 4-byte banks, word icol*(32+IPAD) + irow
 * is in bank (icol*IPAD + irow) % 32:
 *   IPAD 0: banks 2w and 2w+1 only                   -> 16-way conflict
 *   IPAD 1: banks 2w..2w+15 and 2w+1..2w+16 overlap  -> 2-way conflict
 *   IPAD 2: even banks for one half, odd for the other -> conflict-free
 */
#define IPAD 2

SMEMLAB_PARAM(IPAD, IPAD);

__global__ void setRowReadRow(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    /* A warp is one 32-wide row of the block and of the tile: banks 0..31. */
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.y][threadIdx.x];
}

__global__ void setColReadCol(int *out)
{
    /* The tile is declared the other way round so that tile[tx][ty] stays in
       bounds: its rows are only BDIMY = 16 ints long. */
    __shared__ int tile[BDIMX][BDIMY];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    /* Word tx*16 + ty: the 32 lanes share banks ty and ty+16, 16 words each,
       so store and load both conflict 16-way. */
    tile[threadIdx.x][threadIdx.y] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

__global__ void setRowReadCol(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();

    /* PLANTED: the square-tile transpose; tx (up to 31) indexes 16 rows. */
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

__global__ void setRowReadColDyn(int *out)
{
    extern __shared__ int tile[];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int irow = idx / blockDim.y;
    unsigned int icol = idx % blockDim.y;

    /* The flattened form of tile[icol][irow] for a row pitch of BDIMX. */
    unsigned int col_idx = icol * blockDim.x + irow;

    tile[idx] = idx;
    __syncthreads();
    out[idx] = tile[col_idx];
}

__global__ void setRowReadColPad(int *out)
{
    __shared__ int tile[BDIMY][BDIMX + IPAD];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int irow = idx / blockDim.y;
    unsigned int icol = idx % blockDim.y;

    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();

    /* Padded pitch: see the note at IPAD for the bank of each lane. */
    out[idx] = tile[icol][irow];
}

__global__ void setRowReadColDynPad(int *out)
{
    extern __shared__ int tile[];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int irow = idx / blockDim.y;
    unsigned int icol = idx % blockDim.y;

    /* Both shared indices use the padded pitch; out keeps the plain one. */
    unsigned int row_idx = threadIdx.y * (blockDim.x + IPAD) + threadIdx.x;
    unsigned int col_idx = icol * (blockDim.x + IPAD) + irow;

    tile[row_idx] = idx;
    __syncthreads();
    out[idx] = tile[col_idx];
}

SMEMLAB_LAUNCHER void launch_setRowReadRow(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setRowReadRow<<<grid, block>>>(out);
}

SMEMLAB_LAUNCHER void launch_setColReadCol(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setColReadCol<<<grid, block>>>(out);
}

SMEMLAB_LAUNCHER void launch_setRowReadCol(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setRowReadCol<<<grid, block>>>(out);
}

SMEMLAB_LAUNCHER void launch_setRowReadColDyn(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setRowReadColDyn<<<grid, block, BDIMX * BDIMY * sizeof(int)>>>(out);
}

SMEMLAB_LAUNCHER void launch_setRowReadColPad(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setRowReadColPad<<<grid, block>>>(out);
}

SMEMLAB_LAUNCHER void launch_setRowReadColDynPad(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    /* Padded rows: BDIMX + IPAD ints each. */
    setRowReadColDynPad<<<grid, block, (BDIMX + IPAD) * BDIMY * sizeof(int)>>>(out);
}
