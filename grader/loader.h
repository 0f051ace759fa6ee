/*
 * loader.h - loading the lab library that `make labN` built.
 * Called in the worker process: loading registers the lab's kernels with the
 * CUDA runtime.
 */
#ifndef SMEMLAB_LOADER_H
#define SMEMLAB_LOADER_H

#include <cuda_runtime_api.h>
#include <stddef.h>

typedef struct lab_lib {
    void *handle;
    char path[512];
    cudaError_t (*scrub_shared)(int poison); /* from common/support.cu */
} lab_lib;

/* Returns 0, or -1 with a message that says what to do. */
int lab_lib_open(const char *path, lab_lib *lib, char *why, size_t why_size);

/* Address of an exported symbol, or NULL. */
void *lab_lib_symbol(const lab_lib *lib, const char *name);

/* Value of an exported SMEMLAB_PARAM; returns 0 when found. */
int lab_lib_param(const lab_lib *lib, const char *symbol, int *value);

struct lab_def;
/*
 * The parameters the lab's contract fixes (TILE, MAX_MASK2D, ...) must be
 * exported with their values. Returns 0, or -1 with what to change.
 */
int lab_lib_check_params(const lab_lib *lib, const struct lab_def *lab, char *why,
                         size_t why_size);

#endif /* SMEMLAB_LOADER_H */
