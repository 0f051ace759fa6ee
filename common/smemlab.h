/*
 * smemlab.h - the contract between a lab file and the grader (version 1).
 *
 * Every lab file (labs/labN-NAME/labN.cu, and the same file name under
 * solutions/) includes this header. The grader loads the lab as a shared
 * library built by `make labN` and calls the launchers it exports by name.
 *
 *   - A launcher is declared with SMEMLAB_LAUNCHER, has C linkage and the
 *     exact name and parameters given in the lab's header comment.
 *   - A launcher only enqueues work on the default stream; the grader checks
 *     cudaGetLastError(), synchronises and times out hung kernels itself.
 *   - Device buffers passed in are allocated by the grader; a launcher must
 *     not allocate, free or copy them.
 *   - The block and tile sizes (BDIMX, BDIMY, TILE, ...) are part of the
 *     contract: the grader computes its expectations from them.
 *
 * Changing a launcher's name or parameters breaks old submissions and
 * instructors' hidden tests: bump SMEMLAB_CONTRACT_VERSION when you must.
 */
#ifndef SMEMLAB_H
#define SMEMLAB_H

#include <cuda_runtime.h>

#define SMEMLAB_CONTRACT_VERSION 1

#ifdef __cplusplus
#define SMEMLAB_EXTERN_C extern "C"
#else
#define SMEMLAB_EXTERN_C
#endif

/* Exported entry point of a lab library. */
#define SMEMLAB_LAUNCHER SMEMLAB_EXTERN_C __attribute__((visibility("default")))

/*
 * Exported integer parameter of a lab (a tile size, a pad), read by the
 * grader as the symbol smemlab_param_<name>:  SMEMLAB_PARAM(TILE, TILE);
 */
#define SMEMLAB_PARAM(name, value) \
    SMEMLAB_EXTERN_C __attribute__((visibility("default"))) const int smemlab_param_##name = (value)

/*
 * Export the host handle of a __constant__ (or __device__) variable so the
 * grader can fill it with cudaMemcpyToSymbol: the variable itself has internal
 * linkage in a library built without -rdc. The grader looks up
 * smemlab_symbol_<var>.   __constant__ float c_mask1d[MAX_MASK1D];
 *                         SMEMLAB_SYMBOL(c_mask1d);
 */
#define SMEMLAB_SYMBOL(var) \
    SMEMLAB_EXTERN_C __attribute__((visibility("default"))) const void *const smemlab_symbol_##var = \
        (const void *)&(var)

#endif /* SMEMLAB_H */
