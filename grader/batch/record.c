/*
 * record.c - RESULTS_DIR/STUDENT.json: one student's result, written
 * atomically the moment it is known, and read back by a re-run and by the
 * reports. The grader's own checks are kept whole.
 */
#define _GNU_SOURCE
#include "batch.h"
#include "../base/provenance.h"

#include <cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *k, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void read_checks(result *r, const cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    if (n <= 0)
        return;
    r->checks = calloc((size_t)n, sizeof *r->checks);
    const cJSON *c;
    cJSON_ArrayForEach(c, arr) {
        if (!cJSON_IsObject(c))
            continue;
        check_rec *k = &r->checks[r->n_checks++];
        k->kernel = strdup(str(c, "kernel"));
        k->check = strdup(str(c, "check"));
        k->status = strdup(str(c, "status"));
        k->message = strdup(str(c, "message"));
        k->measured = strdup(str(c, "measured"));
        k->expected = strdup(str(c, "expected"));
        k->hint = strdup(str(c, "hint"));
        k->points = num(c, "points", 0);
        k->max_points = num(c, "max_points", 0);
        k->bank_map = strdup(str(c, "bank_map"));
        const cJSON *lines = cJSON_GetObjectItemCaseSensitive(c, "lines");
        k->lines = cJSON_IsArray(lines) ? cJSON_Duplicate(lines, 1) : NULL;
    }
}

void check_rec_copy(check_rec *to, const check_rec *from)
{
    *to = *from;
    to->kernel = strdup(from->kernel); to->check = strdup(from->check);
    to->status = strdup(from->status); to->message = strdup(from->message);
    to->measured = strdup(from->measured); to->expected = strdup(from->expected);
    to->hint = strdup(from->hint);
    to->bank_map = strdup(from->bank_map ? from->bank_map : "");
    to->lines = from->lines ? cJSON_Duplicate(from->lines, 1) : NULL;
}

void check_rec_free(check_rec *c)
{
    free(c->kernel); free(c->check); free(c->status); free(c->message);
    free(c->measured); free(c->expected); free(c->hint); free(c->bank_map);
    cJSON_Delete(c->lines);
}

void result_free_checks(result *r)
{
    for (int i = 0; i < r->n_checks; i++)
        check_rec_free(&r->checks[i]);
    free(r->checks);
    r->checks = NULL;
    r->n_checks = 0;
    cJSON_Delete(r->grading);
    r->grading = NULL;
}

/* The points the checks graded here can give: the whole, less those not measured or
   not graded (speed, emulated on a CPU). */
static double max_graded_here(const result *r)
{
    double apart = 0;
    for (int i = 0; i < r->n_checks; i++)
        if (!strcmp(r->checks[i].status, "not-measured") || !strcmp(r->checks[i].status, "not-graded"))
            apart += r->checks[i].max_points;
    return r->max_points - apart > 0 ? r->max_points - apart : 0;
}

