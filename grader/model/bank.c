/* bank.c - the shared-memory bank model; see bank.h. */
#include "bank.h"

#include <stddef.h>

int bank_geometry_for(int major, int minor, int warp_size, int kepler_eight_byte,
                      bank_geometry *out)
{
    (void)minor;
    if (major < 3 || warp_size <= 0 || warp_size > BANK_MAX_LANES)
        return -1;
    out->banks = 32;
    out->bank_bytes = (major == 3 && kepler_eight_byte) ? 8 : 4;
    out->row_bytes = major == 3 ? 8 : 4;
    out->warp_size = warp_size;
    return 0;
}

int bank_of(const bank_geometry *g, uint32_t addr)
{
    return (int)((addr / (uint32_t)g->bank_bytes) % (uint32_t)g->banks);
}

int bank_row_bytes(const bank_geometry *g)
{
    return g->row_bytes > g->bank_bytes ? g->row_bytes : g->bank_bytes;
}

uint32_t bank_row_key(const bank_geometry *g, uint32_t addr)
{
    uint32_t row = addr / ((uint32_t)g->banks * (uint32_t)bank_row_bytes(g));
    return row * (uint32_t)g->banks + (uint32_t)bank_of(g, addr);
}

/* Two lanes that may share a phase slot: one sits out, or both read one address. */
static int same_or_idle(const warp_access *a, int x, int y)
{
    int on_x = a->active >> x & 1u, on_y = a->active >> y & 1u;
    return !on_x || !on_y || a->addr[x] == a->addr[y];
}

/* Every group of four lanes reads at most two addresses, pairing lanes
   (0,1)(2,3) or (0,2)(1,3): the hardware then serves twice the lanes a phase. */
static int lanes_pair_up(const warp_access *a, int warp_size)
{
    for (int q = 0; q + 3 < warp_size; q += 4) {
        int by_neighbour = same_or_idle(a, q, q + 1) && same_or_idle(a, q + 2, q + 3);
        int by_stride = same_or_idle(a, q, q + 2) && same_or_idle(a, q + 1, q + 3);
        if (!by_neighbour && !by_stride)
            return 0;
    }
    return 1;
}

/* Lanes whose bytes fill one pass of the banks (128 bytes on 32 x 4-byte banks, 256 on
   Kepler's 8-byte rows). */
static int lanes_per_pass(const bank_geometry *g, int width)
{
    int bytes_per_pass = g->banks * bank_row_bytes(g);
    int lanes = width > 0 ? bytes_per_pass / width : g->warp_size;
    if (lanes < 1)
        lanes = 1;
    return lanes > g->warp_size ? g->warp_size : lanes;
}

int bank_phase_lanes(const bank_geometry *g, const warp_access *a)
{
    int lanes = lanes_per_pass(g, a->width);
    if (a->load && a->width >= 8 && lanes < g->warp_size && lanes_pair_up(a, g->warp_size))
        lanes *= 2;
    return lanes > g->warp_size ? g->warp_size : lanes;
}

/*
 * Serve lanes [first, last) of one phase: every distinct row of a bank gets the
 * next free slot of its bank; a lane's wavefront is the latest slot of the
 * rows it touches. Returns the wavefronts the phase needs. The rows seen are
 * chained per bank, so a lane looks only at its own bank's rows (a trace has
 * millions of requests to serve).
 */
static int serve_phase(const bank_geometry *g, const warp_access *a, int first, int last,
                       int base, int *wave_of_lane)
{
    uint32_t words[BANK_MAX_LANES * 4]; /* distinct rows seen, at most 16 B / 4 B each */
    int slot_of_word[BANK_MAX_LANES * 4], next_in_bank[BANK_MAX_LANES * 4];
    int used_in_bank[64] = {0}, first_in_bank[64];
    int nwords = 0, depth = 0;
    int span = a->width > g->bank_bytes ? a->width / g->bank_bytes : 1;
    int serial = a->kind == BANK_EXCH || a->kind == BANK_CAS; /* one word, one lane at a time */
    int wide_rows = bank_row_bytes(g) != g->bank_bytes; /* Kepler's 4-byte mode */

    for (int b = 0; b < g->banks; b++)
        first_in_bank[b] = -1;
    for (int lane = first; lane < last; lane++) {
        if (!(a->active >> lane & 1u))
            continue;
        int lane_wave = 0;
        uint32_t word0 = a->addr[lane] / (uint32_t)g->bank_bytes;
        for (int s = 0; s < span; s++) {
            uint32_t word = word0 + (uint32_t)s; /* its row's key (bank_row_key) */
            if (wide_rows)
                word = bank_row_key(g, word * (uint32_t)g->bank_bytes);
            int bank = (int)(word % (uint32_t)g->banks);
            int found = serial ? -1 : first_in_bank[bank];
            while (found >= 0 && words[found] != word)
                found = next_in_bank[found];
            if (found < 0) {
                found = nwords++;
                words[found] = word;
                next_in_bank[found] = first_in_bank[bank];
                first_in_bank[bank] = found;
                slot_of_word[found] = used_in_bank[bank]++;
                if (used_in_bank[bank] > depth)
                    depth = used_in_bank[bank];
            }
            if (slot_of_word[found] > lane_wave)
                lane_wave = slot_of_word[found];
        }
        if (wave_of_lane)
            wave_of_lane[lane] = base + lane_wave;
    }
    return depth;
}

int bank_lane_wavefronts(const bank_geometry *g, const warp_access *a,
                         int wavefront_of_lane[BANK_MAX_LANES])
{
    int per_phase = bank_phase_lanes(g, a);
    int total = 0;

    if (wavefront_of_lane)
        for (int lane = 0; lane < BANK_MAX_LANES; lane++)
            wavefront_of_lane[lane] = -1;
    for (int first = 0; first < g->warp_size; first += per_phase) {
        int last = first + per_phase > g->warp_size ? g->warp_size : first + per_phase;
        total += serve_phase(g, a, first, last, total, wavefront_of_lane);
    }
    return total;
}

int bank_wavefronts(const bank_geometry *g, const warp_access *a)
{
    int waves = bank_lane_wavefronts(g, a, NULL);
    if (a->kind == BANK_CAS)
        return 2 * waves;
    if (a->kind == BANK_ASYNC && a->width == 16 && a->skewed)
        return __builtin_popcount(a->active);
    if (a->kind == BANK_ASYNC && a->lines > waves)
        return a->lines;
    return waves;
}

int bank_ideal_wavefronts(const bank_geometry *g, const warp_access *a)
{
    int per_phase = lanes_per_pass(g, a->width); /* the bytes' need, paired or not */
    int total = 0;

    for (int first = 0; first < g->warp_size; first += per_phase) {
        uint32_t mask = 0;
        for (int lane = first; lane < first + per_phase && lane < g->warp_size; lane++)
            mask |= 1u << lane;
        if (a->active & mask)
            total++;
    }
    if (a->kind == BANK_ASYNC && a->lines > total)
        return a->lines;
    return total;
}
