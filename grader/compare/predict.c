/* predict.c - read the student's PREDICT lines and judge them (see predict.h). */
#define _POSIX_C_SOURCE 200809L
#include "predict.h"

#include "compare.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest line looked at; a PREDICT line longer than this is reported, not read. */
#define LINE_MAX_SCAN 512
#define TOKENS_MAX 16
#define NUMBER_MAX 12 /* "32", "1.5", "1.0625": anything longer is no degree */

static const char KEYWORD[] = "PREDICT";
static const char EXAMPLE[] = "e.g. // PREDICT setRowReadCol store 1 load 32";

const char *predict_access_name(predict_access a)
{
    return a == PREDICT_STORE ? "store" : a == PREDICT_LOAD ? "load" : "const";
}

static void note(predict_set *s, int line, const char *fmt, ...)
{
    if (s->n_notes >= PREDICT_MAX_NOTES) {
        s->notes_dropped++;
        return;
    }
    char *buf = s->notes[s->n_notes++];
    int n = snprintf(buf, PREDICT_NOTE_MAX, "line %d: ", line);
    if (n < 0 || n >= PREDICT_NOTE_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, PREDICT_NOTE_MAX - (size_t)n, fmt, ap);
    va_end(ap);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}

static int is_ident(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= PREDICT_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!letter && !(i > 0 && c >= '0' && c <= '9'))
            return 0;
    }
    return 1;
}

/* A degree: digits with at most one '.', 1 <= value <= 32. Returns 0 and *out, or -1. */
static int parse_degree(const char *s, double *out)
{
    size_t n = strlen(s);
    int dots = 0, digits = 0;
    if (n == 0 || n > NUMBER_MAX)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.')
            dots++;
        else if (s[i] >= '0' && s[i] <= '9')
            digits++;
        else
            return -1;
    }
    if (dots > 1 || digits == 0)
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == NULL || *end != '\0' || !isfinite(v) || v < 1.0 ||
        v > PREDICT_MAX_DEGREE)
        return -1;
    *out = v;
    return 0;
}

static prediction *find_mut(predict_set *s, const char *kernel, predict_access a)
{
    for (int i = 0; i < s->count; i++)
        if (s->items[i].access == a && strcmp(s->items[i].kernel, kernel) == 0)
            return &s->items[i];
    return NULL;
}

const prediction *predict_find(const predict_set *set, const char *kernel, predict_access access)
{
    if (set == NULL || kernel == NULL)
        return NULL;
    for (int i = 0; i < set->count; i++)
        if (set->items[i].access == access && strcmp(set->items[i].kernel, kernel) == 0)
            return &set->items[i];
    return NULL;
}

/*
 * One line, already copied into buf (NUL-terminated, no NUL inside). If it
 * is a PREDICT comment, add what it predicts or a note saying what is wrong.
 */
