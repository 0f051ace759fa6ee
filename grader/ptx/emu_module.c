/*
 * emu_module.c - a PTX module loaded into an emulated device: its .global
 * and .const variables placed in device memory with their initialisers,
 * its kernels described (parameters, shared memory) and linked when first
 * launched, source lines of their instructions.
 */
#include "emu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONST_BYTES (64u * 1024u)

static int load_err(char *why, size_t why_size, const ptx_var *v, const char *what)
{
    snprintf(why, why_size, "line %u: %s `%s`", v ? v->line : 0, what, v ? v->name : "?");
    return -1;
}

/* Address an initialiser stores for variable t (generic() or plain, both the device address). */
static int reloc_value(const ptx_module *pm, const ptx_reloc *r, uint64_t *out)
{
    const ptx_var *t = &pm->vars[r->var];
    if (t->space != PS_GLOBAL && t->space != PS_CONST)
        return -1; /* the address of a shared or local variable differs per block and thread */
    *out = t->addr + (uint64_t)r->addend;
    return 0;
}

static int place_var(emu_module *m, uint32_t i, uint64_t *const_bytes, char *why, size_t ws)
{
    ptx_var *v = &m->ptx->vars[i];
    if (v->func != PTX_NONE || (v->space != PS_GLOBAL && v->space != PS_CONST))
        return 0;
    if (v->is_extern)
        return load_err(why, ws, v, "the emulator cannot link the extern variable");
    if (v->space == PS_CONST) {
        *const_bytes += v->size;
        if (*const_bytes > MAX_CONST_BYTES)
            return load_err(why, ws, v, "more than 64 KiB of .const variables, at");
    }
    uint8_t kind = v->space == PS_CONST ? EMU_ALLOC_CONST_VAR : EMU_ALLOC_GLOBAL_VAR;
    if (emu_alloc_kind(m->dev, v->size, kind, &v->addr))
        return load_err(why, ws, v, "no device memory for the variable");
    m->var_alloc[i] = v->addr;
    if (v->init && emu_write(m->dev, v->addr, v->init, v->size))
        return load_err(why, ws, v, "cannot initialise");
    return 0;
}

static int apply_relocs(emu_module *m, uint32_t i, char *why, size_t ws)
{
    ptx_var *v = &m->ptx->vars[i];
    for (uint32_t k = 0; k < v->n_relocs; k++) {
        const ptx_reloc *r = &v->relocs[k];
        uint64_t value;
        if (r->offset + r->size > v->size || reloc_value(m->ptx, r, &value))
            return load_err(why, ws, v, "an initialiser holds an address the emulator cannot "
                                        "resolve, in");
        if (emu_write(m->dev, v->addr + r->offset, &value, r->size))
            return load_err(why, ws, v, "cannot initialise");
    }
    return 0;
}

static int list_kernels(emu_module *m)
{
    const ptx_module *pm = m->ptx;
    m->kernel_func = malloc((pm->n_funcs + 1) * sizeof(uint32_t));
    m->progs = calloc(pm->n_funcs + 1, sizeof(emu_program *));
    if (!m->kernel_func || !m->progs)
        return -1;
    for (uint32_t f = 0; f < pm->n_funcs; f++)
        if (pm->funcs[f].is_entry && pm->funcs[f].has_body)
            m->kernel_func[m->n_kernels++] = f;
    return 0;
}

int emu_module_load(emu_device *d, const char *ptx, size_t len, emu_module **out, char *why,
                    size_t why_size)
{
    *out = NULL;
    emu_module *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    m->dev = d;
    if (ptx_parse(ptx, len, &m->ptx, why, why_size)) {
        free(m);
        return -1;
    }
    m->var_alloc = calloc(m->ptx->n_vars + 1, sizeof(uint64_t));
    if (!m->var_alloc || list_kernels(m)) {
        snprintf(why, why_size, "out of memory");
        emu_module_unload(m);
        return -1;
    }
    uint64_t const_bytes = 0;
    for (uint32_t i = 0; i < m->ptx->n_vars; i++)
        if (place_var(m, i, &const_bytes, why, why_size)) {
            emu_module_unload(m);
            return -1;
        }
    for (uint32_t i = 0; i < m->ptx->n_vars; i++)
        if (m->var_alloc[i] && apply_relocs(m, i, why, why_size)) {
            emu_module_unload(m);
            return -1;
        }
    *out = m;
    return 0;
}

