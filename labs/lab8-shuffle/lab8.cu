/*
 * lab8.cu - Lab 8: the warp shuffle.
 *
 * Step 1, the shuffle exercises: each kernel runs on one warp (one block of
 * WARP = 32 threads). Lane t starts with value = in[t]; the exercise moves
 * values between the lanes' registers with one shuffle, and lane t writes
 * what it got to out[t]. No shared memory at all: the grader checks that.
 *   shflBroadcast(in, out, srcLane)  every lane gets lane srcLane's value
 *   shflUp(in, out, delta)           lane t gets lane t - delta's; lanes below
 *                                    delta keep their own
 *   shflDown(in, out, delta)         lane t gets lane t + delta's; lanes from
 *                                    WARP - delta on keep their own
 *   shflWrap(in, out, offset)        lane t gets lane (t + offset) % WARP's:
 *                                    a shift that wraps around
 *   shflXor(in, out, laneMask)       lane t gets lane (t ^ laneMask)'s: the
 *                                    butterfly
 *   shflXorArray(in, out, laneMask)  each lane holds 4 values in[4t .. 4t+3]
 *                                    (an array in registers) and exchanges
 *                                    all four with lane t ^ laneMask:
 *                                    out[4t + k] = in[4 (t ^ laneMask) + k]
 *
 * Step 2, the reduction with shuffles (lab 7's contract: int sums that
 * wrap, block b writes its partial sum to partial[b], blocks of DIM
 * threads, nothing launched for n = 0; the grader adds the partial sums):
 *   reduceShfl(in, partial, n)        one element a thread
 *   reduceShflUnroll(in, partial, n)  UNROLL elements a thread first (lab 7 step 3)
 *
 * Contract (the grader relies on it; keep every name and signature):
 *   SMEMLAB_LAUNCHER void launch_shflBroadcast(const int *in, int *out, int srcLane);
 *   SMEMLAB_LAUNCHER void launch_shflUp(const int *in, int *out, int delta);
 *   SMEMLAB_LAUNCHER void launch_shflDown(const int *in, int *out, int delta);
 *   SMEMLAB_LAUNCHER void launch_shflWrap(const int *in, int *out, int offset);
 *   SMEMLAB_LAUNCHER void launch_shflXor(const int *in, int *out, int laneMask);
 *   SMEMLAB_LAUNCHER void launch_shflXorArray(const int *in, int *out, int laneMask);
 *   SMEMLAB_LAUNCHER void launch_reduceShfl(const int *in, int *partial, int n);
 *   SMEMLAB_LAUNCHER void launch_reduceShflUnroll(const int *in, int *partial, int n);
 *   A launcher only launches, on the default stream: no cudaMalloc, no
 *   cudaMemcpy, no cudaDeviceSynchronize, no error checks.
 *   Parameters (exported with SMEMLAB_PARAM; the contract fixes them):
 *     WARP = 32, DIM = 256 (threads of a reduction block), UNROLL = 4.
 *
 * Checks: correct (the exercises with several srcLane / delta / offset /
 * laneMask values; the reductions at every size, n = 0 and n = 1 too),
 * shuffle (shuffles executed; the exercises use no shared memory, a
 * reduction's blocks at most a store and a load of one word a warp),
 * global-traffic and race (reductions), speed (reduceShflUnroll against
 * CUB's cub::DeviceReduce::Sum; GPU only). Course: docs/lab8.md.
 *
 * Build and grade:   make lab8 && make grade
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

/*
 * TODO(student): the six exercises, starting with the broadcast: every lane
 * gets lane srcLane's value. Each is three lines:
 *     int value = in[threadIdx.x];
 *     value = __shfl_..._sync(FULL_MASK, value, ..., WARP);
 *     out[threadIdx.x] = value;
 * FULL_MASK names the lanes that take part (all 32); WARP is the width: the
 * shuffle works within segments of that many lanes. Which intrinsic, and
 * which lane or delta, does each exercise need?
 *   __shfl_sync(mask, v, srcLane, width)       the value of lane srcLane
 *   __shfl_up_sync(mask, v, delta, width)      of lane t - delta
 *   __shfl_down_sync(mask, v, delta, width)    of lane t + delta
 *   __shfl_xor_sync(mask, v, laneMask, width)  of lane t ^ laneMask
 */
__global__ void shflBroadcast(const int *in, int *out, int srcLane)
{
}

/* TODO(student): lane t gets lane t - delta's value. */
__global__ void shflUp(const int *in, int *out, int delta)
{
}

/* TODO(student): lane t gets lane t + delta's value. */
__global__ void shflDown(const int *in, int *out, int delta)
{
}

/* TODO(student): __shfl_sync with a source lane past the end of the warp
 * wraps around: the source lane is taken modulo the width. */
__global__ void shflWrap(const int *in, int *out, int offset)
{
}

/* TODO(student): lane t gets lane t ^ laneMask's value. */
__global__ void shflXor(const int *in, int *out, int laneMask)
{
}

/* TODO(student): load the lane's four values into int value[4], exchange each
 * with lane t ^ laneMask (one __shfl_xor_sync each: a shuffle moves one
 * 32-bit register), and store all four. */
__global__ void shflXorArray(const int *in, int *out, int laneMask)
{
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

/*
 * TODO(student): a block's sum with shuffles; shared memory holds one word a
 * warp, nothing more.
 *  1. Each thread's value: in[blockIdx.x * DIM + threadIdx.x], or 0 past n.
 *  2. The warp's sum, in registers: for mask = 16, 8, 4, 2, 1:
 *         v += __shfl_xor_sync(FULL_MASK, v, mask, WARP);
 *     (a butterfly: every lane ends with the sum of all 32).
 *  3. Lane 0 of each warp stores it: __shared__ int warp_sums[DIM / WARP];
 *     then __syncthreads().
 *  4. Warp 0 reads warp_sums[lane] (0 for lanes past DIM / WARP), reduces
 *     them with the same shuffles, and lane 0 writes partial[blockIdx.x].
 * A __device__ function for steps 2 to 4 serves reduceShflUnroll too.
 */
__global__ void reduceShfl(const int *in, int *partial, int n)
{
}

SMEMLAB_LAUNCHER void launch_reduceShfl(const int *in, int *partial, int n)
{
    if (n <= 0)
        return; /* nothing to add: no launch */
    reduceShfl<<<(n + DIM - 1) / DIM, DIM>>>(in, partial, n);
}

/*
 * TODO(student): reduceShfl with lab 7's unrolled load: thread tid of block b
 * first adds in[idx], in[idx + DIM], in[idx + 2 DIM], in[idx + 3 DIM]
 * (idx = b * UNROLL * DIM + tid; 0 past n), then the block's sum as above.
 */
__global__ void reduceShflUnroll(const int *in, int *partial, int n)
{
}

SMEMLAB_LAUNCHER void launch_reduceShflUnroll(const int *in, int *partial, int n)
{
    if (n <= 0)
        return;
    /* each block covers UNROLL * DIM elements */
    reduceShflUnroll<<<(n + UNROLL * DIM - 1) / (UNROLL * DIM), DIM>>>(in, partial, n);
}
