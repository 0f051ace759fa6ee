/*
 * discover.c - what each entry of SUBMISSIONS_DIR holds.
 *
 * A folder (labN.cu found anywhere inside, exactly once), a .zip, .tar.gz or
 * .tgz of such a folder (read with libarchive, never unpacked: only labN.cu's
 * bytes are kept, after every entry of the archive has been checked), or a
 * bare STUDENT.cu. Anything else gets a reason that says what to do.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int isalnum_ascii(unsigned c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void reject(submission *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->reason, sizeof s->reason, fmt, ap);
    va_end(ap);
    s->status = ST_REJECTED;
    free(s->code);
    s->code = NULL;
    s->code_len = 0;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && !strcmp(s + a - b, suf);
}

/* Printable form of a name for a reason: bytes outside printable ASCII as \xNN. */
static void printable(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < size; p++) {
        if (*p >= 0x20 && *p < 0x7f)
            out[o++] = (char)*p;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", *p);
    }
    out[o] = 0;
}

static const char *bad_name_why(const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p == ' ')
            return "has a space";
        if (*p >= 0x80)
            return "has non-ASCII letters";
        if (!(isalnum_ascii(*p) || *p == '.' || *p == '_' || *p == '-'))
            return "has characters other than letters, digits, '.', '_' and '-'";
    }
    return NULL;
}

static void set_code(submission *s, char *code, size_t len)
{
    free(s->code);
    s->code = code;
    s->code_len = len;
    sha256_hex(code, len, s->sha256);
}

/* --- folders ---------------------------------------------------------------- */

typedef struct walk {
    const char *want; /* "lab3.cu" */
    long long entries, max_entries;
    char found[2][1024]; /* first two matches, relative */
    int n_found;
    int link_named; /* a symlink named labN.cu */
    char link_path[1024];
} walk;

static int walk_dir(const char *root, const char *rel, walk *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++w->entries > w->max_entries) {
            rc = 1;
            break;
        }
        char sub[1024], full[4096];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st))
            continue;
        if (S_ISDIR(st.st_mode))
            rc = walk_dir(root, sub, w);
        else if (!strcmp(e->d_name, w->want)) {
            if (S_ISLNK(st.st_mode)) {
                w->link_named = 1;
                snprintf(w->link_path, sizeof w->link_path, "%s", sub);
            } else if (S_ISREG(st.st_mode)) {
                if (w->n_found < 2)
                    snprintf(w->found[w->n_found], sizeof w->found[0], "%s", sub);
                w->n_found++;
            }
        }
    }
    closedir(d);
    return rc;
}

static void from_folder(const char *dir, const char *name, const char *want,
                        const discover_limits *lim, submission *s)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/%s", dir, name);
    walk w = {.want = want, .max_entries = lim->max_entries};
    int rc = walk_dir(root, "", &w);
    if (rc < 0)
        return reject(s, "cannot read the folder %s/: %s", name, strerror(errno));
    if (rc > 0)
        return reject(s, "the folder %s/ holds more than %lld files and folders (the cap): "
                      "submit only %s", name, lim->max_entries, want);
    if (w.entries == 0)
        return reject(s, "empty folder %s/: the student submitted nothing", name);
    if (w.n_found > 1)
        return reject(s, "%d files named %s (%s/%s and %s/%s): keep exactly one", w.n_found,
                      want, name, w.found[0], name, w.found[1]);
    if (w.n_found == 0 && w.link_named)
        return reject(s, "%s/%s is a symbolic link: submit the file itself", name, w.link_path);
    if (w.n_found == 0)
        return reject(s, "no %s in the folder %s/ (looked at %lld files and folders)", want,
                      name, w.entries);
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root, w.found[0]);
    snprintf(s->source, sizeof s->source, "%s/%s", name, w.found[0]);
    size_t len;
    char *code = read_file_all(path, &len, lim->max_source);
    if (!code && errno == EFBIG)
        return reject(s, "%s is larger than the cap of %lld bytes", s->source, lim->max_source);
    if (!code)
        return reject(s, "cannot read %s: %s", s->source, strerror(errno));
    set_code(s, code, len);
}

