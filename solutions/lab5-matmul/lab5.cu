/*
 * lab5.cu - SOLUTION of lab 5: matrix product with shared-memory tiles.
 *
 * Contract (see common/smemlab.h and labs/lab5-matmul/lab5.cu):
 *   C = A * B in float32, row-major; A is M x K, B is K x N, C is M x N,
 *   any M, N, K >= 1.
 *   SMEMLAB_LAUNCHER void launch_matmulNaive (A, B, C, M, N, K);  step 1
 *   SMEMLAB_LAUNCHER void launch_matmulTiled (A, B, C, M, N, K);  step 2
 *   SMEMLAB_LAUNCHER void launch_matmulCoarse(A, B, C, M, N, K);  step 3
 *   Params: TILE (16), COARSE_BM, COARSE_BN, COARSE_BK, COARSE_TM, COARSE_TN.
 *   Grader tolerance: per element 1e-3 of max(|ref|, sqrt(K)*max|A|*max|B|),
 *   overall ||C - ref||_2 / ||ref||_2 <= 1e-5 (grader/reference/tolerance.h).
 *   Build and grade: make lab5 && make grade
 */
#include "smemlab.h"

/* ---------------------------------------------------------------- step 1 */

#define NAIVE_BLOCK 16

/* One output per thread; every operand comes from global memory. */
__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
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
 * A TILE x TILE block computes a TILE x TILE piece of C. It walks along K one
 * tile at a time: every thread brings one element of A and one of B into
 * shared memory, and the block then reuses each of them TILE times. Global
 * loads drop by a factor TILE compared with step 1.
 */
__global__ void matmulTiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        /* Threads past an edge store 0: a zero term leaves every sum unchanged. */
        int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        __syncthreads(); /* the tile is complete before anyone reads it */

        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads(); /* nobody overwrites the tile while others still read it */
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = acc;
}

SMEMLAB_LAUNCHER void launch_matmulTiled(const float *A, const float *B, float *C, int M, int N,
                                         int K)
{
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmulTiled<<<grid, block>>>(A, B, C, M, N, K);
}

/* ---------------------------------------------------------------- step 3 */

/*
 * Register tiling. A block of 256 threads computes a BM x BN = 128 x 128
 * piece of C; each thread keeps TM x TN = 8 x 8 sums in registers. Per step
 * along K a thread reads 8 values of A and 8 of B from shared memory and does
 * 64 multiply-adds with them, so shared memory is no longer the bottleneck.
 *
 * Layout of the 8 x 8 outputs of a thread: the 8 warps cover 2 x 4 warp tiles
 * of 64 x 32; in a warp, lane (lm, ln) = (lane / 4, lane % 4) owns rows
 * {lm*4 + 0..3, 32 + lm*4 + 0..3} and columns {ln*4 + 0..3, 16 + ln*4 + 0..3}
 * of its warp tile. Each fragment is then two float4 reads of shared memory;
 * a warp reads 8 distinct float4 of A (128 contiguous bytes) and 4 of B, so
 * the reads are free of bank conflicts.
 *
 * A is stored transposed (As[k][m]) so the 8 values of A a thread needs along
 * M are contiguous; its row pitch BM + 4 keeps rows 16-byte aligned for the
 * float4 reads and the transposed stores free of conflicts (see a_row_of).
 *
 * Latency hiding, on three levels: two shared buffers (while the block
 * computes on one, the next tile is on its way from global memory into
 * registers and is written into the other buffer afterwards, so one barrier
 * per tile suffices); a deep tile (BK = 16 steps between barriers); and the
 * fragments of step k + 1 read from shared memory while step k multiplies.
 * On an H100 this ran at about 92% of cuBLAS SGEMM at 2048^3 and 4096^3
 * (64% at 1024^3, where its 64 blocks leave half of the 132 SMs idle).
 */
#define COARSE_BM 128
#define COARSE_BN 128
#define COARSE_BK 16
#define COARSE_TM 8
#define COARSE_TN 8
SMEMLAB_PARAM(COARSE_BM, COARSE_BM);
SMEMLAB_PARAM(COARSE_BN, COARSE_BN);
SMEMLAB_PARAM(COARSE_BK, COARSE_BK);
SMEMLAB_PARAM(COARSE_TM, COARSE_TM);
SMEMLAB_PARAM(COARSE_TN, COARSE_TN);

#define COARSE_THREADS ((COARSE_BM / COARSE_TM) * (COARSE_BN / COARSE_TN))
#define AS_PITCH (COARSE_BM + 4)
#define A_VECS (COARSE_BM * COARSE_BK / 4 / COARSE_THREADS) /* float4 of A per thread */
#define B_VECS (COARSE_BN * COARSE_BK / 4 / COARSE_THREADS) /* float4 of B per thread */

