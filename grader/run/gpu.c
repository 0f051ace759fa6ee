/* gpu.c - device helpers for the worker process; see gpu.h. */
#define _GNU_SOURCE
#include "gpu.h"

#include "../base/child.h"
#include "device.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* Guard bytes on each side of a guarded buffer: a kernel that writes past out by up to
   this much changes them, on a GPU (where such a write faults nowhere) and in the
   emulator (where it stays inside the allocation) alike, and is graded the same. */
#define GUARD_BYTES 65536

static int cuda_fail(cudaError_t err, const char *what, char *why, size_t n)
{
    snprintf(why, n, "%s: %s", what, dev_error_text(err));
    return -1;
}

gpu_status gpu_open(int device, gpu_info *info, char *why, size_t why_size)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    struct cudaDeviceProp p;

    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice || count == 0) {
        snprintf(why, why_size, "%s", err == cudaErrorInsufficientDriver
                 ? "the NVIDIA driver is missing or older than this CUDA Toolkit: install "
                   "or update the driver (docs/troubleshooting.md). `make check` needs no GPU."
                 : "no CUDA GPU found: the grader runs kernels on a GPU "
                   "(docs/troubleshooting.md). `make check` needs no GPU.");
        return err == cudaErrorInsufficientDriver ? GPU_NO_DRIVER : GPU_NO_DEVICE;
    }
    if (err != cudaSuccess) {
        cuda_fail(err, "looking for a GPU", why, why_size);
        return GPU_ERROR;
    }
    if (device >= count) {
        snprintf(why, why_size, "device %d asked for, but only %d GPU(s) found", device, count);
        return GPU_NO_DEVICE;
    }
    if ((err = cudaSetDevice(device)) != cudaSuccess ||
        (err = cudaGetDeviceProperties(&p, device)) != cudaSuccess ||
        (err = cudaFree(0)) != cudaSuccess ||
        (err = cudaDeviceGetPCIBusId(info->pci, (int)sizeof info->pci, device)) != cudaSuccess) {
        cuda_fail(err, "opening the GPU", why, why_size);
        return GPU_ERROR;
    }
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->major = p.major;
    info->minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    if (bank_geometry_for(p.major, p.minor, p.warpSize, 0, &info->banks) != 0) {
        snprintf(why, why_size, "compute capability %d.%d has no bank model", p.major, p.minor);
        return GPU_UNSUPPORTED;
    }
    return GPU_OK;
}

/* --- the GPU's memory and errors (device_gpu, run/module.c) ------------------ */

cudaError_t cuda_malloc(void **p, size_t bytes) { return cudaMalloc(p, bytes); }
cudaError_t cuda_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cuda_memset(void *p, int byte, size_t bytes) { return cudaMemset(p, byte, bytes); }
cudaError_t cuda_sync(void) { return cudaDeviceSynchronize(); }
cudaError_t cuda_last_error(void) { return cudaGetLastError(); }
const char *cuda_error_text(cudaError_t err) { return cudaGetErrorString(err); }
const char *cuda_error_name(cudaError_t err) { return cudaGetErrorName(err); }

/* --- guarded buffers, on whichever device runs the kernels -------------------- */

int guarded_alloc(guarded *g, size_t bytes, char *why, size_t why_size)
{
    cudaError_t err;
    memset(g, 0, sizeof *g);
    g->bytes = bytes;
    g->guard_bytes = GUARD_BYTES;
    err = dev_malloc((void **)&g->base, bytes + 2 * GUARD_BYTES);
    if (err != cudaSuccess)
        return cuda_fail(err, "allocating the output", why, why_size);
    g->data = g->base + GUARD_BYTES;
    if (guarded_poison(g, why, why_size) == 0)
        return 0;
    guarded_free(g); /* callers free only what they got */
    return -1;
}

int guarded_poison(guarded *g, char *why, size_t why_size)
{
    cudaError_t err = dev_memset(g->base, GPU_POISON_BYTE, g->bytes + 2 * g->guard_bytes);
    return err == cudaSuccess ? 0 : cuda_fail(err, "poisoning the output", why, why_size);
}

/* The output straight into host, each guard into a buffer of its own: a large
   output is not copied twice. */
int guarded_read(const guarded *g, void *host, long *guard_changed, char *why, size_t why_size)
{
    unsigned char *guards = malloc(2 * g->guard_bytes);
    cudaError_t err = guards ? cudaSuccess : cudaErrorMemoryAllocation;
    if (err == cudaSuccess)
        err = dev_copy(guards, g->base, g->guard_bytes, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess)
        err = dev_copy(host, g->data, g->bytes, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess)
        err = dev_copy(guards + g->guard_bytes, g->base + g->guard_bytes + g->bytes, g->guard_bytes,
                       cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        free(guards);
        return cuda_fail(err, "copying the output back", why, why_size);
    }
    *guard_changed = 0;
    for (size_t i = 0; i < 2 * g->guard_bytes; i++)
        *guard_changed += guards[i] != GPU_POISON_BYTE;
    free(guards);
    return 0;
}

