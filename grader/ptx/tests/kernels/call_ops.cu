/*
 * call_ops.cu - calls the emulator must follow (tests/unit/test_emu_calls.c):
 * indirect calls through a __device__ table of function pointers (lanes of
 * one warp calling different functions), constant tables, device printf.
 */
#include <cstdio>

typedef int (*op_fn)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ op_fn ops[3] = {op_add, op_mul, op_sub};
__constant__ int coefs[4] = {3, 5, 7, 11};

extern "C" __global__ void indirect(const int *in, int *out)
{
    int t = threadIdx.x;
    out[t] = ops[t % 3](in[t], coefs[t % 4]);
    op_fn local = t < 16 ? op_mul : op_add; /* a pointer made in the kernel */
    out[64 + t] = local(t, 2);
}

extern "C" __global__ void printer(const int *in, int *out)
{
    int t = threadIdx.x;
    if (t < 3)
        out[t] = printf("thread %d sees %d, %5.2f, %s %c %x %lld %hd|\n", t, in[t], in[t] * 0.5f,
                        "str", 'A' + t, 255 + t, -5ll, (short)70000);
}
