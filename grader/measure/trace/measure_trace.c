/*
 * measure_trace.c - the trace backend: shared-memory accesses recorded with
 * the Compute Sanitizer API, no counter permission needed.
 *
 * Built only where the toolkit has compute-sanitizer/include (Makefile:
 * libsmemlab-trace.so), loaded at run time by measure_trace_loader.c.
 *
 *   open     sanitizerSubscribe (before the process's first CUDA call) for
 *            module loads and launches.
 *   module   every module loaded afterwards gets its shared-memory accesses,
 *            barriers and global accesses patched (sanitizerPatchInstructions,
 *            sanitizerPatchModule) to call the functions of
 *            smemlab-trace-patches.fatbin (trace_patches.cu); its cubin is
 *            kept for line information.
 *   launch   each launch during measure() gets a trace_buffer in device memory
 *            (sanitizerSetCallbackData); the patches append one record per
 *            warp-level instruction execution.
 *   measure  runs the launcher, synchronizes, copies the records back,
 *            analyses them (grader/measure/access/trace.c) and names lines with
 *            nvdisasm --print-line-info on the module's cubin. A buffer that
 *            overflows is grown and the launch repeated; past TRACE_MAX_RECORDS
 *            only every n-th block is traced and the totals are scaled.
 *
 * Only modules loaded while the worker asks for it (smemlab_trace_patching:
 * the second copy of the student's code, run/module.h) are patched, so that
 * correctness and timed runs, the grader's kernels and cuBLAS run as
 * compiled. Written against the Compute Sanitizer API of CUDA 13
 * (sanitizer.h, sanitizer_patching.h); make check-gpu grades every lab and
 * planted variant with it and with the counters (tests/gpu/compare-backends.sh).
 */
#define _GNU_SOURCE
#include "measure_trace.h"

#include "../../image/sass.h"

#include <sanitizer.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SMEMLAB_NVDISASM
#define SMEMLAB_NVDISASM "nvdisasm"
#endif
#define TRACE_PATCHES_ENV "SMEMLAB_TRACE_PATCHES"
#define TRACE_MAX_RECORDS (1u << 20) /* 152 MiB of records at most */
#define TRACE_FIRST_RECORDS (1u << 18) /* 38 MiB: labs 5 and 6 fit at their traced sizes */
#define TRACE_MAX_LAUNCHES 8
#define TRACE_MAX_MODULES 16

typedef struct traced_module {
    CUmodule module;
    CUcontext context;
    char *cubin;
    size_t cubin_size;
    int lines_tried;
    line_table lines;
    char lines_why[256];
} traced_module;

typedef struct traced_launch {
    CUcontext context;
    CUmodule module;
    CUfunction kernel; /* its callback data points at the buffer until the buffer is freed */
    Sanitizer_StreamHandle stream;
    char function[256];
    uint64_t function_pc, function_size;
    uint64_t blocks;
    trace_buffer *device_buffer; /* header, then the records: pool[i]'s memory */
} traced_launch;

/* The device memory of one launch slot, kept from one measurement to the next:
   allocating it per launch cost more than a lab's kernel runs. */
typedef struct trace_pool {
    CUcontext context;
    void *memory;
    uint32_t capacity; /* records it holds */
} trace_pool;

typedef struct trace_state {
    Sanitizer_SubscriberHandle subscriber;
    int subscribed, failed;
    char failure[256];
    CUcontext patched_contexts[4];
    int n_patched_contexts;
    traced_module modules[TRACE_MAX_MODULES];
    int n_modules;
    int capturing;          /* inside measure() */
    int untraced_loads;     /* modules loaded now are not patched (smemlab_trace_patching) */
    uint32_t capacity, sample;
    uint32_t toolkit_bytes; /* the device's reserved shared bytes a block (trace_buffer) */
    traced_launch launches[TRACE_MAX_LAUNCHES];
    trace_pool pool[TRACE_MAX_LAUNCHES];
    int n_launches;         /* launches seen in this attempt (may exceed the array) */
    trace_summary last;
    int have_last;
    char last_function[256];
    trace_record *host;
    size_t host_cap;
    /* the guard zones the next launches' global accesses are held to (smemlab_trace_zones) */
    unsigned long long zone_lo[TRACE_ZONES], zone_hi[TRACE_ZONES];
    uint32_t n_zones;
    /* the inputs their global stores and atomics are held to (smemlab_trace_inputs) */
    unsigned long long input_lo[TRACE_INPUTS], input_hi[TRACE_INPUTS];
    uint32_t n_inputs;
} trace_state;

