/*
 * sync.h - the synchronisation errors of a measured launch (trace_sync.h) as
 * verdicts: a divergent barrier fails the kernel's correct and race checks,
 * a member mask that names lanes not there fails correct
 * (docs/emulator.md#sync).
 */
#ifndef SMEMLAB_COMPARE_SYNC_H
#define SMEMLAB_COMPARE_SYNC_H

#include "../base/check.h"
#include "../measure/access/trace.h"

#include <stddef.h>

/*
 * The first synchronisation error of the launch s summarises, if any: correct
 * fails with it, and race too (race may be NULL: the kernel has no race check)
 * where it is a barrier's. Returns 1 when there was one, else 0 (nothing set).
 */
int compare_sync(check_result *correct, check_result *race, const trace_summary *s);

/*
 * One line for an error, what a student reads: "divergent barrier: the
 * __syncthreads() at lab9.cu:42 was reached by threads 0-511 of block (2,0,0)
 * but not by threads 512-1023, which had not exited".
 */
const char *compare_sync_text(const trace_sync *e, char *buf, size_t size);

/* The CUDA name of a synchronising PTX instruction: "shfl.sync.bfly.b32" ->
   "__shfl_xor_sync", "bar.sync" -> "__syncthreads()"; the text itself otherwise. */
const char *compare_sync_name(const char *ptx, char *buf, size_t size);

#endif /* SMEMLAB_COMPARE_SYNC_H */
