/* plan.c - validating a launcher's record against the lab's contract; see plan.h. */
#include "plan.h"

#include "../image/lib_code.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_BLOCK_THREADS 1024
#define DEFAULT_LAUNCHES 4
#define DEFAULT_BLOCKS (1ull << 24)
#define DEFAULT_SHARED (228u * 1024) /* the largest block tile of any current GPU */
/* Canonical user-space addresses: a value here that is no grader buffer is a pointer to
 * something else, never an integer a lab passes. */
#define USER_LOW 0x10000ull
#define USER_HIGH 0x0000800000000000ull

int plan_max_launches(const lab_def *lab)
{
    int n = lab->limits.launches ? lab->limits.launches : DEFAULT_LAUNCHES;
    return n < PLAN_MAX_LAUNCHES ? n : PLAN_MAX_LAUNCHES;
}

unsigned long long plan_max_blocks(const lab_def *lab)
{
    return lab->limits.blocks ? lab->limits.blocks : DEFAULT_BLOCKS;
}

unsigned plan_max_shared(const lab_def *lab)
{
    return lab->limits.shared_bytes ? lab->limits.shared_bytes : DEFAULT_SHARED;
}

static const char *plural(long n) { return n == 1 ? "" : "s"; }

static int refuse(char *why, size_t n, const char *fmt, const char *a, const char *b)
{
    snprintf(why, n, fmt, a, b);
    return -1;
}

