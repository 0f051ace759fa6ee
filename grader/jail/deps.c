/*
 * deps.c - the portable check of what the preprocessor read.
 *
 * nvcc -M runs the preprocessor over the student's file for the host and for
 * every device architecture and lists every file it read (the names in the
 * line markers of its output: a #line naming a file shows up too). Each must
 * lie in the student's folder, in common/, or in a folder the host compiler
 * or CUDA searches for system headers (asked of the host compiler itself,
 * gcc -E -v). Anything else (another student's folder, the kit's solutions,
 * /etc, /dev, /proc) refuses the build, naming the path as the student wrote
 * it. Where Landlock refused the read first, the preprocessor's own error
 * ("fatal error: NAME: Permission denied") is turned into the same reason.
 */
#define _GNU_SOURCE
#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- system headers: where the host compiler and CUDA look ------------------------- */

/* argv's output (stdout and stderr) in a malloc'd string, or NULL. */
static char *capture(char *const argv[], char *const envp[])
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC))
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        dup2(nul, 0);
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        execve(argv[0], argv, envp);
        _exit(127);
    }
    close(fd[1]);
    size_t n = 0, cap = 8192;
    char *buf = malloc(cap);
    ssize_t got;
    while (pid > 0 && buf && (got = read(fd[0], buf + n, cap - n - 1)) > 0) {
        n += (size_t)got;
        if (n + 1 >= cap && cap < (1 << 20))
            buf = realloc(buf, cap *= 2);
        else if (n + 1 >= cap)
            break;
    }
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    if (buf)
        buf[n] = 0;
    return buf;
}

/* The folders the host compiler searches for #include <...> (gcc -E -x c++ -v -). */
static void host_include_dirs(jail_opts *o, const char *cxx, char *const envp[])
{
    char *argv[] = {(char *)cxx, "-E", "-x", "c++", "-v", "-", NULL};
    char *text = capture(argv, envp);
    if (!text)
        return;
    int on = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "search starts here:")) {
            on = 1;
            continue;
        }
        if (!strncmp(line, "End of search list", 18))
            break;
        if (on && line[0] == ' ') {
            char *dir = line + 1;
            char *note = strstr(dir, " (framework directory)");
            if (note)
                *note = 0;
            roots_add(&o->system, dir);
        }
    }
    free(text);
}

/* The folders nvcc itself passes to its preprocessor, as its dry run prints them
   (TOP=..., INCLUDES="-I...", SYSTEM_INCLUDES="-isystem" "..."): the truth
   wherever the toolkit lives and however nvcc was reached (a symlink, a wrapper). */
static void nvcc_include_dirs(jail_opts *o, char *const envp[])
{
    char *argv[] = {o->argv[0], "--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null", NULL};
    char *text = capture(argv, envp);
    if (!text)
        return;
    char dir[4200];
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "#$ TOP=", 7)) {
            roots_add(&o->toolchain, line + 7); /* cicc, ptxas and friends run from here */
            snprintf(dir, sizeof dir, "%s/include", line + 7);
            roots_add(&o->system, dir);
            snprintf(dir, sizeof dir, "%s/targets", line + 7);
            roots_add(&o->system, dir);
        } else if (!strncmp(line, "#$ INCLUDES=", 12) || !strncmp(line, "#$ SYSTEM_INCLUDES=", 19)) {
            /* quoted words; a word after -I glued or after a lone "-isystem" is a folder */
            int next_is_dir = 0;
            for (char *q = strchr(line, '"'); q; ) {
                char *end = strchr(q + 1, '"');
                if (!end)
                    break;
                *end = 0;
                const char *w = q + 1;
                if (next_is_dir)
                    roots_add(&o->system, w);
                else if (!strncmp(w, "-I", 2) && w[2])
                    roots_add(&o->system, w + 2);
                else if (!strncmp(w, "-isystem", 8) && w[8])
                    roots_add(&o->system, w + 8);
                next_is_dir = !strcmp(w, "-isystem") || !strcmp(w, "-I");
                q = strchr(end + 1, '"');
            }
        }
    }
    free(text);
}

