/* report_listing.c - the student's file for the report page: read safely, highlighted;
   see report_page.h. A light scanner, as report_source.c's, not a parser. */
#define _GNU_SOURCE
#include "report_page.h"
#include "report_svg.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int source_read(const char *path, source_text *s)
{
    memset(s, 0, sizeof *s);
    if (!path || !*path)
        return -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    s->text = malloc(PAGE_MAX_SOURCE + 1);
    s->line = malloc(PAGE_MAX_LINES * sizeof *s->line);
    size_t got = 0;
    ssize_t k = 0;
    while (s->text && got < PAGE_MAX_SOURCE &&
           (k = read(fd, s->text + got, PAGE_MAX_SOURCE - got)) > 0)
        got += (size_t)k;
    char probe;
    s->cut = got == PAGE_MAX_SOURCE && read(fd, &probe, 1) == 1;
    close(fd);
    if (!s->text || !s->line || k < 0) {
        free(s->text);
        free(s->line);
        memset(s, 0, sizeof *s);
        return -1;
    }
    s->text[got] = '\0';
    for (char *p = s->text;;) {
        if (s->n == PAGE_MAX_LINES) {
            s->cut = 1;
            break;
        }
        s->line[s->n++] = p;
        char *end = strchr(p, '\n');
        if (!end)
            break;
        *end = '\0';
        if (end > p && end[-1] == '\r')
            end[-1] = '\0';
        p = end + 1;
        if (!*p) /* the last line's newline */
            break;
    }
    const char *slash = strrchr(path, '/');
    s->name = slash ? slash + 1 : path;
    return 0;
}

void source_free(source_text *s)
{
    free(s->text);
    free(s->line);
}

static int word_in(const char *w, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && strncmp(*list, w, n) == 0)
            return 1;
    return 0;
}

static const char *const KEYWORDS[] = {
    "if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case",
    "default", "goto", "sizeof", "typedef", "struct", "union", "enum", "static", "const",
    "volatile", "extern", "inline", "register", "restrict", "template", "typename", "class",
    "namespace", "using", "constexpr", "true", "false", "nullptr", "NULL", "auto", NULL};
static const char *const TYPES[] = {
    "void", "int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool",
    "size_t", "int2", "int4", "float2", "float4", "double2", "uint32_t", "uint64_t", "dim3",
    "__half", "half", NULL};
static const char *const CUDA[] = {
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__restrict__",
    "__forceinline__", "__launch_bounds__", "__syncthreads", "__syncwarp", "threadIdx",
    "blockIdx", "blockDim", "gridDim", "warpSize", "__ldg", "SMEMLAB_LAUNCHER",
    "SMEMLAB_PARAM", "SMEMLAB_SYMBOL", NULL};

static void span(FILE *f, const char *cls, const char *s, size_t n)
{
    char *part = strndup(s, n);
    if (!part)
        return;
    if (cls)
        fprintf(f, "<span class=\"%s\">", cls);
    svg_escape(f, part);
    if (cls)
        fputs("</span>", f);
    free(part);
}

void source_highlight(FILE *f, const char *line, int *in_comment)
{
    const char *p = line;
    if (!*in_comment) { /* a preprocessor line is one colour */
        const char *q = line + strspn(line, " \t");
        if (*q == '#') {
            span(f, "pp", line, strlen(line));
            return;
        }
    }
    while (*p) {
        const char *start = p;
        if (*in_comment || (p[0] == '/' && p[1] == '*')) {
            const char *end = strstr(*in_comment ? p : p + 2, "*/");
            *in_comment = !end;
            p = end ? end + 2 : p + strlen(p);
            span(f, "com", start, (size_t)(p - start));
        } else if (p[0] == '/' && p[1] == '/') {
            span(f, "com", p, strlen(p));
            return;
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q)
                p += p[0] == '\\' && p[1] ? 2 : 1;
            p += *p == q;
            span(f, "str", start, (size_t)(p - start));
        } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
                   ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])))
                p++;
            span(f, "num", start, (size_t)(p - start));
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            size_t n = (size_t)(p - start);
            const char *cls = word_in(start, n, KEYWORDS) ? "kw" : word_in(start, n, TYPES) ? "ty"
                              : word_in(start, n, CUDA) || strncmp(start, "__shfl", 6) == 0 ||
                                        strncmp(start, "atomic", 6) == 0 ? "cu" : NULL;
            span(f, cls, start, n);
        } else {
            while (*p && !isalnum((unsigned char)*p) && !strchr("_\"'/.", *p))
                p++;
            if (p == start)
                p++;
            span(f, NULL, start, (size_t)(p - start));
        }
    }
}

