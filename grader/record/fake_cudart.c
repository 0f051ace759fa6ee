/*
 * fake_cudart.c - the CUDA runtime as the recorder's student library sees it.
 *
 * Built as libcudart.so.13 (same soname and symbol version as the real
 * runtime) and loaded by the recorder before the student's library, so the
 * library's calls into the runtime land here. Nothing reaches a GPU: kernel
 * registrations are remembered, launches are recorded, and every other call
 * a launcher might make (allocations, copies, synchronisation, streams) is
 * recorded as a contract violation and fails. Beside the calls written here,
 * every other function the real runtime, cuBLAS and the driver API export has
 * a generated stand-in (gen-standins.sh) that refuses it the same way, by
 * name: a library that references one still loads, and only the kernel whose
 * launcher makes the call loses its grade.
 */
#include "record.h"
#include "fake_cudart.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_REGISTERED 256

typedef struct registered {
    const void *host_fun;
    char name[REC_NAME];
    int32_t max_dynamic_shared, carveout; /* attributes persist, as in the real runtime */
} registered;

static registered g_fun[MAX_REGISTERED];
static int g_n_fun;
static const fake_layout *g_layout;
static int g_n_layout;
static rec_call *g_rec;          /* the call being recorded, or NULL */
static cudaError_t g_last_error; /* what cudaGetLastError returns */

typedef struct pushed_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
    int set;
} pushed_config;
static pushed_config g_config;

EXPORT void smemlab_fake_setup(const fake_layout *layouts, int n)
{
    g_layout = layouts;
    g_n_layout = n;
}

EXPORT void smemlab_fake_begin(rec_call *rec)
{
    g_rec = rec;
    g_last_error = cudaSuccess;
}

EXPORT void smemlab_fake_end(void)
{
    g_rec = NULL;
}

static void violation(const char *what)
{
    g_last_error = cudaErrorNotPermitted;
    if (!g_rec)
        return; /* outside a launcher (a constructor): the recorder reports loading */
    if (g_rec->n_violations < REC_MAX_VIOLATIONS)
        snprintf(g_rec->violations[g_rec->n_violations], sizeof g_rec->violations[0], "%s", what);
    g_rec->n_violations++;
}

/* A generated stand-in (gen-standins.sh): a function of the CUDA libraries with no
   place in a launcher, refused by name. */
__attribute__((visibility("hidden"))) int fake_refuse(const char *name)
{
    violation(name);
    return cudaErrorNotPermitted;
}

static int find_host(const void *host_fun)
{
    for (int i = 0; i < g_n_fun; i++)
        if (g_fun[i].host_fun == host_fun)
            return i;
    return -1;
}

static const fake_layout *layout_of(const char *name)
{
    for (int i = 0; i < g_n_layout; i++)
        if (strcmp(g_layout[i].name, name) == 0)
            return &g_layout[i];
    return NULL;
}

/* Record one launch of registered kernel f. */
static cudaError_t record_launch(int f, dim3 grid, dim3 block, void **args, size_t shared,
                                 void *stream)
{
    if (f < 0 || f >= g_n_fun) {
        violation("a launch of a function that is no registered kernel");
        return g_last_error = cudaErrorInvalidDeviceFunction;
    }
    if (!g_rec) {
        violation("a kernel launch outside a launcher");
        return g_last_error;
    }
    int at = g_rec->n_launches++;
    if (at >= REC_MAX_LAUNCHES)
        return cudaSuccess; /* counted; the grader refuses that many */
    rec_launch *l = &g_rec->launches[at];
    memset(l, 0, sizeof *l);
    snprintf(l->kernel, sizeof l->kernel, "%s", g_fun[f].name);
    l->grid[0] = grid.x, l->grid[1] = grid.y, l->grid[2] = grid.z;
    l->block[0] = block.x, l->block[1] = block.y, l->block[2] = block.z;
    l->shared_bytes = shared;
    l->stream = (uint64_t)(uintptr_t)stream;
    l->max_dynamic_shared = g_fun[f].max_dynamic_shared;
    l->carveout = g_fun[f].carveout;
    const fake_layout *lay = layout_of(g_fun[f].name);
    if (lay && args) {
        for (int i = 0; i < lay->n_params; i++) {
            unsigned off = lay->params[i].offset, size = lay->params[i].size;
            if (off + size > REC_MAX_PARAM_BYTES || !args[i])
                break;
            memcpy(l->params + off, args[i], size);
            if (off + size > l->param_bytes)
                l->param_bytes = off + size;
        }
    }
    return cudaSuccess;
}

/* --- registration: what nvcc's generated code calls when the library loads --- */

