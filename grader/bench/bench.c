/*
 * bench.c - how fast are the lab 5 to 8 solutions, next to the roofs?
 *
 *   bench [LAB5_SO LAB6_SO] [--milestones SO] [--conv-milestones SO]
 *         [--reduce LAB7_SO LAB8_SO] [--transpose LAB9_SO] [--constant LAB10_SO]
 *         [--reps N] [--warmup N] [--seed S]
 *         [--quick]     (LAB5_SO LAB6_SO: unless --reduce, --transpose or --constant)
 *   e.g. bench build/solutions/lab5.so build/solutions/lab6.so
 *
 * --transpose LAB9_SO: lab 9's kernels on an 8192 x 8192 float matrix against a
 * device-to-device copy of it, each output checked exactly.
 *
 * --constant: lab 10's stencils and lookups against a device-to-device copy of
 * the same bytes (2^26 elements), each result checked against the host
 * reference (the stencil: ref_conv1d with 9 taps; the lookup: exact).
 *
 * --reduce: the reductions of labs 7 and 8 against CUB's
 * cub::DeviceReduce::Sum (grader/device/cub_sum.cu) on 2^26 ints, each
 * result (the partial sums added up) checked against CUB's sum.
 *
 * --milestones SO: also time the step-3 milestones of lab 5 that SO exports
 * (launch_matmulReg1d, launch_matmulReg2d, launch_matmulReg2dVec; built from
 * solutions/lab5-matmul/milestones/), so docs/lab5.md can say what fraction
 * of cuBLAS each reaches.
 *
 * --conv-milestones SO: also time lab 6's earlier conv2dTiled, one column a
 * thread (launch_conv2dColumn, solutions/lab6-convolution/milestones/): the
 * before beside the solution's after.
 *
 * Lab 5: the three matrix-product launchers against cuBLAS SGEMM (float32
 * math, no TF32) at the sizes in sizes_matmul_bench. Lab 6: the three
 * convolution launchers against a device-to-device cudaMemcpy of the same
 * bytes, which is as fast as a kernel that reads its input once and writes
 * its output once can be.
 *
 * Every timed result is checked first (matmul: relative Frobenius error
 * against cuBLAS, cuBLAS itself against the host reference at the smallest
 * size; convolution: against the host reference), so a fast wrong kernel is
 * marked WRONG rather than looking good. Times are the median of --reps
 * CUDA-event timings after --warmup untimed runs; the spread column is min-max.
 * The card is printed first: its name, SMs, clocks and the memory's peak bandwidth from
 * the device properties. Beside every device-to-device copy, the grader's own wide copy
 * (smemlab_grader_copy_wide: float4s, four in flight a thread) says whether the copy
 * roof is itself a good copy on this card; lab 10's lookups are timed beside the
 * grader's own lookup too (smemlab_grader_lookup_roof, the lookup's speed roof).
 * The percentages are of the section's first row: cuBLAS, CUB, cudaMemcpy.
 *
 * --candidate SO (repeatable, 16 at most): a whole lab file built as a library, its
 * section timed again with its kernels (the lab is the one whose launchers it
 * exports), each row named LABEL:kernel (LABEL its file's name less .so), so that one
 * run shows a candidate beside the solution it would replace
 * (solutions/candidates/README.md), or a planted variant beside the solution.
 *
 * Exit status: 0 when every result checked out, 1 otherwise, 2 on errors.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reference/prng.h"
#include "../reference/lookup_ref.h"
#include "../reference/reduce_ref.h"
#include "../reference/reference.h"
#include "../labs/sizes.h"
#include "../run/cub.h"
#include "../reference/tolerance.h"
#include "../run/timing.h"

/* ---------------------------------------------------------------- errors */

static void cuda_check(cudaError_t err, const char *what, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "bench: line %d: %s failed: %s (%s)\n", line, what, cudaGetErrorString(err),
            cudaGetErrorName(err));
    exit(2);
}

static void cublas_check(cublasStatus_t st, const char *what, int line)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "bench: line %d: %s failed: %s\n", line, what, cublasGetStatusString(st));
    exit(2);
}

#define CUDA_CHECK(call) cuda_check((call), #call, __LINE__)
#define CUBLAS_CHECK(call) cublas_check((call), #call, __LINE__)

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "bench: out of host memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

static float *device_floats(size_t n)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
    return p;
}

/* ---------------------------------------------------------------- options */

#define MAX_CANDIDATES 16

typedef struct options {
    const char *lab5, *lab6, *milestones, *conv_milestones, *lab7, *lab8, *lab9, *lab10;
    const char *candidates[MAX_CANDIDATES];
    int n_candidates;
    int reps, warmup, quick;
    uint64_t seed;
} options;

static void usage(void)
{
    fprintf(stderr, "usage: bench LAB5_SO LAB6_SO [--milestones SO] [--conv-milestones SO] "
                    "[--reduce LAB7_SO LAB8_SO] "
                    "[--transpose LAB9_SO] [--constant LAB10_SO] [--candidate SO]... "
                    "[--reps N] [--warmup N] [--seed S] [--quick]\n");
    exit(2);
}

static int int_arg(const char *s, int lo, int hi)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        usage();
    return (int)v;
}

