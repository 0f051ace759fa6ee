/* tile_ref.c - host reference for the tile labs; see tile_ref.h. */
#include "tile_ref.h"

#include <stdint.h>
#include <stdlib.h>

/*
 * The truth corpus's values (tests/truth/gen-corpus.py): component i of
 * element e is (e * (506952113 + 2i) + 17 + i) in 32 bits, masked to what a
 * component of its width holds (23 bits at most, exact in a float), and a
 * thread writes the components' sum weighted 1, 2, 3, 4.
 */
static int corpus_value(const tile_spec *t, long e)
{
    int bits = 8 * t->elem_bytes / t->elem_parts;
    uint32_t mask = (1u << (bits < 23 ? bits : 23)) - 1u, sum = 0;
    for (int i = 0; i < t->elem_parts; i++) {
        uint32_t v = ((uint32_t)e * (506952113u + 2u * (uint32_t)i) + 17u + (uint32_t)i) & mask;
        sum += (uint32_t)(i + 1) * v;
    }
    return (int)sum;
}

static void corpus_reference(const tile_spec *t, int bdimx, int bdimy, int *out)
{
    for (int ty = 0; ty < bdimy; ty++)
        for (int tx = 0; tx < bdimx; tx++)
            out[ty * bdimx + tx] = tile_thread_active(&t->load, bdimx, tx, ty)
                                       ? corpus_value(t, tile_offset(&t->load, bdimx, bdimy, tx, ty))
                                       : -1;
}

void tile_reference(const tile_spec *t, int bdimx, int bdimy, int *out)
{
    long size = 0;

    if (t->elem_parts > 0) {
        corpus_reference(t, bdimx, bdimy, out);
        return;
    }

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