static trace_state state;

/* SMEMLAB_TIMINGS: where a measured launch's time goes (diagnostic only). */
static double trace_clock(void)
{
    static int on = -1;
    struct timespec t;
    if (on < 0) {
        const char *v = getenv("SMEMLAB_TIMINGS");
        on = v && *v && strcmp(v, "0") != 0;
    }
    if (!on)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* SMEMLAB_TRACE_DUMP=DIR: each measured trace also written to DIR/KERNEL.trace
   (trace.h's text form), to replay its analysis without a GPU. */
static void dump_trace(const char *function, const trace_record *r, size_t n)
{
    const char *dir = getenv("SMEMLAB_TRACE_DUMP");
    char path[PATH_MAX];
    if (!dir || !*dir)
        return;
    snprintf(path, sizeof path, "%s/%s.trace", dir, function);
    FILE *f = fopen(path, "w");
    int ok = f != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = trace_write_record(f, &r[i]) == 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "SMEMLAB_TRACE_DUMP: could not write %s\n", path);
}

static void trace_timing(const char *what, double since)
{
    if (since >= 0)
        fprintf(stderr, "[timing] trace: %s %.4f s\n", what, trace_clock() - since);
}

static const char *result_text(SanitizerResult r)
{
    const char *s = NULL;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s)
        return "unknown Compute Sanitizer error";
    return s;
}

static void fail(trace_state *s, const char *what, SanitizerResult r)
{
    if (s->failed)
        return;
    s->failed = 1;
    snprintf(s->failure, sizeof s->failure, "%s: %s", what, result_text(r));
}

/* The patch fatbinary: TRACE_PATCHES_ENV, else beside this library. */
static const char *patches_path(char *buf, size_t size)
{
    const char *env = getenv(TRACE_PATCHES_ENV);
    Dl_info info;
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    if (dladdr((void *)&patches_path, &info) && info.dli_fname) {
        snprintf(buf, size, "%s", info.dli_fname);
        char *slash = strrchr(buf, '/');
        snprintf(slash ? slash + 1 : buf, size - (size_t)(slash ? slash + 1 - buf : 0), "%s",
                 TRACE_PATCHES_NAME);
        return buf;
    }
    snprintf(buf, size, "%s", TRACE_PATCHES_NAME);
    return buf;
}

/* The instructions patched, and the patch functions of trace_patches.cu they call. The
   asynchronous copies and the matrix loads exist on newer GPUs only: where the patching
   API knows none, none can run. */
static const struct {
    Sanitizer_InstructionId kind;
    const char *function;
    int required;
} patches[] = {
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "smemlab_shared_access", 1},
    {SANITIZER_INSTRUCTION_BARRIER, "smemlab_barrier", 1},
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "smemlab_global_access", 1},
    {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "smemlab_memcpy_async", 0},
    {SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "smemlab_matrix_access", 0},
    {SANITIZER_INSTRUCTION_SYNCWARP, "smemlab_syncwarp", 0},
    {SANITIZER_INSTRUCTION_SHFL, "smemlab_shfl", 0},
};

