/*
 * lab7.cu - Lab 7: parallel reduction, from global memory to a shared tile.
 *
 * The sum of n ints. Each block adds up its share of the input and writes
 * ONE partial sum to partial[blockIdx.x]; the grader adds the partial sums
 * of all the blocks you launched (as the host does in the chapter). The
 * sum wraps around as int arithmetic does.
 *
 * Contract (the grader relies on it; keep every name and signature):
 *   SMEMLAB_LAUNCHER void launch_reduceGmem(int *in, int *partial, int n);          step 1
 *   SMEMLAB_LAUNCHER void launch_reduceSmem(const int *in, int *partial, int n);    step 2
 *   SMEMLAB_LAUNCHER void launch_reduceSmemUnroll(const int *in, int *partial, int n);  step 3
 *   SMEMLAB_LAUNCHER void launch_reduceSmemUnrollDyn(const int *in, int *partial, int n); step 4
 *   SMEMLAB_LAUNCHER void launch_reduceSmemInterleaved(const int *in, int *partial, int n);
 *                                                     (optional: the tree of the chapter's
 *                                                      first try, for its bank conflicts)
 *   - Every launcher launches one kernel with blocks of DIM threads (no
 *     other block size); partial holds one int for each block launched, so
 *     a kernel must not write past partial[gridDim.x - 1].
 *   - n may be anything from 0 up: n = 0 has nothing to add, and the
 *     launchers then launch nothing (a grid of 0 blocks is an error in CUDA).
 *   - Step 1 may overwrite in (its tree runs in place); steps 2 to 4 only
 *     read it.
 *   - A launcher only launches, on the default stream: no cudaMalloc, no
 *     cudaMemcpy, no cudaDeviceSynchronize, no error checks.
 *
 *   Parameters (exported with SMEMLAB_PARAM; the contract fixes them):
 *     DIM = 256 (threads of a block, ints of its tile), UNROLL = 4 (elements
 *     a thread adds from global memory in steps 3 and 4).
 *
 * Checks: correct (every size, n = 0 and n = 1 too), global-traffic (loads
 * and stores against each step's model), smem-conflicts (the tree's shared
 * requests and bank conflicts), race, dynamic-tile (step 4), speed (step 3
 * against CUB's cub::DeviceReduce::Sum on the same input; GPU only).
 * Course: docs/lab7.md.
 *
 * Predict first: the conflict degree of the tree's shared loads (1 = none;
 * the grader measures all of a kernel's shared loads together: wavefronts
 * over what they would need without conflicts) in the lines below; the
 * grader says which were right (no points either way; ? is skipped).
 *
 * Build and grade:   make lab7 && make grade
 */
#include "smemlab.h"

// PREDICT reduceSmem load ?
// PREDICT reduceSmemInterleaved load ?

#define DIM 256
#define UNROLL 4
SMEMLAB_PARAM(DIM, DIM);
SMEMLAB_PARAM(UNROLL, UNROLL);

/* ---------------------------------------------------------------- step 1 */

/*
 * TODO(student): the tree in place in global memory (the baseline).
 * Block b adds up in[b * DIM] .. in[b * DIM + DIM - 1] (fewer in the last
 * block when n is not a multiple of DIM: count = min(DIM, n - b * DIM)).
 *   int *data = in + blockIdx.x * DIM;
 *   for stride = DIM / 2, DIM / 4, ..., 1:
 *       thread tid < stride adds data[tid + stride] to data[tid]
 *       (only when tid + stride < count: past it there is no element);
 *       __syncthreads(): the next level reads what this one wrote.
 *   Thread 0 then writes data[0] to partial[blockIdx.x].
 * Every level reads and writes global memory: count them in the report.
 */
__global__ void reduceGmem(int *in, int *partial, int n)
{
}

SMEMLAB_LAUNCHER void launch_reduceGmem(int *in, int *partial, int n)
{
    if (n <= 0)
        return; /* nothing to add: no launch */
    reduceGmem<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}

/* ---------------------------------------------------------------- step 2 */