static options parse_options(int argc, char **argv)
{
    options o = {.reps = 20, .warmup = 3, .seed = PRNG_DEFAULT_SEED};
    for (int i = 1; i < argc; i++) {
        int has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--reps") && has_value)
            o.reps = int_arg(argv[++i], 1, TIMING_MAX_REPS);
        else if (!strcmp(argv[i], "--warmup") && has_value)
            o.warmup = int_arg(argv[++i], 0, 1000);
        else if (!strcmp(argv[i], "--seed") && has_value) {
            if (prng_parse_seed(argv[++i], &o.seed) != 0)
                usage();
        } else if (!strcmp(argv[i], "--milestones") && has_value)
            o.milestones = argv[++i];
        else if (!strcmp(argv[i], "--conv-milestones") && has_value)
            o.conv_milestones = argv[++i];
        else if (!strcmp(argv[i], "--transpose") && has_value)
            o.lab9 = argv[++i];
        else if (!strcmp(argv[i], "--constant") && has_value)
            o.lab10 = argv[++i];
        else if (!strcmp(argv[i], "--candidate") && has_value && o.n_candidates < MAX_CANDIDATES)
            o.candidates[o.n_candidates++] = argv[++i];
        else if (!strcmp(argv[i], "--reduce") && i + 2 < argc) {
            o.lab7 = argv[++i];
            o.lab8 = argv[++i];
        }
        else if (!strcmp(argv[i], "--quick"))
            o.quick = 1;
        else if (argv[i][0] == '-' || o.lab6 != NULL)
            usage();
        else if (o.lab5 == NULL)
            o.lab5 = argv[i];
        else
            o.lab6 = argv[i];
    }
    if (o.lab6 == NULL && o.lab7 == NULL && o.lab9 == NULL && o.lab10 == NULL) /* --reduce, --transpose, --constant alone */
        usage();
    return o;
}

/* ---------------------------------------------------------------- loading */

/*
 * A lab library, loaded once for the whole run and never closed: dlclose runs nvcc's
 * destructor, which unregisters the library's fatbin from the CUDA runtime, and the
 * next dlopen of that file (a candidate's is opened to see its lab, then again for its
 * section) registers it again, wherever the loader maps it then. Running two lab 6
 * candidates in one call crashed (SIGSEGV) on an H200 right after such a cycle, before
 * the first candidate's first row; one registration a library for the process's life
 * leaves the runtime nothing stale to follow.
 */
#define MAX_LIBS (8 + MAX_CANDIDATES)
static struct { const char *path; void *handle; } libs[MAX_LIBS];
static int n_libs;

static void *open_lab(const char *path)
{
    for (int i = 0; i < n_libs; i++)
        if (strcmp(libs[i].path, path) == 0)
            return libs[i].handle;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "bench: cannot load %s: %s\n", path, dlerror());
        exit(2);
    }
    if (n_libs == MAX_LIBS) {
        fprintf(stderr, "bench: more than %d libraries\n", MAX_LIBS);
        exit(2);
    }
    libs[n_libs].path = path, libs[n_libs].handle = h, n_libs++;
    return h;
}

static void *symbol(void *lib, const char *name, const char *path)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        fprintf(stderr, "bench: %s does not export %s\n", path, name);
        exit(2);
    }
    return p;
}

/*
 * Host handle of a lab's __constant__ variable, for cudaMemcpyToSymbol. nvcc
 * without -rdc gives it internal linkage, so the lab exports it as the pointer
 * smemlab_symbol_NAME; a build with -rdc also exports NAME itself.
 */
static const void *device_symbol(void *lib, const char *name, const char *path)
{
    char exported[96];
    snprintf(exported, sizeof exported, "smemlab_symbol_%s", name);
    const void *const *handle = dlsym(lib, exported);
    if (handle != NULL)
        return *handle;
    return symbol(lib, name, path);
}

/* ---------------------------------------------------------------- table */

typedef struct row {
    const char *kernel;
    char size[32];
    timing_stats t;
    double rate;      /* GFLOP/s or GB/s */
    const char *unit;
    double fraction;  /* reference time / this time; the reference itself is 1 */
    double check;     /* relative error of the result */
    int ok;
} row;

static void print_header(void)
{
    printf("%-14s %-16s %10s %21s %10s %-7s %8s  %s\n", "kernel", "size", "median ms",
           "spread (min-max) ms", "rate", "unit", "of ref", "check");
}

/* "LABEL:" while a candidate's section runs, else "" */
static char row_label[80];

static void print_row(const row *r)
{
    char spread[40], name[160];
    snprintf(spread, sizeof spread, "%.3f-%.3f", r->t.min_ms, r->t.max_ms);
    snprintf(name, sizeof name, "%s%s", r->kernel[0] == '=' ? "" : row_label,
             r->kernel + (r->kernel[0] == '='));
    printf("%-14s %-16s %10.3f %21s %10.1f %-7s %7.1f%%  %s (rel err %.1e)\n", name,
           r->size, r->t.median_ms, spread, r->rate, r->unit, 100.0 * r->fraction,
           r->ok ? "ok" : "WRONG", r->check);
    fflush(stdout);
}

static timing_stats time_work(timing_work work, void *ctx, const options *o)
{
    timing_stats t;
    CUDA_CHECK(timing_measure(work, ctx, o->warmup, o->reps, &t));
    return t;
}

/* ||got - ref||_2 / ||ref||_2 in double. */
static double rel_frobenius(const float *got, const float *ref, size_t n)
{
    double d2 = 0.0, r2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)got[i] - ref[i];
        d2 += d * d;
        r2 += (double)ref[i] * ref[i];
    }
    return r2 > 0.0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* ---------------------------------------------------------------- the grader's kernels */

