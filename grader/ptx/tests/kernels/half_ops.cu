/*
 * half_ops.cu - f16 and bf16 arithmetic for the emulator's unit tests
 * (tests/unit/test_emu_half.c): the intrinsics of cuda_fp16.h and
 * cuda_bf16.h, scalar and paired, written out as raw bits.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* out[k * 64 + t]: operation k on inputs in[t], in[t + 64], in[t + 128] (floats). */
extern "C" __global__ void f16_ops(const float *in, unsigned short *out)
{
    int t = threadIdx.x;
    __half a = __float2half_rn(in[t]), b = __float2half_rn(in[t + 64]), c = __float2half_rn(in[t + 128]);
    out[0 * 64 + t] = __half_as_ushort(a);
    out[1 * 64 + t] = __half_as_ushort(__hadd(a, b));
    out[2 * 64 + t] = __half_as_ushort(__hsub(a, b));
    out[3 * 64 + t] = __half_as_ushort(__hmul(a, b));
    out[4 * 64 + t] = __half_as_ushort(__hfma(a, b, c));
    out[5 * 64 + t] = __half_as_ushort(__hneg(a));
    out[6 * 64 + t] = __half_as_ushort(__habs(a));
    out[7 * 64 + t] = __half_as_ushort(__hmin(a, b));
    out[8 * 64 + t] = __half_as_ushort(__hmax(a, b));
    out[9 * 64 + t] = __half_as_ushort(__hadd_sat(a, b));
    out[10 * 64 + t] = __half_as_ushort(__hfma_relu(a, b, c));
    out[11 * 64 + t] = __hlt(a, b) | __hge(a, c) << 1 | __hequ(a, b) << 2 | __hisnan(a) << 3;
    __half2 p = __halves2half2(a, b), q = __halves2half2(c, a);
    __half2 r = __hfma2(p, q, __hadd2(p, q));
    out[12 * 64 + t] = __half_as_ushort(__low2half(r));
    out[13 * 64 + t] = __half_as_ushort(__high2half(r));
    __half2 s = __floats2half2_rn(in[t], in[t + 64]);
    out[14 * 64 + t] = __half_as_ushort(__low2half(s));
    out[15 * 64 + t] = __half_as_ushort(__high2half(s));
    out[16 * 64 + t] = __hblt2(p, q) | __hbgt2(p, q) << 1;
    out[17 * 64 + t] = __half_as_ushort(__float2half_rz(in[t]));
}

extern "C" __global__ void bf16_ops(const float *in, unsigned short *out)
{
    int t = threadIdx.x;
    __nv_bfloat16 a = __float2bfloat16(in[t]), b = __float2bfloat16(in[t + 64]),
                  c = __float2bfloat16(in[t + 128]);
    out[0 * 64 + t] = __bfloat16_as_ushort(a);
    out[1 * 64 + t] = __bfloat16_as_ushort(__hadd(a, b));
    out[2 * 64 + t] = __bfloat16_as_ushort(__hsub(a, b));
    out[3 * 64 + t] = __bfloat16_as_ushort(__hmul(a, b));
    out[4 * 64 + t] = __bfloat16_as_ushort(__hfma(a, b, c));
    out[5 * 64 + t] = __bfloat16_as_ushort(__hmax(a, b));
    __nv_bfloat162 p = __floats2bfloat162_rn(in[t], in[t + 64]);
    __nv_bfloat162 r = __hmul2(p, p);
    out[6 * 64 + t] = __bfloat16_as_ushort(__low2bfloat16(r));
    out[7 * 64 + t] = __bfloat16_as_ushort(__high2bfloat16(r));
    out[8 * 64 + t] = __hlt(a, b);
}
