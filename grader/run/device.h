/*
 * device.h - where the student's kernels run: the GPU through CUDA, or the
 * PTX emulator on the CPU (grader/measure/emulator/, docs/emulator.md).
 *
 * The worker picks one when it starts (device_use_emulator) and keeps it.
 * Problem modules allocate, copy, fill and synchronise through these calls
 * and load and launch through run/module.h, never through CUDA directly, so
 * a kernel is graded by the same code whichever device ran it. Errors are
 * CUDA's codes on both; the emulator's carry their own words (dev_error_text).
 */
#ifndef SMEMLAB_DEVICE_H
#define SMEMLAB_DEVICE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* The types of run/module.h the table names, declared here rather than included:
   module.c dispatches to the device, so module.h must not be device.h's to read. */
typedef struct device_module device_module;
typedef struct device_diff device_diff;
typedef struct lab_image lab_image;
typedef struct call_plan call_plan;

/*
 * Where the last launch faulted, where the device can say (the emulator checks every
 * access; a GPU says only its error): the access, its line and the line it was
 * inlined at, who made it, and the buffer of the call (bufs[] of replay, as the lab's
 * calls number them) whose allocation the address lies past or before, and how far.
 */
typedef struct device_fault {
    const char *op;             /* "load", "store", "atomic" */
    const char *space;          /* "global", "shared", "local", "parameter" */
    const char *file, *call_file; /* NULL where not known */
    int line, call_line;
    int lane, warp;
    unsigned block[3];
    unsigned long long address; /* the lane's address (an offset in shared memory) */
    int buffer;                 /* -1: no buffer's allocation near it */
    long long reached;          /* one past its last byte, from the buffer's first (<= 0:
                                   it starts -reached bytes before) */
    long long bytes;            /* the buffer's allocation, from its first byte */
    int width;                  /* the access's bytes */
} device_fault;

