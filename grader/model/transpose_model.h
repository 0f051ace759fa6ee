/*
 * transpose_model.h - a transpose tile's banks (lab 9): the column read of the
 * chapter's rectangular transpose. A block of bdimx x bdimy threads stores its
 * piece by rows into a tile of row_words 4-byte words a row, and thread
 * bidx = ty * bdimx + tx reads it back at tile[icol][irow], irow = bidx / bdimy,
 * icol = bidx % bdimy: a warp reads bdimy words down each of 32 / bdimy
 * columns. Unpadded (32 or 64 words a row) the lanes of a column share a bank,
 * a 16-way conflict for 32 x 16 blocks; padded by 2 words the columns fall in
 * the even and the odd banks, conflict-free (by 1: 2-way).
 *
 * Pure C on model/bank.h: the grader judges the tile with it, the docs draw it.
 */
#ifndef SMEMLAB_TRANSPOSE_MODEL_H
#define SMEMLAB_TRANSPOSE_MODEL_H

#include "bank.h"

/* The read of warp `warp` of the block, as a shared access (4-byte words, byte addresses). */
void transpose_read_access(int bdimx, int bdimy, int row_words, int warp, warp_access *a);

/* Wavefronts a request of the column read takes over its ideal, averaged over the
   block's warps: 16 for 32 x 16 blocks and 32- or 64-word rows, 1 for 34 or 66. */
double transpose_read_degree(const bank_geometry *g, int bdimx, int bdimy, int row_words);

#endif /* SMEMLAB_TRANSPOSE_MODEL_H */
