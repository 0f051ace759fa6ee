/* reduce_model.c - the shared-memory cost of a reduction tree; see reduce_model.h. */
#include "reduce_model.h"

#include <string.h>

void reduce_tree_access(int dim, int interleaved, int stride, int second, int warp,
                        warp_access *a)
{
    memset(a, 0, sizeof *a);
    a->width = 4;
    a->load = 1;
    for (int lane = 0; lane < BANK_MAX_LANES; lane++) {
        int tid = warp * BANK_MAX_LANES + lane;
        int index = interleaved ? 2 * stride * tid : tid;
        int active = interleaved ? index < dim : tid < stride;
        if (!active)
            continue;
        a->active |= 1u << lane;
        a->addr[lane] = (uint32_t)(index + (second ? stride : 0)) * 4u;
    }
}

int reduce_tree_model(const bank_geometry *g, int dim, int interleaved, tree_cost *out)
{
    memset(out, 0, sizeof *out);
    if (dim < 64 || dim > (1 << TREE_MAX_LEVELS) || (dim & (dim - 1)) ||
        dim % g->warp_size)
        return -1;
    int warps = dim / g->warp_size;
    for (int k = 0; (1 << k) < dim; k++) {
        int stride = interleaved ? 1 << k : dim >> (k + 1);
        tree_level *L = &out->level[out->levels++];
        L->stride = stride;
        for (int w = 0; w < warps; w++) {
            warp_access a;
            reduce_tree_access(dim, interleaved, stride, 0, w, &a);
            if (!a.active)
                continue;
            if (L->warps == 0)
                L->lanes = __builtin_popcount(a.active);
            L->warps++;
            for (int second = 0; second < 2; second++) {
                reduce_tree_access(dim, interleaved, stride, second, w, &a);
                int wf = bank_wavefronts(g, &a), ideal = bank_ideal_wavefronts(g, &a);
                L->ld_wavefronts += wf;
                L->ld_ideal += ideal;
                if (ideal > 0 && wf / ideal > L->degree)
                    L->degree = wf / ideal;
            }
            reduce_tree_access(dim, interleaved, stride, 0, w, &a); /* the store: smem[index] */
            a.load = 0;
            L->st_wavefronts += bank_wavefronts(g, &a);
            L->st_ideal += bank_ideal_wavefronts(g, &a);
        }
        out->ld_requests += 2L * L->warps;
        out->st_requests += L->warps;
        out->ld_wavefronts += L->ld_wavefronts;
        out->ld_ideal += L->ld_ideal;
        out->st_wavefronts += L->st_wavefronts;
        out->st_ideal += L->st_ideal;
    }
    out->block_requests = out->ld_requests + out->st_requests + warps + 1;
    out->need_ld_requests = out->st_requests - out->level[0].warps;
    out->need_st_requests = out->st_requests - out->level[out->levels - 1].warps;
    out->merged_ld_requests = out->ld_requests;
    out->merged_ld_wavefronts = out->ld_wavefronts;
    out->merged_ld_ideal = out->ld_ideal;
    if (interleaved) { /* stride 1: the two loads of a warp become one 8 bytes wide */
        const tree_level *L = &out->level[0];
        long waves = 0, ideal = 0;
        for (int w = 0; w < L->warps; w++) {
            warp_access a;
            reduce_tree_access(dim, 1, 1, 0, w, &a);
            a.width = 8;
            waves += bank_wavefronts(g, &a);
            ideal += bank_ideal_wavefronts(g, &a);
        }
        out->merged_ld_requests -= L->warps;
        out->merged_ld_wavefronts += waves - L->ld_wavefronts;
        out->merged_ld_ideal += ideal - L->ld_ideal;
    }
    return 0;
}

double reduce_tree_load_degree(const tree_cost *c)
{
    return (double)(c->ld_wavefronts + 1) / (double)(c->ld_ideal + 1);
}

double reduce_tree_load_degree_merged(const tree_cost *c)
{
    return (double)(c->merged_ld_wavefronts + 1) / (double)(c->merged_ld_ideal + 1);
}
