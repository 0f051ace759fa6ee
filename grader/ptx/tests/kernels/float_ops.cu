/*
 * float_ops.cu - floating-point and conversion instructions for the
 * emulator's unit tests (tests/unit/test_emu_float.c says what each must
 * give). Inline PTX, so that each is exactly the instruction under test.
 * Thread t applies operation k to A[t], B[t], C[t] and writes out[k * n + t].
 */
#define OUT(k, v) out[(k) * n + t] = (v)
#define F1(k, ins) { float d; asm volatile(ins " %0, %1;" : "=f"(d) : "f"(a)); OUT(k, __float_as_uint(d)); }
#define F2(k, ins) { float d; asm volatile(ins " %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); OUT(k, __float_as_uint(d)); }
#define F3(k, ins) { float d; asm volatile(ins " %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c)); OUT(k, __float_as_uint(d)); }
#define P2(k, ins) { unsigned d; asm volatile("{ .reg .pred p; " ins " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(d) : "f"(a), "f"(b)); OUT(k, d); }
#define T1(k, ins) { unsigned d; asm volatile("{ .reg .pred p; " ins " p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(d) : "f"(a)); OUT(k, d); }

extern "C" __global__ void f32_ops(const float *A, const float *B, const float *C, unsigned *out,
                                   int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    float a = A[t], b = B[t], c = C[t];
    F2(0, "add.f32") F2(1, "add.rz.f32") F2(2, "add.rm.f32") F2(3, "add.rp.f32") F2(4, "sub.rn.f32")
    F2(5, "mul.f32") F2(6, "mul.rz.f32") F3(7, "fma.rn.f32") F3(8, "fma.rz.f32") F3(9, "fma.rm.f32")
    F3(10, "fma.rp.f32") F2(11, "div.rn.f32") F2(12, "div.rz.f32") F2(13, "div.full.f32")
    F2(14, "div.approx.f32") F1(15, "rcp.rn.f32") F1(16, "sqrt.rn.f32") F1(17, "sqrt.rp.f32")
    F1(18, "abs.f32") F1(19, "neg.f32") F2(20, "min.f32") F2(21, "max.f32") F2(22, "min.NaN.f32")
    F2(23, "copysign.f32") F2(24, "add.ftz.f32") F2(25, "mul.sat.f32") F2(26, "add.rn.ftz.sat.f32")
    F3(27, "mad.rn.f32") F1(28, "abs.ftz.f32") F2(29, "sub.rm.f32")
    P2(30, "setp.lt.f32") P2(31, "setp.equ.f32") P2(32, "setp.neu.f32") P2(33, "setp.ne.f32")
    P2(34, "setp.num.f32") P2(35, "setp.nan.f32") P2(36, "setp.geu.f32") P2(37, "setp.le.ftz.f32")
    T1(38, "testp.finite.f32") T1(39, "testp.infinite.f32") T1(40, "testp.notanumber.f32")
    T1(41, "testp.normal.f32") T1(42, "testp.subnormal.f32") T1(43, "testp.number.f32")
    /* approximations: checked against C within the GPU's documented error */
    F1(44, "rcp.approx.f32") F1(45, "sqrt.approx.f32") F1(46, "rsqrt.approx.f32")
    F1(47, "ex2.approx.f32") F1(48, "lg2.approx.f32") F1(49, "sin.approx.f32") F1(50, "cos.approx.f32")
    F1(51, "tanh.approx.f32") F1(52, "ex2.approx.ftz.f32")
    { unsigned d; asm volatile("set.lt.u32.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b)); OUT(53, d); }
    { float d; asm volatile("set.gt.f32.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b)); OUT(54, __float_as_uint(d)); }
    { float d; asm volatile("slct.f32.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c)); OUT(55, __float_as_uint(d)); }
    { float d; asm volatile("selp.f32 %0, %1, %2, 1;" : "=f"(d) : "f"(a), "f"(b)); OUT(56, __float_as_uint(d)); }
    { float d; asm volatile("add.f32 %0, %1, 0f3F800000;" : "=f"(d) : "f"(a)); OUT(57, __float_as_uint(d)); }
    { float d; asm volatile("mul.f32 %0, %1, 0d4000000000000000;" : "=f"(d) : "f"(a)); OUT(58, __float_as_uint(d)); }
    { float d; asm volatile("sub.f32 %0, %1, 0f3F000000;" : "=f"(d) : "f"(a)); OUT(59, __float_as_uint(d)); }
}

#define D1(k, ins) { double d; asm volatile(ins " %0, %1;" : "=d"(d) : "d"(a)); OUT(k, __double_as_longlong(d)); }
#define D2(k, ins) { double d; asm volatile(ins " %0, %1, %2;" : "=d"(d) : "d"(a), "d"(b)); OUT(k, __double_as_longlong(d)); }
#define D3(k, ins) { double d; asm volatile(ins " %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "d"(c)); OUT(k, __double_as_longlong(d)); }

extern "C" __global__ void f64_ops(const double *A, const double *B, const double *C,
                                   unsigned long long *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    double a = A[t], b = B[t], c = C[t];
    D2(0, "add.f64") D2(1, "add.rz.f64") D2(2, "sub.rp.f64") D2(3, "mul.rm.f64") D3(4, "fma.rn.f64")
    D3(5, "fma.rz.f64") D2(6, "div.rn.f64") D1(7, "sqrt.rn.f64") D1(8, "rcp.rn.f64") D1(9, "abs.f64")
    D1(10, "neg.f64") D2(11, "min.f64") D2(12, "max.f64") D2(13, "copysign.f64")
    { unsigned d; asm volatile("{ .reg .pred p; setp.gtu.f64 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(d) : "d"(a), "d"(b)); OUT(14, d); }
    { double d; asm volatile("add.f64 %0, %1, 0d3FF0000000000000;" : "=d"(d) : "d"(a)); OUT(15, __double_as_longlong(d)); }
    { double d; asm volatile("mul.f64 %0, %1, 0f40400000;" : "=d"(d) : "d"(a)); OUT(16, __double_as_longlong(d)); }
}

#define CV(k, ins, dt, dc, st, sc, expr) { dt d; asm volatile(ins " %0, %1;" : dc(d) : sc((st)(expr))); OUT(k, (unsigned long long)d); }
#define CVF(k, ins, st, sc, expr) { float d; asm volatile(ins " %0, %1;" : "=f"(d) : sc((st)(expr))); OUT(k, __float_as_uint(d)); }
#define CVD(k, ins, st, sc, expr) { double d; asm volatile(ins " %0, %1;" : "=d"(d) : sc((st)(expr))); OUT(k, __double_as_longlong(d)); }

/* Conversions of x (float), y (double) and i (64-bit integer). */
extern "C" __global__ void cvt_ops(const float *X, const double *Y, const long long *I,
                                   unsigned long long *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    float x = X[t];
    double y = Y[t];
    long long i = I[t];
    CV(0, "cvt.rzi.s32.f32", int, "=r", float, "f", x) CV(1, "cvt.rni.s32.f32", int, "=r", float, "f", x)
    CV(2, "cvt.rmi.s32.f32", int, "=r", float, "f", x) CV(3, "cvt.rpi.s32.f32", int, "=r", float, "f", x)
    CV(4, "cvt.rzi.u32.f32", unsigned, "=r", float, "f", x) CV(5, "cvt.rzi.s64.f32", long long, "=l", float, "f", x)
    CV(6, "cvt.rni.u64.f64", unsigned long long, "=l", double, "d", y) CV(7, "cvt.rzi.s32.f64", int, "=r", double, "d", y)
    CVF(8, "cvt.rn.f32.f64", double, "d", y) CVF(9, "cvt.rz.f32.f64", double, "d", y)
    CVF(10, "cvt.rm.f32.f64", double, "d", y) CVF(11, "cvt.rp.f32.f64", double, "d", y)
    CVD(12, "cvt.f64.f32", float, "f", x) CVF(13, "cvt.rn.f32.s32", int, "r", i)
    CVF(14, "cvt.rz.f32.s32", int, "r", i) CVF(15, "cvt.rn.f32.u64", unsigned long long, "l", i)
    CVD(16, "cvt.rn.f64.s64", long long, "l", i) CVF(17, "cvt.rni.f32.f32", float, "f", x)
    CVF(18, "cvt.rzi.f32.f32", float, "f", x) CVF(19, "cvt.sat.f32.f32", float, "f", x)
    CVF(20, "cvt.ftz.f32.f32", float, "f", x)
    CV(21, "cvt.sat.s8.s32", int, "=r", int, "r", i) CV(22, "cvt.sat.u16.s32", unsigned, "=r", int, "r", i)
    CV(23, "cvt.s8.s32", int, "=r", int, "r", i) CV(24, "cvt.u8.u32", unsigned, "=r", unsigned, "r", i)
    CV(25, "cvt.s64.s32", long long, "=l", int, "r", i) CV(26, "cvt.u64.u32", unsigned long long, "=l", unsigned, "r", i)
    CV(27, "cvt.u32.u64", unsigned, "=r", unsigned long long, "l", i) CV(28, "cvt.sat.u32.s64", unsigned, "=r", long long, "l", i)
    CV(29, "cvt.sat.s32.u64", int, "=r", unsigned long long, "l", i)
    { unsigned short h; asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); OUT(30, h); }
    { float f; asm volatile("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)i)); OUT(31, __float_as_uint(f)); }
    { unsigned short h; asm volatile("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x)); OUT(32, h); }
    { float f; asm volatile("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"((unsigned short)i)); OUT(33, __float_as_uint(f)); }
    CVF(34, "cvt.rn.f32.s64", long long, "l", i) CVF(35, "cvt.rm.f32.s32", int, "r", i)
}
