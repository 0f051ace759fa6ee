/*
 * emu_mem.c - the emulated device's global memory.
 *
 * Allocations are host buffers mapped at device addresses that only grow
 * (a freed range is never handed out again, so a stale pointer faults), each
 * 256-byte aligned and followed by an unmapped gap, so that a kernel running
 * off the end of an array faults as it would past a GPU allocation's pages.
 * Regions are kept sorted by address for a binary search; the last region
 * found is tried first, since a warp's accesses mostly hit one array.
 */
#include "emu_internal.h"

#include <stdlib.h>
#include <string.h>

emu_device *emu_device_create(uint64_t memory_limit)
{
    emu_device *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->limit = memory_limit;
    d->next = EMU_GLOBAL_BASE;
    return d;
}

void emu_device_destroy(emu_device *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; i < d->n; i++)
        free(d->r[i].host);
    free(d->r);
    free(d);
}

static int contains(const emu_region *r, uint64_t addr, uint64_t n)
{
    return addr >= r->addr && n <= r->size && addr - r->addr <= r->size - n;
}

emu_region *emu_region_find(emu_device *d, uint64_t addr, uint64_t n)
{
    if (d->last < d->n && contains(&d->r[d->last], addr, n))
        return &d->r[d->last];
    uint32_t lo = 0, hi = d->n;
    while (lo < hi) { /* the last region starting at or below addr */
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->r[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || !contains(&d->r[lo - 1], addr, n))
        return NULL;
    d->last = lo - 1;
    return &d->r[lo - 1];
}

int emu_alloc_kind(emu_device *d, uint64_t bytes, uint8_t kind, uint64_t *addr)
{
    *addr = 0;
    if (bytes == 0)
        return 0;
    uint64_t span = (bytes + 255) / 256 * 256;
    if (bytes > d->limit - d->used || span < bytes || d->next > EMU_GLOBAL_END - span - EMU_ALLOC_GAP)
        return -1;
    if (d->n == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 16;
        emu_region *r = realloc(d->r, cap * sizeof *r);
        if (!r)
            return -1;
        d->r = r;
        d->cap = cap;
    }
    uint8_t *host = calloc(1, bytes);
    if (!host)
        return -1;
    d->r[d->n++] = (emu_region){d->next, bytes, host, kind};
    *addr = d->next;
    d->next += span + EMU_ALLOC_GAP;
    d->used += bytes;
    return 0;
}

int emu_alloc(emu_device *d, uint64_t bytes, uint64_t *addr)
{
    return emu_alloc_kind(d, bytes, EMU_ALLOC_USER, addr);
}

int emu_free(emu_device *d, uint64_t addr)
{
    if (addr == 0)
        return 0;
    for (uint32_t i = 0; i < d->n; i++) {
        if (d->r[i].addr != addr)
            continue;
        d->used -= d->r[i].size;
        free(d->r[i].host);
        memmove(&d->r[i], &d->r[i + 1], (d->n - i - 1) * sizeof *d->r);
        d->n--;
        d->last = 0;
        return 0;
    }
    return -1;
}

void *emu_host_view(emu_device *d, uint64_t addr, uint64_t n)
{
    emu_region *r = emu_region_find(d, addr, n);
    return r ? r->host + (addr - r->addr) : NULL;
}

int emu_region_of(emu_device *d, uint64_t addr, uint64_t *base, uint64_t *bytes)
{
    emu_region *r = emu_region_find(d, addr, 1);
    if (!r)
        return -1;
    *base = r->addr;
    *bytes = r->size;
    return 0;
}

int emu_write(emu_device *d, uint64_t addr, const void *src, uint64_t n)
{
    if (n == 0)
        return 0;
    void *dst = emu_host_view(d, addr, n);
    if (!dst)
        return -1;
    memcpy(dst, src, n);
    return 0;
}

int emu_read(emu_device *d, void *dst, uint64_t addr, uint64_t n)
{
    if (n == 0)
        return 0;
    const void *src = emu_host_view(d, addr, n);
    if (!src)
        return -1;
    memcpy(dst, src, n);
    return 0;
}

int emu_memset(emu_device *d, uint64_t addr, int byte, uint64_t n)
{
    if (n == 0)
        return 0;
    void *dst = emu_host_view(d, addr, n);
    if (!dst)
        return -1;
    memset(dst, byte, n);
    return 0;
}

int emu_copy(emu_device *d, uint64_t dst, uint64_t src, uint64_t n)
{
    if (n == 0)
        return 0;
    void *to = emu_host_view(d, dst, n), *from = emu_host_view(d, src, n);
    if (!to || !from)
        return -1;
    memmove(to, from, n);
    return 0;
}
