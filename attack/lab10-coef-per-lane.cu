/*
 * ATTACK VARIANT: lab10-coef-per-lane
 * Constant memory indexed per lane: stencil1DConst reads coefficient
 * c_coef[(j + lane) % TAPS] and the window word for that tap (the same sum, each lane
 * starting at a different tap): a warp's constant request has 9 distinct addresses,
 * served one after the other. Expected: const-serialization fails (9 distinct addresses
 * where a broadcast is 1); everything else passes.
 */

/*
 * lab10.cu - SOLUTION of lab 10: constant memory against the read-only cache.
 *
 * Contract (see common/smemlab.h and labs/lab10-constant/lab10.cu):
 *   stencil: out[i] = sum_{j=0}^{2 RADIUS} coef[j] * in[i - RADIUS + j], float32,
 *            inputs outside [0, n) are ghost cells worth 0.
 *   lookup:  out[i] = table[keys[i]], keys in [0, TABLE).
 *   SMEMLAB_LAUNCHER void launch_stencil1DConst(in, out, n);               step 1
 *   SMEMLAB_LAUNCHER void launch_stencil1DReadOnly(in, coef, out, n);      step 2
 *   SMEMLAB_LAUNCHER void launch_lookupConst(keys, out, n);                step 3
 *   SMEMLAB_LAUNCHER void launch_lookupReadOnly(keys, table, out, n);      step 4
 *   __constant__ float c_coef[2 * RADIUS + 1], c_table[TABLE]: filled by the
 *   grader (cudaMemcpyToSymbol through SMEMLAB_SYMBOL) before every run, with
 *   the same values it passes as coef and table.
 *   Params: TILE (1024), RADIUS (4), TABLE (256); THREADS (256) is ours.
 *   Build and grade: make lab10 && make grade
 */
#include "smemlab.h"

#define TILE 1024   /* outputs of one stencil block */
#define THREADS 256 /* threads of one block: TILE / THREADS outputs each */
#define RADIUS 4    /* a 9-point stencil */
#define TAPS (2 * RADIUS + 1)
#define TABLE 256   /* entries of the lookup table */
SMEMLAB_PARAM(TILE, TILE);
SMEMLAB_PARAM(THREADS, THREADS);
SMEMLAB_PARAM(RADIUS, RADIUS);
SMEMLAB_PARAM(TABLE, TABLE);

__constant__ float c_coef[TAPS];
__constant__ float c_table[TABLE];
SMEMLAB_SYMBOL(c_coef);
SMEMLAB_SYMBOL(c_table);

static_assert(TILE == 4 * THREADS, "one float4 of the tile's body a thread");

/* in[i], or 0 for a ghost cell. */
__device__ __forceinline__ float input_or_ghost(const float *in, int n, int i)
{
    return i >= 0 && i < n ? in[i] : 0.0f;
}

/*
 * The block's tile: tile[HALO + k] holds in[first + k] for k in [-RADIUS, TILE + RADIUS).
 * HALO is a multiple of 4, so the body starts 16-byte aligned: thread t moves float4
 * number t with one 16-byte load and one 16-byte store (a warp: 512 contiguous bytes,
 * coalesced and conflict-free); threads t < RADIUS add one halo cell on each side.
 * Every input comes from global memory once per block.
 */
#define HALO 4
static_assert(HALO >= RADIUS && HALO % 4 == 0, "halo pad");

template <bool VEC>
__device__ __forceinline__ void load_tile(float *tile, const float *in, int n, int first)
{
    int t = threadIdx.x, i = first + 4 * t;
    float4 v;
    if (VEC && i + 3 < n) {
        v = *reinterpret_cast<const float4 *>(in + i);
    } else { /* the signal's last, partial float4 (or an unaligned in) */
        v.x = input_or_ghost(in, n, i);
        v.y = input_or_ghost(in, n, i + 1);
        v.z = input_or_ghost(in, n, i + 2);
        v.w = input_or_ghost(in, n, i + 3);
    }
    if (t < RADIUS) { /* the halo, once */
        tile[HALO - RADIUS + t] = input_or_ghost(in, n, first - RADIUS + t);
        tile[HALO + TILE + t] = input_or_ghost(in, n, first + TILE + t);
    }
    *reinterpret_cast<float4 *>(&tile[HALO + 4 * t]) = v;
}

/*
 * The taps. Thread t makes the four neighbouring outputs first + 4t .. first + 4t + 3.
 * Output o = 4t + k, tap j reads tile[HALO - RADIUS + o + j], so together they lie in
 * the 12 tile words 4t .. 4t + 11 (RADIUS <= HALO = 4): three float4 shared loads (a
 * warp reads 512 contiguous bytes a load: conflict-free), kept in registers, each word
 * serving up to four outputs, which then leave in one 16-byte store. Read one word a
 * tap, the same four outputs take 36 shared loads: on an H200 those keep the load units
 * about three quarters busy at a copy's speed, and the stencils made 81 and 90 % of a
 * copy there; the window makes 97 % (docs/lab10.md).
 *
 * CONST: coefficient j is c_coef[j], the same word for every lane at once: one broadcast
 * of the constant cache. Otherwise it is c[j], the thread's registers (step 2).
 */
static_assert(HALO == 4 && RADIUS <= HALO, "a window of 12 words makes 4 outputs");

