/*
 * scan.c - the student's own files, read as C++ text before any compiler
 * runs: every header name written in #include, #include_next, #import,
 * __has_include and __has_include_next is checked where it would be found,
 * and the directives that name or read other files without appearing in the
 * dependency list are refused (#line and GNU line markers with a file name,
 * #embed, #pragma GCC dependency, __has_include with a computed name).
 *
 * The lexer knows what hides text from the preprocessor: comments, string
 * and character literals (with encoding prefixes, C++ raw strings read
 * without line splicing), pp-numbers with digit separators (1'000), line
 * splices, and the digraph %: for #. Code in #if 0 is checked too: a false
 * refusal costs an honest student nothing, a missed directive could cost
 * the course its solutions.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_MAX (16LL << 20)

static char why[1200];

/* --- reading with line splices --------------------------------------------------- */

typedef struct lexer {
    const char *s;
    size_t n, i;
    int bol; /* at the start of a logical line (only whitespace or comments before) */
} lexer;

/* Index of the next character at or after i, skipping backslash-newline splices. */
static size_t skip_splices(const lexer *L, size_t i)
{
    while (i + 1 < L->n && L->s[i] == '\\' &&
           (L->s[i + 1] == '\n' || (L->s[i + 1] == '\r' && i + 2 < L->n && L->s[i + 2] == '\n')))
        i += L->s[i + 1] == '\n' ? 2 : 3;
    return i;
}

static int peek(const lexer *L, size_t k) /* the k-th next character, splices skipped */
{
    size_t i = skip_splices(L, L->i);
    while (k-- > 0 && i < L->n)
        i = skip_splices(L, i + 1);
    return i < L->n ? (unsigned char)L->s[i] : -1;
}

static int get(lexer *L)
{
    L->i = skip_splices(L, L->i);
    if (L->i >= L->n)
        return -1;
    return (unsigned char)L->s[L->i++];
}

static int is_ident(int c)
{
    return c == '_' || c == '$' || isalnum(c) || c >= 0x80;
}

/* --- tokens -------------------------------------------------------------------------- */

/* Skip spaces and comments on this logical line; returns 1 at a newline or the end. */
static int skip_blank(lexer *L)
{
    for (;;) {
        int c = peek(L, 0);
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
            get(L);
        } else if (c == '/' && peek(L, 1) == '*') {
            get(L), get(L);
            int prev = 0, d;
            while ((d = get(L)) >= 0 && !(prev == '*' && d == '/'))
                prev = d;
        } else if (c == '/' && peek(L, 1) == '/') {
            while ((c = peek(L, 0)) >= 0 && c != '\n')
                get(L);
        } else
            return c == '\n' || c < 0;
    }
}

/* A quoted literal from its opening quote (already read): to the closing one
 * or the end of the line. */
static void skip_quoted(lexer *L, int q)
{
    int c;
    while ((c = peek(L, 0)) >= 0 && c != '\n') {
        get(L);
        if (c == '\\')
            get(L);
        else if (c == q)
            return;
    }
}

/* A raw string R"delim( ... )delim" from after the R: raw text, no splices. */
static void skip_raw(lexer *L)
{
    get(L); /* the quote */
    char delim[20];
    size_t d = 0;
    while (L->i < L->n && L->s[L->i] != '(' && d < 16 && L->s[L->i] != '\n')
        delim[d++] = L->s[L->i++];
    if (L->i >= L->n || L->s[L->i] != '(') /* not a raw string after all: a plain one */
        return skip_quoted(L, '"');
    L->i++;
    for (; L->i < L->n; L->i++)
        if (L->s[L->i] == ')' && L->i + 1 + d < L->n && !memcmp(L->s + L->i + 1, delim, d) &&
            L->s[L->i + 1 + d] == '"') {
            L->i += d + 2;
            return;
        }
}

/* An identifier, into buf (truncated). */
static void read_ident(lexer *L, char *buf, size_t size)
{
    size_t k = 0;
    int c;
    while ((c = peek(L, 0)) >= 0 && is_ident(c)) {
        get(L);
        if (k + 1 < size)
            buf[k++] = (char)c;
    }
    buf[k] = 0;
}

/* A pp-number: digits, letters, '.', exponent signs and digit separators. */
static void skip_number(lexer *L)
{
    int c, prev = 0;
    while ((c = peek(L, 0)) >= 0) {
        if (is_ident(c) || c == '.')
            ;
        else if ((c == '+' || c == '-') && strchr("eEpP", prev))
            ;
        else if (c == '\'' && is_ident(peek(L, 1)))
            ;
        else
            break;
        get(L);
        prev = c;
    }
}

