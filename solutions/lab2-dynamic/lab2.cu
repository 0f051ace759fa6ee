/*
 * lab2.cu - Lab 2: dynamic shared memory.
 *
 * Contract (the grader relies on it; keep every name, signature and size):
 *
 *   BDIMX 32, BDIMY 32: one block of BDIMX x BDIMY threads, grid dim3(1).
 *   out: BDIMX * BDIMY ints, allocated by the grader.
 *   The tile is dynamic:  extern __shared__ int tile[];  indexed in 1-D.
 *   Its size in bytes is the third launch argument, written in the launcher.
 *   (below: tx, ty = threadIdx.x, threadIdx.y)
 *     row_idx = ty * blockDim.x + tx      (row-major position, also the
 *                                          thread's global index)
 *     col_idx = tx * blockDim.x + ty      (column-major position [tx][ty]; rows
 *                                          are blockDim.x ints long)
 *   Each kernel makes one shared store and one shared load per thread, with a
 *   __syncthreads() between them.
 *
 *   __global__ void setRowReadColDyn(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadColDyn(int *out)
 *       store: tile[row_idx] = row_idx     load: out[row_idx] = tile[col_idx]
 *       out[row_idx] == tx * BDIMX + ty
 *
 *   __global__ void setColReadColDyn(int *out)       (optional exercise)
 *   SMEMLAB_LAUNCHER void launch_setColReadColDyn(int *out)
 *       store: tile[col_idx] = row_idx     load: out[row_idx] = tile[col_idx]
 *       out[row_idx] == row_idx
 *
 *   Launchers only launch: <<<dim3(1), dim3(BDIMX, BDIMY), bytes>>>, no sync,
 *   no allocation, no error check (the grader does those).
 *
 * Build and grade:  make lab2 && make grade
 */
#include "smemlab.h"

#define BDIMX 32
#define BDIMY 32

/* Bytes of dynamic shared memory both kernels need: one int per thread. */
#define TILE_BYTES (BDIMX * BDIMY * sizeof(int))

__global__ void setRowReadColDyn(int *out)
{
    /* Unsized: the array is as large as the launch says, and only 1-D, so the
       2-D position has to be flattened by hand. */
    extern __shared__ int tile[];

    unsigned int row_idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int col_idx = threadIdx.x * blockDim.x + threadIdx.y;

    /* Consecutive lanes, consecutive words: banks 0..31, no conflict. */
    tile[row_idx] = row_idx;

    __syncthreads();

    /* Lanes are blockDim.y = 32 words apart, all in one bank: 32-way
       conflict, exactly as with the static tile[tx][ty] of lab 1. */
    out[row_idx] = tile[col_idx];
}

__global__ void setColReadColDyn(int *out)
{
    extern __shared__ int tile[];

    unsigned int row_idx = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int col_idx = threadIdx.x * blockDim.x + threadIdx.y;

    /* Column-major both ways: each thread reads back its own word, so the
       output is the identity, but store and load both conflict 32-way. */
    tile[col_idx] = row_idx;

    __syncthreads();

    out[row_idx] = tile[col_idx];
}

SMEMLAB_LAUNCHER void launch_setRowReadColDyn(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    /* Without the third argument the block gets no dynamic shared memory and
       every access to tile[] is out of bounds. */
    setRowReadColDyn<<<grid, block, TILE_BYTES>>>(out);
}

SMEMLAB_LAUNCHER void launch_setColReadColDyn(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setColReadColDyn<<<grid, block, TILE_BYTES>>>(out);
}