static void module_loaded(trace_state *s, const Sanitizer_ResourceModuleData *m)
{
    SanitizerResult r;
    int known = 0;
    char path[PATH_MAX];

    /* The worker has only the copy of the student's code that measure() runs
       patched: patched, the grader's kernels, cuBLAS and the timed runs would
       run slower, and the timings mean nothing. */
    if (s->untraced_loads)
        return;

    for (int i = 0; i < s->n_patched_contexts; i++)
        known |= s->patched_contexts[i] == m->context;
    if (!known) {
        if ((r = sanitizerAddPatchesFromFile(patches_path(path, sizeof path), m->context)) !=
            SANITIZER_SUCCESS) {
            fail(s, path, r);
            return;
        }
        if (s->n_patched_contexts < 4)
            s->patched_contexts[s->n_patched_contexts++] = m->context;
    }
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        r = sanitizerPatchInstructions(patches[i].kind, m->module, patches[i].function);
        if (r != SANITIZER_SUCCESS && (patches[i].required || (r != SANITIZER_ERROR_NOT_SUPPORTED &&
                                                               r != SANITIZER_ERROR_NOT_COMPATIBLE))) {
            fail(s, "patching a module", r);
            return;
        }
    }
    if ((r = sanitizerPatchModule(m->module)) != SANITIZER_SUCCESS) {
        fail(s, "patching a module", r);
        return;
    }
    if (s->n_modules < TRACE_MAX_MODULES && m->pCubin && m->cubinSize > 0) {
        traced_module *t = &s->modules[s->n_modules];
        memset(t, 0, sizeof *t);
        if ((t->cubin = malloc(m->cubinSize))) {
            memcpy(t->cubin, m->pCubin, m->cubinSize);
            t->cubin_size = m->cubinSize;
            t->module = m->module;
            t->context = m->context;
            s->n_modules++;
        }
    }
}

/* A module unloaded (a meter server grades the next lab): forget its cubin and lines. */
static void module_unloading(trace_state *s, const Sanitizer_ResourceModuleData *m)
{
    for (int i = 0; i < s->n_modules; i++)
        if (s->modules[i].module == m->module) {
            free(s->modules[i].cubin);
            lineinfo_free(&s->modules[i].lines);
            s->modules[i] = s->modules[--s->n_modules];
            return;
        }
}

/* Slot i's device buffer for s->capacity records in context c, allocated only
   when there is none yet, it is too small or it belongs to another context. */
static void *pool_buffer(trace_state *s, int i, CUcontext c)
{
    trace_pool *p = &s->pool[i];
    SanitizerResult r;
    if (p->memory && p->context == c && p->capacity >= s->capacity)
        return p->memory;
    if (p->memory)
        sanitizerFree(p->context, p->memory);
    p->memory = NULL;
    size_t bytes = sizeof(trace_buffer) + (size_t)s->capacity * sizeof(trace_record);
    if ((r = sanitizerAlloc(c, &p->memory, bytes)) != SANITIZER_SUCCESS) {
        p->memory = NULL;
        fail(s, "allocating the trace buffer", r);
        return NULL;
    }
    p->context = c;
    p->capacity = s->capacity;
    return p->memory;
}

static void launch_begin(trace_state *s, const Sanitizer_LaunchData *l)
{
    SanitizerResult r;
    int i = s->n_launches++;
    if (i >= TRACE_MAX_LAUNCHES)
        return; /* measure() reports it */
    traced_launch *t = &s->launches[i];
    memset(t, 0, sizeof *t);
    t->context = l->context;
    t->module = l->module;
    t->kernel = l->function;
    t->stream = l->hStream;
    snprintf(t->function, sizeof t->function, "%s", l->functionName ? l->functionName : "?");
    t->blocks = (uint64_t)l->gridDim_x * l->gridDim_y * l->gridDim_z;
    if (sanitizerGetFunctionPcAndSize(l->module, t->function, &t->function_pc,
                                      &t->function_size) != SANITIZER_SUCCESS)
        t->function_pc = t->function_size = 0; /* PCs stay absolute: lines unknown */

    void *mem = pool_buffer(s, i, l->context);
    if (!mem)
        return;
    trace_buffer h;
    memset(&h, 0, sizeof h);
    h.capacity = s->capacity;
    h.sample = s->sample;
    h.toolkit_bytes = s->toolkit_bytes;
    h.n_zones = s->n_zones;
    memcpy(h.zone_lo, s->zone_lo, sizeof h.zone_lo);
    memcpy(h.zone_hi, s->zone_hi, sizeof h.zone_hi);
    h.n_inputs = s->n_inputs;
    memcpy(h.input_lo, s->input_lo, sizeof h.input_lo);
    memcpy(h.input_hi, s->input_hi, sizeof h.input_hi);
    h.records = (trace_record *)((char *)mem + sizeof(trace_buffer));
    t->device_buffer = mem;
    if ((r = sanitizerMemcpyHostToDeviceAsync(mem, &h, sizeof h, l->hStream)) != SANITIZER_SUCCESS ||
        (r = sanitizerSetCallbackData(l->function, mem)) != SANITIZER_SUCCESS)
        fail(s, "handing the trace buffer to the kernel", r);
}