static void parse_line(predict_set *s, char *buf, int lineno, int too_long)
{
    char *p = buf;
    while (*p == ' ' || *p == '\t')
        p++;
    if (p[0] == '/' && (p[1] == '/' || p[1] == '*'))
        p += 2;
    else if (p[0] == '*' && p[1] != '/')
        p += 1;
    else
        return; /* not a comment line */
    while (*p == ' ' || *p == '\t' || *p == '/' || *p == '*')
        p++;
    size_t kw = sizeof KEYWORD - 1;
    if (strncmp(p, KEYWORD, kw) != 0 || !is_space(p[kw]))
        return;
    if (too_long) {
        note(s, lineno, "a PREDICT line longer than %d characters is not read", LINE_MAX_SCAN);
        return;
    }
    p += kw;

    char *tok[TOKENS_MAX];
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(p, " \t\r\v\f", &save); t != NULL;
         t = strtok_r(NULL, " \t\r\v\f", &save)) {
        size_t n = strlen(t);
        if (n >= 2 && strcmp(t + n - 2, "*/") == 0) { /* end of a block comment */
            t[n - 2] = '\0';
            if (n == 2)
                break;
        }
        if (nt == TOKENS_MAX) {
            note(s, lineno, "too many words after PREDICT (%s)", EXAMPLE);
            return;
        }
        tok[nt++] = t;
    }
    if (nt == 0 || !is_ident(tok[0])) {
        note(s, lineno, "PREDICT needs a kernel name first (%s)", EXAMPLE);
        return;
    }
    if (nt == 1 || nt % 2 == 0) {
        note(s, lineno, "after the kernel name write 'store N' and/or 'load N', or 'const N' "
             "(%s)", EXAMPLE);
        return;
    }
    /* Check the whole line before keeping anything from it. */
    double deg[3] = {0, 0, 0};
    int have[3] = {0, 0, 0}, given[3] = {0, 0, 0};
    for (int i = 1; i + 1 < nt; i += 2) {
        int a;
        if (strcmp(tok[i], "store") == 0)
            a = PREDICT_STORE;
        else if (strcmp(tok[i], "load") == 0)
            a = PREDICT_LOAD;
        else if (strcmp(tok[i], "const") == 0)
            a = PREDICT_CONST;
        else {
            note(s, lineno, "expected 'store', 'load' or 'const' where word %d is (%s)", i + 1,
                 EXAMPLE);
            return;
        }
        if (given[a]) {
            note(s, lineno, "'%s' appears twice", predict_access_name((predict_access)a));
            return;
        }
        given[a] = 1;
        if (strcmp(tok[i + 1], "?") == 0)
            continue; /* not predicted yet */
        if (parse_degree(tok[i + 1], &deg[a]) != 0) {
            if (a == PREDICT_CONST)
                note(s, lineno, "the const count must be a number of addresses from 1 (a "
                     "broadcast) to 32, or ?");
            else
                note(s, lineno, "the %s degree must be a number from 1 (conflict-free) to 32, "
                     "or ?", predict_access_name((predict_access)a));
            return;
        }
        have[a] = 1;
    }
    for (int a = 0; a < 3; a++) {
        if (!have[a])
            continue;
        prediction *old = find_mut(s, tok[0], (predict_access)a);
        if (old != NULL) {
            note(s, lineno, "%s %s was predicted on line %d too; this line counts", tok[0],
                 predict_access_name((predict_access)a), old->line);
            old->degree = deg[a];
            old->line = lineno;
            continue;
        }
        if (s->count >= PREDICT_MAX) {
            s->dropped++;
            continue;
        }
        prediction *n = &s->items[s->count++];
        snprintf(n->kernel, sizeof n->kernel, "%s", tok[0]);
        n->access = (predict_access)a;
        n->degree = deg[a];
        n->line = lineno;
    }
}

void predict_parse_text(const char *text, size_t len, predict_set *out)
{
    memset(out, 0, sizeof *out);
    if (text == NULL)
        return;
    char buf[LINE_MAX_SCAN + 1];
    size_t pos = 0;
    int lineno = 0;
    while (pos < len) {
        lineno++;
        size_t n = 0;
        int too_long = 0;
        while (pos < len && text[pos] != '\n') {
            if (n < LINE_MAX_SCAN)
                buf[n++] = text[pos] == '\0' ? ' ' : text[pos];
            else
                too_long = 1;
            pos++;
        }
        pos++; /* the newline */
        buf[n] = '\0';
        parse_line(out, buf, lineno, too_long);
        if (lineno == 0x7fffffff)
            break;
    }
}

