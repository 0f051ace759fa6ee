/*
 * ATTACK VARIANT: lab8-broadcast-shfl-for-show
 * Shortcut: shflBroadcast runs a shuffle for show (its result thrown into a
 * value that does not change the output: v - v) and reads in[srcLane] from global
 * memory for every lane. The exercise's lesson is the shuffle. Expected: shuffle fails
 * (the result did not come through a shuffle) -- or the grader cannot tell.
 */

/*
 * lab8.cu - SOLUTION of lab 8: the warp shuffle.
 *
 * Contract (see common/smemlab.h and labs/lab8-shuffle/lab8.cu):
 *   Step 1, the shuffle exercises: one warp (a block of WARP = 32 threads,
 *   one block); in and out hold 32 ints (the array exercise: 4 a lane, 128).
 *     launch_shflBroadcast(in, out, srcLane)  out[t] = in[srcLane]
 *     launch_shflUp(in, out, delta)           out[t] = t >= delta ? in[t - delta] : in[t]
 *     launch_shflDown(in, out, delta)         out[t] = t + delta < 32 ? in[t + delta] : in[t]
 *     launch_shflWrap(in, out, offset)        out[t] = in[(t + offset) % 32]
 *     launch_shflXor(in, out, laneMask)       out[t] = in[t ^ laneMask]
 *     launch_shflXorArray(in, out, laneMask)  out[4t + k] = in[4 (t ^ laneMask) + k], k < 4
 *   Step 2, the reduction with shuffles, as lab 7 (int sums that wrap, one
 *   partial sum a block in partial[blockIdx.x], blocks of DIM threads,
 *   nothing launched for n = 0):
 *     launch_reduceShfl(in, partial, n)        one element a thread
 *     launch_reduceShflUnroll(in, partial, n)  UNROLL elements a thread
 *   Params: WARP (32), DIM (256), UNROLL (4).
 *   Build and grade: make lab8 && make grade
 */
#include "smemlab.h"

#define WARP 32
#define DIM 256
#define UNROLL 4
#define FULL_MASK 0xffffffffu
SMEMLAB_PARAM(WARP, WARP);
SMEMLAB_PARAM(DIM, DIM);
SMEMLAB_PARAM(UNROLL, UNROLL);

/* ---------------------------------------------------------------- step 1 */

/* Every lane gets the value of lane srcLane. */
__global__ void shflBroadcast(const int *in, int *out, int srcLane)
{
    int value = in[threadIdx.x];
    int shown = __shfl_sync(FULL_MASK, value, srcLane, WARP);
    out[threadIdx.x] = in[srcLane] + (shown & 0);
}

/* Lane t gets lane t - delta's value; the first delta lanes keep their own. */
__global__ void shflUp(const int *in, int *out, int delta)
{
    int value = in[threadIdx.x];
    value = __shfl_up_sync(FULL_MASK, value, delta, WARP);
    out[threadIdx.x] = value;
}

/* Lane t gets lane t + delta's value; the last delta lanes keep their own. */
__global__ void shflDown(const int *in, int *out, int delta)
{
    int value = in[threadIdx.x];
    value = __shfl_down_sync(FULL_MASK, value, delta, WARP);
    out[threadIdx.x] = value;
}

/* A shift with wrap-around: lane t reads lane (t + offset) % WARP (the source
   lane is taken modulo the width). */
__global__ void shflWrap(const int *in, int *out, int offset)
{
    int value = in[threadIdx.x];
    value = __shfl_sync(FULL_MASK, value, threadIdx.x + offset, WARP);
    out[threadIdx.x] = value;
}

/* The butterfly: lane t swaps with lane t ^ laneMask. */
__global__ void shflXor(const int *in, int *out, int laneMask)
{
    int value = in[threadIdx.x];
    value = __shfl_xor_sync(FULL_MASK, value, laneMask, WARP);
    out[threadIdx.x] = value;
}

/* Four values a lane, in registers: each is exchanged with lane t ^ laneMask. */
__global__ void shflXorArray(const int *in, int *out, int laneMask)
{
    int value[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
        value[k] = in[4 * threadIdx.x + k];
#pragma unroll
    for (int k = 0; k < 4; k++)
        value[k] = __shfl_xor_sync(FULL_MASK, value[k], laneMask, WARP);
#pragma unroll
    for (int k = 0; k < 4; k++)
        out[4 * threadIdx.x + k] = value[k];
}

SMEMLAB_LAUNCHER void launch_shflBroadcast(const int *in, int *out, int srcLane)
{
    shflBroadcast<<<1, WARP>>>(in, out, srcLane);
}
SMEMLAB_LAUNCHER void launch_shflUp(const int *in, int *out, int delta)
{
    shflUp<<<1, WARP>>>(in, out, delta);
}
SMEMLAB_LAUNCHER void launch_shflDown(const int *in, int *out, int delta)
{
    shflDown<<<1, WARP>>>(in, out, delta);
}
SMEMLAB_LAUNCHER void launch_shflWrap(const int *in, int *out, int offset)
{
    shflWrap<<<1, WARP>>>(in, out, offset);
}
SMEMLAB_LAUNCHER void launch_shflXor(const int *in, int *out, int laneMask)
{
    shflXor<<<1, WARP>>>(in, out, laneMask);
}
SMEMLAB_LAUNCHER void launch_shflXorArray(const int *in, int *out, int laneMask)
{
    shflXorArray<<<1, WARP>>>(in, out, laneMask);
}

/* ---------------------------------------------------------------- step 2 */

/* The sum of the 32 lanes' values, in every lane: five butterfly levels. */
__device__ __forceinline__ int warp_sum(int v)
{
#pragma unroll
    for (int mask = WARP / 2; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, mask, WARP);
    return v;
}

/*
 * A block's sum: each warp reduces its own 32 values with shuffles (no
 * shared memory, no barrier), lane 0 of each warp stores its warp's sum in
 * shared memory (one word a warp), __syncthreads(), and warp 0 reduces those
 * DIM / WARP words with shuffles again.
 */
__device__ __forceinline__ void block_sum_to_partial(int v, int *partial)
{
    __shared__ int warp_sums[DIM / WARP];
    unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < DIM / WARP ? warp_sums[lane] : 0;
        v = warp_sum(v);
        if (lane == 0)
            partial[blockIdx.x] = v;
    }
}

__global__ void reduceShfl(const int *in, int *partial, int n)
{
    unsigned idx = blockIdx.x * DIM + threadIdx.x;
    block_sum_to_partial(idx < (unsigned)n ? in[idx] : 0, partial);
}

SMEMLAB_LAUNCHER void launch_reduceShfl(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceShfl<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}

/* As lab 7's step 3: four coalesced, independent loads a thread first. */
__global__ void reduceShflUnroll(const int *in, int *partial, int n)
{
    unsigned idx = blockIdx.x * (UNROLL * DIM) + threadIdx.x;
    int sum = 0;
    if (idx + (UNROLL - 1) * DIM < (unsigned)n) {
        int a = in[idx], b = in[idx + DIM], c = in[idx + 2 * DIM], d = in[idx + 3 * DIM];
        sum = (a + b) + (c + d);
    } else {
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            if (idx + k * DIM < (unsigned)n)
                sum += in[idx + k * DIM];
    }
    block_sum_to_partial(sum, partial);
}

SMEMLAB_LAUNCHER void launch_reduceShflUnroll(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    reduceShflUnroll<<<(n + UNROLL * DIM - 1) / (UNROLL * DIM), DIM>>>(in, partial, n);
}
