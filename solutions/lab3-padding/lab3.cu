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
 *       tile:  extern __shared__ int tile[];
 *              launched with (BDIMX + IPAD) * BDIMY * sizeof(int) bytes
 *       row_idx = ty * (blockDim.x + IPAD) + tx
 *       col_idx = tx * (blockDim.x + IPAD) + ty
 *       g_idx   = ty * blockDim.x + tx
 *       store: tile[row_idx] = g_idx   load: out[g_idx] = tile[col_idx]
 *       out[g_idx] == tx * BDIMX + ty
 *
 *   Launchers only launch: <<<dim3(1), dim3(BDIMX, BDIMY)[, bytes]>>>, no
 *   sync, no allocation, no error check (the grader does those).
 *
 * Build and grade:  make lab3 && make grade
 */
#include "smemlab.h"

#define BDIMX 32
#define BDIMY 32
#define IPAD  1

SMEMLAB_PARAM(IPAD, IPAD);

/*
 * With a row pitch of 32 + 1 words, element [r][c] is word r*33 + c and sits
 * in bank (r + c) % 32. Walking down a column now moves one bank per row.
 */

__global__ void setRowReadColPad(int *out)
{
    __shared__ int tile[BDIMY][BDIMX + IPAD];
    unsigned int idx = threadIdx.y * blockDim.x + threadIdx.x;

    /* Row store: banks (ty + tx) % 32 for tx = 0..31, all different. */
    tile[threadIdx.y][threadIdx.x] = idx;

    __syncthreads();

    /* Column load: banks (tx + ty) % 32, all different too; without the pad
       column all 32 lanes would hit bank ty. */
    out[idx] = tile[threadIdx.x][threadIdx.y];
}

__global__ void setRowReadColDynPad(int *out)
{
    extern __shared__ int tile[];

    /* Shared memory is padded, global memory is not: two pitches, hence a
       separate index for each. */
    unsigned int row_idx = threadIdx.y * (blockDim.x + IPAD) + threadIdx.x;
    unsigned int col_idx = threadIdx.x * (blockDim.x + IPAD) + threadIdx.y;
    unsigned int g_idx = threadIdx.y * blockDim.x + threadIdx.x;

    tile[row_idx] = g_idx;

    __syncthreads();

    /* Coalesced global store, conflict-free padded column load. */
    out[g_idx] = tile[col_idx];
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
    /* The pad columns take space too: size the tile with the padded pitch. */
    setRowReadColDynPad<<<grid, block, (BDIMX + IPAD) * BDIMY * sizeof(int)>>>(out);
}