void deps_system_roots(jail_opts *o, char *const envp[])
{
    /* CUDA: the toolkit's include folder, and its targets/ (cuda_runtime.h's home),
       beside nvcc as named and as resolved, and wherever nvcc says it looks. */
    char nvcc_real[4096], dir[4200];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            snprintf(nvcc_real, sizeof nvcc_real, "%s", o->argv[0]);
        else if (!realpath(o->argv[0], nvcc_real))
            continue;
        char *slash = strrchr(nvcc_real, '/');
        if (slash) {
            *slash = 0;
            snprintf(dir, sizeof dir, "%s/../include", nvcc_real);
            roots_add(&o->system, dir);
            snprintf(dir, sizeof dir, "%s/../targets", nvcc_real);
            roots_add(&o->system, dir);
        }
    }
    nvcc_include_dirs(o, envp);
    /* The host compiler: -ccbin's if the command names one, else gcc on PATH. */
    const char *ccbin = NULL;
    for (int i = 1; i + 1 < o->argc; i++)
        if (!strcmp(o->argv[i], "-ccbin") || !strcmp(o->argv[i], "--compiler-bindir"))
            ccbin = o->argv[i + 1];
    char cxx[4300] = "";
    struct stat st;
    if (ccbin && stat(ccbin, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(cxx, sizeof cxx, "%s/g++", ccbin);
    else if (ccbin && strchr(ccbin, '/'))
        snprintf(cxx, sizeof cxx, "%s", ccbin);
    else {
        const char *path = getenv("PATH");
        char *copy = strdup(path ? path : "/usr/bin:/bin");
        for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !cxx[0];
             d = strtok_r(NULL, ":", &save)) {
            char cand[4300];
            snprintf(cand, sizeof cand, "%s/%s", d, ccbin ? ccbin : "gcc");
            if (access(cand, X_OK) == 0)
                snprintf(cxx, sizeof cxx, "%s", cand);
        }
        free(copy);
    }
    if (cxx[0]) {
        host_include_dirs(o, cxx, envp);
        /* the host compiler's own prefix (a compiler outside /usr, /opt/gcc-12/bin/gcc) */
        char real[4096];
        if (realpath(cxx, real)) {
            char *s1 = strrchr(real, '/');
            if (s1) {
                *s1 = 0;
                char *s2 = strrchr(real, '/');
                if (s2 && s2 != real)
                    *s2 = 0;
                roots_add(&o->toolchain, real);
            }
        }
    }
}

/* --- the dependency list --------------------------------------------------------------- */

const char *deps_display(const jail_opts *o, const char *dep, char *buf, size_t n)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->source);
    char *slash = strrchr(dir, '/');
    if (slash) {
        slash[1] = 0;
        size_t len = strlen(dir);
        if (!strncmp(dep, dir, len) && dep[len]) {
            snprintf(buf, n, "%s", dep + len);
            return buf;
        }
    }
    size_t len = strlen(o->source_dir);
    if (!strncmp(dep, o->source_dir, len) && dep[len] == '/' && dep[len + 1]) {
        snprintf(buf, n, "%s", dep + len + 1);
        return buf;
    }
    snprintf(buf, n, "%s", dep);
    return buf;
}

/* Is the file the preprocessor read at `dep` one it may read? */
static int dep_allowed(const jail_opts *o, const char *dep)
{
    char *real = realpath(dep, NULL);
    if (!real)
        return 0; /* it read a file that is not there now: not one of ours */
    int ok = roots_contain(&o->readable, real) || roots_contain(&o->system, real);
    char *lex = ok ? NULL : roots_lexical(dep);
    if (lex) /* named inside a system folder and really inside one too */
        ok = roots_contain(&o->system, lex);
    if (getenv("SMEMLAB_JAIL_DEBUG") && !ok) {
        fprintf(stderr, "smemlab-build-jail: debug: %s -> %s (%s) not under:", dep, real, lex ? lex : "-");
        for (int i = 0; i < o->system.n; i++)
            fprintf(stderr, " %s", o->system.path[i]);
        fprintf(stderr, "\n");
    }
    free(lex);
    free(real);
    return ok;
}

