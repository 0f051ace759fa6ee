/*
 * module.h - the student's device code, loaded by the grader itself.
 *
 * The measuring process loads the fatbinaries read from the lab library's
 * file (lab_image) through the CUDA runtime's library API, or into the
 * emulator (run/device.h), and launches the kernels a validated plan names,
 * on its own buffers and stream. The lab
 * library itself is never loaded here, so none of its host code runs. The
 * grader's own kernels (grader/device) come from the grader's binary.
 */
#ifndef SMEMLAB_MODULE_H
#define SMEMLAB_MODULE_H

#include "../image/lab_image.h"
#include "../record/plan.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

typedef struct device_module {
    const lab_image *img;
    cudaLibrary_t libs[IMAGE_MAX_FATBINS];
    int n_libs;
    cudaKernel_t kernels[IMAGE_MAX_KERNELS]; /* by lab_image kernel index */
    cudaLibrary_t measured_libs[IMAGE_MAX_FATBINS]; /* a second copy, for the trace (below) */
    int n_measured_libs;
    cudaKernel_t measured[IMAGE_MAX_KERNELS];
    int measuring;                           /* module_replay runs the second copy */
    cudaLibrary_t own;                       /* the grader's kernels */
    cudaKernel_t scrub, fill, diff, conv;
    int sm_count, max_shared;
    void *emu; /* the emulator's own state, where it runs the kernels */
} device_module;

/* Load the student's and the grader's device code. 0, or -1 with why (an environment error). */
int module_load(device_module *m, const lab_image *img, char *why, size_t why_size);

/* Unload both (a meter server grades the next lab in the same process). */
void module_unload(device_module *m);

/*
 * A second copy of the student's code, for a meter that instruments the
 * code it loads (the trace): module_replay runs it while m->measuring is
 * set, and the plain copy otherwise, so correctness and timed runs run the
 * code as compiled. 0, or -1 with why.
 */
int module_load_measured_copy(device_module *m, char *why, size_t why_size);

/*
 * Write bytes from src into the __constant__ or __device__ variable `name`
 * of the student's code (of both copies); *have: the variable's size. Not
 * written when it is smaller than bytes.
 */
cudaError_t module_set_global(const device_module *m, const char *name, const void *src,
                              size_t bytes, size_t *have);

/* Launch every launch of plan p with the grader's buffers bufs (by plan buffer index). */
cudaError_t module_replay(const device_module *m, const call_plan *p, void *const bufs[]);

/* One replay of a call, for the launch callbacks of gpu_run, timing and measuring:
   replay_launch(&r) is module_replay(r.mod, r.plan, r.bufs), its error left for
   cudaGetLastError. */
typedef struct replay {
    const device_module *mod;
    const call_plan *plan;
    void *bufs[CALL_MAX_BUFFERS];
} replay;
void replay_launch(void *replay_arg);

/* Fill the shared memory of every SM with poison (before a graded run). */
cudaError_t module_scrub(const device_module *m, int poison);

/* n fresh uniform floats in [-1, 1) at x. */
cudaError_t module_fill(const device_module *m, float *x, size_t n, unsigned long long seed);

/* got against want on the device: relative Frobenius error, poisoned and non-finite counts. */
typedef struct device_diff {
    double rel_error;
    double poisoned, not_finite;
} device_diff;
cudaError_t module_diff(const device_module *m, const float *got, const float *want, size_t n,
                        device_diff *out);

/* The reference convolution (1-D when height == 1) into out. */
cudaError_t module_conv(const device_module *m, const float *in, const float *mask, float *out,
                        int width, int height, int mw);

/* One of the grader's own kernels (device/grader_kernels.cu) by name, for the timed runs
   that only a GPU makes; NULL where none is loaded (the emulator) or the code lacks it. */
cudaKernel_t module_own_kernel(const device_module *m, const char *name);

/* The reference product C = A * B (cuBLAS on a GPU), finished when it returns. */
cudaError_t module_matmul(const device_module *m, const float *A, const float *B, float *C,
                          int M, int N, int K);

#endif
