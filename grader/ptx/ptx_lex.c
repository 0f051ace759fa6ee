/*
 * ptx_lex.c - PTX text to tokens.
 *
 * Identifiers keep their dots ("ld.global.v4.f32", "%tid.x") and "::"
 * ("ld.global.L1::no_allocate.f32"): the decoder splits opcodes itself.
 * Directives are the same with a leading dot. Numbers are every PTX form:
 * decimal, 0x hex, 0b binary, 0 octal, an optional U suffix, 0f/0d bit
 * patterns of floats, and decimal floats. A minus sign is its own token.
 * Then what the reader asks of a token: its text, one of a kind expected,
 * an error at its line.
 */
#include "ptx_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXT (1u << 30)
#define MAX_TOKEN_LEN 4096u

typedef struct lexer {
    const char *s;
    size_t len, i;
    uint32_t line;
    ptx_tok *toks;
    size_t n, cap;
    char *why;
    size_t why_size;
} lexer;

static int lex_err(lexer *x, const char *what)
{
    snprintf(x->why, x->why_size, "line %u: %s", x->line, what);
    return -1;
}

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}
static int is_ident_start(int c)
{
    return is_alpha(c) || c == '_' || c == '$' || c == '%';
}
static int is_ident_char(int c)
{
    return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.';
}
static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int push(lexer *x, tok_kind k, size_t start, size_t len)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 1024;
        ptx_tok *t = realloc(x->toks, cap * sizeof *t);
        if (!t)
            return lex_err(x, "out of memory");
        x->toks = t;
        x->cap = cap;
    }
    ptx_tok *t = &x->toks[x->n++];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)k;
    t->line = x->line;
    t->start = (uint32_t)start;
    t->len = (uint32_t)len;
    return 0;
}

/* Skip blanks and comments; -1 on an unterminated block comment. */
static int skip_space(lexer *x)
{
    while (x->i < x->len) {
        char c = x->s[x->i];
        if (c == '\n') {
            x->line++;
            x->i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            x->i++;
        } else if (c == '/' && x->i + 1 < x->len && x->s[x->i + 1] == '/') {
            while (x->i < x->len && x->s[x->i] != '\n')
                x->i++;
        } else if (c == '/' && x->i + 1 < x->len && x->s[x->i + 1] == '*') {
            x->i += 2;
            for (;;) {
                if (x->i + 1 >= x->len)
                    return lex_err(x, "a /* comment never ends");
                if (x->s[x->i] == '*' && x->s[x->i + 1] == '/')
                    break;
                if (x->s[x->i] == '\n')
                    x->line++;
                x->i++;
            }
            x->i += 2;
        } else {
            break;
        }
    }
    return 0;
}

/* Identifier or directive: letters, digits, _ $ . and "::". */
static int lex_name(lexer *x, tok_kind k)
{
    size_t start = x->i++;
    while (x->i < x->len) {
        char c = x->s[x->i];
        if (is_ident_char((unsigned char)c))
            x->i++;
        else if (c == ':' && x->i + 1 < x->len && x->s[x->i + 1] == ':')
            x->i += 2;
        else
            break;
    }
    if (x->i - start > MAX_TOKEN_LEN)
        return lex_err(x, "a name longer than 4096 characters");
    return push(x, k, start, x->i - start);
}

/* Digits of one base into *v; -1 on overflow or a bad digit; n: how many read. */
static int read_digits(lexer *x, unsigned base, uint64_t *v, size_t *n)
{
    uint64_t r = 0;
    size_t k = 0;
    while (x->i < x->len) {
        int d = hex_value((unsigned char)x->s[x->i]);
        if (d < 0 || (unsigned)d >= base)
            break;
        if (r > (UINT64_MAX - (uint64_t)d) / base)
            return lex_err(x, "an integer that does not fit in 64 bits");
        r = r * base + (uint64_t)d;
        x->i++;
        k++;
    }
    *v = r;
    *n = k;
    return 0;
}

