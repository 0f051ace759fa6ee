/*
 * layouts.c - how learning systems name the entries of a class export, and
 * who each entry belongs to. What each rule is based on:
 *
 *  Moodle (mod/assign "Download all submissions", locallib.php): one folder
 *    per student and plugin, "FULL NAME_PARTICIPANTID_assignsubmission_file_"
 *    (the default since Moodle 3.1), or, with "download submissions in
 *    folders" off, flat files "FULL NAME_PARTICIPANTID_assignsubmission_file_NAME".
 *    '_' in a name is written as ' '; blind marking writes "Participant";
 *    group submissions prefix "GROUP-".
 *  Canvas ("Download Submissions", lib/content_zipper.rb): flat files
 *    "SORTABLENAME[_LATE]_USERID_ATTACHMENTID_FILENAME", the sortable name
 *    ("Lovelace, Ada") lower-cased with everything but letters, digits and
 *    '_' removed ("lovelaceada"); anonymous grading writes "anon_ID" for
 *    name and user id; a second upload of the same name becomes "lab3-1.cu";
 *    the attachment id grows with each upload, so it orders them.
 *  Blackboard Learn ("Assignment File Download", as observed in exports and
 *    the tools that read them): flat files
 *    "ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_FILENAME", and
 *    "..._attempt_DATE.txt" whose "Name: FULL NAME (USERNAME)" line names the
 *    student; several attempts: the latest is graded.
 *  Gradescope ("Export Submissions"): folders "submission_ID" and
 *    submission_metadata.yml mapping each to its submitters (:name:, :sid:,
 *    :email:); a group submission counts for each submitter.
 *
 * Anything else is the kit's own layout: one entry per student.
 *
 * The lab's file itself may come renamed (lab_file_kind): a browser saves a
 * second download as "lab3 (1).cu" (Firefox "lab3(1).cu"), Moodle's file
 * picker renames a clash "lab3 (1).cu", Canvas "lab3-1.cu", a student
 * capitalises it or uploads what an export named
 * ("lovelaceada_54321_987654_lab3.cu").
 */
#define _GNU_SOURCE
#include "layout.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static void copy(char *out, size_t size, const char *s, size_t n)
{
    snprintf(out, size, "%.*s", (int)n, s);
}

/* FULLNAME_ID_assignsubmission_PLUGIN_[FILE] */
static int moodle(const char *item, int is_dir, export_name *e)
{
    const char *tag = strstr(item, "_assignsubmission_");
    if (!tag || tag == item)
        return 0;
    const char *us = tag - 1; /* the '_' before the participant id */
    while (us > item && isdigit((unsigned char)*us))
        us--;
    if (*us != '_' || !all_digits(us + 1, (size_t)(tag - us - 1)) || us == item)
        return 0;
    const char *plugin = tag + strlen("_assignsubmission_");
    const char *after = strchr(plugin, '_');
    if (!after)
        return 0;
    if (is_dir && after[1])
        return 0; /* a folder's name ends at "_assignsubmission_file_" */
    e->layout = "moodle";
    copy(e->name, sizeof e->name, item, (size_t)(us - item));
    copy(e->ext_id, sizeof e->ext_id, us + 1, (size_t)(tag - us - 1));
    snprintf(e->person, sizeof e->person, "moodle:%.*s", (int)(tag - item), item);
    snprintf(e->file, sizeof e->file, "%s", after + 1);
    if (!strcmp(e->name, "Participant")) /* blind marking */
        snprintf(e->name, sizeof e->name, "Participant %s", e->ext_id);
    return 1;
}

static int is_date(const char *s) /* YYYY-MM-DD-HH-MM-SS */
{
    static const char pat[] = "dddd-dd-dd-dd-dd-dd";
    for (size_t i = 0; i < sizeof pat - 1; i++)
        if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != '-')
            return 0;
    return 1;
}

