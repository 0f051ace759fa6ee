/*
 * emu_device.c - the emulator as a device (run/device.h): memory, the lab's
 * PTX and the launches of validated plans, interpreted on the CPU, and the
 * grader's own kernels (scrub, fill, diff, the references) as host code.
 *
 * Device pointers are the emulator's addresses, never host pointers: the
 * grader only copies through them. Launches finish before replay returns, so
 * dev_sync has nothing to wait for; an error stays for dev_last_error with
 * the emulator's own words (the instruction, its source line).
 */
#define _POSIX_C_SOURCE 200809L
#include "emu_device.h"
#include "emu_sass.h"

#include "../../base/grade_options.h"
#include "../../labs/sizes.h"
#include "../../reference/reference.h"
#include "../../run/device.h"
#include "../../run/gpu.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#define EMU_MEMORY_LIMIT (UINT64_C(2) << 30) /* the labs' sizes need a few MB */
#define EMU_STATIC_SHARED_LIMIT (48 * 1024)  /* without the opt-in attribute, as on a GPU */
#define EMU_OPTIN_SHARED_LIMIT (227 * 1024)  /* an H100's opt-in maximum */
#define EMU_DEVICE_SYNC_KEPT 8

/* What one process's emulated device holds. */
static struct {
    emu_device *dev;
    cudaError_t pending;      /* the error a launch left, for dev_last_error */
    cudaError_t worded;       /* the error why[] speaks of */
    char why[600];
    uint32_t shared_fill;     /* module_scrub's poison: what shared memory starts as */
    uint8_t reverse;          /* dev_order: blocks and warps last to first */
    /* emu_device_flow: the flow run's change, its budget (0: budget), and that its
       launches keep nothing for the meter */
    struct {
        int on;
        uint32_t perturb;
        uint64_t lo, hi, budget;
        emu_src_line at;
    } flow;
    /* the last launch's (emu_device_last_run); in a flow run, all its launches' together */
    uint64_t last_instructions, last_perturbed;
    emu_src_line last_lines[EMU_PERTURB_LINES];
    int last_n_lines;
    /* what the machine's registers start from in every flow run of a measured input (its
       plain run's): its runs must differ by the changed values alone, never by the clock */
    uint64_t flow_time, flow_grid;
    uint32_t flow_launch;     /* this flow run's launches so far */
    const emu_sink *sink;     /* records go here while the meter measures */
    uint64_t budget;
    int launches;             /* launches while a sink was set */
    const emu_module *last_module; /* the last launch, for source lines */
    int last_kernel;
    device_fault fault;       /* the last launch's fault, located (have_fault) */
    int have_fault;
    /* Synchronisation errors of launches made with no sink (the correctness runs), each
       kind at each instruction of a kernel once, until the meter takes them. */
    struct {
        const emu_module *m;
        int kernel;
        emu_sync_error e;
    } sync[EMU_DEVICE_SYNC_KEPT];
    int n_sync;
    long sync_count;
    /* The first access out of bounds of those launches (its array named while it
       lives), and how many lanes made one, until the meter takes them. */
    struct {
        const emu_module *m;
        int kernel;
        emu_oob e;
        char array[DEV_NAME_BYTES];
    } oob;
    long oob_count;
    const emu_gpu *as;        /* the GPU graded as (--gpu), or NULL */
    uint32_t sm_count;        /* that GPU's SMs, or the GPU's a twin stands beside */
    uint64_t grid_ids;        /* launches made: each launch's %gridid */
    bank_geometry banks;      /* the last launch's (set by emu_device_as and each launch) */
} E = {.budget = EMU_DEFAULT_BUDGET, .last_kernel = -1, .sm_count = EMU_DEFAULT_SM_COUNT,
       .banks = {.banks = 32, .bank_bytes = 4, .warp_size = 32, .row_bytes = 4}};

/* A global address this far from every buffer is no overrun of one (a wild pointer). */
#define FAULT_NEAR_BYTES (UINT64_C(64) << 20)

