/*
 * async_ops.cu - asynchronous copies (cp.async), ldmatrix/stmatrix and
 * shared atomics for the emulator's unit tests (tests/unit/test_emu_async.c).
 */
#include <cuda_pipeline.h>

/* Tiles of 4, 8 and 16-byte elements filled by cp.async, read back reversed. */
extern "C" __global__ void async_copy(const int4 *in, int *out)
{
    __shared__ int4 t16[64];
    __shared__ int2 t8[64];
    __shared__ int t4[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&t16[t], &in[t], sizeof(int4));
    __pipeline_memcpy_async(&t8[t], (const int2 *)&in[64] + t, sizeof(int2));
    __pipeline_memcpy_async(&t4[t], (const int *)&in[96] + t, sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int4 a = t16[63 - t];
    int2 b = t8[63 - t];
    out[t] = a.x + a.y + a.z + a.w;
    out[64 + t] = b.x - b.y;
    out[128 + t] = t4[63 - t];
}

/* src-size 4 of 16: the rest zero-filled; then two groups, the older waited for alone. */
extern "C" __global__ void async_groups(const int4 *in, int *out)
{
    __shared__ int4 a[32], b[32];
    int t = threadIdx.x;
    a[t] = make_int4(-1, -1, -1, -1);
    b[t] = make_int4(-2, -2, -2, -2);
    __syncwarp();
    unsigned da = (unsigned)__cvta_generic_to_shared(&a[t]);
    unsigned db = (unsigned)__cvta_generic_to_shared(&b[t]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 4;" :: "r"(da), "l"(&in[t]));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(db), "l"(&in[t + 32]));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    out[t] = a[t].x + a[t].y + a[t].z + a[t].w; /* landed: in[t].x alone */
    out[32 + t] = b[t].x;                       /* may not have landed yet: -2 here */
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[64 + t] = b[t].y;
}

/* ldmatrix x4 and x1.trans over an 8 x 32 tile of 16-bit values; stmatrix back. */
extern "C" __global__ void matrices(unsigned *out)
{
    __shared__ unsigned short m[4 * 64], back[4 * 64];
    int t = threadIdx.x;
    for (int i = t; i < 256; i += 32)
        m[i] = (unsigned short)(i * 3 + 1);
    __syncwarp();
    unsigned a0, a1, a2, a3;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&m[t * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
    out[t] = a0; out[32 + t] = a1; out[64 + t] = a2; out[96 + t] = a3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(a0) : "r"(addr));
    out[128 + t] = a0;
#if __CUDA_ARCH__ >= 900
    unsigned baddr = (unsigned)__cvta_generic_to_shared(&back[t * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
                 :: "r"(baddr), "r"(out[t] + 0u), "r"(out[32 + t] + 0u));
    __syncwarp();
    for (int i = t; i < 128; i += 32)
        out[160 + i] = back[i];
#endif
}

/* Shared atomics: a histogram of 8 bins, one word everyone adds to, exch, cas, max. */
extern "C" __global__ void smem_atomics(int *out)
{
    __shared__ int h[32];
    __shared__ int one;
    int t = threadIdx.x;
    if (t < 32)
        h[t] = 0;
    if (t == 0)
        one = 0;
    __syncthreads();
    atomicAdd(&h[t % 8], 1);
    atomicAdd(&one, t);
    atomicMax(&h[30], t);
    __syncthreads();
    if (t < 32)
        out[t] = h[t];
    if (t == 0)
        out[32] = one;
}
