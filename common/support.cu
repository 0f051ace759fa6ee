/*
 * support.cu - grader-side helpers linked into every lab library.
 *
 * Shared memory is not cleared between kernel launches: a kernel that reads
 * the tile before every thread wrote it (a missing __syncthreads()) would read
 * the previous run's values and look right. The grader calls
 * smemlab_scrub_shared() before each graded launch so such a race reads junk.
 */
#include "smemlab.h"

/* Every block fills as much shared memory as it was given with the poison. */
__global__ void smemlab_scrub_kernel(int words, int poison)
{
    extern __shared__ int scratch[];
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        scratch[i] = poison;
    __syncthreads();
    /* Keep the stores: the compiler may not drop them if a read can escape. */
    if (scratch[(threadIdx.x * 7) % words] != poison)
        __trap();
}

SMEMLAB_EXTERN_C __attribute__((visibility("default"))) const int smemlab_contract_version =
    SMEMLAB_CONTRACT_VERSION;

/* Fill the shared memory of every SM with `poison`; returns the launch status. */
SMEMLAB_EXTERN_C __attribute__((visibility("default"))) cudaError_t
smemlab_scrub_shared(int poison)
{
    int dev = 0, sms = 0, bytes = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(smemlab_scrub_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
        return err;
    smemlab_scrub_kernel<<<sms, 1024, bytes>>>(bytes / (int)sizeof(int), poison);
    err = cudaGetLastError();
    return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}