void emu_module_unload(emu_module *m)
{
    if (!m)
        return;
    if (m->ptx && m->var_alloc)
        for (uint32_t i = 0; i < m->ptx->n_vars; i++)
            if (m->var_alloc[i])
                emu_free(m->dev, m->var_alloc[i]);
    if (m->progs)
        for (uint32_t k = 0; k < m->n_kernels; k++)
            emu_program_free(m->progs[k]);
    free(m->progs);
    free(m->kernel_func);
    free(m->var_alloc);
    free(m->fixes);
    ptx_free(m->ptx);
    free(m);
}

int emu_kernel_count(const emu_module *m)
{
    return (int)m->n_kernels;
}

int emu_kernel_find(const emu_module *m, const char *name)
{
    for (uint32_t k = 0; k < m->n_kernels; k++)
        if (strcmp(m->ptx->funcs[m->kernel_func[k]].name, name) == 0)
            return (int)k;
    return -1;
}

int emu_kernel_describe(const emu_module *m, int k, emu_kernel_info *out)
{
    if (k < 0 || (uint32_t)k >= m->n_kernels)
        return -1;
    const ptx_func *f = &m->ptx->funcs[m->kernel_func[k]];
    if (f->n_params > EMU_MAX_PARAMS)
        return -1;
    memset(out, 0, sizeof *out);
    out->name = f->name;
    out->n_params = (int)f->n_params;
    for (uint32_t i = 0; i < f->n_params; i++) {
        const ptx_var *v = &m->ptx->vars[f->params[i]];
        out->param_offset[i] = (uint32_t)v->addr;
        out->param_size[i] = (uint32_t)v->size;
    }
    out->param_bytes = f->param_bytes;
    emu_shared_of(m->ptx, m->kernel_func[k], &out->static_shared, &out->dynamic_shared);
    return 0;
}

int emu_kernel_newer(const emu_module *m, int k, int sm, emu_newer *out)
{
    if (k < 0 || (uint32_t)k >= m->n_kernels)
        return -1;
    return emu_newer_in(m->ptx, m->kernel_func[k], sm, out);
}

int emu_module_symbol(const emu_module *m, const char *name, uint64_t *addr, uint64_t *size,
                      emu_space *space)
{
    uint32_t v = ptx_find_var(m->ptx, name);
    if (v == PTX_NONE || !m->var_alloc[v])
        return -1;
    const ptx_var *var = &m->ptx->vars[v];
    *addr = var->addr;
    *size = var->size;
    *space = var->space == PS_CONST ? EMU_SPACE_CONST : EMU_SPACE_GLOBAL;
    return 0;
}

/* The instruction at pc of kernel k (its program linked where it is not yet), or NULL. */
static const ptx_instr *instr_at(const emu_module *m, int k, uint64_t pc, emu_program **prog)
{
    if (k < 0 || (uint32_t)k >= m->n_kernels || pc % 16)
        return NULL;
    emu_program **slot = &((emu_module *)m)->progs[k];
    char why[128];
    if (!*slot && emu_link(m->ptx, m->kernel_func[k], m->fixes, m->n_fixes, slot, why, sizeof why,
                            NULL))
        return NULL;
    if (pc / 16 >= (*slot)->n_code)
        return NULL;
    *prog = *slot;
    return &(*slot)->code[pc / 16];
}

int emu_line(const emu_module *m, int k, uint64_t pc, const char **file, int *line)
{
    emu_program *p = NULL;
    const ptx_instr *in = instr_at(m, k, pc, &p);
    *file = NULL;
    *line = 0;
    if (!in)
        return -1;
    emu_where(p, in, file, line);
    return *line > 0 ? 0 : -1;
}

