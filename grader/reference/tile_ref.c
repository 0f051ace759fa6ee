/* tile_ref.c - host reference for the tile labs; see tile_ref.h. */
#include "tile_ref.h"

#include <stdlib.h>

void tile_reference(const tile_spec *t, int bdimx, int bdimy, int *out)
{
    long size = 0;

    /* The padded tile is larger than the block: find its extent first. */
    for (int ty = 0; ty < bdimy; ty++)
        for (int tx = 0; tx < bdimx; tx++) {
            long s = tile_offset(&t->store, bdimx, bdimy, tx, ty) + 1;
            long l = tile_offset(&t->load, bdimx, bdimy, tx, ty) + 1;
            size = s > size ? s : size;
            size = l > size ? l : size;
        }
    int *tile = calloc((size_t)size, sizeof *tile);
    for (long i = 0; i < size; i++)
        tile[i] = -1;
    for (int ty = 0; ty < bdimy; ty++)
        for (int tx = 0; tx < bdimx; tx++)
            tile[tile_offset(&t->store, bdimx, bdimy, tx, ty)] = ty * bdimx + tx;
    for (int ty = 0; ty < bdimy; ty++)
        for (int tx = 0; tx < bdimx; tx++)
            out[ty * bdimx + tx] = tile[tile_offset(&t->load, bdimx, bdimy, tx, ty)];
    free(tile);
}

void compare_ints(const int *expected, const int *got, long n, int poison, int_diff *d)
{
    d->wrong = d->unwritten = 0;
    d->first = -1;
    d->expected = d->got = 0;
    for (long i = 0; i < n; i++) {
        if (got[i] == expected[i])
            continue;
        if (d->first < 0) {
            d->first = i;
            d->expected = expected[i];
            d->got = got[i];
        }
        d->wrong++;
        if (got[i] == poison)
            d->unwritten++;
    }
}
