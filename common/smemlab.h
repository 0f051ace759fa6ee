/*
 * smemlab.h - the contract between a lab file and the grader (version 1).
 *
 * Every lab file (labs/labN-NAME/labN.cu, and the same file name under
 * solutions/) includes this header. `make labN` builds it into a shared
 * library. The grader never loads that library into the process that grades:
 * it reads the kernels (the GPU code) from the file and launches them itself,
 * and calls the launchers, by name, in a separate recorder process only to
 * see what they launch (docs/instructors.md, "What a submission can do").
 *
 *   - A launcher is declared with SMEMLAB_LAUNCHER, has C linkage and the
 *     exact name and parameters given in the lab's header comment.
 *   - A launcher only launches the lab's kernels (kernel<<<grid, block,
 *     bytes>>>(args)) on the default stream, and may set their shared-memory
 *     attributes (cudaFuncSetAttribute). Any other CUDA call (allocating,
 *     copying, synchronising, streams, libraries) fails the kernel: the
 *     grader allocates, copies, synchronises and times itself.
 *   - It launches the same way every time it is called with the same
 *     arguments, and only with the buffers it was given.
 *   - The block and tile sizes (BDIMX, BDIMY, TILE, ...) are part of the
 *     contract: the grader computes its expectations from them.
 *
 * Changing a launcher's name or parameters breaks old submissions and
 * instructors' hidden tests: bump SMEMLAB_CONTRACT_VERSION when you must.
 */
#ifndef SMEMLAB_H
#define SMEMLAB_H

#include <cuda_runtime.h>
/* printf works in a kernel too (the grader shows what kernels print apart from
   the report); CUDA declares it for device code through stdio.h. */
#include <stdio.h>

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
 * Marks a __constant__ (or __device__) variable the grader fills: it finds
 * the variable in the GPU code by its name, so the declaration's name is the
 * contract.   __constant__ float c_mask1d[MAX_MASK1D];
 *             SMEMLAB_SYMBOL(c_mask1d);
 * (The exported host handle is kept so that labs written for earlier kits
 * build unchanged.)
 */
#define SMEMLAB_SYMBOL(var) \
    SMEMLAB_EXTERN_C __attribute__((visibility("default"))) const void *const smemlab_symbol_##var = \
        (const void *)&(var)

#endif /* SMEMLAB_H */