static void SANITIZERAPI callback(void *userdata, Sanitizer_CallbackDomain domain,
                                  Sanitizer_CallbackId cbid, const void *data)
{
    trace_state *s = userdata;
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
        module_loaded(s, data);
    else if (domain == SANITIZER_CB_DOMAIN_RESOURCE &&
             cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
        module_unloading(s, data);
    else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN &&
             s->capturing)
        launch_begin(s, data);
}

static measure_status trace_open(measure_backend *self, char *why, size_t why_size)
{
    trace_state *s = self->state;
    SanitizerResult r;
    char path[PATH_MAX];

    if (s->subscribed)
        return MEASURE_OK;
    if (access(patches_path(path, sizeof path), R_OK) != 0) {
        snprintf(why, why_size, "%s is missing: run make (it is built with the trace backend)",
                 path);
        return MEASURE_UNSUPPORTED;
    }
    if ((r = sanitizerSubscribe(&s->subscriber, callback, s)) != SANITIZER_SUCCESS) {
        snprintf(why, why_size, "sanitizerSubscribe: %s", result_text(r));
        return r == SANITIZER_ERROR_NOT_INITIALIZED ? MEASURE_UNSUPPORTED : MEASURE_ERROR;
    }
    if ((r = sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_RESOURCE)) !=
            SANITIZER_SUCCESS ||
        (r = sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_LAUNCH)) !=
            SANITIZER_SUCCESS) {
        snprintf(why, why_size, "sanitizerEnableDomain: %s", result_text(r));
        sanitizerUnsubscribe(s->subscriber);
        return MEASURE_ERROR;
    }
    s->subscribed = 1;
    s->capacity = TRACE_FIRST_RECORDS;
    s->sample = 1;
    return MEASURE_OK;
}

static void free_launches(trace_state *s)
{
    int n = s->n_launches < TRACE_MAX_LAUNCHES ? s->n_launches : TRACE_MAX_LAUNCHES;
    for (int i = 0; i < n; i++)
        if (s->launches[i].device_buffer) {
            /* The data stays the kernel's for its later launches: they must
               find none, not a buffer the next measurement writes. The
               memory stays in the pool. */
            sanitizerSetCallbackData(s->launches[i].kernel, NULL);
            s->launches[i].device_buffer = NULL;
        }
    s->n_launches = 0;
}

static traced_module *module_of(trace_state *s, CUmodule m)
{
    for (int i = 0; i < s->n_modules; i++)
        if (s->modules[i].module == m)
            return &s->modules[i];
    return NULL;
}

/* nvdisasm --print-line-info on the module's cubin, once per module. */
static const line_table *lines_of(traced_module *t)
{
    if (!t)
        return NULL;
    if (t->lines_tried)
        return t->lines.n_entries ? &t->lines : NULL;
    t->lines_tried = 1;
    /* The cubin's own .debug_line: microseconds. nvdisasm reads the same
       table in about 0.5 s a module (its start-up), so it is only the
       fallback, for a line table this reader does not know (DWARF 5, say). */
    if (lineinfo_from_cubin(t->cubin, t->cubin_size, &t->lines, t->lines_why,
                            sizeof t->lines_why) == 0)
        return &t->lines;
    char file[] = "/tmp/smemlab-cubin-XXXXXX";
    int fd = mkstemp(file);
    if (fd < 0)
        return NULL;
    int ok = write(fd, t->cubin, t->cubin_size) == (ssize_t)t->cubin_size;
    close(fd);
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "'%s' --print-line-info --print-code '%s' 2>/dev/null",
             SMEMLAB_NVDISASM, file);
    FILE *p = ok ? popen(cmd, "r") : NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    char chunk[65536];
    while (p && (got = fread(chunk, 1, sizeof chunk, p)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *nt = realloc(text, cap);
            if (!nt)
                break;
            text = nt;
        }
        memcpy(text + len, chunk, got);
        len += got;
    }
    if (p)
        pclose(p);
    unlink(file);
    if (text) {
        text[len] = '\0';
        lineinfo_parse(text, &t->lines, t->lines_why, sizeof t->lines_why);
        free(text);
    }
    return t->lines.n_entries ? &t->lines : NULL;
}

