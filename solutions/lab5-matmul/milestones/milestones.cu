/*
 * milestones.cu - lab 5 step 3 in three smaller steps, for `make bench`.
 *
 * Between matmulTiled (step 2: one output per thread, 16 x 16 tiles) and
 * matmulCoarse (step 3: 128 x 128 blocks, 8 x 8 outputs per thread, float4
 * loads, double buffering) lie three milestones, each a complete kernel
 * that is correct for every M, N, K >= 1. docs/lab5.md#milestones walks
 * through them; `make bench` times them next to cuBLAS.
 *
 *   matmulReg1d     1-D register tiling: a 64 x 64 block tile, BK = 8, and
 *                   each thread computes TM = 8 outputs of one column. Per
 *                   k it reads one value of Bs into a register and reuses
 *                   it 8 times against a broadcast column of As.
 *   matmulReg2d     2-D register tiling: a 128 x 128 block tile, BK = 8,
 *                   8 x 8 outputs per thread in float acc[8][8]. Per k: 8
 *                   values of As, 8 of Bs, 64 multiply-adds. As is stored
 *                   transposed (As[k][m]) with 4 pad columns so that the
 *                   transposed stores do not conflict; the thread's 8
 *                   columns are 16 apart so that a warp reads 16
 *                   consecutive words of Bs (no conflict).
 *   matmulReg2dVec  the same with float4: one float4 global load of A and
 *                   one of B per thread and tile, and float4 reads of As
 *                   and Bs, where K and N are multiples of 4 and the
 *                   pointers 16-byte aligned (else matmulReg2d runs).
 *
 * Not part of any lab's contract: the grader never loads this file. Each
 * launcher only launches, like the lab's.
 */
#include "smemlab.h"

/* ------------------------------------------------------------ 1-D register tiling */

#define R1_BM 64
#define R1_BN 64
#define R1_BK 8
#define R1_TM 8
#define R1_THREADS (R1_BM * R1_BN / R1_TM) /* 512 */

static_assert(R1_BM * R1_BK == R1_THREADS && R1_BK * R1_BN == R1_THREADS, "one element each");

__global__ void __launch_bounds__(R1_THREADS)
    matmulReg1d(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[R1_BM][R1_BK];
    __shared__ float Bs[R1_BK][R1_BN];
    int t = threadIdx.x;
    int bm = blockIdx.y * R1_BM, bn = blockIdx.x * R1_BN;
    int col = t % R1_BN, row0 = (t / R1_BN) * R1_TM; /* this thread's outputs */
    int a_row = t / R1_BK, a_k = t % R1_BK;           /* what it loads */
    int b_k = t / R1_BN, b_col = t % R1_BN;
    float acc[R1_TM];
#pragma unroll
    for (int i = 0; i < R1_TM; i++)
        acc[i] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R1_BK) {
        int ar = bm + a_row, ak = k0 + a_k, bk = k0 + b_k, bc = bn + b_col;
        As[a_row][a_k] = ar < M && ak < K ? A[(size_t)ar * K + ak] : 0.0f;
        Bs[b_k][b_col] = bk < K && bc < N ? B[(size_t)bk * N + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < R1_BK; k++) {
            float b = Bs[k][col]; /* one register, used TM times */
#pragma unroll
            for (int i = 0; i < R1_TM; i++)
                acc[i] = fmaf(As[row0 + i][k], b, acc[i]); /* a broadcast per warp */
        }
        __syncthreads();
    }
    int c = bn + col;
#pragma unroll
    for (int i = 0; i < R1_TM; i++) {
        int r = bm + row0 + i;
        if (r < M && c < N)
            C[(size_t)r * N + c] = acc[i];
    }
}

SMEMLAB_LAUNCHER void launch_matmulReg1d(const float *A, const float *B, float *C, int M, int N,
                                         int K)
{
    dim3 grid((N + R1_BN - 1) / R1_BN, (M + R1_BM - 1) / R1_BM);
    matmulReg1d<<<grid, R1_THREADS>>>(A, B, C, M, N, K);
}

/* ------------------------------------------------------------ 2-D register tiling */

#define R2_BM 128
#define R2_BN 128
#define R2_BK 8
#define R2_TM 8
#define R2_TN 8
#define R2_THREADS ((R2_BM / R2_TM) * (R2_BN / R2_TN)) /* 256 */
#define R2_AS_PITCH (R2_BM + 4) /* transposed stores land 4 banks apart per k: no conflict */
#define R2_LOADS (R2_BM * R2_BK / R2_THREADS) /* elements of A (and of B) per thread: 4 */

static_assert(R2_LOADS * R2_THREADS == R2_BM * R2_BK && R2_BN * R2_BK == R2_BM * R2_BK, "tiles");

