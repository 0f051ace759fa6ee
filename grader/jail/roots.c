/*
 * roots.c - the folders a build may read (the student's, common/, the system
 * headers, the toolchain), by their real paths and by their letters, and
 * whether a path lies in one of them: what deps.c and scan.c judge by.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <stdlib.h>
#include <string.h>

/* path with "." and ".." taken away by its letters alone (no symlink followed),
   malloc'd; NULL for a relative path. */
char *roots_lexical(const char *path)
{
    if (path[0] != '/')
        return NULL;
    size_t n = strlen(path);
    char *out = malloc(n + 2);
    size_t k = 0;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.')) {
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (k > 0 && out[k - 1] != '/')
                k--;
            if (k > 0)
                k--;
        } else {
            out[k++] = '/';
            memcpy(out + k, p, len);
            k += len;
        }
        p += len;
    }
    if (k == 0)
        out[k++] = '/';
    out[k] = 0;
    return out;
}

static void roots_put(roots *r, char *real)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->path[i], real)) {
            free(real);
            return;
        }
    if (r->n < JAIL_MAX_ROOTS)
        r->path[r->n++] = real;
    else
        free(real);
}

/* A folder by its real path, and by its letters too where they differ (a
   toolkit reached through symlinks names its headers by the path it was run from). */
void roots_add(roots *r, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        return;
    char *lex = roots_lexical(path);
    if (lex && strcmp(lex, real))
        roots_put(r, lex);
    else
        free(lex);
    roots_put(r, real);
}

int roots_contain(const roots *r, const char *real)
{
    for (int i = 0; i < r->n; i++) {
        size_t len = strlen(r->path[i]);
        if (!strncmp(real, r->path[i], len) &&
            (real[len] == '/' || real[len] == 0 || (len == 1 && r->path[i][0] == '/')))
            return 1;
    }
    return 0;
}
