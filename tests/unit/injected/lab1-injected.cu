// lab1-injected.cu - a hostile lab 1 file for test_image.c: its host assembly
// appends a fatbinary it did not compile (FOREIGN_FATBIN, foreign.cu) to the
// library's .nv_fatbin section. The grader must not see foreignKernel.
#include "smemlab.h"

#define BDIMX 32
#define BDIMY 32

__global__ void setRowReadRow(int *out)
{
    __shared__ int tile[BDIMY][BDIMX];
    unsigned idx = threadIdx.y * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = idx;
    __syncthreads();
    out[idx] = tile[threadIdx.y][threadIdx.x];
}

SMEMLAB_LAUNCHER void launch_setRowReadRow(int *out)
{
    setRowReadRow<<<dim3(1), dim3(BDIMX, BDIMY)>>>(out);
}

asm(".section .nv_fatbin, \"a\"\n"
    ".balign 8\n"
    ".incbin \"" FOREIGN_FATBIN "\"\n"
    ".previous\n");
