/*
 * PLANTED DEFECT: tests/planted/lab1-illegal-address.cu
 * A copy of solutions/lab1-square/lab1.cu with exactly one defect:
 *   setRowReadCol stores through a wild pointer, out[idx + (1u << 28)],
 *   1 GiB past the buffer, where nothing is mapped: the kernel faults
 *   (an illegal memory access).
 * The grader must report:
 *   setRowReadCol correct FAIL: "cuda error"
 *   setRowReadRow and setColReadCol still pass every check.
 * The failing kernel's other checks cannot be measured once it faults
 * or hangs; every check of the other kernels must pass.
 */

/*
 * lab1.cu - Lab 1: a square shared-memory tile, row-major and column-major.
 *
 * Contract (the grader relies on it; keep every name, signature and size):
 *
 *   BDIMX 32, BDIMY 32: one block of BDIMX x BDIMY threads, grid dim3(1).
 *   out: BDIMX * BDIMY ints, allocated by the grader.
 *   idx = threadIdx.y * blockDim.x + threadIdx.x   (below: tx, ty = threadIdx.x, .y)
 *   Each kernel makes one shared store and one shared load per thread, with a
 *   __syncthreads() between them; the grader counts those requests and their
 *   bank conflicts.
 *
 *   __global__ void setRowReadRow(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadRow(int *out)
 *       tile:  __shared__ int tile[BDIMY][BDIMX]
 *       store: tile[ty][tx] = idx     load: out[idx] = tile[ty][tx]
 *       out[idx] == idx
 *
 *   __global__ void setColReadCol(int *out)
 *   SMEMLAB_LAUNCHER void launch_setColReadCol(int *out)
 *       tile:  __shared__ int tile[BDIMX][BDIMY]
 *       store: tile[tx][ty] = idx     load: out[idx] = tile[tx][ty]
 *       out[idx] == idx
 *
 *   __global__ void setRowReadCol(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadCol(int *out)
 *       tile:  __shared__ int tile[BDIMY][BDIMX]
 *       store: tile[ty][tx] = idx     load: out[idx] = tile[tx][ty]
 *       out[idx] == tx * BDIMX + ty   (the block's ids, transposed)
 *
 *   Launchers only launch: <<<dim3(1), dim3(BDIMX, BDIMY)>>>, no sync, no
 *   allocation, no error check (the grader does those).
 *
 * Build and grade:  make lab1 && make grade
 */
#include "smemlab.h"

#define BDIMX 32
#define BDIMY 32

/*
 * A warp is one row of the block: 32 threads with the same ty and tx = 0..31.
 * With 32 banks of 4 bytes, int word w lives in bank w % 32.
 */

__global__ void setRowReadRow(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    /* Word ty*32 + tx: the warp's lanes fall in banks 0..31, one each. */
    tile[threadIdx.y][threadIdx.x] = idx;

    /* The load below reads only this thread's own word, but the exercise is
       the store/sync/load pattern every later kernel needs. */
    __syncthreads();

    out[idx] = tile[threadIdx.y][threadIdx.x];
}

__global__ void setColReadCol(int *out)
{
    __shared__ int tile[BDIMX][BDIMY];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    /* Word tx*32 + ty: every lane of the warp lands in bank ty, 32 different
       words in one bank, so the store is replayed 32 times. */
    tile[threadIdx.x][threadIdx.y] = idx;

    __syncthreads();

    /* Same addresses, same 32-way conflict on the load. */
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

__global__ void setRowReadCol(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    /* Row-major store: conflict-free. */
    tile[threadIdx.y][threadIdx.x] = idx;

    /* Each thread now reads a word another warp wrote: the barrier is what
       makes that safe. */
    __syncthreads();

    /* PLANTED: a wild pointer, 1 GiB past the start of out. */
    out[idx + (1u << 28)] = tile[threadIdx.x][threadIdx.y];
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
