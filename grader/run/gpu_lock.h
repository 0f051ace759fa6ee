/*
 * gpu_lock.h - one measuring process per GPU at a time.
 *
 * The device's profiler serves one process at a time (on the H100, asking
 * which counters are free and starting a session both fail with
 * CUPTI_ERROR_HARDWARE_BUSY while another process's session runs), and timings are
 * only fair on a GPU nobody else runs kernels on. So a worker opens the GPU
 * and loads the code (which may overlap with another grader), then takes an
 * advisory lock on a file named after the GPU's PCI address before it
 * touches the profiler or runs a kernel, and keeps it until it exits (a
 * meter server: until no grader waits for it, meter_server.h): the
 * kernel drops the lock of a process that dies, so a crashed or killed
 * worker never blocks the GPU.
 * The lock is shared by every smemlab grader on the machine (two students'
 * `make grade`, the graders of a batch), whoever runs them.
 */
#ifndef SMEMLAB_GPU_LOCK_H
#define SMEMLAB_GPU_LOCK_H

#include <stddef.h>

/* The lock file of the GPU at PCI address `pci`: $SMEMLAB_LOCK_DIR or /tmp. */
void gpu_lock_path(const char *pci, char *path, size_t size);

/*
 * Take the lock of the GPU at `pci`. When another process holds it,
 * waiting(arg, lock_path) is called once before the wait, which has no end
 * of its own (the grader bounds it). Returns the lock's descriptor (keep it
 * open), or -1 with why filled when no lock file can be used (the caller
 * goes on without one).
 */
int gpu_lock_take(const char *pci, void (*waiting)(void *arg, const char *lock_path), void *arg,
                  char *why, size_t why_size);

#endif