/* Whose function a refused call is, from its name: "" for the CUDA runtime's. */
static const char *library_of_call(const char *name)
{
    if (strncmp(name, "cublas", 6) == 0)
        return " (cuBLAS: the library does the work a kernel of yours is graded for)";
    if (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z')
        return " (the CUDA driver API)";
    return "";
}

/* The library whose kernels the image holds (the first found: "CUB"), its kernel's name
   readable in name; NULL when it holds none. A refused call then may be its host code's. */
static const char *library_kernels(const lab_image *img, char *name, size_t n)
{
    for (int i = 0; img && i < img->n_kernels; i++) {
        const char *library = lib_code_kernel_library(img->kernels[i].name);
        if (library) {
            lib_code_readable(img->kernels[i].name, name, n);
            return library;
        }
    }
    return NULL;
}

/* The record itself, before its launches: did the launcher keep to launching? */
static int check_call(const lab_kernel *k, const lab_def *lab, const lab_image *img,
                      const rec_call *r, int empty_ok, char *why, size_t n)
{
    if (r->n_launches < 0 || r->n_violations < 0)
        return refuse(why, n, "the record of %s is not one the kit's recorder writes: "
                      "a launcher must not write to the grader's pipe%s", k->launcher, "");
    if (r->n_violations > 0) {
        char more[48] = "";
        if (r->n_violations > 1)
            snprintf(more, sizeof more, " (and %d more call%s)", r->n_violations - 1,
                     plural(r->n_violations - 1));
        char call[sizeof r->violations[0]];
        memcpy(call, r->violations[0], sizeof call);
        call[sizeof call - 1] = '\0'; /* the writer is not trusted to terminate it */
        char kernel[96];
        const char *library = library_kernels(img, kernel, sizeof kernel);
        if (library)
            snprintf(why, n, "%s called %s%s, as %s's algorithms do (your file compiles its "
                     "%s): a launcher launches your own kernels, no library's", k->launcher,
                     call, more, library, kernel);
        else
            snprintf(why, n, "%s called %s%s%s: a launcher may only launch kernels on the "
                     "default stream; the grader allocates, copies and synchronises itself",
                     k->launcher, call, library_of_call(call), more);
        return -1;
    }
    if (r->n_launches == 0 && empty_ok)
        return 0;
    if (r->n_launches == 0)
        return refuse(why, n, "%s launched no kernel of your file: write its "
                      "<<<grid, block, bytes>>> launch if it is still a TODO (a library call "
                      "such as cuBLAS, or work done on the host, is not a launch the grader "
                      "can measure)%s", k->launcher, "");
    if (r->n_launches > plan_max_launches(lab)) {
        snprintf(why, n, "%s made %d launches in one call; this lab allows at most %d",
                 k->launcher, r->n_launches, plan_max_launches(lab));
        return -1;
    }
    return 0;
}

static int check_config(const lab_def *lab, const rec_launch *l, int empty_ok, char *why,
                        size_t n)
{
    unsigned long long threads = (unsigned long long)l->block[0] * l->block[1] * l->block[2];
    unsigned long long blocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
    if (threads < 1 || threads > MAX_BLOCK_THREADS || l->block[2] > 64) {
        snprintf(why, n, "a block of %ux%ux%u threads: a block has 1 to %d threads (z at most "
                 "64)", l->block[0], l->block[1], l->block[2], MAX_BLOCK_THREADS);
        return -1;
    }
    if ((blocks < 1 && !empty_ok) || l->grid[0] > 0x7fffffffu || l->grid[1] > 65535 ||
        l->grid[2] > 65535 || blocks > plan_max_blocks(lab)) {
        snprintf(why, n, "a grid of %ux%ux%u blocks: this lab allows 1 to %llu blocks",
                 l->grid[0], l->grid[1], l->grid[2], plan_max_blocks(lab));
        return -1;
    }
    if (l->shared_bytes > plan_max_shared(lab) ||
        (l->max_dynamic_shared != REC_ATTR_UNSET &&
         (l->max_dynamic_shared < 0 || (unsigned)l->max_dynamic_shared > plan_max_shared(lab)))) {
        snprintf(why, n, "%" PRIu64 " bytes of dynamic shared memory: this lab allows at most "
                 "%u", l->shared_bytes, plan_max_shared(lab));
        return -1;
    }
    if (l->carveout != REC_ATTR_UNSET && (l->carveout < -1 || l->carveout > 100)) {
        snprintf(why, n, "a shared-memory carveout of %d%%", l->carveout);
        return -1;
    }
    if (l->stream != 0) {
        snprintf(why, n, "a launch on stream 0x%" PRIx64 ", not the default stream: the grader "
                 "times and measures its own stream only", l->stream);
        return -1;
    }
    return 0;
}

/* Turn 8-byte words holding a fake buffer address into relocations. */
static int relocate(const image_kernel *ik, const call_spec *spec, plan_launch *p, char *why,
                    size_t n)
{
    p->n_relocs = 0;
    for (int i = 0; i < ik->n_params; i++) {
        const kernel_param *kp = &ik->params[i];
        for (unsigned off = kp->offset; off % 8 == 0 && off + 8 <= kp->offset + kp->size;
             off += 8) {
            uint64_t v;
            memcpy(&v, p->params + off, sizeof v);
            if (v >= FAKE_BUFFER_BASE && v < FAKE_BUFFER(CALL_MAX_BUFFERS)) {
                int b = (int)((v - FAKE_BUFFER_BASE) / FAKE_BUFFER_SPAN);
                uint64_t delta = (v - FAKE_BUFFER_BASE) % FAKE_BUFFER_SPAN;
                if (b >= spec->n_buffers || delta > spec->buffer_bytes[b]) {
                    snprintf(why, n, "argument %d of %s points outside the buffers the grader "
                             "passed to the launcher", i + 1, ik->name);
                    return -1;
                }
                if (p->n_relocs == PLAN_MAX_RELOCS) {
                    snprintf(why, n, "%s takes more pointers than the grader replays", ik->name);
                    return -1;
                }
                p->relocs[p->n_relocs++] = (plan_reloc){off, b, delta};
            } else if (v >= USER_LOW && v < USER_HIGH) {
                snprintf(why, n, "argument %d of %s is a pointer (0x%" PRIx64 ") that is none "
                         "of the buffers the grader passed to the launcher", i + 1, ik->name, v);
                return -1;
            }
        }
    }
    return 0;
}

/* A call with nothing to do (CALL_EMPTY) may launch nothing, or 0 blocks: the
   problem module fails such a launch by name, at that size alone. */
static int plan_launch_from(const lab_def *lab, const lab_image *img, const call_spec *spec,
                            const rec_launch *l, plan_launch *p, char *why, size_t n)
{
    char name[REC_NAME];
    memcpy(name, l->kernel, sizeof name);
    name[sizeof name - 1] = '\0'; /* the writer is not trusted to terminate it */
    int ki = lab_image_kernel(img, name);
    if (ki < 0)
        return refuse(why, n, "a launch of %s, which is not a kernel of your file (only the "
                      "device code compiled from your lab file runs: a library's kernel, such "
                      "as cuBLAS's, earns nothing)%s", name, "");
    const char *library = lib_code_kernel_library(name);
    if (library) { /* a template of the library's, instantiated in the file: not its code */
        char readable[160];
        lib_code_readable(name, readable, sizeof readable);
        snprintf(why, n, "a launch of %s, a kernel of %s's, not of your own code: the library "
                 "does the work the kernel is graded for, and a launcher launches the kernels "
                 "you wrote", readable, library);
        return -1;
    }
    if (check_config(lab, l, (spec->role & CALL_EMPTY) != 0, why, n) != 0)
        return -1;
    const image_kernel *ik = &img->kernels[ki];
    if (ik->param_bytes > REC_MAX_PARAM_BYTES)
        return refuse(why, n, "%s takes more than 512 bytes of arguments: pass large data "
                      "through a buffer%s", name, "");
    if (l->param_bytes != ik->param_bytes)
        return refuse(why, n, "the arguments recorded for %s do not match its parameters "
                      "(the record was not written by the kit's recorder)%s", name, "");
    memset(p, 0, sizeof *p);
    p->kernel = ki;
    memcpy(p->grid, l->grid, sizeof p->grid);
    memcpy(p->block, l->block, sizeof p->block);
    p->shared_bytes = (uint32_t)l->shared_bytes;
    p->max_dynamic_shared = l->max_dynamic_shared;
    p->carveout = l->carveout;
    p->param_bytes = l->param_bytes;
    memcpy(p->params, l->params, l->param_bytes);
    return relocate(ik, spec, p, why, n);
}

static int same_launch(const rec_launch *a, const rec_launch *b)
{
    return strncmp(a->kernel, b->kernel, REC_NAME) == 0 &&
           memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
           memcmp(a->block, b->block, sizeof a->block) == 0 &&
           a->shared_bytes == b->shared_bytes && a->stream == b->stream &&
           a->max_dynamic_shared == b->max_dynamic_shared && a->carveout == b->carveout &&
           a->param_bytes == b->param_bytes && a->param_bytes <= REC_MAX_PARAM_BYTES &&
           memcmp(a->params, b->params, a->param_bytes) == 0;
}

static void describe(const rec_call *r, char *buf, size_t n)
{
    if (r->n_launches < 1) {
        snprintf(buf, n, "no launch");
        return;
    }
    const rec_launch *l = &r->launches[0];
    snprintf(buf, n, "%d launch%s, the first %ux%ux%u blocks of %ux%ux%u threads, %" PRIu64
             " shared bytes", r->n_launches, r->n_launches == 1 ? "" : "es", l->grid[0],
             l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2], l->shared_bytes);
}

