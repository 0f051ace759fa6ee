/*
 * int_ops.cu - integer instructions for the emulator's unit tests
 * (tests/unit/test_emu_int.c computes what each must give).
 *
 * Every operation is written as inline PTX so that it is exactly the
 * instruction under test, whatever nvcc would make of C. Thread t applies
 * operation k to A[t], B[t], C[t] and writes out[k * n + t].
 */
#define OUT(k, v) out[(k) * n + t] = (v)
#define R1(k, ins) { unsigned d; asm volatile(ins " %0, %1;" : "=r"(d) : "r"(a)); OUT(k, d); }
#define R2(k, ins) { unsigned d; asm volatile(ins " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); OUT(k, d); }
#define R3(k, ins) { unsigned d; asm volatile(ins " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); OUT(k, d); }

extern "C" __global__ void int32_ops(const unsigned *A, const unsigned *B, const unsigned *C,
                                     unsigned *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    unsigned a = A[t], b = B[t], c = C[t];
    R2(0, "add.s32") R2(1, "sub.s32") R2(2, "mul.lo.s32") R2(3, "mul.hi.s32") R2(4, "mul.hi.u32")
    R2(5, "div.s32") R2(6, "div.u32") R2(7, "rem.s32") R2(8, "rem.u32")
    R2(9, "min.s32") R2(10, "min.u32") R2(11, "max.s32") R2(12, "max.u32")
    R2(13, "mul24.lo.s32") R2(14, "mul24.hi.u32") R3(15, "mad.lo.s32") R3(16, "mad.hi.u32")
    R3(17, "mad24.lo.u32") R3(18, "sad.u32") R3(19, "sad.s32")
    R1(20, "abs.s32") R1(21, "neg.s32") R1(22, "popc.b32") R1(23, "clz.b32")
    R1(24, "bfind.u32") R1(25, "bfind.s32") R1(26, "brev.b32") R1(27, "bfind.shiftamt.u32")
    R2(28, "and.b32") R2(29, "or.b32") R2(30, "xor.b32") R1(31, "not.b32") R1(32, "cnot.b32")
    R2(33, "shl.b32") R2(34, "shr.u32") R2(35, "shr.s32")
    R3(36, "bfe.u32") R3(37, "bfe.s32") R3(38, "prmt.b32")
    R3(39, "shf.l.wrap.b32") R3(40, "shf.r.clamp.b32") R3(41, "shf.l.clamp.b32") R3(42, "shf.r.wrap.b32")
    R2(43, "add.sat.s32") R2(44, "sub.sat.s32") R3(45, "mad.hi.sat.s32")
    R3(46, "prmt.b32.f4e") R3(47, "prmt.b32.b4e") R3(48, "prmt.b32.rc8") R3(49, "prmt.b32.ecl")
    R3(50, "prmt.b32.ecr") R3(51, "prmt.b32.rc16")
    R2(52, "szext.wrap.s32") R2(53, "szext.clamp.u32") R2(54, "bmsk.clamp.b32") R2(55, "bmsk.wrap.b32")
    R3(56, "dp4a.u32.s32") R3(57, "dp4a.s32.s32")
    { unsigned d; asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c & 0xff), "r"(c >> 8)); OUT(58, d); }
    { unsigned d; asm volatile("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); OUT(59, d); }
    { unsigned d; asm volatile("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); OUT(60, d); }
    /* a 64-bit add and subtract through the carry flag */
    { unsigned lo, hi; asm volatile("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;"
                                    : "=r"(lo), "=r"(hi) : "r"(a), "r"(b), "r"(c), "r"(a)); OUT(61, lo); OUT(62, hi); }
    { unsigned lo, hi; asm volatile("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;"
                                    : "=r"(lo), "=r"(hi) : "r"(a), "r"(b), "r"(c), "r"(a)); OUT(63, lo); OUT(64, hi); }
    { unsigned d; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;\n\tmadc.hi.u32 %0, %1, %2, 0;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); OUT(65, d); }
    /* immediates in several notations */
    { unsigned d; asm volatile("add.u32 %0, %1, 0x10;" : "=r"(d) : "r"(a)); OUT(66, d); }
    { unsigned d; asm volatile("add.s32 %0, %1, -7;" : "=r"(d) : "r"(a)); OUT(67, d); }
    { unsigned d; asm volatile("xor.b32 %0, %1, 0b1010;" : "=r"(d) : "r"(a)); OUT(68, d); }
    { unsigned d; asm volatile("or.b32 %0, %1, 017;" : "=r"(d) : "r"(a)); OUT(69, d); }
}

#define L1(k, ins) { unsigned long long d; asm volatile(ins " %0, %1;" : "=l"(d) : "l"(a)); OUT(k, d); }
#define L2(k, ins) { unsigned long long d; asm volatile(ins " %0, %1, %2;" : "=l"(d) : "l"(a), "l"(b)); OUT(k, d); }
#define L3(k, ins) { unsigned long long d; asm volatile(ins " %0, %1, %2, %3;" : "=l"(d) : "l"(a), "l"(b), "l"(c)); OUT(k, d); }
#define LS(k, ins) { unsigned long long d; asm volatile(ins " %0, %1, %2;" : "=l"(d) : "l"(a), "r"((unsigned)b)); OUT(k, d); }

extern "C" __global__ void int64_ops(const unsigned long long *A, const unsigned long long *B,
                                     const unsigned long long *C, unsigned long long *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    unsigned long long a = A[t], b = B[t], c = C[t];
    L2(0, "add.s64") L2(1, "sub.s64") L2(2, "mul.lo.s64") L2(3, "mul.hi.s64") L2(4, "mul.hi.u64")
    L2(5, "div.s64") L2(6, "div.u64") L2(7, "rem.s64") L2(8, "rem.u64")
    L2(9, "min.s64") L2(10, "max.u64") L3(11, "mad.lo.s64") L3(12, "mad.hi.s64")
    L1(13, "abs.s64") L1(14, "neg.s64") L2(15, "and.b64") L2(16, "or.b64") L2(17, "xor.b64") L1(18, "not.b64")
    LS(19, "shl.b64") LS(20, "shr.u64") LS(21, "shr.s64") L1(22, "brev.b64")
    { unsigned d; asm volatile("popc.b64 %0, %1;" : "=r"(d) : "l"(a)); OUT(23, d); }
    { unsigned d; asm volatile("clz.b64 %0, %1;" : "=r"(d) : "l"(a)); OUT(24, d); }
    { unsigned d; asm volatile("bfind.s64 %0, %1;" : "=r"(d) : "l"(a)); OUT(25, d); }
    { unsigned long long d; asm volatile("bfe.s64 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "r"((unsigned)b), "r"((unsigned)c)); OUT(26, d); }
    { unsigned long long d; asm volatile("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(d) : "l"(a), "l"(b), "r"((unsigned)c & 0xff), "r"((unsigned)(c >> 8) & 0xff)); OUT(27, d); }
    { unsigned long long d; asm volatile("mul.wide.s32 %0, %1, %2;" : "=l"(d) : "r"((unsigned)a), "r"((unsigned)b)); OUT(28, d); }
    { unsigned long long d; asm volatile("mul.wide.u32 %0, %1, %2;" : "=l"(d) : "r"((unsigned)a), "r"((unsigned)b)); OUT(29, d); }
    { unsigned long long d; asm volatile("mad.wide.s32 %0, %1, %2, %3;" : "=l"(d) : "r"((unsigned)a), "r"((unsigned)b), "l"(c)); OUT(30, d); }
    { unsigned long long d; asm volatile("mov.b64 %0, {%1, %2};" : "=l"(d) : "r"((unsigned)a), "r"((unsigned)b)); OUT(31, d); }
    { unsigned lo, hi; asm volatile("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(a)); OUT(32, hi); OUT(33, lo); }
    { unsigned long long d; asm volatile("add.s64 %0, %1, -1;" : "=l"(d) : "l"(a)); OUT(34, d); }
    { unsigned long long d; asm volatile("sub.u64 %0, %1, 0x7fffffffffffffff;" : "=l"(d) : "l"(a)); OUT(35, d); }
}

#define H2(k, ins) { unsigned short d; asm volatile(ins " %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b)); OUT(k, d); }

extern "C" __global__ void int16_ops(const unsigned short *A, const unsigned short *B,
                                     unsigned *out, int n)
{
    int t = threadIdx.x;
    if (t >= n)
        return;
    unsigned short a = A[t], b = B[t];
    H2(0, "add.u16") H2(1, "sub.s16") H2(2, "mul.lo.u16") H2(3, "mul.hi.s16") H2(4, "div.s16")
    H2(5, "rem.u16") H2(6, "min.s16") H2(7, "max.u16") H2(8, "and.b16") H2(9, "xor.b16")
    { unsigned d; asm volatile("mul.wide.s16 %0, %1, %2;" : "=r"(d) : "h"(a), "h"(b)); OUT(10, d); }
    { unsigned short d; asm volatile("shl.b16 %0, %1, %2;" : "=h"(d) : "h"(a), "r"((unsigned)b & 31)); OUT(11, d); }
    { unsigned short d; asm volatile("shr.s16 %0, %1, %2;" : "=h"(d) : "h"(a), "r"((unsigned)b & 31)); OUT(12, d); }
    { unsigned d; asm volatile("{ .reg .pred p; setp.lt.s16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(d) : "h"(a), "h"(b)); OUT(13, d); }
    { unsigned d; asm volatile("cvt.s32.s16 %0, %1;" : "=r"(d) : "h"(a)); OUT(14, d); }
    { unsigned d; asm volatile("cvt.u32.u16 %0, %1;" : "=r"(d) : "h"(a)); OUT(15, d); }
}
