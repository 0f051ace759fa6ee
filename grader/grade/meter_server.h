/*
 * meter_server.h - one measuring process per GPU for many graders (a batch).
 *
 * A worker (worker.h) pays for the GPU and the profiler each time it starts:
 * on an H100, 0.23 s to open the GPU, then, on the GPU's turn, 0.2 s to open
 * CUPTI's profiler (most of it reading which counters are free) and 0.14 s
 * for the first counter session. A meter server pays once: smemlab-batch
 * starts one per GPU (smemlab-grade --serve-meter SOCKET), and each grader
 * it runs (--meter-socket SOCKET) sends its validated job there instead of
 * forking a worker.
 *
 * What does not change: the grader still records the student's host code
 * in its sandbox, decides the plans and owns the points; the server, like a
 * worker, only loads the device code of the bytes the grader sent and
 * replays the plans, and tells outcomes in the worker's messages, which the
 * grader checks as before. The grader talks to the server through a proxy
 * child in the worker's place, so its time limits and its handling of
 * hangs and crashes are the worker's: a kernel that hangs ends the server
 * (its watchdog first tells the proxy), one that loses the CUDA context
 * ends it after its lab, and the batch starts a new one. Where no server
 * answers, or it declines the job, the proxy becomes an ordinary worker.
 *
 * Between two labs the server frees (zeroed, gpu_free) every buffer and
 * unloads the code; while no grader waits it gives the GPU's lock and the
 * profiler back, so that other graders on the machine can measure.
 */
#ifndef SMEMLAB_METER_SERVER_H
#define SMEMLAB_METER_SERVER_H

#include "worker.h"

#include <stdint.h>

/* A job on the wire: this, then the library's bytes, the .fatbin's bytes, and
   one kernel_plan per kernel; the answer is the worker's messages, then MSG_EXIT. */
#define METER_MAGIC "smemlab-meter-1"
typedef struct meter_request {
    char magic[16];
    uint32_t plan_bytes, msg_bytes; /* both ends are one build */
    char lab[16];
    int32_t first, device, repeats, use_counters, measure;
    double timeout_s, kernel_budget_s;
    unsigned long long seed;
    char lib_path[512];
    uint64_t file_size, device_size;
} meter_request;

/* Serve graders on a Unix socket at path until killed; returns only on a setup error. */
int meter_serve(const char *socket_path, const grade_options *opt);

/* The worker entry of a grader given --meter-socket (runner.h's worker_entry). */
void meter_proxy_main(const grade_job *job, int first, int fd) __attribute__((noreturn));

#endif
