/*
 * lab5.cu - Lab 5: matrix product with shared-memory tiles.
 *
 * Compute C = A * B in float32. All matrices are row-major:
 *   A is M x K (element (i, k) at A[i * K + k]),
 *   B is K x N (element (k, j) at B[k * N + j]),
 *   C is M x N (element (i, j) at C[i * N + j]),
 * for ANY M, N, K >= 1: 1 x 1 x 1, 67 x 53, 191 x 19 and sizes that are no
 * multiple of your tiles are all graded.
 *
 * Contract (the grader relies on it; keep every name and signature):
 *   SMEMLAB_LAUNCHER void launch_matmulNaive (const float *A, const float *B, float *C,
 *                                             int M, int N, int K);   step 1
 *   SMEMLAB_LAUNCHER void launch_matmulTiled (same parameters);       step 2
 *   SMEMLAB_LAUNCHER void launch_matmulCoarse(same parameters);       step 3
 *   A launcher only launches on the default stream: no cudaMalloc, no
 *   cudaMemcpy, no cudaDeviceSynchronize, no error checks (the grader does
 *   those). A, B and C are device buffers the grader allocated.
 *
 *   Parameters, exported with SMEMLAB_PARAM:
 *     TILE = 16 must not change; the grader reads it and checks it when it
 *       loads your library. Step 2's global loads are expected to drop by a
 *       factor of about TILE compared with step 1.
 *     COARSE_BM, COARSE_BN, COARSE_BK, COARSE_TM, COARSE_TN: your step-3 tile
 *       shape, for you and your reader. Change them as you like: the grader
 *       neither reads nor checks them, it measures what the kernel does.
 *
 * Checks: correct (all steps), global-loads and smem-conflicts (steps 2-3),
 * speed (step 3: at least 50% of cuBLAS SGEMM's speed at 4096^3 earns its
 * points).
 * Tolerance: a result element passes if |C - ref| <= 1e-3 * max(|ref|, floor),
 * floor = sqrt(K) * max|A| * max|B| (rounding of a float32 sum in any order
 * is far inside that), and overall ||C - ref||_2 / ||ref||_2 <= 1e-5 (so
 * TF32 or half precision tensor-core math does not pass). NaN never passes.
 *
 * Build and grade:   make lab5 && make grade
 */
#include "smemlab.h"

/* ---------------------------------------------------------------- step 1 */

#define NAIVE_BLOCK 16

/*
 * TODO(student): one thread per element of C, reading A and B straight from
 * global memory.
 *  - row from blockIdx.y / threadIdx.y, col from blockIdx.x / threadIdx.x
 *    (threadIdx.x along a row of C: neighbouring threads then read
 *    neighbouring elements of B, which coalesces).
 *  - The grid is rounded up, so some threads fall outside C: they must not
 *    read or write anything.
 *  - Sum A[row][k] * B[k][col] over k in a register, then write C once.
 */
__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K)
{
}

SMEMLAB_LAUNCHER void launch_matmulNaive(const float *A, const float *B, float *C, int M, int N,
                                         int K)
{
    dim3 block(NAIVE_BLOCK, NAIVE_BLOCK);
    dim3 grid((N + NAIVE_BLOCK - 1) / NAIVE_BLOCK, (M + NAIVE_BLOCK - 1) / NAIVE_BLOCK);
    matmulNaive<<<grid, block>>>(A, B, C, M, N, K);
}

/* ---------------------------------------------------------------- step 2 */

#define TILE 16
SMEMLAB_PARAM(TILE, TILE);

