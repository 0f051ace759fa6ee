/*
 * fault.h - one wording for an access outside its allocation, whoever found it:
 * the emulator's fault on a global address no allocation holds, a shared access
 * past the kernel's shared memory (the trace or the emulator), and a global
 * array's guard bytes. The faulting line first, the calls it was reached through
 * after it, then the allocation (a kernel argument, a shared array) and how far
 * past its end, each said once:
 *
 *   lab9.cu:150 (called from lab9.cu:168): a load by lane 0 of warp 0 of block
 *   (0, 0) reaches bytes 4 to 7 of in (an argument of 4 bytes), 4 bytes past its end
 *
 * The bytes said are the access's own, first to last (in[1] of a one-element int
 * array: bytes 4 to 7), or, where several accesses are summed up, the highest one.
 *
 * May include: base/.
 */
#ifndef SMEMLAB_FAULT_H
#define SMEMLAB_FAULT_H

#include <stddef.h>

#define FAULT_MAX_CALLS 4

typedef struct fault_place {
    const char *op;   /* "load", "store", "atomic" (NULL: "an access") */
    const char *file; /* the faulting line (NULL: not known) */
    int line;
    /* the calls it was reached through, the innermost caller first */
    const char *call_file[FAULT_MAX_CALLS];
    int call_line[FAULT_MAX_CALLS];
    int n_calls;
    const char *array; /* "warp_sums", "in", "the block's shared memory" (NULL: not known) */
    const char *kind;  /* "a shared array", "an argument", "dynamic shared memory" */
    long long bytes;   /* the allocation's size (-1: not known) */
    long long reached; /* one past the highest byte reached, from the allocation's start;
                          at most 0: the access starts -reached bytes before it */
    int width;         /* the bytes of the one access reaching it (0: not known: the
                          farthest of several, the highest byte alone is said) */
    int lane, warp;    /* who (lane < 0: not known) */
    unsigned block[3];
    int have_block;
    const char *note;  /* words of the finder's own after the rest ("0 bytes given at
                          launch"), or NULL */
    /* no allocation near the address (array NULL): the space and the address said */
    const char *space; /* "global" */
    unsigned long long address;
} fault_place;

/* The one line for f into buf; returns buf. */
const char *fault_text(const fault_place *f, char *buf, size_t size);

/* Whether a check's message holds fault_text's words (an access it located). */
int fault_worded(const char *message);

#endif /* SMEMLAB_FAULT_H */
