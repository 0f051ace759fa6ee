/*
 * cub.h - CUB's device-wide int sum, the speed reference of labs 7 and 8
 * (grader/device/cub_sum.cu, compiled by nvcc and linked into the grader).
 */
#ifndef SMEMLAB_CUB_H
#define SMEMLAB_CUB_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * *out = in[0] + ... + in[n - 1] (int arithmetic, wrapping), on stream, as
 * cub::DeviceReduce::Sum computes it. temp NULL: only *temp_bytes is set, to
 * the scratch memory the sum needs; then call again with that much.
 */
cudaError_t cub_sum_int(void *temp, size_t *temp_bytes, const int *in, int *out, int n,
                        cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