/*
 * TODO(student): the same result, with TILE x TILE tiles in shared memory.
 * In step 1 every element of A is read N times and every element of B M
 * times, all from global memory. Here a TILE x TILE block walks along K one
 * tile at a time:
 *  1. Each thread copies ONE element of the current A tile and ONE of the
 *     current B tile into __shared__ float As[TILE][TILE], Bs[TILE][TILE].
 *     A thread whose element lies outside A or B (the last tile of a size
 *     that is no multiple of TILE) stores 0.0f instead: a zero term leaves
 *     every sum unchanged, and skipping the store would leave stale data.
 *  2. __syncthreads(): nobody may read the tile before everyone wrote it.
 *  3. Accumulate the TILE products of the tile from As and Bs.
 *  4. __syncthreads() again: nobody may overwrite the tile with the next one
 *     while slower warps still read it. (Without it the result is usually
 *     right on small sizes and wrong on large ones: a race.)
 * After the last tile, threads inside C write their sum.
 * Each element loaded is now used TILE times: global loads drop TILE-fold.
 * Bank conflicts: which words does a warp (2 rows of 16 threads) read from
 * As[ty][k] and from Bs[k][tx] at one k?
 */
__global__ void matmulTiled(const float *A, const float *B, float *C, int M, int N, int K)
{
}

SMEMLAB_LAUNCHER void launch_matmulTiled(const float *A, const float *B, float *C, int M, int N,
                                         int K)
{
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmulTiled<<<grid, block>>>(A, B, C, M, N, K);
}

/* ---------------------------------------------------------------- step 3 */

#define COARSE_BM 128 /* rows of C per block */
#define COARSE_BN 128 /* columns of C per block */
#define COARSE_BK 8   /* depth of the shared tiles along K */
#define COARSE_TM 8   /* rows of C per thread */
#define COARSE_TN 8   /* columns of C per thread */
SMEMLAB_PARAM(COARSE_BM, COARSE_BM);
SMEMLAB_PARAM(COARSE_BN, COARSE_BN);
SMEMLAB_PARAM(COARSE_BK, COARSE_BK);
SMEMLAB_PARAM(COARSE_TM, COARSE_TM);
SMEMLAB_PARAM(COARSE_TN, COARSE_TN);

#define COARSE_THREADS ((COARSE_BM / COARSE_TM) * (COARSE_BN / COARSE_TN))

/*
 * TODO(student): register tiling (thread coarsening) on top of shared tiles.
 * Step 2 does one multiply-add per two shared-memory reads, so shared memory
 * is now the bottleneck. Let each thread compute a TM x TN block of C in
 * registers instead: per step k it reads TM values of A and TN of B from
 * shared memory and does TM * TN multiply-adds with them.
 *  - A block of COARSE_THREADS threads (1-D, see the launcher) computes a
 *    BM x BN piece of C and walks along K in steps of BK: the whole block
 *    copies a BM x BK tile of A and a BK x BN tile of B into shared memory,
 *    several elements per thread, consecutive threads on consecutive
 *    addresses (coalesced), zeros outside the matrices as in step 2.
 *  - float acc[TM][TN] with loops of constant bounds and #pragma unroll stays
 *    in registers; an index the compiler cannot resolve moves it to slow
 *    local memory (-Xptxas -v reports "spill" / "stack frame").
 *  - Storing the A tile transposed (As[k][m]) makes the TM values a thread
 *    needs at one k contiguous; pad its rows if the stores then conflict.
 *  - Once correct: float4 loads where K and N are multiples of 4 and the
 *    pointers 16-byte aligned (keep a scalar path for the other sizes), and
 *    two shared buffers so the next tile loads while this one is used.
 * Do not write it all at once: docs/lab5.md#milestones goes there in steps
 * (1-D register tiling, then 2-D, then float4), each correct for every size
 * before the next, and says what each reaches.
 */
__global__ void matmulCoarse(const float *A, const float *B, float *C, int M, int N, int K)
{
}

SMEMLAB_LAUNCHER void launch_matmulCoarse(const float *A, const float *B, float *C, int M, int N,
                                          int K)
{
    dim3 block(COARSE_THREADS);
    dim3 grid((N + COARSE_BN - 1) / COARSE_BN, (M + COARSE_BM - 1) / COARSE_BM);
    matmulCoarse<<<grid, block>>>(A, B, C, M, N, K);
}
