/*
 * trace_race.h - one race the trace's analysis found: between warps (trace.c)
 * or between the lanes of one warp (lane_race.c). Its own header so that
 * both finders fill it without including each other.
 */
#ifndef SMEMLAB_TRACE_RACE_H
#define SMEMLAB_TRACE_RACE_H

#include <stdint.h>

/* Two warps touching one shared word between the same two barriers; or (in_warp)
   two lanes of one warp with no __syncwarp() or barrier between (lane_race.h). */
typedef struct trace_race {
    uint64_t pc_a, pc_b;     /* pc_a writes; pc_b reads or writes */
    int b_writes;
    /* A barrier lies between the two in program order, yet they met between the
       same two barriers, after the block had passed one: a loop brought the
       earlier one round again. The one at the higher PC ran in one pass, the
       other in the next. (Before any barrier, the block skipped the one between:
       a barrier under a condition of the block's, say.) */
    int across_passes;
    uint32_t epoch;          /* barriers the warps had passed where it was found */
    uint32_t block, warp_a, warp_b;
    uint32_t word_offset;    /* byte offset of the first word found */
    long words;              /* words in conflict for this pair of PCs */
    const char *file_a, *file_b;
    int line_a, line_b;
    int in_warp;             /* lanes lane_a and lane_b of warp_a (= warp_b) race */
    uint32_t lane_a, lane_b;
    int read_first;          /* in_warp: lane_b's load came first in program order */
    int tile_synced;         /* the block's warps also synchronised in smaller groups
                                (release and acquire: a cooperative group's tile.sync()),
                                none of which ordered these two */
} trace_race;

#endif /* SMEMLAB_TRACE_RACE_H */