int emu_student_line(const emu_module *m, int k, uint64_t pc, const char **file, int *line)
{
    emu_program *p = NULL;
    const ptx_instr *in = instr_at(m, k, pc, &p);
    *file = NULL;
    *line = 0;
    if (!in)
        return -1;
    emu_student_where(p, in, file, line);
    return *line > 0 ? 0 : -1;
}

/* --- accesses and what ptxas did to them -------------------------------------------- */

int emu_function_count(const emu_module *m)
{
    return (int)m->ptx->n_funcs;
}

const char *emu_function_name(const emu_module *m, int f)
{
    return f >= 0 && (uint32_t)f < m->ptx->n_funcs ? m->ptx->funcs[f].name : NULL;
}

/* The kind of a shared access instruction, and which operand is its address; -1: none. */
static int access_kind(const ptx_instr *in, int *addr)
{
    if (in->space != PS_SHARED)
        return -1;
    switch (in->op) {
    case OP_LD: case OP_LDU: *addr = in->vec; return EMU_ACC_LOAD;
    case OP_ST: *addr = 0; return EMU_ACC_STORE;
    case OP_ATOM: *addr = 1; return EMU_ACC_ATOMIC;
    case OP_RED: *addr = 0; return EMU_ACC_ATOMIC;
    case OP_CP_ASYNC: *addr = 0; return in->mod == PM_NONE ? EMU_ACC_ASYNC : -1;
    case OP_LDMATRIX: *addr = in->vec; return EMU_ACC_MATRIX_LOAD;
    case OP_STMATRIX: *addr = 0; return EMU_ACC_MATRIX_STORE;
    default: return -1;
    }
}

static int access_width(const ptx_instr *in, int kind)
{
    int size = ptx_type_size((ptx_type)in->type);
    if (kind == EMU_ACC_MATRIX_LOAD || kind == EMU_ACC_MATRIX_STORE)
        return 16;
    return kind == EMU_ACC_LOAD || kind == EMU_ACC_STORE ? size * in->vec : size;
}

int emu_function_accesses(const emu_module *m, int f, emu_access_info **out, int *n)
{
    *out = NULL;
    *n = 0;
    if (f < 0 || (uint32_t)f >= m->ptx->n_funcs)
        return -1;
    const ptx_func *fn = &m->ptx->funcs[f];
    emu_access_info *a = malloc((fn->n_code + 1) * sizeof *a);
    if (!a)
        return -1;
    for (uint32_t i = 0; i < fn->n_code; i++) {
        const ptx_instr *in = &fn->code[i];
        int k, addr = 0;
        if ((in->flags & PF_UNSUPPORTED) || (k = access_kind(in, &addr)) < 0 ||
            addr >= in->nops || in->o[addr].kind != PO_ADDR)
            continue;
        const ptx_operand *o = &in->o[addr];
        emu_access_info *x = &a[(*n)++];
        x->instr = i;
        x->kind = (uint8_t)k;
        x->width = (uint8_t)access_width(in, k);
        x->base = o->r != PTX_NONE ? o->r : o->sym != PTX_NONE ? 0x80000000u | o->sym : UINT32_MAX;
        x->imm = o->imm;
        x->file = in->file != PTX_NONE && in->file < m->ptx->n_files ? m->ptx->files[in->file].path
                                                                      : NULL;
        x->line = (int)in->line;
    }
    *out = a;
    return 0;
}

int emu_module_fix_accesses(emu_module *m, const emu_access_fix *fixes, int n)
{
    emu_access_fix *copy = malloc(((size_t)n + 1) * sizeof *copy);
    if (!copy || n < 0) {
        free(copy);
        return -1;
    }
    memcpy(copy, fixes, (size_t)n * sizeof *copy);
    free(m->fixes);
    m->fixes = copy;
    m->n_fixes = n;
    return 0;
}
