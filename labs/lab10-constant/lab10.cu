/*
 * lab10.cu - Lab 10: constant memory against the read-only cache.
 *
 * Definitions (float32):
 *   stencil: out[i] = sum_{j=0}^{2 RADIUS} coef[j] * in[i - RADIUS + j]
 *            (9 points; inputs outside [0, n) are ghost cells and read as 0).
 *   lookup:  out[i] = table[keys[i]], every key in [0, TABLE).
 *
 * Contract (the grader relies on it; keep every name and signature):
 *   SMEMLAB_LAUNCHER void launch_stencil1DConst(const float *in, float *out, int n);    step 1
 *   SMEMLAB_LAUNCHER void launch_stencil1DReadOnly(const float *in, const float *coef,
 *                                                  float *out, int n);              step 2
 *   SMEMLAB_LAUNCHER void launch_lookupConst(const int *keys, float *out, int n);      step 3
 *   SMEMLAB_LAUNCHER void launch_lookupReadOnly(const int *keys, const float *table,
 *                                               float *out, int n);                 step 4
 *   A launcher only launches on the default stream: no cudaMalloc, no
 *   cudaMemcpy, no cudaDeviceSynchronize, no error checks. in, keys, coef,
 *   table and out are device buffers the grader allocated.
 *
 *   __constant__ float c_coef[2 * RADIUS + 1], c_table[TABLE]: the grader
 *   writes the coefficients and the table there before every run (with
 *   cudaMemcpyToSymbol), the same values it passes as coef and table. Keep
 *   both at global scope with the SMEMLAB_SYMBOL lines below.
 *
 *   Parameters (exported with SMEMLAB_PARAM):
 *     must not change: TILE = 1024 (outputs of one stencil block),
 *       RADIUS = 4, TABLE = 256.
 *     yours to choose: THREADS (threads of a block; a divisor of TILE).
 *
 * Checks: correct (all steps); memory-path (step 1 and 3 read constant memory,
 * steps 2 and 4 the read-only cache: ld.global.nc); const-serialization
 * (distinct constant addresses a warp request: 1 for the stencil, the keys'
 * count for step 3, none serialized in step 4); global-loads (each input
 * once a tile, its halo too), smem-conflicts, race (the stencils); speed
 * (steps 1, 2 and 4, against a device-to-device copy of the same bytes).
 * The memory path and the serialization are measured by the emulator, which
 * sees each load's state space and every lane's constant address: on a GPU
 * the grader runs your kernel's PTX on the emulator too, for these two.
 *
 * Predict first: how many distinct constant-memory addresses one warp request
 * reads (1 = a broadcast; the constant cache serves N addresses one after
 * another) in the lines below; the grader says which were right (no points
 * either way; ? is skipped). For the lookup: 32 lanes, each with its own key
 * from 256 table entries.
 *
 * Build and grade:   make lab10 && make grade
 */
#include "smemlab.h"

// PREDICT stencil1DConst const ?
// PREDICT lookupConst const ?

#define TILE 1024
#define THREADS 1024
#define RADIUS 4
#define TAPS (2 * RADIUS + 1)
#define TABLE 256
SMEMLAB_PARAM(TILE, TILE);
SMEMLAB_PARAM(THREADS, THREADS);
SMEMLAB_PARAM(RADIUS, RADIUS);
SMEMLAB_PARAM(TABLE, TABLE);

/* The coefficients and the table (nvcc gives their host handles internal linkage:
   SMEMLAB_SYMBOL exports them for the grader). Keep them. */
__constant__ float c_coef[TAPS];
__constant__ float c_table[TABLE];
SMEMLAB_SYMBOL(c_coef);
SMEMLAB_SYMBOL(c_table);

/* ---------------------------------------------------------------- step 1 */

/*
 * TODO(student): block b makes outputs [b * TILE, (b + 1) * TILE).
 *  1. They need inputs b * TILE - RADIUS to (b + 1) * TILE - 1 + RADIUS: the
 *     tile and a halo of RADIUS cells on each side. Copy them into
 *     __shared__ float tile[TILE + 2 * RADIUS], 0 for ghost cells, each input
 *     read from global memory once (thread t copies t, t + THREADS, ...: a
 *     warp reads consecutive addresses).
 *  2. __syncthreads(): the halo comes from other threads' loads.
 *  3. Output o of the block is sum_j tile[o + j] * c_coef[j]; skip outputs at
 *     or past n.
 * Every lane of a warp reads the same c_coef[j] at the same time: the
 * constant cache serves that in one broadcast.
 */
__global__ void stencil1DConst(const float *in, float *out, int n)
{
}

SMEMLAB_LAUNCHER void launch_stencil1DConst(const float *in, float *out, int n)
{
    stencil1DConst<<<(n + TILE - 1) / TILE, THREADS>>>(in, out, n);
}

/* ---------------------------------------------------------------- step 2 */

/*
 * TODO(student): the same stencil, with the coefficients read from coef
 * through the read-only data cache instead of constant memory: __ldg(&coef[j]),
 * or a `const float *__restrict__ coef` parameter (then the compiler knows
 * nothing writes it during the kernel). Both compile to ld.global.nc. Reading
 * each coefficient once a thread, into registers, is enough.
 */
__global__ void stencil1DReadOnly(const float *in, const float *coef, float *out, int n)
{
}

SMEMLAB_LAUNCHER void launch_stencil1DReadOnly(const float *in, const float *coef, float *out,
                                               int n)
{
    stencil1DReadOnly<<<(n + TILE - 1) / TILE, THREADS>>>(in, coef, out, n);
}

/* ---------------------------------------------------------------- step 3 */

#define LOOKUP_THREADS 256

/*
 * TODO(student): out[i] = c_table[keys[i]], one output a thread (or more).
 * Every lane has a key of its own: a warp's request reads up to 32 different
 * words of c_table. How many passes does the constant cache make for it?
 * Predict, then read const-serialization in the report.
 */
__global__ void lookupConst(const int *keys, float *out, int n)
{
}

SMEMLAB_LAUNCHER void launch_lookupConst(const int *keys, float *out, int n)
{
    if (n > 0)
        lookupConst<<<(n + LOOKUP_THREADS - 1) / LOOKUP_THREADS, LOOKUP_THREADS>>>(keys, out, n);
}

/* ---------------------------------------------------------------- step 4 */

/*
 * TODO(student): the same lookup from table, through the read-only cache
 * (__ldg or const __restrict__). It serves a warp's different addresses
 * together, a few 32-byte sectors at a time. Speed: four keys a thread (an
 * int4 load) and a float4 store move as many bytes in flight as a copy.
 */
__global__ void lookupReadOnly(const int *keys, const float *table, float *out, int n)
{
}

SMEMLAB_LAUNCHER void launch_lookupReadOnly(const int *keys, const float *table, float *out,
                                            int n)
{
    if (n > 0)
        lookupReadOnly<<<(n + LOOKUP_THREADS - 1) / LOOKUP_THREADS, LOOKUP_THREADS>>>(
            keys, table, out, n);
}
