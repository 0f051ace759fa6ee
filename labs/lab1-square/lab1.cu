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
 *   allocation, no error check (the grader does those). In this lab they are
 *   written for you; your work is the three kernel bodies.
 *
 * Build and grade:  make lab1 && make grade
 *
 * Predict first (docs/lab1.md#exercise): for each kernel, write the conflict
 * degree you expect for its store and its load in the lines below (1 =
 * conflict-free, 32 = 32-way), replacing the ? marks. The grader compares
 * every number you write with what it measures and tells you which were
 * right; predictions earn and cost no points, and a ? is skipped.
 */
#include "smemlab.h"

// PREDICT setRowReadRow store ? load ?
// PREDICT setColReadCol store ? load ?
// PREDICT setRowReadCol store ? load ?

#define BDIMX 32
#define BDIMY 32

/*
 * Two facts to keep in mind for the whole lab:
 *   - A warp is 32 consecutive threads of the block. Here blockDim.x is 32,
 *     so a warp is one row of the block: same ty, tx = 0..31.
 *   - Shared memory has 32 banks of 4 bytes: int word w of a tile is in bank
 *     w % 32. Lanes of one warp that hit different words of the same bank
 *     are served one after the other (a bank conflict).
 */

__global__ void setRowReadRow(int *out)
{
    /* TODO(student):
     *   1. Declare the static tile  __shared__ int tile[BDIMY][BDIMX];
     *   2. Compute idx (see the header).
     *   3. Store idx in tile[threadIdx.y][threadIdx.x].
     *   4. __syncthreads(): wait until the whole block has stored.
     *   5. Load the same element back into out[idx].
     * Bank check: which word, and so which bank, does lane tx touch? */
}

__global__ void setColReadCol(int *out)
{
    /* TODO(student):
     * Same three steps, but column-major: store into tile[threadIdx.x][threadIdx.y]
     * and load from the same element. Declare the tile as [BDIMX][BDIMY] (for a
     * square block the two are equal, but the order says which index runs
     * along a row).
     * Bank check: work out the word, then the bank, of tile[tx][ty] for lanes
     * tx = 0, 1, 2 of one warp. What conflict degree do you predict? Write it
     * in the PREDICT line above. */
}

__global__ void setRowReadCol(int *out)
{
    /* TODO(student):
     * Store row-major as in setRowReadRow, then read column-major:
     * out[idx] = tile[threadIdx.x][threadIdx.y]. The result is the transpose
     * of the ids (see the header).
     * This thread now reads a word that another warp wrote: think about what
     * __syncthreads() guarantees here, and what happens without it.
     * Predict the conflict degree of the store and of the load separately. */
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
