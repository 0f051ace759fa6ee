/*
 * const_ops.cu - the PTX machine's records of lab 10's loads (test_emu_mem.c):
 * constant memory, each lane its own address or all one, and global loads
 * through the read-only cache (ld.global.nc) or not.
 */
#include <cuda_runtime.h>

__constant__ float cmask[8];

/* A constant load each lane indexes (8 addresses), a constant broadcast, a load
   through the read-only cache (__ldg: ld.global.nc) and a plain one. */
extern "C" __global__ void const_and_nc(const float *__restrict__ t, const float *p, float *out)
{
    int l = threadIdx.x;
    out[l] = cmask[l % 8] + cmask[0] + __ldg(&t[l]) + p[l];
}