/* A header name "..." or <...> at the lexer: 1 read into buf, 0 something else. */
static int read_header_name(lexer *L, char *buf, size_t size, int *quoted)
{
    int open = peek(L, 0);
    if (open != '"' && open != '<')
        return 0;
    int close = open == '"' ? '"' : '>';
    *quoted = open == '"';
    get(L);
    size_t k = 0;
    int c;
    while ((c = peek(L, 0)) >= 0 && c != '\n' && c != close) {
        get(L);
        if (k + 1 < size)
            buf[k++] = (char)c;
    }
    if (c == close)
        get(L);
    buf[k] = 0;
    return 1;
}

/* --- the checks ------------------------------------------------------------------------- */

/* Text a student wrote, safe to print: printable ASCII, at most 160 characters. */
static const char *shown(const char *s)
{
    static char out[2][200];
    static int which;
    char *o = out[which ^= 1];
    size_t k = 0;
    for (; *s && k < 160; s++)
        o[k++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    if (*s)
        o[k++] = '.', o[k++] = '.', o[k++] = '.';
    o[k] = 0;
    return o;
}

const char *outside_reason(const jail_opts *o, const char *written)
{
    snprintf(why, sizeof why,
             "%s includes a file outside your submission: only smemlab.h and system headers "
             "may be included (it names \"%s\")",
             o->source_name, shown(written));
    return why;
}

static int has_dotdot(const char *p)
{
    for (const char *c = p; *c;) {
        const char *end = strchr(c, '/');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == 2 && c[0] == '.' && c[1] == '.')
            return 1;
        c += len + (end ? 1 : 0);
    }
    return 0;
}

/* Is candidate a file, and then within the allowed folders? -1 no such file, 1 allowed, 0 not. */
static int judge(const jail_opts *o, const char *candidate)
{
    struct stat st;
    if (stat(candidate, &st) != 0)
        return -1;
    char *real = realpath(candidate, NULL);
    int ok = real && (roots_contain(&o->readable, real) || roots_contain(&o->system, real));
    free(real);
    return ok;
}

/*
 * A header name written in file `path`: where would the preprocessor find it,
 * and is that allowed? Names without '..' that are not absolute stay inside
 * the folders searched (the file's own, common/, the system's): allowed. The
 * others are looked up as the preprocessor would: the first existing
 * candidate decides; none (a missing header) is the compiler's to report.
 */
static const char *check_header(const jail_opts *o, const char *path, const char *name, int quoted)
{
    if (name[0] != '/' && !has_dotdot(name))
        return NULL;
    char cand[8192];
    if (name[0] == '/')
        return judge(o, name) == 0 ? outside_reason(o, name) : NULL;
    if (quoted) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            snprintf(dir, sizeof dir, ".");
        snprintf(cand, sizeof cand, "%s/%s", dir, name);
        int j = judge(o, cand);
        if (j >= 0)
            return j ? NULL : outside_reason(o, name);
    }
    const roots *lists[2] = {&o->readable, &o->system};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l]->n; i++) {
            snprintf(cand, sizeof cand, "%s/%s", lists[l]->path[i], name);
            int j = judge(o, cand);
            if (j >= 0)
                return j ? NULL : outside_reason(o, name);
        }
    return NULL;
}

/* After '#' on a logical line's start: the directive. */
static const char *directive(const jail_opts *o, lexer *L, const char *path)
{
    if (skip_blank(L))
        return NULL; /* a null directive */
    int c = peek(L, 0);
    char name[40], header[4096];
    int quoted;
    if (isdigit(c)) { /* a GNU line marker: # 33 "file" */
        skip_number(L);
        skip_blank(L);
        if (peek(L, 0) == '"' && read_header_name(L, header, sizeof header, &quoted)) {
            snprintf(why, sizeof why, "%s uses a line marker naming a file (\"%s\"): a "
                     "submission may not name other files", o->source_name, shown(header));
            return why;
        }
        return NULL;
    }
    if (!is_ident(c))
        return NULL;
    read_ident(L, name, sizeof name);
    if (!strcmp(name, "include") || !strcmp(name, "include_next") || !strcmp(name, "import")) {
        skip_blank(L);
        if (read_header_name(L, header, sizeof header, &quoted))
            return check_header(o, path, header, quoted);
        return NULL; /* a computed name: nvcc -M reports the file it names */
    }
    if (!strcmp(name, "embed")) {
        snprintf(why, sizeof why, "%s uses #embed: only smemlab.h and system headers may be "
                 "included, and nothing embedded", o->source_name);
        return why;
    }
    if (!strcmp(name, "line")) {
        skip_blank(L);
        if (isdigit(peek(L, 0))) {
            skip_number(L);
            if (skip_blank(L))
                return NULL; /* #line 42: fine */
        }
        snprintf(why, sizeof why, "%s uses #line with a file name or a macro: a submission "
                 "may not name other files (write #line with a number alone)", o->source_name);
        return why;
    }
    if (!strcmp(name, "pragma")) {
        skip_blank(L);
        char w1[16] = "", w2[16] = "";
        if (is_ident(peek(L, 0)))
            read_ident(L, w1, sizeof w1);
        skip_blank(L);
        if (is_ident(peek(L, 0)))
            read_ident(L, w2, sizeof w2);
        if (!strcmp(w1, "GCC") && !strcmp(w2, "dependency")) {
            snprintf(why, sizeof why, "%s uses #pragma GCC dependency: a submission may not "
                     "name other files", o->source_name);
            return why;
        }
    }
    return NULL;
}

