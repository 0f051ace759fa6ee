/* lab_decls.c - the declarations of a lab file's PTX; see lab_decls.h. */
#include "lab_decls.h"

#include "../../ptx/emu.h"
#include "../../ptx/ptx.h"

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

/* The <length><identifier> of name that runs to name[end]: 1 with it in out. */
static int trailing_name(const char *name, size_t end, char *out, size_t size)
{
    for (size_t i = end; i-- > 0;) {
        if (name[i] < '0' || name[i] > '9')
            continue;
        size_t digits_end = i + 1, start = i;
        while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
            start--;
        unsigned long n = strtoul(name + start, NULL, 10);
        if (n > 0 && digits_end + n == end && (name[digits_end] < '0' || name[digits_end] > '9')) {
            snprintf(out, size, "%.*s", (int)n, name + digits_end);
            return 1;
        }
        i = start; /* the next candidate lies before this number */
    }
    return 0;
}

void lab_decls_source_name(const char *ptx_name, char *out, size_t size)
{
    size_t len = strlen(ptx_name), end = len;
    snprintf(out, size, "%s", ptx_name);
    if (strncmp(ptx_name, "_Z", 2) != 0 || trailing_name(ptx_name, len, out, size))
        return;
    /* a discriminator after the entity's name (_N, or __N_): not part of it */
    size_t d = len - (len > 0 && ptx_name[len - 1] == '_');
    while (d > 0 && ptx_name[d - 1] >= '0' && ptx_name[d - 1] <= '9')
        d--;
    if (ptx_name[len - 1] == '_' && d >= 2 && ptx_name[d - 1] == '_' && ptx_name[d - 2] == '_')
        end = d - 2;
    else if (ptx_name[len - 1] != '_' && d > 0 && d < len && ptx_name[d - 1] == '_')
        end = d - 1;
    if (end < len)
        trailing_name(ptx_name, end, out, size);
}

int lab_decls_shared_vars(const lab_decls *d, const char *kernel, lab_shared_var *out, int max)
{
    uint32_t f = ptx_find_func(d->ptx, kernel);
    emu_shared_var vars[32];
    if (f == PTX_NONE || !d->ptx->funcs[f].is_entry)
        return -1;
    int n = emu_shared_vars(d->ptx, f, vars, (int)(sizeof vars / sizeof *vars));
    for (int i = 0; i < n && i < max && i < (int)(sizeof vars / sizeof *vars); i++) {
        lab_decls_source_name(vars[i].name, out[i].name, sizeof out[i].name);
        out[i].offset = vars[i].offset;
        out[i].size = vars[i].size;
        out[i].dynamic = vars[i].dynamic;
    }
    return n;
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

static int reads_reserved(const lab_decls *d, const ptx_func *fn, void *ctx)
{
    (void)d, (void)ctx;
    for (uint32_t i = 0; i < fn->n_sregs; i++)
        if (fn->sregs[i].sreg >= PSR_RESERVED_SMEM_BEGIN && fn->sregs[i].sreg <= PSR_RESERVED_SMEM_1)
            return 1;
    return 0;
}

int lab_decls_reserved_smem(const lab_decls *d, const char *kernel)
{
    return d ? reach(d, kernel, reads_reserved, NULL) : 0;
}

typedef struct instr_search {
    const char *prefix;
    char *where;
    size_t size;
} instr_search;

static int has_instr(const lab_decls *d, const ptx_func *fn, void *ctx)
{
    instr_search *q = ctx;
    size_t len = strlen(q->prefix);
    for (uint32_t i = 0; fn->has_body && i < fn->n_code; i++) {
        const ptx_instr *in = &fn->code[i];
        if (!in->text || strncmp(in->text, q->prefix, len) != 0 ||
            (in->text[len] != '.' && in->text[len] != '\0'))
            continue;
        /* the student's line: the instruction's own where it is in a .cu file (in a
           function of theirs that was inlined, too), else where a header's
           intrinsic (__shfl_up_sync in sm_30_intrinsics.hpp) was inlined */
        const char *file = in->file < d->ptx->n_files ? d->ptx->files[in->file].path : NULL;
        uint32_t line = in->line;
        size_t flen = file ? strlen(file) : 0;
        if ((!file || flen < 3 || strcmp(file + flen - 3, ".cu") != 0) &&
            in->call_file < d->ptx->n_files) {
            file = d->ptx->files[in->call_file].path;
            line = in->call_line;
        }
        const char *slash = file ? strrchr(file, '/') : NULL;
        if (file && line)
            snprintf(q->where, q->size, "%s:%u", slash ? slash + 1 : file, line);
        else
            snprintf(q->where, q->size, "%s", "");
        return 1;
    }
    return 0;
}

int lab_decls_instr(const lab_decls *d, const char *kernel, const char *prefix, char *where,
                    size_t where_size)
{
    instr_search q = {prefix, where, where_size};
    if (where_size)
        where[0] = '\0';
    return d ? reach(d, kernel, has_instr, &q) : 0;
}