/*
 * How the GPU serves each shared atomic of a launch depends on its operation
 * (model/bank.h), which the patches do not see: it is read from the
 * instruction at the record's pc in the module's SASS (image/sass.h).
 */
static void mark_atomics(trace_state *s, const traced_launch *t, trace_record *r, size_t n)
{
    traced_module *m = module_of(s, t->module);
    sass_access *acc = NULL;
    int na = 0, arch;
    char why[160];
    size_t i = 0;
    while (i < n && (r[i].flags & (TRACE_READ | TRACE_WRITE | TRACE_GLOBAL)) !=
                        (TRACE_READ | TRACE_WRITE)) /* the first shared atomic (not a global one) */
        i++;
    if (i == n || !m || sass_function_accesses(m->cubin, m->cubin_size, t->function, &acc, &na,
                                               &arch, why, sizeof why) != 0)
        return; /* no atomics, or SASS the reader does not know: atomics as they combine */
    for (; i < n; i++) {
        if ((r[i].flags & (TRACE_READ | TRACE_WRITE | TRACE_GLOBAL)) != (TRACE_READ | TRACE_WRITE))
            continue;
        for (int k = 0; k < na; k++)
            if (acc[k].offset == r[i].pc && acc[k].cls == SASS_ATOMS) {
                int op = acc[k].atom_op;
                r[i].flags |= op == SASS_ATOM_CAS ? TRACE_ATOM_CAS
                              : op == SASS_ATOM_EXCH || op == SASS_ATOM_INC || op == SASS_ATOM_DEC
                                  ? TRACE_ATOM_EXCH : 0;
                break;
            }
    }
    free(acc);
}

static measure_status collect(trace_state *s, size_t *n_out, uint32_t *need, char *why,
                              size_t why_size)
{
    size_t n = 0;
    *need = 0;
    for (int i = 0; i < s->n_launches; i++) {
        traced_launch *t = &s->launches[i];
        trace_buffer h;
        SanitizerResult r;
        if (!t->device_buffer)
            continue;
        if ((r = sanitizerMemcpyDeviceToHost(&h, t->device_buffer, sizeof h, t->stream)) !=
            SANITIZER_SUCCESS) {
            snprintf(why, why_size, "reading the trace back: %s", result_text(r));
            return MEASURE_ERROR;
        }
        if (h.count > h.capacity) {
            if (h.count > *need)
                *need = h.count;
            continue;
        }
        if (n + h.count > s->host_cap) {
            size_t cap = (n + h.count) * 2;
            trace_record *nh = realloc(s->host, cap * sizeof *nh);
            if (!nh) {
                snprintf(why, why_size, "out of memory for %zu trace records", n + h.count);
                return MEASURE_ERROR;
            }
            s->host = nh;
            s->host_cap = cap;
        }
        if (h.count && (r = sanitizerMemcpyDeviceToHost(s->host + n, h.records,
                                                        h.count * sizeof(trace_record),
                                                        t->stream)) != SANITIZER_SUCCESS) {
            snprintf(why, why_size, "reading the trace back: %s", result_text(r));
            return MEASURE_ERROR;
        }
        for (uint32_t k = 0; k < h.count; k++) {
            trace_record *x = &s->host[n + k];
            if (t->function_size && x->pc >= t->function_pc &&
                x->pc < t->function_pc + t->function_size)
                x->pc -= t->function_pc;
            x->block |= (uint32_t)i << TRACE_LAUNCH_SHIFT; /* the launch, for races and bounds */
        }
        if (t->function_size)
            mark_atomics(s, t, s->host + n, h.count);
        n += h.count;
    }
    *n_out = n;
    return MEASURE_OK;
}

