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

lab_decls *lab_decls_read(const lab_image *img, char *why, size_t why_size)
{
    char *text = NULL;
    size_t len = 0;
    int arch = 0;
    lab_decls *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(why, why_size, "out of memory reading the lab's PTX");
        return NULL;
    }
    if (lab_image_ptx(img, &text, &len, &arch, why, why_size) != 0 ||
        ptx_parse(text, len, &d->ptx, why, why_size) != 0) {
        free(text);
        free(d);
        return NULL;
    }
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

int lab_decls_calls(const lab_decls *d, const char *kernel, const char *callee)
{
    uint32_t f = ptx_find_func(d->ptx, kernel), n = d->ptx->n_funcs, top = 0, hit = 0;
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
    while (top && !hit) { /* the functions it reaches, through registers too */
        const ptx_func *fn = &d->ptx->funcs[todo[--top]];
        hit = strcmp(fn->name, callee) == 0;
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
