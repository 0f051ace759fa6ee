/* module.c - loading and launching the student's device code; see module.h. */
#include "module.h"

#include "../labs/sizes.h"
#include "blas.h"
#include "device.h"
#include "gpu.h"

#include <stdio.h>
#include <string.h>

extern const unsigned char smemlab_grader_fatbin[], smemlab_grader_fatbin_end[];

static int fail(cudaError_t err, const char *what, char *why, size_t n)
{
    snprintf(why, n, "%s: %s", what, cudaGetErrorString(err));
    return -1;
}

/* The driver's view of a kernel's parameters must be the one the recorder used. */
static int check_params(cudaKernel_t k, const image_kernel *ik, char *why, size_t n)
{
    for (int i = 0; i <= ik->n_params; i++) {
        size_t off = 0, size = 0;
        cudaError_t err = cudaFuncGetParamInfo((const void *)k, (size_t)i, &off, &size);
        if (err == cudaErrorNotSupported)
            return 0; /* an older driver: nothing to compare with */
        int same = i < ik->n_params ? err == cudaSuccess && off == ik->params[i].offset &&
                                          size == ik->params[i].size
                                    : err != cudaSuccess;
        cudaGetLastError();
        if (!same) {
            snprintf(why, n, "kernel %s: the driver reads its parameter %d differently from "
                     "the lab file; rebuild the lab with this kit (make clean && make labN)",
                     ik->name, i + 1);
            return -1;
        }
    }
    return 0;
}

/* One copy of the student's code: its libraries into libs, its kernels into kernels. */
static int load_student(const lab_image *img, cudaLibrary_t *libs, int *n_libs,
                        cudaKernel_t *kernels, char *why, size_t n)
{
    for (int i = 0; i < img->n_fatbins; i++) {
        cudaError_t err = cudaLibraryLoadData(&libs[*n_libs], img->fatbins[i].data, NULL,
                                              NULL, 0, NULL, NULL, 0);
        if (err != cudaSuccess)
            return fail(err, "loading the lab's GPU code (was it built for another GPU? "
                        "make clean && make labN)", why, n);
        (*n_libs)++;
    }
    for (int k = 0; k < img->n_kernels; k++) {
        int found = 0;
        for (int i = 0; i < *n_libs && !found; i++) {
            found = cudaLibraryGetKernel(&kernels[k], libs[i], img->kernels[k].name) ==
                    cudaSuccess;
            cudaGetLastError();
        }
        if (!found) {
            snprintf(why, n, "kernel %s is in the lab file but not in the GPU code loaded for "
                     "this GPU: make clean && make labN", img->kernels[k].name);
            return -1;
        }
        if (check_params(kernels[k], &img->kernels[k], why, n) != 0)
            return -1;
    }
    return 0;
}

static int load_own(device_module *m, char *why, size_t n)
{
    cudaError_t err = cudaLibraryLoadData(&m->own, smemlab_grader_fatbin, NULL, NULL, 0, NULL,
                                          NULL, 0);
    if (err == cudaSuccess)
        err = cudaLibraryGetKernel(&m->scrub, m->own, "smemlab_grader_scrub");
    if (err == cudaSuccess)
        err = cudaLibraryGetKernel(&m->fill, m->own, "smemlab_grader_fill");
    if (err == cudaSuccess)
        err = cudaLibraryGetKernel(&m->diff, m->own, "smemlab_grader_diff");
    if (err == cudaSuccess)
        err = cudaLibraryGetKernel(&m->conv, m->own, "smemlab_grader_conv");
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute((const void *)m->scrub,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, m->max_shared);
    return err == cudaSuccess ? 0 : fail(err, "loading the grader's own GPU code (rebuild the "
                                         "grader for this GPU: make clean)", why, n);
}

static int gpu_module_load(device_module *m, const lab_image *img, char *why, size_t why_size)
{
    int dev = 0;
    memset(m, 0, sizeof *m);
    m->img = img;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&m->sm_count, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&m->max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err != cudaSuccess)
        return fail(err, "asking the GPU its limits", why, why_size);
    return load_own(m, why, why_size) == 0 &&
                   load_student(img, m->libs, &m->n_libs, m->kernels, why, why_size) == 0
               ? 0 : -1;
}

static int gpu_module_load_measured_copy(device_module *m, char *why, size_t why_size)
{
    return load_student(m->img, m->measured_libs, &m->n_measured_libs, m->measured, why,
                        why_size);
}

