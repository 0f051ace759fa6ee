/*
 * control.cu - control flow and barriers for the emulator's unit tests
 * (tests/unit/test_emu_simt.c): nested divergence, loops with break and
 * continue, early returns, device-function calls, named and counted
 * barriers, barrier reductions, a deadlock, an endless loop, recursion.
 */

/* Nested branches and loops by lane; after each region the warp must have reconverged. */
extern "C" __global__ void nested(int *out, unsigned *masks)
{
    int t = threadIdx.x;
    int v = 0;
    if (t & 1) {
        v += 1;
        if (t & 2)
            v += 2;
        else
            v += 3 * t;
    } else {
        for (int i = 0; i < t % 7; i++) {
            if (i == 4)
                break;
            if (i == 1)
                continue;
            v += i;
        }
    }
    masks[t] = __activemask();
    int x = t + 1;
    int steps = 0;
    while (x != 1 && steps < 100) { /* a data-dependent trip count */
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
        if (x == 16 && (t & 4))
            break;
    }
    masks[64 + t] = __activemask();
    out[t] = v * 1000 + steps;
}

/* Lanes at or past n return at once; the others meet again after their branch. */
extern "C" __global__ void early_return(int *out, unsigned *masks, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    int v = t;
    if (t % 3 == 0)
        v *= 5;
    masks[t] = __activemask();
    out[t] = v;
}

/* A function that is not inlined, with a return inside a branch. */
__device__ __noinline__ int collatz_steps(int x, int cap)
{
    int s = 0;
    while (x != 1) {
        if (s == cap)
            return -s;
        x = (x & 1) ? 3 * x + 1 : x / 2;
        s++;
    }
    return s;
}

extern "C" __global__ void calls(int *out)
{
    int t = threadIdx.x;
    out[t] = collatz_steps(t + 1, 20) + (t & 1 ? collatz_steps(t + 7, 5) * 100 : 0);
}

__device__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

extern "C" __global__ void recursion(int *out)
{
    out[threadIdx.x] = fib(threadIdx.x % 10);
}

/* Warp 1 produces and arrives; warp 0 waits on the same barrier, then reads. */
extern "C" __global__ void producer_consumer(int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t >= 32) {
        s[t - 32] = t * 3;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = s[31 - t];
    }
}

/* __syncthreads_count/and/or: bar.red over the whole block. */
extern "C" __global__ void bar_reductions(int *out)
{
    int t = threadIdx.x;
    int c = __syncthreads_count(t % 3 == 0);
    int a = __syncthreads_and(t < 1000);
    int o = __syncthreads_or(t == 77);
    int z = __syncthreads_and(t != 5);
    out[t] = c * 1000 + a * 100 + o * 10 + z;
}

/* Warp 1 exits before the barrier: the others do not wait for it. */
extern "C" __global__ void exit_before_barrier(int *out)
{
    __shared__ int s[96];
    int t = threadIdx.x;
    if (t / 32 == 1)
        return;
    s[t] = t;
    __syncthreads();
    out[t] = s[(t + 32) % 96] + 1;
}

/* Each warp waits on a barrier the other never reaches. */
extern "C" __global__ void deadlock(int *out)
{
    if (threadIdx.x < 32)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 2, 64;");
    out[threadIdx.x] = 1;
}

/* A barrier for one warp's threads: each warp goes on alone. */
extern "C" __global__ void one_warp_barrier(int *out)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    asm volatile("bar.sync 1, 32;" ::: "memory");
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}

/* Waits for a flag nobody sets. */
extern "C" __global__ void endless(volatile int *flag, int *out)
{
    while (flag[0] == 0)
        ;
    out[threadIdx.x] = 1;
}

/* trap and assert */
extern "C" __global__ void traps(int *out, int how)
{
    if (how == 1 && threadIdx.x == 5)
        asm volatile("trap;");
    if (how == 2)
        assert(threadIdx.x != 3);
    out[threadIdx.x] = 1;
}

/* The special registers of every thread of a 3-D launch. */
extern "C" __global__ void specials(unsigned *out)
{
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned i = (b * blockDim.x * blockDim.y * blockDim.z + t) * 8;
    unsigned lane, warp, lt, dyn;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm("mov.u32 %0, %%warpid;" : "=r"(warp));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
    out[i + 0] = threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16;
    out[i + 1] = blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16;
    out[i + 2] = blockDim.x | blockDim.y << 8 | blockDim.z << 16;
    out[i + 3] = gridDim.x | gridDim.y << 8 | gridDim.z << 16;
    out[i + 4] = lane;
    out[i + 5] = warp;
    out[i + 6] = lt;
    out[i + 7] = dyn;
}
