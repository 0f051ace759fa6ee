/*
 * policy.c - the course's policy on top of the grader's points, for the
 * gradebook and the learning system's import files: a late penalty (a
 * percentage of the points of a submission the export marks late) and extra
 * points from a CSV (student,points,why: the gradebook's student id or the
 * learning system's), both from the course file (docs/instructors.md#policy).
 * The records keep the grader's points; the policy is applied anew at each
 * run, so a changed course file changes every final grade alike.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "../labs/course.h"

#include <stdlib.h>
#include <string.h>

/* The extra points file, relative to the course file's folder. */
static char *extra_path(const course *c)
{
    if (!c->extra_points[0])
        return NULL;
    if (c->extra_points[0] == '/')
        return strdup(c->extra_points);
    char *dir = strdup(c->path), *slash = strrchr(dir, '/'), *p = NULL;
    if (slash)
        *slash = 0;
    if (asprintf(&p, "%s/%s", slash ? dir : ".", c->extra_points) < 0)
        p = NULL;
    free(dir);
    return p;
}

/* One row "student,points,why" of the extra points: 1 when it is r's. */
static int extra_of(const char *line, const result *r, double *pts, char *why, size_t size)
{
    char id[NAME_MAX_B];
    size_t n = strcspn(line, ",");
    snprintf(id, sizeof id, "%.*s", (int)n, line);
    if (!line[n] || !(strcmp(id, r->student) == 0 || (r->lms_id[0] && !strcmp(id, r->lms_id))))
        return 0;
    char *end;
    *pts = strtod(line + n + 1, &end);
    if (end == line + n + 1)
        return 0;
    snprintf(why, size, "%s", *end == ',' ? end + 1 : "");
    why[strcspn(why, "\r\n")] = 0;
    return 1;
}

int policy_apply(const batch_opts *o, result *rs, int n)
{
    (void)o;
    const course *c = course_current();
    char *path = extra_path(c);
    char *text = path ? read_file_all(path, NULL, 1 << 20) : NULL;
    if (path && !text)
        fprintf(stderr, "smemlab-batch: the course's extra points file %s cannot be read: no "
                "extra points given\n", path);
    for (int i = 0; i < n; i++) {
        result *r = &rs[i];
        r->final_points = r->points;
        r->policy[0] = 0;
        size_t at = 0;
        if (r->late && c->late_penalty > 0 && r->points > 0) {
            double off = r->points * c->late_penalty;
            r->final_points -= off;
            at += (size_t)snprintf(r->policy, sizeof r->policy, "late: -%g (%g%%)", off,
                                   c->late_penalty * 100);
        }
        for (char *save = NULL, *copy = text ? strdup(text) : NULL,
                  *l = copy ? strtok_r(copy, "\n", &save) : NULL;
             copy; l = strtok_r(NULL, "\n", &save)) {
            if (!l) {
                free(copy);
                break;
            }
            double pts;
            char why[128];
            if (extra_of(l, r, &pts, why, sizeof why)) {
                r->final_points += pts;
                at += (size_t)snprintf(r->policy + at, at < sizeof r->policy ? sizeof r->policy - at : 0,
                                       "%sextra: %+g%s%s", at ? "; " : "", pts, why[0] ? " " : "", why);
            }
        }
        if (r->final_points < 0)
            r->final_points = 0;
    }
    free(text);
    free(path);
    return 0;
}