/* A launch's first access out of bounds, kept for the meter (measure_emulator.c). */
static void keep_oob(const emu_module *m, int kernel, const emu_result *r)
{
    dev_array a;
    if (r->oob_errors == 0)
        return;
    if (E.oob_count == 0 || E.oob.m != m || E.oob.kernel != kernel) { /* another kernel's: gone */
        E.oob_count = 0;
        E.oob.m = m, E.oob.kernel = kernel, E.oob.e = r->first_oob;
        E.oob.array[0] = '\0';
        if (dev_array_at(r->first_oob.base, &a))
            memcpy(E.oob.array, a.name, sizeof E.oob.array);
    }
    E.oob_count += (long)r->oob_errors;
}

int emu_device_take_oob(const emu_module *m, int kernel, emu_oob *out,
                        char array[DEV_NAME_BYTES], long *count)
{
    int found = E.oob_count > 0 && E.oob.m == m && E.oob.kernel == kernel;
    if (found) {
        *out = E.oob.e;
        memcpy(array, E.oob.array, DEV_NAME_BYTES);
    }
    *count = found ? E.oob_count : 0;
    E.oob_count = 0;
    return found;
}

/* A launch's synchronisation errors, kept for the meter (measure_emulator.c). */
static void keep_sync(const emu_module *m, int kernel, const emu_result *r)
{
    if (r->sync_errors == 0)
        return;
    E.sync_count += (long)r->sync_errors;
    for (int i = 0; i < E.n_sync; i++)
        if (E.sync[i].m == m && E.sync[i].kernel == kernel &&
            E.sync[i].e.kind == r->first_sync.kind && E.sync[i].e.pc == r->first_sync.pc)
            return;
    if (E.n_sync < EMU_DEVICE_SYNC_KEPT) {
        E.sync[E.n_sync].m = m;
        E.sync[E.n_sync].kernel = kernel;
        E.sync[E.n_sync++].e = r->first_sync;
    }
}

int emu_device_take_sync(const emu_module *m, int kernel, emu_sync_error *out, int max,
                         long *count)
{
    int n = 0;
    for (int i = 0; i < E.n_sync; i++)
        if (E.sync[i].m == m && E.sync[i].kernel == kernel && n < max)
            out[n++] = E.sync[i].e;
    *count = n ? E.sync_count : 0;
    E.n_sync = 0;
    E.sync_count = 0;
    return n;
}

/* The emulator's state in a device_module. */
typedef struct emu_program {
    emu_module *module;
    int kernel_of[IMAGE_MAX_KERNELS]; /* image kernel index -> emulator kernel index */
} emu_program;

static uint64_t to_addr(const void *p) { return (uint64_t)(uintptr_t)p; }
static void *to_ptr(uint64_t a) { return (void *)(uintptr_t)a; }

static emu_device *device(void)
{
    if (!E.dev)
        E.dev = emu_device_create(EMU_MEMORY_LIMIT);
    return E.dev;
}

/* Remember an error in the emulator's words (dev_error_text gives them back). */
static cudaError_t fail(cudaError_t err, const char *fmt, const char *what)
{
    snprintf(E.why, sizeof E.why, fmt, what);
    E.worded = err;
    return err;
}

/* --- memory ---------------------------------------------------------------- */

static cudaError_t emu_malloc_(void **p, size_t bytes)
{
    uint64_t addr;
    if (!device() || emu_alloc(E.dev, bytes, &addr) != 0)
        return cudaErrorMemoryAllocation;
    *p = to_ptr(addr);
    return cudaSuccess;
}

static void emu_guard_(void *p, size_t front, size_t back)
{
    if (E.dev)
        emu_guard(E.dev, to_addr(p), front, back);
}

static void emu_free_(void *p)
{
    if (!p || !E.dev)
        return;
    emu_free(E.dev, to_addr(p)); /* emu_free zero-fills nothing: the block is dropped whole */
}