static void gpu_module_unload(device_module *m)
{
    for (int i = 0; i < m->n_libs; i++)
        cudaLibraryUnload(m->libs[i]);
    for (int i = 0; i < m->n_measured_libs; i++)
        cudaLibraryUnload(m->measured_libs[i]);
    if (m->own)
        cudaLibraryUnload(m->own);
    cudaGetLastError();
    memset(m, 0, sizeof *m);
}

/* Address and size of a variable of one copy's libraries. */
static cudaError_t global_of(const cudaLibrary_t *libs, int n_libs, const char *name, void **dptr,
                             size_t *bytes)
{
    cudaError_t err = cudaErrorSymbolNotFound;
    for (int i = 0; i < n_libs; i++) {
        if ((err = cudaLibraryGetGlobal(dptr, bytes, libs[i], name)) == cudaSuccess)
            return err;
        cudaGetLastError(); /* not found in this one: no error left for a later launch check */
    }
    return err;
}

static cudaError_t gpu_module_set_global(const device_module *m, const char *name, const void *src,
                              size_t bytes, size_t *have)
{
    void *dst = NULL;
    cudaError_t err = global_of(m->libs, m->n_libs, name, &dst, have);
    if (err != cudaSuccess || *have < bytes)
        return err;
    err = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    size_t measured_have = 0;
    if (err == cudaSuccess && m->n_measured_libs &&
        (err = global_of(m->measured_libs, m->n_measured_libs, name, &dst, &measured_have)) ==
            cudaSuccess)
        err = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    return err;
}

static cudaError_t replay_one(const device_module *m, const plan_launch *l, void *const bufs[])
{
    const image_kernel *ik = &m->img->kernels[l->kernel];
    unsigned char params[REC_MAX_PARAM_BYTES];
    void *args[IMAGE_MAX_PARAMS + 1];
    const void *k = (const void *)(m->measuring && m->n_measured_libs ? m->measured
                                                                      : m->kernels)[l->kernel];
    cudaError_t err;

    memcpy(params, l->params, l->param_bytes);
    for (int i = 0; i < l->n_relocs; i++) {
        unsigned long long v = (unsigned long long)(size_t)bufs[l->relocs[i].buffer] +
                               l->relocs[i].delta;
        memcpy(params + l->relocs[i].offset, &v, sizeof v);
    }
    for (int i = 0; i < ik->n_params; i++)
        args[i] = params + ik->params[i].offset;
    if (l->max_dynamic_shared != REC_ATTR_UNSET &&
        (err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    l->max_dynamic_shared)) != cudaSuccess)
        return err;
    if (l->carveout != REC_ATTR_UNSET &&
        (err = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    l->carveout)) != cudaSuccess)
        return err;
    dim3 grid = {l->grid[0], l->grid[1], l->grid[2]}, block = {l->block[0], l->block[1], l->block[2]};
    return cudaLaunchKernel(k, grid, block, args, l->shared_bytes, 0);
}