/* A hit the patches kept, as the summary names an access: its pc an offset in its
   function, as the records' are, for trace_attribute to name; the array is the judge's to
   ask the device (compare/bounds.h, compare/inputs.h). */
static void access_of(const traced_launch *t, const trace_oob_hit *hit, trace_oob *o)
{
    int read = (hit->flags & TRACE_READ) != 0, write = (hit->flags & TRACE_WRITE) != 0;
    memset(o, 0, sizeof *o);
    o->pc = hit->pc;
    if (t->function_size && o->pc >= t->function_pc && o->pc < t->function_pc + t->function_size)
        o->pc -= t->function_pc;
    o->op = read && write ? TRACE_OP_ATOMIC : write ? TRACE_OP_STORE : TRACE_OP_LOAD;
    o->addr = hit->addr;
    o->width = hit->width;
    o->block = hit->block, o->warp = hit->warp, o->lane = hit->lane;
}

/*
 * The first access into a guard zone, and the first store or atomic into an input, of
 * the launches measured (the patches keep one of each a launch, every block's), into the
 * summary, with how many lanes made one.
 */
static void collect_hits(trace_state *s, trace_summary *out)
{
    for (int i = 0; i < s->n_launches && i < TRACE_MAX_LAUNCHES; i++) {
        traced_launch *t = &s->launches[i];
        trace_buffer h;
        if (!t->device_buffer ||
            sanitizerMemcpyDeviceToHost(&h, t->device_buffer, sizeof h, t->stream) !=
                SANITIZER_SUCCESS)
            continue;
        if (h.oob_hits > 0 && out->oob_count == 0)
            access_of(t, &h.oob, &out->oob);
        out->oob_count += (long)h.oob_hits;
        if (h.input_hits > 0 && out->input_write_count == 0)
            access_of(t, &h.input, &out->input_write);
        out->input_write_count += (long)h.input_hits;
    }
}

/*
 * The patches see offsets in the block's shared window, where the driver's
 * reserved bytes (1 KB on sm_80 and later) come before the kernel's own:
 * made offsets from the kernel's first byte, as the emulator writes them, so
 * that races and bounds name the student's bytes. (A multiple of 128: no
 * bank changes.) The lanes below it are the toolkit's (cooperative groups'
 * multi-warp tile barrier and partial sums, docs/emulator.md#reserved), not
 * the kernel's: dropped, as the emulator never records them, and a record
 * left with no lane goes. The records kept; how many.
 */
static size_t from_kernel_start(trace_record *r, size_t n, uint32_t reserved)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(r[i].flags & (TRACE_BARRIER | TRACE_GLOBAL | TRACE_SYNCWARP | TRACE_SHFL))) {
            uint32_t mine = 0;
            for (int lane = 0; lane < TRACE_LANES; lane++)
                if ((r[i].active >> lane & 1u) && r[i].addr[lane] >= reserved) {
                    r[i].addr[lane] -= reserved;
                    mine |= 1u << lane;
                }
            if (!mine)
                continue;
            r[i].active = mine;
        }
        if (kept != i)
            r[kept] = r[i];
        kept++;
    }
    return kept;
}