/* ASSIGNMENT_USERNAME_attempt_DATE_FILE or ..._attempt_DATE.txt */
static int blackboard(const char *item, int is_dir, export_name *e)
{
    const char *tag = strstr(item, "_attempt_");
    if (is_dir || !tag || tag == item || strlen(tag) < 9 + 19 || !is_date(tag + 9))
        return 0;
    const char *rest = tag + 9 + 19;
    if (strcmp(rest, ".txt") && (rest[0] != '_' || !rest[1]))
        return 0;
    const char *us = tag - 1;
    while (us > item && *us != '_')
        us--;
    const char *user = *us == '_' ? us + 1 : item;
    if (user == tag)
        return 0;
    e->layout = "blackboard";
    copy(e->ext_id, sizeof e->ext_id, user, (size_t)(tag - user));
    snprintf(e->name, sizeof e->name, "%s", e->ext_id);
    snprintf(e->person, sizeof e->person, "blackboard:%s", e->ext_id);
    copy(e->attempt, sizeof e->attempt, tag + 9, 19);
    if (!strcmp(rest, ".txt"))
        e->metadata = 1;
    else
        snprintf(e->file, sizeof e->file, "%s", rest + 1);
    return 1;
}

/* NAME[_LATE]_USERID_ATTACHMENTID_FILE, or [LATE_]anon_ID_ATTACHMENTID_FILE */
static int canvas(const char *item, int is_dir, export_name *e)
{
    if (is_dir)
        return 0;
    const char *s = item;
    int late = 0;
    if (!strncasecmp(s, "LATE_anon_", 10))
        late = 1, s += 5;
    if (!strncasecmp(s, "anon_", 5)) {
        const char *id = s + 5, *us = strchr(id, '_');
        if (!us || us == id)
            return 0;
        const char *att = us + 1, *us2 = att;
        while (isdigit((unsigned char)*us2))
            us2++;
        if (us2 == att || *us2 != '_' || !us2[1])
            return 0;
        e->layout = "canvas";
        e->late = late;
        e->order = atoll(att);
        copy(e->ext_id, sizeof e->ext_id, s, (size_t)(us - s));
        snprintf(e->name, sizeof e->name, "%s", e->ext_id);
        snprintf(e->person, sizeof e->person, "canvas:%s", e->ext_id);
        snprintf(e->file, sizeof e->file, "%s", us2 + 1);
        return 1;
    }
    for (const char *u = strchr(item, '_'); u; u = strchr(u + 1, '_')) {
        const char *d1 = u + 1, *p = d1;
        while (isdigit((unsigned char)*p))
            p++;
        if (p == d1 || *p != '_')
            continue;
        const char *d2 = p + 1, *q = d2;
        while (isdigit((unsigned char)*q))
            q++;
        if (q == d2 || *q != '_' || !q[1])
            continue;
        size_t name_len = (size_t)(u - item);
        if (name_len >= 5 && !strncasecmp(u - 5, "_LATE", 5))
            late = 1, name_len -= 5;
        if (name_len == 0)
            return 0;
        e->layout = "canvas";
        e->late = late;
        e->order = atoll(d2);
        copy(e->name, sizeof e->name, item, name_len);
        copy(e->ext_id, sizeof e->ext_id, d1, (size_t)(p - d1));
        snprintf(e->person, sizeof e->person, "canvas:%s", e->ext_id);
        snprintf(e->file, sizeof e->file, "%s", q + 1);
        return 1;
    }
    return 0;
}

int export_parse(const char *item, int is_dir, export_name *e)
{
    memset(e, 0, sizeof *e);
    return moodle(item, is_dir, e) || blackboard(item, is_dir, e) || canvas(item, is_dir, e);
}

/* "", " (N)", "(N)", "-N" or "_N": the copy numbers of browsers and learning systems. */
static int copy_suffix(const char *s)
{
    if (!*s)
        return 1;
    if (*s == ' ')
        s++;
    if (*s == '(') {
        const char *d = ++s;
        while (isdigit((unsigned char)*s))
            s++;
        return s > d && s[0] == ')' && !s[1];
    }
    if (*s == '-' || *s == '_') {
        const char *d = ++s;
        while (isdigit((unsigned char)*s))
            s++;
        return s > d && !*s;
    }
    return 0;
}