int record_write(const char *results_dir, const result *r, char *err, size_t errlen)
{
    cJSON *o = cJSON_CreateObject(), *checks = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "tool", "smemlab-batch");
    cJSON_AddStringToObject(o, "student", r->student);
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "email", r->email);
    cJSON_AddBoolToObject(o, "late", r->late);
    cJSON_AddStringToObject(o, "entry", r->entry);
    cJSON_AddStringToObject(o, "source", r->source);
    cJSON_AddStringToObject(o, "source_note", r->source_note);
    cJSON_AddStringToObject(o, "sha256", r->sha256);
    cJSON_AddStringToObject(o, "lab", r->lab);
    cJSON_AddStringToObject(o, "status", status_name(r->status));
    cJSON_AddStringToObject(o, "reason", r->reason);
    cJSON_AddNumberToObject(o, "points", r->points);
    cJSON_AddNumberToObject(o, "max_points", r->max_points);
    cJSON_AddNumberToObject(o, "build_seconds", r->build_seconds);
    cJSON_AddNumberToObject(o, "grade_seconds", r->grade_seconds);
    cJSON_AddNumberToObject(o, "grader_exit", r->grader_exit);
    cJSON_AddStringToObject(o, "device", r->device);
    cJSON_AddStringToObject(o, "provenance", r->provenance);
    cJSON_AddStringToObject(o, "compiler", r->compiler);
    cJSON_AddNumberToObject(o, "not_measured", r->not_measured);
    cJSON_AddStringToObject(o, "predictions", r->predictions);
    cJSON_AddBoolToObject(o, "final", r->final);
    cJSON_AddStringToObject(o, "lms", r->lms);
    cJSON_AddStringToObject(o, "lms_id", r->lms_id);
    cJSON_AddNumberToObject(o, "max_here", r->max_here);
    cJSON_AddStringToObject(o, "graded_with", r->graded_with);
    if (r->grading) /* beside "provenance", the device line short, as before */
        cJSON_AddItemToObject(o, "grading", cJSON_Duplicate(r->grading, 1));
    else
        cJSON_AddNullToObject(o, "grading");
    for (int i = 0; i < r->n_checks; i++) {
        const check_rec *k = &r->checks[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "kernel", k->kernel);
        cJSON_AddStringToObject(c, "check", k->check);
        cJSON_AddStringToObject(c, "status", k->status);
        cJSON_AddNumberToObject(c, "points", k->points);
        cJSON_AddNumberToObject(c, "max_points", k->max_points);
        cJSON_AddStringToObject(c, "message", k->message);
        cJSON_AddStringToObject(c, "measured", k->measured);
        cJSON_AddStringToObject(c, "expected", k->expected);
        cJSON_AddStringToObject(c, "hint", k->hint);
        if (k->lines)
            cJSON_AddItemToObject(c, "lines", cJSON_Duplicate(k->lines, 1));
        if (k->bank_map && k->bank_map[0])
            cJSON_AddStringToObject(c, "bank_map", k->bank_map);
        cJSON_AddItemToArray(checks, c);
    }
    cJSON_AddItemToObject(o, "checks", checks);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    char name[ID_MAX + 8];
    snprintf(name, sizeof name, "%s.json", r->student);
    size_t len = strlen(text);
    char *buf = malloc(len + 2);
    memcpy(buf, text, len);
    buf[len] = '\n';
    buf[len + 1] = 0;
    free(text);
    int rc = write_file_atomic(results_dir, name, buf, len + 1, err, errlen);
    free(buf);
    return rc;
}

int record_read(const char *path, result *r)
{
    char *text = read_file_all(path, NULL, 64 << 20);
    if (!text)
        return -1;
    cJSON *o = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(o) || strcmp(str(o, "tool"), "smemlab-batch")) {
        cJSON_Delete(o);
        return -1;
    }
    memset(r, 0, sizeof *r);
    snprintf(r->student, sizeof r->student, "%s", str(o, "student"));
    snprintf(r->name, sizeof r->name, "%s", str(o, "name"));
    snprintf(r->email, sizeof r->email, "%s", str(o, "email"));
    r->late = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "late"));
    snprintf(r->entry, sizeof r->entry, "%s", str(o, "entry"));
    snprintf(r->source, sizeof r->source, "%s", str(o, "source"));
    snprintf(r->source_note, sizeof r->source_note, "%s", str(o, "source_note"));
    snprintf(r->sha256, sizeof r->sha256, "%s", str(o, "sha256"));
    snprintf(r->lab, sizeof r->lab, "%s", str(o, "lab"));
    snprintf(r->reason, sizeof r->reason, "%s", str(o, "reason"));
    r->status = status_parse(str(o, "status"));
    r->points = num(o, "points", 0);
    r->max_points = num(o, "max_points", 0);
    r->build_seconds = num(o, "build_seconds", 0);
    r->grade_seconds = num(o, "grade_seconds", 0);
    r->grader_exit = (int)num(o, "grader_exit", -1);
    snprintf(r->device, sizeof r->device, "%s", str(o, "device"));
    snprintf(r->provenance, sizeof r->provenance, "%s", str(o, "provenance"));
    snprintf(r->compiler, sizeof r->compiler, "%s", str(o, "compiler"));
    r->not_measured = (int)num(o, "not_measured", 0);
    snprintf(r->predictions, sizeof r->predictions, "%s", str(o, "predictions"));
    r->final = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "final"));
    read_checks(r, cJSON_GetObjectItemCaseSensitive(o, "checks"));
    snprintf(r->lms, sizeof r->lms, "%s", str(o, "lms"));
    snprintf(r->lms_id, sizeof r->lms_id, "%s", str(o, "lms_id"));
    r->max_here = num(o, "max_here", max_graded_here(r));
    snprintf(r->graded_with, sizeof r->graded_with, "%s", str(o, "graded_with"));
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(o, "grading");
    r->grading = cJSON_IsObject(prov) ? cJSON_Duplicate(prov, 1) : NULL;
    cJSON_Delete(o);
    return r->status == ST_PENDING ? -1 : 0;
}

