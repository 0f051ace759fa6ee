/*
 * lane_race.h - races between the lanes of one warp (labs 7 and 8).
 *
 * Since Volta a warp's lanes are scheduled independently: a lane may read a
 * shared word before the lane that stores it has run its store, even in
 * code with no branch. The reduction's unrolled last warp (`smem[tid] +=
 * smem[tid + 16]` and so on, the pre-Volta idiom with a volatile pointer)
 * races this way; __syncwarp() between a level's stores and the next
 * level's loads orders them. The rule, within one warp, in program order:
 * a word that one lane wrote and another lane reads or writes, with no
 * __syncwarp() or block barrier between the two (and not one instruction),
 * is a race. Races between warps are trace.c's.
 *
 * Plain C: fed record by record (a warp's records come in its program
 * order) for the blocks the race check looks at.
 */
#ifndef SMEMLAB_LANE_RACE_H
#define SMEMLAB_LANE_RACE_H

#include "trace_race.h"
#include "trace_record.h"

typedef struct lane_races lane_races;

lane_races *lane_races_new(void);
void lane_races_free(lane_races *l);

/* Forget every word and warp seen, keeping the races found: a stream of records in
   block order calls it between blocks, so that its memory is one block's. */
void lane_races_forget(lane_races *l);

/* A barrier or __syncwarp of (block, warp): what follows is ordered after it. */
int lane_races_sync(lane_races *l, uint32_t block, uint32_t warp);

/* A shared load or store record (index: the record's number, for telling
   one instruction from another). 0, or -1 out of memory. */
int lane_races_add(lane_races *l, const trace_record *r, int writes, uint64_t index);

/* The races found, appended to *races (one per pair of instructions, most words
   first: after those between warps), *n_races counting them. 0, or -1 out of memory. */
int lane_races_finish(lane_races *l, trace_race **races, int *n_races);

#endif
