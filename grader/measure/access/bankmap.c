/* bankmap.c - a warp access as a text bank map; see bankmap.h. */
#include "bankmap.h"

#include <stdio.h>
#include <string.h>

/* Append printf output at *used, never past size. */
static void put(char *buf, size_t size, size_t *used, const char *fmt, int value)
{
    if (*used + 1 >= size)
        return;
    int n = snprintf(buf + *used, size - *used, fmt, value);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

static void put_s(char *buf, size_t size, size_t *used, const char *s)
{
    if (*used + 1 >= size)
        return;
    int n = snprintf(buf + *used, size - *used, "%s", s);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

const char *bank_map_text(const bank_geometry *g, const warp_access *a, const char *title,
                          const char *indent, char *buf, size_t size)
{
    int wave[BANK_MAX_LANES];
    size_t used = 0;
    int total = bank_lane_wavefronts(g, a, wave);
    static const char *const rows[] = {"lane", "bank", "wave"};

    if (size == 0)
        return buf;
    buf[0] = '\0';
    put_s(buf, size, &used, indent);
    put_s(buf, size, &used, title);
    put(buf, size, &used, ": %d wavefront", total);
    put_s(buf, size, &used, total == 1 ? "" : "s");
    put(buf, size, &used, ", ideal %d\n", bank_ideal_wavefronts(g, a));
    for (int r = 0; r < 3; r++) {
        put_s(buf, size, &used, indent);
        put_s(buf, size, &used, rows[r]);
        for (int lane = 0; lane < g->warp_size; lane++) {
            if (r == 0)
                put(buf, size, &used, "%3d", lane);
            else if (!(a->active >> lane & 1u))
                put_s(buf, size, &used, "  -");
            else if (r == 1)
                put(buf, size, &used, "%3d", bank_of(g, a->addr[lane]));
            else
                put(buf, size, &used, "%3d", wave[lane] + 1);
        }
        put_s(buf, size, &used, "\n");
    }
    return buf;
}