/* --- archives ---------------------------------------------------------------- */

/* Depth of a path inside the archive's folder after its components; -1 when
 * it is absolute or a ".." component appears (refused even if it comes back). */
static int path_escapes(const char *p)
{
    if (!p || !*p || p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':'))
        return 1;
    const char *c = p;
    while (*c) {
        const char *end = c;
        while (*end && *end != '/' && *end != '\\')
            end++;
        if (end - c == 2 && c[0] == '.' && c[1] == '.')
            return 1;
        c = *end ? end + 1 : end;
    }
    return 0;
}

/* A symbolic link at `at` pointing to `target`: does it leave the archive's folder? */
static int link_escapes(const char *at, const char *target)
{
    if (!target || !*target || target[0] == '/' || target[0] == '\\')
        return 1;
    int depth = 0;
    for (const char *c = at; *c; c++) /* the folder of `at` */
        if (*c == '/' && c[1])
            depth++;
    const char *c = target;
    while (*c) {
        const char *end = c;
        while (*end && *end != '/' && *end != '\\')
            end++;
        size_t n = (size_t)(end - c);
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            if (--depth < 0)
                return 1;
        } else if (n > 0 && !(n == 1 && c[0] == '.'))
            depth++;
        c = *end ? end + 1 : end;
    }
    return 0;
}

static const char *base_name(const char *p)
{
    const char *b = p;
    for (const char *c = p; *c; c++)
        if ((*c == '/' || *c == '\\') && c[1])
            b = c + 1;
    return b;
}

static int base_is(const char *p, const char *want)
{
    const char *b = base_name(p);
    size_t n = strlen(want);
    return !strncmp(b, want, n) && (b[n] == 0 || b[n] == '/');
}

