/*
 * grader_kernels.cu - the grader's own device code, built into the grader
 * (never into a lab library, which the student controls): shared-memory
 * scrubbing, fresh inputs, output checks and reference results that the
 * timed and measured runs are checked against.
 */

/* Every block fills as much shared memory as it was given with `poison`. */
extern "C" __global__ void smemlab_grader_scrub(int words, int poison)
{
    extern __shared__ int scratch[];
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        scratch[i] = poison;
    __syncthreads();
    /* Keep the stores: a read that can escape stops the compiler dropping them. */
    if (scratch[(threadIdx.x * 7) % words] != poison)
        __trap();
}

/* 64 random bits from (seed, i): splitmix64's mix of the i-th step. */
static __device__ unsigned long long hash_of(unsigned long long seed, unsigned long long i)
{
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* x[i] uniform in [-1, 1) from a hash of (seed, i): fresh inputs for every timed run. */
extern "C" __global__ void smemlab_grader_fill(float *x, unsigned long long n,
                                               unsigned long long seed)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        x[i] = (float)((double)(hash_of(seed, i) >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

/*
 * acc[0] += sum (got - want)^2, acc[1] += sum want^2, acc[2] += elements
 * still holding the poison bits, acc[3] += elements that are not finite.
 */
extern "C" __global__ void smemlab_grader_diff(const float *got, const float *want,
                                               unsigned long long n, unsigned poison,
                                               double *acc)
{
    double d2 = 0, w2 = 0, poisoned = 0, bad = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        float g = got[i];
        double d = (double)g - (double)want[i];
        poisoned += __float_as_uint(g) == poison;
        bad += !isfinite(g);
        d2 += isfinite(g) ? d * d : 0;
        w2 += (double)want[i] * want[i];
    }
    atomicAdd(&acc[0], d2);
    atomicAdd(&acc[1], w2);
    atomicAdd(&acc[2], poisoned);
    atomicAdd(&acc[3], bad);
}

/*
 * Reference convolution, one output per thread, ghost cells 0: 1-D when
 * height == 1 (mw taps), else 2-D (mw x mw taps). Accumulates in double.
 */
extern "C" __global__ void smemlab_grader_conv(const float *in, const float *mask, float *out,
                                               int width, int height, int mw)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= width || y >= height)
        return;
    int r = mw / 2;
    double sum = 0;
    if (height == 1) {
        for (int j = 0; j < mw; j++) {
            int xi = x - r + j;
            if (xi >= 0 && xi < width)
                sum += (double)in[xi] * mask[j];
        }
    } else {
        for (int i = 0; i < mw; i++)
            for (int j = 0; j < mw; j++) {
                int yi = y - r + i, xi = x - r + j;
                if (yi >= 0 && yi < height && xi >= 0 && xi < width)
                    sum += (double)in[(size_t)yi * width + xi] * mask[i * mw + j];
            }
    }
    out[(size_t)y * width + x] = (float)sum;
}

/* Lab 9's roof: copyRow as the lab writes it (blocks of 32 x 16, a row segment a warp,
   both sides coalesced), timed against steps 4 and 5 on the same matrix. The grader's
   own, so that a student's slow copy cannot make a slow transpose look fast. */
extern "C" __global__ void smemlab_grader_copy_rows(const float *in, float *out, int nx, int ny)
{
    unsigned ix = blockIdx.x * 32 + threadIdx.x, iy = blockIdx.y * 16 + threadIdx.y;
    if (ix < (unsigned)nx && iy < (unsigned)ny)
        out[(size_t)iy * nx + ix] = in[(size_t)iy * nx + ix];
}

/* Lab 9's reference for checking each timed run on the device: out (nx rows of ny) is in
   (ny rows of nx) transposed. Plain, not fast: it only has to be right. */
extern "C" __global__ void smemlab_grader_transpose(const float *in, float *out, int nx, int ny)
{
    unsigned ix = blockIdx.x * 32 + threadIdx.x, iy = blockIdx.y * 16 + threadIdx.y;
    if (ix < (unsigned)nx && iy < (unsigned)ny)
        out[(size_t)ix * ny + iy] = in[(size_t)iy * nx + ix];
}

/* Lab 10's lookup keys for one timed run: keys[i] uniform in [0, table) from a hash of
   (seed, i), so that no run's answer is an earlier one's. */
extern "C" __global__ void smemlab_grader_keys(int *keys, unsigned long long n,
                                               unsigned long long seed, int table)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        keys[i] = (int)((hash_of(seed, i) >> 32) % (unsigned)table);
}

/* The lookup's reference: out[i] = table[keys[i]]. */
extern "C" __global__ void smemlab_grader_gather(const int *keys, const float *table, float *out,
                                                 unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = table[keys[i]];
}

/* Lab 10's lookup roof: the lookup as the page and skeleton write it, one key a thread in
   blocks of 256, the table through the read-only cache (__ldg). A gather is not a copy:
   the keys' stream, the table's sectors and the outputs' stream are what an honest lookup
   moves, and this is what it moves them at on the card at hand. The grader's own, so that
   no student's code is the yardstick. Launched with (n + 255) / 256 blocks. */
extern "C" __global__ void smemlab_grader_lookup_roof(const int *keys, const float *table,
                                                      float *out, unsigned long long n)
{
    unsigned long long i = blockIdx.x * 256ull + threadIdx.x;
    if (i < n)
        out[i] = __ldg(&table[__ldg(&keys[i])]);
}

/* A copy as fast as a kernel makes one, for make bench beside cudaMemcpy's device-to-device
   copy (is the copy roof itself a good copy on this card?): 16-byte accesses, four of them
   in flight a thread before any store (bytes enough for HBM3e's latency), a grid-stride
   loop over n4 float4s; the tail of n % 4 floats by the first threads. */
extern "C" __global__ void smemlab_grader_copy_wide(const float *in, float *out,
                                                    unsigned long long n)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    unsigned long long n4 = n / 4, stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        out4[i] = a, out4[i + stride] = b, out4[i + 2 * stride] = c, out4[i + 3 * stride] = d;
    }
    for (; i < n4; i += stride)
        out4[i] = in4[i];
    unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (t < n % 4)
        out[n4 * 4 + t] = in[n4 * 4 + t];
}
