#!/usr/bin/env python3
"""gen-idioms.py OUT_DIR - the idiom corpus: kernels written the ways current
CUDA code touches shared memory beyond plain loads and stores, for holding
every backend to the hardware (make check-truth-gpu) and the emulator to the
H100's recorded figures (make check-truth, tests/truth/h100-idioms.tsv).

Classes: cp.async of 4, 8 and 16 bytes (strides on either side, zero fill,
idle lanes), shared atomics of every kind on distinct, shared and conflicting
words, ldmatrix and stmatrix, loads and stores ptxas narrows or fuses, float4
loads with a word never used, half precision tiles, device printf beside
shared accesses, and faults (a write past out, a shared overrun); reductions
(labs 7 and 8: trees in global and shared memory, sequential and interleaved,
the last warp unrolled, a dynamic tile)
and warp shuffles (broadcast, up, down, wrap-around, butterfly, widths, an
array a lane, block sums with one word a warp in shared memory), whose global
loads and stores and shuffles are held to the hardware's as well.

Every kernel runs one block (idioms-NN.cu: launch_NAME(int *out)) of 128
threads, or what its k() row gives (256 threads, a lone warp, a dynamic tile's
bytes), first fills a global buffer of its own (stores only: the loads counted
are the idiom's), and writes up to 512 ints of out that depend on nothing but the code: the
same on every run and device, so the emulator's output must equal the GPU's
(the fixture keeps its hash). idioms-NN.tsv lists the kernels (idiom NAME
CLASS); a part holds at most 56 (the grader reads 64 kernels a library).
"""
import os, sys

PROLOGUE = """#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cstdio>

__device__ int4 gsrc[4096];

/* The global source, filled by the block itself: stores only. */
static __device__ void fill_source()
{
    int *g = (int *)gsrc;
    for (int i = threadIdx.x; i < 4 * 4096; i += blockDim.x)
        g[i] = (int)((unsigned)i * 2654435761u >> 7);
    __threadfence_block();
    __syncthreads();
}

/* The reductions' and shuffles' input, filled by the block itself as above:
   mixed signs, so that a sum that drops an element shows. */
__device__ int gin[2048];
__device__ int gpart[256]; /* partial sums through global memory (a planted mistake) */

static __device__ void fill_input(int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        gin[i] = (int)((unsigned)i * 2654435761u >> 9) - (1 << 22);
    __threadfence_block();
    __syncthreads();
}

#define FULL 0xffffffffu
#define LAUNCH(n) extern "C" void launch_##n(int *out) { n<<<1, 128>>>(out); }
#define LAUNCH_T(n, threads, bytes) \
    extern "C" void launch_##n(int *out) { n<<<1, threads, bytes>>>(out); }
"""

kernels = []  # (name, class, body, launch: None for 128 threads, or (threads, bytes))


def k(name, cls, body, launch=None):
    assert len(name) <= 15, name  # the corpus lab keeps 15 characters of a name
    kernels.append((name, cls, body, launch))


