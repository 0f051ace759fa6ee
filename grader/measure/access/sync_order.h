/*
 * sync_order.h - which warps an ordered access to a shared word puts in order,
 * for the race check (trace.c).
 *
 * Between two block-wide barriers, warps are also ordered by release and
 * acquire on a shared word: cooperative groups' tile of more than one warp
 * waits at a barrier of its own, a word in the block's reserved shared memory
 * that each warp sets with atom.or.acq_rel and spins on with ld.acquire
 * (cooperative_groups/details/sync.h, sync_warps). A release publishes what
 * the warp did before it; an acquire that reads the word after it sees all
 * of that (the PTX memory model's release and acquire patterns). Vector
 * clocks, a warp's and a word's, keep who knows of whom: each access is
 * stamped with its warp's clock and what the warp knows, and two accesses of
 * one barrier interval are ordered when the later one's warp knew of the
 * earlier one at its time. The records must come in an order the accesses
 * could have run in: the emulator's (it runs a block's warps one at a time).
 */
#ifndef SMEMLAB_SYNC_ORDER_H
#define SMEMLAB_SYNC_ORDER_H

#include <stdint.h>

typedef struct sync_order sync_order;

/* What an access's warp knew when it ran: its own clock, and its knowledge of
   the other warps of the block (a vector kept by sync_order; 0: of none). */
typedef struct sync_stamp {
    uint32_t clock, known;
} sync_stamp;

sync_order *sync_order_new(void);
void sync_order_free(sync_order *o);

/* Everything forgotten (a stream's block done, its races found). */
void sync_order_forget(sync_order *o);

/* Whether any ordered access was seen since the last forget: until one is, every
   stamp is the same and nothing is ordered (the race check's fast path). */
int sync_order_seen(const sync_order *o);

/* Warp `warp` of block `block` acquires, or releases, shared word `word`.
   0, or -1 out of memory. */
int sync_order_acquire(sync_order *o, uint32_t block, uint32_t warp, uint32_t word);
int sync_order_release(sync_order *o, uint32_t block, uint32_t warp, uint32_t word);

/* The stamp of an access warp `warp` of block `block` makes now; -1 out of memory. */
int sync_order_stamp(sync_order *o, uint32_t block, uint32_t warp, sync_stamp *out);

/* Whether an access by warp a stamped sa happens before one (by another warp of the
   same block) stamped sb. */
int sync_order_before(const sync_order *o, uint32_t a, sync_stamp sa, sync_stamp sb);

#endif /* SMEMLAB_SYNC_ORDER_H */
