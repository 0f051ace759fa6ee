/*
 * discover.c - a class as it comes, into one submission per student.
 *
 * The class is a folder or an archive (.zip, .tar, .tar.gz/.tgz, .tar.xz/.txz)
 * of one. A class folder that holds a single folder of submissions (the top
 * folder of an unpacked export) is read inside it. Each entry then belongs
 * to a person: by the naming of a learning system's export (layouts.c:
 * Moodle, Canvas, Blackboard; Gradescope by its submission_metadata.yml), or
 * else the entry is the person (a folder, an archive, or a file NAME.cu).
 * Everything of a person is read as members: files in folders (never
 * following links), archives read with libarchive and never unpacked (one
 * inside another too, up to two deep), each member checked before its bytes
 * are used: absolute paths, '..', links pointing out, device files refuse the
 * whole submission; the caps bound entries, bytes and the lab file. The lab
 * file is labN.cu, or that name as browsers and learning systems rename it
 * (layouts.c: "Lab3.cu", "lab3 (1).cu", "lab3-1.cu", an export's prefix).
 * One such file is taken; of several, the newest upload where the export
 * orders them (Canvas's attachment ids), otherwise none: the refusal names
 * every one. A file empty or only whitespace is an empty submission. Its
 * bytes are kept, nothing else.
 *
 * The student id is safe for file names and the same in every run
 * (names.c); the name as exported is kept for the gradebook; a roster
 * (roster.c) puts ids, names and emails on people.
 */
#define _GNU_SOURCE
#include "layout.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_ARCHIVE_DEPTH 2
#define MAX_CLASS_MEMBERS 1000000
#define MAX_CANDIDATES 8 /* files that could be the lab's, named in a refusal ("and N more") */

enum { M_FILE, M_DIR, M_LINK, M_HARDLINK, M_OTHER };

typedef struct person {
    submission s;
    char key[NAME_MAX_B + 32];
    char attempt[24];       /* Blackboard: the attempt kept */
    char where[700];        /* for messages: "the folder alice/", "alice.zip", "the files of Ada" */
    int where_kind;         /* 0 folder, 1 archive, 2 export files */
    long long entries, bytes;
    int found;              /* files that could be the lab's (exact or renamed) */
    char cand[MAX_CANDIDATES][256];  /* their names, for the refusal */
    long long cand_order[MAX_CANDIDATES]; /* the export's upload order, 0: not known */
    int held_kind;          /* LAB_EXACT or LAB_RENAMED: the file whose bytes are held */
    long long held_order;
    char held_name[256];
    int link_named;
    char link_path[1024];
    int items;
} person;

typedef struct klass {
    const lab_def *lab;
    const discover_limits *lim;
    char want[32];
    person *p;
    int n, cap;
    gs_submission *gs;
    int n_gs;
    char class_name[600]; /* the class archive's name, for messages */
    char err[1024];
} klass;

/* What a member's bytes are read from. */
typedef struct source {
    const char *disk;     /* a file, or */
    struct archive *ar;   /* an archive positioned at the member */
} source;

/* --- small things -------------------------------------------------------------------- */

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && !strcmp(s + a - b, suf);
}

/* Length of the archive extension of name, 0 when it has none we read. */
static size_t archive_ext(const char *name)
{
    static const char *const ext[] = {".tar.gz", ".tar.xz", ".tgz", ".txz", ".zip", ".tar"};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++)
        if (has_suffix(name, ext[i]))
            return strlen(ext[i]);
    return 0;
}

/* A name as a reason shows it: UTF-8 kept, invalid bytes and control characters as U+FFFD. */
static void printable(const char *in, char *out, size_t size)
{
    name_clean(in, out, size);
}

/* Names of no one's work: hidden files, macOS's resource forks. */
static int junk(const char *name)
{
    return name[0] == '.' || !strcmp(name, "__MACOSX") || !strcmp(name, "Thumbs.db");
}

static const char *base_name(const char *p)
{
    const char *b = p;
    for (const char *c = p; *c; c++)
        if ((*c == '/' || *c == '\\') && c[1])
            b = c + 1;
    return b;
}

static void reject(person *p, const char *fmt, ...)
{
    if (p->s.status == ST_REJECTED)
        return; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->s.reason, sizeof p->s.reason, fmt, ap);
    va_end(ap);
    p->s.status = ST_REJECTED;
    free(p->s.code);
    p->s.code = NULL;
    p->s.code_len = 0;
}

