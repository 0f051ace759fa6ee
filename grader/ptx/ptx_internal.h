/*
 * ptx_internal.h - what the parts of the PTX reader share: tokens, an arena
 * for names, a string map, growable arrays, and the parse state.
 */
#ifndef SMEMLAB_PTX_INTERNAL_H
#define SMEMLAB_PTX_INTERNAL_H

#include "ptx.h"

#include <stdarg.h>
#include <stdint.h>

/* --- tokens (ptx_lex.c) ----------------------------------------------------- */

typedef enum tok_kind {
    TK_EOF, TK_IDENT, TK_DIR, TK_INT, TK_FLOAT, TK_STRING,
    TK_COMMA, TK_SEMI, TK_COLON, TK_LBRACK, TK_RBRACK, TK_LBRACE, TK_RBRACE,
    TK_LPAREN, TK_RPAREN, TK_LT, TK_GT, TK_PLUS, TK_MINUS, TK_BANG, TK_AT, TK_PIPE, TK_EQ
} tok_kind;

/* TK_FLOAT: how the literal was written. */
enum { FK_F32, FK_F64, FK_DEC };

typedef struct ptx_tok {
    uint8_t kind;
    uint8_t fk;      /* TK_FLOAT: FK_* (u holds f32 bits, f64 bits, or a double's bits) */
    uint32_t line;
    uint32_t start;  /* offset in the text */
    uint32_t len;
    uint64_t u;      /* TK_INT value, TK_FLOAT bits */
} ptx_tok;

/* Tokenise text; 0, or -1 with why. *toks ends with a TK_EOF. */
int ptx_lex(const char *text, size_t len, ptx_tok **toks, size_t *n, char *why, size_t why_size);

/* --- arena and map (ptx_util.c) ---------------------------------------------- */

typedef struct ptx_arena ptx_arena;
ptx_arena *ptx_arena_new(void);
void ptx_arena_free(ptx_arena *a);
/* A NUL-terminated copy of s[0..n), or NULL (out of memory). */
char *ptx_arena_str(ptx_arena *a, const char *s, size_t n);

/* String -> uint32 map. Keys are copied into the arena. */
typedef struct ptx_map {
    struct ptx_map_slot *slots;
    uint32_t cap, count;
} ptx_map;

void ptx_map_free(ptx_map *m);
/* PTX_NONE if absent. */
uint32_t ptx_map_get(const ptx_map *m, const char *key, size_t n);
/* Insert or replace; 0, or -1 (out of memory). *old gets the replaced value or PTX_NONE. */
int ptx_map_put(ptx_map *m, ptx_arena *a, const char *key, size_t n, uint32_t value,
                uint32_t *old);

/* Integer pair -> uint32 map (register name index -> slot). */
typedef struct ptx_imap {
    struct ptx_imap_slot *slots;
    uint32_t cap, count;
} ptx_imap;
void ptx_imap_free(ptx_imap *m);
uint32_t ptx_imap_get(const ptx_imap *m, uint32_t a, uint32_t b);
int ptx_imap_put(ptx_imap *m, uint32_t a, uint32_t b, uint32_t value);

/* Grow *p (elements of size sz) so that index n fits; 0 or -1. */
int ptx_grow(void *p, uint32_t *cap, uint32_t n, size_t sz);

/* --- parse state (ptx_parse.c, ptx_decode.c) -------------------------------- */

/* A register declaration: one name, or a range %r<N>. */
typedef struct reg_decl {
    uint8_t type;      /* ptx_type */
    uint8_t range;
    uint32_t count;    /* range: how many */
    uint32_t prev;     /* the declaration of the same name it shadows, or PTX_NONE */
    uint32_t name_len;
    const char *name;
    uint32_t slot;     /* single name: slot (or predicate index), PTX_NONE until used */
} reg_decl;

/* A name declared in a function body (register, variable, label) with its scope. */
typedef struct scope_entry {
    uint8_t what;      /* SE_REG, SE_VAR */
    uint32_t index;    /* reg_decl or variable */
    uint32_t prev;     /* shadowed value in the map, PTX_NONE if none */
    const char *name;
    uint32_t name_len;
} scope_entry;

enum { SE_REG, SE_VAR };

/* A reference to a label not yet seen. */
typedef struct label_fix {
    uint32_t instr;
    uint8_t op;        /* operand index, or 0xff: a branch table entry */
    uint32_t table, entry;
    uint32_t tok;      /* the name's token, for messages */
} label_fix;

#define PTX_LOC_CHAIN 64 /* places of a function's inlined .loc lines kept (more: the latest) */