/* The names of a make rule "target : dep \\\n dep ...", unescaped ("\ " is a space). */
static int next_dep(const char **p, char *out, size_t size)
{
    const char *s = *p;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (s[0] == '\\' && (s[1] == '\n' || s[1] == '\r')) {
            s += 2;
            continue;
        }
        break;
    }
    if (!*s)
        return 0;
    size_t k = 0;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
        if (s[0] == '\\' && (s[1] == ' ' || s[1] == '#' || s[1] == '\\')) {
            s++;
        } else if (s[0] == '\\' && (s[1] == '\n' || s[1] == '\r'))
            break;
        else if (s[0] == '$' && s[1] == '$')
            s++;
        if (k + 1 < size)
            out[k++] = *s;
        s++;
    }
    out[k] = 0;
    *p = s;
    return 1;
}

const char *deps_check(const jail_opts *o, const char *deps_text)
{
    static char why[1200];
    const char *p = deps_text;
    char dep[4096], shown[4096];
    int after_colon = 0;
    while (next_dep(&p, dep, sizeof dep)) {
        if (!after_colon) { /* "lab3.o :" or "lab3.o:" */
            size_t len = strlen(dep);
            if (!strcmp(dep, ":"))
                after_colon = 1;
            else if (len && dep[len - 1] == ':')
                after_colon = 1;
            continue;
        }
        if (!strcmp(dep, ":") || (strlen(dep) && dep[strlen(dep) - 1] == ':'))
            continue; /* a second rule (another source) */
        if (!dep_allowed(o, dep))
            return outside_reason(o, deps_display(o, dep, shown, sizeof shown));
        /* the student's own files besides the one scanned first: scanned as it was */
        char *real = realpath(dep, NULL);
        char src_real[4096];
        if (real && realpath(o->source, src_real) && strcmp(real, src_real) &&
            !strncmp(real, o->source_dir, strlen(o->source_dir)) &&
            real[strlen(o->source_dir)] == '/') {
            const char *r = scan_file(o, real, deps_display(o, dep, shown, sizeof shown));
            if (r) {
                snprintf(why, sizeof why, "%s", r);
                free(real);
                return why;
            }
        }
        free(real);
    }
    return NULL;
}

/*
 * nvcc -M failed: did the preprocessor stop at a file it may not read
 * ("lab3.cu:1:10: fatal error: /x/y: Permission denied" under Landlock), or
 * complain about one outside the allowed folders (it read it, as a machine
 * without Landlock does)? Then that is the reason, and nothing it said is shown.
 */
const char *deps_failure(const jail_opts *o, const char *text)
{
    char *copy = strdup(text);
    const char *r = NULL;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line && !r;
         line = strtok_r(NULL, "\n", &save)) {
        char *denied = strstr(line, ": Permission denied");
        char *fatal = strstr(line, "error: ");
        if (denied && fatal && fatal < denied) {
            *denied = 0;
            r = outside_reason(o, fatal + 7);
            break;
        }
        /* "FILE:LINE:COL: ..." and "In file included from FILE:LINE" */
        char *start = line;
        if (!strncmp(start, "In file included from ", 22))
            start += 22;
        else if (!strncmp(start, "                 from ", 22))
            start += 22;
        char *colon = strchr(start, ':');
        if (!colon || colon == start || colon[1] < '0' || colon[1] > '9')
            continue;
        *colon = 0;
        struct stat st;
        if (stat(start, &st) == 0 && !dep_allowed(o, start)) {
            char shown[4096];
            r = outside_reason(o, deps_display(o, start, shown, sizeof shown));
        }
    }
    static char keep[1200];
    if (r) {
        snprintf(keep, sizeof keep, "%s", r);
        r = keep;
    }
    free(copy);
    return r;
}
