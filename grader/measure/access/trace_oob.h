/*
 * trace_oob.h - one global access a measurement names, the first of its kind (trace.h):
 * an access outside the array it indexes, into the guard zone the grader lays before
 * and after every array it gives a kernel (run/device.h, dev_malloc;
 * docs/emulator.md#bounds); a store or an atomic into an input; a word read through the
 * read-only cache and written. The emulator's meter fills the first from the PTX
 * machine's emu_oob, field for field; the trace's patches catch one on the GPU
 * (trace_record.h, trace_buffer.oob_*). Its own header, as trace_race.h: plain data.
 */
#ifndef SMEMLAB_TRACE_OOB_H
#define SMEMLAB_TRACE_OOB_H

#include <stdint.h>

typedef struct trace_oob {
    uint64_t pc;             /* the instruction (an offset in its function) */
    const char *file, *call_file; /* its source line, where it was inlined (NULL: none) */
    int line, call_line;
    int op;                  /* trace_op: TRACE_OP_LOAD, _STORE, _ATOMIC */
    uint64_t addr;           /* the lane's first byte */
    uint32_t width;          /* bytes it moved */
    uint32_t block, warp, lane;
    /* the array it lies before or after: its first byte, its bytes and its name (the
       launcher's argument: "in"); base 0 where not known yet (the judge asks the
       device: dev_array_at), name "" where it has none */
    uint64_t base, bytes;
    char array[16];
} trace_oob;

#endif /* SMEMLAB_TRACE_OOB_H */
