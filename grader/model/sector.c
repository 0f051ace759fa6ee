/* sector.c - the sectors of one warp's global access; see sector.h. */
#include "sector.h"

#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sectors each active lane touches, sorted, duplicates left in: their count. A lane
   of at most 16 aligned bytes touches one; wider or unaligned bytes may touch two. */
static int lane_sectors(const global_access *a, uint64_t s[2 * SECTOR_LANES])
{
    int n = 0;
    int w = a->width > 0 ? a->width : 1;
    for (int lane = 0; lane < SECTOR_LANES; lane++) {
        if (!(a->active >> lane & 1u))
            continue;
        uint64_t first = a->addr[lane] / SECTOR_BYTES, last = (a->addr[lane] + (uint64_t)w - 1) / SECTOR_BYTES;
        s[n++] = first;
        if (last != first)
            s[n++] = last;
    }
    qsort(s, (size_t)n, sizeof *s, by_value);
    return n;
}

static int distinct(const uint64_t *s, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += i == 0 || s[i] != s[i - 1];
    return k;
}

int sector_count(const global_access *a)
{
    uint64_t s[2 * SECTOR_LANES];
    return distinct(s, lane_sectors(a, s));
}

int sector_ideal(const global_access *a)
{
    int lanes = __builtin_popcount(a->active), w = a->width > 0 ? a->width : 1;
    return (lanes * w + SECTOR_BYTES - 1) / SECTOR_BYTES;
}

int sector_lane_numbers(const global_access *a, int number_of_lane[SECTOR_LANES])
{
    uint64_t s[2 * SECTOR_LANES];
    int n = lane_sectors(a, s), k = 0;
    uint64_t u[2 * SECTOR_LANES];
    for (int i = 0; i < n; i++)
        if (i == 0 || s[i] != s[i - 1])
            u[k++] = s[i];
    for (int lane = 0; lane < SECTOR_LANES; lane++) {
        number_of_lane[lane] = 0;
        if (!(a->active >> lane & 1u))
            continue;
        uint64_t mine = a->addr[lane] / SECTOR_BYTES;
        int lo = 0, hi = k - 1;
        while (lo < hi) { /* u is sorted and holds mine */
            int mid = (lo + hi) / 2;
            if (u[mid] < mine)
                lo = mid + 1;
            else
                hi = mid;
        }
        number_of_lane[lane] = lo + 1;
    }
    return k;
}
