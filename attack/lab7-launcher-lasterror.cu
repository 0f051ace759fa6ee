/*
 * ATTACK VARIANT: lab7-launcher-lasterror
 * A launcher that checks its launch: cudaGetLastError() after reduceSmem's launch
 * (good practice in the CUDA guide; the lab says launchers only launch). Expected per
 * docs/lab7.md#own-work: reduceSmem correct fails naming cudaGetLastError, the others graded.
 */

/*
 * lab7.cu - SOLUTION of lab 7: parallel reduction, from global memory to a
 * shared tile.
 *
 * Contract (see common/smemlab.h and labs/lab7-reduction/lab7.cu):
 *   int data; the sum of in[0 .. n) wraps around as int arithmetic does.
 *   Every launcher launches one kernel of blocks of DIM threads; block b
 *   writes its partial sum to partial[b], and the grader adds the partial
 *   sums of all the blocks launched (partial holds one int per block).
 *   n = 0: nothing to add; the launchers launch nothing (a grid of 0 blocks
 *   is a launch CUDA refuses).
 *   SMEMLAB_LAUNCHER void launch_reduceGmem(int *in, int *partial, int n);            step 1
 *   SMEMLAB_LAUNCHER void launch_reduceSmem(const int *in, int *partial, int n);      step 2
 *   SMEMLAB_LAUNCHER void launch_reduceSmemUnroll(const int *in, int *partial, int n); step 3
 *   SMEMLAB_LAUNCHER void launch_reduceSmemUnrollDyn(const int *in, int *partial, int n); step 4
 *   SMEMLAB_LAUNCHER void launch_reduceSmemInterleaved(const int *in, int *partial, int n);
 *                                                                  (optional)
 *   Params: DIM (256, threads of a block = ints of the tile), UNROLL (4).
 *   Build and grade: make lab7 && make grade
 */
#include "smemlab.h"

#define DIM 256   /* threads of a block, and ints of its shared tile */
#define UNROLL 4  /* elements a thread adds from global memory in steps 3 and 4 */
SMEMLAB_PARAM(DIM, DIM);
SMEMLAB_PARAM(UNROLL, UNROLL);

/* ---------------------------------------------------------------- step 1 */

/*
 * The tree in place in global memory: block b reduces its DIM elements
 * in[b * DIM ...] level by level, each level halving the elements still
 * live (sequential addressing: thread tid adds element tid + stride to
 * element tid). Every level reads and writes global memory. The last block
 * may hold fewer than DIM elements: a thread adds only elements that exist.
 */
__global__ void reduceGmem(int *in, int *partial, int n)
{
    unsigned tid = threadIdx.x;
    int *data = in + (size_t)blockIdx.x * DIM;
    int count = min(DIM, n - (int)(blockIdx.x * DIM)); /* elements of this block */
    for (int stride = DIM / 2; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < count)
            data[tid] += data[tid + stride];
        __syncthreads(); /* the next level reads what this one wrote */
    }
    if (tid == 0)
        partial[blockIdx.x] = data[0];
}

SMEMLAB_LAUNCHER void launch_reduceGmem(int *in, int *partial, int n)
{
    if (n <= 0)
        return; /* nothing to add: no launch */
    reduceGmem<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}

/* ---------------------------------------------------------------- step 2 */

/*
 * The same tree in a shared tile: each element is read from global memory
 * once (0 past the end, so that every level adds DIM / 2 ... 1 pairs
 * whatever n is), the levels run in shared memory, and the block stores
 * one partial sum. Sequential addressing keeps the active threads of a
 * level together: whole warps drop out, and the lanes of a warp read
 * consecutive words (conflict-free).
 */