/* Absolute, or a '..' component: outside the archive's folder (even if it comes back). */
static int path_escapes(const char *p)
{
    if (!p || !*p || p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':'))
        return 1;
    for (const char *c = p; *c;) {
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
    for (const char *c = at; *c; c++)
        if (*c == '/' && c[1])
            depth++;
    for (const char *c = target; *c;) {
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

/* Up to cap bytes of a member; NULL with *over set when it is larger. */
static char *source_read(source *src, long long cap, size_t *len, int *over)
{
    *over = 0;
    if (src->disk) {
        char *d = read_file_all(src->disk, len, cap);
        if (!d && errno == EFBIG)
            *over = 1;
        return d;
    }
    size_t n = 0, alloc = 65536;
    char *buf = malloc(alloc + 1);
    la_ssize_t got;
    while (buf && (got = archive_read_data(src->ar, buf + n, alloc - n)) > 0) {
        n += (size_t)got;
        if ((long long)n > cap) {
            free(buf);
            *over = 1;
            return NULL;
        }
        if (n == alloc)
            buf = realloc(buf, (alloc *= 2) + 1);
    }
    if (!buf)
        return NULL;
    buf[n] = 0;
    *len = n;
    return buf;
}

static struct archive *archive_new_reader(void)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_xz(a);
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    return a;
}

/* --- people ---------------------------------------------------------------------------- */

static person *person_find(klass *k, const char *key)
{
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->p[i].key, key))
            return &k->p[i];
    return NULL;
}

static person *person_new(klass *k, const char *key)
{
    if (k->n == k->cap)
        k->p = realloc(k->p, sizeof *k->p * (size_t)(k->cap = k->cap ? 2 * k->cap : 64));
    person *p = &k->p[k->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->key, sizeof p->key, "%s", key);
    p->s.status = ST_PENDING;
    p->s.layout = "folder";
    return p;
}

/* The person a top-level entry of the class belongs to (made at its first
 * entry). another_item: this is one more entry of theirs, not a member of one. */
static person *person_of(klass *k, const char *item, int is_dir, export_name *e, int another_item)
{
    char key[NAME_MAX_B + 32], pr[600];
    if (export_parse(item, is_dir, e)) {
        person *p = person_find(k, e->person);
        if (p && !another_item)
            return p;
        if (!p) {
            p = person_new(k, e->person);
            p->s.layout = e->layout;
            name_clean(e->name, p->s.name, sizeof p->s.name);
            name_clean(e->ext_id, p->s.ext_id, sizeof p->s.ext_id);
            snprintf(p->s.entry, sizeof p->s.entry, "%s", item);
            p->where_kind = 2;
            snprintf(p->where, sizeof p->where, "the files of %s", p->s.name);
        } else if (p->items == 1) {
            size_t len = strlen(p->s.entry);
            snprintf(p->s.entry + len, sizeof p->s.entry - len, " ...");
        }
        p->s.late |= e->late;
        p->items++;
        return p;
    }
    e->layout = NULL;
    snprintf(key, sizeof key, "entry:%s", item);
    person *p = person_find(k, key);
    if (p)
        return p;
    p = person_new(k, key);
    p->items = 1;
    snprintf(p->s.entry, sizeof p->s.entry, "%s", item);
    size_t cut = strlen(item);
    if (!is_dir) {
        size_t ext = archive_ext(item);
        cut -= ext ? ext : has_suffix(item, ".cu") ? 3 : 0;
    }
    char name[NAME_MAX_B];
    snprintf(name, sizeof name, "%.*s", (int)cut, item);
    name_clean(name, p->s.name, sizeof p->s.name);
    printable(item, pr, sizeof pr);
    if (is_dir)
        snprintf(p->where, sizeof p->where, "the folder %s/", pr);
    else
        snprintf(p->where, sizeof p->where, "%s", pr);
    p->where_kind = is_dir ? 0 : 1;
    return p;
}

/* Blackboard: a later attempt replaces what an earlier one brought. 0: skip this entry. */
static int attempt_current(person *p, const char *attempt)
{
    if (!attempt[0])
        return 1;
    int c = p->attempt[0] ? strcmp(attempt, p->attempt) : 1;
    if (c < 0)
        return 0;
    if (c > 0) {
        snprintf(p->attempt, sizeof p->attempt, "%s", attempt);
        free(p->s.code);
        p->s.code = NULL;
        p->s.code_len = 0;
        p->s.status = ST_PENDING;
        p->s.reason[0] = 0;
        p->found = 0;
        p->held_kind = 0;
        p->held_order = 0;
        p->entries = p->bytes = 0;
        p->link_named = 0;
    }
    return 1;
}

/* --- members ---------------------------------------------------------------------------- */

static void feed_archive(klass *k, person *p, struct archive *a, const char *shown, int depth,
                         long long order);

/* One file, folder or link of a person's submission. `inner`: its path within
 * the archive holding it (NULL on disk), checked against escaping. `order`:
 * the export's upload order of the file (or of the archive holding it), 0
 * when it gives none. */
