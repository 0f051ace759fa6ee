/*
 * roster.c - --roster FILE: the class list, to put people's ids, names and
 * emails on what a learning system exported.
 *
 * FILE is CSV (RFC 4180, UTF-8, a byte-order mark allowed) with a header
 * naming at least the columns id and name (email optional; other columns are
 * ignored; "student id", "sid", "username" are taken for id). A submission is
 * matched to a row by, in turn: the id the export carries (Canvas's user id,
 * Blackboard's username, Gradescope's SID, the entry's own name), the email
 * (Gradescope), or the name, compared folded (accents, case, spaces and
 * punctuation ignored) and in every order of its words, since Canvas writes
 * "lovelaceada" for Ada Lovelace. A name shared by two rows matches neither.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One CSV record from *p into fields (malloc'd); returns the count, -1 at the end. */
static int csv_record(const char **p, char **fields, int max)
{
    const char *s = *p;
    if (!*s)
        return -1;
    int n = 0;
    for (;;) {
        size_t cap = 64, len = 0;
        char *f = malloc(cap);
        if (*s == '"') {
            s++;
            for (; *s; s++) {
                if (*s == '"' && s[1] == '"')
                    s++;
                else if (*s == '"') {
                    s++;
                    break;
                }
                if (len + 2 > cap)
                    f = realloc(f, cap *= 2);
                f[len++] = *s;
            }
        }
        while (*s && *s != ',' && *s != '\n' && *s != '\r') {
            if (len + 2 > cap)
                f = realloc(f, cap *= 2);
            f[len++] = *s++;
        }
        f[len] = 0;
        if (n < max)
            fields[n++] = f;
        else
            free(f);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\r')
            s++;
        if (*s == '\n')
            s++;
        break;
    }
    *p = s;
    return n;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    size_t k = 0;
    while (s[k] && isspace((unsigned char)s[k]))
        k++;
    memmove(s, s + k, n - k + 1);
}

static int column(char **head, int n, const char *const names[])
{
    for (int i = 0; i < n; i++)
        for (int k = 0; names[k]; k++)
            if (!strcasecmp(head[i], names[k]))
                return i;
    return -1;
}

int roster_load(const char *path, roster *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char *text = read_file_all(path, NULL, 16 << 20);
    if (!text) {
        snprintf(err, errlen, "cannot read the roster %s", path);
        return -1;
    }
    const char *p = text;
    if (!strncmp(p, "\xef\xbb\xbf", 3))
        p += 3;
    char *f[64];
    int n = csv_record(&p, f, 64);
    static const char *const id_names[] = {"id", "student id", "student_id", "sid", "username",
                                           "user", "login", NULL};
    static const char *const name_names[] = {"name", "full name", "full_name", "student", NULL};
    static const char *const email_names[] = {"email", "e-mail", "email address", "mail", NULL};
    for (int i = 0; i < n; i++)
        trim(f[i]);
    int ci = n > 0 ? column(f, n, id_names) : -1, cn = n > 0 ? column(f, n, name_names) : -1,
        ce = n > 0 ? column(f, n, email_names) : -1;
    for (int i = 0; i < n; i++)
        free(f[i]);
    if (ci < 0 || cn < 0) {
        snprintf(err, errlen, "the roster %s needs a header with the columns id and name "
                 "(email optional), e.g. \"id,name,email\"", path);
        free(text);
        return -1;
    }
    int cap = 64, line = 1;
    r->rows = calloc((size_t)cap, sizeof *r->rows);
    while ((n = csv_record(&p, f, 64)) >= 0) {
        line++;
        if (n > ci && n > cn && f[ci][0]) {
            if (r->n == cap)
                r->rows = realloc(r->rows, sizeof *r->rows * (size_t)(cap *= 2));
            roster_row *row = &r->rows[r->n++];
            memset(row, 0, sizeof *row);
            trim(f[ci]);
            trim(f[cn]);
            snprintf(row->id, sizeof row->id, "%s", f[ci]);
            name_clean(f[cn], row->name, sizeof row->name);
            if (ce >= 0 && n > ce) {
                trim(f[ce]);
                name_clean(f[ce], row->email, sizeof row->email);
            }
            name_key(row->name, row->key, sizeof row->key);
        } else if (n > 1 || (n == 1 && f[0][0])) {
            snprintf(err, errlen, "the roster %s, line %d: no id or no name", path, line);
            for (int i = 0; i < n; i++)
                free(f[i]);
            free(text);
            return -1;
        }
        for (int i = 0; i < n; i++)
            free(f[i]);
    }
    free(text);
    for (int i = 0; i < r->n; i++)
        for (int k = i + 1; k < r->n; k++)
            if (!strcmp(r->rows[i].id, r->rows[k].id)) {
                snprintf(err, errlen, "the roster %s has the id '%s' twice", path, r->rows[i].id);
                return -1;
            }
    return 0;
}

/* Does the roster name `key` (folded) read as `want` in some order of its words? */
static int name_matches(const char *name, const char *want)
{
    char words[16][128];
    int n = 0;
    const char *p = name;
    while (*p && n < 16) {
        while (*p && !isalnum((unsigned char)*p) && (unsigned char)*p < 0x80)
            p++;
        const char *start = p;
        while (*p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80))
            p++;
        if (p > start) {
            char w[256];
            snprintf(w, sizeof w, "%.*s", (int)(p - start), start);
            name_key(w, words[n], sizeof words[n]);
            if (words[n][0])
                n++;
        }
    }
    for (int k = 0; k < n; k++) { /* words k.. then 0..k-1: "lovelace ada" for "Ada Lovelace" */
        char joined[2048] = "";
        for (int i = 0; i < n; i++)
            strncat(joined, words[(k + i) % n], sizeof joined - strlen(joined) - 1);
        if (!strcmp(joined, want))
            return 1;
    }
    return 0;
}

const roster_row *roster_match(const roster *r, const char *ext_id, const char *email,
                               const char *name)
{
    if (!r || r->n == 0)
        return NULL;
    for (int i = 0; ext_id && *ext_id && i < r->n; i++)
        if (!strcasecmp(r->rows[i].id, ext_id))
            return &r->rows[i];
    for (int i = 0; email && *email && i < r->n; i++)
        if (r->rows[i].email[0] && !strcasecmp(r->rows[i].email, email))
            return &r->rows[i];
    if (!name || !*name)
        return NULL;
    char want[512];
    name_key(name, want, sizeof want);
    if (!want[0])
        return NULL;
    const roster_row *found = NULL;
    for (int i = 0; i < r->n; i++)
        if (name_matches(r->rows[i].name, want)) {
            if (found)
                return NULL; /* two people of that name: neither */
            found = &r->rows[i];
        }
    return found;
}

void roster_free(roster *r)
{
    free(r->rows);
    r->rows = NULL;
    r->n = 0;
}
