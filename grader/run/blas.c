/*
 * blas.c - cuBLAS SGEMM through dlopen (blas.h says why).
 */
#include "blas.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CUBLAS_SONAME "libcublas.so." STR(CUBLAS_VER_MAJOR)

typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                   int, int, const float *, const float *, int, const float *,
                                   int, const float *, float *, int);

static struct {
    cublasHandle_t handle;
    sgemm_fn sgemm;
} blas;

int blas_load(char *why, size_t n)
{
    if (blas.sgemm)
        return 0;
    void *lib = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, n, "cannot load %s (%s): install cuBLAS with the CUDA Toolkit",
                 CUBLAS_SONAME, dlerror());
        return -1;
    }
    create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
    sgemm_fn sgemm = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
    cublasStatus_t st = CUBLAS_STATUS_NOT_INITIALIZED;
    if (!create || !sgemm || (st = create(&blas.handle)) != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, n, "%s did not start (cublasCreate status %d)", CUBLAS_SONAME, (int)st);
        return -1;
    }
    blas.sgemm = sgemm;
    return 0;
}

/* cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T. */
int blas_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    const float one = 1.0f, zero = 0.0f;
    char why[256];
    if (blas_load(why, sizeof why) != 0)
        return -1;
    return blas.sgemm(blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero,
                      C, N) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}
