/*
 * tile_model.h - what a block's shared-memory accesses to a 2-D tile cost,
 * according to the bank model.
 *
 * The labs' kernels touch a tile in one of three orders; a lab table names the
 * order and the row pitch (elements per tile row, padding included) and this
 * module turns it into requests and wavefronts for a whole block.
 */
#ifndef SMEMLAB_TILE_MODEL_H
#define SMEMLAB_TILE_MODEL_H

#include "bank.h"

typedef enum tile_order {
    TILE_ROW,        /* tile[threadIdx.y][threadIdx.x]            */
    TILE_COL,        /* tile[threadIdx.x][threadIdx.y]            */
    TILE_TRANSPOSED  /* tile[icol][irow], irow = idx / blockDim.y,
                        icol = idx % blockDim.y, idx = row-major thread id */
} tile_order;

typedef struct tile_access {
    tile_order order;
    int pitch; /* elements from one tile row to the next */
} tile_access;

typedef struct smem_cost {
    long requests;   /* warp-level shared instructions */
    long wavefronts; /* what the bank model says they cost */
    long ideal;      /* wavefronts with no conflict at all */
} smem_cost;

/* Element offset that thread (tx, ty) of a bdimx x bdimy block touches. */
long tile_offset(tile_access a, int bdimx, int bdimy, int tx, int ty);

/* Fill *w with the accesses of warp number `warp` of the block. */
void tile_warp_access(const bank_geometry *g, tile_access a, int bdimx, int bdimy,
                      int elem_bytes, int warp, warp_access *w);

/* One instruction executed by every warp of one block. Returns 0, -1 on bad sizes. */
int tile_model_cost(const bank_geometry *g, tile_access a, int bdimx, int bdimy,
                    int elem_bytes, smem_cost *out);

/* Conflict degree as the counters report it: wavefronts / ideal (1.0 = none). */
double smem_degree(const smem_cost *c);

/* Short name of an order, for messages: "row", "column", "irow/icol". */
const char *tile_order_name(tile_order o);

#endif /* SMEMLAB_TILE_MODEL_H */