static void feed_member(klass *k, person *p, const char *shown, const char *inner,
                        const char *base, int type, const char *link, long long size,
                        source *src, int depth, const char *archive_name, long long order)
{
    if (p->s.status == ST_REJECTED)
        return;
    const discover_limits *lim = k->lim;
    char pr[1200];
    printable(shown, pr, sizeof pr);
    if (++p->entries > lim->max_entries) {
        if (p->where_kind == 0)
            return reject(p, "%s holds more than %lld files and folders (the cap): submit "
                          "only %s", p->where, lim->max_entries, k->want);
        return reject(p, "%s holds more than %lld entries (the cap): submit only %s", p->where,
                      lim->max_entries, k->want);
    }
    if (inner) {
        char in[1200], an[700];
        printable(inner, in, sizeof in);
        printable(archive_name ? archive_name : k->class_name, an, sizeof an);
        if (path_escapes(inner))
            return reject(p, "hostile archive %s: the entry '%s' is outside the archive's "
                          "folder (absolute path or '..'); not unpacked", an, in);
        if (type == M_HARDLINK && path_escapes(link))
            return reject(p, "hostile archive %s: the hard link '%s' points outside the "
                          "archive's folder; not unpacked", an, in);
        if (type == M_LINK && link_escapes(inner, link)) {
            char tp[600];
            printable(link ? link : "", tp, sizeof tp);
            return reject(p, "hostile archive %s: the symbolic link '%s' points outside the "
                          "archive's folder (to '%s'); not unpacked", an, in, tp);
        }
        if (type == M_OTHER)
            return reject(p, "hostile archive %s: the entry '%s' is a device or special file; "
                          "not unpacked", an, in);
        p->bytes += size > 0 ? size : 0;
        if (size > lim->max_archive || p->bytes > lim->max_archive)
            return reject(p, "%s unpacks to more than %lld bytes (the cap): submit only %s", an,
                          lim->max_archive, k->want);
    }
    if (type == M_DIR)
        return;
    int kind = lab_file_kind(base, k->want);
    if (kind) {
        if (type == M_LINK || type == M_HARDLINK) {
            if (inner)
                return reject(p, "%s is a link, not a file: submit the file itself", pr);
            p->link_named = 1;
            snprintf(p->link_path, sizeof p->link_path, "%s", pr);
            return;
        }
        if (type == M_OTHER)
            return reject(p, "%s is a device or special file, not a file: submit the file "
                          "itself", pr);
        if (p->found < MAX_CANDIDATES) {
            snprintf(p->cand[p->found], sizeof p->cand[0], "%s", pr);
            p->cand_order[p->found] = order;
        }
        /* the bytes held: the first file's, or a later upload's by the export's order */
        if (p->found++ && !(p->held_order > 0 && order > p->held_order))
            return;
        size_t len = 0;
        int over;
        char *code = source_read(src, lim->max_source, &len, &over);
        if (over)
            return reject(p, "%s is larger than the cap of %lld bytes", pr, lim->max_source);
        if (!code)
            return reject(p, "cannot read %s: %s", pr, strerror(errno));
        free(p->s.code);
        p->s.code = code;
        p->s.code_len = len;
        p->held_kind = kind;
        p->held_order = order;
        snprintf(p->held_name, sizeof p->held_name, "%s", base);
        snprintf(p->s.source, sizeof p->s.source, "%s", shown);
        return;
    }
    if (type != M_FILE || !archive_ext(base) || depth >= MAX_ARCHIVE_DEPTH)
        return;
    /* An archive of the student's own: read inside, from the disk or from memory. */
    struct archive *a = archive_new_reader();
    char *data = NULL;
    int rc;
    if (src->disk) {
        struct stat st;
        if (stat(src->disk, &st) == 0 && st.st_size > lim->max_archive) {
            archive_read_free(a);
            return reject(p, "%s is %lld bytes, over the cap of %lld", pr, (long long)st.st_size,
                          lim->max_archive);
        }
        rc = archive_read_open_filename(a, src->disk, 16384);
    } else {
        size_t len = 0;
        int over;
        data = source_read(src, lim->max_archive, &len, &over);
        if (over) {
            archive_read_free(a);
            return reject(p, "%s is over the cap of %lld bytes", pr, lim->max_archive);
        }
        rc = data ? archive_read_open_memory(a, data, len) : ARCHIVE_FATAL;
    }
    if (rc != ARCHIVE_OK)
        reject(p, "%s is not a readable archive (.zip, .tar, .tar.gz or .tar.xz: %s): re-pack "
               "it", pr, archive_error_string(a) ? archive_error_string(a) : "empty");
    else
        feed_archive(k, p, a, shown, depth + 1, order);
    archive_read_free(a);
    free(data);
}

/* A header read: ARCHIVE_WARN too (a name libarchive could not convert is still a name). */
static int next_header(struct archive *a, struct archive_entry **e)
{
    int r = archive_read_next_header(a, e);
    return r == ARCHIVE_WARN ? ARCHIVE_OK : r;
}

/* A member's name as the archive stores it (UTF-8 where it says so). */
static const char *member_path(struct archive_entry *e)
{
    const char *p = archive_entry_pathname_utf8(e);
    return p ? p : archive_entry_pathname(e);
}

static int member_type(struct archive_entry *e)
{
    if (archive_entry_hardlink(e))
        return M_HARDLINK;
    switch (archive_entry_filetype(e)) {
    case AE_IFREG: return M_FILE;
    case AE_IFDIR: return M_DIR;
    case AE_IFLNK: return M_LINK;
    default: return M_OTHER;
    }
}

/* Every member of an archive that belongs to p, shown as "SHOWN:member"; they
 * share the archive's upload order. */