/* What a device does, for dev_* and run/module.h to dispatch to. */
typedef struct device_ops {
    const char *name; /* "gpu", "emulator" */
    /* What grading asks of a device, rather than its name (problems/problem.c):
       which sizes of a lab's lists it runs (a call_spec's `devices` bit, SIZE_GPU or
       SIZE_EMULATOR of labs/sizes.h); NULL where it times kernels, else why speed is
       not measured there; whether its meters miss some instructions' shared traffic
       (the hardware's: printf's own accesses, the tensor memory accelerator's copies;
       the emulator records every access) */
    int sizes;
    const char *untimed;
    int meters_blind;
    cudaError_t (*malloc)(void **p, size_t bytes);
    void (*free)(void *p);
    cudaError_t (*copy)(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
    cudaError_t (*memset)(void *p, int byte, size_t bytes);
    cudaError_t (*sync)(void);
    cudaError_t (*last_error)(void);
    const char *(*error_text)(cudaError_t err);
    const char *(*error_name)(cudaError_t err);
    int (*context_lost)(void);
    /* the last launch's fault located (NULL: none, or the device cannot say) */
    const device_fault *(*last_fault)(void);
    /* run/module.h, one for one */
    int (*load)(device_module *m, const lab_image *img, char *why, size_t why_size);
    int (*load_measured_copy)(device_module *m, char *why, size_t why_size);
    void (*unload)(device_module *m);
    cudaError_t (*set_global)(const device_module *m, const char *name, const void *src,
                              size_t bytes, size_t *have);
    cudaError_t (*replay)(const device_module *m, const call_plan *p, void *const bufs[]);
    cudaError_t (*scrub)(const device_module *m, int poison);
    cudaError_t (*fill)(const device_module *m, float *x, size_t n, unsigned long long seed);
    cudaError_t (*diff)(const device_module *m, const float *got, const float *want, size_t n,
                        device_diff *out);
    cudaError_t (*conv)(const device_module *m, const float *in, const float *mask, float *out,
                        int width, int height, int mw);
    cudaError_t (*matmul)(const device_module *m, const float *A, const float *B, float *C,
                          int M, int N, int K);
    /* Optional: the first `front` and the last `back` bytes of the allocation at p are
       guard zones, where a kernel's access is out of bounds (the emulator reports one;
       on the GPU the trace's patches look for them: dev_guard_zones). */
    void (*guard)(void *p, size_t front, size_t back);
    /* Optional: the launches from now on run their blocks (and a block's warps) last to
       first (1) or first to last (0); a GPU's order is its own (NULL). */
    void (*order)(int reverse);
} device_ops;

extern const device_ops device_gpu; /* CUDA: run/gpu.c, run/module.c */

/* From now on this process runs kernels on ops (the worker, once, at its start). */
void device_use(const device_ops *ops);
const device_ops *device_current(void);
int device_is_emulator(void);

/* Whether this device runs a call whose `devices` are these (labs/sizes.h bits). */
int device_runs(int devices);
/* NULL where this device times kernels; else why a speed check is not measured. */
const char *device_untimed(void);
/* Whether the meters of this device miss some instructions (device_ops.meters_blind). */
int device_meters_blind(void);

/*
 * Every array the grader gives a kernel (docs/emulator.md#bounds): bytes with a guard
 * zone of DEV_GUARD_BYTES on each side, filled with DEV_GUARD_BYTE, no other array
 * adjacent, laid out alike on the GPU and in the emulator. A kernel that reads just past
 * an array reads the guard's bytes on every device (no fault, no other array's data),
 * and the access is named: the emulator reports it, the trace's patches look for it in
 * the zones dev_guard_zones lists. dev_free frees the whole and forgets the array.
 */
#define DEV_GUARD_BYTES 65536
#define DEV_GUARD_BYTE 0xEE /* as gpu.h's GPU_POISON_BYTE: an unwritten output's */
cudaError_t dev_malloc(void **p, size_t bytes);
/* Free p, its bytes zeroed first (the next submission graded by this process
   must find none of them). NULL is a no-op. */
void dev_free(void *p);

/* An array dev_malloc made: its first byte, its bytes, and the name the launch that
   uses it gives it ("" where none has: the grader's own). */
#define DEV_NAME_BYTES 16
typedef struct dev_array {
    unsigned long long base, bytes;
    char name[DEV_NAME_BYTES];
} dev_array;

/* The array of this device whose bytes hold p gets a name (the launcher's argument that
   receives it: "in", "partial"), kept until it is freed or named again. */
void dev_name(const void *p, const char *name);

/* The array of this device whose bytes or guard zones hold addr: 1 with *out, else 0. */
int dev_array_at(unsigned long long addr, dev_array *out);

/* The guard zones of this device's arrays, [lo[i], hi[i]), up to max: how many. */
int dev_guard_zones(unsigned long long *lo, unsigned long long *hi, int max);

/* Every array of this device, its guard zones too, kept aside in host memory (dev_keep)
   and put back where it lies (dev_restore, as often as asked) until dev_forget: a meter
   that launches a kernel twice gives the second launch the bytes the first found. No
   array may be made or freed meanwhile (a kind makes its arrays before the launch). */
cudaError_t dev_keep(void);
cudaError_t dev_restore(void);
void dev_forget(void);
cudaError_t dev_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t dev_memset(void *p, int byte, size_t bytes);
/* Wait for every launch (GPU); nothing to wait for (emulator). */
cudaError_t dev_sync(void);
/* The error a launch left, and clear it (cudaGetLastError). */
cudaError_t dev_last_error(void);
/* What err means, in the device's words: the emulator names the instruction
   and the source line of its last error. */
const char *dev_error_text(cudaError_t err);
const char *dev_error_name(cudaError_t err);
/* After an error: can nothing more run in this process (a sticky CUDA error)? */
int dev_context_lost(void);
/* Where the last launch faulted, if it did and the device located the access
   (device_fault); else NULL. */
const device_fault *dev_last_fault(void);
/* The launches from now on run their blocks and warps last to first (reverse 1) where
   the device decides the order (the emulator); 1 when it does, 0 where it does not. */
int dev_order(int reverse);

#endif /* SMEMLAB_DEVICE_H */
