/*
 * widths.cu - every form of shared-memory instruction the SASS reader must
 * know (grader/image/sass.c): loads and stores of 1 to 16 bytes, signed and
 * unsigned, with register, uniform-register and immediate addresses; the
 * narrowed and fused accesses ptxas makes of PTX's; ldmatrix and stmatrix;
 * shared atomics of every operation; cp.async of 4, 8 and 16 bytes; global
 * loads and stores beside them. Compiled for every architecture of the kit's
 * list; tests/sass/listings/sass.widths.sm*.txt hold what nvdisasm printed
 * for each (tests/unit/test_sass.c compares).
 */
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

__device__ int4 g[4096];

extern "C" __global__ void plain(int *out, int k)
{
    __shared__ unsigned char b[1024];
    __shared__ unsigned short h[512];
    __shared__ int w[512];
    __shared__ long long d[256];
    __shared__ int4 q[128];
    int t = threadIdx.x;
    b[t] = (unsigned char)t;
    h[t] = (unsigned short)t;
    w[t] = t;
    d[t] = t;
    q[t] = make_int4(t, t, t, t);
    __syncthreads();
    int s = (signed char)b[t ^ 1] + (short)h[t ^ 3] + w[t ^ 5] + (int)d[t ^ 7] + q[t ^ 9].z;
    s += b[k] + h[k] + w[k] + (int)d[k] + q[k].x; /* uniform addresses */
    s += w[17] + (int)d[3];                        /* immediate addresses */
    out[t] = s;
}

extern "C" __global__ void narrowed(int *out)
{
    __shared__ long long d[256];
    __shared__ int w[1024];
    int t = threadIdx.x;
    d[t] = ((long long)t << 32) | (t * 3);
    w[2 * t] = t;
    w[2 * t + 1] = -t; /* two stores ptxas may fuse */
    __syncthreads();
    out[t] = (int)d[255 - t] + (int)(d[t] >> 32);      /* 8-byte loads read in part */
    out[256 + t] = w[4 * t] + w[4 * t + 1] + w[4 * t + 2] + w[4 * t + 3]; /* fused */
}

extern "C" __global__ void matrices(unsigned *out)
{
    __shared__ unsigned short m[64 * 64];
    int t = threadIdx.x;
    for (int i = t; i < 4096; i += blockDim.x)
        m[i] = (unsigned short)i;
    __syncthreads();
    unsigned a, b, c, d;
    unsigned ad = (unsigned)__cvta_generic_to_shared(&m[(t % 32) * 8]);
#if __CUDA_ARCH__ >= 750
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(ad));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b), "=r"(c) : "r"(ad));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(ad));
#endif
#if __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(ad), "r"(a), "r"(b), "r"(c), "r"(d));
#endif
    out[t] = a ^ b ^ c ^ d;
}

extern "C" __global__ void atomics(int *out)
{
    __shared__ int s[256];
    __shared__ unsigned u[256];
    __shared__ float f[256];
    __shared__ unsigned long long l[256];
    int t = threadIdx.x;
    s[t] = 0, u[t] = 0, f[t] = 0, l[t] = 0;
    __syncthreads();
    atomicAdd(&s[t], 1);
    atomicMin(&s[t ^ 1], t);
    atomicMax(&s[t ^ 2], t);
    atomicInc(&u[t], 7u);
    atomicDec(&u[t ^ 3], 7u);
    atomicAnd(&s[t ^ 4], 7);
    atomicOr(&s[t ^ 5], 8);
    atomicXor(&s[t ^ 6], 9);
    atomicExch(&s[t ^ 7], t);
    atomicCAS(&s[t ^ 8], 0, t);
    atomicAdd(&f[t], 1.5f);
    atomicAdd(&l[t], 3ull);
    atomicAdd(&s[0], 1); /* every lane on one word */
    __syncthreads();
    out[t] = s[t] + (int)u[t] + (int)f[t] + (int)l[t];
}

extern "C" __global__ void async(int *out)
{
    __shared__ int4 q[256];
    __shared__ int2 p[256];
    __shared__ int w[256];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&q[t], &g[t], 16);
    __pipeline_memcpy_async(&p[t], (const int2 *)g + t, 8);
    __pipeline_memcpy_async(&w[t], (const int *)g + t, 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = q[t].x + p[t].y + w[t];
}
