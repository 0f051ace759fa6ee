/* tile_ref.h - host reference and output comparison for the tile labs (1-4). */
#ifndef SMEMLAB_TILE_REF_H
#define SMEMLAB_TILE_REF_H

#include "../labs/lab_table.h"

/* What out[] must hold after the kernel: replays the tile's store and load. */
void tile_reference(const tile_spec *t, int bdimx, int bdimy, int *out);

typedef struct int_diff {
    long wrong;     /* elements that differ from the reference */
    long unwritten; /* of those, still holding the poison value */
    long first;     /* index of the first wrong element, -1 if none */
    int expected, got;
} int_diff;

void compare_ints(const int *expected, const int *got, long n, int poison, int_diff *d);

#endif /* SMEMLAB_TILE_REF_H */