static void from_archive(const char *dir, const char *name, const char *want,
                         const discover_limits *lim, submission *s)
{
    char path[4096], pr[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, path, 16384) != ARCHIVE_OK) {
        reject(s, "%s is not a readable .zip or .tar.gz (%s): re-pack it", name,
               archive_error_string(a));
        archive_read_free(a);
        return;
    }
    struct archive_entry *e;
    long long n = 0, total = 0;
    int found = 0, r;
    char first[1024] = "", second[1024] = "";
    char *code = NULL;
    size_t code_len = 0;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *p = archive_entry_pathname(e);
        printable(p ? p : "(no name)", pr, sizeof pr);
        if (++n > lim->max_entries) {
            reject(s, "%s holds more than %lld entries (the cap): submit only %s", name,
                   lim->max_entries, want);
            goto out;
        }
        if (path_escapes(p)) {
            reject(s, "hostile archive %s: the entry '%s' is outside the archive's folder "
                   "(absolute path or '..'); not unpacked", name, pr);
            goto out;
        }
        const char *hl = archive_entry_hardlink(e);
        if (hl && path_escapes(hl)) {
            reject(s, "hostile archive %s: the hard link '%s' points outside the archive's "
                   "folder; not unpacked", name, pr);
            goto out;
        }
        mode_t type = archive_entry_filetype(e);
        if (type == AE_IFLNK) {
            const char *t = archive_entry_symlink(e);
            if (link_escapes(p, t)) {
                char tp[600];
                printable(t ? t : "", tp, sizeof tp);
                reject(s, "hostile archive %s: the symbolic link '%s' points outside the "
                       "archive's folder (to '%s'); not unpacked", name, pr, tp);
                goto out;
            }
        }
        la_int64_t size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        total += size > 0 ? size : 0;
        if (size > lim->max_archive || total > lim->max_archive) {
            reject(s, "%s unpacks to more than %lld bytes (the cap): submit only %s", name,
                   lim->max_archive, want);
            goto out;
        }
        if (base_is(p, want) && (type == AE_IFLNK || hl)) {
            reject(s, "%s:%s is a link, not a file: submit the file itself", name, pr);
            goto out;
        }
        if (base_is(p, want) && type == AE_IFREG) {
            if (found == 0)
                snprintf(first, sizeof first, "%s", pr);
            else if (found == 1)
                snprintf(second, sizeof second, "%s", pr);
            found++;
            if (found == 1) {
                size_t cap = (size_t)lim->max_source + 1, len = 0;
                code = malloc(cap + 1);
                la_ssize_t got;
                while (len < cap && (got = archive_read_data(a, code + len, cap - len)) > 0)
                    len += (size_t)got;
                if (len > (size_t)lim->max_source) {
                    reject(s, "%s:%s is larger than the cap of %lld bytes", name, pr,
                           lim->max_source);
                    goto out;
                }
                code[len] = 0;
                code_len = len;
            }
        }
        archive_read_data_skip(a);
        if (archive_filter_bytes(a, 0) > lim->max_archive + 65536) {
            reject(s, "%s unpacks to more than %lld bytes (the cap): submit only %s", name,
                   lim->max_archive, want);
            goto out;
        }
    }
    if (r != ARCHIVE_EOF) {
        reject(s, "%s is damaged or not a .zip/.tar.gz (%s): re-pack it", name,
               archive_error_string(a));
        goto out;
    }
    if (n == 0)
        reject(s, "%s is an empty archive: the student submitted nothing", name);
    else if (found > 1)
        reject(s, "%d files named %s in %s (%s and %s): keep exactly one", found, want, name,
               first, second);
    else if (found == 0)
        reject(s, "no %s in %s (%lld entries)", want, name, n);
    else {
        snprintf(s->source, sizeof s->source, "%s:%s", name, first);
        set_code(s, code, code_len);
        code = NULL;
    }
out:
    free(code);
    archive_read_free(a);
}

/* --- one entry --------------------------------------------------------------- */

void discover_entry(const char *dir, const char *name, const lab_def *lab,
                    const discover_limits *lim, submission *s)
{
    char want[32], path[4096], pr[600];
    snprintf(want, sizeof want, "%s.cu", lab->id);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(s, 0, sizeof *s);
    s->status = ST_PENDING;
    snprintf(s->entry, sizeof s->entry, "%s", name);
    printable(name, pr, sizeof pr);

    /* The student id: the name less its extension, unusable bytes as '_'. */
    size_t cut = strlen(name);
    int archive = 0, bare = 0;
    if (has_suffix(name, ".tar.gz"))
        cut -= 7, archive = 1;
    else if (has_suffix(name, ".tgz") || has_suffix(name, ".zip"))
        cut -= 4, archive = 1;
    else if (has_suffix(name, ".cu"))
        cut -= 3, bare = 1;
    if (cut >= sizeof s->student)
        cut = sizeof s->student - 1;
    for (size_t i = 0; i < cut; i++) {
        unsigned char c = (unsigned char)name[i];
        s->student[i] = (isalnum_ascii(c) || c == '.' || c == '_' || c == '-') ? (char)c : '_';
    }
    s->student[cut] = 0;

    struct stat st;
    if (lstat(path, &st))
        return reject(s, "cannot read %s: %s", pr, strerror(errno));
    const char *why = bad_name_why(name);
    if (why)
        return reject(s, "the name '%s' %s: rename it with letters, digits, '.', '_' and '-' "
                      "only (it becomes the student id)", pr, why);
    if (strlen(name) >= sizeof s->student)
        return reject(s, "the name '%.40s...' is longer than %zu characters", pr,
                      sizeof s->student - 1);
    if (S_ISLNK(st.st_mode))
        return reject(s, "%s is a symbolic link: put the submission itself in the folder", pr);
    if (S_ISDIR(st.st_mode)) {
        if (archive || bare) /* a folder named alice.zip: use its name whole */
            snprintf(s->student, sizeof s->student, "%s", name);
        return from_folder(dir, name, want, lim, s);
    }
    if (!S_ISREG(st.st_mode))
        return reject(s, "%s is not a file or folder", pr);
    if (cut == 0)
        return reject(s, "'%s' has no name before its extension", pr);
    if (archive) {
        if (st.st_size > lim->max_archive)
            return reject(s, "%s is %lld bytes, over the cap of %lld", pr,
                          (long long)st.st_size, lim->max_archive);
        return from_archive(dir, name, want, lim, s);
    }
    if (bare) {
        snprintf(s->source, sizeof s->source, "%s", name);
        if (st.st_size > lim->max_source)
            return reject(s, "%s is %lld bytes, over the cap of %lld", pr,
                          (long long)st.st_size, lim->max_source);
        size_t len;
        char *code = read_file_all(path, &len, lim->max_source);
        if (!code)
            return reject(s, "cannot read %s: %s", pr, strerror(errno));
        set_code(s, code, len);
        return;
    }
    reject(s, "%s is not a submission: give each student a folder holding %s, a .zip or "
           ".tar.gz of it, or a file STUDENT.cu", pr, want);
}