extern const unsigned char smemlab_grader_fatbin[];
static cudaLibrary_t own_lib;
static int sm_count;

/* One of the grader's own kernels (grader/device/grader_kernels.cu), from its fatbin;
   the last one asked for is kept, so that a timed run does not look it up again. */
static cudaKernel_t own_kernel(const char *name)
{
    static cudaKernel_t k;
    static const char *of;
    if (own_lib == NULL)
        CUDA_CHECK(cudaLibraryLoadData(&own_lib, smemlab_grader_fatbin, NULL, NULL, 0, NULL,
                                       NULL, 0));
    if (of == NULL || strcmp(of, name) != 0) {
        CUDA_CHECK(cudaLibraryGetKernel(&k, own_lib, name));
        of = name;
    }
    return k;
}

typedef struct wide_job {
    const float *in;
    float *out;
    unsigned long long n;
} wide_job;

static void run_wide(void *ctx)
{
    wide_job *j = ctx;
    void *args[] = {&j->in, &j->out, &j->n};
    dim3 grid = {(unsigned)(sm_count * 8), 1, 1}, block = {256, 1, 1}; /* 2048 threads an SM */
    CUDA_CHECK(cudaLaunchKernel((const void *)own_kernel("smemlab_grader_copy_wide"), grid,
                                block, args, 0, 0));
}

/* The grader's wide copy of n floats in -> out, checked exactly against h_in (the
   input on the host), timed, its fraction of the section's copy (copy_ms). The row's
   name starts with '=': a roof, never a candidate's. */
static int bench_wide_copy(const float *in, float *out, size_t n, const char *size,
                           const float *h_in, double copy_ms, const options *o)
{
    wide_job j = {in, out, n};
    float *got = xmalloc(n * sizeof(float));
    CUDA_CHECK(cudaMemset(out, 0xff, n * sizeof(float)));
    run_wide(&j);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, out, n * sizeof(float), cudaMemcpyDeviceToHost));
    row r = {.kernel = "=copy float4x4", .unit = "GB/s"};
    snprintf(r.size, sizeof r.size, "%s", size);
    r.ok = memcmp(got, h_in, n * sizeof(float)) == 0;
    r.check = r.ok ? 0.0 : 1.0;
    r.t = time_work(run_wide, &j, o);
    r.rate = 2.0 * (double)n * sizeof(float) / (r.t.median_ms * 1e6);
    r.fraction = copy_ms / r.t.median_ms;
    print_row(&r);
    free(got);
    return r.ok;
}

/* The card: what the percentages of this run are of. */
static void print_card(int dev, const options *o)
{
    struct cudaDeviceProp prop;
    int clock_khz = 0, mem_khz = 0, bus_bits = 0;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    sm_count = prop.multiProcessorCount;
    /* double data rate: two transfers a memory clock */
    double peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    printf("# device %s (sm_%d%d, %d SMs at %d MHz; memory %d MHz x %d bits, %.0f GB/s peak; "
           "L2 %d MB; %.0f GB)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           clock_khz / 1000, mem_khz / 1000, bus_bits, peak_gbs, prop.l2CacheSize >> 20,
           prop.totalGlobalMem / 1e9);
    printf("# seed %llu; %d warm-up + %d timed runs each; %% of ref: of each section's first "
           "row (cuBLAS SGEMM, cudaMemcpy device to device, CUB)\n",
           (unsigned long long)o->seed, o->warmup, o->reps);
}

/* ---------------------------------------------------------------- lab 5 */

typedef void (*matmul_fn)(const float *, const float *, float *, int, int, int);

typedef struct matmul_job {
    matmul_fn fn;          /* NULL: cuBLAS */
    cublasHandle_t blas;
    const float *A, *B;
    float *C;
    int M, N, K;
} matmul_job;

/*
 * cuBLAS is column-major. A row-major M x N matrix is, read column-major, its
 * N x M transpose, so C = A B is computed as C^T = B^T A^T with no copies.
 */
static void run_matmul(void *ctx)
{
    matmul_job *j = ctx;
    if (j->fn != NULL) {
        j->fn(j->A, j->B, j->C, j->M, j->N, j->K);
        return;
    }
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(j->blas, CUBLAS_OP_N, CUBLAS_OP_N, j->N, j->M, j->K, &one, j->B,
                             j->N, j->A, j->K, &zero, j->C, j->N));
}