static measure_status trace_measure(measure_backend *self, void (*launch)(void *), void *arg,
                                    measurement *out, char *why, size_t why_size)
{
    trace_state *s = self->state;
    measure_status st = MEASURE_ERROR;
    size_t n = 0;
    CUresult cr;

    if (!s->subscribed) {
        snprintf(why, why_size, "the trace backend is not open");
        return MEASURE_ERROR;
    }
    if (s->have_last) {
        trace_summary_free(&s->last);
        s->have_last = 0;
    }
    measure_clear(out);
    s->sample = 1; /* grown capacity is kept; sampling is decided per kernel */
    CUdevice dev;
    int toolkit = 0;
    if (cuCtxGetDevice(&dev) == CUDA_SUCCESS &&
        cuDeviceGetAttribute(&toolkit, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                             dev) == CUDA_SUCCESS && toolkit > 0)
        s->toolkit_bytes = (uint32_t)toolkit;
    for (int attempt = 0; attempt < 4; attempt++) {
        uint32_t need;
        double t_run = trace_clock();
        s->n_launches = 0;
        s->capturing = 1;
        launch(arg);
        cr = cuCtxSynchronize();
        s->capturing = 0;
        trace_timing(attempt ? "patched launch, again with a bigger buffer" : "patched launch", t_run);
        if (cr != CUDA_SUCCESS) {
            const char *e = NULL;
            cuGetErrorString(cr, &e);
            snprintf(why, why_size, "the traced kernel failed: %s", e ? e : "CUDA error");
            free_launches(s);
            return MEASURE_ERROR;
        }
        if (s->failed) {
            snprintf(why, why_size, "%s", s->failure);
            free_launches(s);
            return MEASURE_ERROR;
        }
        if (s->n_launches == 0) {
            snprintf(why, why_size, "no kernel ran while the trace was on");
            return MEASURE_NO_KERNEL;
        }
        if (s->n_launches > TRACE_MAX_LAUNCHES) {
            snprintf(why, why_size, "the launcher made %d launches; the trace follows at most %d",
                     s->n_launches, TRACE_MAX_LAUNCHES);
            free_launches(s);
            return MEASURE_ERROR;
        }
        double t_collect = trace_clock();
        st = collect(s, &n, &need, why, why_size);
        trace_timing("records read back", t_collect);
        if (st != MEASURE_OK || need == 0)
            break;
        free_launches(s); /* too small: grow, or sample blocks, and run again */
        if (need + need / 8 <= TRACE_MAX_RECORDS)
            s->capacity = need + need / 8;
        else {
            s->capacity = TRACE_MAX_RECORDS;
            s->sample *= (need + TRACE_MAX_RECORDS - 1) / TRACE_MAX_RECORDS + 1;
        }
        st = MEASURE_ERROR;
        snprintf(why, why_size, "the trace did not fit in %u records", s->capacity);
    }
    if (st != MEASURE_OK) {
        free_launches(s);
        return st;
    }

    /* the analysis, for the device's banks */
    int major = 0, minor = 0, reserved = 0;
    bank_geometry g;
    cuCtxGetDevice(&dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, dev);
    double t_analysis = trace_clock();
    n = from_kernel_start(s->host, n, (uint32_t)reserved);
    dump_trace(s->launches[0].function, s->host, n);
    if (bank_geometry_for(major, minor, 32, 0, &g) != 0 ||
        trace_analyze(&g, s->host, n, &s->last, why, why_size) != 0) {
        free_launches(s);
        return MEASURE_ERROR;
    }
    s->have_last = 1;
    collect_hits(s, &s->last);
    trace_timing("analysis", t_analysis);
    if (t_analysis >= 0)
        fprintf(stderr, "[timing] trace: %zu records, buffer of %u\n", n, s->capacity);
    double t_lines = trace_clock();
    traced_launch *first = &s->launches[0];
    snprintf(s->last_function, sizeof s->last_function, "%s", first->function);
    const line_table *lines = lines_of(module_of(s, first->module));
    if (lines)
        trace_attribute(&s->last, lines, first->function);
    trace_to_measurement(&s->last, out);
    trace_timing("source lines", t_lines);

    /* global loads, and the scale of a sampled trace */
    double traced_blocks = 0, all_blocks = 0;
    unsigned long long global_loads = 0, global_stores = 0, global_atomics = 0, shuffles = 0;
    unsigned long long sectors[2] = {0, 0}, ideal[2] = {0, 0};
    for (int i = 0; i < s->n_launches; i++) {
        trace_buffer h;
        if (sanitizerMemcpyDeviceToHost(&h, s->launches[i].device_buffer, sizeof h,
                                        s->launches[i].stream) == SANITIZER_SUCCESS) {
            global_loads += h.global_loads;
            global_stores += h.global_stores;
            global_atomics += h.global_atomics;
            shuffles += h.shuffles;
            s->last.toolkit_accesses += (long)h.toolkit_accesses;
            for (int k = 0; k < 2; k++) {
                sectors[k] += h.sectors[k];
                ideal[k] += h.ideal[k];
            }
        }
        all_blocks += (double)s->launches[i].blocks;
        traced_blocks += (double)((s->launches[i].blocks + s->sample - 1) / s->sample);
    }
    out->value[METRIC_GLOBAL_LD_REQUESTS] = (double)global_loads;
    out->value[METRIC_GLOBAL_ST_REQUESTS] = (double)global_stores;
    out->value[METRIC_GLOBAL_ATOM_REQUESTS] = (double)global_atomics;
    out->value[METRIC_SHUFFLES] = (double)shuffles;
    out->value[METRIC_GLOBAL_LD_SECTORS] = (double)sectors[0];
    out->value[METRIC_GLOBAL_ST_SECTORS] = (double)sectors[1];
    out->value[METRIC_GLOBAL_LD_IDEAL] = (double)ideal[0];
    out->value[METRIC_GLOBAL_ST_IDEAL] = (double)ideal[1];
    if (s->sample > 1 && traced_blocks > 0) {
        double k = all_blocks / traced_blocks;
        for (int m = 0; m < METRIC_COUNT; m++)
            out->value[m] *= k;
        out->ideal_ld *= k;
        out->ideal_st *= k;
    }
    free_launches(s);
    return MEASURE_OK;
}