static cudaError_t emu_copy_(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    int rc = 0;
    switch (kind) {
    case cudaMemcpyHostToDevice: rc = emu_write(device(), to_addr(dst), src, n); break;
    case cudaMemcpyDeviceToHost: rc = emu_read(device(), dst, to_addr(src), n); break;
    case cudaMemcpyDeviceToDevice: rc = emu_copy(device(), to_addr(dst), to_addr(src), n); break;
    case cudaMemcpyHostToHost: memmove(dst, src, n); break;
    default: return cudaErrorInvalidMemcpyDirection;
    }
    return rc == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t emu_memset_(void *p, int byte, size_t n)
{
    return emu_memset(device(), to_addr(p), byte, n) == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t emu_sync_(void) { return cudaSuccess; }

static cudaError_t emu_last_error_(void)
{
    cudaError_t err = E.pending;
    E.pending = cudaSuccess;
    return err;
}

static const char *emu_error_text_(cudaError_t err)
{
    return err == E.worded && E.why[0] ? E.why : cudaGetErrorString(err);
}

static const char *emu_error_name_(cudaError_t err) { return cudaGetErrorName(err); }

static int emu_context_lost_(void) { return 0; } /* a fault ends the launch, not the device */

/* --- the lab's code ---------------------------------------------------------- */

/* The image's parameter layout (read from the cubin) must be the PTX's. */
static int same_params(const image_kernel *ik, const emu_kernel_info *info, char *why, size_t n)
{
    int same = ik->n_params == info->n_params;
    for (int i = 0; same && i < ik->n_params; i++)
        same = ik->params[i].offset == info->param_offset[i] &&
               ik->params[i].size == info->param_size[i];
    if (!same)
        snprintf(why, n, "kernel %s: its PTX lays out its parameters differently from its "
                 "cubin: rebuild the lab with this kit (make clean && make labN)", ik->name);
    return same ? 0 : -1;
}

static int emu_load_(device_module *m, const lab_image *img, char *why, size_t n)
{
    char *ptx = NULL;
    size_t len = 0;
    int arch = 0;
    memset(m, 0, sizeof *m);
    m->img = img;
    m->sm_count = 1;
    m->max_shared = EMU_OPTIN_SHARED_LIMIT;
    emu_program *p = calloc(1, sizeof *p);
    if (!p || !device()) {
        free(p);
        snprintf(why, n, "out of memory starting the emulator");
        return -1;
    }
    if (lab_image_ptx(img, &ptx, &len, &arch, why, n) != 0 ||
        emu_module_load(E.dev, ptx, len, &p->module, why, n) != 0) {
        free(ptx);
        free(p);
        return -1;
    }
    free(ptx);
    m->emu = p;
    char note[256];
    if (emu_sass_fix(p->module, img, note, sizeof note) != 0) { /* the widths ptxas chose */
        snprintf(why, n, "out of memory reading the lab's SASS");
        return -1;
    }
    for (int k = 0; k < img->n_kernels; k++) {
        emu_kernel_info info;
        p->kernel_of[k] = emu_kernel_find(p->module, img->kernels[k].name);
        if (p->kernel_of[k] < 0 || emu_kernel_describe(p->module, p->kernel_of[k], &info) != 0) {
            snprintf(why, n, "kernel %s is in the lab file but not in its PTX: rebuild the lab "
                     "(make clean && make labN)", img->kernels[k].name);
            return -1;
        }
        if (same_params(&img->kernels[k], &info, why, n) != 0)
            return -1;
    }
    return 0;
}

/* One copy serves both: the emulator records only while the meter measures. */
static int emu_load_measured_copy_(device_module *m, char *why, size_t n)
{
    (void)m, (void)why, (void)n;
    return 0;
}

static void emu_unload_(device_module *m)
{
    emu_program *p = m->emu;
    if (p) {
        if (E.last_module == p->module)
            E.last_module = NULL;
        emu_module_unload(p->module);
        free(p);
    }
    memset(m, 0, sizeof *m);
}

static cudaError_t emu_set_global_(const device_module *m, const char *name, const void *src,
                                   size_t bytes, size_t *have)
{
    const emu_program *p = m->emu;
    uint64_t addr, size;
    emu_space space;
    *have = 0;
    if (!p || emu_module_symbol(p->module, name, &addr, &size, &space) != 0)
        return cudaErrorSymbolNotFound;
    *have = (size_t)size;
    if (size < bytes)
        return cudaSuccess; /* the caller says the variable is too small */
    return emu_write(E.dev, addr, src, bytes) == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

/* The CUDA error a GPU gives for what the emulator saw. */
static cudaError_t cuda_error_of(const emu_result *r)
{
    switch (r->status) {
    case EMU_OK: return cudaSuccess;
    case EMU_FAULT: return r->fault_misaligned ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress;
    case EMU_UNSUPPORTED: return cudaErrorNotSupported;
    case EMU_TIMEOUT: case EMU_DEADLOCK: return cudaErrorLaunchTimeout;
    case EMU_TRAP: return cudaErrorLaunchFailure;
    case EMU_BAD_LAUNCH: return cudaErrorInvalidConfiguration;
    }
    return cudaErrorUnknown;
}

/* The words a student reads for a failed launch, with its line. */
static void word_result(const emu_result *r)
{
    char at[320] = "";
    if (r->file && r->call_file) { /* the line itself first, then where it was called */
        const char *cs = strrchr(r->call_file, '/'), *s = strrchr(r->file, '/');
        snprintf(at, sizeof at, " (%s:%d, called from %s:%d)", s ? s + 1 : r->file, r->line,
                 cs ? cs + 1 : r->call_file, r->call_line);
    } else if (r->file) {
        const char *slash = strrchr(r->file, '/');
        snprintf(at, sizeof at, " (%s:%d)", slash ? slash + 1 : r->file, r->line);
    }
    switch (r->status) {
    case EMU_UNSUPPORTED:
        snprintf(E.why, sizeof E.why, "not graded: %.400s%s", r->why, at);
        break;
    case EMU_TIMEOUT:
    case EMU_DEADLOCK:
        snprintf(E.why, sizeof E.why, "timed out: %.400s%s", r->why, at);
        break;
    default: { /* the error's name once: the emulator's words may start with it */
        const char *name = cudaGetErrorString(cuda_error_of(r));
        if (strncmp(r->why, name, strlen(name)) == 0)
            snprintf(E.why, sizeof E.why, "%.400s%s", r->why, at);
        else
            snprintf(E.why, sizeof E.why, "%s: %.400s%s", name, r->why, at);
    }
    }
    E.worded = cuda_error_of(r);
}

/*
 * Where launch l's fault lies (r: its result, bufs: the call's buffers): the access and
 * who made it, and for a global address the buffer of the launch whose allocation it
 * lies nearest past (or before), with how far, from where the buffer starts (a guarded
 * buffer starts inside its allocation).
 */
static void locate_fault(const emu_result *r, const plan_launch *l, void *const bufs[])
{
    static const char *const spaces[] = {"global", "shared", "local", "parameter"};
    device_fault *f = &E.fault;
    E.have_fault = r->status == EMU_FAULT && r->fault_access;
    if (!E.have_fault)
        return;
    memset(f, 0, sizeof *f);
    f->op = r->fault_op == EMU_ACC_STORE ? "store" : r->fault_op == EMU_ACC_ATOMIC ? "atomic"
                                                                                 : "load";
    f->space = (unsigned)r->fault_space < 4 ? spaces[r->fault_space] : "global";
    f->file = r->file, f->line = r->line;
    f->call_file = r->call_file, f->call_line = r->call_line;
    f->lane = r->fault_lane, f->warp = (int)r->fault_warp;
    memcpy(f->block, r->fault_block, sizeof f->block);
    f->address = r->fault_addr;
    f->width = (int)r->fault_size;
    f->buffer = -1;
    uint64_t best = FAULT_NEAR_BYTES, a = r->fault_addr, end_a = a + r->fault_size;
    for (int i = 0; r->fault_space == EMU_FAULT_GLOBAL && i < l->n_relocs; i++) {
        int b = l->relocs[i].buffer;
        uint64_t start = to_addr(bufs[b]), base, bytes;
        if (!start || emu_region_of(E.dev, start, &base, &bytes) != 0)
            continue;
        uint64_t end = base + bytes;
        uint64_t dist = a >= end ? end_a - end : a < start ? start - a : UINT64_MAX;
        if (dist >= best)
            continue;
        best = dist;
        f->buffer = b;
        f->reached = (long long)end_a - (long long)start;
        f->bytes = (long long)(end - start);
    }
}

static const device_fault *emu_last_fault_(void)
{
    return E.have_fault ? &E.fault : NULL;
}

/* A launch the GPU refuses before it starts: too much shared memory. */
static int launch_allowed(const emu_program *p, const plan_launch *l)
{
    emu_kernel_info info;
    emu_kernel_describe(p->module, p->kernel_of[l->kernel], &info);
    uint64_t total = (uint64_t)info.static_shared + l->shared_bytes;
    uint64_t limit = l->max_dynamic_shared != REC_ATTR_UNSET && l->max_dynamic_shared >= 0
                         ? (uint64_t)info.static_shared + (uint64_t)l->max_dynamic_shared
                         : EMU_STATIC_SHARED_LIMIT;
    if (limit > EMU_OPTIN_SHARED_LIMIT)
        limit = EMU_OPTIN_SHARED_LIMIT;
    if (total <= limit)
        return 1;
    char what[160];
    snprintf(what, sizeof what, "%llu bytes of shared memory asked for, %llu allowed",
             (unsigned long long)total, (unsigned long long)limit);
    fail(cudaErrorInvalidValue, "invalid argument: %s (cudaFuncSetAttribute raises the limit)",
         what);
    return 0;
}

/* Device printf, to the process's standard output, as the CUDA runtime writes the
   GPU's (the grader shows it apart from the report). */
static void print_stdout(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

/* On an older GPU (--gpu): the launch's banks, and whether the GPU runs the kernel at all
   (the first instruction it lacks, named with its line). */
static int runs_on_gpu(const emu_program *p, const plan_launch *l)
{
    emu_newer n;
    if (!E.as)
        return 1;
    emu_gpu_banks(E.as, l->smem_config, &E.banks);
    int sm = E.as->major * 10 + E.as->minor;
    if (emu_kernel_newer(p->module, p->kernel_of[l->kernel], sm, &n) != 1)
        return 1;
    const char *base = n.file ? strrchr(n.file, '/') : NULL;
    char at[160] = "";
    if (n.file)
        snprintf(at, sizeof at, " (%s:%d)", base ? base + 1 : n.file, n.line);
    snprintf(E.why, sizeof E.why, "not graded: %s %s (sm_%d) cannot run this kernel: it uses "
             "`%s`%s, which needs sm_%d", E.as->whose, E.as->name, sm, n.text, at, n.sm);
    E.worded = cudaErrorNotSupported;
    return 0;
}

/* The wall clock's nanoseconds since the epoch, as a GPU's %globaltimer counts them. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a launch ran and changed, for emu_device_last_run: a flow run's launches add up (a
   call of two launches is judged on both, its budget on both), their lines merged. */
static void keep_run(const emu_result *r)
{
    if (!E.flow.on || E.flow_launch++ == 0) {
        E.last_instructions = E.last_perturbed = 0;
        E.last_n_lines = 0;
    }
    E.last_instructions += r->warp_instructions, E.last_perturbed += r->perturbed;
    for (int i = 0; i < r->n_perturb_lines && E.last_n_lines < EMU_PERTURB_LINES; i++) {
        int seen = 0;
        for (int j = 0; j < E.last_n_lines && !seen; j++)
            seen = E.last_lines[j].line == r->perturb_lines[i].line &&
                   E.last_lines[j].file == r->perturb_lines[i].file;
        if (!seen)
            E.last_lines[E.last_n_lines++] = r->perturb_lines[i];
    }
}

static cudaError_t replay_one(const emu_program *p, const plan_launch *l, void *const bufs[])
{
    unsigned char params[REC_MAX_PARAM_BYTES];
    emu_result r;
    memcpy(params, l->params, l->param_bytes);
    for (int i = 0; i < l->n_relocs; i++) {
        uint64_t v = to_addr(bufs[l->relocs[i].buffer]) + l->relocs[i].delta;
        memcpy(params + l->relocs[i].offset, &v, sizeof v);
    }
    if (!launch_allowed(p, l) || !runs_on_gpu(p, l))
        return E.worded;
    emu_launch launch = {.kernel = p->kernel_of[l->kernel], .dynamic_shared = l->shared_bytes,
                         .params = params, .param_bytes = l->param_bytes,
                         .shared_fill = E.shared_fill,
                         .print = E.flow.on ? NULL : print_stdout, /* printed once, before */
                         .reverse = E.reverse, .sm_count = E.sm_count,
                         .grid_id = E.flow.on ? E.flow_grid + E.flow_launch : ++E.grid_ids,
                         .time_base = E.flow.on ? E.flow_time + E.flow_launch : now_ns(),
                         .perturb = E.flow.perturb, .perturb_lo = E.flow.lo,
                         .perturb_hi = E.flow.hi, .perturb_at = E.flow.at};
    memcpy(launch.grid, l->grid, sizeof launch.grid);
    memcpy(launch.block, l->block, sizeof launch.block);
    if (E.sink)
        E.launches++;
    E.last_module = p->module;
    E.last_kernel = launch.kernel;
    E.have_fault = 0;
    emu_status st = emu_run(p->module, &launch, E.flow.on ? NULL : E.sink,
                            E.flow.on && E.flow.budget ? E.flow.budget : E.budget, &r);
    fflush(stdout);
    keep_run(&r);
    if (!E.sink && !E.flow.on) { /* a measured launch's go to the meter through its sink */
        keep_sync(p->module, launch.kernel, &r);
        keep_oob(p->module, launch.kernel, &r);
    }
    if (st == EMU_OK)
        return cudaSuccess;
    word_result(&r);
    locate_fault(&r, l, bufs);
    return E.worded;
}

static cudaError_t emu_replay_(const device_module *m, const call_plan *plan, void *const bufs[])
{
    for (int i = 0; i < plan->n_launches; i++) {
        cudaError_t err = replay_one(m->emu, &plan->launches[i], bufs);
        if (err != cudaSuccess) {
            E.pending = err;
            return err;
        }
    }
    return cudaSuccess;
}

static cudaError_t emu_scrub_(const device_module *m, int poison)
{
    (void)m;
    E.shared_fill = (uint32_t)poison;
    return cudaSuccess;
}

/* --- the grader's own kernels, on the host ----------------------------------- */

/* grader_kernels.cu's smemlab_grader_fill, bit for bit. */
static float fill_value(unsigned long long seed, unsigned long long i)
{
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((double)(z >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static cudaError_t emu_fill_(const device_module *m, float *x, size_t n, unsigned long long seed)
{
    (void)m;
    float *h = emu_host_view(device(), to_addr(x), n * sizeof *h);
    if (!h)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; i++)
        h[i] = fill_value(seed, i);
    return cudaSuccess;
}

/* grader_kernels.cu's smemlab_grader_diff, in one pass. */
static cudaError_t emu_diff_(const device_module *m, const float *got, const float *want,
                             size_t n, device_diff *out)
{
    (void)m;
    const float *g = emu_host_view(device(), to_addr(got), n * sizeof *g);
    const float *w = emu_host_view(E.dev, to_addr(want), n * sizeof *w);
    double d2 = 0, w2 = 0;
    memset(out, 0, sizeof *out);
    if (!g || !w)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &g[i], sizeof bits);
        out->poisoned += bits == (uint32_t)GPU_POISON_INT;
        out->not_finite += !isfinite(g[i]);
        double d = (double)g[i] - (double)w[i];
        d2 += isfinite(g[i]) ? d * d : 0;
        w2 += (double)w[i] * w[i];
    }
    out->rel_error = w2 > 0 ? sqrt(d2 / w2) : (d2 > 0 ? 1e30 : 0);
    return cudaSuccess;
}

static cudaError_t emu_conv_(const device_module *m, const float *in, const float *mask,
                             float *out, int width, int height, int mw)
{
    (void)m;
    size_t count = (size_t)width * height, taps = height == 1 ? (size_t)mw : (size_t)mw * mw;
    const float *i = emu_host_view(device(), to_addr(in), count * sizeof *i);
    const float *k = emu_host_view(E.dev, to_addr(mask), taps * sizeof *k);
    float *o = emu_host_view(E.dev, to_addr(out), count * sizeof *o);
    if (!i || !k || !o)
        return cudaErrorInvalidValue;
    if (height == 1)
        ref_conv1d(i, k, o, width, mw);
    else
        ref_conv2d(i, k, o, width, height, mw);
    return cudaSuccess;
}

static cudaError_t emu_matmul_(const device_module *m, const float *A, const float *B, float *C,
                               int M, int N, int K)
{
    (void)m;
    const float *a = emu_host_view(device(), to_addr(A), (size_t)M * K * sizeof *a);
    const float *b = emu_host_view(E.dev, to_addr(B), (size_t)K * N * sizeof *b);
    float *c = emu_host_view(E.dev, to_addr(C), (size_t)M * N * sizeof *c);
    if (!a || !b || !c)
        return cudaErrorInvalidValue;
    ref_matmul(a, b, c, M, N, K);
    return cudaSuccess;
}

void emu_device_flow(uint32_t perturb, uint64_t lo, uint64_t hi, const emu_src_line *at,
                     uint64_t budget)
{
    E.flow.on = 1;
    E.flow.perturb = perturb, E.flow.lo = lo, E.flow.hi = hi, E.flow.budget = budget;
    E.flow_launch = 0;
    if (!perturb) /* the plain run: the registers every run of this input starts from */
        E.flow_time = now_ns(), E.flow_grid = ++E.grid_ids;
    E.flow.at = at ? *at : (emu_src_line){NULL, 0};
}

void emu_device_flow_end(void)
{
    memset(&E.flow, 0, sizeof E.flow);
}

int emu_device_last_run(uint64_t *instructions, uint64_t *perturbed,
                        emu_src_line lines[EMU_PERTURB_LINES])
{
    *instructions = E.last_instructions;
    *perturbed = E.last_perturbed;
    memcpy(lines, E.last_lines, sizeof E.last_lines);
    return E.last_n_lines;
}

static void emu_order_(int reverse)
{
    E.reverse = reverse != 0;
}

const device_ops device_emulator = {
    .name = "emulator", .sizes = SIZE_EMULATOR, .meters_blind = 0,
    .untimed = "emulated on the CPU (speed is the GPU's to tell)",
    .malloc = emu_malloc_, .free = emu_free_, .copy = emu_copy_, .memset = emu_memset_,
    .sync = emu_sync_, .last_error = emu_last_error_, .error_text = emu_error_text_,
    .error_name = emu_error_name_, .context_lost = emu_context_lost_,
    .last_fault = emu_last_fault_,
    .load = emu_load_, .load_measured_copy = emu_load_measured_copy_, .unload = emu_unload_,
    .set_global = emu_set_global_, .replay = emu_replay_, .scrub = emu_scrub_,
    .fill = emu_fill_, .diff = emu_diff_, .conv = emu_conv_, .matmul = emu_matmul_,
    .guard = emu_guard_, .order = emu_order_,
};

void emu_device_time_limit(double timeout_s)
{
    double b = (double)EMU_DEFAULT_BUDGET * timeout_s / GRADE_DEFAULT_TIMEOUT_S;
    E.budget = b < 1.0 ? 1 : b > (double)UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)b;
}

uint64_t emu_device_budget(void)
{
    return E.budget;
}

void emu_device_as(const emu_gpu *g)
{
    E.as = g;
    E.sm_count = g ? (uint32_t)g->sm_count : EMU_DEFAULT_SM_COUNT;
    if (g)
        emu_gpu_banks(g, REC_ATTR_UNSET, &E.banks);
    else
        bank_geometry_for(9, 0, 32, 0, &E.banks);
}

void emu_device_sm_count(int sm_count)
{
    E.sm_count = sm_count > 0 ? (uint32_t)sm_count : EMU_DEFAULT_SM_COUNT;
}

const emu_gpu *emu_device_gpu(void)
{
    return E.as;
}

void emu_device_banks(bank_geometry *out)
{
    *out = E.banks;
}

void emu_device_record(const emu_sink *sink)
{
    E.sink = sink;
    E.launches = 0;
}

int emu_device_launches(void)
{
    return E.launches;
}

int emu_device_last_launch(const emu_module **m, int *kernel, const char **name)
{
    emu_kernel_info info;
    if (!E.last_module || emu_kernel_describe(E.last_module, E.last_kernel, &info) != 0)
        return -1;
    *m = E.last_module;
    *kernel = E.last_kernel;
    *name = info.name;
    return 0;
}