/* Run once on a NaN-filled C and return the result on the host. */
static void matmul_result(matmul_job *j, float *host)
{
    size_t n = (size_t)j->M * j->N;
    CUDA_CHECK(cudaMemset(j->C, 0xff, n * sizeof(float)));
    run_matmul(j);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(host, j->C, n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* cuBLAS against the double host reference: the bench's ground truth. */
static int check_cublas(const float *hA, const float *hB, const float *got, int M, int N, int K)
{
    size_t n = (size_t)M * N;
    float *ref = xmalloc(n * sizeof(float));
    ref_matmul(hA, hB, ref, M, N, K);
    tol_report rep;
    tol_limits lim = tol_default_limits();
    double floor = tol_floor_matmul(hA, (size_t)M * K, hB, (size_t)K * N, K);
    int ok = tol_compare(got, ref, M, N, floor, lim, &rep);
    char msg[256];
    printf("# cuBLAS vs host reference at %dx%dx%d: %s\n", M, N, K,
           tol_describe(&rep, &lim, msg, sizeof msg));
    free(ref);
    return ok;
}

typedef struct matmul_case {
    matmul_job job;
    const float *ref;   /* cuBLAS result on the host */
    float *got;         /* scratch for a result */
    double blas_ms;
} matmul_case;

static int bench_matmul_kernel(matmul_case *mc, const char *name, matmul_fn fn,
                               const options *o)
{
    matmul_job *j = &mc->job;
    j->fn = fn;
    row r = {.kernel = name, .unit = "GFLOP/s"};
    snprintf(r.size, sizeof r.size, "%dx%dx%d", j->M, j->N, j->K);
    matmul_result(j, mc->got);
    size_t n = (size_t)j->M * j->N;
    r.check = fn == NULL ? 0.0 : rel_frobenius(mc->got, mc->ref, n);
    r.ok = r.check <= TOL_OVERALL; /* NaN fails too */
    r.t = time_work(run_matmul, j, o);
    r.rate = 2.0 * j->M * j->N * (double)j->K / (r.t.median_ms * 1e6);
    if (fn == NULL)
        mc->blas_ms = r.t.median_ms;
    r.fraction = mc->blas_ms / r.t.median_ms;
    print_row(&r);
    return r.ok;
}

static int bench_matmul_size(void *lib, const char *path, void *mlib, cublasHandle_t blas,
                             matmul_size s, const options *o, int check_blas)
{
    size_t na = (size_t)s.M * s.K, nb = (size_t)s.K * s.N, nc = (size_t)s.M * s.N;
    float *hA = xmalloc(na * sizeof(float)), *hB = xmalloc(nb * sizeof(float));
    float *ref = xmalloc(nc * sizeof(float)), *got = xmalloc(nc * sizeof(float));
    prng_fill(hA, na, o->seed);
    prng_fill(hB, nb, o->seed + 1);
    float *dA = device_floats(na), *dB = device_floats(nb), *dC = device_floats(nc);
    CUDA_CHECK(cudaMemcpy(dA, hA, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB, nb * sizeof(float), cudaMemcpyHostToDevice));

    matmul_case mc = {{NULL, blas, dA, dB, dC, s.M, s.N, s.K}, ref, got, 0.0};
    matmul_result(&mc.job, ref);
    int ok = check_blas ? check_cublas(hA, hB, ref, s.M, s.N, s.K) : 1;
    ok &= bench_matmul_kernel(&mc, "cublasSgemm", NULL, o);
    static const char *names[] = {"matmulCoarse", "matmulTiled", "matmulNaive"};
    for (int i = 0; i < 3; i++) {
        char sym[64];
        snprintf(sym, sizeof sym, "launch_%s", names[i]);
        matmul_fn fn = (matmul_fn)symbol(lib, sym, path);
        ok &= bench_matmul_kernel(&mc, names[i], fn, o);
    }
    static const char *milestones[] = {"matmulReg2dVec", "matmulReg2d", "matmulReg1d"};
    for (int i = 0; mlib != NULL && i < 3; i++) {
        char sym[64];
        snprintf(sym, sizeof sym, "launch_%s", milestones[i]);
        matmul_fn fn = (matmul_fn)symbol(mlib, sym, o->milestones);
        ok &= bench_matmul_kernel(&mc, milestones[i], fn, o);
    }
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    free(hA), free(hB), free(ref), free(got);
    return ok;
}

static int bench_lab5(const options *o)
{
    void *lib = open_lab(o->lab5);
    void *mlib = o->milestones != NULL ? open_lab(o->milestones) : NULL;
    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH)); /* float32 FMA, no TF32 */
    int ok = 1, count = o->quick ? 1 : sizes_matmul_bench_count;
    for (int i = 0; i < count; i++)
        ok &= bench_matmul_size(lib, o->lab5, mlib, blas, sizes_matmul_bench[i], o, i == 0);
    CUBLAS_CHECK(cublasDestroy(blas));
    return ok;
}

/* ---------------------------------------------------------------- lab 6 */

typedef void (*conv1d_basic_fn)(const float *, const float *, float *, int, int);
typedef void (*conv1d_tiled_fn)(const float *, float *, int, int);
typedef void (*conv2d_fn)(const float *, float *, int, int, int);

typedef struct conv_job {
    int kind;              /* 0 memcpy, 1 conv1dBasic, 2 conv1dTiled, 3 conv2dTiled */
    void *fn;
    const float *in, *mask; /* mask: device copy, for conv1dBasic */
    float *out;
    int n, width, height, mask_width;
} conv_job;

static void run_conv(void *ctx)
{
    conv_job *j = ctx;
    size_t bytes = (size_t)j->n * sizeof(float);
    switch (j->kind) {
    case 0:
        CUDA_CHECK(cudaMemcpyAsync(j->out, j->in, bytes, cudaMemcpyDeviceToDevice, 0));
        break;
    case 1:
        ((conv1d_basic_fn)j->fn)(j->in, j->mask, j->out, j->n, j->mask_width);
        break;
    case 2:
        ((conv1d_tiled_fn)j->fn)(j->in, j->out, j->n, j->mask_width);
        break;
    default:
        ((conv2d_fn)j->fn)(j->in, j->out, j->width, j->height, j->mask_width);
    }
}

typedef struct conv_case {
    conv_job job;
    const float *ref; /* host reference (the input itself for memcpy) */
    float *got;
    double copy_ms;
    const char *size;
} conv_case;