/* Temporary files a kill -9 left behind (.NAME.tmp.PID). */
void record_clean_temps(const char *results_dir)
{
    DIR *d = opendir(results_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp.")) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", results_dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

/*
 * The checks graded neither pass nor fail, by status ("not-measured",
 * "not-graded", or one this batch does not know: never counted as a pass),
 * as "1 check not measured: matmulCoarse speed". Returns how many.
 */
static int checks_apart(const result *r, char *out, size_t size)
{
    int total = 0;
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < r->n_checks; i++) {
        const char *st = r->checks[i].status;
        if (!strcmp(st, "pass") || !strcmp(st, "fail") || !strcmp(st, "skipped") ||
            !strcmp(st, "waiting"))
            continue;
        total++;
        int first = 1, n = 0;
        for (int j = 0; j < i; j++)
            first &= strcmp(r->checks[j].status, st) != 0;
        if (!first)
            continue; /* this status was told with its first check */
        for (int j = i; j < r->n_checks; j++)
            n += !strcmp(r->checks[j].status, st);
        char label[64], count[32];
        if (!strcmp(st, "not-measured") || !strcmp(st, "not-graded"))
            snprintf(label, sizeof label, "not %s", st + 4);
        else
            snprintf(label, sizeof label, "with the status '%.40s'", st);
        o += (size_t)snprintf(out + o, o < size ? size - o : 0, "%s%s %s:", o ? "; " : "",
                              count_of(n, "check", "checks", count, sizeof count), label);
        for (int j = i, shown = 0; j < r->n_checks; j++) {
            if (strcmp(r->checks[j].status, st))
                continue;
            if (shown++ == 3) {
                o += (size_t)snprintf(out + o, o < size ? size - o : 0, " ...");
                break;
            }
            o += (size_t)snprintf(out + o, o < size ? size - o : 0, "%s %s %s",
                                  shown > 1 ? "," : "", r->checks[j].kernel, r->checks[j].check);
        }
    }
    if (o >= size && size)
        out[size - 1] = 0;
    return total;
}

/*
 * What graded it, from the grader's JSON: its provenance object, with the
 * lab's table digest, toolchain, backend and device beside, whole in
 * r->grading; and short, for a gradebook column, in r->graded_with:
 * "smemlab 91ea3b0; table 9f052a14; seed 20240605; nvcc V13.0.88".
 */
static void grading_of(result *r, const cJSON *root, const cJSON *lab)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "provenance");
    cJSON_Delete(r->grading);
    r->grading = cJSON_IsObject(p) ? cJSON_Duplicate(p, 1) : cJSON_CreateObject();
    static const char *const keys[] = {"table_sha256", "toolchain", "backend", "device"};
    for (int i = 0; i < 4; i++)
        cJSON_AddStringToObject(r->grading, keys[i], str(lab, keys[i]));
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(p, "options");
    const char *tool = str(lab, "toolchain");
    snprintf(r->graded_with, sizeof r->graded_with, "smemlab %s; table %.8s; seed %s%s%.*s",
             str(p, "grader")[0] ? str(p, "grader") : "(unknown)", str(lab, "table_sha256"),
             str(opt, "seed")[0] ? str(opt, "seed") : "?", tool[0] ? "; " : "",
             (int)strcspn(tool, ";"), tool);
}