static void feed_archive(klass *k, person *p, struct archive *a, const char *shown, int depth,
                         long long order)
{
    struct archive_entry *e;
    int r;
    long long n = 0;
    char pr[700];
    printable(shown, pr, sizeof pr);
    while ((r = next_header(a, &e)) == ARCHIVE_OK && p->s.status != ST_REJECTED) {
        const char *path = member_path(e);
        n++;
        if (!path || !*path)
            path = "(no name)";
        int type = member_type(e);
        const char *link = type == M_HARDLINK ? archive_entry_hardlink(e)
                                              : archive_entry_symlink(e);
        long long size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        char where[2400];
        snprintf(where, sizeof where, "%s:%s", shown, path);
        source src = {.ar = a};
        const char *b = base_name(path);
        if (junk(b) || strstr(path, "__MACOSX/"))
            n--;
        else
            feed_member(k, p, where, path, b, type, link, size, &src, depth, shown, order);
        archive_read_data_skip(a);
        if (archive_filter_bytes(a, 0) > k->lim->max_archive + 65536)
            reject(p, "%s unpacks to more than %lld bytes (the cap): submit only %s", pr,
                   k->lim->max_archive, k->want);
    }
    if (p->s.status == ST_REJECTED)
        return;
    if (r != ARCHIVE_EOF)
        reject(p, "%s is damaged or not a readable archive (.zip, .tar, .tar.gz or .tar.xz: "
               "%s): re-pack it", pr, archive_error_string(a));
    else if (n == 0 && p->where_kind == 1 && depth == 1)
        reject(p, "%s is an empty archive: the student submitted nothing", pr);
}

/* A folder of a person, on disk: its members (shown as "PREFIX/rel"), links never followed. */
static void walk(klass *k, person *p, const char *root, const char *prefix, const char *rel,
                 int depth)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    struct dirent **list;
    int n = scandir(path, &list, NULL, alphasort); /* in name order: the same messages every run */
    if (n < 0) {
        char pr[700];
        printable(rel, pr, sizeof pr);
        return reject(p, "cannot read the folder %s: %s", pr, strerror(errno));
    }
    for (int i = 0; i < n; free(list[i++])) {
        struct dirent *e = list[i];
        if (p->s.status == ST_REJECTED || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            junk(e->d_name))
            continue;
        char sub[2048], full[6200];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st))
            continue;
        int type = S_ISDIR(st.st_mode) ? M_DIR : S_ISREG(st.st_mode) ? M_FILE
                   : S_ISLNK(st.st_mode) ? M_LINK : M_OTHER;
        source src = {.disk = full};
        char shown[2400];
        snprintf(shown, sizeof shown, "%s/%s", prefix, sub);
        feed_member(k, p, shown, NULL, e->d_name, type, NULL, st.st_size, &src, depth, NULL, 0);
        if (type == M_DIR)
            walk(k, p, root, prefix, sub, depth);
    }
    free(list);
}

/* --- one top-level entry --------------------------------------------------------------- */

/*
 * Entry `item` of the class: on disk under dir (src.disk set), or a member
 * of the class archive (src.ar set; folders come as their members). type is
 * the entry's own, inner its path within the class archive (NULL on disk).
 */