/* After __has_include or __has_include_next: ( header-name ). */
static const char *has_include(const jail_opts *o, lexer *L, const char *path)
{
    skip_blank(L);
    if (peek(L, 0) != '(')
        return NULL; /* "#ifdef __has_include": asks whether it exists */
    get(L);
    skip_blank(L);
    char header[4096];
    int quoted;
    if (read_header_name(L, header, sizeof header, &quoted))
        return check_header(o, path, header, quoted);
    snprintf(why, sizeof why, "%s uses __has_include with a computed name: write the header's "
             "name in quotes or <> (only smemlab.h and system headers may be included)",
             o->source_name);
    return why;
}

/* _Pragma("..."): the pragma's text, as #pragma would see it. */
static const char *pragma_operator(const jail_opts *o, lexer *L)
{
    skip_blank(L);
    if (peek(L, 0) != '(')
        return NULL;
    get(L);
    skip_blank(L);
    size_t start = L->i;
    int c = peek(L, 0);
    if (c != '"' && c != 'L' && c != 'u' && c != 'U')
        return NULL;
    while ((c = get(L)) >= 0 && c != '"')
        ;
    skip_quoted(L, '"');
    size_t len = L->i > start ? L->i - start : 0;
    char text[512];
    snprintf(text, sizeof text, "%.*s", (int)(len < 500 ? len : 500), L->s + start);
    if (strstr(text, "dependency")) {
        snprintf(why, sizeof why, "%s uses _Pragma(\"GCC dependency ...\"): a submission may not "
                 "name other files", o->source_name);
        return why;
    }
    return NULL;
}

static const char *scan_text(const jail_opts *o, const char *text, size_t n, const char *path)
{
    lexer L = {.s = text, .n = n, .bol = 1};
    const char *r = NULL;
    while (!r) {
        int at_newline = skip_blank(&L);
        int c = peek(&L, 0);
        if (c < 0)
            break;
        if (at_newline) {
            get(&L);
            L.bol = 1;
            continue;
        }
        int bol = L.bol;
        L.bol = 0;
        if (c == '#' || (c == '%' && peek(&L, 1) == ':')) {
            get(&L);
            if (c == '%')
                get(&L);
            if (bol)
                r = directive(o, &L, path);
            continue;
        }
        if (c == '"' || c == '\'') {
            get(&L);
            skip_quoted(&L, c);
            continue;
        }
        if (isdigit(c) || (c == '.' && isdigit(peek(&L, 1)))) {
            skip_number(&L);
            continue;
        }
        if (is_ident(c)) {
            /* encoding prefixes and raw strings: u8R"x(...)x", LR"(...)", u'c' */
            char id[64];
            read_ident(&L, id, sizeof id);
            int q = peek(&L, 0);
            int prefix = !strcmp(id, "u8") || !strcmp(id, "u") || !strcmp(id, "U") ||
                         !strcmp(id, "L");
            int raw = !strcmp(id, "R") || !strcmp(id, "u8R") || !strcmp(id, "uR") ||
                      !strcmp(id, "UR") || !strcmp(id, "LR");
            if (raw && q == '"')
                skip_raw(&L);
            else if (prefix && (q == '"' || q == '\'')) {
                get(&L);
                skip_quoted(&L, q);
            } else if (!strcmp(id, "__has_include") || !strcmp(id, "__has_include_next"))
                r = has_include(o, &L, path);
            else if (!strcmp(id, "_Pragma"))
                r = pragma_operator(o, &L);
            continue;
        }
        get(&L);
    }
    return r;
}

const char *scan_file(const jail_opts *o, const char *path, const char *display)
{
    (void)display;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) /* the compiler will say it cannot read it */
        return NULL;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > SCAN_MAX) {
        close(fd);
        snprintf(why, sizeof why, "%s is not a regular file of at most 16 MiB: submit the "
                 "source itself", o->source_name);
        return why;
    }
    char *text = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    ssize_t got;
    while (text && n < (size_t)st.st_size && (got = read(fd, text + n, (size_t)st.st_size - n)) > 0)
        n += (size_t)got;
    close(fd);
    if (!text)
        return NULL;
    text[n] = 0;
    const char *r = scan_text(o, text, n, path);
    free(text);
    return r;
}