int lab_file_kind(const char *base, const char *want)
{
    if (!strcmp(base, want))
        return LAB_EXACT;
    export_name e;
    if (export_parse(base, 0, &e) && e.file[0] && strcmp(e.file, base) &&
        lab_file_kind(e.file, want)) /* a file an export named, uploaded again */
        return LAB_RENAMED;
    size_t stem = strlen(want) - 3, n = strlen(base); /* "lab3" */
    if (n < stem + 3 || strncasecmp(base, want, stem) || strcasecmp(base + n - 3, ".cu"))
        return 0;
    char middle[64];
    if (n - 3 - stem >= sizeof middle)
        return 0;
    snprintf(middle, sizeof middle, "%.*s", (int)(n - 3 - stem), base + stem);
    return copy_suffix(middle) ? LAB_RENAMED : 0;
}

/* --- Blackboard's attempt file ------------------------------------------------------ */

void blackboard_name(const char *text, char *name, size_t size)
{
    const char *line = strstr(text, "Name: ");
    if (!line)
        return;
    line += 6;
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
        n--;
    if (n && line[n - 1] == ')') { /* "Ada Lovelace (alovelace)" */
        const char *open = memrchr(line, '(', n);
        if (open && open > line)
            n = (size_t)(open - line);
        while (n && line[n - 1] == ' ')
            n--;
    }
    if (n)
        copy(name, size, line, n);
}

/* --- Gradescope's submission_metadata.yml ------------------------------------------ */

/* A YAML scalar: plain, 'single' ('' is a quote) or "double" (\" \\ escapes). */
static void scalar(const char *v, char *out, size_t size)
{
    while (*v == ' ')
        v++;
    size_t o = 0;
    if (*v == '\'' || *v == '"') {
        char q = *v++;
        for (; *v && o + 1 < size; v++) {
            if (q == '\'' && v[0] == '\'' && v[1] == '\'')
                v++;
            else if (q == '"' && v[0] == '\\' && v[1])
                v++;
            else if (*v == q)
                break;
            out[o++] = *v;
        }
    } else {
        for (; *v && *v != '\r' && *v != '\n' && o + 1 < size; v++)
            out[o++] = *v;
        while (o && out[o - 1] == ' ')
            o--;
    }
    out[o] = 0;
}

static int indent_of(const char *line)
{
    int i = 0;
    while (line[i] == ' ')
        i++;
    return i;
}

/*
 * The folders and, under each one's :submitters: list, each submitter's
 * :name:, :sid: and :email:. Other keys (:created_at:, :score:, a :history:
 * of earlier submissions) are skipped.
 */
int gradescope_parse(const char *yml, gs_submission **out)
{
    int n = 0, cap = 16, list_indent = -1;
    gs_submission *subs = calloc((size_t)cap, sizeof *subs);
    gs_submission *cur = NULL;
    gs_person *who = NULL;
    char *text = strdup(yml);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = 0;
        if (!len || line[0] == '#' || !strcmp(line, "---"))
            continue;
        int ind = indent_of(line);
        char *p = line + ind;
        if (ind == 0 && p[0] != '-') { /* "submission_123:" */
            char *colon = strrchr(p, ':');
            if (!colon || colon[1])
                continue;
            *colon = 0;
            if (n == cap)
                subs = realloc(subs, sizeof *subs * (size_t)(cap *= 2));
            cur = &subs[n++];
            memset(cur, 0, sizeof *cur);
            scalar(p, cur->folder, sizeof cur->folder);
            who = NULL;
            list_indent = -1;
            continue;
        }
        if (!cur)
            continue;
        if (!strncmp(p, ":submitters:", 12)) {
            list_indent = ind;
            who = NULL;
            continue;
        }
        int item = p[0] == '-' && (p[1] == ' ' || !p[1]);
        if (list_indent < 0 || ind < list_indent || (ind == list_indent && !item)) {
            list_indent = -1; /* another key of the submission */
            continue;
        }
        if (item) {
            p += 1;
            while (*p == ' ')
                p++;
            who = cur->n < GS_MAX_SUBMITTERS ? &cur->people[cur->n++] : NULL;
        }
        if (!who)
            continue;
        static const char *const keys[] = {":name:", ":sid:", ":email:"};
        for (int k = 0; k < 3; k++) {
            size_t kl = strlen(keys[k]);
            if (!strncmp(p, keys[k], kl)) {
                char *field = k == 0 ? who->name : k == 1 ? who->sid : who->email;
                scalar(p + kl, field, NAME_MAX_B);
            }
        }
    }
    free(text);
    *out = subs;
    return n;
}