int predict_parse(const char *path, predict_set *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (err_size > 0)
        err[0] = '\0';
    if (path == NULL || path[0] == '\0') {
        snprintf(err, err_size, "no lab file given to read predictions from");
        return -1;
    }
    /* O_NONBLOCK: a FIFO put in the file's place must not hang the grader. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_size, "cannot read predictions from %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "cannot read predictions from %s: not a regular file", path);
        close(fd);
        return -1;
    }
    char *text = malloc((size_t)PREDICT_MAX_BYTES + 1);
    if (text == NULL) {
        snprintf(err, err_size, "out of memory reading %s", path);
        close(fd);
        return -1;
    }
    size_t len = 0;
    int failed = 0;
    while (len < (size_t)PREDICT_MAX_BYTES + 1) {
        ssize_t r = read(fd, text + len, (size_t)PREDICT_MAX_BYTES + 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, err_size, "cannot read predictions from %s: %s", path, strerror(errno));
            failed = 1;
            break;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (failed) {
        free(text);
        return -1;
    }
    int truncated = len > (size_t)PREDICT_MAX_BYTES;
    if (truncated)
        len = (size_t)PREDICT_MAX_BYTES;
    predict_parse_text(text, len, out);
    out->truncated = truncated;
    free(text);
    return 0;
}

/* "32-way conflict", or for const "30 distinct addresses a request". */
static const char *amount_text(predict_access a, double v, char *buf, size_t size)
{
    if (a != PREDICT_CONST)
        return degree_text(v, buf, size);
    snprintf(buf, size, "%.3g distinct address%s a request", v, v == 1.0 ? "" : "es");
    return buf;
}

/* "3.31- to 3.99-way conflict", "27.1 to 33.2 distinct addresses a request": the range
   a check accepts; "" where it is one value. */
static void range_text(predict_access a, double lo, double hi, char *buf, size_t size)
{
    buf[0] = '\0';
    if (hi - lo < 0.01)
        return;
    if (a == PREDICT_CONST)
        snprintf(buf, size, " (the check accepts %.3g to %.3g)", lo, hi);
    else if (lo < 1.005)
        snprintf(buf, size, " (the check accepts conflict-free to %.2f-way)", hi);
    else
        snprintf(buf, size, " (the check accepts %.2f- to %.2f-way)", lo, hi);
}

predict_verdict predict_judge(const prediction *p, const predict_against *a, char *text,
                              size_t text_size)
{
    char want[48], got[48], range[96];
    const char *kernel = p->kernel, *access = predict_access_name(p->access);
    double measured = a->measured;
    amount_text(p->access, p->degree, want, sizeof want);
    if (!isfinite(measured) || measured < 1.0 - DEGREE_TOLERANCE) {
        snprintf(text, text_size, "%s %s: you predicted %s; not measured, so not compared",
                 kernel, access, want);
        return PREDICT_NOT_MEASURED;
    }
    double m = measured < 1.0 ? 1.0 : measured;
    amount_text(p->access, m, got, sizeof got);
    if (a->code_differs) { /* the prediction is of the exercise's code, not of this one */
        snprintf(text, text_size, "%s %s: you predicted %s; your kernel measured %s, and %s "
                 "says how its code differs from the exercise's: the prediction is judged "
                 "once it passes", kernel, access, want, got, a->check ? a->check : "its check");
        return PREDICT_NOT_JUDGED;
    }
    int right;
    if (a->hi > 0) {
        right = p->degree >= a->lo && p->degree <= a->hi;
        range_text(p->access, a->lo, a->hi, range, sizeof range);
    } else {
        double larger = m > p->degree ? m : p->degree;
        right = fabs(m - p->degree) <= DEGREE_TOLERANCE * larger;
        range[0] = '\0';
    }
    snprintf(text, text_size, "%s %s: you predicted %s, measured %s: %s%s", kernel, access, want,
             got, right ? "right" : p->access == PREDICT_CONST
                                     ? "not this time (count the distinct words a warp's 32 "
                                       "lanes read at once)"
                                     : "not this time (work out the banks of lanes 0, 1 and 2)",
             right ? range : "");
    return right ? PREDICT_RIGHT : PREDICT_WRONG;
}
