/*
 * lms.c - the grades back into the learning system the class came from,
 * in its own import formats, keyed by its own ids taken from the export
 * (result.lms_id), the points after the course's policy (policy.c):
 *
 *  lms/moodle-grading-worksheet.csv  Moodle's offline grading worksheet
 *    (assignfeedback_offline: "Upload grading worksheet"). Its importer finds
 *    its columns by their names (Identifier, Grade, Last modified (grade), and a
 *    feedback plugin's field, Feedback comments) and the student by
 *    "Participant N", N the participant id of the export's folder names
 *    ("Full Name_N_assignsubmission_file_"); a grade older than Moodle's is
 *    skipped unless "ignore last modified" is ticked, so the time is now.
 *  lms/moodle-feedback.zip   Moodle's "Upload multiple feedback files in a
 *    zip" (assignfeedback_file): a folder per student named as the export's,
 *    "Full Name_N_assignfeedback_file_/", holding the HTML feedback (a name's
 *    '_' written as ' ', as Moodle's export writes it: the importer splits at '_').
 *  lms/canvas-gradebook.csv  Canvas's gradebook import: Student, ID (Canvas's
 *    user id, the export's USERID), SIS User ID, SIS Login ID, Section, then the
 *    assignment ("Name (assignment id)", --assignment), a "Points Possible" row.
 *  lms/README.txt            what is in each, and who is in none (not from that
 *    system's export, an anonymous export, not graded) and why.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "sb.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int in_lms(const result *r, const char *lms)
{
    return !strcmp(r->lms, lms) && r->lms_id[0] &&
           (r->status == ST_GRADED || r->status == ST_NOT_COMPILED || r->status == ST_REJECTED);
}

/* A grade as the importers read it: a plain decimal number, never a formula. */
static void grade_text(sb *b, double v)
{
    sb_printf(b, "%.2f", v);
}

/* A few lines for a learning system's feedback comment. */
static void comment(sb *b, const batch_opts *o, const result *r)
{
    sb_printf(b, "smemlab %s: %g/%g", o->lab->id, r->points, r->max_points);
    if (r->max_here < r->max_points && r->status == ST_GRADED)
        sb_printf(b, " (%g of them could be graded here: speed needs a GPU)", r->max_here);
    if (r->policy[0])
        sb_printf(b, "; %s: %.2f", r->policy, r->final_points);
    if (r->reason[0])
        sb_printf(b, ". %s", r->reason);
    sb_printf(b, ". Graded with %s.", r->graded_with[0] ? r->graded_with : "smemlab");
}

static void moodle_csv(sb *b, const batch_opts *o, const result *rs, int n, int *count)
{
    char when[40];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    sb_puts(b, "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
               "Last modified (submission),Last modified (grade),Feedback comments\r\n");
    for (int i = 0; i < n; i++) {
        const result *r = &rs[i];
        if (!in_lms(r, "moodle"))
            continue;
        (*count)++;
        sb c = {0};
        comment(&c, o, r);
        sb_printf(b, "Participant %s,", r->lms_id);
        sb_csv(b, r->name);
        sb_puts(b, ",");
        sb_csv(b, r->email);
        sb_puts(b, ",Submitted for grading,");
        grade_text(b, r->final_points);
        sb_printf(b, ",%g,Yes,,%s,", r->max_points, when);
        sb_csv(b, c.s);
        sb_puts(b, "\r\n");
        free(c.s);
    }
}

static void canvas_csv(sb *b, const batch_opts *o, const result *rs, int n, int *count)
{
    char column[600];
    snprintf(column, sizeof column, "%s", o->assignment ? o->assignment : o->lab->id);
    sb_puts(b, "Student,ID,SIS User ID,SIS Login ID,Section,");
    sb_csv(b, column);
    sb_printf(b, "\r\nPoints Possible,,,,,%g\r\n", rs && n ? rs[0].max_points : 0);
    for (int i = 0; i < n; i++) {
        const result *r = &rs[i];
        if (!in_lms(r, "canvas"))
            continue;
        (*count)++;
        sb_csv(b, r->name);
        sb_puts(b, ",");
        sb_csv(b, r->lms_id);
        sb_puts(b, ",,,,");
        grade_text(b, r->final_points);
        sb_puts(b, "\r\n");
    }
}

