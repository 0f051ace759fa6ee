/* measure_trace_loader.c - loading the trace backend at run time; see measure_trace.h. */
#define _GNU_SOURCE
#include "measure_trace.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *lib;
static measure_backend *loaded;

const char *measure_trace_lib_path(char *buf, size_t size)
{
    const char *env = getenv(TRACE_LIB_ENV);
    char exe[PATH_MAX];
    ssize_t n;

    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(buf, size, "%s", TRACE_LIB_NAME);
        return buf;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(buf, size, "%s/%s", exe, TRACE_LIB_NAME);
    return buf;
}

measure_backend *measure_trace_backend(char *why, size_t why_size)
{
    char path[PATH_MAX + 32];

    if (loaded)
        return loaded;
    measure_trace_lib_path(path, sizeof path);
    if (access(path, F_OK) != 0) {
        snprintf(why, why_size, "the trace backend is not built (%s is missing): it needs the "
                 "Compute Sanitizer of a full CUDA Toolkit (compute-sanitizer/include under "
                 "CUDA_HOME). Install it (Debian/Ubuntu: the cuda-sanitizer package of your "
                 "CUDA version) and run make again", path);
        return NULL;
    }
    if (!lib && !(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(why, why_size, "cannot load the trace backend %s: %s", path, dlerror());
        return NULL;
    }
    trace_backend_entry entry;
    *(void **)&entry = dlsym(lib, TRACE_ENTRY_BACKEND);
    if (!entry) {
        snprintf(why, why_size, "%s has no %s: rebuild it with make", path, TRACE_ENTRY_BACKEND);
        return NULL;
    }
    loaded = entry(why, why_size);
    if (loaded)
        loaded->last_trace = measure_trace_last;
    return loaded;
}

const trace_summary *measure_trace_last(measure_backend *b, const char **function)
{
    trace_last_entry last;
    if (!lib || !b || b != loaded)
        return NULL;
    *(void **)&last = dlsym(lib, TRACE_ENTRY_LAST);
    return last ? last(b, function) : NULL;
}

void measure_trace_zones(measure_backend *b, const unsigned long long *lo,
                         const unsigned long long *hi, int n)
{
    trace_zones_entry zones;
    if (!lib || !b || b != loaded)
        return;
    *(void **)&zones = dlsym(lib, TRACE_ENTRY_ZONES);
    if (zones)
        zones(b, lo, hi, n);
}

void measure_trace_inputs(measure_backend *b, const unsigned long long *lo,
                          const unsigned long long *hi, int n)
{
    trace_zones_entry inputs;
    if (!lib || !b || b != loaded)
        return;
    *(void **)&inputs = dlsym(lib, TRACE_ENTRY_INPUTS);
    if (inputs)
        inputs(b, lo, hi, n);
}

void measure_trace_patching(measure_backend *b, int on)
{
    trace_patching_entry patching;
    if (!lib || !b || b != loaded)
        return;
    *(void **)&patching = dlsym(lib, TRACE_ENTRY_PATCHING);
    if (patching)
        patching(b, on);
}
