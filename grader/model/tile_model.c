/* tile_model.c - block-level cost of tile accesses; see tile_model.h. */
#include "tile_model.h"

#include <string.h>

void tile_warp_access(const bank_geometry *g, const tile_access *a, int bdimx, int bdimy,
                      int elem_bytes, int load, int warp, warp_access *w)
{
    int threads = bdimx * bdimy;

    memset(w, 0, sizeof *w); /* a plain access: no kind, lines or skew of an atomic's or copy's */
    w->width = elem_bytes;
    w->load = load;
    for (int lane = 0; lane < g->warp_size; lane++) {
        int t = warp * g->warp_size + lane;
        w->addr[lane] = 0;
        if (t >= threads || !tile_thread_active(a, bdimx, t % bdimx, t / bdimx))
            continue;
        w->active |= 1u << lane;
        w->addr[lane] = (uint32_t)(tile_offset(a, bdimx, bdimy, t % bdimx, t / bdimx) * elem_bytes);
    }
}

int tile_model_cost(const bank_geometry *g, const tile_access *a, int bdimx, int bdimy,
                    int elem_bytes, int load, smem_cost *out)
{
    if (bdimx <= 0 || bdimy <= 0 || elem_bytes <= 0 || !tile_access_valid(a))
        return -1;
    int warps = (bdimx * bdimy + g->warp_size - 1) / g->warp_size;

    out->requests = out->wavefronts = out->ideal = 0;
    for (int warp = 0; warp < warps; warp++) {
        warp_access w;
        tile_warp_access(g, a, bdimx, bdimy, elem_bytes, load, warp, &w);
        if (!w.active)
            continue; /* no lane executes the instruction: no request */
        out->requests++;
        out->wavefronts += bank_wavefronts(g, &w);
        out->ideal += bank_ideal_wavefronts(g, &w);
    }
    return 0;
}

int tile_least_pad(const bank_geometry *g, const tile_access *a, int bdimx, int bdimy,
                   int elem_bytes)
{
    tile_access padded = *a;
    smem_cost c;
    for (int pad = 1; pad <= bdimx; pad++) {
        padded.pitch = bdimx + pad;
        if (tile_model_cost(g, &padded, bdimx, bdimy, elem_bytes, 1, &c) == 0 &&
            c.wavefronts == c.ideal)
            return pad;
    }
    return 0;
}

double smem_degree(const smem_cost *c)
{
    return c->ideal > 0 ? (double)c->wavefronts / (double)c->ideal : 1.0;
}