/* A folder name as Moodle's export writes it: its '_' as ' ' (the importer splits at '_'). */
static void moodle_name(const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s", name);
    for (char *p = out; *p; p++)
        if (*p == '_' || *p == '/' || *p == '\\')
            *p = ' ';
}

static int moodle_zip(const char *path, const result *rs, int n, char *const *html, int *count)
{
    struct archive *a = archive_write_new();
    archive_write_set_format_zip(a);
    if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
        archive_write_free(a);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (!in_lms(&rs[i], "moodle") || !html[i])
            continue;
        char name[NAME_MAX_B], entry[NAME_MAX_B * 2 + 64];
        moodle_name(rs[i].name[0] ? rs[i].name : rs[i].student, name, sizeof name);
        snprintf(entry, sizeof entry, "%s_%s_assignfeedback_file_/feedback.html", name, rs[i].lms_id);
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname_utf8(e, entry);
        archive_entry_set_size(e, (la_int64_t)strlen(html[i]));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_mtime(e, time(NULL), 0);
        rc = archive_write_header(a, e) != ARCHIVE_OK ||
             archive_write_data(a, html[i], strlen(html[i])) < 0;
        archive_entry_free(e);
        (*count)++;
    }
    rc |= archive_write_close(a) != ARCHIVE_OK;
    archive_write_free(a);
    return rc ? -1 : 0;
}

int lms_write(const batch_opts *o, const result *rs, int n, char *const *html, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/lms", o->results);
    int moodle = 0, canvas = 0, zipped = 0, others = 0;
    for (int i = 0; i < n; i++) {
        moodle += !strcmp(rs[i].lms, "moodle");
        canvas += !strcmp(rs[i].lms, "canvas");
    }
    if (!moodle && !canvas)
        return 0; /* a class from no learning system we write for: nothing to import */
    if (mkdir_p(dir, 0755)) {
        snprintf(err, errlen, "cannot make %s", dir);
        return -1;
    }
    sb readme = {0}, csv = {0};
    int rc = 0, in = 0;
    if (moodle) {
        moodle_csv(&csv, o, rs, n, &in);
        rc |= write_file_atomic(dir, "moodle-grading-worksheet.csv", csv.s, csv.n, err, errlen);
        char zip[4300];
        snprintf(zip, sizeof zip, "%s/moodle-feedback.zip", dir);
        if (!rc && moodle_zip(zip, rs, n, html, &zipped)) {
            snprintf(err, errlen, "cannot write %s", zip);
            rc = -1;
        }
        sb_printf(&readme, "moodle-grading-worksheet.csv  %d students: Moodle, the assignment, "
                  "View all submissions, Grading action: Upload grading worksheet\n"
                  "moodle-feedback.zip           %d students' feedback pages: Grading action: "
                  "Upload multiple feedback files in a zip\n", in, zipped);
    }
    if (canvas) {
        free(csv.s);
        csv = (sb){0};
        in = 0;
        canvas_csv(&csv, o, rs, n, &in);
        rc |= rc ? 0 : write_file_atomic(dir, "canvas-gradebook.csv", csv.s, csv.n, err, errlen);
        sb_printf(&readme, "canvas-gradebook.csv          %d students, column '%s' (give the "
                  "assignment's name and id: --assignment 'Lab 3 (12345)'): Canvas, Grades, "
                  "Import\n", in, o->assignment ? o->assignment : o->lab->id);
    }
    sb_puts(&readme, "Grades are the points after the course's policy (gradebook.csv: final).\n");
    for (int i = 0; i < n; i++) {
        const result *r = &rs[i];
        if (in_lms(r, "moodle") || in_lms(r, "canvas"))
            continue;
        if (!others++)
            sb_puts(&readme, "\nIn no import file (enter these by hand, or grade them again):\n");
        sb_printf(&readme, "  %s (%s): %s\n", r->student, r->name,
                  !r->lms_id[0] ? "the export names no id of the learning system (an anonymous "
                                  "export, a roster row, or another layout)"
                  : r->status == ST_NOT_GRADED ? "not graded yet" : "not from Moodle or Canvas");
    }
    rc |= rc ? 0 : write_file_atomic(dir, "README.txt", readme.s, readme.n, err, errlen);
    free(readme.s);
    free(csv.s);
    return rc ? -1 : 0;
}
