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
 *     row_idx = ty * blockDim.x + tx      (row-major position [ty][tx], also
 *                                          the thread's global index)
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
 *   no allocation, no error check (the grader does those). In this lab you
 *   write the launch too.
 *
 * Build and grade:  make lab2 && make grade
 *
 * Predict first: the conflict degree of each store and load (1 = none,
 * 32 = 32-way) in the lines below; the grader says which were right
 * (no points either way; ? is skipped).
 */
#include "smemlab.h"

// PREDICT setRowReadColDyn store ? load ?
// PREDICT setColReadColDyn store ? load ?

#define BDIMX 32
#define BDIMY 32

__global__ void setRowReadColDyn(int *out)
{
    /* TODO(student):
     *   1. Declare the tile:  extern __shared__ int tile[];
     *      It has no size here: the launch decides how many bytes it gets.
     *      It is 1-D, so you flatten the 2-D position yourself.
     *   2. Compute row_idx and col_idx (see the header).
     *   3. Store row_idx in tile[row_idx], __syncthreads(), then
     *      out[row_idx] = tile[col_idx].
     * This is lab 1's setRowReadCol in 1-D form: do you expect the same
     * conflicts? Write it in the PREDICT line above. */
}

__global__ void setColReadColDyn(int *out)
{
    /* TODO(student): optional, if you like.
     * Column-major both ways: store row_idx in tile[col_idx], sync, and load
     * out[row_idx] = tile[col_idx]. Each thread gets its own id back; the
     * interesting part is the conflict count. Remember its launcher too. */
}

SMEMLAB_LAUNCHER void launch_setRowReadColDyn(int *out)
{
    /* TODO(student): launch setRowReadColDyn on one block of BDIMX x BDIMY
     * threads. A dynamic tile needs its size in bytes as the third launch
     * argument; the example below is missing it:
     *
     *   dim3 block(BDIMX, BDIMY);
     *   dim3 grid(1);
     *   setRowReadColDyn<<<grid, block>>>(out);
     *
     * How many bytes does one int per thread take? */
}

/* TODO(student): optional. The grader grades setColReadColDyn only when this
 * launcher exists: remove the #if 0 / #endif around it and write the launch.
 * Until then its checks show as SKIP and cost nothing. */
#if 0
SMEMLAB_LAUNCHER void launch_setColReadColDyn(int *out)
{
}
#endif
