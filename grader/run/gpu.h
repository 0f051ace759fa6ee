/*
 * gpu.h - the device side of running a student's kernel: opening the GPU,
 * guarded buffers, launching with full error checking.
 * Only the worker process calls these (CUDA must not start in the grader
 * process, which forks workers).
 */
#ifndef SMEMLAB_GPU_H
#define SMEMLAB_GPU_H

#include "../model/bank.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

typedef enum gpu_status {
    GPU_OK,
    GPU_NO_DRIVER, /* libcuda missing or too old */
    GPU_NO_DEVICE,
    GPU_UNSUPPORTED, /* architecture the kit cannot model */
    GPU_ERROR
} gpu_status;

typedef struct gpu_info {
    char name[256];
    char pci[32]; /* PCI address, 0000:1B:00.0: the same GPU whatever CUDA_VISIBLE_DEVICES says */
    int major, minor;
    int sm_count;
    bank_geometry banks;
} gpu_info;

gpu_status gpu_open(int device, gpu_info *info, char *why, size_t why_size);

/* No NVIDIA driver on this machine (its control device is missing): known without
   loading CUDA, so a process that forks workers may ask. */
int gpu_absent(void);

/* The slowest run gpu_run made since gpu_runs_forget (seconds): what an
   instrumented launch's time limit is scaled from. */
void gpu_runs_forget(void);
double gpu_slowest_run(void);
/* Arm the watchdog for this many seconds once (the next arm is the usual one). */
void gpu_watchdog_arm_for(double seconds);
double gpu_watchdog_seconds(void);

/* Poison words: what an unwritten element of out holds, and shared-memory junk. */
#define GPU_POISON_BYTE 0xEE
#define GPU_POISON_INT ((int)0xEEEEEEEEu)
#define GPU_SCRUB_INT 0x5A5A5A5A

/*
 * A device buffer of `count` elements with guard words on both sides, all
 * poisoned. `data` is what the kernel gets.
 */
typedef struct guarded {
    char *base;
    void *data;
    size_t bytes, guard_bytes;
} guarded;

int guarded_alloc(guarded *g, size_t bytes, char *why, size_t why_size);
int guarded_poison(guarded *g, char *why, size_t why_size);
/* Copy the data back to host memory; *guard_changed counts damaged guard bytes. */
int guarded_read(const guarded *g, void *host, long *guard_changed, char *why, size_t why_size);
void guarded_free(guarded *g);

/*
 * cudaFree, the allocation zeroed first: a meter server grades the next
 * submission in the same process, whose kernel must find none of this one's
 * data (a right answer, say) in memory it reads out of bounds.
 */
void gpu_free(void *p);

/*
 * Run launch(arg), then check the launch and wait for it. Returns 0, or -1
 * with the CUDA error's text in why; *broken is set when the error is sticky
 * and the context can run nothing more.
 */
int gpu_run(void (*launch)(void *), void *arg, int *broken, char *why, size_t why_size);

/*
 * The watchdog: a wait for the GPU that lasts longer than `seconds` ends the
 * process with `exit_status` (a hung kernel cannot be stopped any other way;
 * the grader reports the kernel as timed out). gpu_run arms it itself; other
 * waits arm it around themselves.
 */
void gpu_watchdog_set(double seconds, int exit_status);
/* The limit alone, the exit status kept: an emulated launch in a GPU grade (the twin)
   gets the emulator's limit for as long as it runs. */
void gpu_watchdog_set_seconds(double seconds);
void gpu_watchdog_arm(void);
/* How many times --timeout an emulated launch may run (an emulated grade's launches, and
   the emulated twin's in a GPU grade): the emulator runs a kernel thousands of times
   slower than a GPU, and its own budget of warp instructions (EMU_DEFAULT_BUDGET, about
   10 s of a host core) ends an endless loop first, in its own words. */
#define GPU_EMULATED_WATCHDOG_FACTOR 6.0
/* What the watchdog writes to fd before it ends the process (a meter server
   tells its grader that the kernel timed out); fd -1: nothing. With an fd
   set, gpu_watchdog_arm ends the process at once when fd's peer has hung up. */
void gpu_watchdog_last_words(int fd, const void *msg, size_t len);
void gpu_watchdog_disarm(void);

/* One timed run of launch(arg) under the watchdog: events around the launch
   alone (start and stop made by the caller), its time in *ms. */
cudaError_t gpu_timed_launch(void (*launch)(void *), void *arg, cudaEvent_t start,
                             cudaEvent_t stop, double *ms);

/* What one graded run of a kernel came to. */
typedef enum run_outcome {
    RUN_RIGHT,  /* ran, output right */
    RUN_WRONG,  /* ran, output wrong */
    RUN_FAILED, /* did not run: a CUDA error, the context still usable */
    RUN_LOST    /* a CUDA error that lost the context: nothing more can run */
} run_outcome;

/* After a CUDA error: is the context gone (the error is sticky)? */
int gpu_context_lost(void);

/* The GPU's memory calls and errors, for device_gpu (run/device.h): CUDA's. */
cudaError_t cuda_malloc(void **p, size_t bytes);
cudaError_t cuda_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cuda_memset(void *p, int byte, size_t bytes);
cudaError_t cuda_sync(void);
cudaError_t cuda_last_error(void);
const char *cuda_error_text(cudaError_t err);
const char *cuda_error_name(cudaError_t err);

#endif /* SMEMLAB_GPU_H */
