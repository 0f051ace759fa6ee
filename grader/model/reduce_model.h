/*
 * reduce_model.h - the shared-memory cost of a reduction tree (labs 7, 8),
 * from the bank model (bank.h): per level, which warps take part and how
 * many wavefronts their loads and stores need. Pure C: the grader takes
 * its expectations from it, the docs draw the tree's banks with it.
 *
 * The tree runs over a tile of `dim` ints, one thread a word:
 *   sequential   for stride = dim/2 .. 1:   tid < stride:
 *                    smem[tid] += smem[tid + stride]
 *   interleaved  for stride = 1 .. dim/2:   index = 2 * stride * tid < dim:
 *                    smem[index] += smem[index + stride]
 * each level two loads and a store a warp that has an active lane.
 */
#ifndef SMEMLAB_REDUCE_MODEL_H
#define SMEMLAB_REDUCE_MODEL_H

#include "bank.h"

#define TREE_MAX_LEVELS 16

typedef struct tree_level {
    int stride;
    int warps;                   /* warps with an active lane */
    int lanes;                   /* active lanes in the first warp */
    long ld_wavefronts, ld_ideal; /* both loads of every warp of the level */
    long st_wavefronts, st_ideal;
    int degree;                  /* worst load of the level: wavefronts / ideal */
} tree_level;

typedef struct tree_cost {
    int levels;
    tree_level level[TREE_MAX_LEVELS];
    /* the tree's totals a block, and with the tile's fill (a store a warp) and
       the read of the block's sum (a load) */
    long ld_requests, st_requests, ld_wavefronts, ld_ideal, st_wavefronts, st_ideal;
    long block_requests;         /* tree + fill + final read */
    /* The fewest shared requests a block that runs the tree's levels in the tile can
       make, whatever its style: every level but the first loads the partner sums
       (a load a warp that takes part; the first may be added while the tile is
       filled, its own operand kept in a register), every level but the last stores
       its sums for the next (the last may go straight to the partial sum). A block
       below either ran levels elsewhere: in registers, or in another block. */
    long need_ld_requests, need_st_requests;
    /* The interleaved tree as nvcc compiles it at -O3: at stride 1 the pair
       smem[2 tid], smem[2 tid + 1] is one aligned 8-byte load (measured on an
       H100). The sequential tree's pair is never adjacent: the same as above. */
    long merged_ld_requests, merged_ld_wavefronts, merged_ld_ideal;
} tree_cost;

/* interleaved 0: sequential. 0, or -1 for a dim that is not a power of two
   from 64 to 2^TREE_MAX_LEVELS, or not a multiple of the warp. */
int reduce_tree_model(const bank_geometry *g, int dim, int interleaved, tree_cost *out);

/* The first warp's access of one level (load of smem[i + stride] if second, else
   smem[i]) as a warp_access: for the figures. */
void reduce_tree_access(int dim, int interleaved, int stride, int second, int warp,
                        warp_access *a);

/* The load conflict degree of a kernel that runs the tree and reads the block's
   sum once: (tree wavefronts + 1) / (tree ideal + 1). */
double reduce_tree_load_degree(const tree_cost *c);

/* The same with the stride-1 pair merged into one 8-byte load (see tree_cost). */
double reduce_tree_load_degree_merged(const tree_cost *c);

#endif