static void feed_item(klass *k, const char *item, int is_dir, int type, long long size,
                      source *src, const char *disk_dir, const char *inner)
{
    export_name e;
    person *p = person_of(k, item, is_dir, &e, 1);
    char pr[1200];
    printable(item, pr, sizeof pr);
    if (!attempt_current(p, e.attempt))
        return;
    if (type == M_LINK || type == M_HARDLINK)
        return reject(p, "%s is a symbolic link: put the submission itself in the folder", pr);
    if (type == M_OTHER)
        return reject(p, "%s is not a file or folder", pr);
    if (e.metadata) { /* Blackboard's attempt file: the student's name */
        size_t len;
        int over;
        char *text = source_read(src, 65536, &len, &over);
        char name[NAME_MAX_B] = "";
        if (text)
            blackboard_name(text, name, sizeof name);
        if (name[0])
            name_clean(name, p->s.name, sizeof p->s.name);
        free(text);
        return;
    }
    if (is_dir) {
        if (disk_dir) {
            char root[4096];
            snprintf(root, sizeof root, "%s/%s", disk_dir, item);
            walk(k, p, root, item, "", 0);
        }
        return; /* in an archive, its members follow one by one */
    }
    if (e.layout) { /* an uploaded file, named as the export names it */
        const char *base = e.file[0] ? e.file : item;
        return feed_member(k, p, item, inner, base, type, NULL, size, src, 0, k->class_name,
                           e.order);
    }
    /* The kit's own layout: an archive, a bare STUDENT.cu, or not a submission. */
    if (archive_ext(item) && strlen(item) > archive_ext(item)) {
        if (size > k->lim->max_archive)
            return reject(p, "%s is %lld bytes, over the cap of %lld", pr, size,
                          k->lim->max_archive);
        return feed_member(k, p, item, inner, item, type, NULL, size, src, 0, k->class_name, 0);
    }
    if (has_suffix(item, ".cu") && strlen(item) > 3) {
        snprintf(p->s.source, sizeof p->s.source, "%s", item);
        if (size > k->lim->max_source)
            return reject(p, "%s is %lld bytes, over the cap of %lld", pr, size,
                          k->lim->max_source);
        size_t len;
        int over;
        char *code = source_read(src, k->lim->max_source, &len, &over);
        if (!code)
            return reject(p, over ? "%s is over the cap of %lld bytes" : "cannot read %s",
                          pr, k->lim->max_source);
        p->s.code = code;
        p->s.code_len = len;
        p->found = 1;
        p->held_kind = LAB_EXACT; /* STUDENT.cu: the kit's own name for it */
        snprintf(p->held_name, sizeof p->held_name, "%s", item);
        snprintf(p->cand[0], sizeof p->cand[0], "%s", pr);
        p->entries = 1;
        return;
    }
    if (has_suffix(item, ".cu") || (archive_ext(item) && strlen(item) == archive_ext(item)))
        return reject(p, "'%s' has no name before its extension", pr);
    reject(p, "%s is not a submission: give each student a folder holding %s, an archive of "
           "it (.zip, .tar, .tar.gz, .tar.xz), or a file STUDENT.cu", pr, k->want);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The candidates' names in name order (the same from a folder as from its zip),
 * joined ("a, b and c"), cut to fit. */
static void candidates_text(const person *p, char *out, size_t size)
{
    size_t o = 0;
    int n = p->found < MAX_CANDIDATES ? p->found : MAX_CANDIDATES;
    const char *names[MAX_CANDIDATES];
    for (int i = 0; i < n; i++)
        names[i] = p->cand[i];
    qsort(names, (size_t)n, sizeof *names, by_name);
    out[0] = 0;
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(out + o, o < size ? size - o : 0, "%s%s",
                              i == 0 ? "" : i == n - 1 && n == p->found ? " and " : ", ",
                              names[i]);
    if (p->found > n)
        o += (size_t)snprintf(out + o, o < size ? size - o : 0, " and %d more", p->found - n);
    if (o >= size && size > 4)
        snprintf(out + size - 4, 4, "...");
}

/* Does the export order every candidate (each its own upload order)? */
static int uploads_ordered(const person *p)
{
    if (p->found > MAX_CANDIDATES)
        return 0;
    for (int i = 0; i < p->found; i++) {
        if (p->cand_order[i] <= 0)
            return 0;
        for (int j = 0; j < i; j++)
            if (p->cand_order[j] == p->cand_order[i])
                return 0;
    }
    return 1;
}

/* Nothing in it but spaces, tabs and line ends? */
static int blank(const char *code, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr(" \t\r\n\f\v", code[i]) || !code[i])
            return 0;
    return 1;
}

/* The verdict of a person once everything was read. */
static void finish_person(klass *k, person *p)
{
    if (p->s.status == ST_REJECTED)
        return;
    char names[REASON_MAX / 2];
    if (p->found > 1) {
        candidates_text(p, names, sizeof names);
        if (!uploads_ordered(p))
            return reject(p, "%d files could be %s (%s): the export does not say which is "
                          "the newest, so none is graded: keep exactly one and grade again",
                          p->found, k->want, names);
        snprintf(p->s.source_note, sizeof p->s.source_note, "taken as %s: the newest of %d "
                 "uploads (%s), by the export's upload order", k->want, p->found, names);
    }
    if (p->found >= 1) {
        char shown[320]; /* the file's own name (an export's file name without its prefix) */
        printable(p->held_name, shown, sizeof shown);
        if (p->s.code_len == 0)
            return reject(p, "empty submission: %s is empty (0 bytes)", shown);
        if (blank(p->s.code, p->s.code_len))
            return reject(p, "empty submission: %s holds only spaces and line ends (%zu bytes)",
                          shown, p->s.code_len);
        if (p->found == 1 && p->held_kind == LAB_RENAMED)
            snprintf(p->s.source_note, sizeof p->s.source_note, "named %s, taken as %s",
                     shown, k->want);
        sha256_hex_of(p->s.code, p->s.code_len, p->s.sha256);
        return;
    }
    char count[64];
    if (p->link_named)
        return reject(p, "%s is a symbolic link: submit the file itself", p->link_path);
    if (p->entries == 0 && p->where_kind == 0)
        return reject(p, "empty %s: the student submitted nothing", p->where + 4);
    if (p->entries == 0)
        return reject(p, "%s: nothing was submitted", p->where);
    if (p->where_kind == 0)
        return reject(p, "no %s in %s (looked at %s)", k->want, p->where,
                      count_of((int)p->entries, "file or folder", "files and folders", count,
                               sizeof count));
    reject(p, "no %s in %s (%s)", k->want, p->where,
           count_of((int)p->entries, "entry", "entries", count, sizeof count));
}

/* --- the class --------------------------------------------------------------------------- */

/* Does a class entry look like one student's submission (or an export's entry)? */
static int submission_like(const char *name, int is_dir)
{
    export_name e;
    return is_dir || archive_ext(name) || has_suffix(name, ".cu") ||
           export_parse(name, is_dir, &e) || !strcmp(name, "submission_metadata.yml");
}

/* A student's own lab file (or a renamed one), not an export's entry that names one. */
static int own_lab_file(const char *name, const char *want)
{
    export_name e;
    return lab_file_kind(name, want) && !export_parse(name, 0, &e);
}