static void trace_close(measure_backend *self)
{
    trace_state *s = self->state;
    if (s->subscribed)
        sanitizerUnsubscribe(s->subscriber);
    for (int i = 0; i < TRACE_MAX_LAUNCHES; i++)
        if (s->pool[i].memory)
            sanitizerFree(s->pool[i].context, s->pool[i].memory);
    for (int i = 0; i < s->n_modules; i++) {
        free(s->modules[i].cubin);
        lineinfo_free(&s->modules[i].lines);
    }
    if (s->have_last)
        trace_summary_free(&s->last);
    free(s->host);
    memset(s, 0, sizeof *s);
}

__attribute__((visibility("default"))) measure_backend *smemlab_trace_backend(char *why,
                                                                              size_t why_size)
{
    static measure_backend backend = {"trace", trace_open, trace_measure, trace_close, &state,
                                      NULL /* measure_trace_loader.c sets it */,
                                      1 /* again with a bigger buffer */};
    (void)why, (void)why_size;
    return &backend;
}

__attribute__((visibility("default"))) void smemlab_trace_patching(measure_backend *b, int on)
{
    trace_state *s = b ? b->state : NULL;
    if (s == &state)
        s->untraced_loads = !on;
}

__attribute__((visibility("default"))) void smemlab_trace_zones(measure_backend *b,
                                                                const unsigned long long *lo,
                                                                const unsigned long long *hi,
                                                                int n)
{
    trace_state *s = b ? b->state : NULL;
    if (s != &state)
        return;
    s->n_zones = n < 0 ? 0 : n > TRACE_ZONES ? TRACE_ZONES : (uint32_t)n;
    memset(s->zone_lo, 0, sizeof s->zone_lo);
    memset(s->zone_hi, 0, sizeof s->zone_hi);
    for (uint32_t i = 0; i < s->n_zones; i++)
        s->zone_lo[i] = lo[i], s->zone_hi[i] = hi[i];
}

__attribute__((visibility("default"))) void smemlab_trace_inputs(measure_backend *b,
                                                                 const unsigned long long *lo,
                                                                 const unsigned long long *hi,
                                                                 int n)
{
    trace_state *s = b ? b->state : NULL;
    if (s != &state)
        return;
    s->n_inputs = n < 0 ? 0 : n > TRACE_INPUTS ? TRACE_INPUTS : (uint32_t)n;
    memset(s->input_lo, 0, sizeof s->input_lo);
    memset(s->input_hi, 0, sizeof s->input_hi);
    for (uint32_t i = 0; i < s->n_inputs; i++)
        s->input_lo[i] = lo[i], s->input_hi[i] = hi[i];
}

__attribute__((visibility("default"))) const trace_summary *
smemlab_trace_last(measure_backend *b, const char **function)
{
    trace_state *s = b ? b->state : NULL;
    if (s != &state || !s->have_last)
        return NULL;
    if (function)
        *function = s->last_function;
    return &s->last;
}