__global__ void reduceSmem(const int *in, int *partial, int n)
{
    __shared__ int smem[DIM];
    unsigned tid = threadIdx.x;
    unsigned idx = blockIdx.x * DIM + tid;
    smem[tid] = idx < (unsigned)n ? in[idx] : 0;
    __syncthreads();
    for (int stride = DIM / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            smem[tid] += smem[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = smem[0];
}

SMEMLAB_LAUNCHER void launch_reduceSmem(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceSmem<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
    (void)cudaGetLastError();
}

/* ---------------------------------------------------------------- step 3 */

/*
 * The sum of the UNROLL elements thread tid of block b owns: tid, tid + DIM,
 * tid + 2 DIM, tid + 3 DIM from the block's first element b * UNROLL * DIM.
 * A warp reads 32 consecutive ints at each of them (coalesced), and the
 * four loads are independent: in flight together.
 */
__device__ __forceinline__ int load_unrolled(const int *in, int n)
{
    unsigned idx = blockIdx.x * (UNROLL * DIM) + threadIdx.x;
    if (idx + (UNROLL - 1) * DIM < (unsigned)n) {
        int a = in[idx], b = in[idx + DIM], c = in[idx + 2 * DIM], d = in[idx + 3 * DIM];
        return (a + b) + (c + d);
    }
    int sum = 0; /* the last block: only elements that exist */
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
        if (idx + k * DIM < (unsigned)n)
            sum += in[idx + k * DIM];
    return sum;
}

/*
 * The tree over a tile already filled, from DIM / 2 down to one warp with
 * barriers, then the last 64 values in warp 0. Its lanes run independently
 * (Volta and later), so one lane may read smem[tid + s] before its
 * neighbour stored it: __syncwarp() between each store and the loads of
 * the next level orders them. (The pre-Volta idiom, a volatile pointer and
 * no __syncwarp, is a race today: docs/lab7.md#warp.) The partial sum is
 * stored by thread 0.
 */
__device__ __forceinline__ void tree_to_partial(int *smem, int *partial)
{
    unsigned tid = threadIdx.x;
#pragma unroll
    for (int stride = DIM / 2; stride > 32; stride >>= 1) {
        if (tid < stride)
            smem[tid] += smem[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        int v = smem[tid] + smem[tid + 32];
#pragma unroll
        for (int s = 16; s > 0; s >>= 1) {
            smem[tid] = v;
            __syncwarp();
            v += smem[tid + s];
            __syncwarp();
        }
        if (tid == 0)
            partial[blockIdx.x] = v;
    }
}

__global__ void reduceSmemUnroll(const int *in, int *partial, int n)
{
    __shared__ int smem[DIM];
    smem[threadIdx.x] = load_unrolled(in, n);
    __syncthreads();
    tree_to_partial(smem, partial);
}

SMEMLAB_LAUNCHER void launch_reduceSmemUnroll(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    /* a quarter of the blocks: each covers UNROLL * DIM elements */
    reduceSmemUnroll<<<(n + UNROLL * DIM - 1) / (UNROLL * DIM), DIM>>>(in, partial, n);
}

/* ---------------------------------------------------------------- step 4 */

/* Step 3 with the tile sized at launch: extern __shared__, DIM ints given as
   the launch's third argument. */
__global__ void reduceSmemUnrollDyn(const int *in, int *partial, int n)
{
    extern __shared__ int dsmem[];
    dsmem[threadIdx.x] = load_unrolled(in, n);
    __syncthreads();
    tree_to_partial(dsmem, partial);
}

SMEMLAB_LAUNCHER void launch_reduceSmemUnrollDyn(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceSmemUnrollDyn<<<(n + UNROLL * DIM - 1) / (UNROLL * DIM), DIM, DIM * sizeof(int)>>>(
        in, partial, n);
}

/* ------------------------------------------------------ optional exercise */

/*
 * The chapter's first tree in shared memory: interleaved addressing, index =
 * 2 * stride * tid. Right, but lane t reads word 2 * stride * t: at stride 1
 * two lanes share a bank, at 2 four, ... up to 8 (fewer lanes are left):
 * the bank conflicts docs/lab7.md#conflicts draws.
 */
__global__ void reduceSmemInterleaved(const int *in, int *partial, int n)
{
    __shared__ int smem[DIM];
    unsigned tid = threadIdx.x;
    unsigned idx = blockIdx.x * DIM + tid;
    smem[tid] = idx < (unsigned)n ? in[idx] : 0;
    __syncthreads();
    for (int stride = 1; stride < DIM; stride *= 2) {
        int index = 2 * stride * tid;
        if (index < DIM)
            smem[index] += smem[index + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = smem[0];
}

SMEMLAB_LAUNCHER void launch_reduceSmemInterleaved(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceSmemInterleaved<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}