/* Thread (tr, tc) of the 16 x 16 thread grid owns rows tr*8 + i and columns tc + 16*j. */
__global__ void __launch_bounds__(R2_THREADS)
    matmulReg2d(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[R2_BK][R2_AS_PITCH];
    __shared__ float Bs[R2_BK][R2_BN];
    int t = threadIdx.x, tr = t / (R2_BN / R2_TN), tc = t % (R2_BN / R2_TN);
    int bm = blockIdx.y * R2_BM, bn = blockIdx.x * R2_BN;
    float acc[R2_TM][R2_TN];
#pragma unroll
    for (int i = 0; i < R2_TM; i++)
#pragma unroll
        for (int j = 0; j < R2_TN; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R2_BK) {
#pragma unroll
        for (int l = 0; l < R2_LOADS; l++) {
            int idx = t + l * R2_THREADS;
            int m = idx / R2_BK, k = idx % R2_BK; /* A: consecutive threads along a row */
            int ar = bm + m, ak = k0 + k;
            As[k][m] = ar < M && ak < K ? A[(size_t)ar * K + ak] : 0.0f;
            int bk = idx / R2_BN, bc = idx % R2_BN; /* B: consecutive threads along a row */
            int gk = k0 + bk, gc = bn + bc;
            Bs[bk][bc] = gk < K && gc < N ? B[(size_t)gk * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < R2_BK; k++) {
            float a[R2_TM], b[R2_TN];
#pragma unroll
            for (int i = 0; i < R2_TM; i++)
                a[i] = As[k][tr * R2_TM + i];
#pragma unroll
            for (int j = 0; j < R2_TN; j++)
                b[j] = Bs[k][tc + j * (R2_BN / R2_TN)];
#pragma unroll
            for (int i = 0; i < R2_TM; i++)
#pragma unroll
                for (int j = 0; j < R2_TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < R2_TM; i++) {
        int r = bm + tr * R2_TM + i;
#pragma unroll
        for (int j = 0; j < R2_TN; j++) {
            int c = bn + tc + j * (R2_BN / R2_TN);
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

SMEMLAB_LAUNCHER void launch_matmulReg2d(const float *A, const float *B, float *C, int M, int N,
                                         int K)
{
    dim3 grid((N + R2_BN - 1) / R2_BN, (M + R2_BM - 1) / R2_BM);
    matmulReg2d<<<grid, R2_THREADS>>>(A, B, C, M, N, K);
}

/* ------------------------------------------------------------ 2-D, float4 */

/*
 * Thread (tr, tc) owns rows tr*4 + {0..3} and 64 + tr*4 + {0..3}, and the
 * same for columns, so that its 8 values of As and of Bs at one k are two
 * float4 each. Loads: one float4 of A (row t / 2, k (t % 2) * 4) and one of
 * B (row t / 32, columns (t % 32) * 4) per thread and tile. Needs K % 4 == 0,
 * N % 4 == 0 and 16-byte aligned pointers; rows past M or columns past N
 * are zero-filled a whole float4 at a time (N % 4 == 0 keeps that exact).
 */
__global__ void __launch_bounds__(R2_THREADS)
    matmulReg2dVec(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) float As[R2_BK][R2_AS_PITCH];
    __shared__ __align__(16) float Bs[R2_BK][R2_BN];
    int t = threadIdx.x, tr = t / 16, tc = t % 16;
    int bm = blockIdx.y * R2_BM, bn = blockIdx.x * R2_BN;
    int a_m = t / 2, a_k = (t % 2) * 4, b_k = t / 32, b_c = (t % 32) * 4;
    float acc[R2_TM][R2_TN];
#pragma unroll
    for (int i = 0; i < R2_TM; i++)
#pragma unroll
        for (int j = 0; j < R2_TN; j++)
            acc[i][j] = 0.0f;

    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k0 = 0; k0 < K; k0 += R2_BK) {
        int ar = bm + a_m, ak = k0 + a_k;
        float4 av = ar < M && ak < K ? *reinterpret_cast<const float4 *>(A + (size_t)ar * K + ak) : zero;
        As[a_k + 0][a_m] = av.x; /* transposed: with pitch BM + 4, 32 lanes, 32 banks */
        As[a_k + 1][a_m] = av.y;
        As[a_k + 2][a_m] = av.z;
        As[a_k + 3][a_m] = av.w;
        int bk = k0 + b_k, bc = bn + b_c;
        float4 bv = bk < K && bc < N ? *reinterpret_cast<const float4 *>(B + (size_t)bk * N + bc) : zero;
        *reinterpret_cast<float4 *>(&Bs[b_k][b_c]) = bv;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < R2_BK; k++) {
            float a[8], b[8];
            *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&As[k][tr * 4]);
            *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&As[k][64 + tr * 4]);
            *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&Bs[k][tc * 4]);
            *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&Bs[k][64 + tc * 4]);
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int r = bm + (i < 4 ? tr * 4 + i : 64 + tr * 4 + i - 4);
        if (r >= M)
            continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int c = bn + h * 64 + tc * 4;
            if (c < N)
                *reinterpret_cast<float4 *>(C + (size_t)r * N + c) =
                    make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
        }
    }
}

static bool aligned16(const void *p)
{
    return ((size_t)p & 15) == 0;
}

SMEMLAB_LAUNCHER void launch_matmulReg2dVec(const float *A, const float *B, float *C, int M, int N,
                                            int K)
{
    dim3 grid((N + R2_BN - 1) / R2_BN, (M + R2_BM - 1) / R2_BM);
    if (K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C))
        matmulReg2dVec<<<grid, R2_THREADS>>>(A, B, C, M, N, K);
    else
        matmulReg2d<<<grid, R2_THREADS>>>(A, B, C, M, N, K);
}
