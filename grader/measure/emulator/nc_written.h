/*
 * nc_written.h - words of global memory a launch both read through the read-only cache
 * (ld.global.nc: __ldg, const __restrict__) and wrote (a store or an atomic, before or
 * after the load). The CUDA Programming Guide allows that cache only data read-only for
 * the kernel's whole lifetime: it is not kept coherent with the kernel's own writes, so
 * such a load may return a stale word on a GPU, whatever the emulator's (coherent) run
 * gave. The emulator's meter feeds it every lane of every nc load and global write of
 * the launches it measures; the first word found both is kept, its load and its write.
 */
#ifndef SMEMLAB_NC_WRITTEN_H
#define SMEMLAB_NC_WRITTEN_H

#include "../access/trace_oob.h"

#include <stdint.h>

typedef struct nc_written nc_written;

nc_written *nc_written_new(void);
void nc_written_free(nc_written *w);

/* One lane's access a of launch `launch` (its pc, addr, width, block, warp, lane and op:
   TRACE_OP_LOAD for an nc load, else a write): 1 where it makes a word both read through
   the cache and written (kept as the first where none is yet), 0 where not, -1 out of
   memory (the words seen so far stay). */
int nc_written_add(nc_written *w, uint32_t launch, const trace_oob *a);

/* How many words were found both; the first one's load and write (NULL: none). */
long nc_written_count(const nc_written *w);
const trace_oob *nc_written_load(const nc_written *w);
const trace_oob *nc_written_write(const nc_written *w);

#endif