static_assert(A_VECS >= 1 && A_VECS * 4 * COARSE_THREADS == COARSE_BM * COARSE_BK, "A tile");
static_assert(B_VECS >= 1 && B_VECS * 4 * COARSE_THREADS == COARSE_BN * COARSE_BK, "B tile");
/* The warp layout below (2 x 4 warps of 64 x 32, two float4 per fragment) is written for these. */
static_assert(COARSE_BM == 128 && COARSE_BN == 128 && COARSE_TM == 8 && COARSE_TN == 8,
              "warp layout");

/* The next tile, on its way from global memory to shared memory. */
struct CoarseStage {
    float4 a[A_VECS], b[B_VECS];
};

/*
 * Where float4 number v of this thread lies in the tiles.
 * B: BK rows of BN/4 float4; consecutive threads take consecutive float4 of
 * a row (coalesced), and a warp's float4 stores fill 512 contiguous bytes.
 * A: each pass covers all BM rows, A_PASS_K float4 per row (2 threads per
 * row, one 32-byte sector); pass v takes the next A_PASS_K float4 along K.
 * A warp then stores its values transposed into 16 columns m of 2 rows k
 * and k + 4 of As, which the pitch BM + 4 puts 16 banks apart: no conflict.
 */
#define A_PASS_K (COARSE_THREADS / COARSE_BM)
static_assert(A_PASS_K * COARSE_BM == COARSE_THREADS && A_PASS_K * A_VECS * 4 == COARSE_BK,
              "A load mapping");
__device__ __forceinline__ int a_row_of() { return threadIdx.x / A_PASS_K; }
__device__ __forceinline__ int a_k_of(int v) { return (threadIdx.x % A_PASS_K + v * A_PASS_K) * 4; }
__device__ __forceinline__ int b_k_of(int v)
{
    return (threadIdx.x + v * COARSE_THREADS) / (COARSE_BN / 4);
}
__device__ __forceinline__ int b_col_of(int v)
{
    return (threadIdx.x + v * COARSE_THREADS) % (COARSE_BN / 4) * 4;
}

/*
 * Four consecutive elements p[0..3] of a row whose first `left` elements are
 * in range (left <= 0: none). VEC: the caller guarantees 16-byte alignment
 * and left >= 4 or left <= 0, so one float4 load does. Out of range gives 0.
 */
template <bool VEC>
__device__ __forceinline__ float4 load4(const float *p, bool row_ok, int left)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (!row_ok || left <= 0)
        return v;
    if (VEC)
        return *reinterpret_cast<const float4 *>(p);
    v.x = p[0];
    v.y = left > 1 ? p[1] : 0.0f;
    v.z = left > 2 ? p[2] : 0.0f;
    v.w = left > 3 ? p[3] : 0.0f;
    return v;
}

/* Fetch this thread's part of the tiles of A and B that start at k0. */
template <bool VEC>
__device__ __forceinline__ void coarse_fetch(const float *A, const float *B, int M, int N, int K,
                                             int bm, int bn, int k0, CoarseStage &st)
{
#pragma unroll
    for (int v = 0; v < A_VECS; v++) {
        int row = bm + a_row_of(), k = k0 + a_k_of(v);
        st.a[v] = load4<VEC>(A + (size_t)row * K + k, row < M, K - k);
    }
#pragma unroll
    for (int v = 0; v < B_VECS; v++) {
        int k = k0 + b_k_of(v), col = bn + b_col_of(v);
        st.b[v] = load4<VEC>(B + (size_t)k * N + col, k < K, N - col);
    }
}

/* Write a fetched stage into one shared buffer; A goes in transposed. */
__device__ __forceinline__ void coarse_stash(float (*As)[AS_PITCH], float (*Bs)[COARSE_BN],
                                             const CoarseStage &st)
{
#pragma unroll
    for (int v = 0; v < A_VECS; v++) {
        int m = a_row_of(), k = a_k_of(v);
        As[k + 0][m] = st.a[v].x;
        As[k + 1][m] = st.a[v].y;
        As[k + 2][m] = st.a[v].z;
        As[k + 3][m] = st.a[v].w;
    }
#pragma unroll
    for (int v = 0; v < B_VECS; v++)
        *reinterpret_cast<float4 *>(&Bs[b_k_of(v)][b_col_of(v)]) = st.b[v];
}

