/*
 * coalesce.h - global loads, stores and atomics per instruction: requests, the 32-byte
 * sectors they touched and the ideal for their widths and lanes (the sector
 * model, model/sector.h), and the worst warp execution, drawn as the bank map
 * is for shared memory:
 *
 *       lane      0   1   2   3 ...
 *       sector    1   2   3   4 ...     (distinct sectors, numbered in address order)
 *
 * The trace and the emulator feed it the global records of the first
 * TRACE_GLOBAL_BLOCKS blocks (trace_record.h); the kernel's totals come from
 * every block, counted where the accesses happen (the trace's patches, the
 * emulator's meter) by the same model.
 */
#ifndef SMEMLAB_COALESCE_H
#define SMEMLAB_COALESCE_H

#include "../../model/sector.h"
#include "trace_record.h"

#include <stddef.h>

/* What a global instruction does to memory: the side its site counts on. */
typedef enum coalesce_side {
    COALESCE_LOAD,
    COALESCE_STORE,
    COALESCE_ATOMIC /* an atomic or a reduction: a read-modify-write (global-traffic
                       counts it with the stores; coalescing and the halo check do not) */
} coalesce_side;

/* One global load, store or atomic instruction of the kernel (one PC). */
typedef struct coalesce_site {
    uint64_t pc;
    int side;             /* coalesce_side */
    int width;            /* widest access seen at this PC */
    long requests, sectors, ideal;
    long worst_excess;    /* sectors beyond the ideal of the worst execution */
    global_access worst;  /* that execution, for the drawing */
    uint32_t worst_block, worst_warp;
    const char *file;     /* source file (set where lines are known), or NULL */
    int line;
} coalesce_site;

typedef struct coalesce_sites {
    coalesce_site *v;     /* sorted by pc */
    int n, cap;
} coalesce_sites;

/* A global record (TRACE_GLOBAL: a load, a store, or both flags, an atomic; cp.async's
   global side is left out: Nsight Compute counts it apart) into its site. 0, or -1 out of
   memory. */
int coalesce_add(coalesce_sites *s, const trace_record *r);

void coalesce_free(coalesce_sites *s);

/* The site of one side (coalesce_side) with the most sectors beyond its ideal, NULL if none. */
const coalesce_site *coalesce_worst(const coalesce_sites *s, int side);

/* The record as the model's access (its low 32-bit addresses). */
void coalesce_access_of(const trace_record *r, global_access *a);

/*
 * Draw access a: a title line ("TITLE: 32 sectors, ideal 4"), then the lane
 * and sector rows, each line starting with indent; idle lanes show '-'.
 * Returns buf (truncated to size, always terminated).
 */
const char *sector_map_text(const global_access *a, const char *title, const char *indent,
                            char *buf, size_t size);

#endif /* SMEMLAB_COALESCE_H */