static void *g_fatbin_handles[16];
static int g_n_fatbins;

EXPORT void **__cudaRegisterFatBinary(void *fat_cubin)
{
    void **h = &g_fatbin_handles[g_n_fatbins < 15 ? g_n_fatbins++ : 15];
    *h = fat_cubin;
    return h;
}

EXPORT void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
EXPORT void __cudaUnregisterFatBinary(void **handle) { (void)handle; }
EXPORT char __cudaInitModule(void **handle) { (void)handle; return 1; }

EXPORT void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                                   const char *device_name, int thread_limit, uint3 *tid,
                                   uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)handle, (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)bdim;
    (void)gdim, (void)wsize;
    if (g_n_fun == MAX_REGISTERED || !device_name)
        return;
    registered *r = &g_fun[g_n_fun++];
    r->host_fun = host_fun;
    snprintf(r->name, sizeof r->name, "%s", device_name);
    r->max_dynamic_shared = r->carveout = REC_ATTR_UNSET;
}

EXPORT void __cudaRegisterVar(void **handle, char *host_var, char *device_address,
                              const char *device_name, int ext, size_t size, int constant,
                              int global)
{
    (void)handle, (void)host_var, (void)device_address, (void)device_name, (void)ext;
    (void)size, (void)constant, (void)global;
}

EXPORT void __cudaRegisterManagedVar(void **handle, void **host_var_ptr, char *device_address,
                                     const char *device_name, int ext, size_t size,
                                     int constant, int global)
{
    (void)handle, (void)host_var_ptr, (void)device_address, (void)device_name, (void)ext;
    (void)size, (void)constant, (void)global;
}

/* --- launching ----------------------------------------------------------------- */

EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void *stream)
{
    g_config = (pushed_config){grid, block, shared, stream, 1};
    return 0;
}

EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                                              void *stream)
{
    if (!g_config.set)
        return cudaErrorMissingConfiguration;
    *grid = g_config.grid;
    *block = g_config.block;
    *shared = g_config.shared;
    *(void **)stream = g_config.stream;
    g_config.set = 0;
    return cudaSuccess;
}

EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *host_fun)
{
    int f = find_host(host_fun);
    *kernel = (cudaKernel_t)(uintptr_t)(f + 1);
    return f >= 0 ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                      size_t shared, cudaStream_t stream)
{
    return record_launch((int)(uintptr_t)kernel - 1, grid, block, args, shared, stream);
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                           void **args, size_t shared, cudaStream_t stream)
{
    return record_launch((int)(uintptr_t)kernel - 1, grid, block, args, shared, stream);
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                       size_t shared, cudaStream_t stream)
{
    return record_launch(find_host(func), grid, block, args, shared, stream);
}

cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                           int value)
{
    int f = find_host(func);
    if (f < 0)
        return g_last_error = cudaErrorInvalidDeviceFunction;
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize)
        g_fun[f].max_dynamic_shared = value;
    else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
        g_fun[f].carveout = value;
    else
        violation("cudaFuncSetAttribute (an attribute other than shared memory)");
    return cudaSuccess;
}

/* --- harmless calls ------------------------------------------------------------ */

cudaError_t CUDARTAPI cudaGetLastError(void)
{
    cudaError_t e = g_last_error;
    g_last_error = cudaSuccess;
    return e;
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void) { return g_last_error; }

cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

const char *CUDARTAPI cudaGetErrorString(cudaError_t error)
{
    return error == cudaSuccess ? "no error" : "not permitted in a launcher (smemlab recorder)";
}

const char *CUDARTAPI cudaGetErrorName(cudaError_t error)
{
    return error == cudaSuccess ? "cudaSuccess" : "cudaErrorNotPermitted";
}

/* --- everything else a launcher may not do ------------------------------------- */

