/*
 * lab3.cu - Lab 3: padding a square tile to remove bank conflicts.
 *
 * Contract (the grader relies on it; keep every name, signature and size):
 *
 *   BDIMX 32, BDIMY 32: one block of BDIMX x BDIMY threads, grid dim3(1).
 *   IPAD 1: pad columns added to each tile row; exported as
 *   smemlab_param_IPAD for the grader's report.
 *   out: BDIMX * BDIMY ints, allocated by the grader.
 *   (below: tx, ty = threadIdx.x, threadIdx.y)
 *   Each kernel makes one shared store and one shared load per thread, with a
 *   __syncthreads() between them; the grader expects both to be conflict-free.
 *
 *   __global__ void setRowReadColPad(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadColPad(int *out)
 *       tile:  __shared__ int tile[BDIMY][BDIMX + IPAD]
 *       idx = ty * blockDim.x + tx
 *       store: tile[ty][tx] = idx      load: out[idx] = tile[tx][ty]
 *       out[idx] == tx * BDIMX + ty
 *
 *   __global__ void setRowReadColDynPad(int *out)
 *   SMEMLAB_LAUNCHER void launch_setRowReadColDynPad(int *out)
 *       tile:  extern __shared__ int tile[];  with IPAD pad ints after every
 *              row of BDIMX, launched with the padded tile's size in bytes
 *       row_idx: position of [ty][tx] in the padded tile   } you write
 *       col_idx: position of [tx][ty] in the padded tile   } these three
 *       g_idx:   position of [ty][tx] in out (not padded)  } (docs/lab3.md)
 *       store: tile[row_idx] = g_idx   load: out[g_idx] = tile[col_idx]
 *       out[g_idx] == tx * BDIMX + ty
 *
 *   Launchers only launch: <<<dim3(1), dim3(BDIMX, BDIMY)[, bytes]>>>, no
 *   sync, no allocation, no error check (the grader does those). You write
 *   the launcher of setRowReadColDynPad.
 *
 * Build and grade:  make lab3 && make grade
 *
 * Predict first: the conflict degree of each store and load (1 = none,
 * 32 = 32-way) in the lines below; the grader says which were right
 * (no points either way; ? is skipped).
 */
#include "smemlab.h"

// PREDICT setRowReadColPad store ? load ?
// PREDICT setRowReadColDynPad store ? load ?

#define BDIMX 32
#define BDIMY 32
#define IPAD  1

SMEMLAB_PARAM(IPAD, IPAD);

/*
 * Recall lab 1: in a [32][32] int tile, element [r][c] is word r*32 + c, in
 * bank c. Reading a column keeps c fixed, so the whole warp hits one bank.
 * A pad column makes each row IPAD words longer than the data it holds; the
 * pad words are never used, they only shift the rows against the banks.
 */

__global__ void setRowReadColPad(int *out)
{
    /* TODO(student):
     *   1. Declare a static tile with IPAD extra columns per row:
     *      __shared__ int tile[BDIMY][BDIMX + IPAD];
     *   2. Store idx row-major, __syncthreads(), load column-major into
     *      out[idx] (exactly as lab 1's setRowReadCol).
     * Bank check: with a row of BDIMX + IPAD words, which bank holds [r][c]?
     * Follow the lanes tx = 0, 1, 2 of one warp through the column read. */
}

__global__ void setRowReadColDynPad(int *out)
{
    /* TODO(student):
     * The same with  extern __shared__ int tile[];  Now you flatten the padded
     * rows yourself, so you need three indices (see the header): two into
     * the padded tile, one into out, which has no pad. Write them, store
     * g_idx in tile[row_idx], __syncthreads(), then out[g_idx] = tile[col_idx]. */
}

SMEMLAB_LAUNCHER void launch_setRowReadColPad(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setRowReadColPad<<<grid, block>>>(out);
}

SMEMLAB_LAUNCHER void launch_setRowReadColDynPad(int *out)
{
    /* TODO(student): launch setRowReadColDynPad on one block of BDIMX x BDIMY
     * threads, with the tile's size in bytes as the third launch argument.
     * How large is the padded tile? It is larger than out. */
}
