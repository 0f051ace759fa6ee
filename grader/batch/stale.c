/*
 * stale.c - what this run's reports cover, and what an earlier run left.
 *
 * RESULTS/manifest.txt lists every file the class's reports are now made of
 * (the records, each student's feedback, Gradescope and Autolab files, the
 * report pages of their sources, the class-wide reports). A file in those
 * places that is not on it belongs to a student no longer in the class (gone
 * from the export, or named another way: a roster given or left out since) and
 * is moved, never deleted, to RESULTS/stale/TIME/, its path kept; the summary
 * says how many.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "sb.h"

#include <cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int listed(const char *manifest, const char *rel)
{
    size_t n = strlen(rel);
    for (const char *p = manifest; (p = strstr(p, rel)); p += n)
        if ((p == manifest || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

/* Move RESULTS/rel to RESULTS/stale/TIME/rel: 1 moved, 0 not. */
static int set_apart(const char *results, const char *stamp, const char *rel)
{
    char from[4400], to[4600], dir[4600];
    snprintf(from, sizeof from, "%s/%s", results, rel);
    snprintf(to, sizeof to, "%s/stale/%s/%s", results, stamp, rel);
    snprintf(dir, sizeof dir, "%s", to);
    *strrchr(dir, '/') = 0;
    return mkdir_p(dir, 0755) == 0 && rename(from, to) == 0;
}

/* Every entry of RESULTS/sub (a file, or a folder for gradescope/) not listed. */
static int sweep(const char *results, const char *sub, const char *suffix, const char *manifest,
                 const char *stamp, int folders)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s%s%s", results, sub[0] ? "/" : "", sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int moved = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (e->d_name[0] == '.' || len <= sl || strcmp(e->d_name + len - sl, suffix))
            continue;
        char rel[4400];
        snprintf(rel, sizeof rel, "%s%s%s%s", sub, sub[0] ? "/" : "", e->d_name,
                 folders ? "/results.json" : "");
        if (!listed(manifest, rel)) {
            char what[4400];
            snprintf(what, sizeof what, "%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
            moved += set_apart(results, stamp, what);
        }
    }
    closedir(d);
    return moved;
}

static int page_of(const char *results, const result *r)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/pages/%s.html", results, r->sha256);
    return r->sha256[0] && access(p, F_OK) == 0;
}

/* The report pages of a student's earlier submissions (history/ID/N.json): a dispute
   reads them beside the record, so they stay while the student is in the class. */
static void history_pages(sb *m, const char *results, const char *id)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/history/%s", results, id);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[4700], page[4400];
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = read_file_all(path, NULL, 1 << 24);
        cJSON *rec = text ? cJSON_Parse(text) : NULL;
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(rec, "sha256");
        if (cJSON_IsString(sha) && strlen(sha->valuestring) == 64 && !strchr(sha->valuestring, '/')) {
            snprintf(page, sizeof page, "%s/pages/%s.html", results, sha->valuestring);
            char rel[100];
            snprintf(rel, sizeof rel, "pages/%s.html", sha->valuestring);
            if (access(page, F_OK) == 0 && !(m->s && listed(m->s, rel)))
                sb_printf(m, "%s\n", rel);
        }
        cJSON_Delete(rec);
        free(text);
    }
    closedir(d);
}

int stale_sweep(const batch_opts *o, const result *rs, int n, const char *const *extra, int n_extra)
{
    sb m = {0};
    for (int i = 0; i < n; i++) {
        const char *id = rs[i].student;
        sb_printf(&m, "%s.json\nfeedback/%s.txt\nfeedback/%s.html\ngradescope/%s/results.json\n"
                  "autolab/%s.txt\n", id, id, id, id, id);
        if (page_of(o->results, &rs[i]))
            sb_printf(&m, "pages/%s.html\n", rs[i].sha256);
        history_pages(&m, o->results, id);
    }
    for (int i = 0; i < n_extra; i++)
        sb_printf(&m, "%s\n", extra[i]);
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    int moved = sweep(o->results, "", ".json", m.s ? m.s : "", stamp, 0) +
                sweep(o->results, "feedback", ".txt", m.s ? m.s : "", stamp, 0) +
                sweep(o->results, "feedback", ".html", m.s ? m.s : "", stamp, 0) +
                sweep(o->results, "autolab", ".txt", m.s ? m.s : "", stamp, 0) +
                sweep(o->results, "gradescope", "", m.s ? m.s : "", stamp, 1) +
                sweep(o->results, "pages", ".html", m.s ? m.s : "", stamp, 0);
    char err[512];
    sb_puts(&m, "manifest.txt\n");
    if (write_file_atomic(o->results, "manifest.txt", m.s, m.n, err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s\n", err);
    free(m.s);
    if (moved && o->progress >= -1)
        printf("Set apart %d file%s of students no longer in the class: %s/stale/%s/\n", moved,
               moved == 1 ? "" : "s", o->results, stamp);
    return moved;
}