void gpu_free(void *p)
{
    static CUresult (*range)(CUdeviceptr *, size_t *, CUdeviceptr);
    static int looked_up;
    enum cudaDriverEntryPointQueryResult found;
    if (!p)
        return;
    if (!looked_up++ && (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", (void **)&range,
                                                          12000, cudaEnableDefault, &found) !=
                             cudaSuccess ||
                         found != cudaDriverEntryPointSuccess))
        range = NULL;
    CUdeviceptr base;
    size_t size;
    if (range && range(&base, &size, (CUdeviceptr)p) == CUDA_SUCCESS)
        cudaMemset((void *)base, 0, size);
    cudaFree(p);
}

void guarded_free(guarded *g)
{
    if (g->base)
        dev_free(g->base);
    memset(g, 0, sizeof *g);
}

static double g_watchdog_s = 10;
static double g_slowest_run; /* seconds: the slowest plain run since gpu_runs_forget */

void gpu_runs_forget(void)
{
    g_slowest_run = 0;
}

double gpu_slowest_run(void)
{
    return g_slowest_run;
}
static int g_watchdog_exit = 1;

static int g_last_fd = -1;
static const void *g_last_words;
static size_t g_last_len;

static void watchdog_fired(int sig)
{
    (void)sig;
    if (g_last_fd >= 0 && write(g_last_fd, g_last_words, g_last_len) < 0) {
        /* the listener is gone: nothing more to say */
    }
    _exit(g_watchdog_exit);
}

void gpu_watchdog_last_words(int fd, const void *msg, size_t len)
{
    g_last_words = msg;
    g_last_len = len;
    g_last_fd = fd;
}

void gpu_watchdog_set(double seconds, int exit_status)
{
    g_watchdog_s = seconds;
    g_watchdog_exit = exit_status;
    signal(SIGALRM, watchdog_fired);
}

void gpu_watchdog_set_seconds(double seconds)
{
    g_watchdog_s = seconds;
}

void gpu_watchdog_arm(void)
{
    /* A meter server whose grader is gone (past its time limit, killed) stops
       before the next launch instead of running the rest of its kernel. */
    struct pollfd p = {g_last_fd, POLLRDHUP, 0};
    if (g_last_fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
        _exit(g_watchdog_exit);
    struct itimerval it = {{0, 0}, {(time_t)g_watchdog_s,
                                    (suseconds_t)((g_watchdog_s - (double)(time_t)g_watchdog_s) * 1e6)}};
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1000;
    setitimer(ITIMER_REAL, &it, NULL);
}

void gpu_watchdog_arm_for(double seconds)
{
    double keep = g_watchdog_s;
    g_watchdog_s = seconds;
    gpu_watchdog_arm();
    g_watchdog_s = keep;
}

double gpu_watchdog_seconds(void)
{
    return g_watchdog_s;
}

void gpu_watchdog_disarm(void)
{
    struct itimerval it = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &it, NULL);
}

int gpu_run(void (*launch)(void *), void *arg, int *broken, char *why, size_t why_size)
{
    cudaError_t err;

    *broken = 0;
    dev_last_error(); /* start clean */
    double t0 = child_now();
    gpu_watchdog_arm();
    launch(arg);
    err = dev_last_error();
    if (err == cudaSuccess)
        err = dev_sync();
    gpu_watchdog_disarm();
    if (err == cudaSuccess) {
        double t = child_now() - t0;
        if (!device_is_emulator()) /* the emulated twin's runs say nothing of the GPU's */
            g_slowest_run = t > g_slowest_run ? t : g_slowest_run;
        return 0;
    }
    const char *text = dev_error_text(err);
    if (!strncmp(text, "not graded: ", 12)) /* the emulator's own words, whole */
        snprintf(why, why_size, "%s", text);
    else
        snprintf(why, why_size, "%s (%s)", text, dev_error_name(err));
    *broken = device_current()->context_lost();
    return -1;
}

int gpu_context_lost(void)
{
    /* A sticky error keeps coming back after it was read once. */
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess;
}

int gpu_absent(void)
{
    return access("/dev/nvidiactl", F_OK) != 0;
}

cudaError_t gpu_timed_launch(void (*launch)(void *), void *arg, cudaEvent_t start,
                             cudaEvent_t stop, double *ms)
{
    float elapsed = 0;
    cudaGetLastError();
    gpu_watchdog_arm();
    cudaError_t err = cudaEventRecord(start, 0);
    if (err == cudaSuccess) {
        launch(arg);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess)
        err = cudaEventRecord(stop, 0);
    if (err == cudaSuccess)
        err = cudaEventSynchronize(stop);
    gpu_watchdog_disarm();
    if (err == cudaSuccess)
        err = cudaEventElapsedTime(&elapsed, start, stop);
    *ms = elapsed;
    return err;
}
