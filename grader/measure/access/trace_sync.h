/*
 * trace_sync.h - a synchronisation error a measurement found: a block-wide
 * barrier not every thread that had to reached, a warp primitive whose member
 * mask names lanes that do not execute it (docs/emulator.md#sync). The
 * emulator's meter fills it from the PTX machine's emu_sync_error, field for
 * field; a GPU backend that runs the kernel's emulated twin would fill it the
 * same way. Its own header, as trace_race.h: plain data.
 */
#ifndef SMEMLAB_TRACE_SYNC_H
#define SMEMLAB_TRACE_SYNC_H

#include <stdint.h>

typedef enum trace_sync_kind {
    TRACE_SYNC_BARRIER_WARP,  /* lanes of an arriving warp, not exited, never reached it */
    TRACE_SYNC_BARRIER_BLOCK, /* threads went on past the barrier the others waited at */
    TRACE_SYNC_BARRIER_SPLIT, /* threads of one block waited at different barriers */
    TRACE_SYNC_MASK_ABSENT,   /* a member mask names lanes that do not execute it */
    TRACE_SYNC_MASK_SELF,     /* lanes execute it that their member mask leaves out */
    TRACE_SYNC_MASK_READ      /* a shuffle reads lanes that do not execute it */
} trace_sync_kind;

#define TRACE_SYNC_MAX 8       /* errors a summary keeps, first met first */
#define TRACE_BLOCK_WORDS 32   /* threads of a block, a bit each */

typedef struct trace_sync {
    int kind;                  /* trace_sync_kind */
    const char *text;          /* the instruction: "bar.sync", "shfl.sync.bfly.b32" */
    uint64_t pc;
    const char *file, *call_file; /* its source line, where it was inlined (NULL: none) */
    int line, call_line;
    int caller_line;           /* a header's code: the caller (in call_file) of the
                                  student's function at call_line, or 0 */
    uint64_t other_pc;         /* where the threads that did not come wait, went past,
                                  or (SPLIT) the other barrier; line 0: unknown */
    const char *other_file;
    int other_line;
    uint64_t branch_pc;        /* the branch that took them away; line 0: none known */
    const char *branch_file;
    int branch_line;
    uint32_t block, ctaid[3], threads;
    uint32_t warp, mask, lanes, missing, gone; /* warp kinds: see emu.h, emu_sync_error */
    uint32_t reached[TRACE_BLOCK_WORDS], skipped[TRACE_BLOCK_WORDS]; /* block kinds */
} trace_sync;

#endif /* SMEMLAB_TRACE_SYNC_H */