static cudaError_t gpu_module_replay(const device_module *m, const call_plan *p, void *const bufs[])
{
    for (int i = 0; i < p->n_launches; i++) {
        cudaError_t err = replay_one(m, &p->launches[i], bufs);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

static cudaError_t gpu_module_scrub(const device_module *m, int poison)
{
    int words = m->max_shared / (int)sizeof(int);
    void *args[] = {&words, &poison};
    dim3 grid = {(unsigned)m->sm_count, 1, 1}, block = {1024, 1, 1};
    cudaError_t err = cudaLaunchKernel((const void *)m->scrub, grid, block, args,
                                       (size_t)m->max_shared, 0);
    return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

static dim3 spread(size_t n)
{
    size_t blocks = (n + 255) / 256;
    dim3 g = {(unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096), 1, 1};
    return g;
}

static cudaError_t gpu_module_fill(const device_module *m, float *x, size_t n, unsigned long long seed)
{
    unsigned long long count = n;
    void *args[] = {&x, &count, &seed};
    dim3 block = {256, 1, 1};
    return cudaLaunchKernel((const void *)m->fill, spread(n), block, args, 0, 0);
}

static cudaError_t gpu_module_diff(const device_module *m, const float *got, const float *want, size_t n,
                        device_diff *out)
{
    double *acc = NULL, host[4] = {0};
    unsigned long long count = n;
    unsigned poison = (unsigned)GPU_POISON_INT;
    dim3 block = {256, 1, 1};
    cudaError_t err = cudaMalloc((void **)&acc, sizeof host);
    if (err == cudaSuccess)
        err = cudaMemset(acc, 0, sizeof host);
    if (err == cudaSuccess) {
        void *args[] = {&got, &want, &count, &poison, &acc};
        err = cudaLaunchKernel((const void *)m->diff, spread(n), block, args, 0, 0);
    }
    if (err == cudaSuccess)
        err = cudaMemcpy(host, acc, sizeof host, cudaMemcpyDeviceToHost);
    gpu_free(acc);
    out->rel_error = host[1] > 0 ? __builtin_sqrt(host[0] / host[1]) : (host[0] > 0 ? 1e30 : 0);
    out->poisoned = host[2];
    out->not_finite = host[3];
    return err;
}

static cudaError_t gpu_module_conv(const device_module *m, const float *in, const float *mask, float *out,
                        int width, int height, int mw)
{
    void *args[] = {&in, &mask, &out, &width, &height, &mw};
    dim3 grid = {(unsigned)((width + 255) / 256), (unsigned)height, 1}, block = {256, 1, 1};
    cudaError_t err = cudaLaunchKernel((const void *)m->conv, grid, block, args, 0, 0);
    return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

/* The reference product for checking a measured run: cuBLAS SGEMM. */
static cudaError_t gpu_module_matmul(const device_module *m, const float *A, const float *B,
                                     float *C, int M, int N, int K)
{
    (void)m;
    if (blas_sgemm(A, B, C, M, N, K) != 0)
        return cudaErrorLaunchFailure;
    cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? cudaDeviceSynchronize() : err;
}

const device_ops device_gpu = {
    .name = "gpu", .sizes = SIZE_GPU, .untimed = NULL, .meters_blind = 1,
    .malloc = cuda_malloc, .free = gpu_free, .copy = cuda_copy, .memset = cuda_memset,
    .sync = cuda_sync, .last_error = cuda_last_error, .error_text = cuda_error_text,
    .error_name = cuda_error_name, .context_lost = gpu_context_lost,
    .load = gpu_module_load, .load_measured_copy = gpu_module_load_measured_copy,
    .unload = gpu_module_unload, .set_global = gpu_module_set_global,
    .replay = gpu_module_replay, .scrub = gpu_module_scrub, .fill = gpu_module_fill,
    .diff = gpu_module_diff, .conv = gpu_module_conv, .matmul = gpu_module_matmul,
};

/* --- run/module.h: whichever device runs the kernels ------------------------- */

int module_load(device_module *m, const lab_image *img, char *why, size_t why_size)
{
    return device_current()->load(m, img, why, why_size);
}

int module_load_measured_copy(device_module *m, char *why, size_t why_size)
{
    return device_current()->load_measured_copy(m, why, why_size);
}

void module_unload(device_module *m)
{
    device_current()->unload(m);
}

cudaError_t module_set_global(const device_module *m, const char *name, const void *src,
                              size_t bytes, size_t *have)
{
    return device_current()->set_global(m, name, src, bytes, have);
}

cudaError_t module_replay(const device_module *m, const call_plan *p, void *const bufs[])
{
    return device_current()->replay(m, p, bufs);
}

void replay_launch(void *replay_arg)
{
    const replay *r = replay_arg;
    module_replay(r->mod, r->plan, r->bufs); /* an error stays for cudaGetLastError */
}

cudaError_t module_scrub(const device_module *m, int poison)
{
    return device_current()->scrub(m, poison);
}

cudaError_t module_fill(const device_module *m, float *x, size_t n, unsigned long long seed)
{
    return device_current()->fill(m, x, n, seed);
}

cudaError_t module_diff(const device_module *m, const float *got, const float *want, size_t n,
                        device_diff *out)
{
    return device_current()->diff(m, got, want, n, out);
}

cudaError_t module_conv(const device_module *m, const float *in, const float *mask, float *out,
                        int width, int height, int mw)
{
    return device_current()->conv(m, in, mask, out, width, height, mw);
}

cudaKernel_t module_own_kernel(const device_module *m, const char *name)
{
    cudaKernel_t k = NULL;
    if (!m->own || cudaLibraryGetKernel(&k, m->own, name) != cudaSuccess)
        return NULL;
    return k;
}

cudaError_t module_matmul(const device_module *m, const float *A, const float *B, float *C,
                          int M, int N, int K)
{
    return device_current()->matmul(m, A, B, C, M, N, K);
}
