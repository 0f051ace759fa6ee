/*
 * tile_model.h - what a block's shared-memory accesses to a tile cost,
 * according to the bank model.
 *
 * An access names, for every thread of the block, the element of the tile it
 * touches. The labs' kernels use three orders over a 2-D tile (a lab table
 * names the order and the row pitch, padding included); the truth corpus
 * (tests/truth/gen-corpus.py) adds strides, multicasts, permutations, gathers
 * and lanes that sit out, in a one-line grammar (tile_access_parse). This
 * module turns an access into requests and wavefronts for a whole block.
 */
#ifndef SMEMLAB_TILE_MODEL_H
#define SMEMLAB_TILE_MODEL_H

#include "bank.h"

#include <stddef.h>
#include <stdint.h>

/* t: the thread's row-major index in the block, tx, ty: threadIdx.x, .y */
typedef enum tile_order {
    TILE_ROW,        /* tile[threadIdx.y][threadIdx.x]            row:PITCH */
    TILE_COL,        /* tile[threadIdx.x][threadIdx.y]            col:PITCH */
    TILE_TRANSPOSED, /* tile[icol][irow], irow = idx / blockDim.y,
                        icol = idx % blockDim.y, idx = row-major thread id */
    TILE_LINEAR,     /* arg0 + arg1 * (t / arg2)                 lin:A0:A1:A2 */
    TILE_XOR,        /* t ^ arg0                                 xor:A0 */
    TILE_SWIZZLE,    /* tx * pitch + (ty ^ (tx % blockDim.y))    swz:PITCH */
    TILE_AFFINE,     /* (arg0 * t + arg1) % arg2                 aff:A0:A1:A2 */
    TILE_HASH,       /* ((t * 2654435761 + arg0) mod 2^32 >> 7) % arg1   hsh:A0:A1 */
    TILE_TABLE       /* table[t % 32]                            tab:E0,...,E31 */
} tile_order;

#define TILE_TABLE_LANES 32

typedef struct tile_access {
    tile_order order;
    int pitch;       /* elements from one tile row to the next */
    long arg[3];
    uint32_t lanes;  /* lanes of each warp that take part (bit i: lane i); 0: all */
    int table[TILE_TABLE_LANES];
} tile_access;

typedef struct smem_cost {
    long requests;   /* warp-level shared instructions */
    long wavefronts; /* what the bank model says they cost */
    long ideal;      /* wavefronts with no conflict at all */
} smem_cost;

/* Element offset that thread (tx, ty) of a bdimx x bdimy block touches. */
long tile_offset(const tile_access *a, int bdimx, int bdimy, int tx, int ty);

/* Whether the access's arguments make sense (pitch and divisors positive, ...). */
int tile_access_valid(const tile_access *a);

/* Whether thread (tx, ty) takes part (tile_access.lanes). */
int tile_thread_active(const tile_access *a, int bdimx, int tx, int ty);

/* Fill *w with the accesses of warp number `warp` of the block; load: 1 for a
   load, 0 for a store (bank.h: only loads pair up). */
void tile_warp_access(const bank_geometry *g, const tile_access *a, int bdimx, int bdimy,
                      int elem_bytes, int load, int warp, warp_access *w);

/* One instruction executed by every warp of one block (a warp with no lane
   taking part makes no request). Returns 0, -1 on bad sizes. */
int tile_model_cost(const bank_geometry *g, const tile_access *a, int bdimx, int bdimy,
                    int elem_bytes, int load, smem_cost *out);

/*
 * Parse the corpus grammar above ("lin:0:2:1", "col:33@0000ffff", ...; the
 * suffix @MASK names the lanes that take part, in hex). 0, or -1 with why.
 */
int tile_access_parse(const char *text, tile_access *out, char *why, size_t why_size);

/*
 * The least pad (1 .. bdimx) that makes the load `a` conflict-free with rows of
 * bdimx + pad elements on banks g (a's own pitch aside); 0 where none does. What "pad
 * until the read is conflict-free" asks on a GPU: one column on today's square tile, two
 * on the K40's 8-byte banks.
 */
int tile_least_pad(const bank_geometry *g, const tile_access *a, int bdimx, int bdimy,
                   int elem_bytes);

/* Conflict degree as the counters report it: wavefronts / ideal (1.0 = none). */
double smem_degree(const smem_cost *c);

/* Short name of an order, for messages: "row", "column", "irow/icol". */
const char *tile_order_name(tile_order o);

#endif /* SMEMLAB_TILE_MODEL_H */
