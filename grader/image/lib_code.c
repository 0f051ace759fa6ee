/* lib_code.c - which of a lab's device code is a library's; see lib_code.h. */
#define _POSIX_C_SOURCE 200809L
#include "lib_code.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 65536   /* .file numbers kept; a bigger one is no library's */
#define MAX_STRINGS 65536 /* $L__info_string numbers kept */
#define MAX_FUNCS 4096
#define NAME_MAX_LEN 256

enum file_kind { FILE_OTHER, FILE_CUB, FILE_THRUST, FILE_CG };

typedef struct func_span {
    char name[NAME_MAX_LEN];
    const char *body, *end; /* between its braces; NULL: a declaration */
} func_span;

typedef struct module {
    const char *text, *end;
    unsigned char *file_kind;  /* by .file number */
    const char **file_path;    /* by .file number: where its path starts (quoted) */
    char **strings;            /* by $L__info_string number: the mangled name */
    func_span *funcs;
    int n_funcs;
} module;

/* --- reading lines -------------------------------------------------------------------- */

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* An unsigned number at *p (advanced past it), or -1. */
static long number(const char **p, const char *end)
{
    long v = -1;
    while (*p < end && **p >= '0' && **p <= '9' && v < (1L << 40))
        v = (v < 0 ? 0 : v * 10) + (*(*p)++ - '0');
    return v;
}

