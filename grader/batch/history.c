/*
 * history.c - a re-grade keeps what it replaces. Before a student is graded
 * again, their record moves to RESULTS/history/STUDENT/N.json (N = 1, 2, ...,
 * oldest first), so a dispute can always see the grade that was given and
 * what gave it. After the run, and with --diff at any time, the students whose
 * points changed are listed with why: a new submission, another way of
 * grading (graded_with), and each check whose verdict moved.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many records the student's history holds. */
static int history_count(const char *results, const char *student)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/history/%s", results, student);
    int n = 0;
    struct stat st;
    for (;;) {
        char p[4500];
        snprintf(p, sizeof p, "%s/%d.json", dir, n + 1);
        if (stat(p, &st) != 0)
            return n;
        n++;
    }
}

int history_keep(const char *results, const char *student)
{
    char cur[4400], dir[4400], to[4500];
    snprintf(cur, sizeof cur, "%s/%s.json", results, student);
    if (access(cur, F_OK) != 0)
        return 0;
    snprintf(dir, sizeof dir, "%s/history/%s", results, student);
    if (mkdir_p(dir, 0755) != 0)
        return -1;
    snprintf(to, sizeof to, "%s/%d.json", dir, history_count(results, student) + 1);
    return rename(cur, to);
}

void history_keep_source(const char *results, const submission *s)
{
    char dir[4200], name[80], path[4400], err[512];
    snprintf(dir, sizeof dir, "%s/sources", results);
    snprintf(name, sizeof name, "%s.cu", s->sha256);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!s->code || access(path, F_OK) == 0 || mkdir_p(dir, 0755))
        return;
    if (write_file_atomic(dir, name, s->code, s->code_len, err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s (--reproduce will not find this source)\n", err);
}

/* The record the student had before the last re-grade: 0, or -1 where none. */
static int history_last(const char *results, const char *student, result *r)
{
    int n = history_count(results, student);
    char p[4500];
    snprintf(p, sizeof p, "%s/history/%s/%d.json", results, student, n);
    return n > 0 ? record_read(p, r) : -1;
}

static const check_rec *find_check(const result *r, const check_rec *c)
{
    for (int i = 0; i < r->n_checks; i++)
        if (!strcmp(r->checks[i].kernel, c->kernel) && !strcmp(r->checks[i].check, c->check))
            return &r->checks[i];
    return NULL;
}

/* Why new's grade is not old's, in words: "" when nothing that counts changed. */
static void change_text(const result *old, const result *now, char *out, size_t size)
{
    size_t o = 0;
    out[0] = 0;
#define SAY(...) (o += (size_t)snprintf(out + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__))
    if (old->points == now->points && old->status == now->status &&
        !strcmp(old->graded_with, now->graded_with) && !strcmp(old->sha256, now->sha256))
        return;
    SAY("%g/%g -> %g/%g", old->points, old->max_points, now->points, now->max_points);
    if (old->status != now->status)
        SAY(" (%s -> %s)", status_name(old->status), status_name(now->status));
    if (strcmp(old->sha256, now->sha256))
        SAY("; a new submission (%.12s -> %.12s)", old->sha256, now->sha256);
    if (strcmp(old->graded_with, now->graded_with))
        SAY("; graded another way: was '%s', now '%s'",
            old->graded_with[0] ? old->graded_with : "(not recorded)", now->graded_with);
    int shown = 0;
    for (int i = 0; i < now->n_checks; i++) {
        const check_rec *c = &now->checks[i], *was = find_check(old, c);
        if (was && !strcmp(was->status, c->status) && was->points == c->points)
            continue;
        if (shown++ == 6) {
            SAY(", ...");
            break;
        }
        if (was && !strcmp(was->status, c->status)) /* the same verdict, other points (a course file) */
            SAY("%s %s %s %s %g/%g -> %g/%g", shown == 1 ? "; checks:" : ",", c->kernel, c->check,
                c->status, was->points, was->max_points, c->points, c->max_points);
        else
            SAY("%s %s %s %s -> %s", shown == 1 ? "; checks:" : ",", c->kernel, c->check,
                was ? was->status : "(new)", c->status);
    }
#undef SAY
}

static void print_change(FILE *f, const result *r, const char *why)
{
    fprintf(f, "  %s%s%s%s: %s\n", r->student, r->name[0] && strcmp(r->name, r->student) ? " (" : "",
            r->name[0] && strcmp(r->name, r->student) ? r->name : "",
            r->name[0] && strcmp(r->name, r->student) ? ")" : "", why);
}

void history_report(FILE *f, const batch_opts *o, const result *rs, int n, const int *regraded)
{
    int changed = 0;
    for (int i = 0; i < n; i++) {
        result old;
        if (!regraded[i] || history_last(o->results, rs[i].student, &old) != 0)
            continue;
        char why[2048];
        change_text(&old, &rs[i], why, sizeof why);
        if (why[0]) {
            if (!changed++)
                fprintf(f, "Changed by this run (the earlier records: history/STUDENT/):\n");
            print_change(f, &rs[i], why);
        }
        result_free_checks(&old);
    }
}

int history_diff(const batch_opts *o)
{
    DIR *d = opendir(o->results);
    if (!d) {
        fprintf(stderr, "smemlab-batch: --diff: cannot read %s: %s\n", o->results, strerror(errno));
        return BATCH_EXIT_USAGE;
    }
    struct dirent *e;
    int shown = 0, seen = 0;
    char **names = NULL;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".json") && e->d_name[0] != '.' &&
            strcmp(e->d_name, "class.json")) {
            names = realloc(names, sizeof *names * (size_t)(seen + 1));
            names[seen++] = strndup(e->d_name, len - 5);
        }
    }
    closedir(d);
    qsort(names, (size_t)seen, sizeof *names, (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < seen; i++) {
        char p[4400];
        result now, old;
        snprintf(p, sizeof p, "%s/%s.json", o->results, names[i]);
        if (record_read(p, &now) == 0 && history_last(o->results, names[i], &old) == 0) {
            char why[2048];
            change_text(&old, &now, why, sizeof why);
            if (why[0]) {
                if (!shown++)
                    printf("Changed by the last grading of each student (history/STUDENT/):\n");
                print_change(stdout, &now, why);
            }
            result_free_checks(&old);
        }
        result_free_checks(&now);
        free(names[i]);
    }
    free(names);
    if (!shown)
        printf("No grade in %s changed at its last grading.\n", o->results);
    return BATCH_EXIT_OK;
}