/* A class folder holding one folder, which holds two or more submissions (or
 * a Gradescope export) and no lab file of its own (nor a renamed one): the class is in there. */
static void descend_wrappers(const char *want, char *dir, size_t size)
{
    for (int level = 0; level < 4; level++) {
        DIR *d = opendir(dir);
        if (!d)
            return;
        char only[1024] = "";
        int visible = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || junk(e->d_name))
                continue;
            if (visible++ == 0)
                snprintf(only, sizeof only, "%s", e->d_name);
        }
        closedir(d);
        char inner[4096];
        snprintf(inner, sizeof inner, "%s/%s", dir, only);
        struct stat st;
        if (visible != 1 || lstat(inner, &st) || !S_ISDIR(st.st_mode))
            return;
        d = opendir(inner);
        if (!d)
            return;
        int like = 0, lab = 0, yml = 0;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || junk(e->d_name))
                continue;
            char sub[6000];
            snprintf(sub, sizeof sub, "%s/%s", inner, e->d_name);
            int sub_dir = lstat(sub, &st) == 0 && S_ISDIR(st.st_mode);
            like += submission_like(e->d_name, sub_dir);
            lab |= own_lab_file(e->d_name, want);
            yml |= !strcmp(e->d_name, "submission_metadata.yml");
        }
        closedir(d);
        if (lab || (like < 2 && !yml))
            return;
        snprintf(dir, size, "%s", inner);
    }
}

static void read_gradescope(klass *k, const char *yml_text)
{
    free(k->gs);
    k->n_gs = gradescope_parse(yml_text, &k->gs);
}

static int class_folder(klass *k, const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    descend_wrappers(k->want, dir, sizeof dir);
    char yml[4200];
    snprintf(yml, sizeof yml, "%s/submission_metadata.yml", dir);
    char *text = read_file_all(yml, NULL, 16 << 20);
    if (text) {
        read_gradescope(k, text);
        free(text);
    }
    /* in name order: the same ids, entries and messages whatever the file system's order */
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    if (n < 0) {
        snprintf(k->err, sizeof k->err, "cannot read the submissions folder %s: %s", dir,
                 strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        char full[4400];
        snprintf(full, sizeof full, "%s/%s", dir, name);
        struct stat st;
        if (!junk(name) && strcmp(name, "submission_metadata.yml") && lstat(full, &st) == 0) {
            int type = S_ISDIR(st.st_mode) ? M_DIR : S_ISREG(st.st_mode) ? M_FILE
                       : S_ISLNK(st.st_mode) ? M_LINK : M_OTHER;
            source src = {.disk = full};
            feed_item(k, name, type == M_DIR, type, st.st_size, &src, dir, NULL);
        }
        free(list[i]);
    }
    free(list);
    return 0;
}

/* The prefix every member of a class archive shares, when it wraps the class
 * (the rule of descend_wrappers, on the member names). */
static void archive_wrapper(const klass *k, char **paths, int n, char *prefix, size_t size)
{
    prefix[0] = 0;
    for (int level = 0; level < 4; level++) {
        size_t pl = strlen(prefix);
        char top[1024] = "";
        int one = 1;
        for (int i = 0; i < n && one; i++) {
            const char *rel = paths[i] + pl;
            if (strncmp(paths[i], prefix, pl) || !*rel)
                continue;
            const char *slash = strchr(rel, '/');
            char first[256];
            snprintf(first, sizeof first, "%.*s", (int)(slash ? slash - rel : (long)strlen(rel)), rel);
            if (junk(first)) /* __MACOSX/ beside the class: no one's */
                continue;
            if (!slash) { /* a file at this level: no wrapper */
                one = 0;
                break;
            }
            if (!top[0])
                snprintf(top, sizeof top, "%.*s", (int)(slash - rel), rel);
            else if (strncmp(rel, top, strlen(top)) || rel[strlen(top)] != '/')
                one = 0;
        }
        if (!one || !top[0] || junk(top))
            return;
        char inner[2048];
        snprintf(inner, sizeof inner, "%s%s/", prefix, top);
        size_t il = strlen(inner);
        int like = 0, lab = 0, yml = 0;
        char seen[64][256];
        int n_seen = 0;
        for (int i = 0; i < n; i++) {
            if (strncmp(paths[i], inner, il) || !paths[i][il])
                continue;
            const char *rel = paths[i] + il, *slash = strchr(rel, '/');
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(slash ? slash - rel : (long)strlen(rel)), rel);
            int dup = 0;
            for (int s = 0; s < n_seen; s++)
                dup |= !strcmp(seen[s], name);
            if (dup || junk(name))
                continue;
            if (n_seen < 64)
                snprintf(seen[n_seen++], 256, "%s", name);
            like += submission_like(name, slash != NULL);
            lab |= own_lab_file(name, k->want);
            yml |= !strcmp(name, "submission_metadata.yml");
        }
        if (lab || (like < 2 && !yml))
            return;
        snprintf(prefix, size, "%s", inner);
    }
}

