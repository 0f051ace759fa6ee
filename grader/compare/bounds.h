/*
 * bounds.h - a global access outside the array it indexes (measure/access/trace_oob.h:
 * into the guard zone the grader lays before and after every array it gives a
 * kernel) as the verdict of correct: the line, the array and how far past its end
 * (docs/emulator.md#bounds). The same words whichever backend found it: the
 * emulator at the instruction, the trace's patches on a GPU.
 */
#ifndef SMEMLAB_COMPARE_BOUNDS_H
#define SMEMLAB_COMPARE_BOUNDS_H

#include "../base/check.h"
#include "../measure/access/trace.h"

#include <stddef.h>

/*
 * Where s (a launch's summary, NULL: none) found an access out of bounds (its
 * oob_count, its first in oob, the array named), correct fails with it, in
 * fault.h's one wording after "out of bounds: " ("out of bounds: lab7.cu:63: a load
 * by lane 1 of warp 0 of block 0 reaches byte 8 of in (an argument of 4 bytes), 4
 * bytes past its end"). Returns 1 when it did, else 0 (nothing set).
 */
int compare_oob(check_result *correct, const trace_summary *s);

/* The message alone, for what o found (its base and bytes known). */
const char *compare_oob_text(const trace_oob *o, char *buf, size_t size);

#endif /* SMEMLAB_COMPARE_BOUNDS_H */