static int bench_conv_kernel(conv_case *cc, const char *name, int kind, void *fn,
                             const options *o)
{
    conv_job *j = &cc->job;
    j->kind = kind;
    j->fn = fn;
    size_t bytes = (size_t)j->n * sizeof(float);
    CUDA_CHECK(cudaMemset(j->out, 0xff, bytes));
    run_conv(j);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(cc->got, j->out, bytes, cudaMemcpyDeviceToHost));
    row r = {.kernel = name, .unit = "GB/s"};
    snprintf(r.size, sizeof r.size, "%s", cc->size);
    r.check = rel_frobenius(cc->got, cc->ref, (size_t)j->n);
    r.ok = r.check <= TOL_OVERALL;
    r.t = time_work(run_conv, j, o);
    r.rate = 2.0 * (double)bytes / (r.t.median_ms * 1e6); /* read once + write once */
    if (kind == 0)
        cc->copy_ms = r.t.median_ms;
    r.fraction = cc->copy_ms / r.t.median_ms;
    print_row(&r);
    return r.ok;
}

/* Host input and mask, their device copies, and the mask in constant memory. */
typedef struct conv_data {
    float *h_in, *h_mask, *d_in, *d_mask, *d_out;
} conv_data;

static conv_data conv_setup(size_t n, int taps, void *lib, const char *path,
                            const char *const_name, const options *o)
{
    conv_data d;
    d.h_in = xmalloc(n * sizeof(float));
    d.h_mask = xmalloc((size_t)taps * sizeof(float));
    prng_fill(d.h_in, n, o->seed + 2);
    prng_fill(d.h_mask, (size_t)taps, o->seed + 3);
    d.d_in = device_floats(n);
    d.d_out = device_floats(n);
    d.d_mask = device_floats((size_t)taps);
    CUDA_CHECK(cudaMemcpy(d.d_in, d.h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.d_mask, d.h_mask, taps * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(device_symbol(lib, const_name, path), d.h_mask,
                                  taps * sizeof(float), 0, cudaMemcpyHostToDevice));
    return d;
}

static void conv_teardown(conv_data *d)
{
    CUDA_CHECK(cudaFree(d->d_in));
    CUDA_CHECK(cudaFree(d->d_out));
    CUDA_CHECK(cudaFree(d->d_mask));
    free(d->h_in), free(d->h_mask);
}

static int bench_conv1d(void *lib, const options *o)
{
    int n = o->quick ? sizes_conv1d_speed_n / 16 : sizes_conv1d_speed_n;
    int mw = sizes_conv1d_speed_mask;
    conv_data d = conv_setup((size_t)n, mw, lib, o->lab6, "c_mask1d", o);
    float *ref = xmalloc((size_t)n * sizeof(float)), *got = xmalloc((size_t)n * sizeof(float));
    char size[32];
    snprintf(size, sizeof size, "n=%d m=%d", n, mw);
    conv_case cc = {{0, NULL, d.d_in, d.d_mask, d.d_out, n, n, 1, mw}, d.h_in, got, 0.0, size};
    int ok = bench_conv_kernel(&cc, "=memcpy D2D", 0, NULL, o);
    ok &= bench_wide_copy(d.d_in, d.d_out, (size_t)n, size, d.h_in, cc.copy_ms, o);
    ref_conv1d(d.h_in, d.h_mask, ref, n, mw);
    cc.ref = ref;
    ok &= bench_conv_kernel(&cc, "conv1dTiled", 2, symbol(lib, "launch_conv1dTiled", o->lab6), o);
    ok &= bench_conv_kernel(&cc, "conv1dBasic", 1, symbol(lib, "launch_conv1dBasic", o->lab6), o);
    conv_teardown(&d);
    free(ref), free(got);
    return ok;
}

static int bench_conv2d(void *lib, const options *o)
{
    image_size s = sizes_conv2d_speed;
    if (o->quick)
        s.width /= 4, s.height /= 4;
    int mw = sizes_conv2d_speed_mask, n = s.width * s.height;
    conv_data d = conv_setup((size_t)n, mw * mw, lib, o->lab6, "c_mask2d", o);
    float *ref = xmalloc((size_t)n * sizeof(float)), *got = xmalloc((size_t)n * sizeof(float));
    char size[32];
    snprintf(size, sizeof size, "%dx%d m=%d", s.width, s.height, mw);
    conv_case cc = {{0, NULL, d.d_in, d.d_mask, d.d_out, n, s.width, s.height, mw},
                    d.h_in, got, 0.0, size};
    int ok = bench_conv_kernel(&cc, "=memcpy D2D", 0, NULL, o);
    ref_conv2d(d.h_in, d.h_mask, ref, s.width, s.height, mw);
    cc.ref = ref;
    ok &= bench_conv_kernel(&cc, "conv2dTiled", 3, symbol(lib, "launch_conv2dTiled", o->lab6), o);
    if (o->conv_milestones != NULL) { /* the before: its own c_mask2d, the same mask */
        void *mlib = open_lab(o->conv_milestones);
        CUDA_CHECK(cudaMemcpyToSymbol(device_symbol(mlib, "c_mask2d", o->conv_milestones),
                                      d.h_mask, (size_t)(mw * mw) * sizeof(float), 0,
                                      cudaMemcpyHostToDevice));
        ok &= bench_conv_kernel(&cc, "conv2dColumn (before)", 3,
                                symbol(mlib, "launch_conv2dColumn", o->conv_milestones), o);
    }
    conv_teardown(&d);
    free(ref), free(got);
    return ok;
}

static int bench_lab6(const options *o)
{
    void *lib = open_lab(o->lab6);
    int ok = bench_conv1d(lib, o);
    ok &= bench_conv2d(lib, o);
    return ok;
}

/* ---------------------------------------------------------------- labs 7 and 8 */

typedef void (*reduce_fn)(const int *, int *, int);

typedef struct reduce_job {
    reduce_fn fn;       /* NULL: CUB */
    const int *in;
    int *partial, *sum;
    int n;
    void *temp;
    size_t temp_bytes;
} reduce_job;

static void run_reduce(void *ctx)
{
    reduce_job *j = ctx;
    if (j->fn)
        j->fn(j->in, j->partial, j->n);
    else
        CUDA_CHECK(cub_sum_int(j->temp, &j->temp_bytes, j->in, j->sum, j->n, 0));
}

/* One launcher (or CUB) timed on the input in j, its partial sums (blocks of
   per_block elements) added up against CUB's sum `want`. */
static int bench_reduce_one(reduce_job *j, const char *name, int per_block, int32_t want,
                            double *cub_ms, const options *o)
{
    long blocks = per_block > 0 ? ((long)j->n + per_block - 1) / per_block : 1;
    int32_t *got = xmalloc((size_t)blocks * sizeof *got), sum = 0;
    row r = {.kernel = name, .unit = "GB/s"};
    snprintf(r.size, sizeof r.size, "n=%d", j->n);
    run_reduce(j);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    if (j->fn) {
        CUDA_CHECK(cudaMemcpy(got, j->partial, (size_t)blocks * sizeof(int), cudaMemcpyDeviceToHost));
        sum = ref_sum_partials(got, (size_t)blocks);
    } else {
        CUDA_CHECK(cudaMemcpy(&sum, j->sum, sizeof sum, cudaMemcpyDeviceToHost));
    }
    r.ok = sum == want;
    r.check = r.ok ? 0.0 : 1.0;
    r.t = time_work(run_reduce, j, o);
    r.rate = (double)j->n * sizeof(int) / (r.t.median_ms * 1e6); /* read once */
    if (!j->fn)
        *cub_ms = r.t.median_ms;
    r.fraction = *cub_ms / r.t.median_ms;
    print_row(&r);
    free(got);
    return r.ok;
}

static int bench_reduce(const options *o)
{
    int n = o->quick ? sizes_reduce_speed.n / 16 : sizes_reduce_speed.n, ok = 1;
    int32_t *h = xmalloc((size_t)n * sizeof *h), want;
    reduce_job j = {NULL, NULL, NULL, NULL, n, NULL, 0};
    double cub_ms = 0;
    reduce_fill(h, (size_t)n, VALUES_SMALL, o->seed + 5);
    want = ref_sum(h, (size_t)n);
    CUDA_CHECK(cudaMalloc((void **)&j.in, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&j.partial, ((size_t)n / 32 + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&j.sum, sizeof(int)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cub_sum_int(NULL, &j.temp_bytes, j.in, j.sum, n, 0));
    CUDA_CHECK(cudaMalloc(&j.temp, j.temp_bytes > 0 ? j.temp_bytes : 1));
    ok &= bench_reduce_one(&j, "=CUB Sum", 0, want, &cub_ms, o);
    static const struct { int lab; const char *name; int per_thread; } kernels[] = {
        {7, "reduceSmemUnroll", 4}, {7, "reduceSmemUnrollDyn", 4}, {7, "reduceSmem", 1},
        {8, "reduceShflUnroll", 4}, {8, "reduceShfl", 1}, {7, "reduceGmem", 1}};
    void *lib7 = open_lab(o->lab7), *lib8 = open_lab(o->lab8);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char launcher[64];
        const char *path = kernels[k].lab == 7 ? o->lab7 : o->lab8;
        snprintf(launcher, sizeof launcher, "launch_%s", kernels[k].name);
        j.fn = (reduce_fn)symbol(kernels[k].lab == 7 ? lib7 : lib8, launcher, path);
        /* reduceGmem works in place: a fresh copy of the input before it, timed runs
           sum what the earlier runs left (its result is checked on the first run) */
        if (!strcmp(kernels[k].name, "reduceGmem"))
            CUDA_CHECK(cudaMemcpy((void *)j.in, h, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
        ok &= bench_reduce_one(&j, kernels[k].name, 256 * kernels[k].per_thread, want, &cub_ms, o);
    }
    CUDA_CHECK(cudaFree((void *)j.in));
    CUDA_CHECK(cudaFree(j.partial));
    CUDA_CHECK(cudaFree(j.sum));
    CUDA_CHECK(cudaFree(j.temp));
    free(h);
    return ok;
}

/* ---------------------------------------------------------------- lab 9 */

typedef void (*transpose_fn)(const float *, float *, int, int);

typedef struct transpose_job {
    transpose_fn fn; /* NULL: a device-to-device copy */
    const float *in;
    float *out;
    int nx, ny;
} transpose_job;

static void run_transpose(void *ctx)
{
    transpose_job *j = ctx;
    if (j->fn)
        j->fn(j->in, j->out, j->nx, j->ny);
    else
        CUDA_CHECK(cudaMemcpyAsync(j->out, j->in, (size_t)j->nx * j->ny * sizeof(float),
                                   cudaMemcpyDeviceToDevice, 0));
}

/* One launcher (or the copy) timed on nx x ny floats, its output checked exactly
   against the host's copy or transpose of the input h. */
static int bench_transpose_one(transpose_job *j, const char *name, int copy, const float *h,
                               float *got, double *copy_ms, const options *o)
{
    size_t n = (size_t)j->nx * j->ny, bad = 0;
    CUDA_CHECK(cudaMemset(j->out, 0xff, n * sizeof(float)));
    run_transpose(j);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, j->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < j->ny; y++)
        for (int x = 0; x < j->nx; x++)
            bad += got[copy ? (size_t)y * j->nx + x : (size_t)x * j->ny + y] !=
                   h[(size_t)y * j->nx + x];
    row r = {.kernel = name, .unit = "GB/s"};
    snprintf(r.size, sizeof r.size, "%dx%d", j->nx, j->ny);
    r.ok = bad == 0;
    r.check = (double)bad / (double)n;
    r.t = time_work(run_transpose, j, o);
    r.rate = 2.0 * (double)n * sizeof(float) / (r.t.median_ms * 1e6); /* read + write */
    if (!j->fn)
        *copy_ms = r.t.median_ms;
    r.fraction = *copy_ms / r.t.median_ms;
    print_row(&r);
    return r.ok;
}

/* Lab 9 on an 8192 x 8192 float matrix: every kernel against a device-to-device copy. */
static int bench_transpose(const options *o)
{
    int side = o->quick ? 2048 : 8192, ok = 1;
    size_t n = (size_t)side * side;
    float *h = xmalloc(n * sizeof *h), *got = xmalloc(n * sizeof *got);
    prng_fill(h, n, o->seed + 9);
    transpose_job j = {NULL, NULL, NULL, side, side};
    double copy_ms = 0;
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    ok &= bench_transpose_one(&j, "=memcpy D2D", 1, h, got, &copy_ms, o);
    char size[32];
    snprintf(size, sizeof size, "%dx%d", side, side);
    ok &= bench_wide_copy(j.in, j.out, n, size, h, copy_ms, o);
    static const char *const kernels[] = {"copyRow", "naiveRow", "naiveCol", "transposeSmem",
                                          "transposeSmemPad", "transposeSmemUnrollPad",
                                          "transposeSmemUnrollPadDyn"};
    void *lib = open_lab(o->lab9);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char launcher[64];
        snprintf(launcher, sizeof launcher, "launch_%s", kernels[k]);
        j.fn = (transpose_fn)symbol(lib, launcher, o->lab9);
        ok &= bench_transpose_one(&j, kernels[k], k == 0, h, got, &copy_ms, o);
    }
    CUDA_CHECK(cudaFree((void *)j.in));
    CUDA_CHECK(cudaFree(j.out));
    free(h);
    free(got);
    return ok;
}

/* ---------------------------------------------------------------- lab 10 */

typedef void (*stencil_fn)(const float *, float *, int);
typedef void (*stencil_ro_fn)(const float *, const float *, float *, int);
typedef void (*lookup_fn)(const int *, float *, int);
typedef void (*lookup_ro_fn)(const int *, const float *, float *, int);

typedef struct const_job {
    int kind; /* 0 memcpy, 1 stencil1DConst, 2 stencil1DReadOnly, 3 lookupConst, 4 lookupReadOnly,
                 5 the grader's lookup roof */
    void *fn;
    const void *in;     /* floats, or the lookup's int keys */
    const float *data;  /* the coefficients or the table (steps 2 and 4) */
    float *out;
    int n;
} const_job;

static void run_const(void *ctx)
{
    const_job *j = ctx;
    switch (j->kind) {
    case 0: cudaMemcpyAsync(j->out, j->in, (size_t)j->n * sizeof(float), cudaMemcpyDeviceToDevice, 0); break;
    case 1: ((stencil_fn)j->fn)(j->in, j->out, j->n); break;
    case 2: ((stencil_ro_fn)j->fn)(j->in, j->data, j->out, j->n); break;
    case 3: ((lookup_fn)j->fn)(j->in, j->out, j->n); break;
    case 4: ((lookup_ro_fn)j->fn)(j->in, j->data, j->out, j->n); break;
    default: {
        unsigned long long n = (unsigned long long)j->n;
        void *args[] = {(void *)&j->in, (void *)&j->data, &j->out, &n};
        dim3 grid = {(unsigned)((n + 255) / 256), 1, 1}, block = {256, 1, 1};
        CUDA_CHECK(cudaLaunchKernel((const void *)own_kernel("smemlab_grader_lookup_roof"), grid,
                                    block, args, 0, 0));
    }
    }
}

/* One kernel of lab 10: its result against ref (exact for a lookup), then timed. */
static int bench_const_kernel(const_job *j, const char *name, const float *ref, float *got,
                              double *copy_ms, const options *o)
{
    size_t bytes = (size_t)j->n * sizeof(float);
    CUDA_CHECK(cudaMemset(j->out, 0xff, bytes));
    run_const(j);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, j->out, bytes, cudaMemcpyDeviceToHost));
    row r = {.kernel = name, .unit = "GB/s"};
    snprintf(r.size, sizeof r.size, "n=%d", j->n);
    r.check = ref ? rel_frobenius(got, ref, (size_t)j->n) : 0.0;
    r.ok = r.check <= TOL_OVERALL;
    r.t = time_work(run_const, j, o);
    r.rate = 2.0 * (double)bytes / (r.t.median_ms * 1e6); /* read once + write once */
    if (j->kind == 0)
        *copy_ms = r.t.median_ms;
    r.fraction = *copy_ms / r.t.median_ms;
    print_row(&r);
    return r.ok;
}