/* The grader's exit status and --json file -> the student's result. */
int result_from_grader_json(result *r, const char *json_path, int exit_status,
                            const char *fallback_reason)
{
    r->grader_exit = exit_status;
    result_free_checks(r);
    char *text = json_path ? read_file_all(json_path, NULL, 64 << 20) : NULL;
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(o, "labs");
    const cJSON *lab = cJSON_GetArrayItem(labs, 0);
    if (fallback_reason || !cJSON_IsObject(lab)) {
        r->status = ST_NOT_GRADED;
        r->points = 0;
        if (fallback_reason)
            snprintf(r->reason, sizeof r->reason, "not graded: %s", fallback_reason);
        else
            snprintf(r->reason, sizeof r->reason,
                     "not graded: the grader exited with status %d and wrote no results",
                     exit_status);
        int wrote = cJSON_IsObject(lab);
        cJSON_Delete(o);
        return wrote;
    }
    const cJSON *ng = cJSON_GetObjectItemCaseSensitive(lab, "not_graded");
    snprintf(r->device, sizeof r->device, "%s", str(lab, "device"));
    grading_of(r, o, lab);
    snprintf(r->predictions, sizeof r->predictions, "%s", str(lab, "predictions"));
    device_provenance(r->device, r->provenance, sizeof r->provenance);
    read_checks(r, cJSON_GetObjectItemCaseSensitive(lab, "checks"));
    if (cJSON_IsString(ng) && !strcmp(str(lab, "not_graded_cause"), "contract")) {
        /* the student's file broke the lab's contract: final, 0 points, the reason theirs */
        r->status = ST_REJECTED;
        r->final = 1;
        r->points = 0;
        snprintf(r->reason, sizeof r->reason, CONTRACT_BROKEN "%s", ng->valuestring);
    } else if (cJSON_IsString(ng)) {
        r->status = ST_NOT_GRADED;
        r->points = 0;
        snprintf(r->reason, sizeof r->reason, "not graded: %s", ng->valuestring);
    } else {
        r->status = ST_GRADED;
        r->final = 1;
        r->points = num(lab, "points", 0);
        double max = num(lab, "max_points", 0);
        if (max > 0)
            r->max_points = max;
        int failed = 0, waits = 0;
        for (int i = 0; i < r->n_checks; i++) {
            failed += !strcmp(r->checks[i].status, "fail");
            waits += !strcmp(r->checks[i].status, "waiting");
        }
        char apart[REASON_MAX / 2], count[32], wait[64];
        r->not_measured = checks_apart(r, apart, sizeof apart);
        r->max_here = max_graded_here(r);
        /* "2 checks failed, 3 not run yet (they wait for those)": a waiting check is no failure */
        snprintf(wait, sizeof wait, ", %d not run yet (%s for %s)", waits, waits == 1 ? "it waits" : "they wait",
                 failed == 1 ? "it" : "those");
        snprintf(r->reason, sizeof r->reason, "%s%s%s%s",
                 failed ? count_of(failed, "check failed", "checks failed", count, sizeof count) : "",
                 failed && waits ? wait : "", failed && apart[0] ? "; " : "", apart);
    }
    cJSON_Delete(o);
    return 1;
}