/* Parameters are unused on purpose: the call itself is the violation. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define FORBID(ret, name, params)                   \
    ret CUDARTAPI name params                       \
    {                                               \
        violation(#name);                           \
        return cudaErrorNotPermitted;               \
    }

FORBID(cudaError_t, cudaMalloc, (void **p, size_t n))
FORBID(cudaError_t, cudaMallocManaged, (void **p, size_t n, unsigned f))
FORBID(cudaError_t, cudaMallocHost, (void **p, size_t n))
FORBID(cudaError_t, cudaHostAlloc, (void **p, size_t n, unsigned f))
FORBID(cudaError_t, cudaMallocAsync, (void **p, size_t n, cudaStream_t s))
FORBID(cudaError_t, cudaMallocPitch, (void **p, size_t *pitch, size_t w, size_t h))
FORBID(cudaError_t, cudaFree, (void *p))
FORBID(cudaError_t, cudaFreeHost, (void *p))
FORBID(cudaError_t, cudaFreeAsync, (void *p, cudaStream_t s))
FORBID(cudaError_t, cudaMemcpy, (void *d, const void *s, size_t n, enum cudaMemcpyKind k))
FORBID(cudaError_t, cudaMemcpyAsync, (void *d, const void *s, size_t n, enum cudaMemcpyKind k,
                                      cudaStream_t st))
FORBID(cudaError_t, cudaMemcpy2D, (void *d, size_t dp, const void *s, size_t sp, size_t w,
                                   size_t h, enum cudaMemcpyKind k))
FORBID(cudaError_t, cudaMemcpyPeer, (void *d, int dd, const void *s, int sd, size_t n))
FORBID(cudaError_t, cudaMemcpyToSymbol, (const void *sym, const void *s, size_t n, size_t o,
                                         enum cudaMemcpyKind k))
FORBID(cudaError_t, cudaMemcpyToSymbolAsync, (const void *sym, const void *s, size_t n,
                                              size_t o, enum cudaMemcpyKind k, cudaStream_t st))
FORBID(cudaError_t, cudaMemcpyFromSymbol, (void *d, const void *sym, size_t n, size_t o,
                                           enum cudaMemcpyKind k))
FORBID(cudaError_t, cudaMemset, (void *p, int v, size_t n))
FORBID(cudaError_t, cudaMemsetAsync, (void *p, int v, size_t n, cudaStream_t s))
FORBID(cudaError_t, cudaDeviceSynchronize, (void))
FORBID(cudaError_t, cudaDeviceReset, (void))
FORBID(cudaError_t, cudaSetDevice, (int d))
FORBID(cudaError_t, cudaGetDeviceCount, (int *n))
FORBID(cudaError_t, cudaDeviceGetAttribute, (int *v, enum cudaDeviceAttr a, int d))
FORBID(cudaError_t, cudaGetDeviceProperties, (struct cudaDeviceProp *p, int d))
FORBID(cudaError_t, cudaFuncGetAttributes, (struct cudaFuncAttributes *a, const void *f))
FORBID(cudaError_t, cudaOccupancyMaxActiveBlocksPerMultiprocessor, (int *n, const void *f,
                                                                    int b, size_t s))
FORBID(cudaError_t, cudaStreamCreate, (cudaStream_t *s))
FORBID(cudaError_t, cudaStreamCreateWithFlags, (cudaStream_t *s, unsigned f))
FORBID(cudaError_t, cudaStreamCreateWithPriority, (cudaStream_t *s, unsigned f, int p))
FORBID(cudaError_t, cudaStreamDestroy, (cudaStream_t s))
FORBID(cudaError_t, cudaStreamSynchronize, (cudaStream_t s))
FORBID(cudaError_t, cudaStreamWaitEvent, (cudaStream_t s, cudaEvent_t e, unsigned f))
FORBID(cudaError_t, cudaEventCreate, (cudaEvent_t *e))
FORBID(cudaError_t, cudaEventCreateWithFlags, (cudaEvent_t *e, unsigned f))
FORBID(cudaError_t, cudaEventRecord, (cudaEvent_t e, cudaStream_t s))
FORBID(cudaError_t, cudaEventSynchronize, (cudaEvent_t e))
FORBID(cudaError_t, cudaEventElapsedTime, (float *ms, cudaEvent_t a, cudaEvent_t b))
FORBID(cudaError_t, cudaEventDestroy, (cudaEvent_t e))
FORBID(cudaError_t, cudaLaunchCooperativeKernel, (const void *f, dim3 g, dim3 b, void **a,
                                                  size_t s, cudaStream_t st))
FORBID(cudaError_t, cudaLaunchKernelExC, (const cudaLaunchConfig_t *c, const void *f,
                                          void **a))
FORBID(cudaError_t, cudaLaunchHostFunc, (cudaStream_t s, cudaHostFn_t fn, void *d))
FORBID(cudaError_t, cudaGraphLaunch, (cudaGraphExec_t g, cudaStream_t s))
FORBID(cudaError_t, cudaGetSymbolAddress, (void **p, const void *sym))
FORBID(cudaError_t, cudaDeviceSetLimit, (enum cudaLimit l, size_t v))
FORBID(cudaError_t, cudaDeviceSetCacheConfig, (enum cudaFuncCache c))
FORBID(cudaError_t, cudaFuncSetCacheConfig, (const void *f, enum cudaFuncCache c))
FORBID(cudaError_t, cudaProfilerStart, (void))
FORBID(cudaError_t, cudaProfilerStop, (void))