static int class_archive(klass *k, const char *path)
{
    snprintf(k->class_name, sizeof k->class_name, "%s", base_name(path));
    /* First pass, names only: the wrapper, and Gradescope's metadata. */
    struct archive *a = archive_new_reader();
    if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        snprintf(k->err, sizeof k->err, "the class archive %s is not readable (%s)", path,
                 archive_error_string(a));
        archive_read_free(a);
        return -1;
    }
    char **paths = NULL;
    int n = 0, cap = 0, r;
    struct archive_entry *e;
    char *yml_text = NULL;
    while ((r = next_header(a, &e)) == ARCHIVE_OK && n < MAX_CLASS_MEMBERS) {
        const char *p = member_path(e);
        if (!p)
            continue;
        if (path_escapes(p)) {
            char pr[700];
            printable(p, pr, sizeof pr);
            snprintf(k->err, sizeof k->err, "the class archive %s has the entry '%s' outside "
                     "its folder (absolute path or '..'): not read", path, pr);
            r = ARCHIVE_FATAL;
            break;
        }
        if (n == cap)
            paths = realloc(paths, sizeof *paths * (size_t)(cap = cap ? 2 * cap : 256));
        size_t len = strlen(p);
        int dir = archive_entry_filetype(e) == AE_IFDIR;
        paths[n] = malloc(len + 2);
        snprintf(paths[n], len + 2, "%s%s", p, dir && len && p[len - 1] != '/' ? "/" : "");
        n++;
        if (!strcmp(base_name(p), "submission_metadata.yml") && !yml_text) {
            source src = {.ar = a};
            size_t l;
            int over;
            yml_text = source_read(&src, 16 << 20, &l, &over);
        }
        archive_read_data_skip(a);
    }
    archive_read_free(a);
    if (r != ARCHIVE_EOF) {
        if (!k->err[0])
            snprintf(k->err, sizeof k->err, "the class archive %s is damaged (or has more "
                     "than %d entries)", path, MAX_CLASS_MEMBERS);
        for (int i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
        free(yml_text);
        return -1;
    }
    char prefix[2048];
    archive_wrapper(k, paths, n, prefix, sizeof prefix);
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    if (yml_text) {
        read_gradescope(k, yml_text);
        free(yml_text);
    }

    /* Second pass: every member to its person. */
    a = archive_new_reader();
    if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        archive_read_free(a);
        return -1;
    }
    size_t pl = strlen(prefix);
    while ((r = next_header(a, &e)) == ARCHIVE_OK) {
        const char *p = member_path(e);
        if (!p || strncmp(p, prefix, pl) || !p[pl]) {
            archive_read_data_skip(a);
            continue;
        }
        const char *rel = p + pl, *slash = strchr(rel, '/');
        char top[1024];
        snprintf(top, sizeof top, "%.*s", (int)(slash ? slash - rel : (long)strlen(rel)), rel);
        int type = member_type(e);
        long long size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        source src = {.ar = a};
        const char *inside = slash ? slash + 1 : "";
        if (junk(top) || !strcmp(top, "submission_metadata.yml") || strstr(rel, "/__MACOSX/") ||
            junk(base_name(rel))) {
            archive_read_data_skip(a);
            continue;
        }
        if (!slash || !*inside) { /* the entry itself: a file, a link, or its folder */
            feed_item(k, top, slash != NULL || type == M_DIR, slash ? M_DIR : type, size, &src,
                      NULL, rel);
        } else { /* a member inside a top-level folder */
            export_name ex;
            person *who = person_of(k, top, 1, &ex, 0);
            if (attempt_current(who, ex.attempt))
                feed_member(k, who, rel, inside, base_name(inside), type,
                            type == M_HARDLINK ? archive_entry_hardlink(e)
                                               : archive_entry_symlink(e),
                            size, &src, 0, k->class_name, 0);
        }
        archive_read_data_skip(a);
    }
    int bad = r != ARCHIVE_EOF;
    if (bad)
        snprintf(k->err, sizeof k->err, "the class archive %s is damaged (%s)", path,
                 archive_error_string(a));
    archive_read_free(a);
    return bad ? -1 : 0;
}

/* --- people named: Gradescope's metadata, the roster, ids --------------------------------- */

/* A Gradescope folder's people: the first is the person, each other a copy. */
static void gradescope_people(klass *k)
{
    int n = k->n;
    for (int i = 0; i < n; i++) {
        person *p = &k->p[i];
        const gs_submission *g = NULL;
        for (int j = 0; j < k->n_gs && !g; j++)
            if (!strcmp(k->gs[j].folder, p->s.entry))
                g = &k->gs[j];
        if (!g || g->n == 0)
            continue;
        for (int s = 0; s < g->n; s++) {
            person *q = p;
            if (s > 0) {
                char key[NAME_MAX_B + 48];
                snprintf(key, sizeof key, "%s#%d", p->key, s);
                person copy = k->p[i];
                copy.s.code = copy.s.code ? memcpy(malloc(copy.s.code_len + 1), copy.s.code,
                                                   copy.s.code_len + 1)
                                          : NULL;
                q = person_new(k, key);
                p = &k->p[i]; /* person_new may have moved the array */
                *q = copy;
                snprintf(q->key, sizeof q->key, "%s", key);
            }
            const gs_person *who = &g->people[s];
            q->s.layout = "gradescope";
            name_clean(who->name[0] ? who->name : p->s.entry, q->s.name, sizeof q->s.name);
            name_clean(who->email, q->s.email, sizeof q->s.email);
            name_clean(who->sid[0] ? who->sid : who->email, q->s.ext_id, sizeof q->s.ext_id);
        }
    }
}

