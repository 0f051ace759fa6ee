/*
 * sync_ops.cu - kernels for the emulator's synchronisation checks
 * (test_emu_sync.c): block-wide barriers reached by every thread, skipped
 * under a condition, after early returns, in loops and device functions; warp
 * primitives whose member mask names lanes that do not execute them.
 */

/* Uniform across the block: legal. */
extern "C" __global__ void bar_uniform(int *out, int flag)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = t;
    if (flag)
        __syncthreads();
    out[t] = s[blockDim.x - 1 - t];
}

/* Threads past n return first: exited threads do not count (sm_70+). */
extern "C" __global__ void bar_early_return(int *out, int n)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    if (t >= n)
        return;
    s[t] = t;
    __syncthreads();
    out[t] = s[n - 1 - t];
}

/* The same with work on the way out. */
extern "C" __global__ void bar_early_return_work(int *out, int n)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    if (t >= n) {
        out[t] = -1;
        return;
    }
    s[t] = t;
    __syncthreads();
    out[t] = s[n - 1 - t];
}

/* Half the block skips the barrier and goes on to read the tile. */
extern "C" __global__ void bar_half(int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = t;
    if (t < (int)blockDim.x / 2)
        __syncthreads();
    out[t] = s[blockDim.x - 1 - t];
}

/* Odd lanes only: the even ones wait past the branch. */
extern "C" __global__ void bar_odd(int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = t;
    if (t % 2)
        __syncthreads();
    out[t] = s[blockDim.x - 1 - t];
}

/* Both sides of a branch wait, each at its own barrier. */
extern "C" __global__ void bar_if_else(int *out, int split)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = t;
    if (t < split) {
        __syncthreads();
        out[t] = s[blockDim.x - 1 - t];
    } else {
        __syncthreads();
        out[t] = -s[blockDim.x - 1 - t];
    }
}

/* Each warp its own number of passes, then a read of the tile after the loop: the warps
   done early read what the others' later passes order. */
extern "C" __global__ void bar_loop_per_warp(int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x, a = 0;
    s[t] = t;
    for (int k = 0; k < t / 32; k++) {
        __syncthreads();
        a += s[blockDim.x - 1 - t];
        __syncthreads();
        s[t] = a;
    }
    out[t] = a + s[(t + 32) % blockDim.x];
}

/* Each lane its own number of passes: the lanes done early wait past the loop. */
extern "C" __global__ void bar_loop_per_lane(int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x, a = 0;
    s[t] = t;
    for (int k = 0; k < t % 4; k++) {
        __syncthreads();
        a += s[blockDim.x - 1 - t];
    }
    out[t] = a;
}

/* Each warp its own number of passes, and nothing after the loop: the warps that are
   done leave, and exited threads do not count. */
extern "C" __global__ void bar_loop_then_leave(int *out)
{
    int t = threadIdx.x;
    for (int k = 0; k < t / 32; k++) {
        out[t] = k;
        __syncthreads();
    }
}

/* The same number of passes for all: legal. */
extern "C" __global__ void bar_loop_uniform(int *out, int passes)
{
    __shared__ int s[1024];
    int t = threadIdx.x, a = t;
    for (int k = 0; k < passes; k++) {
        s[t] = a;
        __syncthreads();
        a += s[blockDim.x - 1 - t];
        __syncthreads();
    }
    out[t] = a;
}

/* An early return inside a loop of barriers: the threads that leave are exited. */
extern "C" __global__ void bar_loop_return(int *out, int n)
{
    __shared__ int s[1024];
    int t = threadIdx.x, a = 0;
    for (int k = 0; k < 4; k++) {
        if (t >= n - 8 * k)
            return;
        s[t] = a + k;
        __syncthreads();
        a += s[(t + 1) % (n - 8 * k)];
        __syncthreads();
        out[t] = a;
    }
}

/* The reduction tree with its barrier inside the branch (lab 7's own mistake). */
extern "C" __global__ void bar_tree_in_branch(const int *in, int *out)
{
    __shared__ int s[1024];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();
        }
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

/* A barrier in a device function that stays a call. */
__device__ __noinline__ int exchange(int *s, int t, int v)
{
    s[t] = v;
    __syncthreads();
    return s[blockDim.x - 1 - t];
}

extern "C" __global__ void bar_in_function(int *out, int split)
{
    __shared__ int s[1024];
    int t = threadIdx.x, v = t;
    if (t < split)
        v = exchange(s, t, v);
    out[t] = v + s[(t + 1) % blockDim.x];
}

/* __syncthreads_count under a condition half the block takes. */
extern "C" __global__ void bar_count_in_branch(int *out)
{
    int t = threadIdx.x, c = 0;
    if (t < (int)blockDim.x / 2)
        c = __syncthreads_count(t % 3 == 0);
    out[t] = c;
}

/* --- warp primitives ------------------------------------------------------------- */

/* A full mask inside a branch of 8 lanes (lab 8's forbidden form). */
extern "C" __global__ void shfl_full_in_branch(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    if (t % 32 < 8)
        for (int o = 4; o > 0; o /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    out[t] = v;
}

/* The mask of exactly the lanes in the branch: legal. */
extern "C" __global__ void shfl_masked(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    if (t % 32 < 8)
        for (int o = 4; o > 0; o /= 2)
            v += __shfl_xor_sync(0xffu, v, o);
    out[t] = v;
}

/* The chapter's reduceShfl shape: threads past n return, the warp's full-mask butterfly
   then reads lanes that have exited. */
extern "C" __global__ void shfl_after_return(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    int v = in[t];
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    out[t] = v;
}

/* A ballot after the same return: exited lanes need not vote. */
extern "C" __global__ void ballot_after_return(const int *in, int *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    out[t] = (int)__ballot_sync(0xffffffffu, in[t] > 0);
}

/* A partial mask whose shuffle reads lanes outside the branch. */
extern "C" __global__ void shfl_reads_outside(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    if (t % 32 < 8)
        v = __shfl_down_sync(0xffu, v, 4);
    out[t] = v;
}

/* __syncwarp() (the full mask) by half a warp, and __syncwarp(mask) of that half. */
extern "C" __global__ void syncwarp_half(int *out, int masked)
{
    __shared__ int s[1024];
    int t = threadIdx.x, v = -1;
    s[t] = t;
    if (t % 32 < 16) {
        if (masked)
            __syncwarp(0xffffu);
        else
            __syncwarp();
        v = s[t ^ 1];
    }
    out[t] = v;
}

/* Lanes that vote without their own bit in the mask. */
extern "C" __global__ void vote_without_self(const int *in, int *out)
{
    int t = threadIdx.x;
    out[t] = __any_sync(0x0000ffffu, in[t] > 0);
}

/* A reduction and a match of the whole warp by 8 lanes. */
extern "C" __global__ void redux_match_partial(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t], r = 0;
    if (t % 32 < 8)
        r = __reduce_add_sync(0xffffffffu, v) + (int)__match_any_sync(0xffffffffu, v);
    out[t] = r;
}
