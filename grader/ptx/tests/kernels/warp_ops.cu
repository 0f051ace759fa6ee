/*
 * warp_ops.cu - warp-wide instructions for the emulator's unit tests
 * (tests/unit/test_emu_warp.c): shuffles in every mode and width, votes,
 * match, activemask, redux, elect, __syncwarp.
 */
#include <cuda_runtime.h>

extern "C" __global__ void shuffles(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    out[0 * 64 + t] = __shfl_sync(0xffffffffu, v, (t * 7) % 32);
    out[1 * 64 + t] = __shfl_up_sync(0xffffffffu, v, 3);
    out[2 * 64 + t] = __shfl_down_sync(0xffffffffu, v, 5);
    out[3 * 64 + t] = __shfl_xor_sync(0xffffffffu, v, 9);
    out[4 * 64 + t] = __shfl_sync(0xffffffffu, v, t + 2, 8);     /* segments of 8 */
    out[5 * 64 + t] = __shfl_up_sync(0xffffffffu, v, 2, 16);
    out[6 * 64 + t] = __shfl_down_sync(0xffffffffu, v, 3, 4);
    out[7 * 64 + t] = __shfl_xor_sync(0xffffffffu, v, 6, 8);
    int sum = v; /* a butterfly reduction */
    for (int o = 16; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
    out[8 * 64 + t] = sum;
    unsigned p;
    int d;
    asm volatile("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, 4, 0x1f, -1; selp.u32 %1, 1, 0, q; }"
                 : "=r"(d), "=r"(p) : "r"(v));
    out[9 * 64 + t] = d;
    out[10 * 64 + t] = (int)p;
}

extern "C" __global__ void votes(const int *in, unsigned *out)
{
    int t = threadIdx.x, v = in[t];
    out[0 * 64 + t] = __ballot_sync(0xffffffffu, v > 0);
    out[1 * 64 + t] = __all_sync(0xffffffffu, v > -100);
    out[2 * 64 + t] = __any_sync(0xffffffffu, v == 7);
    out[3 * 64 + t] = __uni_sync(0xffffffffu, v > 0);
    out[4 * 64 + t] = __match_any_sync(0xffffffffu, v % 4);
    int pred;
    out[5 * 64 + t] = __match_all_sync(0xffffffffu, v & 0x100, &pred);
    out[6 * 64 + t] = (unsigned)pred;
    out[7 * 64 + t] = __reduce_add_sync(0xffffffffu, (unsigned)v);
    out[8 * 64 + t] = (unsigned)__reduce_min_sync(0xffffffffu, v);
    out[9 * 64 + t] = (unsigned)__reduce_max_sync(0xffffffffu, v);
    out[10 * 64 + t] = __reduce_or_sync(0xffffffffu, (unsigned)v);
    out[11 * 64 + t] = __reduce_xor_sync(0xffffffffu, (unsigned)v);
    unsigned am = 0;
    if (t % 4 == 1)
        am = __activemask();
    out[12 * 64 + t] = am;
    unsigned leader, is;
    asm volatile("{ .reg .pred q; elect.sync %0|q, 0xffffffff; selp.u32 %1, 1, 0, q; }"
                 : "=r"(leader), "=r"(is));
    out[13 * 64 + t] = leader * 2 + is;
    __syncwarp();
    unsigned long long w64 = ((unsigned long long)(v & 3) << 40) | 5;
    out[14 * 64 + t] = __match_any_sync(0xffffffffu, w64);
}

/* A shuffle inside a branch that names the whole warp: lanes outside never come. */
extern "C" __global__ void divergent_shuffle(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    if (t < 16)
        v = __shfl_sync(0xffffffffu, v, t + 1);
    out[t] = v;
}

/* The same with a mask of exactly the lanes in the branch: fine. */
extern "C" __global__ void masked_shuffle(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    if (t < 16)
        v = __shfl_sync(0x0000ffffu, v, (t + 1) % 16);
    out[t] = v;
}