/*
 * TODO(student): the same tree in a shared tile.
 *  1. __shared__ int smem[DIM]; each thread copies ONE element into it:
 *     smem[tid] = in[blockIdx.x * DIM + tid], or 0 past n (a 0 adds nothing,
 *     and every level can then add its pairs without checking n).
 *  2. __syncthreads().
 *  3. The tree of step 1 on smem (sequential addressing: thread tid adds
 *     smem[tid + stride] to smem[tid]), a __syncthreads() after each level.
 *  4. Thread 0 writes smem[0] to partial[blockIdx.x]: one global store a block.
 * Each element is now read from global memory once. The tree's shared loads:
 * which words do the 32 lanes of a warp read at one level? Which banks?
 */
__global__ void reduceSmem(const int *in, int *partial, int n)
{
}

SMEMLAB_LAUNCHER void launch_reduceSmem(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceSmem<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}

/* ---------------------------------------------------------------- step 3 */

/*
 * TODO(student): fewer, fuller blocks, and the last warp unrolled.
 *  1. Block b now covers UNROLL * DIM elements from b * UNROLL * DIM: thread
 *     tid first adds the four elements idx, idx + DIM, idx + 2 DIM,
 *     idx + 3 DIM (idx = b * UNROLL * DIM + tid; 0 for those at or past n)
 *     and stores that sum in smem[tid]. A warp reads 32 consecutive ints at
 *     each of the four: coalesced, and the four loads are in flight at once.
 *  2. __syncthreads(), then the tree with a barrier per level down to
 *     stride 64.
 *  3. The last 64 values: warp 0 alone (if (tid < 32)). Its lanes need no
 *     __syncthreads(), but they are not in lockstep either: a lane may read
 *     smem[tid + s] before the lane that owns it stored it. Order them with
 *     __syncwarp() between each level's stores and the next level's loads
 *     (docs/lab7.md#warp; the old idiom, a volatile pointer without
 *     __syncwarp(), is a race on every GPU since Volta):
 *         int v = smem[tid] + smem[tid + 32];
 *         for (s = 16; s > 0; s >>= 1) {
 *             smem[tid] = v; __syncwarp(); v += smem[tid + s]; __syncwarp();
 *         }
 *     Lane 0 then holds the block's sum: write it to partial[blockIdx.x].
 * The launcher below already launches a quarter of step 2's blocks.
 */
__global__ void reduceSmemUnroll(const int *in, int *partial, int n)
{
}

SMEMLAB_LAUNCHER void launch_reduceSmemUnroll(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    /* each block covers UNROLL * DIM elements: a quarter of the blocks */
    reduceSmemUnroll<<<(n + UNROLL * DIM - 1) / (UNROLL * DIM), DIM>>>(in, partial, n);
}

/* ---------------------------------------------------------------- step 4 */

/*
 * TODO(student): step 3 with a dynamic tile: extern __shared__ int smem[];
 * (no size: the launch gives it). Everything else as in step 3 (a
 * __device__ function that both kernels call keeps it in one place).
 */
__global__ void reduceSmemUnrollDyn(const int *in, int *partial, int n)
{
}

SMEMLAB_LAUNCHER void launch_reduceSmemUnrollDyn(const int *in, int *partial, int n)
{
    /* TODO(student): launch reduceSmemUnrollDyn as step 3's launcher does
     * (nothing for n <= 0, a quarter of the blocks), with the tile's size
     * in bytes as the third launch argument: <<<grid, DIM, bytes>>>. */
}

/* ------------------------------------------------------ optional exercise */

/*
 * TODO(student): optional, for the bank-conflict lesson: step 2 with the
 * chapter's first tree, interleaved addressing in shared memory:
 *   for stride = 1, 2, 4, ..., DIM / 2:
 *       int index = 2 * stride * tid;
 *       if (index < DIM) smem[index] += smem[index + stride];
 *       __syncthreads();
 * Predict its load conflicts first (PREDICT line at the top), then compare
 * with reduceSmem's. The grader grades it only when its launcher exists:
 * remove the #if 0 / #endif around the launcher below. Until then its
 * checks show as SKIP and cost nothing.
 */
__global__ void reduceSmemInterleaved(const int *in, int *partial, int n)
{
}

#if 0
SMEMLAB_LAUNCHER void launch_reduceSmemInterleaved(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceSmemInterleaved<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}
#endif
