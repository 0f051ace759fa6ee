/* device.c - the device this process runs kernels on; see device.h. */
#include "device.h"

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

cudaError_t dev_malloc(void **p, size_t bytes) { return current->malloc(p, bytes); }
void dev_free(void *p) { current->free(p); }
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
