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
 *       tile:  extern __shared__ int tile[];  rows of BDIMX + IPAD ints,
 *              launched with the padded tile's size in bytes
 *       row_idx: position of [ty][tx] in the padded tile     } you write
 *       col_idx: position of [icol][irow] in the padded tile } these two
 *       store: tile[row_idx] = idx     load: out[idx] = tile[col_idx]
 *       out[idx] == icol * BDIMX + irow
 *
 *   Launchers only launch: <<<dim3(1), dim3(BDIMX, BDIMY)[, bytes]>>>, no
 *   sync, no allocation, no error check (the grader does those). You write
 *   the launchers of the two dynamic kernels and choose IPAD.
 *
 * Build and grade:  make lab4 && make grade
 *
 * Predict first: the conflict degree of each store and load (1 = none,
 * 32 = 32-way) in the lines below, with the IPAD you start from; the grader
 * says which were right (no points either way; ? is skipped).
 */
#include "smemlab.h"

// PREDICT setRowReadRow store ? load ?
// PREDICT setColReadCol store ? load ?
// PREDICT setRowReadCol store ? load ?
// PREDICT setRowReadColDyn store ? load ?
// PREDICT setRowReadColPad store ? load ?
// PREDICT setRowReadColDynPad store ? load ?

#define BDIMX 32
#define BDIMY 16

/* TODO(student): find the pad. IPAD 1 is only a first guess.
 * The grader expects setRowReadColPad and setRowReadColDynPad to be free of
 * bank conflicts. Grade with IPAD 1 and read the conflict degree reported
 * for their loads. Then, for one warp, write down irow, icol and the bank
 * ((word offset) % 32) of tile[icol][irow] for a few lanes on each side of
 * lane 16, and pick the smallest IPAD that gives every lane its own bank.
 * Change only the number below; both Pad kernels and the launch use it.
 */
#define IPAD 1

SMEMLAB_PARAM(IPAD, IPAD);

/*
 * The block is now 32 wide and 16 tall. A warp is still one row of the block
 * (same ty, tx = 0..31), and int word w is still in bank w % 32.
 */

__global__ void setRowReadRow(int *out)
{
    /* TODO(student):
     * Declare  __shared__ int tile[BDIMY][BDIMX];  store idx in
     * tile[threadIdx.y][threadIdx.x], __syncthreads(), load the same element
     * into out[idx]. A tile row is as long as a warp: no conflict expected. */
}

__global__ void setColReadCol(int *out)
{
    /* TODO(student):
     * Column-major: store and load tile[threadIdx.x][threadIdx.y]. The first
     * index now runs up to 31 and the second up to 15, so the tile must be
     * declared [BDIMX][BDIMY] to keep both in bounds.
     * Bank check: rows are 16 words long now. Which banks does a warp use?
     * How many lanes share each one? Write your answer in its PREDICT line. */
}

__global__ void setRowReadCol(int *out)
{
    /* TODO(student):
     * Store row-major into a [BDIMY][BDIMX] tile, then read the transpose.
     * Swapping the thread indices as in lab 1 does not work here:
     * tile[threadIdx.x][threadIdx.y] would use tx (up to 31) as a row index
     * of a 16-row tile. Transpose through the linear id instead:
     *   irow = idx / blockDim.y;   icol = idx % blockDim.y;
     *   out[idx] = tile[icol][irow];
     * Don't forget __syncthreads() between the store and the load. */
}

__global__ void setRowReadColDyn(int *out)
{
    /* TODO(student):
     * The same transpose with  extern __shared__ int tile[];
     * Store idx in tile[idx]; after the barrier read
     * tile[col_idx], col_idx = icol * blockDim.x + irow
     * (the 1-D position of [icol][irow] in rows of blockDim.x ints). */
}

__global__ void setRowReadColPad(int *out)
{
    /* TODO(student):
     * setRowReadCol with a padded tile:  __shared__ int tile[BDIMY][BDIMX + IPAD];
     * Store and load exactly as in setRowReadCol. Whether it is conflict-free
     * depends on IPAD: see the note above it. */
}

__global__ void setRowReadColDynPad(int *out)
{
    /* TODO(student):
     * setRowReadColDyn with padded rows of blockDim.x + IPAD ints. Work out
     * row_idx (where [ty][tx] lies in the padded tile) and col_idx (where
     * [icol][irow] lies), store idx in tile[row_idx], sync,
     * out[idx] = tile[col_idx]. out itself is not padded: keep idx for it. */
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
    /* TODO(student): launch setRowReadColDyn on one block of BDIMX x BDIMY
     * threads, giving the dynamic tile its size in bytes (third launch
     * argument), as in lab 2. Mind that the block is not square any more. */
}

SMEMLAB_LAUNCHER void launch_setRowReadColPad(int *out)
{
    dim3 block(BDIMX, BDIMY);
    dim3 grid(1);
    setRowReadColPad<<<grid, block>>>(out);
}

SMEMLAB_LAUNCHER void launch_setRowReadColDynPad(int *out)
{
    /* TODO(student): launch setRowReadColDynPad like setRowReadColDyn, with
     * the size of the padded tile. */
}