/* A launcher called twice with the same arguments must launch the same way. */
static int check_consistent(const lab_kernel *k, const rec_call *a, const rec_call *b,
                            char *why, size_t n)
{
    int same = a->n_launches == b->n_launches && a->n_violations == b->n_violations;
    for (int i = 0; same && i < a->n_launches && i < REC_MAX_LAUNCHES; i++)
        same = same_launch(&a->launches[i], &b->launches[i]);
    if (same)
        return 0;
    char first[160], second[160];
    describe(a, first, sizeof first);
    describe(b, second, sizeof second);
    snprintf(why, n, "%s launched differently when called twice with the same arguments "
             "(first %s; then %s): a launcher must not remember earlier calls", k->launcher,
             first, second);
    return -1;
}

int plan_from_records(const lab_def *lab, const lab_kernel *k, const lab_image *img,
                      const call_spec *spec, const rec_call *first, const rec_call *second,
                      call_plan *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (check_call(k, lab, img, first, (spec->role & CALL_EMPTY) != 0, why, why_size) != 0 ||
        check_consistent(k, first, second, why, why_size) != 0)
        return -1;
    for (int i = 0; i < first->n_launches; i++) {
        char what[400];
        if (plan_launch_from(lab, img, spec, &first->launches[i], &out->launches[i], what,
                             sizeof what) != 0) {
            snprintf(why, why_size, "%s at %s: %s", k->launcher, spec->label, what);
            return -1;
        }
    }
    out->n_launches = first->n_launches;
    return 0;
}
