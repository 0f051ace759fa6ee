/*
 * reproduce.c - --reproduce ID: a student's grade given again from their
 * record alone, and held to the record check by check (a dispute's first
 * question: would the same grading give the same grade?).
 *
 * The record names the source (RESULTS/sources/SHA256.cu, kept when it was
 * graded), the grader's options and the build's architecture flags, the
 * course file and what graded it (provenance). The source is built and
 * graded with those into RESULTS/reproduce/ID.json (the record itself is
 * never touched), and every check's verdict and points are compared. Where
 * this grader, its table or the course file differ from the record's, that is
 * said first: a different grade may then be theirs.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "../labs/course.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The record's options into o: its grader arguments, architecture and course. */
static void options_of(batch_opts *o, const cJSON *prov)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(prov, "batch"), *a;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(b, "grader_args");
    o->n_grader_args = 0;
    cJSON_ArrayForEach(a, args)
        if (cJSON_IsString(a) && grader_arg_check(a->valuestring, (char[8]){0}, 8) == 0)
            o->grader_args[o->n_grader_args++] = strdup(a->valuestring);
    if (jstr(b, "nvcc_arch")[0])
        o->nvcc_arch = strdup(jstr(b, "nvcc_arch"));
    o->course_path = jstr(prov, "course")[0] ? strdup(jstr(prov, "course")) : COURSE_NONE;
}

/* What differs between the grading recorded and this one's: said, and counted. */
static int grading_differs(const cJSON *was, const cJSON *now)
{
    static const char *const keys[][2] = {{"grader", "the grader's version"},
                                         {"grader_sha256", "the grader's SHA-256"},
                                         {"course_sha256", "the course file"},
                                         {"table_sha256", "the lab's table"},
                                         {"toolchain", "the toolchain"}};
    int n = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *a = jstr(was, keys[i][0]), *b = jstr(now, keys[i][0]);
        if (strcmp(a, b)) {
            printf("  not as recorded: %s: %s, now %s\n", keys[i][1], a[0] ? a : "(none)",
                   b[0] ? b : "(none)");
            n++;
        }
    }
    return n;
}

/* Every check of the record against the new grade: the count that differ (said). */
static int compare_checks(const result *was, const result *now)
{
    int differ = 0;
    for (int i = 0; i < was->n_checks; i++) {
        const check_rec *c = &was->checks[i];
        const check_rec *d = NULL;
        for (int j = 0; j < now->n_checks && !d; j++)
            if (!strcmp(now->checks[j].kernel, c->kernel) && !strcmp(now->checks[j].check, c->check))
                d = &now->checks[j];
        if (d && !strcmp(d->status, c->status) && d->points == c->points)
            continue;
        differ++;
        printf("  differs: %s %s: recorded %s %g/%g, now %s\n", c->kernel, c->check, c->status,
               c->points, c->max_points, d ? d->status : "(not graded)");
    }
    if (now->n_checks != was->n_checks) {
        printf("  differs: %d checks now, %d recorded\n", now->n_checks, was->n_checks);
        differ++;
    }
    if (now->status != was->status) {
        printf("  differs: %s now (%s), %s recorded\n", status_name(now->status), now->reason,
               status_name(was->status));
        differ++;
    }
    return differ;
}

int reproduce_run(batch_opts *o, const char *argv0)
{
    char path[4400];
    result was;
    snprintf(path, sizeof path, "%s/%s.json", o->results, o->reproduce_id);
    if (record_read(path, &was) != 0) {
        fprintf(stderr, "smemlab-batch: --reproduce: no record %s\n", path);
        return BATCH_EXIT_USAGE;
    }
    if (was.status == ST_REJECTED || was.status == ST_NOT_GRADED || !was.sha256[0]) {
        printf("%s: %s (%s): nothing was graded to reproduce\n", was.student,
               status_name(was.status), was.reason);
        return BATCH_EXIT_OK;
    }
    size_t len;
    snprintf(path, sizeof path, "%s/sources/%s.cu", o->results, was.sha256);
    char *code = read_file_all(path, &len, 64 << 20), sha[65] = "";
    if (code)
        sha256_hex_of(code, len, sha);
    if (!code || strcmp(sha, was.sha256)) {
        fprintf(stderr, "smemlab-batch: --reproduce: the source of %s's record is not in %s "
                "(graded before sources were kept, or removed): grade it again from the export "
                "with --only %s --regrade\n", was.student, path, was.student);
        return BATCH_EXIT_USAGE;
    }
    o->lab = lab_find(was.lab);
    options_of(o, was.grading);
    o->progress = 0;
    int status;
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/reproduce", o->results);
    if (mkdir_p(dir, 0755))
        return fprintf(stderr, "smemlab-batch: cannot make %s\n", dir), BATCH_EXIT_ENV;
    if ((status = batch_locate_kit(o, argv0)) || (status = batch_load_course(o)))
        return status;
    o->results = strdup(dir);
    identity_ask(o);
    if (!o->nvcc_arch && !(o->nvcc_arch = batch_ask_arch(o)))
        return fprintf(stderr, "smemlab-batch: `make -s nvcc-arch` failed in %s\n", o->kit),
               BATCH_EXIT_ENV;
    printf("%s: grading %s.cu %.12s again as recorded (%s)\n", was.student, was.lab, was.sha256,
           was.graded_with[0] ? was.graded_with : "no grading recorded");
    submission s = {0};
    snprintf(s.student, sizeof s.student, "%s", was.student);
    snprintf(s.name, sizeof s.name, "%s", was.name);
    snprintf(s.sha256, sizeof s.sha256, "%s", was.sha256);
    s.layout = "folder";
    s.code = code;
    s.code_len = len;
    result now = {0};
    if (pipeline_run(o, &s, 1, &now) != 0)
        return BATCH_EXIT_ENV;
    int differ = grading_differs(was.grading, now.grading);
    int checks = compare_checks(&was, &now);
    if (!checks)
        printf("%s: every check came out the same (%d checks, %g/%g)%s\n", was.student,
               was.n_checks, now.points, now.max_points,
               differ ? ", though the grading above is not the one recorded" : "");
    else
        printf("%s: %d of %d checks did not come out as recorded (%g/%g recorded, %g/%g now): "
               "the record of this run is %s/%s.json\n", was.student, checks, was.n_checks,
               was.points, was.max_points, now.points, now.max_points, o->results, was.student);
    return checks ? BATCH_EXIT_NOT_GRADED : BATCH_EXIT_OK;
}