/* 0f + 8 hex digits, 0d + 16: the bits of a float. */
static int lex_float_bits(lexer *x, size_t start, int f64)
{
    unsigned want = f64 ? 16 : 8;
    uint64_t v;
    size_t n;
    x->i += 2;
    if (read_digits(x, 16, &v, &n) || n != want)
        return lex_err(x, f64 ? "a 0d float needs 16 hex digits" : "a 0f float needs 8 hex digits");
    if (push(x, TK_FLOAT, start, x->i - start))
        return -1;
    x->toks[x->n - 1].fk = f64 ? FK_F64 : FK_F32;
    x->toks[x->n - 1].u = v;
    return 0;
}

/* A decimal float such as 1.5, 2e10, 1.0e-3: parsed by strtod from a bounded copy. */
static int lex_decimal_float(lexer *x, size_t start)
{
    size_t i = start;
    while (i < x->len && is_digit((unsigned char)x->s[i]))
        i++;
    if (i < x->len && x->s[i] == '.')
        for (i++; i < x->len && is_digit((unsigned char)x->s[i]); i++)
            ;
    if (i < x->len && (x->s[i] == 'e' || x->s[i] == 'E')) {
        size_t j = i + 1;
        if (j < x->len && (x->s[j] == '+' || x->s[j] == '-'))
            j++;
        if (j < x->len && is_digit((unsigned char)x->s[j])) {
            for (i = j; i < x->len && is_digit((unsigned char)x->s[i]); i++)
                ;
        }
    }
    char buf[128];
    if (i - start >= sizeof buf)
        return lex_err(x, "a float literal too long");
    memcpy(buf, x->s + start, i - start);
    buf[i - start] = '\0';
    errno = 0;
    double d = strtod(buf, NULL);
    x->i = i;
    if (push(x, TK_FLOAT, start, i - start))
        return -1;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    x->toks[x->n - 1].fk = FK_DEC;
    x->toks[x->n - 1].u = bits;
    return 0;
}

static int lex_number(lexer *x)
{
    size_t start = x->i;
    const char *s = x->s;
    char c1 = x->i + 1 < x->len ? s[x->i + 1] : '\0';
    if (s[x->i] == '0' && (c1 == 'f' || c1 == 'F'))
        return lex_float_bits(x, start, 0);
    if (s[x->i] == '0' && (c1 == 'd' || c1 == 'D'))
        return lex_float_bits(x, start, 1);
    /* a decimal float has a '.' or an exponent after its leading digits */
    size_t j = x->i;
    while (j < x->len && is_digit((unsigned char)s[j]))
        j++;
    int hexlike = s[x->i] == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'b' || c1 == 'B');
    if (!hexlike && j < x->len && (s[j] == '.' || s[j] == 'e' || s[j] == 'E'))
        return lex_decimal_float(x, start);

    uint64_t v;
    size_t n;
    unsigned base = 10;
    if (s[x->i] == '0' && (c1 == 'x' || c1 == 'X')) {
        base = 16;
        x->i += 2;
    } else if (s[x->i] == '0' && (c1 == 'b' || c1 == 'B')) {
        base = 2;
        x->i += 2;
    } else if (s[x->i] == '0' && is_digit((unsigned char)c1)) {
        base = 8;
        x->i += 1;
    }
    if (read_digits(x, base, &v, &n))
        return -1;
    if (n == 0 && base != 10)
        return lex_err(x, "a number prefix without digits");
    if (x->i < x->len && (s[x->i] == 'U' || s[x->i] == 'u'))
        x->i++;
    if (x->i < x->len && is_ident_char((unsigned char)s[x->i]) && s[x->i] != '.')
        return lex_err(x, "a malformed number");
    if (push(x, TK_INT, start, x->i - start))
        return -1;
    x->toks[x->n - 1].u = v;
    return 0;
}