typedef struct ptx_parser {
    const char *text;
    ptx_tok *toks;
    size_t n_toks, pos;
    ptx_module *m;
    ptx_arena *arena;
    char *why;
    size_t why_size;
    ptx_map funcs, mvars;      /* module scope */
    uint32_t var_cap, func_cap, file_cap;

    /* the function being parsed */
    ptx_func *f;
    uint32_t fi;
    uint32_t code_cap, const_cap, sreg_cap, call_cap, table_cap, use_cap;
    ptx_map names;             /* registers and variables in scope */
    ptx_map labels;
    ptx_imap regslots;         /* (reg_decl, index) -> slot */
    ptx_imap constslots;       /* (value low, value high ^ type) -> slot, deduplicated */
    ptx_imap sregslots;        /* sreg -> slot */
    ptx_imap usedvars;         /* module var -> 1 */
    reg_decl *regs;
    uint32_t n_regs, regs_cap;
    scope_entry *scope;
    uint32_t n_scope, scope_cap;
    uint32_t depth;
    uint32_t scope_mark[PTX_MAX_DEPTH + 1];
    label_fix *fixes;
    uint32_t n_fixes, fixes_cap;
    uint32_t sink_slot;
    uint32_t cur_line, cur_file;
    uint32_t cur_call_line, cur_call_file; /* .loc's inlined_at, or 0 and PTX_NONE: the
                                              outermost the .loc chain reaches (parse_loc) */
    uint32_t cur_caller_line;  /* a header's code: where that student's line was itself
                                  inlined at (their helper's caller), or 0 */
    /* Where each place of the function's .loc lines was last inlined at: nvcc writes an
       inlined call's chain as .loc lines, each inlined at the one before, ahead of its first
       instruction; the instructions after it repeat only the innermost (the latest kept). */
    struct loc_link {
        uint32_t file, line, col;        /* the .loc's own place */
        uint32_t in_file, in_line, in_col; /* where it was inlined (in_file PTX_NONE: none) */
    } chain[PTX_LOC_CHAIN];
    uint32_t n_chain;
    uint32_t func_file;        /* the file of the function's first .loc: the student's, for a
                                  kernel (PTX_NONE: none yet) */
    uint32_t frame;            /* bytes of the function's frame so far */
    uint32_t frame_align;
} ptx_parser;

/* --- what the reader asks of a token (ptx_lex.c) ------------------------------ */

/* Error with the line of token t ("line N: ..."); always returns -1. */
int ptx_err(ptx_parser *p, size_t t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline const ptx_tok *ptx_peek(const ptx_parser *p)
{
    return &p->toks[p->pos];
}
static inline const ptx_tok *ptx_peek_at(const ptx_parser *p, size_t k)
{
    size_t i = p->pos + k;
    return &p->toks[i < p->n_toks ? i : p->n_toks - 1];
}
static inline const ptx_tok *ptx_next(ptx_parser *p)
{
    const ptx_tok *t = &p->toks[p->pos];
    if (t->kind != TK_EOF)
        p->pos++;
    return t;
}
/* Token text equals s. */
int ptx_tok_is(const ptx_parser *p, const ptx_tok *t, const char *s);
/* Consume a token of kind k; 0, or -1 with an error naming what. */
int ptx_expect(ptx_parser *p, tok_kind k, const char *what);

/* --- what an operand names (ptx_names.c) ---------------------------------------- */
uint32_t ptx_lookup_var(ptx_parser *p, const char *name, size_t n);
int ptx_use_var(ptx_parser *p, uint32_t var);
/* Register operand of a name starting with %: slot (or predicate), its type; -1 if not a register. */
int ptx_lookup_reg(ptx_parser *p, const char *name, size_t n, uint32_t *slot, ptx_type *type);
int ptx_lookup_sreg(const char *name, size_t n, ptx_sreg *out);
uint32_t ptx_sreg_slot_of(ptx_parser *p, ptx_sreg s);
/* A constant slot holding value (with the address of sym added, PTX_NONE: none). */
uint32_t ptx_const_slot(ptx_parser *p, int64_t value, uint32_t sym);
uint32_t ptx_new_slot(ptx_parser *p);
/* The bits of a number token (negated: neg) as a value of type ty; 0 or -1. */
int ptx_imm_bits(ptx_parser *p, const ptx_tok *t, int neg, ptx_type ty, uint64_t *out);

/* One instruction statement, guard already consumed (ptx_decode.c). 0 or -1. */
int ptx_decode_instr(ptx_parser *p, ptx_instr *in);
/* Resolve label references once the body is read (ptx_decode.c). */
int ptx_resolve_labels(ptx_parser *p);

#endif /* SMEMLAB_PTX_INTERNAL_H */
