/*
 * ptx_parse.c - PTX tokens to a module: directives, module variables with
 * their initialisers, kernels and device functions with their parameters,
 * register declarations and scopes. Instructions are decoded by
 * ptx_decode.c, the names they use looked up by ptx_names.c, control flow
 * analysed by ptx_cfg.c.
 */
#include "ptx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Skip the rest of the line of token t (directives such as .loc end at the line's end). */
static void skip_line(ptx_parser *p, uint32_t line)
{
    while (ptx_peek(p)->kind != TK_EOF && ptx_peek(p)->line == line)
        ptx_next(p);
}

static int expect_int(ptx_parser *p, uint64_t max, uint64_t *v, const char *what)
{
    const ptx_tok *t = ptx_peek(p);
    *v = 0;
    if (t->kind != TK_INT || t->u > max)
        return ptx_err(p, p->pos, "expected %s", what);
    *v = t->u;
    ptx_next(p);
    return 0;
}

static uint32_t align_up32(uint32_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

/* --- module-level directives ------------------------------------------------- */

static int parse_version(ptx_parser *p)
{
    const ptx_tok *t = ptx_peek(p);
    if (t->kind != TK_FLOAT && t->kind != TK_INT)
        return ptx_err(p, p->pos, "expected a version number after .version");
    unsigned major = 0, minor = 0;
    const char *s = p->text + t->start;
    uint32_t i = 0;
    for (; i < t->len && s[i] >= '0' && s[i] <= '9' && major < 1000; i++)
        major = major * 10 + (unsigned)(s[i] - '0');
    if (i < t->len && s[i] == '.')
        for (i++; i < t->len && s[i] >= '0' && s[i] <= '9' && minor < 1000; i++)
            minor = minor * 10 + (unsigned)(s[i] - '0');
    p->m->version_major = major;
    p->m->version_minor = minor;
    skip_line(p, t->line);
    return 0;
}

static int parse_address_size(ptx_parser *p)
{
    uint64_t v;
    if (expect_int(p, 1024, &v, "an address size"))
        return -1;
    if (v != 64)
        return ptx_err(p, p->pos - 1, ".address_size %u: the emulator reads 64-bit PTX only",
                       (unsigned)v);
    return 0;
}

static int parse_file(ptx_parser *p)
{
    uint32_t line = p->toks[p->pos - 1].line;
    uint64_t num;
    if (expect_int(p, UINT32_MAX - 1, &num, "a file number after .file"))
        return -1;
    const ptx_tok *t = ptx_peek(p);
    if (t->kind != TK_STRING)
        return ptx_err(p, p->pos, "expected a file name after .file %u", (unsigned)num);
    /* the string without its quotes; escapes are kept as written */
    char *path = ptx_arena_str(p->arena, p->text + t->start + 1, t->len - 2);
    if (!path || ptx_grow(&p->m->files, &p->file_cap, p->m->n_files, sizeof(ptx_file)))
        return ptx_err(p, p->pos, "out of memory");
    p->m->files[p->m->n_files++] = (ptx_file){(uint32_t)num, path};
    ptx_next(p);
    skip_line(p, line);
    return 0;
}

/* .section name { ... }: debug sections, skipped whole. */
static int skip_section(ptx_parser *p)
{
    size_t start = p->pos;
    while (ptx_peek(p)->kind != TK_LBRACE) {
        if (ptx_peek(p)->kind == TK_EOF)
            return ptx_err(p, start, ".section without a body");
        ptx_next(p);
    }
    int depth = 0;
    do {
        const ptx_tok *t = ptx_next(p);
        if (t->kind == TK_EOF)
            return ptx_err(p, start, ".section never ends");
        depth += t->kind == TK_LBRACE;
        depth -= t->kind == TK_RBRACE;
    } while (depth > 0);
    return 0;
}

static int skip_pragma(ptx_parser *p)
{
    while (ptx_peek(p)->kind != TK_SEMI) {
        if (ptx_peek(p)->kind == TK_EOF)
            return ptx_err(p, p->pos, ".pragma without ';'");
        ptx_next(p);
    }
    ptx_next(p);
    return 0;
}

/* --- variables ------------------------------------------------------------------- */

static int space_of(const ptx_parser *p, const ptx_tok *t, ptx_space *s)
{
    static const struct {
        const char *name;
        ptx_space space;
    } spaces[] = {{".global", PS_GLOBAL}, {".const", PS_CONST}, {".shared", PS_SHARED},
                  {".shared::cta", PS_SHARED}, {".local", PS_LOCAL}, {".param", PS_PARAM}};
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
        if (ptx_tok_is(p, t, spaces[i].name)) {
            *s = spaces[i].space;
            return 1;
        }
    return 0;
}

/* Attributes of a declaration: .align N, .vN, .ptr, the type. */
typedef struct decl_attrs {
    ptx_type type;
    uint32_t align, vec;
} decl_attrs;

static int parse_attrs(ptx_parser *p, decl_attrs *a)
{
    *a = (decl_attrs){PT_NONE, 0, 1};
    for (;;) {
        const ptx_tok *t = ptx_peek(p);
        if (t->kind != TK_DIR)
            break;
        ptx_space ignored;
        if (ptx_tok_is(p, t, ".align")) {
            ptx_next(p);
            uint64_t v;
            if (expect_int(p, 1u << 16, &v, "an alignment after .align"))
                return -1;
            if (v == 0 || (v & (v - 1)))
                return ptx_err(p, p->pos - 1, "alignment %u is not a power of 2", (unsigned)v);
            a->align = (uint32_t)v;
        } else if (ptx_tok_is(p, t, ".v2") || ptx_tok_is(p, t, ".v4") ||
                   ptx_tok_is(p, t, ".v8")) {
            a->vec = (uint32_t)(p->text[t->start + 2] - '0');
            ptx_next(p);
        } else if (ptx_tok_is(p, t, ".ptr") || space_of(p, t, &ignored)) {
            ptx_next(p); /* .param .u64 .ptr .global .align 8: attributes of the pointee */
        } else {
            ptx_type ty = ptx_type_parse(p->text + t->start + 1, t->len - 1);
            if (ty == PT_NONE)
                break;
            a->type = ty;
            ptx_next(p);
        }
    }
    if (a->type == PT_NONE)
        return ptx_err(p, p->pos, "a declaration without a type");
    if (a->type == PT_PRED)
        return ptx_err(p, p->pos, "a .pred variable outside registers");
    return 0;
}

/* [N][M]...: the element count; unsized: [] first (only where allowed). */
static int parse_dims(ptx_parser *p, uint64_t *count, int *unsized)
{
    *count = 1;
    *unsized = 0;
    int first = 1;
    while (ptx_peek(p)->kind == TK_LBRACK) {
        ptx_next(p);
        if (ptx_peek(p)->kind == TK_RBRACK && first) {
            *unsized = 1;
        } else {
            uint64_t n;
            if (expect_int(p, PTX_MAX_VAR_BYTES, &n, "an array size"))
                return -1;
            if (n && *count > PTX_MAX_VAR_BYTES / n)
                return ptx_err(p, p->pos - 1, "an array larger than 4 GiB");
            *count *= n;
        }
        if (ptx_expect(p, TK_RBRACK, "after an array size"))
            return -1;
        first = 0;
    }
    return 0;
}

static int new_var(ptx_parser *p, uint32_t *index)
{
    if (ptx_grow(&p->m->vars, &p->var_cap, p->m->n_vars, sizeof(ptx_var)))
        return ptx_err(p, p->pos, "out of memory");
    *index = p->m->n_vars++;
    return 0;
}

/* One initialiser item: its bits for the element type, or an address (reloc). */
typedef struct init_item {
    uint64_t bits;
    uint32_t var;   /* PTX_NONE: a number */
    uint8_t generic;
    int64_t addend;
} init_item;

static int parse_init_item(ptx_parser *p, ptx_type ty, init_item *it)
{
    *it = (init_item){0, PTX_NONE, 0, 0};
    int neg = 0;
    if (ptx_peek(p)->kind == TK_MINUS) {
        neg = 1;
        ptx_next(p);
    }
    const ptx_tok *t = ptx_peek(p);
    if (t->kind == TK_INT || t->kind == TK_FLOAT) {
        if (ptx_imm_bits(p, t, neg, ty, &it->bits))
            return -1;
        ptx_next(p);
        return 0;
    }
    if (t->kind != TK_IDENT || neg)
        return ptx_err(p, p->pos, "expected a number or a variable in an initialiser");
    int paren = 0;
    if (ptx_tok_is(p, t, "generic")) {
        it->generic = 1;
        ptx_next(p);
        if (ptx_expect(p, TK_LPAREN, "after generic"))
            return -1;
        paren = 1;
        t = ptx_peek(p);
        if (t->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a variable in generic()");
    }
    it->var = ptx_map_get(&p->mvars, p->text + t->start, t->len);
    uint32_t fi = it->var == PTX_NONE && !paren ? ptx_map_get(&p->funcs, p->text + t->start, t->len)
                                                : PTX_NONE;
    if (fi != PTX_NONE) { /* a table of function pointers */
        p->m->funcs[fi].addr_taken = 1;
        it->bits = PTX_CODE_BASE + 16 * (uint64_t)fi;
        ptx_next(p);
        return 0;
    }
    if (it->var == PTX_NONE)
        return ptx_err(p, p->pos, "unknown variable or function in an initialiser");
    ptx_next(p);
    if (paren && ptx_expect(p, TK_RPAREN, "after generic(name"))
        return -1;
    if (ptx_peek(p)->kind == TK_PLUS || ptx_peek(p)->kind == TK_MINUS) {
        int minus = ptx_next(p)->kind == TK_MINUS;
        uint64_t v;
        if (expect_int(p, INT64_MAX, &v, "an offset"))
            return -1;
        it->addend = minus ? -(int64_t)v : (int64_t)v;
    }
    return 0;
}

/* Items of = { ... } (nested braces flattened) or = item. */
static int parse_init_items(ptx_parser *p, ptx_type ty, uint64_t max, init_item **items,
                            uint32_t *n)
{
    uint32_t cap = 0;
    int depth = 0;
    *items = NULL;
    *n = 0;
    do {
        const ptx_tok *t = ptx_peek(p);
        if (t->kind == TK_LBRACE) {
            if (++depth > PTX_MAX_DEPTH)
                return ptx_err(p, p->pos, "initialiser nested too deep");
            ptx_next(p);
            continue;
        }
        if (t->kind == TK_RBRACE && depth > 0) {
            depth--;
            ptx_next(p);
        } else {
            if (*n >= max)
                return ptx_err(p, p->pos, "more initialisers than the variable holds");
            if (ptx_grow(items, &cap, *n, sizeof(init_item)))
                return ptx_err(p, p->pos, "out of memory");
            if (parse_init_item(p, ty, &(*items)[*n]))
                return -1;
            (*n)++;
        }
        if (depth > 0 && ptx_peek(p)->kind == TK_COMMA)
            ptx_next(p);
    } while (depth > 0);
    return 0;
}

static int set_init(ptx_parser *p, ptx_var *v, const init_item *items, uint32_t n)
{
    uint32_t es = (uint32_t)ptx_type_size(v->type);
    v->init = calloc(1, v->size ? v->size : 1);
    if (!v->init)
        return ptx_err(p, p->pos, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = (uint64_t)i * es;
        if (items[i].var == PTX_NONE) {
            memcpy(v->init + off, &items[i].bits, es); /* little-endian, as the GPU */
            continue;
        }
        if (es != 4 && es != 8)
            return ptx_err(p, p->pos, "an address in an initialiser of %u-byte elements", es);
        ptx_reloc *r = realloc(v->relocs, (v->n_relocs + 1) * sizeof *r);
        if (!r)
            return ptx_err(p, p->pos, "out of memory");
        v->relocs = r;
        r[v->n_relocs++] = (ptx_reloc){off, items[i].var, (uint8_t)es, items[i].generic,
                                       items[i].addend};
    }
    return 0;
}

static int parse_initialiser(ptx_parser *p, ptx_var *v)
{
    uint32_t es = (uint32_t)ptx_type_size(v->type);
    if (es == 0 || es > 8)
        return ptx_err(p, p->pos, "an initialiser for a .%s variable", ptx_type_name(v->type));
    uint64_t max = v->unsized ? PTX_MAX_INIT_BYTES / es : v->size / es;
    if (!v->unsized && v->size > PTX_MAX_INIT_BYTES)
        return ptx_err(p, p->pos, "an initialised variable larger than 16 MiB");
    init_item *items;
    uint32_t n;
    if (parse_init_items(p, (ptx_type)v->type, max, &items, &n)) {
        free(items);
        return -1;
    }
    if (v->unsized) {
        v->size = (uint64_t)n * es;
        v->unsized = 0;
    }
    int rc = set_init(p, v, items, n);
    free(items);
    return rc;
}

/* Place a variable declared in a function body in that function's frame. */
static int frame_place(ptx_parser *p, ptx_var *v)
{
    uint32_t a = v->align ? v->align : 1;
    uint64_t off = align_up32(p->frame, a);
    if (off + v->size > (1u << 30))
        return ptx_err(p, p->pos, "more than 1 GiB of .local and .param variables");
    v->addr = off;
    p->frame = (uint32_t)(off + v->size);
    if (a > p->frame_align)
        p->frame_align = a;
    return 0;
}

static int declare_in_scope(ptx_parser *p, const ptx_tok *name, uint8_t what, uint32_t index);

/* A variable declaration after its space: module scope (func PTX_NONE) or a body. */
static int parse_var_decl(ptx_parser *p, ptx_space space, int is_extern, uint32_t func)
{
    decl_attrs a;
    if (parse_attrs(p, &a))
        return -1;
    for (;;) {
        const ptx_tok *nt = ptx_peek(p);
        if (nt->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a variable name");
        size_t name_tok = p->pos;
        ptx_next(p);
        uint64_t count;
        int unsized;
        if (parse_dims(p, &count, &unsized))
            return -1;
        uint64_t es = (uint64_t)ptx_type_size(a.type) * a.vec;
        if (count > PTX_MAX_VAR_BYTES / (es ? es : 1))
            return ptx_err(p, name_tok, "a variable larger than 4 GiB");
        uint32_t vi;
        if (new_var(p, &vi))
            return -1;
        ptx_var *v = &p->m->vars[vi];
        memset(v, 0, sizeof *v);
        v->name = ptx_arena_str(p->arena, p->text + nt->start, nt->len);
        v->space = (uint8_t)space;
        v->type = (uint8_t)a.type;
        v->is_extern = (uint8_t)is_extern;
        v->unsized = (uint8_t)unsized;
        v->align = a.align ? a.align : (uint32_t)(es ? es : 1);
        v->func = func;
        v->line = nt->line;
        v->size = count * es;
        if (!v->name)
            return ptx_err(p, name_tok, "out of memory");
        if (ptx_peek(p)->kind == TK_EQ) {
            ptx_next(p);
            if (space != PS_GLOBAL && space != PS_CONST)
                return ptx_err(p, name_tok, "only .global and .const variables have initialisers");
            if (a.vec > 1)
                return ptx_err(p, name_tok, "an initialiser for a vector variable");
            if (parse_initialiser(p, &p->m->vars[vi]))
                return -1;
        }
        v = &p->m->vars[vi];
        if (v->unsized && !(space == PS_SHARED && is_extern))
            return ptx_err(p, name_tok, "an array without a size");
        if (func == PTX_NONE) {
            uint32_t old;
            if (ptx_map_put(&p->mvars, p->arena, v->name, nt->len, vi, &old))
                return ptx_err(p, name_tok, "out of memory");
        } else {
            if (space == PS_LOCAL || space == PS_PARAM)
                if (frame_place(p, v))
                    return -1;
            if (declare_in_scope(p, nt, SE_VAR, vi))
                return -1;
        }
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
    }
    return ptx_expect(p, TK_SEMI, "after a variable declaration");
}

/* --- scopes, registers, names in a body ------------------------------------------ */

static int declare_in_scope(ptx_parser *p, const ptx_tok *name, uint8_t what, uint32_t index)
{
    if (ptx_grow(&p->scope, &p->scope_cap, p->n_scope, sizeof(scope_entry)))
        return ptx_err(p, p->pos, "out of memory");
    uint32_t old;
    uint32_t se = p->n_scope;
    if (ptx_map_put(&p->names, p->arena, p->text + name->start, name->len, se, &old))
        return ptx_err(p, p->pos, "out of memory");
    const char *key = p->text + name->start;
    p->scope[p->n_scope++] = (scope_entry){what, index, old, key, name->len};
    return 0;
}

static int scope_push(ptx_parser *p)
{
    if (p->depth >= PTX_MAX_DEPTH)
        return ptx_err(p, p->pos, "blocks nested more than %d deep", PTX_MAX_DEPTH);
    p->scope_mark[++p->depth] = p->n_scope;
    return 0;
}

static int scope_pop(ptx_parser *p)
{
    uint32_t mark = p->scope_mark[p->depth--];
    while (p->n_scope > mark) {
        scope_entry *e = &p->scope[--p->n_scope];
        if (ptx_map_put(&p->names, p->arena, e->name, e->name_len, e->prev, NULL))
            return ptx_err(p, p->pos, "out of memory");
    }
    return 0;
}

static int new_reg_decl(ptx_parser *p, const ptx_tok *name, ptx_type ty, int range,
                        uint32_t count)
{
    if (ptx_grow(&p->regs, &p->regs_cap, p->n_regs, sizeof(reg_decl)))
        return ptx_err(p, p->pos, "out of memory");
    uint32_t ri = p->n_regs++;
    p->regs[ri] = (reg_decl){(uint8_t)ty, (uint8_t)range, count, PTX_NONE, name->len,
                             p->text + name->start, PTX_NONE};
    return declare_in_scope(p, name, SE_REG, ri);
}

/* .reg .type %r<N>, %a, %b; */
static int parse_reg_decl(ptx_parser *p)
{
    decl_attrs a;
    if (ptx_peek(p)->kind == TK_DIR && ptx_tok_is(p, ptx_peek(p), ".pred")) {
        ptx_next(p);
        a = (decl_attrs){PT_PRED, 0, 1};
    } else if (parse_attrs(p, &a)) {
        return -1;
    }
    if (a.vec > 1)
        return ptx_err(p, p->pos, "vector registers are not supported");
    if (a.type == PT_B128 || ptx_type_size(a.type) > 8)
        return ptx_err(p, p->pos, ".%s registers are not supported", ptx_type_name(a.type));
    for (;;) {
        const ptx_tok *nt = ptx_peek(p);
        if (nt->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a register name");
        ptx_next(p);
        if (ptx_peek(p)->kind == TK_LT) {
            ptx_next(p);
            uint64_t n;
            if (expect_int(p, UINT32_MAX, &n, "a register count"))
                return -1;
            if (ptx_expect(p, TK_GT, "after a register count"))
                return -1;
            if (new_reg_decl(p, nt, a.type, 1, (uint32_t)n))
                return -1;
        } else if (new_reg_decl(p, nt, a.type, 0, 1)) {
            return -1;
        }
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
    }
    return ptx_expect(p, TK_SEMI, "after a register declaration");
}

/* --- function bodies ---------------------------------------------------------------- */

/* The next token as a number on this line (col of a .loc), or 0 where there is none. */
static uint32_t loc_number(ptx_parser *p, uint32_t line)
{
    const ptx_tok *t = ptx_peek(p);
    if (t->kind != TK_INT || t->line != line || t->u >= UINT32_MAX)
        return 0;
    ptx_next(p);
    return (uint32_t)t->u;
}

/* Where an inlined .loc's code was called from, as the student reads it: out from
   (*file, *line, col), the place it was inlined at, through the places those were inlined
   at, to the first in the function's own file (cooperative groups' sync():
   sm_30_intrinsics.hpp in helpers.h in cooperative_groups.h in lab7.cu:120; a shuffle in
   the student's own warp_sum(): the line in warp_sum, not its caller's), as far as the
   function's .loc lines have said (ptx_parser.chain). */
static const struct loc_link *link_of(const ptx_parser *p, uint32_t file, uint32_t line,
                                      uint32_t col)
{
    for (uint32_t i = 0; i < p->n_chain; i++)
        if (p->chain[i].file == file && p->chain[i].line == line && p->chain[i].col == col)
            return &p->chain[i];
    return NULL;
}

static void student_call(const ptx_parser *p, uint32_t *file, uint32_t *line, uint32_t *col)
{
    for (uint32_t step = 0; step < p->n_chain && *file != p->func_file; step++) {
        const struct loc_link *up = link_of(p, *file, *line, *col);
        if (!up)
            return;
        *file = up->in_file, *line = up->in_line, *col = up->in_col;
    }
}

/* A place's inlined_at, the latest for it kept (the oldest place goes when full). */
static void remember_link(ptx_parser *p, const struct loc_link *link)
{
    for (uint32_t i = 0; i < p->n_chain; i++)
        if (p->chain[i].file == link->file && p->chain[i].line == link->line &&
            p->chain[i].col == link->col) {
            p->chain[i] = *link;
            return;
        }
    if (p->n_chain == PTX_LOC_CHAIN) {
        memmove(p->chain, p->chain + 1, (PTX_LOC_CHAIN - 1) * sizeof *p->chain);
        p->n_chain--;
    }
    p->chain[p->n_chain++] = *link;
}

/* .loc file line col[, function_name ..., inlined_at file line col]: the first triple
   is the instruction's own line (the innermost one when code was inlined), the one
   after inlined_at the line it was inlined at, followed out to the function's own file
   (student_call: a student's call of a header's function). */
static int parse_loc(ptx_parser *p)
{
    uint32_t line = p->toks[p->pos - 1].line;
    uint64_t file, l;
    if (expect_int(p, UINT32_MAX, &file, "a file number after .loc") ||
        expect_int(p, UINT32_MAX, &l, "a line number after .loc"))
        return -1;
    p->cur_file = (uint32_t)file; /* a number until the module's end: .file may come later */
    p->cur_line = (uint32_t)l;
    if (p->func_file == PTX_NONE)
        p->func_file = (uint32_t)file;
    p->cur_call_file = PTX_NONE;
    p->cur_call_line = 0;
    p->cur_caller_line = 0;
    struct loc_link link = {(uint32_t)file, (uint32_t)l, loc_number(p, line), PTX_NONE, 0, 0};
    while (ptx_peek(p)->kind != TK_EOF && ptx_peek(p)->line == line) {
        const ptx_tok *t = ptx_peek(p);
        ptx_next(p);
        if (t->kind != TK_IDENT || !ptx_tok_is(p, t, "inlined_at"))
            continue;
        const ptx_tok *cf = ptx_peek(p), *cl = ptx_peek_at(p, 1); /* a malformed one names no line */
        if (cf->kind == TK_INT && cf->line == line && cl->kind == TK_INT && cl->line == line &&
            cf->u < UINT32_MAX && cl->u < UINT32_MAX) {
            link.in_file = (uint32_t)cf->u;
            link.in_line = (uint32_t)cl->u;
            ptx_next(p), ptx_next(p);
            link.in_col = loc_number(p, line);
        }
    }
    if (link.in_file != PTX_NONE) {
        remember_link(p, &link);
        uint32_t col = link.in_col;
        p->cur_call_file = link.in_file;
        p->cur_call_line = link.in_line;
        student_call(p, &p->cur_call_file, &p->cur_call_line, &col);
        /* a header's function the student called in a helper of their own: the helper's
           caller too, where the if around the call may be (the helper's own code names
           its caller through call_line already) */
        const struct loc_link *up = link.file != p->func_file
                                        ? link_of(p, p->cur_call_file, p->cur_call_line, col)
                                        : NULL;
        if (up && up->in_file == p->cur_call_file && up->in_line != p->cur_call_line)
            p->cur_caller_line = up->in_line;
    }
    return 0;
}

static int add_label(ptx_parser *p, const ptx_tok *name)
{
    uint32_t old;
    if (ptx_map_put(&p->labels, p->arena, p->text + name->start, name->len, p->f->n_code, &old))
        return ptx_err(p, p->pos, "out of memory");
    if (old != PTX_NONE)
        return ptx_err(p, p->pos - 1, "label defined twice");
    return 0;
}

/* name: .branchtargets L1, L2, ...; */
static int parse_branchtargets(ptx_parser *p, const ptx_tok *name)
{
    ptx_func *f = p->f;
    if (ptx_grow(&f->tables, &p->table_cap, f->n_tables, sizeof(ptx_table)))
        return ptx_err(p, p->pos, "out of memory");
    uint32_t ti = f->n_tables++;
    f->tables[ti] = (ptx_table){0, NULL};
    uint32_t old;
    if (ptx_map_put(&p->labels, p->arena, p->text + name->start, name->len, 0x80000000u | ti,
                    &old))
        return ptx_err(p, p->pos, "out of memory");
    if (old != PTX_NONE)
        return ptx_err(p, p->pos, "label defined twice");
    uint32_t cap = 0;
    for (;;) {
        if (ptx_peek(p)->kind != TK_IDENT)
            return ptx_err(p, p->pos, "expected a label in .branchtargets");
        ptx_table *t = &f->tables[ti];
        if (ptx_grow(&t->targets, &cap, t->n, sizeof(uint32_t)) ||
            ptx_grow(&p->fixes, &p->fixes_cap, p->n_fixes, sizeof(label_fix)))
            return ptx_err(p, p->pos, "out of memory");
        t->targets[t->n] = PTX_NONE;
        p->fixes[p->n_fixes++] = (label_fix){0, 0xff, ti, t->n, (uint32_t)p->pos};
        t->n++;
        ptx_next(p);
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
    }
    return ptx_expect(p, TK_SEMI, "after .branchtargets");
}

static int parse_statement_instr(ptx_parser *p)
{
    ptx_func *f = p->f;
    if (ptx_grow(&f->code, &p->code_cap, f->n_code, sizeof(ptx_instr)))
        return ptx_err(p, p->pos, "out of memory");
    ptx_instr *in = &f->code[f->n_code];
    memset(in, 0, sizeof *in);
    in->guard = PTX_NONE;
    in->line = p->cur_line;
    in->file = p->cur_file;
    in->call_line = p->cur_call_line;
    in->call_file = p->cur_call_file;
    in->caller_line = p->cur_caller_line;
    if (ptx_peek(p)->kind == TK_AT) {
        ptx_next(p);
        if (ptx_peek(p)->kind == TK_BANG) {
            in->guard_neg = 1;
            ptx_next(p);
        }
        const ptx_tok *g = ptx_peek(p);
        uint32_t slot;
        ptx_type ty;
        if (g->kind != TK_IDENT || ptx_lookup_reg(p, p->text + g->start, g->len, &slot, &ty) ||
            ty != PT_PRED)
            return ptx_err(p, p->pos, "expected a predicate after @");
        in->guard = slot;
        ptx_next(p);
    }
    if (ptx_decode_instr(p, in))
        return -1;
    f->n_code++;
    return 0;
}

/* Declarations inside a body: .reg, .local, .shared, .param (call sites). */
static int parse_body_decl(ptx_parser *p, const ptx_tok *t, int *done)
{
    ptx_space sp;
    *done = 1;
    if (ptx_tok_is(p, t, ".reg")) {
        ptx_next(p);
        return parse_reg_decl(p);
    }
    if (ptx_tok_is(p, t, ".loc")) {
        ptx_next(p);
        return parse_loc(p);
    }
    if (ptx_tok_is(p, t, ".pragma")) {
        ptx_next(p);
        return skip_pragma(p);
    }
    if (space_of(p, t, &sp)) {
        ptx_next(p);
        if (sp == PS_GLOBAL || sp == PS_CONST)
            return ptx_err(p, p->pos - 1, "a .%s variable inside a function", ptx_space_name(sp));
        return parse_var_decl(p, sp, 0, p->fi);
    }
    *done = 0;
    return 0;
}

static int parse_body_stmt(ptx_parser *p)
{
    const ptx_tok *t = ptx_peek(p);
    switch (t->kind) {
    case TK_LBRACE:
        ptx_next(p);
        return scope_push(p);
    case TK_RBRACE:
        ptx_next(p);
        return scope_pop(p);
    case TK_SEMI:
        ptx_next(p);
        return 0;
    case TK_DIR: {
        int done;
        if (parse_body_decl(p, t, &done))
            return -1;
        if (!done)
            return ptx_err(p, p->pos, "unexpected directive in a function body");
        return 0;
    }
    case TK_IDENT:
        if (ptx_peek_at(p, 1)->kind == TK_COLON) {
            ptx_next(p);
            ptx_next(p);
            const ptx_tok *d = ptx_peek(p);
            if (d->kind == TK_DIR && ptx_tok_is(p, d, ".branchtargets")) {
                ptx_next(p);
                return parse_branchtargets(p, t);
            }
            if (d->kind == TK_DIR && ptx_tok_is(p, d, ".callprototype"))
                return skip_pragma(p); /* only indirect calls use it: they fail when run */
            return add_label(p, t);
        }
        return parse_statement_instr(p);
    case TK_AT:
        return parse_statement_instr(p);
    default:
        return ptx_err(p, p->pos, "unexpected token in a function body");
    }
}

static void reset_function_state(ptx_parser *p)
{
    ptx_map_free(&p->names);
    ptx_map_free(&p->labels);
    ptx_imap_free(&p->regslots);
    ptx_imap_free(&p->constslots);
    ptx_imap_free(&p->sregslots);
    ptx_imap_free(&p->usedvars);
    p->n_regs = p->n_scope = p->n_fixes = 0;
    p->depth = 0;
    p->code_cap = p->const_cap = p->sreg_cap = p->call_cap = p->table_cap = p->use_cap = 0;
    p->sink_slot = PTX_NONE;
    p->cur_line = 0;
    p->cur_file = PTX_NONE;
    p->cur_call_line = 0;
    p->cur_call_file = PTX_NONE;
    p->cur_caller_line = 0;
    p->n_chain = 0;
    p->func_file = PTX_NONE;
}

/*
 * A statement of the body that the reader cannot read (an unknown name, a form it does
 * not parse): the function is kept but marked with why and the statement's source line,
 * and the rest of its body is skipped from at (the statement's first token, depth
 * braces open there), so that only the kernels that reach it fail, when they are linked,
 * naming the student's line; the module's other kernels run. -1 only when the body
 * never ends (why then keeps the statement's fault).
 */
static int set_aside(ptx_parser *p, size_t at, uint32_t depth)
{
    ptx_func *f = p->f;
    f->bad = ptx_arena_str(p->arena, p->why, strlen(p->why));
    if (!f->bad)
        return -1; /* why still says what went wrong */
    f->bad_line = p->cur_line;
    f->bad_file = p->cur_file;
    f->bad_call_line = p->cur_call_line;
    f->bad_call_file = p->cur_call_file;
    p->pos = at;
    while (depth > 0) {
        const ptx_tok *t = ptx_peek(p);
        if (t->kind == TK_EOF) /* no body at all: the first fault is the module's */
            return -1;
        depth += t->kind == TK_LBRACE;
        depth -= t->kind == TK_RBRACE;
        ptx_next(p);
    }
    f->has_body = 1;
    p->why[0] = '\0';
    return 0;
}

static int parse_body(ptx_parser *p)
{
    size_t open = p->pos;
    if (ptx_expect(p, TK_LBRACE, "to open a function body"))
        return -1;
    p->depth = 0;
    if (scope_push(p))
        return -1;
    while (p->depth > 0) {
        if (ptx_peek(p)->kind == TK_EOF)
            return ptx_err(p, open, "a function body never ends");
        size_t at = p->pos;
        uint32_t depth = p->depth;
        if (parse_body_stmt(p))
            return set_aside(p, at, depth);
    }
    if (ptx_resolve_labels(p))
        return set_aside(p, p->pos, 0);
    p->f->has_body = 1;
    p->f->frame_bytes = p->frame;
    p->f->frame_align = p->frame_align;
    if (ptx_cfg_build(p->f))
        return ptx_err(p, open, "out of memory");
    return 0;
}

/* --- functions ------------------------------------------------------------------------ */

/* One formal parameter: .param [attrs] type name[dims]. */
static int parse_param(ptx_parser *p, int entry, uint32_t *var)
{
    const ptx_tok *t = ptx_peek(p);
    if (t->kind == TK_DIR && ptx_tok_is(p, t, ".reg"))
        return ptx_err(p, p->pos, "register parameters are not supported");
    if (t->kind != TK_DIR || !ptx_tok_is(p, t, ".param"))
        return ptx_err(p, p->pos, "expected .param");
    ptx_next(p);
    decl_attrs a;
    if (parse_attrs(p, &a))
        return -1;
    const ptx_tok *nt = ptx_peek(p);
    if (nt->kind != TK_IDENT)
        return ptx_err(p, p->pos, "expected a parameter name");
    ptx_next(p);
    uint64_t count;
    int unsized;
    if (parse_dims(p, &count, &unsized))
        return -1;
    uint64_t es = (uint64_t)ptx_type_size(a.type) * a.vec;
    if (unsized || count * es > (1u << 20))
        return ptx_err(p, p->pos - 1, "a parameter without a size, or larger than 1 MiB");
    uint32_t vi;
    if (new_var(p, &vi))
        return -1;
    ptx_var *v = &p->m->vars[vi];
    memset(v, 0, sizeof *v);
    v->name = ptx_arena_str(p->arena, p->text + nt->start, nt->len);
    if (!v->name)
        return ptx_err(p, p->pos, "out of memory");
    v->space = PS_PARAM;
    v->type = (uint8_t)a.type;
    v->align = a.align ? a.align : (uint32_t)(es ? es : 1);
    v->func = p->fi;
    v->line = nt->line;
    v->size = count * es;
    v->kparam = (uint8_t)entry;
    *var = vi;
    return 0;
}

static int parse_param_list(ptx_parser *p, int entry, uint32_t **list, uint32_t *n)
{
    uint32_t cap = 0;
    free(*list);
    *list = NULL;
    *n = 0;
    if (ptx_expect(p, TK_LPAREN, "to open a parameter list"))
        return -1;
    while (ptx_peek(p)->kind != TK_RPAREN) {
        if (*n >= PTX_MAX_PARAM_LIST)
            return ptx_err(p, p->pos, "more than %d parameters", PTX_MAX_PARAM_LIST);
        if (ptx_grow(list, &cap, *n, sizeof(uint32_t)))
            return ptx_err(p, p->pos, "out of memory");
        if (parse_param(p, entry, &(*list)[*n]))
            return -1;
        (*n)++;
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
    }
    return ptx_expect(p, TK_RPAREN, "to close a parameter list");
}

/* Kernel parameters: each at its natural alignment (or .align), as the CUDA ABI lays them. */
static void layout_kernel_params(ptx_parser *p, ptx_func *f)
{
    uint32_t off = 0;
    for (uint32_t i = 0; i < f->n_params; i++) {
        ptx_var *v = &p->m->vars[f->params[i]];
        off = align_up32(off, v->align);
        v->addr = off;
        off += (uint32_t)v->size;
    }
    f->param_bytes = off;
}

/* A .func's parameters and results live in its frame, one copy per thread. */
static int layout_func_params(ptx_parser *p, ptx_func *f)
{
    for (uint32_t i = 0; i < f->n_rets + f->n_params; i++) {
        uint32_t vi = i < f->n_rets ? f->rets[i] : f->params[i - f->n_rets];
        if (frame_place(p, &p->m->vars[vi]))
            return -1;
    }
    return 0;
}

static int parse_dim3(ptx_parser *p, uint32_t out[3])
{
    out[0] = out[1] = out[2] = 1;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        if (expect_int(p, 1u << 30, &v, "a thread count"))
            return -1;
        out[i] = (uint32_t)v;
        if (ptx_peek(p)->kind != TK_COMMA)
            break;
        ptx_next(p);
    }
    return 0;
}

/* .maxntid, .reqntid, .minnctapersm, ... between the parameters and the body. */
static int parse_perf_directives(ptx_parser *p, ptx_func *f)
{
    for (;;) {
        const ptx_tok *t = ptx_peek(p);
        if (t->kind != TK_DIR)
            return 0;
        if (ptx_tok_is(p, t, ".maxntid")) {
            ptx_next(p);
            if (parse_dim3(p, f->maxntid))
                return -1;
        } else if (ptx_tok_is(p, t, ".reqntid")) {
            ptx_next(p);
            if (parse_dim3(p, f->reqntid))
                return -1;
        } else if (ptx_tok_is(p, t, ".pragma")) {
            ptx_next(p);
            if (skip_pragma(p))
                return -1;
        } else if (ptx_tok_is(p, t, ".noreturn") || ptx_tok_is(p, t, ".explicitcluster") ||
                   ptx_tok_is(p, t, ".blocksareclusters")) {
            ptx_next(p);
        } else if (ptx_tok_is(p, t, ".minnctapersm") || ptx_tok_is(p, t, ".maxnctapersm") ||
                   ptx_tok_is(p, t, ".maxnreg") || ptx_tok_is(p, t, ".maxclusterrank") ||
                   ptx_tok_is(p, t, ".reqnctapercluster")) {
            ptx_next(p);
            uint32_t ignored[3];
            if (parse_dim3(p, ignored))
                return -1;
        } else {
            return ptx_err(p, p->pos, "unexpected directive before a function body");
        }
    }
}

static int function_slot(ptx_parser *p, const ptx_tok *name, uint32_t *fi, int *fresh)
{
    uint32_t i = ptx_map_get(&p->funcs, p->text + name->start, name->len);
    *fresh = i == PTX_NONE;
    if (i != PTX_NONE) {
        *fi = i;
        return 0;
    }
    if (ptx_grow(&p->m->funcs, &p->func_cap, p->m->n_funcs, sizeof(ptx_func)))
        return ptx_err(p, p->pos, "out of memory");
    i = p->m->n_funcs++;
    ptx_func *f = &p->m->funcs[i];
    memset(f, 0, sizeof *f);
    f->bad_file = f->bad_call_file = PTX_NONE;
    f->name = ptx_arena_str(p->arena, p->text + name->start, name->len);
    if (!f->name || ptx_map_put(&p->funcs, p->arena, f->name, name->len, i, NULL))
        return ptx_err(p, p->pos, "out of memory");
    *fi = i;
    return 0;
}

static void free_func_params(ptx_func *f)
{
    free(f->params);
    free(f->rets);
    f->params = f->rets = NULL;
    f->n_params = f->n_rets = 0;
}

/* Bring the formal parameters into the body's scope. */
static int declare_params(ptx_parser *p, ptx_func *f)
{
    for (uint32_t i = 0; i < f->n_rets + f->n_params; i++) {
        uint32_t vi = i < f->n_rets ? f->rets[i] : f->params[i - f->n_rets];
        const char *name = p->m->vars[vi].name; /* in the arena, not in the text */
        uint32_t old;
        if (ptx_grow(&p->scope, &p->scope_cap, p->n_scope, sizeof(scope_entry)) ||
            ptx_map_put(&p->names, p->arena, name, strlen(name), p->n_scope, &old))
            return ptx_err(p, p->pos, "out of memory");
        p->scope[p->n_scope++] = (scope_entry){SE_VAR, vi, old, name, (uint32_t)strlen(name)};
    }
    return 0;
}

/* .entry / .func after its keyword. */
static int parse_function(ptx_parser *p, int entry, int is_extern)
{
    uint32_t *rets = NULL, n_rets = 0;
    uint32_t start = (uint32_t)p->pos;
    reset_function_state(p);
    p->f = NULL;
    p->fi = p->m->n_funcs; /* parameters parsed before the slot exists carry this index */
    if (!entry && ptx_peek(p)->kind == TK_LPAREN && parse_param_list(p, 0, &rets, &n_rets)) {
        free(rets);
        return -1;
    }
    const ptx_tok *nt = ptx_peek(p);
    if (nt->kind != TK_IDENT) {
        free(rets);
        return ptx_err(p, p->pos, "expected a function name");
    }
    ptx_next(p);
    uint32_t fi = 0;
    int fresh;
    if (function_slot(p, nt, &fi, &fresh)) {
        free(rets);
        return -1;
    }
    p->fi = fi;
    for (uint32_t i = 0; i < n_rets; i++) /* results parsed before the index was known */
        p->m->vars[rets[i]].func = fi;
    ptx_func *f = &p->m->funcs[fi];
    if (f->has_body) {
        free(rets);
        return ptx_err(p, start, "function %s defined twice", f->name);
    }
    free_func_params(f);
    f->rets = rets;
    f->n_rets = n_rets;
    f->is_entry = (uint8_t)entry;
    f->is_extern = (uint8_t)is_extern;
    f->line = nt->line;
    if (ptx_peek(p)->kind == TK_LPAREN && parse_param_list(p, entry, &f->params, &f->n_params))
        return -1;
    if (parse_perf_directives(p, f))
        return -1;
    p->frame = 0;
    p->frame_align = 1;
    if (entry)
        layout_kernel_params(p, f);
    else if (layout_func_params(p, f))
        return -1;
    if (ptx_peek(p)->kind == TK_SEMI) {
        ptx_next(p);
        return 0;
    }
    p->f = f;
    f->n_slots = f->n_preds = 0;
    f->pred_const[0] = f->pred_const[1] = PTX_NONE;
    if (declare_params(p, f) || parse_body(p))
        return -1;
    p->f = NULL;
    return 0;
}

/* --- the module ------------------------------------------------------------------------- */

static int parse_top(ptx_parser *p)
{
    const ptx_tok *t = ptx_peek(p);
    if (t->kind == TK_SEMI) {
        ptx_next(p);
        return 0;
    }
    if (t->kind != TK_DIR)
        return ptx_err(p, p->pos, "expected a directive at module scope");
    ptx_next(p);
    if (ptx_tok_is(p, t, ".version"))
        return parse_version(p);
    if (ptx_tok_is(p, t, ".target")) {
        skip_line(p, t->line);
        return 0;
    }
    if (ptx_tok_is(p, t, ".address_size"))
        return parse_address_size(p);
    if (ptx_tok_is(p, t, ".file"))
        return parse_file(p);
    if (ptx_tok_is(p, t, ".section"))
        return skip_section(p);
    if (ptx_tok_is(p, t, ".pragma"))
        return skip_pragma(p);
    int is_extern = 0;
    while (ptx_tok_is(p, t, ".visible") || ptx_tok_is(p, t, ".extern") ||
           ptx_tok_is(p, t, ".weak") || ptx_tok_is(p, t, ".common")) {
        is_extern |= ptx_tok_is(p, t, ".extern");
        t = ptx_peek(p);
        if (t->kind != TK_DIR)
            return ptx_err(p, p->pos, "expected a declaration after a linkage directive");
        ptx_next(p);
    }
    ptx_space sp;
    if (ptx_tok_is(p, t, ".entry"))
        return parse_function(p, 1, is_extern);
    if (ptx_tok_is(p, t, ".func"))
        return parse_function(p, 0, is_extern);
    if (space_of(p, t, &sp) && sp != PS_PARAM)
        return parse_var_decl(p, sp, is_extern, PTX_NONE);
    return ptx_err(p, p->pos - 1, "unknown or unsupported directive at module scope");
}

void ptx_free(ptx_module *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->n_vars; i++) {
        free(m->vars[i].init);
        free(m->vars[i].relocs);
    }
    for (uint32_t i = 0; i < m->n_funcs; i++) {
        ptx_func *f = &m->funcs[i];
        free_func_params(f);
        free(f->code);
        free(f->reconv);
        free(f->consts);
        free(f->sregs);
        for (uint32_t c = 0; c < f->n_calls; c++) {
            free(f->calls[c].args);
            free(f->calls[c].rets);
        }
        free(f->calls);
        for (uint32_t t = 0; t < f->n_tables; t++)
            free(f->tables[t].targets);
        free(f->tables);
        free(f->uses);
    }
    free(m->vars);
    free(m->funcs);
    free(m->files);
    ptx_arena_free(m->arena);
    free(m);
}

static void parser_free(ptx_parser *p)
{
    reset_function_state(p);
    ptx_map_free(&p->funcs);
    ptx_map_free(&p->mvars);
    free(p->regs);
    free(p->scope);
    free(p->fixes);
    free(p->toks);
}

/* The index in m->files of .file number (PTX_NONE: none, or no such file). */
static uint32_t file_index(const ptx_module *m, uint32_t number)
{
    for (uint32_t k = 0; number != PTX_NONE && k < m->n_files; k++)
        if (m->files[k].number == number)
            return k;
    return PTX_NONE;
}

/* Instructions carry .loc's file number while parsing: .file directives may follow the code. */
static void resolve_files(ptx_module *m)
{
    for (uint32_t f = 0; f < m->n_funcs; f++)
        for (uint32_t i = 0; i < m->funcs[f].n_code; i++) {
            ptx_instr *in = &m->funcs[f].code[i];
            in->file = file_index(m, in->file);
            in->call_file = file_index(m, in->call_file);
        }
    for (uint32_t f = 0; f < m->n_funcs; f++) {
        m->funcs[f].bad_file = file_index(m, m->funcs[f].bad_file);
        m->funcs[f].bad_call_file = file_index(m, m->funcs[f].bad_call_file);
    }
}

/* Every called function must have a body by the end (extern ones fail when called). */
static int check_module(ptx_parser *p)
{
    for (uint32_t i = 0; i < p->m->n_funcs; i++) {
        ptx_func *f = &p->m->funcs[i];
        if (f->is_entry && !f->has_body && !f->is_extern)
            return ptx_err(p, p->n_toks - 1, "kernel %s has no body", f->name);
    }
    return 0;
}

int ptx_parse(const char *text, size_t len, ptx_module **out, char *why, size_t why_size)
{
    ptx_parser p;
    memset(&p, 0, sizeof p);
    *out = NULL;
    if (why_size)
        why[0] = '\0';
    if (ptx_lex(text, len, &p.toks, &p.n_toks, why, why_size))
        return -1;
    p.text = text;
    p.why = why;
    p.why_size = why_size;
    p.m = calloc(1, sizeof *p.m);
    p.arena = ptx_arena_new();
    if (!p.m || !p.arena) {
        free(p.m);
        ptx_arena_free(p.arena);
        free(p.toks);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    p.m->arena = p.arena;
    int rc = 0;
    while (rc == 0 && ptx_peek(&p)->kind != TK_EOF)
        rc = parse_top(&p);
    if (rc == 0)
        rc = check_module(&p);
    if (rc == 0)
        resolve_files(p.m);
    parser_free(&p);
    if (rc) {
        ptx_free(p.m);
        return -1;
    }
    *out = p.m;
    return 0;
}