/* The 8 values of A and 8 of B that this thread needs at step k: four float4 reads. */
__device__ __forceinline__ void load_frag(const float (*As)[AS_PITCH],
                                          const float (*Bs)[COARSE_BN], int k, int m0, int n0,
                                          float *a, float *b)
{
    *reinterpret_cast<float4 *>(&a[0]) = *reinterpret_cast<const float4 *>(&As[k][m0]);
    *reinterpret_cast<float4 *>(&a[4]) = *reinterpret_cast<const float4 *>(&As[k][m0 + 32]);
    *reinterpret_cast<float4 *>(&b[0]) = *reinterpret_cast<const float4 *>(&Bs[k][n0]);
    *reinterpret_cast<float4 *>(&b[4]) = *reinterpret_cast<const float4 *>(&Bs[k][n0 + 16]);
}

/* BK rank-1 updates; the fragments of step k + 1 are read while step k multiplies. */
__device__ __forceinline__ void coarse_compute(const float (*As)[AS_PITCH],
                                               const float (*Bs)[COARSE_BN], int m0, int n0,
                                               float acc[COARSE_TM][COARSE_TN])
{
    float a[2][COARSE_TM], b[2][COARSE_TN];
    load_frag(As, Bs, 0, m0, n0, a[0], b[0]);
#pragma unroll
    for (int k = 0; k < COARSE_BK; k++) {
        if (k + 1 < COARSE_BK)
            load_frag(As, Bs, k + 1, m0, n0, a[(k + 1) & 1], b[(k + 1) & 1]);
#pragma unroll
        for (int i = 0; i < COARSE_TM; i++)
#pragma unroll
            for (int j = 0; j < COARSE_TN; j++)
                acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
    }
}

/* Store the 8 x 8 sums: rows m0 + {0..3, 32..35}, columns n0 + {0..3, 16..19}. */
template <bool VEC>
__device__ __forceinline__ void coarse_store(float *C, int M, int N, int row0, int col0,
                                             const float acc[COARSE_TM][COARSE_TN])
{
#pragma unroll
    for (int i = 0; i < COARSE_TM; i++) {
        int row = row0 + (i & 3) + (i >> 2) * 32;
        if (row >= M)
            continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int col = col0 + h * 16;
            float *p = C + (size_t)row * N + col;
            const float *v = &acc[i][h * 4];
            if (VEC) {
                if (col < N)
                    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (col + j < N)
                        p[j] = v[j];
            }
        }
    }
}

template <bool VEC>
__global__ void __launch_bounds__(COARSE_THREADS, 2)
    matmulCoarse(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ __align__(16) float As[2][COARSE_BK][AS_PITCH];
    __shared__ __align__(16) float Bs[2][COARSE_BK][COARSE_BN];
    int bm = blockIdx.y * COARSE_BM, bn = blockIdx.x * COARSE_BN;

    /* Warp tile 64 x 32 (2 x 4 warps), lane (lane / 4, lane % 4) as described above. */
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int m0 = (warp / 4) * 64 + (lane / 4) * 4;
    int n0 = (warp % 4) * 32 + (lane % 4) * 4;

    float acc[COARSE_TM][COARSE_TN];
#pragma unroll
    for (int i = 0; i < COARSE_TM; i++)
#pragma unroll
        for (int j = 0; j < COARSE_TN; j++)
            acc[i][j] = 0.0f;

    CoarseStage st;
    coarse_fetch<VEC>(A, B, M, N, K, bm, bn, 0, st);
    coarse_stash(As[0], Bs[0], st);
    __syncthreads();

    int tiles = (K + COARSE_BK - 1) / COARSE_BK;
    for (int t = 0; t < tiles; t++) {
        int cur = t & 1;
        bool more = t + 1 < tiles;
        if (more) /* in flight during the compute below */
            coarse_fetch<VEC>(A, B, M, N, K, bm, bn, (t + 1) * COARSE_BK, st);
        coarse_compute(As[cur], Bs[cur], m0, n0, acc);
        if (more) /* the other buffer was last read before the previous barrier */
            coarse_stash(As[cur ^ 1], Bs[cur ^ 1], st);
        __syncthreads();
    }
    coarse_store<VEC>(C, M, N, bm + m0, bn + n0, acc);
}

static bool aligned16(const void *p)
{
    return ((size_t)p & 15) == 0;
}

SMEMLAB_LAUNCHER void launch_matmulCoarse(const float *A, const float *B, float *C, int M, int N,
                                          int K)
{
    dim3 block(COARSE_THREADS);
    dim3 grid((N + COARSE_BN - 1) / COARSE_BN, (M + COARSE_BM - 1) / COARSE_BM);
    bool vec = K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
    if (vec)
        matmulCoarse<true><<<grid, block>>>(A, B, C, M, N, K);
    else
        matmulCoarse<false><<<grid, block>>>(A, B, C, M, N, K);
}