static int by_student(const void *a, const void *b)
{
    const submission *x = a, *y = b;
    int c = strcmp(x->student, y->student);
    return c ? c : strcmp(x->entry, y->entry);
}

static int wanted(const char *id, char *const *only, int n_only)
{
    if (!only)
        return 1;
    for (int i = 0; i < n_only; i++)
        if (!strcmp(only[i], id))
            return 1;
    return 0;
}

int discover(const char *dir, const lab_def *lab, const discover_limits *lim,
             char *const *only, int n_only, submission **out, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot read the submissions folder %s: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') /* ., .., and hidden files (.DS_Store) */
            continue;
        if (n == cap)
            names = realloc(names, sizeof *names * (size_t)(cap = cap ? 2 * cap : 64));
        names[n++] = strdup(e->d_name);
    }
    closedir(d);

    submission *subs = calloc((size_t)(n ? n : 1), sizeof *subs);
    int m = 0;
    for (int i = 0; i < n; i++) {
        discover_entry(dir, names[i], lab, lim, &subs[m]);
        if (!wanted(subs[m].student, only, n_only)) {
            free(subs[m].code);
            memset(&subs[m], 0, sizeof subs[m]);
        } else
            m++;
        free(names[i]);
    }
    free(names);
    qsort(subs, (size_t)m, sizeof *subs, by_student);

    /* Duplicate ids: one submission stands for them all, rejected. */
    int k = 0;
    for (int i = 0; i < m;) {
        int j = i + 1;
        while (j < m && !strcmp(subs[j].student, subs[i].student))
            j++;
        subs[k] = subs[i];
        if (j - i > 1) {
            char list[REASON_MAX / 2] = "";
            size_t o = 0;
            for (int t = i; t < j; t++)
                o += (size_t)snprintf(list + o, o < sizeof list ? sizeof list - o : 0, "%s%s",
                                      t > i ? ", " : "", subs[t].entry);
            if (o >= sizeof list)
                list[sizeof list - 1] = 0;
            for (int t = i + 1; t < j; t++)
                free(subs[t].code);
            snprintf(subs[k].entry, sizeof subs[k].entry, "%.*s", (int)sizeof subs[k].entry - 1, list);
            subs[k].source[0] = 0;
            reject(&subs[k], "duplicate student id '%s' (entries %s): keep one of them",
                   subs[k].student, list);
        }
        k++;
        i = j;
    }
    *out = subs;
    return k;
}

void submissions_free(submission *s, int n)
{
    for (int i = 0; i < n; i++)
        free(s[i].code);
    free(s);
}