static int bench_lab10(const options *o)
{
    void *lib = open_lab(o->lab10);
    int n = o->quick ? sizes_conv1d_speed_n / 16 : sizes_conv1d_speed_n, taps = 9, table = 256;
    size_t bytes = (size_t)n * sizeof(float);
    float *h_in = xmalloc(bytes), *ref = xmalloc(bytes), *got = xmalloc(bytes);
    float h_coef[9], h_table[256];
    int32_t *h_keys = xmalloc((size_t)n * sizeof(int32_t));
    prng_fill(h_in, (size_t)n, o->seed + 2);
    prng_fill(h_coef, (size_t)taps, o->seed + 3);
    prng_fill(h_table, (size_t)table, o->seed + 4);
    lookup_keys(h_keys, (size_t)n, table, o->seed + 5);
    float *d_in = device_floats((size_t)n), *d_out = device_floats((size_t)n);
    float *d_coef = device_floats((size_t)taps), *d_table = device_floats((size_t)table);
    int *d_keys = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_keys, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_keys, h_keys, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_coef, h_coef, sizeof h_coef, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_table, h_table, sizeof h_table, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(device_symbol(lib, "c_coef", o->lab10), h_coef, sizeof h_coef,
                                  0, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(device_symbol(lib, "c_table", o->lab10), h_table,
                                  sizeof h_table, 0, cudaMemcpyHostToDevice));
    double copy_ms = 0;
    const_job j = {0, NULL, d_in, d_coef, d_out, n};
    int ok = bench_const_kernel(&j, "=memcpy D2D", h_in, got, &copy_ms, o);
    char size[32];
    snprintf(size, sizeof size, "n=%d", n);
    ok &= bench_wide_copy(d_in, d_out, (size_t)n, size, h_in, copy_ms, o);
    ref_conv1d(h_in, h_coef, ref, n, taps);
    j.kind = 1, j.fn = symbol(lib, "launch_stencil1DConst", o->lab10);
    ok &= bench_const_kernel(&j, "stencil1DConst", ref, got, &copy_ms, o);
    j.kind = 2, j.fn = symbol(lib, "launch_stencil1DReadOnly", o->lab10);
    ok &= bench_const_kernel(&j, "stencil1DReadOnly", ref, got, &copy_ms, o);
    ref_lookup(h_keys, h_table, ref, (size_t)n);
    j.in = d_keys, j.data = d_table;
    j.kind = 5; /* the lookup's speed roof in the grader (problems/stencil.c) */
    ok &= bench_const_kernel(&j, "=grader lookup (roof)", ref, got, &copy_ms, o);
    j.kind = 4, j.fn = symbol(lib, "launch_lookupReadOnly", o->lab10);
    ok &= bench_const_kernel(&j, "lookupReadOnly", ref, got, &copy_ms, o);
    j.kind = 3, j.fn = symbol(lib, "launch_lookupConst", o->lab10);
    ok &= bench_const_kernel(&j, "lookupConst", ref, got, &copy_ms, o);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_coef));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_keys));
    free(h_in), free(ref), free(got), free(h_keys);
    return ok;
}

