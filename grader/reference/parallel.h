/*
 * parallel.h - share a loop among the machine's cores (host references and
 * comparisons of large results; pure C11 with POSIX threads).
 *
 * The loop [0, items) is cut into contiguous slices, one per thread. Callers
 * make every item's result independent of the cut, so the answer is the same
 * on 2 cores and on 16.
 */
#ifndef SMEMLAB_PARALLEL_H
#define SMEMLAB_PARALLEL_H

/* Do items [first, last) of the loop described by ctx. */
typedef void (*par_slice_fn)(void *ctx, long first, long last);

/* Below this many operations of work one thread does it all: starting threads
   costs more than it saves. */
#define PAR_MIN_WORK (1L << 20)

/*
 * Run fn over [0, items), on up to as many threads as the machine has cores
 * (16 at most) when `work` (the loop's operations, roughly) is worth it. A
 * thread that cannot be started has its slice done by the caller: the loop is
 * always done whole.
 */
void par_for(long items, double work, par_slice_fn fn, void *ctx);

#endif /* SMEMLAB_PARALLEL_H */
