/*
 * measure_trace.h - the trace backend's library and what it offers beyond a
 * measure_backend.
 *
 * The capture (measure_trace.c, trace_patches.cu) needs the Compute
 * Sanitizer headers and library of a full CUDA Toolkit, which not every
 * install has. It is built, where they exist, into TRACE_LIB_NAME next to
 * the grader, with the patch functions in TRACE_PATCHES_NAME beside it, and
 * loaded at run time (measure_trace_loader.c): the grader itself builds and
 * runs without it.
 */
#ifndef SMEMLAB_MEASURE_TRACE_H
#define SMEMLAB_MEASURE_TRACE_H

#include "../access/lineinfo.h"
#include "../access/trace.h"
#include "../measure.h"

#define TRACE_LIB_NAME "libsmemlab-trace.so"
#define TRACE_PATCHES_NAME "smemlab-trace-patches.fatbin"
/* Overrides the library's path (tests, unusual layouts). */
#define TRACE_LIB_ENV "SMEMLAB_TRACE_LIB"

/* The library's entry points, looked up by name with dlsym. */
#define TRACE_ENTRY_BACKEND "smemlab_trace_backend"
#define TRACE_ENTRY_LAST "smemlab_trace_last"
#define TRACE_ENTRY_PATCHING "smemlab_trace_patching"
#define TRACE_ENTRY_ZONES "smemlab_trace_zones"
#define TRACE_ENTRY_INPUTS "smemlab_trace_inputs"
typedef void (*trace_patching_entry)(measure_backend *b, int on);
typedef void (*trace_zones_entry)(measure_backend *b, const unsigned long long *lo,
                                  const unsigned long long *hi, int n);
typedef measure_backend *(*trace_backend_entry)(char *why, size_t why_size);
typedef const trace_summary *(*trace_last_entry)(measure_backend *b, const char **function);

/*
 * The analysis of the last launch b measured: sites with their lines, races,
 * worst warps (valid until the next measure or close), and the launched
 * function's name in *function. NULL when b is not the trace backend or has
 * measured nothing yet.
 */
const trace_summary *measure_trace_last(measure_backend *b, const char **function);

/*
 * Whether modules loaded from now on are patched (default: yes). The worker
 * loads the student's code twice: a plain copy for the correctness and timed
 * runs, and a patched one that only measure() runs. No-op when b is not the
 * trace backend.
 */
void measure_trace_patching(measure_backend *b, int on);

/*
 * The guard zones [lo[i], hi[i]) (run/device.h, dev_guard_zones) the global accesses
 * of the launches measured from now on are held to, every block's: the first access
 * into one is the summary's oob (trace_oob.h). n 0: none. No-op when b is not the
 * trace backend.
 */
void measure_trace_zones(measure_backend *b, const unsigned long long *lo,
                         const unsigned long long *hi, int n);

/*
 * The inputs [lo[i], hi[i]) (measure.h: measure_inputs) the global stores and atomics of
 * the launches from now on are held to, every block's: the first into one is the
 * summary's input_write. n 0: none. No-op when b is not the trace backend.
 */
void measure_trace_inputs(measure_backend *b, const unsigned long long *lo,
                          const unsigned long long *hi, int n);

/* Where the loader looks for the library (TRACE_LIB_ENV, else beside the
 * running executable). */
const char *measure_trace_lib_path(char *buf, size_t size);

#endif /* SMEMLAB_MEASURE_TRACE_H */
