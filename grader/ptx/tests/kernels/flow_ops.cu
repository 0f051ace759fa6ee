/*
 * flow_ops.cu - the flow run's changed values (test_emu_flow.c, emu_launch.perturb):
 * shared loads of every width and type, a shuffle, two lines of which one's values are
 * thrown away, and a shared value used as an index.
 */
#include <cuda_runtime.h>

/* Each lane stores its input to shared memory and reads its neighbour's back, as an int,
   a float, a byte, a double and an int4; one more int read is thrown away (& 0). */
extern "C" __global__ void flow_shared(const int *in, int *out, float *fout, unsigned char *bout,
                                       double *dout, int4 *vout, int *dropped)
{
    __shared__ int si[32];
    __shared__ float sf[32];
    __shared__ unsigned char sb[32];
    __shared__ double sd[32];
    __shared__ int4 sv[32];
    int l = threadIdx.x, n = (l + 1) % 32, x = in[l];
    si[l] = x;
    sf[l] = (float)x * 0.5f;
    sb[l] = (unsigned char)x;
    sd[l] = (double)x * 0.25;
    sv[l] = make_int4(x, x + 1, x + 2, x + 3);
    __syncthreads();
    out[l] = si[n];
    fout[l] = sf[n];
    bout[l] = sb[n];
    dout[l] = sd[n];
    vout[l] = sv[n];
    dropped[l] = x + (((volatile int *)si)[n] & 0);
}

/* A shuffle's result, and a float product with 0 (taken away, where a NaN would not be). */
extern "C" __global__ void flow_shfl(const int *in, int *out, float *zero)
{
    int l = threadIdx.x, x = in[l];
    out[l] = __shfl_sync(0xffffffffu, x, (l + 3) % 32);
    __shared__ float s[32];
    s[l] = (float)x;
    __syncthreads();
    zero[l] = 0.0f * ((volatile float *)s)[(l + 1) % 32];
}

/* Two lines read shared memory: a tree's level whose result is thrown away, and a copy
   that makes the output. */
extern "C" __global__ void flow_two_lines(const int *in, int *out)
{
    __shared__ int tile[64];
    int l = threadIdx.x;
    tile[l] = in[l];
    tile[32 + l] = in[l];
    __syncthreads();
    tile[l] += tile[32 + l]; /* a level, for show */
    __syncthreads();
    out[l] = tile[32 + (l + 1) % 32]; /* the copy: made from shared memory, not the level */
}

/* A shared value used as an index: changed, it reaches past the array. */
extern "C" __global__ void flow_index(const int *in, int *out)
{
    __shared__ int idx[32];
    int l = threadIdx.x;
    idx[l] = l;
    __syncthreads();
    out[l] = in[idx[(l + 1) % 32]];
}

/* A shared value read through an atomic's old value alone. */
extern "C" __global__ void flow_atomic(const int *in, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = in[l];
    __syncthreads();
    out[l] = atomicAdd(&s[(l + 1) % 32], 1);
}
