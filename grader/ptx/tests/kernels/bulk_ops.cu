/*
 * bulk_ops.cu - instructions that neither the trace nor the hardware counters
 * of the shared pipe measure (the tensor memory accelerator's bulk copies and
 * reductions), for lab_decls_unmeasured's test (test_emu_calls.c): found in
 * a kernel, in a function it calls, and not in a kernel with plain cp.async.
 * Compiled to PTX only (sm_90 instructions).
 */
#include <cuda_pipeline.h>

__device__ __noinline__ void store_row(int *out, const int *row_in_shared)
{
    unsigned int row = (unsigned int)__cvta_generic_to_shared(row_in_shared);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 128;"
                 :: "l"(out), "r"(row) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

extern "C" __global__ void bulk_store(int *out)
{
    __shared__ __align__(128) int tile[32];
    tile[threadIdx.x] = threadIdx.x;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int row = (unsigned int)__cvta_generic_to_shared(tile);
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 128;"
                     :: "l"(out), "r"(row) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void bulk_reduce(int *out)
{
    __shared__ __align__(128) int tile[32];
    tile[threadIdx.x] = threadIdx.x;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int row = (unsigned int)__cvta_generic_to_shared(tile);
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 128;"
                     :: "l"(out), "r"(row) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void bulk_through_call(int *out)
{
    __shared__ __align__(128) int tile[32];
    tile[threadIdx.x] = threadIdx.x;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0)
        store_row(out, tile);
}

/* cp.async (LDGSTS) is measured: not one of them */
extern "C" __global__ void plain_async(int *out, const int *in)
{
    __shared__ int tile[32];
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[threadIdx.x] = tile[31 - threadIdx.x];
}