template <bool VEC, bool CONST>
__device__ __forceinline__ void stencil4(const float *tile, const float *c, float *out, int n,
                                         int first)
{
    int o = 4 * threadIdx.x, i = first + o;
    if (i >= n)
        return;
    const float4 *p = reinterpret_cast<const float4 *>(tile + o);
    float4 a = p[0], b = p[1], d = p[2];
    const float w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, d.x, d.y, d.z, d.w};
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (CONST) {
        int lane = threadIdx.x % 32;
        for (int t = 0; t < TAPS; t++) {
            int j = (t + lane) % TAPS;
            float m = c_coef[j];
#pragma unroll
            for (int k = 0; k < 4; k++)
                s[k] += tile[o + HALO - RADIUS + k + j] * m;
        }
    } else {
#pragma unroll
    for (int j = 0; j < TAPS; j++) {
        float m = c[j];
#pragma unroll
        for (int k = 0; k < 4; k++)
            s[k] += w[HALO - RADIUS + k + j] * m;
    }
    }
    if (VEC && i + 3 < n) { /* out is 16-byte aligned: the four outputs in one store */
        *reinterpret_cast<float4 *>(out + i) = make_float4(s[0], s[1], s[2], s[3]);
    } else { /* the signal's last, partial float4 (or an unaligned out) */
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (i + k < n)
                out[i + k] = s[k];
    }
}

/* VEC: in and out both 16-byte aligned (cudaMalloc's always are). */
static bool aligned16(const void *a, const void *b)
{
    return (((size_t)a | (size_t)b) & 15) == 0;
}

/* ---------------------------------------------------------------- step 1 */

/* The coefficients from constant memory, read where the taps need them. */
template <bool VEC>
__global__ void stencil1DConst(const float *in, float *out, int n)
{
    __shared__ __align__(16) float tile[HALO + TILE + HALO];
    int first = blockIdx.x * TILE;
    load_tile<VEC>(tile, in, n, first);
    __syncthreads();
    stencil4<VEC, true>(tile, nullptr, out, n, first);
}

SMEMLAB_LAUNCHER void launch_stencil1DConst(const float *in, float *out, int n)
{
    int blocks = (n + TILE - 1) / TILE;
    if (aligned16(in, out))
        stencil1DConst<true><<<blocks, THREADS>>>(in, out, n);
    else
        stencil1DConst<false><<<blocks, THREADS>>>(in, out, n);
}

/* ---------------------------------------------------------------- step 2 */

/* The coefficients through the read-only cache: __ldg is ld.global.nc, read once a
   thread into registers. */
template <bool VEC>
__global__ void stencil1DReadOnly(const float *in, const float *__restrict__ coef, float *out,
                                  int n)
{
    __shared__ __align__(16) float tile[HALO + TILE + HALO];
    float c[TAPS];
#pragma unroll
    for (int j = 0; j < TAPS; j++)
        c[j] = __ldg(&coef[j]);
    int first = blockIdx.x * TILE;
    load_tile<VEC>(tile, in, n, first);
    __syncthreads();
    stencil4<VEC, false>(tile, c, out, n, first);
}

SMEMLAB_LAUNCHER void launch_stencil1DReadOnly(const float *in, const float *coef, float *out,
                                               int n)
{
    int blocks = (n + TILE - 1) / TILE;
    if (aligned16(in, out))
        stencil1DReadOnly<true><<<blocks, THREADS>>>(in, coef, out, n);
    else
        stencil1DReadOnly<false><<<blocks, THREADS>>>(in, coef, out, n);
}

/* ---------------------------------------------------------------- steps 3 and 4 */

/*
 * Four keys a thread (one 16-byte load), four lookups, one 16-byte store: the
 * streams of keys and outputs as wide as a copy's. Each lane's key differs, so a
 * warp's constant request has about 30 distinct addresses (32 keys of 256) and the
 * constant cache serves them one after another; the read-only cache serves them as
 * a gather, a few 32-byte sectors at once.
 */
template <bool CONST>
__device__ __forceinline__ float lookup(const float *__restrict__ table, int k)
{
    return CONST ? c_table[k] : __ldg(&table[k]);
}

/* Out[i .. i + 3] from keys[i .. i + 3], through lookup<CONST>. */
template <bool CONST>
__device__ __forceinline__ void lookup4(const int *__restrict__ keys,
                                        const float *__restrict__ table, float *out, int n)
{
    int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i + 3 < n) {
        int4 k = *reinterpret_cast<const int4 *>(keys + i);
        float4 v = make_float4(lookup<CONST>(table, k.x), lookup<CONST>(table, k.y),
                               lookup<CONST>(table, k.z), lookup<CONST>(table, k.w));
        *reinterpret_cast<float4 *>(out + i) = v;
    } else {
        for (; i < n; i++)
            out[i] = lookup<CONST>(table, keys[i]);
    }
}

__global__ void lookupConst(const int *__restrict__ keys, float *out, int n)
{
    lookup4<true>(keys, nullptr, out, n);
}

__global__ void lookupReadOnly(const int *__restrict__ keys, const float *__restrict__ table,
                               float *out, int n)
{
    lookup4<false>(keys, table, out, n);
}

/* keys and out come from cudaMalloc (256-byte aligned): the 16-byte accesses are. */
static int lookup_blocks(int n)
{
    return (n + 4 * THREADS - 1) / (4 * THREADS);
}

SMEMLAB_LAUNCHER void launch_lookupConst(const int *keys, float *out, int n)
{
    if (n > 0)
        lookupConst<<<lookup_blocks(n), THREADS>>>(keys, out, n);
}

SMEMLAB_LAUNCHER void launch_lookupReadOnly(const int *keys, const float *table, float *out,
                                            int n)
{
    if (n > 0)
        lookupReadOnly<<<lookup_blocks(n), THREADS>>>(keys, table, out, n);
}
