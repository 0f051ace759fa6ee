/* lab_decls.c - the declarations of a lab file's PTX; see lab_decls.h. */
#include "lab_decls.h"

#include "emu_internal.h"
#include "ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lab_decls {
    ptx_module *ptx;
};

lab_decls *lab_decls_from_ptx(const char *text, size_t len, char *why, size_t why_size)
{
    lab_decls *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(why, why_size, "out of memory reading the lab's PTX");
        return NULL;
    }
    if (ptx_parse(text, len, &d->ptx, why, why_size) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

lab_decls *lab_decls_read(const lab_image *img, char *why, size_t why_size)
{
    char *text = NULL;
    size_t len = 0;
    int arch = 0;
    if (lab_image_ptx(img, &text, &len, &arch, why, why_size) != 0)
        return NULL;
    lab_decls *d = lab_decls_from_ptx(text, len, why, why_size);
    free(text);
    return d;
}

void lab_decls_free(lab_decls *d)
{
    if (!d)
        return;
    ptx_free(d->ptx);
    free(d);
}

int lab_decls_shared(const lab_decls *d, const char *kernel, uint32_t *static_bytes,
                     int *dynamic)
{
    uint32_t f = ptx_find_func(d->ptx, kernel);
    if (f == PTX_NONE || !d->ptx->funcs[f].is_entry)
        return -1;
    emu_shared_of(d->ptx, f, static_bytes, dynamic);
    return 0;
}

const char *lab_decls_space(const lab_decls *d, const char *name)
{
    uint32_t v = ptx_find_var(d->ptx, name);
    return v == PTX_NONE ? NULL : ptx_space_name((ptx_space)d->ptx->vars[v].space);
}

/* Visit the kernel and every function it reaches (through registers too) until
   visit returns nonzero; that value, or 0. */
static int reach(const lab_decls *d, const char *kernel,
                 int (*visit)(const lab_decls *, const ptx_func *, void *), void *ctx)
{
    uint32_t f = ptx_find_func(d->ptx, kernel), n = d->ptx->n_funcs, top = 0;
    int hit = 0;
    if (f == PTX_NONE)
        return 0;
    uint8_t *seen = calloc(n, 1);
    uint32_t *todo = malloc((n + 1) * sizeof *todo);
    if (!seen || !todo) {
        free(seen), free(todo);
        return 0;
    }
    seen[f] = 1;
    todo[top++] = f;
    while (top && !hit) {
        const ptx_func *fn = &d->ptx->funcs[todo[--top]];
        hit = visit(d, fn, ctx);
        for (uint32_t c = 0; c < fn->n_calls; c++)
            for (uint32_t g = 0; g < n; g++) {
                int reached = fn->calls[c].func == PTX_NONE ? d->ptx->funcs[g].addr_taken
                                                            : fn->calls[c].func == g;
                if (reached && !seen[g]) {
                    seen[g] = 1;
                    todo[top++] = g;
                }
            }
    }
    free(seen);
    free(todo);
    return hit;
}

static int named(const lab_decls *d, const ptx_func *fn, void *callee)
{
    (void)d;
    return strcmp(fn->name, callee) == 0;
}

int lab_decls_calls(const lab_decls *d, const char *kernel, const char *callee)
{
    return reach(d, kernel, named, (void *)callee);
}

/*
 * What no trace callback and no hardware counter of the shared-memory pipe
 * sees: the bulk copies and reductions of the tensor memory accelerator
 * (cp.async.bulk*, cp.reduce.async.bulk*, st.bulk), the asynchronous stores
 * into another block's shared memory (st.async, red.async) and warpgroup MMAs
 * reading their operands from shared memory (wgmma, tcgen05).
 */
static const char *const unmeasured[] = {"cp.async.bulk", "cp.reduce.async.bulk", "st.bulk",
                                         "st.async", "red.async", "wgmma", "tcgen05"};

typedef struct found_instr {
    char *what;
    size_t size;
} found_instr;

static int unmeasured_in(const lab_decls *d, const ptx_func *fn, void *ctx)
{
    found_instr *out = ctx;
    for (uint32_t i = 0; fn->has_body && i < fn->n_code; i++) {
        const ptx_instr *in = &fn->code[i];
        for (size_t k = 0; in->text && k < sizeof unmeasured / sizeof *unmeasured; k++) {
            size_t len = strlen(unmeasured[k]);
            if (strncmp(in->text, unmeasured[k], len) != 0 ||
                (in->text[len] != '.' && in->text[len] != '\0'))
                continue;
            /* the student's line: where a header's code was inlined, if it was */
            uint32_t fi = in->call_file != PTX_NONE ? in->call_file : in->file;
            uint32_t line = in->call_file != PTX_NONE ? in->call_line : in->line;
            const char *file = fi < d->ptx->n_files ? d->ptx->files[fi].path : NULL;
            const char *slash = file ? strrchr(file, '/') : NULL;
            if (file && line)
                snprintf(out->what, out->size, "`%s` (%s:%u)", in->text, slash ? slash + 1 : file,
                         line);
            else
                snprintf(out->what, out->size, "`%s`", in->text);
            return 1;
        }
    }
    return 0;
}

int lab_decls_unmeasured(const lab_decls *d, const char *kernel, char *what, size_t what_size)
{
    found_instr out = {what, what_size};
    return reach(d, kernel, unmeasured_in, &out);
}