# --- cp.async -------------------------------------------------------------------------
TYPES = {4: "int", 8: "int2", 16: "int4"}
FIRST = {4: "v", 8: "v.x + v.y", 16: "v.x + v.y + v.z + v.w"}
for w in (4, 8, 16):
    for dst, src in ((1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (4, 4), (8, 1), (32, 1)):
        if w == 16 and dst == 3:
            continue  # the hardware's count here fits no rule yet (h100-async-atomics.tsv)
        if 128 * dst * w > 48 * 1024:
            continue  # more static shared memory than a kernel may declare
        n = "cp%d_d%d_s%d" % (w, dst, src)
        T = TYPES[w]
        k(n, "cp.async", """
    __shared__ %(T)s s[128 * %(dst)d + 4];
    int t = threadIdx.x;
    fill_source();
    __pipeline_memcpy_async(&s[t * %(dst)d], (const %(T)s *)gsrc + t * %(src)d, %(w)d);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    %(T)s v = s[(127 - t) * %(dst)d];
    out[t] = %(first)s;""" % dict(T=T, dst=dst, src=src, w=w, first=FIRST[w]))
for w in (4, 8, 16):
    T = TYPES[w]
    k("cp%d_zfill" % w, "cp.async", """
    __shared__ %(T)s s[128];
    int t = threadIdx.x;
    fill_source();
    unsigned d = (unsigned)__cvta_generic_to_shared(&s[t]);
    int n = t %% 3 == 0 ? 0 : %(w)d; /* every third lane reads nothing: zeros land */
    asm volatile("cp.async.ca.shared.global [%%0], [%%1], %(w)d, %%2;" :: "r"(d), "l"((const %(T)s *)gsrc + t), "r"(n));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    %(T)s v = s[127 - t];
    out[t] = %(first)s;""" % dict(T=T, w=w, first=FIRST[w]))
k("cp4_groups", "cp.async", """
    __shared__ int a[128], b[128];
    int t = threadIdx.x;
    fill_source();
    __pipeline_memcpy_async(&a[t], (const int *)gsrc + t, 4);
    __pipeline_commit();
    __pipeline_memcpy_async(&b[t], (const int *)gsrc + 512 + t, 4);
    __pipeline_commit();
    __pipeline_wait_prior(1); /* the first group only */
    __syncthreads();
    out[t] = a[127 - t];
    __pipeline_wait_prior(0);
    __syncthreads();
    out[128 + t] = b[127 - t];""")

# --- shared atomics --------------------------------------------------------------------
ATOMS = {
    "add": "atomicAdd(&s[i], t + 1)", "min": "atomicMin(&s[i], 1000 - t)",
    "max": "atomicMax(&s[i], t)", "and": "atomicAnd(&s[i], ~(1 << (t % 31)))",
    "or": "atomicOr(&s[i], 1 << (t % 31))", "xor": "atomicXor(&s[i], t)",
    "inc": "atomicInc((unsigned *)&s[i], 1000u)", "exch": "atomicExch(&s[i], 7)",
    "cas": "atomicCAS(&s[i], 0, 5)",
}
for op, call in ATOMS.items():
    for stride in (0, 1, 2, 32, 33):
        if op in ("exch", "cas") and stride in (0, 32):
            pass  # same-word exch and cas: values depend on the order; outputs below avoid it
        k("at_%s_s%d" % (op, stride), "atomic", """
    __shared__ int s[32 * 33 + 1];
    int t = threadIdx.x;
    for (int j = t; j < 32 * 33 + 1; j += 128)
        s[j] = 0;
    __syncthreads();
    int i = (t %% 32) * %(stride)d;
    %(call)s;
    __syncthreads();
    out[t] = %(readback)s;""" % dict(stride=stride, call=call,
                                    readback="(s[i] != 0)" if op in ("exch", "cas") else "s[i]"))

# --- ldmatrix / stmatrix ----------------------------------------------------------------
for x, regs in ((1, "{%0}"), (2, "{%0, %1}"), (4, "{%0, %1, %2, %3}")):
    for trans in ("", ".trans"):
        for pitch in (8, 16, 64, 72):  # 16-bit elements a row: 16 B, 32 B, 128 B, 144 B
            n = "ldsm_x%d%s_p%d" % (x, "t" if trans else "", pitch)
            outs = ", ".join('"=r"(r[%d])' % j for j in range(x))
            k(n, "ldmatrix", """
    __shared__ unsigned short m[32 * %(pitch)d + 8];
    int t = threadIdx.x;
    for (int j = t; j < 32 * %(pitch)d + 8; j += 128)
        m[j] = (unsigned short)(j * 7 + 1);
    __syncthreads();
    unsigned r[4] = {0, 0, 0, 0};
    unsigned a = (unsigned)__cvta_generic_to_shared(&m[(t %% 32) * %(pitch)d]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x%(x)d%(trans)s.shared.b16 %(regs)s, [%%%(x)d];"
                 : %(outs)s : "r"(a));
    out[t] = (int)(r[0] ^ r[1] ^ r[2] ^ r[3]);""" % dict(pitch=pitch, x=x, trans=trans, regs=regs, outs=outs))
for x in (1, 2, 4):
    regs = ", ".join("%%%d" % (j + 1) for j in range(x))
    ins = ", ".join('"r"(t * 16 + %d)' % j for j in range(x))
    k("stsm_x%d" % x, "stmatrix", """
    __shared__ unsigned short m[4 * 32 * 8];
    int t = threadIdx.x;
    unsigned a = (unsigned)__cvta_generic_to_shared(&m[(t %% 32) * 8 + (t / 32) * 256]);
#if __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x%(x)d.shared.b16 [%%0], {%(regs)s};" :: "r"(a), %(ins)s);
#else
    for (int j = 0; j < 8; j++) m[(t %% 32) * 8 + (t / 32) * 256 + j] = 0; /* sm_90 only */
#endif
    __syncthreads();
    out[t] = m[t * 2] + m[t * 2 + 1] * 65536;""" % dict(x=x, regs=regs, ins=ins))

# --- narrowed and fused -----------------------------------------------------------------
for stride in (1, 2, 3):
    k("nar_low_s%d" % stride, "narrowed", """
    __shared__ long long d[128 * %(s)d];
    int t = threadIdx.x;
    d[t * %(s)d] = ((long long)(t + 1) << 32) | (unsigned)(t * 3);
    __syncthreads();
    out[t] = (int)d[(127 - t) * %(s)d];""" % dict(s=stride))
    k("nar_high_s%d" % stride, "narrowed", """
    __shared__ long long d[128 * %(s)d];
    int t = threadIdx.x;
    d[t * %(s)d] = ((long long)(t + 1) << 32) | (unsigned)(t * 3);
    __syncthreads();
    out[t] = (int)(d[(127 - t) * %(s)d] >> 32);""" % dict(s=stride))
k("nar_col", "narrowed", """
    __shared__ long long d[32][33];
    int t = threadIdx.x, x = t % 32, y = t / 32;
    d[y][x] = t;
    __syncthreads();
    out[t] = (int)d[x][y];""")
k("fuse_pair", "fused", """
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = t;
    s[t + 128] = -t;
    __syncthreads();
    out[t] = s[2 * ((t * 5) % 128)] + s[2 * ((t * 5) % 128) + 1];""")
k("fuse_quad", "fused", """
    __shared__ int s[512];
    int t = threadIdx.x;
    for (int j = t; j < 512; j += 128)
        s[j] = j * 3;
    __syncthreads();
    out[t] = s[4 * t] + s[4 * t + 1] + s[4 * t + 2] + s[4 * t + 3];""")
k("fuse_store", "fused", """
    __shared__ int s[256];
    int t = threadIdx.x;
    s[2 * t] = t;
    s[2 * t + 1] = -3 * t;
    __syncthreads();
    out[t] = s[255 - t];""")
k("fuse_col", "fused", """
    __shared__ int s[32][66];
    int t = threadIdx.x, x = t % 32, y = t / 32;
    s[x][2 * y] = t;
    s[x][2 * y + 1] = -t;
    __syncthreads();
    out[t] = s[y][2 * x] + s[y][2 * x + 1] * 3;""")

# --- a dead word: a float4 load one of whose words is never used --------------------------
# ptxas keeps the LDS.128, the Compute Sanitizer reports it 12 bytes wide, and the
# hardware serves all 16 (a 7-wide stencil's window read as float4 does this).
for dead, use in (("w", "v.x + v.y * 3.0f + v.z * 5.0f"), ("x", "v.y + v.z * 3.0f + v.w * 5.0f")):
    for stride in (1, 2, 5):
        k("dead_%s_s%d" % (dead, stride), "dead word", """
    __shared__ float4 d[128 * %(s)d];
    int t = threadIdx.x;
    d[t * %(s)d] = make_float4(t, t * 2, t * 3, t * 4);
    __syncthreads();
    float4 v = d[((t * 7) %% 128) * %(s)d];
    out[t] = (int)(%(use)s);""" % dict(s=stride, use=use))
k("dead_w_rows", "dead word", """
    __shared__ __align__(16) float d[16 * 40];
    int t = threadIdx.x;
    for (int j = t; j < 16 * 40; j += 128)
        d[j] = j * 0.5f;
    __syncthreads();
    /* 8 threads a row of pitch 40, three float4 each, the last word of the third unused */
    const float4 *p = (const float4 *)(d + (t / 8) * 40 + 4 * (t % 8));
    float4 a = p[0], b = p[1], c = p[2];
    out[t] = (int)(a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w + c.x + c.y + c.z);""")

# --- half precision ---------------------------------------------------------------------
k("h2_row", "half", """
    __shared__ __half2 s[128];
    int t = threadIdx.x;
    s[t] = __floats2half2_rn((float)t, (float)-t);
    __syncthreads();
    __half2 v = __hadd2(s[127 - t], s[t]);
    out[t] = (int)__low2float(v) * 1000 + (int)__high2float(v);""")
k("h_row", "half", """
    __shared__ __half s[128];
    int t = threadIdx.x;
    s[t] = __float2half(t * 0.5f);
    __syncthreads();
    out[t] = (int)(__half2float(__hfma(s[127 - t], s[t], __float2half(1.5f))) * 4);""")
k("h_col", "half", """
    __shared__ __half s[32][32];
    int t = threadIdx.x, x = t % 32, y = t / 32;
    s[y][x] = __float2half((float)t);
    __syncthreads();
    out[t] = (int)__half2float(s[x][y]);""")
k("h2_col_pad", "half", """
    __shared__ __half2 s[32][33];
    int t = threadIdx.x, x = t % 32, y = t / 32;
    s[y][x] = __halves2half2(__int2half_rn(t), __int2half_rn(-t));
    __syncthreads();
    out[t] = (int)__low2float(__hmul2(s[x][y], __float2half2_rn(2.0f)));""")

# --- printf beside shared accesses, and faults -----------------------------------------
k("printf_tile", "printf", """
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = t * 2;
    __syncthreads();
    if (t % 64 == 0)
        printf("tile[%d] = %d\\n", 127 - t, s[127 - t]);
    out[t] = s[127 - t];""")

# --- reductions (lab 7) ------------------------------------------------------------------
# One block sums D of gin's ints; thread 0 stores the sum (one store a block). The
# trees as the chapter writes them: sequential addressing (conflict-free), the
# interleaved tid % (2 stride) and index = 2 stride tid (conflicts, divergence).
TREES = {
    "seq": "for (int st = D / 2; st > 0; st >>= 1) {\n        if (t < st)\n"
           "            s[t] += s[t + st];\n        __syncthreads();\n    }",
    "inter": "for (int st = 1; st < D; st *= 2) {\n        if (t % (2 * st) == 0)\n"
             "            s[t] += s[t + st];\n        __syncthreads();\n    }",
    "idx": "for (int st = 1; st < D; st *= 2) {\n        int i = 2 * st * t;\n"
           "        if (i < D)\n            s[i] += s[i + st];\n        __syncthreads();\n    }",
}
for d in (128, 256):
    for tree, code in TREES.items():
        k("red_%s_%d" % (tree, d), "reduce", """
    const int D = %(d)d;
    __shared__ int s[D];
    int t = threadIdx.x;
    fill_input(D);
    s[t] = gin[t];
    __syncthreads();
    %(code)s
    if (t == 0)
        out[0] = s[0];""" % dict(d=d, code=code), None if d == 128 else (d, 0))
k("red_gmem", "reduce", """
    int t = threadIdx.x;
    fill_input(128);
    for (int st = 64; st > 0; st >>= 1) { /* the tree in place in global memory */
        if (t < st)
            gin[t] += gin[t + st];
        __syncthreads();
    }
    if (t == 0)
        out[0] = gin[0];""")
k("red_seq_n100", "reduce", """
    __shared__ int s[128];
    int t = threadIdx.x, n = 100; /* not a power of two: the tree guards its pairs */
    fill_input(n);
    s[t] = t < n ? gin[t] : 0;
    __syncthreads();
    for (int st = 64; st > 0; st >>= 1) {
        if (t < st && t + st < n)
            s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];""")
# Four elements a thread from global memory first (coalesced, independent loads).
UNROLL4 = """fill_input(512);
    int v = (gin[t] + gin[t + 128]) + (gin[t + 256] + gin[t + 384]);"""
LAST_WARP = {
    "sync": """if (t < 32) {
        int v = s[t] + s[t + 32];
        for (int w = 16; w > 0; w >>= 1) {
            s[t] = v;
            __syncwarp();
            v += s[t + w];
            __syncwarp();
        }
        if (t == 0)
            out[0] = v;
    }""",
    "vol": """if (t < 32) { /* the pre-Volta idiom: volatile and no __syncwarp */
        volatile int *vs = s;
        vs[t] += vs[t + 32];
        vs[t] += vs[t + 16];
        vs[t] += vs[t + 8];
        vs[t] += vs[t + 4];
        vs[t] += vs[t + 2];
        vs[t] += vs[t + 1];
    }
    if (t == 0)
        out[0] = s[0];""",
}
for name, last in LAST_WARP.items():
    k("red_warp_%s" % name, "reduce", """
    __shared__ int s[128];
    int t = threadIdx.x;
    %(load)s
    s[t] = v;
    __syncthreads();
    if (t < 64)
        s[t] += s[t + 64];
    __syncthreads();
    %(last)s""" % dict(load=UNROLL4, last=last))
k("red_unroll4", "reduce", """
    __shared__ int s[128];
    int t = threadIdx.x;
    %(load)s
    s[t] = v;
    __syncthreads();
    %(tree)s
    if (t == 0)
        out[0] = s[0];""" % dict(load=UNROLL4, tree=TREES["seq"].replace("D / 2", "64")))
k("red_dyn", "reduce", """
    extern __shared__ int s[]; /* the tile's bytes come at launch */
    int t = threadIdx.x;
    %(load)s
    s[t] = v;
    __syncthreads();
    %(tree)s
    if (t == 0)
        out[0] = s[0];""" % dict(load=UNROLL4, tree=TREES["seq"].replace("D / 2", "64")), (128, 512))
k("red_twice", "reduce", """
    __shared__ int s[128];
    int t = threadIdx.x;
    fill_input(128);
    s[t] = gin[t] + gin[t ^ 1]; /* every element read twice */
    __syncthreads();
    %(tree)s
    if (t == 0)
        out[0] = s[0];""" % dict(tree=TREES["seq"].replace("D / 2", "64")))
k("red_part_gmem", "reduce", """
    __shared__ int s[128];
    int t = threadIdx.x;
    fill_input(128);
    s[t] = gin[t];
    __syncthreads();
    for (int st = 64; st > 0; st >>= 1) { /* each level's sums through global memory */
        if (t < st)
            gpart[t] = s[t] + s[t + st];
        __syncthreads();
        if (t < st)
            s[t] = gpart[t];
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];""")

# --- warp shuffles (lab 8) -------------------------------------------------------------
# Each lane's value from gin, shuffled, stored to out: what moved shows in the output.
SHFL = {
    "shfl_bcast": "__shfl_sync(FULL, v, 3)",
    "shfl_bcast_var": "__shfl_sync(FULL, v, t / 32 + 5)",
    "shfl_up": "__shfl_up_sync(FULL, v, 2)",
    "shfl_down": "__shfl_down_sync(FULL, v, 5)",
    "shfl_wrap": "__shfl_sync(FULL, v, t + 7)",  # the source lane modulo the width
    "shfl_xor": "__shfl_xor_sync(FULL, v, 1)",
    "shfl_bcast_w16": "__shfl_sync(FULL, v, 0, 16)",
    "shfl_up_w16": "__shfl_up_sync(FULL, v, 3, 16)",
    "shfl_xor_w16": "__shfl_xor_sync(FULL, v, 9, 16)",
}
for name, call in SHFL.items():
    k(name, "shuffle", """
    int t = threadIdx.x;
    fill_input(128);
    int v = gin[t];
    v = %s;
    out[t] = v;""" % call)
k("shfl_lone_warp", "shuffle", """
    int t = threadIdx.x;
    fill_input(32);
    int v = gin[t %% 32];
    v = %s;
    out[t] = v;""" % SHFL["shfl_down"], (32, 0))
k("shfl_butterfly", "shuffle", """
    int t = threadIdx.x;
    fill_input(128);
    int v = gin[t];
    for (int m = 16; m > 0; m >>= 1) /* every lane ends with its warp's sum */
        v += __shfl_xor_sync(FULL, v, m);
    out[t] = v;""")
k("shfl_sum_down", "shuffle", """
    int t = threadIdx.x;
    fill_input(128);
    int v = gin[t];
    for (int d = 16; d > 0; d >>= 1) /* lane 0 ends with its warp's sum */
        v += __shfl_down_sync(FULL, v, d);
    if (t % 32 == 0)
        out[t / 32] = v;""")
k("shfl_array4", "shuffle", """
    int t = threadIdx.x;
    fill_input(512);
    int a[4];
    for (int j = 0; j < 4; j++) /* four values a lane, in registers */
        a[j] = gin[4 * t + j];
    for (int j = 0; j < 4; j++)
        a[j] = __shfl_xor_sync(FULL, a[j], 1 << j);
    for (int j = 0; j < 4; j++)
        out[4 * t + j] = a[j];""")
k("shfl_one_warp", "shuffle", """
    int t = threadIdx.x;
    fill_input(128);
    int v = gin[t];
    if (t / 32 == 1) /* one warp of four shuffles */
        v = __shfl_xor_sync(FULL, v, 3);
    out[t] = v;""")
k("shfl_half_mask", "shuffle", """
    int t = threadIdx.x;
    fill_input(128);
    int v = gin[t];
    if (t % 32 < 16) /* half a warp, its mask saying so */
        v = __shfl_sync(0x0000ffffu, v, 2, 16);
    out[t] = v;""")
k("shfl_ll", "shuffle", """
    int t = threadIdx.x;
    fill_input(256);
    long long v = ((long long)gin[t] << 32) | (unsigned)gin[t + 128];
    v = __shfl_down_sync(FULL, v, 1); /* 64 bits: two shuffles of 32 */
    out[t] = (int)(v >> 32) ^ (int)v;""")
# The block's sum: each warp with shuffles, one word a warp in shared memory, warp 0 last.
BLOCK_SUM = """for (int m = 16; m > 0; m >>= 1)
        v += __shfl_xor_sync(FULL, v, m);
    if (t %% 32 == 0)
        w[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < %(warps)d ? w[t] : 0;
        for (int m = 16; m > 0; m >>= 1)
            v += __shfl_xor_sync(FULL, v, m);
        if (t == 0)
            out[0] = v;
    }"""
for d in (128, 256):
    k("shfl_block_%d" % d, "shuffle", """
    __shared__ int w[%(warps)d];
    int t = threadIdx.x;
    fill_input(%(d)d);
    int v = gin[t];
    %(sum)s""" % dict(d=d, warps=d // 32, sum=BLOCK_SUM % dict(warps=d // 32)),
      None if d == 128 else (d, 0))
k("shfl_blk_unroll", "shuffle", """
    __shared__ int w[4];
    int t = threadIdx.x;
    %(load)s
    %(sum)s""" % dict(load=UNROLL4, sum=BLOCK_SUM % dict(warps=4)))

assert len({n for n, _, _, _ in kernels}) == len(kernels)
PER_PART = 56


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen-idioms.py OUT_DIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for p in range(0, len(kernels), PER_PART):
        part = "idioms-%02d" % (p // PER_PART)
        with open(os.path.join(outdir, part + ".cu"), "w") as f:
            f.write("/* Generated by tests/truth/gen-idioms.py: do not edit. */\n" + PROLOGUE)
            for name, cls, body, launch in kernels[p:p + PER_PART]:
                how = "LAUNCH(%s)" % name if not launch else "LAUNCH_T(%s, %d, %d)" % ((name,) + launch)
                f.write("\n/* %s */\n__global__ void %s(int *out)\n{%s\n}\n%s\n" % (cls, name, body, how))
        with open(os.path.join(outdir, part + ".tsv"), "w") as f:
            f.write("# idiom NAME CLASS (tests/truth/gen-idioms.py)\n")
            for name, cls, _, _ in kernels[p:p + PER_PART]:
                f.write("idiom\t%s\t%s\n" % (name, cls))
                rows.append((part, name, cls))
    with open(os.path.join(outdir, "idioms.tsv"), "w") as f:
        for part, name, cls in rows:
            f.write("%s\t%s\t%s\n" % (part, name, cls))
    print("gen-idioms: %d kernels in %d parts" % (len(kernels), (len(kernels) + PER_PART - 1) // PER_PART))


main()