static int lex_string(lexer *x)
{
    size_t start = x->i++;
    while (x->i < x->len && x->s[x->i] != '"') {
        if (x->s[x->i] == '\n')
            return lex_err(x, "a string runs past the end of its line");
        if (x->s[x->i] == '\\' && x->i + 1 < x->len)
            x->i++;
        x->i++;
    }
    if (x->i >= x->len)
        return lex_err(x, "a string never ends");
    x->i++;
    if (x->i - start > MAX_TOKEN_LEN)
        return lex_err(x, "a string longer than 4096 characters");
    return push(x, TK_STRING, start, x->i - start);
}

static tok_kind punct_kind(char c)
{
    switch (c) {
    case ',': return TK_COMMA;
    case ';': return TK_SEMI;
    case ':': return TK_COLON;
    case '[': return TK_LBRACK;
    case ']': return TK_RBRACK;
    case '{': return TK_LBRACE;
    case '}': return TK_RBRACE;
    case '(': return TK_LPAREN;
    case ')': return TK_RPAREN;
    case '<': return TK_LT;
    case '>': return TK_GT;
    case '+': return TK_PLUS;
    case '-': return TK_MINUS;
    case '!': return TK_BANG;
    case '@': return TK_AT;
    case '|': return TK_PIPE;
    case '=': return TK_EQ;
    default: return TK_EOF;
    }
}

static int lex_one(lexer *x)
{
    unsigned char c = (unsigned char)x->s[x->i];
    if (is_ident_start(c))
        return lex_name(x, TK_IDENT);
    if (c == '.' && x->i + 1 < x->len && (is_alpha((unsigned char)x->s[x->i + 1]) ||
                                          x->s[x->i + 1] == '_'))
        return lex_name(x, TK_DIR);
    if (is_digit(c))
        return lex_number(x);
    if (c == '"')
        return lex_string(x);
    tok_kind k = punct_kind((char)c);
    if (k == TK_EOF) {
        char msg[64];
        snprintf(msg, sizeof msg, "unexpected character 0x%02x", c);
        return lex_err(x, msg);
    }
    x->i++;
    return push(x, k, x->i - 1, 1);
}

int ptx_lex(const char *text, size_t len, ptx_tok **toks, size_t *n, char *why, size_t why_size)
{
    lexer x = {.s = text, .len = len, .line = 1, .why = why, .why_size = why_size};
    *toks = NULL;
    *n = 0;
    if (len > MAX_TEXT)
        return lex_err(&x, "the PTX is larger than 1 GiB");
    for (;;) {
        if (skip_space(&x))
            goto fail;
        if (x.i >= x.len)
            break;
        if (lex_one(&x))
            goto fail;
    }
    if (push(&x, TK_EOF, x.i, 0))
        goto fail;
    *toks = x.toks;
    *n = x.n;
    return 0;
fail:
    free(x.toks);
    return -1;
}

/* --- what the reader asks of a token ------------------------------------------ */

int ptx_err(ptx_parser *p, size_t t, const char *fmt, ...)
{
    if (t >= p->n_toks)
        t = p->n_toks - 1;
    int n = snprintf(p->why, p->why_size, "line %u: ", p->toks[t].line);
    if (n >= 0 && (size_t)n < p->why_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->why + n, p->why_size - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int ptx_tok_is(const ptx_parser *p, const ptx_tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->len == n && memcmp(p->text + t->start, s, n) == 0;
}

static const char *tok_name(tok_kind k)
{
    switch (k) {
    case TK_IDENT: return "a name";
    case TK_INT: return "an integer";
    case TK_STRING: return "a string";
    case TK_COMMA: return "','";
    case TK_SEMI: return "';'";
    case TK_COLON: return "':'";
    case TK_LBRACK: return "'['";
    case TK_RBRACK: return "']'";
    case TK_LBRACE: return "'{'";
    case TK_RBRACE: return "'}'";
    case TK_LPAREN: return "'('";
    case TK_RPAREN: return "')'";
    case TK_GT: return "'>'";
    default: return "something else";
    }
}

int ptx_expect(ptx_parser *p, tok_kind k, const char *what)
{
    if (ptx_peek(p)->kind != k)
        return ptx_err(p, p->pos, "expected %s %s", tok_name(k), what);
    ptx_next(p);
    return 0;
}
