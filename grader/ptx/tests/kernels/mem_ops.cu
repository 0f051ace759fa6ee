/*
 * mem_ops.cu - memory instructions for the emulator's unit tests
 * (tests/unit/test_emu_mem.c): shared accesses of every width and their
 * records, generic addressing, local arrays, const and global variables
 * with initialisers, atomics, faults.
 */
#include <cuda_runtime.h>

/* Each lane stores its lane number in 1, 2, 4, 8 and 16-byte shared accesses and loads
   them back; out[w * 32 + lane] gets the value loaded with width index w. */
extern "C" __global__ void shared_widths(unsigned *out)
{
    __shared__ __align__(16) unsigned char buf[32 * 31];
    unsigned t = threadIdx.x;
    unsigned base = (unsigned)__cvta_generic_to_shared(buf);
    unsigned a1 = base + t, a2 = base + 32 + 2 * t, a4 = base + 96 + 4 * t;
    unsigned a8 = base + 224 + 8 * t, a16 = base + 480 + 16 * t;
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(a1), "h"((unsigned short)(t + 1)));
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(a2), "h"((unsigned short)(t + 2)));
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(a4), "r"(t + 3));
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(a8), "r"(t + 4), "r"(t + 5));
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(a16), "f"((float)t), "f"(1.0f),
                 "f"(2.0f), "f"(3.0f));
    __syncthreads();
    unsigned short v1, v2;
    unsigned v4, v8a, v8b;
    float f0, f1, f2, f3;
    unsigned long long v64;
    asm volatile("ld.shared.u8 %0, [%1];" : "=h"(v1) : "r"(a1));
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v2) : "r"(a2));
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v4) : "r"(a4));
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v8a), "=r"(v8b) : "r"(a8));
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(f0), "=f"(f1), "=f"(f2), "=f"(f3) : "r"(a16));
    asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v64) : "r"(a8));
    asm volatile("ld.shared.s8 %0, [%1];" : "=h"(v2) : "r"(base + 31 * 32 - 1)); /* past the stores */
    out[0 * 32 + t] = v1;
    out[1 * 32 + t] = v4;
    out[2 * 32 + t] = v8a + (v8b << 16);
    out[3 * 32 + t] = (unsigned)f0 + (unsigned)(f1 + f2 + f3) * 1000;
    out[4 * 32 + t] = (unsigned)(v64 >> 32);
    out[5 * 32 + t] = v2;
}

/* Generic pointers into shared, local and global memory; isspacep and cvta. */
extern "C" __global__ void generic_access(int *g, int *out)
{
    __shared__ int s[64];
    int local[8];
    int t = threadIdx.x;
    volatile int *ps = s, *pl = local, *pg = g;
    for (int i = 0; i < 8; i++)
        pl[i] = t * 10 + i;
    ps[t] = t + 100;
    pg[t] = t + 200;
    __syncthreads();
    int *p = (t % 3 == 0) ? (int *)&s[63 - t] : (t % 3 == 1) ? (int *)&local[t % 8] : &g[t];
    volatile int *vp = p;
    out[t] = *vp;
    unsigned sh, lo, gl;
    asm volatile("{ .reg .pred q; isspacep.shared q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(sh) : "l"(p));
    asm volatile("{ .reg .pred q; isspacep.local q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(lo) : "l"(p));
    asm volatile("{ .reg .pred q; isspacep.global q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(gl) : "l"(p));
    out[64 + t] = sh | lo << 1 | gl << 2;
    unsigned long long back;
    asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(back) : "l"((int *)&s[t]));
    out[128 + t] = (int)back;
}

/* A local array indexed at run time: it lives in local memory (the depot). */
extern "C" __global__ void local_array(const int *in, int *out)
{
    int buf[16];
    int t = threadIdx.x;
    for (int i = 0; i < 16; i++)
        buf[(i * 7 + t) % 16] = in[t] * 16 + i;
    out[t] = buf[in[t] & 15] + buf[(in[t] >> 4) & 15];
}

__constant__ int ctab[4] = {10, 20, 30, 40};
__device__ float gtab[3] = {1.5f, 2.5f, 3.5f};
__device__ int gv[2] = {7, 8};
__device__ int *gp = gv;
__constant__ float cmask[8];

/* Module variables: initialised .const/.global, an address initialiser, and a .const
   array the host writes (as the grader writes a lab's mask). */
extern "C" __global__ void module_vars(int *out)
{
    int t = threadIdx.x;
    out[t] = ctab[t % 4] + (int)(gtab[t % 3] * 2.0f) + gp[t % 2] + (int)cmask[t % 8];
    if (t == 0)
        gv[1] = 80;
}

/* Atomics on global and shared memory, in every operation. */
extern "C" __global__ void atomics(int *gi, unsigned *gu, float *gf, unsigned long long *g64,
                                   int *out)
{
    __shared__ int s[4];
    int t = threadIdx.x;
    if (t < 4)
        s[t] = 0;
    __syncthreads();
    atomicAdd(&gi[0], t);
    atomicMax(&gi[1], t * 3 - 50);
    atomicMin(&gi[2], 100 - t);
    atomicAnd(&gu[0], ~(1u << t));
    atomicOr(&gu[1], 1u << t);
    atomicXor(&gu[2], (unsigned)t * 0x01010101u);
    atomicInc(&gu[3], 9u);
    atomicDec(&gu[4], 5u);
    atomicAdd(&gf[0], 0.5f);
    atomicAdd(&g64[0], (unsigned long long)t << 33);
    int old = atomicCAS(&gi[3], t - 1, t); /* lanes in order: each finds its predecessor */
    out[t] = old;
    out[64 + t] = atomicExch(&gi[4], t);
    atomicAdd(&s[t % 4], t);
    atomicMax(&s[(t + 1) % 4], t);
    __syncthreads();
    if (t < 4)
        out[128 + t] = s[t];
}

/* A write n elements past p: outside the allocation. */
extern "C" __global__ void oob(int *p, int n)
{
    p[threadIdx.x + n] = 1;
}

/* A misaligned 4-byte load. */
extern "C" __global__ void misaligned(const char *p, int *out)
{
    out[threadIdx.x] = *(const int *)(p + 1 + 4 * threadIdx.x);
}

/* Shared accesses past the block's bytes: within the 128-byte granule, then beyond. */
extern "C" __global__ void shared_past(int *out, int k)
{
    __shared__ int s[8];
    volatile int *v = s;
    v[threadIdx.x % 8] = 1;
    out[threadIdx.x] = v[threadIdx.x + k];
}

/* Dynamic shared memory after a static array: its offsets start 16-aligned. */
extern "C" __global__ void dynamic_after_static(int *out)
{
    __shared__ char pad[5];
    extern __shared__ int dyn[];
    volatile char *vp = pad;
    vp[threadIdx.x % 5] = 1;
    dyn[threadIdx.x] = threadIdx.x + vp[0];
    __syncthreads();
    out[threadIdx.x] = dyn[31 - threadIdx.x];
}
