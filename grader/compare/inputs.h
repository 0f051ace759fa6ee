/*
 * inputs.h - what a kernel must only read, as the verdict of correct, on every backend
 * alike (docs/emulator.md#inputs):
 *   - a store or an atomic into an input: an array the lab's table marks as one
 *     (labs/calls.h, call_spec.inputs: the launcher's const arguments; lab 7's step 1
 *     alone writes its in, in place). Comparing the input's bytes after the run cannot
 *     see it (a value written back may be the one read): the write itself is found, by
 *     the emulator's meter at the instruction and by the trace's patches on a GPU, in
 *     every block (measure/access/trace.h: input_write);
 *   - a word read through the read-only cache (ld.global.nc: __ldg, const __restrict__)
 *     that the same launch writes: the CUDA Programming Guide allows that cache only data
 *     read-only for the kernel's whole lifetime (the emulator's meter; on a GPU the
 *     kernel's emulated twin: nc_written).
 */
#ifndef SMEMLAB_COMPARE_INPUTS_H
#define SMEMLAB_COMPARE_INPUTS_H

#include "../base/check.h"
#include "../measure/access/trace.h"

/* Where s (NULL: none) found a write into an input, correct fails naming the array, the
   line, who, and why. 1 when it did, else 0 (nothing set). */
int compare_input_written(check_result *correct, const trace_summary *s);

/* Where s found a word read through the read-only cache and written in one launch,
   correct fails naming both lines and the array. 1 when it did, else 0. */
int compare_nc_written(check_result *correct, const trace_summary *s);

#endif /* SMEMLAB_COMPARE_INPUTS_H */