/* ---------------------------------------------------------------- candidates */

/* The section of the lab whose launchers SO exports, run again with SO in the
   solution's place (the other labs' solutions where a section needs two), its rows
   named LABEL:kernel. 1 when every result checked out. */
static int bench_candidate(const options *base, const char *path)
{
    static const struct { const char *launcher; int lab; } labs[] = {
        {"launch_conv2dTiled", 6}, {"launch_reduceSmemUnroll", 7}, {"launch_reduceShflUnroll", 8},
        {"launch_transposeSmemUnrollPad", 9}, {"launch_lookupReadOnly", 10}};
    void *lib = open_lab(path);
    int lab = 0;
    for (size_t i = 0; i < sizeof labs / sizeof labs[0] && !lab; i++)
        if (dlsym(lib, labs[i].launcher))
            lab = labs[i].lab;
    options o = *base;
    o.conv_milestones = NULL;
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(row_label, sizeof row_label, "%.*s:", (int)(strcspn(name, ".")), name);
    printf("# candidate %s: lab %d's section with its kernels\n", path, lab);
    int ok = 1;
    switch (lab) {
    case 6: o.lab6 = path, ok = bench_lab6(&o); break;
    case 7: if (o.lab8) o.lab7 = path, ok = bench_reduce(&o); break;
    case 8: if (o.lab7) o.lab8 = path, ok = bench_reduce(&o); break;
    case 9: o.lab9 = path, ok = bench_transpose(&o); break;
    case 10: o.lab10 = path, ok = bench_lab10(&o); break;
    default:
        fprintf(stderr, "bench: %s exports no launcher of labs 6 to 10\n", path);
        ok = 0;
    }
    row_label[0] = '\0';
    return ok;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    options o = parse_options(argc, argv);
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    print_card(dev, &o);
    print_header();
    int ok = 1;
    if (o.lab5 && o.lab6) {
        ok &= bench_lab5(&o);
        ok &= bench_lab6(&o);
    }
    if (o.lab7 && o.lab8)
        ok &= bench_reduce(&o);
    if (o.lab9)
        ok &= bench_transpose(&o);
    if (o.lab10)
        ok &= bench_lab10(&o);
    for (int i = 0; i < o.n_candidates; i++)
        ok &= bench_candidate(&o, o.candidates[i]);
    printf("# %s\n", ok ? "every result checked out" : "SOME RESULTS ARE WRONG");
    return ok ? 0 : 1;
}
