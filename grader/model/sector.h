/*
 * sector.h - a model of how global memory serves one warp-wide request:
 * the 32-byte sectors its lanes' bytes fall in (coalescing).
 *
 * The L1 cache reads and writes global memory a 32-byte sector at a time. A
 * warp's load or store instruction is one request; it costs as many sectors
 * as the distinct sectors its active lanes' bytes touch: lanes that share a
 * sector share it (a broadcast costs one), lanes whose bytes lie apart take
 * one each (a column walk: 32). The ideal is what the request's bytes need
 * laid end to end from a sector's start: ceil(lanes * width / 32) - 4 for 32
 * lanes of 4 bytes, 16 for 32 lanes of 16.
 *
 * Nsight Compute's l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st} on an
 * H100 for the global corpus (tests/truth/gen-global.py, h100-global.tsv):
 * tests/unit/test_sector.c holds the model to every kernel of it.
 *
 * Pure C: the grader, its unit tests and the docs' figures share it.
 */
#ifndef SMEMLAB_SECTOR_H
#define SMEMLAB_SECTOR_H

#include <stdint.h>

#define SECTOR_BYTES 32
#define SECTOR_LANES 32

/* One warp-wide global load or store. */
typedef struct global_access {
    uint64_t addr[SECTOR_LANES]; /* byte address each lane accesses (its low 32 bits do) */
    uint32_t active;             /* bit i set: lane i takes part */
    int width;                   /* bytes per lane: 1, 2, 4, 8 or 16 */
} global_access;

/* Distinct 32-byte sectors the active lanes' bytes touch (0: no lane active). */
int sector_count(const global_access *a);

/* The fewest sectors the request's bytes could take: ceil(lanes * width / 32). */
int sector_ideal(const global_access *a);

/*
 * Per lane, the sector it falls in, numbered 1, 2, ... in address order (the
 * drawing's row; a lane whose bytes straddle two shows the first), 0 for an
 * idle lane. Returns the count, as sector_count does.
 */
int sector_lane_numbers(const global_access *a, int number_of_lane[SECTOR_LANES]);

#endif /* SMEMLAB_SECTOR_H */