static void assign_ids(klass *k, const roster *ro)
{
    for (int i = 0; i < k->n; i++) {
        submission *s = &k->p[i].s;
        /* Moodle's participant id is per assignment, no one's student id: never matched */
        const char *as_id = !strcmp(s->layout, "moodle") ? NULL
                            : s->ext_id[0] ? s->ext_id : s->name;
        const roster_row *row = ro ? roster_match(ro, as_id, s->email, s->name) : NULL;
        if (row) {
            name_safe_id(row->id, s->student, sizeof s->student);
            snprintf(s->name, sizeof s->name, "%s", row->name);
            if (row->email[0])
                snprintf(s->email, sizeof s->email, "%s", row->email);
            continue;
        }
        /* the export's own identity: its id where it has one, so that a name
           spelled differently next term is still the same student */
        char identity[2 * NAME_MAX_B + 2];
        if (!strcmp(s->layout, "folder"))
            snprintf(identity, sizeof identity, "%s", s->name);
        else if (!strcmp(s->layout, "blackboard")) /* the username; the .txt's name may be missing */
            snprintf(identity, sizeof identity, "%s", s->ext_id);
        else if (s->ext_id[0] && strcmp(s->ext_id, s->name))
            snprintf(identity, sizeof identity, "%s_%s", s->name, s->ext_id);
        else
            snprintf(identity, sizeof identity, "%s", s->name[0] ? s->name : s->entry);
        name_safe_id(identity, s->student, sizeof s->student);
    }
    if (!ro)
        return;
    for (int r = 0; r < ro->n; r++) { /* on the roster, nothing submitted */
        char id[ID_MAX];
        name_safe_id(ro->rows[r].id, id, sizeof id);
        int seen = 0;
        for (int i = 0; i < k->n && !seen; i++)
            seen = !strcmp(k->p[i].s.student, id);
        if (seen)
            continue;
        char key[NAME_MAX_B + 16];
        snprintf(key, sizeof key, "roster:%s", ro->rows[r].id);
        person *p = person_new(k, key);
        p->s.layout = "roster";
        snprintf(p->s.student, sizeof p->s.student, "%s", id);
        snprintf(p->s.name, sizeof p->s.name, "%s", ro->rows[r].name);
        snprintf(p->s.email, sizeof p->s.email, "%s", ro->rows[r].email);
        p->s.status = ST_REJECTED;
        snprintf(p->s.reason, sizeof p->s.reason, "no submission: nothing in the class folder "
                 "is this student's (by id, email or name)");
    }
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

int discover(const char *path, const lab_def *lab, const discover_limits *lim,
             const roster *ro, char *const *only, int n_only, submission **out, char *err,
             size_t errlen)
{
    klass k = {.lab = lab, .lim = lim};
    snprintf(k.want, sizeof k.want, "%s.cu", lab->id);
    struct stat st;
    int rc = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? class_folder(&k, path)
                                                          : class_archive(&k, path);
    if (rc) {
        snprintf(err, errlen, "%s", k.err[0] ? k.err : "cannot read the submissions");
        for (int i = 0; i < k.n; i++)
            free(k.p[i].s.code);
        free(k.p);
        free(k.gs);
        return -1;
    }
    for (int i = 0; i < k.n; i++)
        finish_person(&k, &k.p[i]);
    gradescope_people(&k);
    assign_ids(&k, ro);
    free(k.gs);

    submission *subs = calloc((size_t)(k.n ? k.n : 1), sizeof *subs);
    int m = 0;
    for (int i = 0; i < k.n; i++) {
        if (wanted(k.p[i].s.student, only, n_only))
            subs[m++] = k.p[i].s;
        else
            free(k.p[i].s.code);
    }
    free(k.p);
    qsort(subs, (size_t)m, sizeof *subs, by_student);

    /* Duplicate ids: one submission stands for them all, rejected. */
    int kk = 0;
    for (int i = 0; i < m;) {
        int j = i + 1;
        while (j < m && !strcmp(subs[j].student, subs[i].student))
            j++;
        subs[kk] = subs[i];
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
            snprintf(subs[kk].entry, sizeof subs[kk].entry, "%.*s", (int)sizeof subs[kk].entry - 1, list);
            subs[kk].source[0] = 0;
            free(subs[kk].code);
            subs[kk].code = NULL;
            subs[kk].status = ST_REJECTED;
            snprintf(subs[kk].reason, sizeof subs[kk].reason,
                     "duplicate student id '%s' (entries %s): keep one of them",
                     subs[kk].student, list);
        }
        kk++;
        i = j;
    }
    *out = subs;
    return kk;
}

void submissions_free(submission *s, int n)
{
    for (int i = 0; i < n; i++)
        free(s[i].code);
    free(s);
}