static int starts(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

/* --- the module's files and strings ---------------------------------------------------- */

static int path_has(const char *path, const char *end, const char *part)
{
    size_t n = strlen(part);
    for (const char *p = path; p + n <= end; p++)
        if (memcmp(p, part, n) == 0)
            return 1;
    return 0;
}

/* .file N "path": what library the path is a header of. */
static void read_file_line(module *m, const char *p, const char *end)
{
    long n = number(&p, end);
    p = skip_space(p, end);
    if (n < 0 || n >= MAX_FILES || p >= end || *p != '"')
        return;
    const char *path = ++p, *close = memchr(p, '"', (size_t)(end - p));
    if (!close)
        return;
    m->file_path[n] = path;
    m->file_kind[n] = path_has(path, close, "/cub/") ? FILE_CUB
                      : path_has(path, close, "/thrust/") ? FILE_THRUST
                      : path_has(path, close, "cooperative_groups") ? FILE_CG : FILE_OTHER;
}

/* $L__info_stringN: followed by .b8 lines of byte values, up to a 0. */
static const char *read_string(module *m, long n, const char *p)
{
    char buf[4096];
    size_t len = 0;
    int done = 0;
    while (p < m->end && !done) {
        const char *e = line_end(p, m->end), *q = skip_space(p, e);
        if (!starts(q, e, ".b8"))
            break;
        for (q += 3; q < e && !done;) {
            q = skip_space(q, e);
            long v = number(&q, e);
            if (v < 0 || v > 255) {
                q++;
                continue;
            }
            if (v == 0)
                done = 1;
            else if (len + 1 < sizeof buf)
                buf[len++] = (char)v;
        }
        p = e < m->end ? e + 1 : e;
    }
    buf[len] = '\0';
    if (n >= 0 && n < MAX_STRINGS && !m->strings[n])
        m->strings[n] = strdup(buf);
    return p;
}

/* The name a .entry or .func line declares: the last token before its '('. */
static int func_name(const char *p, const char *e, char *name)
{
    const char *stop = e; /* the last '(' opens the parameters, an earlier one the return */
    for (const char *q = p; q < e; q++)
        if (*q == '(')
            stop = q;
    while (stop > p && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r'))
        stop--;
    const char *start = stop;
    while (start > p && start[-1] != ' ' && start[-1] != '\t' && start[-1] != ')')
        start--;
    size_t n = (size_t)(stop - start);
    if (n == 0 || n >= NAME_MAX_LEN)
        return -1;
    memcpy(name, start, n);
    name[n] = '\0';
    return 0;
}

/* The function at a .entry or .func line p: its name, and its body to the matching brace. */
static const char *read_func(module *m, const char *p)
{
    const char *e = line_end(p, m->end);
    func_span f = {{0}, NULL, NULL};
    if (func_name(p, e, f.name) != 0 || m->n_funcs == MAX_FUNCS)
        return e;
    const char *q = e;
    while (q < m->end && *q != '{' && *q != ';')
        q++;
    if (q < m->end && *q == '{') {
        int depth = 0;
        f.body = q + 1;
        for (; q < m->end; q++) {
            depth += *q == '{';
            if (*q == '}' && --depth == 0)
                break;
        }
        f.end = q;
    }
    m->funcs[m->n_funcs++] = f;
    return f.end ? f.end : q;
}

static int module_read(module *m, const char *text, size_t len)
{
    memset(m, 0, sizeof *m);
    m->text = text, m->end = text + len;
    m->file_kind = calloc(MAX_FILES, 1);
    m->file_path = calloc(MAX_FILES, sizeof *m->file_path);
    m->strings = calloc(MAX_STRINGS, sizeof *m->strings);
    m->funcs = calloc(MAX_FUNCS, sizeof *m->funcs);
    if (!m->file_kind || !m->file_path || !m->strings || !m->funcs)
        return -1;
    for (const char *p = text; p < m->end;) {
        const char *e = line_end(p, m->end), *q = skip_space(p, e);
        if (starts(q, e, ".file"))
            read_file_line(m, skip_space(q + 5, e), e);
        if (starts(q, e, "$L__info_string")) {
            const char *at = q + strlen("$L__info_string");
            long n = number(&at, e);
            p = read_string(m, n, e < m->end ? e + 1 : e);
            continue;
        }
        for (const char *w = q; w < e; w++) /* .visible .entry NAME(, .func (...) NAME( */
            if ((starts(w, e, ".entry") || starts(w, e, ".func")) &&
                (w == q || w[-1] == ' ' || w[-1] == '\t')) {
                e = read_func(m, p);
                break;
            }
        p = e < m->end ? e + 1 : e;
    }
    return 0;
}

static void module_free(module *m)
{
    for (long i = 0; m->strings && i < MAX_STRINGS; i++)
        free(m->strings[i]);
    free(m->file_kind), free(m->file_path), free(m->strings), free(m->funcs);
}

static int find_func(const module *m, const char *name)
{
    for (int i = 0; i < m->n_funcs; i++)
        if (strcmp(m->funcs[i].name, name) == 0)
            return i;
    return -1;
}

/* --- names ------------------------------------------------------------------------------- */

/* A library's version namespace, or a file's internal one: left out of a readable name. */
static int version_namespace(const char *s, size_t n)
{
    return (n > 4 && memcmp(s, "CUB_", 4) == 0) || (n > 7 && memcmp(s, "THRUST_", 7) == 0) ||
           (n > 3 && memcmp(s, "__v", 3) == 0) ||
           (n > 2 && s[0] == '_' && s[1] == '_' && s[2] >= '0' && s[2] <= '9') ||
           (n > 10 && memcmp(s, "_INTERNAL_", 10) == 0);
}

void lib_code_readable(const char *mangled, char *out, size_t size)
{
    const char *p = mangled;
    size_t at = 0;
    out[0] = '\0';
    if (strncmp(p, "_Z", 2) != 0) {
        snprintf(out, size, "%s", mangled);
        return;
    }
    p += 2;
    int nested = *p == 'N';
    if (nested)
        p++;
    while (*p == 'K' || *p == 'V' || *p == 'r')
        p++;
    do {
        const char *q = p;
        long n = number(&q, q + strlen(q));
        if (n <= 0 || (size_t)n > strlen(q))
            break;
        if (!version_namespace(q, (size_t)n)) {
            int w = snprintf(out + at, size - at, "%s%.*s", at ? "::" : "", (int)n, q);
            if (w < 0 || (size_t)w >= size - at)
                break;
            at += (size_t)w;
        }
        p = q + n;
    } while (nested && *p >= '0' && *p <= '9');
    if (at == 0)
        snprintf(out, size, "%s", mangled);
}

const char *lib_code_kernel_library(const char *mangled)
{
    char name[NAME_MAX_LEN];
    lib_code_readable(mangled, name, sizeof name);
    if (strncmp(name, "cub::", 5) == 0)
        return "CUB";
    if (strncmp(name, "thrust::", 8) == 0)
        return "Thrust";
    return NULL;
}

/* CUB's collectives by name: which lib_code a function of CUB is. */
static unsigned cub_kind(const char *mangled, const char *path, const char *path_end)
{
    static const char *const reduce[] = {"BlockReduce", "WarpReduce", "DeviceReduce",
                                         "DeviceSegmentedReduce"};
    static const char *const exchange[] = {"BlockExchange", "WarpExchange"};
    for (size_t i = 0; mangled && i < sizeof reduce / sizeof *reduce; i++)
        if (strstr(mangled, reduce[i]))
            return LIB_CODE_CUB_REDUCE;
    for (size_t i = 0; mangled && i < sizeof exchange / sizeof *exchange; i++)
        if (strstr(mangled, exchange[i]))
            return LIB_CODE_CUB_EXCHANGE;
    /* a kernel of CUB's own, or code with no function name: by its header */
    if (!path)
        return 0;
    if (path_has(path, path_end, "reduce"))
        return LIB_CODE_CUB_REDUCE;
    if (path_has(path, path_end, "exchange"))
        return LIB_CODE_CUB_EXCHANGE;
    if (path_has(path, path_end, "/cub/block/") || path_has(path, path_end, "/cub/warp/") ||
        path_has(path, path_end, "/cub/device/") || path_has(path, path_end, "/cub/agent/"))
        return LIB_CODE_CUB_OTHER;
    return 0; /* a helper (a lane id, a thread's own loop): not a collective */
}

/* The size of the thread_block_tile a cooperative_groups function is of, or 0. */
static long cg_tile_size(const char *mangled)
{
    const char *t = strstr(mangled, "thread_block_tileILj");
    if (!t)
        return 0;
    t += strlen("thread_block_tileILj");
    return number(&t, t + strlen(t));
}

/* cooperative_groups::reduce (or its asynchronous forms), and of how many threads. */
static unsigned cg_kind(const char *mangled)
{
    static const char *const reduce[] = {"6reduceI", "reduce_update_async",
                                         "reduce_store_async", "tile_reduce_dispatch",
                                         "coalesced_reduce"};
    int is_reduce = 0;
    for (size_t i = 0; mangled && i < sizeof reduce / sizeof *reduce; i++)
        is_reduce |= strstr(mangled, reduce[i]) != NULL;
    if (!is_reduce)
        return 0;
    return strstr(mangled, "multi_warp") || cg_tile_size(mangled) > 32
               ? LIB_CODE_CG_BLOCK_REDUCE : LIB_CODE_CG_WARP_REDUCE;
}

/* --- a kernel's line info ---------------------------------------------------------------- */

typedef struct loc {
    long file, line, name, at_file, at_line; /* -1: absent */
} loc;

/* ".loc F L C[, function_name $L__info_stringK, inlined_at F2 L2 C2]" from after ".loc". */
static void read_loc(const char *p, const char *e, loc *l)
{
    *l = (loc){-1, -1, -1, -1, -1};
    p = skip_space(p, e);
    l->file = number(&p, e);
    p = skip_space(p, e);
    l->line = number(&p, e);
    for (; p < e; p++) {
        if (starts(p, e, "$L__info_string")) {
            p += strlen("$L__info_string");
            l->name = number(&p, e);
        } else if (starts(p, e, "inlined_at")) {
            p = skip_space(p + strlen("inlined_at"), e);
            l->at_file = number(&p, e);
            p = skip_space(p, e);
            l->at_line = number(&p, e);
        }
    }
}

static const char *basename_of(const char *path, size_t *len)
{
    const char *close = strchr(path, '"'), *slash = path;
    size_t n = close ? (size_t)(close - path) : strlen(path);
    for (size_t i = 0; i < n; i++)
        if (path[i] == '/')
            slash = path + i + 1;
    *len = n - (size_t)(slash - path);
    return slash;
}

static int bit_number(unsigned bit)
{
    int n = 0;
    while (bit > 1)
        bit >>= 1, n++;
    return n;
}

/* One .loc of a library's code: its kind noted in out, with the student's call site when
   the code was inlined straight into the student's file (main: the kernel's own file). */
static void note_loc(const module *m, const loc *l, long main_file, lib_use *out)
{
    if (l->file < 0 || l->file >= MAX_FILES)
        return;
    int fk = m->file_kind[l->file];
    const char *path = m->file_path[l->file];
    const char *path_end = path ? strchr(path, '"') : NULL;
    const char *fn = l->name >= 0 && l->name < MAX_STRINGS ? m->strings[l->name] : NULL;
    unsigned bit = 0;
    const char *lib = NULL;
    if (fk == FILE_CUB)
        bit = cub_kind(fn, path, path_end), lib = "CUB";
    else if (fk == FILE_THRUST)
        bit = LIB_CODE_THRUST, lib = "Thrust";
    else if (fn && strstr(fn, "cooperative_groups"))
        bit = cg_kind(fn), lib = bit == LIB_CODE_CG_BLOCK_REDUCE
                                     ? "cooperative groups, a tile of more than a warp"
                                     : "cooperative groups";
    if (!bit)
        return;
    int at_student = l->at_file >= 0 && l->at_file == main_file;
    int b = bit_number(bit);
    if ((out->found & bit) && (out->first[b].where[0] || !at_student))
        return; /* the first use of the kind is kept, or its call from the student's file */
    out->found |= bit;
    char name[64] = "";
    if (fn)
        lib_code_readable(fn, name, sizeof name);
    snprintf(out->first[b].what, sizeof out->first[b].what, "%s%s%s%s",
             name[0] ? name : lib, name[0] ? " (" : "", name[0] ? lib : "", name[0] ? ")" : "");
    out->first[b].where[0] = '\0';
    if (at_student && l->at_line > 0 && m->file_path[main_file]) {
        size_t n;
        const char *base = basename_of(m->file_path[main_file], &n);
        snprintf(out->first[b].where, sizeof out->first[b].where, "%.*s:%ld",
                 (int)(n < 64 ? n : 64), base, l->at_line);
    }
}

/* Whether line [q, e) names function i of the module (a whole token). */
static int names_func(const module *m, int i, const char *q, const char *e)
{
    size_t n = strlen(m->funcs[i].name);
    for (const char *w = q; w + n <= e; w++)
        if (memcmp(w, m->funcs[i].name, n) == 0 && (w == q || strchr(" \t\n,(", w[-1])) &&
            (w + n == e || strchr(" \t\r\n,;)", w[n])))
            return 1;
    return 0;
}

/* The functions a body calls: `call` lines naming a function of the module; a call
   through a register (a function pointer) may reach any of them, so all are. */
static void callees(const module *m, const func_span *f, uint8_t *seen, int *todo, int *top)
{
    for (const char *p = f->body; p && p < f->end;) {
        const char *e = line_end(p, f->end), *q = skip_space(p, e);
        if (starts(q, e, "call")) { /* nvcc spreads a call over lines, to its ';' */
            const char *semi = memchr(q, ';', (size_t)(f->end - q));
            e = semi ? semi : f->end;
            int named = 0;
            for (int i = 0; i < m->n_funcs; i++)
                named |= names_func(m, i, q, e);
            for (int i = 0; i < m->n_funcs; i++)
                if (!seen[i] && m->funcs[i].body && (!named || names_func(m, i, q, e))) {
                    seen[i] = 1;
                    todo[(*top)++] = i;
                }
        }
        p = e < f->end ? e + 1 : e;
    }
}

static void scan_func(const module *m, const func_span *f, long *main_file, lib_use *out)
{
    for (const char *p = f->body; p && p < f->end;) {
        const char *e = line_end(p, f->end), *q = skip_space(p, e);
        if (starts(q, e, ".loc")) {
            loc l;
            read_loc(q + 4, e, &l);
            if (*main_file < 0 && l.at_file < 0) /* the kernel's own line: its file */
                *main_file = l.file;
            note_loc(m, &l, *main_file, out);
        }
        p = e < f->end ? e + 1 : e;
    }
}

/* Kernel k and every function it calls, each once: visit(m, f, arg) for each body. */
static void walk_kernel(const module *m, int k, void (*visit)(const module *, const func_span *, void *),
                        void *arg)
{
    uint8_t *seen = calloc((size_t)m->n_funcs + 1, 1);
    int *todo = malloc(((size_t)m->n_funcs + 1) * sizeof *todo), top = 0;
    if (k >= 0 && seen && todo) {
        seen[k] = 1;
        todo[top++] = k;
        while (top > 0) {
            const func_span *f = &m->funcs[todo[--top]];
            visit(m, f, arg);
            callees(m, f, seen, todo, &top);
        }
    }
    free(seen), free(todo);
}

typedef struct lib_scan {
    long main_file;
    lib_use *out;
} lib_scan;

static void visit_lib(const module *m, const func_span *f, void *arg)
{
    lib_scan *l = arg;
    scan_func(m, f, &l->main_file, l->out);
}

int lib_code_of_kernel(const char *ptx, size_t len, const char *kernel, lib_use *out)
{
    module m;
    memset(out, 0, sizeof *out);
    if (!ptx || module_read(&m, ptx, len) != 0) {
        module_free(&m);
        return -1;
    }
    int k = find_func(&m, kernel);
    lib_scan l = {.main_file = -1, .out = out};
    walk_kernel(&m, k, visit_lib, &l);
    module_free(&m);
    return k < 0 ? -1 : 0;
}

/* --- the lines of an instruction ---------------------------------------------------------- */

typedef struct op_scan {
    const char *op;
    int *lines, max, n;
    long main_file;
} op_scan;

/* One body: the kernel's file's line each op instruction was placed at. */
static void visit_op(const module *m, const func_span *f, void *arg)
{
    op_scan *o = arg;
    (void)m;
    long at = -1;
    for (const char *p = f->body; p && p < f->end;) {
        const char *e = line_end(p, f->end), *q = skip_space(p, e);
        if (starts(q, e, ".loc")) {
            loc l;
            read_loc(q + 4, e, &l);
            if (o->main_file < 0 && l.at_file < 0)
                o->main_file = l.file;
            at = l.file == o->main_file ? l.line : l.at_file == o->main_file ? l.at_line : -1;
        } else if (starts(q, e, o->op) && at > 0) {
            int seen = 0;
            for (int i = 0; i < o->n; i++)
                seen |= o->lines[i] == (int)at;
            if (!seen && o->n < o->max)
                o->lines[o->n++] = (int)at;
        }
        p = e < f->end ? e + 1 : e;
    }
}

int lib_code_op_lines(const char *ptx, size_t len, const char *kernel, const char *op,
                      int *lines, int max, char *file, size_t file_size)
{
    module m;
    op_scan o = {.op = op, .lines = lines, .max = max, .main_file = -1};
    if (file_size)
        file[0] = '\0';
    if (!ptx || module_read(&m, ptx, len) != 0) {
        module_free(&m);
        return -1;
    }
    int k = find_func(&m, kernel);
    walk_kernel(&m, k, visit_op, &o);
    if (o.main_file >= 0 && o.main_file < MAX_FILES && m.file_path && m.file_path[o.main_file] &&
        file_size) {
        size_t n;
        const char *b = basename_of(m.file_path[o.main_file], &n);
        snprintf(file, file_size, "%.*s", (int)n, b);
    }
    module_free(&m);
    return k < 0 ? -1 : o.n;
}
