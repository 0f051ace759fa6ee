/*
 * asguard.c - the host assembler, guarded.
 *
 * gcc writes the student's inline assembly, asm labels and section names
 * into its assembly output verbatim, and the assembler's .incbin and
 * .include read any file the build's user can read: the dependency list
 * never shows those. The jail puts a folder holding "as" (this program) first
 * in the host compiler's search (-Xcompiler -B), so every assembly file is
 * read here first. Refused, anywhere in it (strings and comments too: honest
 * code has no reason to write them): .incbin and .include, and what could
 * spell a directive at assembly time (.macro, .irp, .irpc, .rept, .altmacro,
 * .mri). Otherwise the real assembler runs with the same arguments.
 *
 * Environment (set by the jail): SMEMLAB_JAIL_AS the real assembler,
 * SMEMLAB_JAIL_SOURCE the student's file name for the message,
 * SMEMLAB_JAIL_VERDICT where the refusal is written for the jail to read.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const forbidden[] = {"incbin", "include", "macro", "irp", "irpc",
                                        "rept", "altmacro", "mri"};

static int ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '$';
}

/* The first forbidden directive in text, as ".name", or NULL. */
static const char *find_forbidden(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '.' || (i > 0 && ident_char((unsigned char)text[i - 1])))
            continue;
        size_t j = i + 1;
        while (j < n && (isalnum((unsigned char)text[j]) || text[j] == '_'))
            j++;
        size_t len = j - i - 1;
        if (j < n && (text[j] == '.' || text[j] == '$'))
            continue; /* part of a longer name (.include.x) */
        for (size_t k = 0; k < sizeof forbidden / sizeof *forbidden; k++)
            if (len == strlen(forbidden[k]) && !strncasecmp(text + i + 1, forbidden[k], len))
                return forbidden[k];
    }
    return NULL;
}

static char *read_all(int fd, size_t *len)
{
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    ssize_t got;
    while (buf && (got = read(fd, buf + n, cap - n)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            free(buf);
            return NULL;
        }
        n += (size_t)got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    *len = n;
    return buf;
}

static int refuse(const char *directive)
{
    const char *src = getenv("SMEMLAB_JAIL_SOURCE");
    char msg[512];
    snprintf(msg, sizeof msg, "%s makes the assembler read a file or expand macros (.%s): "
             "a submission may not use .incbin, .include or assembler macros",
             src && *src ? src : "the source", directive);
    fprintf(stderr, "%s%s\n", JAIL_PREFIX, msg);
    const char *vpath = getenv("SMEMLAB_JAIL_VERDICT");
    if (vpath && *vpath) {
        int fd = open(vpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ssize_t w = write(fd, msg, strlen(msg));
            (void)w; /* the message on stderr says it anyway */
            close(fd);
        }
    }
    return 1;
}

/* Options of GNU as that take their value as the next argument. */
static int takes_value(const char *a)
{
    static const char *const opts[] = {"-o", "-I", "--defsym", "-MD", "--MD", "--debug-prefix-map",
                                       "--gdwarf-cie-version", "--compress-debug-sections"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        if (!strcmp(a, opts[i]))
            return strcmp(a, "--compress-debug-sections") != 0;
    return 0;
}

/* "$TMPDIR/.asguard-ran": the jail checks that the host compiler ran us at all. */
static void mark_ran(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/.asguard-ran", dir && *dir ? dir : "/tmp");
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

int asguard_main(int argc, char **argv)
{
    mark_ran();
    const char *real = getenv("SMEMLAB_JAIL_AS");
    if (!real || !*real) {
        fprintf(stderr, "%sthe assembler guard was run without SMEMLAB_JAIL_AS\n", JAIL_PREFIX);
        return 1;
    }
    int inputs = 0;
    char tmp[4200] = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (takes_value(a)) {
            i++;
            continue;
        }
        if (a[0] == '-' && a[1])
            continue;
        inputs++;
        int fd;
        if (!strcmp(a, "-")) { /* from a pipe: keep it in a file for the real assembler */
            const char *dir = getenv("TMPDIR");
            snprintf(tmp, sizeof tmp, "%s/smemlab-as.XXXXXX.s", dir && *dir ? dir : "/tmp");
            int out = mkstemps(tmp, 2);
            size_t len;
            char *text = read_all(0, &len);
            if (out < 0 || !text)
                return 1;
            const char *bad = find_forbidden(text, len);
            if (bad) {
                unlink(tmp);
                return refuse(bad);
            }
            if (write(out, text, len) != (ssize_t)len)
                return 1;
            close(out);
            free(text);
            argv[i] = tmp;
            continue;
        }
        fd = open(a, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* the assembler will say so */
        size_t len;
        char *text = read_all(fd, &len);
        close(fd);
        const char *bad = text ? find_forbidden(text, len) : NULL;
        free(text);
        if (bad)
            return refuse(bad);
    }
    if (inputs == 0) { /* no file named: the assembly comes on stdin */
        size_t len;
        char *text = read_all(0, &len);
        const char *bad = text ? find_forbidden(text, len) : NULL;
        if (bad)
            return refuse(bad);
        const char *dir = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/smemlab-as.XXXXXX.s", dir && *dir ? dir : "/tmp");
        int out = mkstemps(tmp, 2);
        if (out < 0 || !text || write(out, text, len) != (ssize_t)len)
            return 1;
        close(out);
        free(text);
        char **args = calloc((size_t)argc + 2, sizeof *args);
        for (int i = 0; i < argc; i++)
            args[i] = argv[i];
        args[argc] = tmp;
        argv = args;
    }
    argv[0] = (char *)real;
    execv(real, argv);
    fprintf(stderr, "%scannot run the assembler %s: %s\n", JAIL_PREFIX, real, strerror(errno));
    return 1;
}
