/* transpose_model.c - a transpose tile's column read; see transpose_model.h. */
#include "transpose_model.h"

#include <string.h>

void transpose_read_access(int bdimx, int bdimy, int row_words, int warp, warp_access *a)
{
    memset(a, 0, sizeof *a);
    a->width = 4;
    a->load = 1;
    for (int lane = 0; lane < BANK_MAX_LANES; lane++) {
        int bidx = warp * BANK_MAX_LANES + lane;
        if (bidx >= bdimx * bdimy)
            break;
        int irow = bidx / bdimy, icol = bidx % bdimy;
        a->addr[lane] = (uint32_t)(icol * row_words + irow) * 4u;
        a->active |= 1u << lane;
    }
}

double transpose_read_degree(const bank_geometry *g, int bdimx, int bdimy, int row_words)
{
    int warps = (bdimx * bdimy + BANK_MAX_LANES - 1) / BANK_MAX_LANES;
    long waves = 0, ideal = 0;
    for (int w = 0; w < warps; w++) {
        warp_access a;
        transpose_read_access(bdimx, bdimy, row_words, w, &a);
        waves += bank_wavefronts(g, &a);
        ideal += bank_ideal_wavefronts(g, &a);
    }
    return ideal > 0 ? (double)waves / (double)ideal : 1.0;
}
