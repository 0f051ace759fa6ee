/* device.c - the device this process runs kernels on; see device.h. */
#include "device.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const device_ops *current = &device_gpu;

void device_use(const device_ops *ops)
{
    current = ops;
}

const device_ops *device_current(void)
{
    return current;
}

int device_is_emulator(void)
{
    return strcmp(current->name, "emulator") == 0;
}

int device_runs(int devices)
{
    return (devices & current->sizes) != 0;
}

const char *device_untimed(void)
{
    return current->untimed;
}

int device_meters_blind(void)
{
    return current->meters_blind;
}

/* --- the grader's arrays, each between two guard zones ----------------------------- */

/* An allocation dev_malloc made: raw (its guard zones included), on the device ops. */
typedef struct array_slot {
    const device_ops *ops;
    char *raw;
    dev_array a;
} array_slot;

static struct {
    array_slot *v;
    int n, cap;
} arrays;

cudaError_t dev_malloc(void **p, size_t bytes)
{
    const size_t g = DEV_GUARD_BYTES;
    char *raw = NULL;
    *p = NULL;
    if (bytes > (size_t)-1 - 2 * g)
        return cudaErrorMemoryAllocation;
    if (arrays.n == arrays.cap) {
        int cap = arrays.cap ? 2 * arrays.cap : 32;
        array_slot *v = realloc(arrays.v, (size_t)cap * sizeof *v);
        if (!v)
            return cudaErrorMemoryAllocation;
        arrays.v = v, arrays.cap = cap;
    }
    cudaError_t err = current->malloc((void **)&raw, bytes + 2 * g);
    if (err != cudaSuccess)
        return err;
    if ((err = current->memset(raw, DEV_GUARD_BYTE, g)) != cudaSuccess ||
        (err = current->memset(raw + g + bytes, DEV_GUARD_BYTE, g)) != cudaSuccess) {
        current->free(raw);
        return err;
    }
    if (current->guard)
        current->guard(raw, g, g);
    array_slot *s = &arrays.v[arrays.n++];
    memset(s, 0, sizeof *s);
    s->ops = current, s->raw = raw;
    s->a.base = (unsigned long long)(uintptr_t)(raw + g), s->a.bytes = bytes;
    *p = raw + g;
    return cudaSuccess;
}

static array_slot *slot_of(const void *p)
{
    for (int i = 0; i < arrays.n; i++)
        if (arrays.v[i].a.base == (unsigned long long)(uintptr_t)p)
            return &arrays.v[i];
    return NULL;
}

void dev_free(void *p)
{
    array_slot *s = p ? slot_of(p) : NULL;
    if (!s) {
        current->free(p);
        return;
    }
    s->ops->free(s->raw); /* the device that made it, whichever runs now */
    *s = arrays.v[--arrays.n];
}

void dev_name(const void *p, const char *name)
{
    unsigned long long a = (unsigned long long)(uintptr_t)p;
    for (int i = 0; p && i < arrays.n; i++) {
        dev_array *x = &arrays.v[i].a;
        if (arrays.v[i].ops == current && a >= x->base && a - x->base < (x->bytes ? x->bytes : 1))
            snprintf(x->name, sizeof x->name, "%s", name ? name : "");
    }
}

int dev_array_at(unsigned long long addr, dev_array *out)
{
    for (int i = 0; i < arrays.n; i++) {
        const dev_array *x = &arrays.v[i].a;
        if (arrays.v[i].ops == current && addr + DEV_GUARD_BYTES >= x->base &&
            addr < x->base + x->bytes + DEV_GUARD_BYTES) {
            *out = *x;
            return 1;
        }
    }
    return 0;
}

int dev_guard_zones(unsigned long long *lo, unsigned long long *hi, int max)
{
    int n = 0;
    for (int i = 0; i < arrays.n && n + 2 <= max; i++) {
        const dev_array *x = &arrays.v[i].a;
        if (arrays.v[i].ops != current)
            continue;
        lo[n] = x->base - DEV_GUARD_BYTES, hi[n++] = x->base;
        lo[n] = x->base + x->bytes, hi[n++] = x->base + x->bytes + DEV_GUARD_BYTES;
    }
    return n;
}

/* dev_keep's copies: each array's whole allocation (guard zones too), where it lies on
   the device, so that dev_restore puts each back where it was whatever the list's order. */
typedef struct kept_copy {
    char *raw, *copy;
    size_t bytes;
} kept_copy;

static struct {
    kept_copy *v;
    int n;
} kept;

cudaError_t dev_keep(void)
{
    dev_forget();
    if (arrays.n && !(kept.v = calloc((size_t)arrays.n, sizeof *kept.v)))
        return cudaErrorMemoryAllocation;
    for (int i = 0; i < arrays.n; i++) {
        const array_slot *a = &arrays.v[i];
        if (a->ops != current)
            continue;
        kept_copy *k = &kept.v[kept.n++];
        k->raw = a->raw, k->bytes = a->a.bytes + 2 * DEV_GUARD_BYTES;
        cudaError_t err = (k->copy = malloc(k->bytes))
                              ? current->copy(k->copy, k->raw, k->bytes, cudaMemcpyDeviceToHost)
                              : cudaErrorMemoryAllocation;
        if (err != cudaSuccess) {
            dev_forget();
            return err;
        }
    }
    return cudaSuccess;
}

cudaError_t dev_restore(void)
{
    for (int i = 0; i < kept.n; i++) {
        cudaError_t err = current->copy(kept.v[i].raw, kept.v[i].copy, kept.v[i].bytes,
                                        cudaMemcpyHostToDevice);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

void dev_forget(void)
{
    for (int i = 0; i < kept.n; i++)
        free(kept.v[i].copy);
    free(kept.v);
    kept.v = NULL, kept.n = 0;
}

cudaError_t dev_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    return current->copy(dst, src, bytes, kind);
}
cudaError_t dev_memset(void *p, int byte, size_t bytes) { return current->memset(p, byte, bytes); }
cudaError_t dev_sync(void) { return current->sync(); }
cudaError_t dev_last_error(void) { return current->last_error(); }
const char *dev_error_text(cudaError_t err) { return current->error_text(err); }
const char *dev_error_name(cudaError_t err) { return current->error_name(err); }
int dev_context_lost(void) { return current->context_lost(); }
const device_fault *dev_last_fault(void)
{
    return current->last_fault ? current->last_fault() : NULL;
}
int dev_order(int reverse)
{
    if (!current->order)
        return 0;
    current->order(reverse);
    return 1;
}
