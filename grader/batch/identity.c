/*
 * identity.c - what grades a class, and one class graded one way.
 *
 * The grader is asked once what it grades with (smemlab-grade --describe LAB:
 * its version, its SHA-256, the course file, the lab's table and its digest).
 * RESULTS/class.json remembers the way the class was graded: the lab, the
 * options of the grader that decide a grade (--grader-arg: seed, repeats,
 * timeout, measure, counters) and the lab's table as the course file made it.
 * A later run whose way differs refuses, naming each difference, unless
 * --regrade says to grade the whole class again that way (the earlier records
 * kept in history/, history.c): a gradebook never mixes two seeds or two
 * tables without a word.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CLASS_FILE "class.json"

/* The grader's options a batch may pass (--grader-arg), as NAME=VALUE or NAME. */
static const struct {
    const char *name;
    int value;   /* wants =VALUE */
    int decides; /* part of the class's way of grading */
} passable[] = {
    {"--seed", 1, 1}, {"--repeats", 1, 1}, {"--timeout", 1, 1}, {"--measure", 1, 1},
    {"--no-counters", 0, 1}, {"--run-as", 1, 0}, {"--verbose", 0, 0},
};

int grader_arg_check(const char *arg, char *why, size_t size)
{
    size_t n = strcspn(arg, "=");
    for (size_t i = 0; i < sizeof passable / sizeof passable[0]; i++) {
        if (strlen(passable[i].name) != n || strncmp(arg, passable[i].name, n))
            continue;
        if (passable[i].value && !arg[n])
            return snprintf(why, size, "--grader-arg %s wants its value after '=': "
                            "--grader-arg=%s=VALUE (make batch: GRADE_FLAGS='%s=VALUE')", arg,
                            arg, arg), -1;
        if (!passable[i].value && arg[n])
            return snprintf(why, size, "--grader-arg %s takes no value", arg), -1;
        return 0;
    }
    return snprintf(why, size, "--grader-arg %s: the batch passes only the grading options "
                    "--seed=N, --repeats=N, --timeout=SEC, --measure=HOW, --no-counters, "
                    "--run-as=USER and --verbose (it sets the library, the files, the device "
                    "and the course itself; a course file: smemlab-batch --course FILE)", arg), -1;
}

static int decides(const char *arg)
{
    size_t n = strcspn(arg, "=");
    for (size_t i = 0; i < sizeof passable / sizeof passable[0]; i++)
        if (strlen(passable[i].name) == n && !strncmp(arg, passable[i].name, n))
            return passable[i].decides;
    return 0;
}

/* The grader's description of the lab (--describe), or NULL with why. */
static cJSON *describe(const batch_opts *o, char *why, size_t size)
{
    static char buf[65536];
    char *argv[] = {(char *)o->grader, "--describe", (char *)o->lab->id, "--course",
                    (char *)(o->course_path ? o->course_path : "none"), NULL};
    int st = run_capture(argv, 0, buf, sizeof buf);
    cJSON *d = st == 0 ? cJSON_Parse(buf) : NULL;
    if (!cJSON_IsObject(d)) {
        cJSON_Delete(d);
        snprintf(why, size, "%s --describe %s did not answer (status %d)", o->grader,
                 o->lab->id, st);
        return NULL;
    }
    return d;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

int identity_ask(batch_opts *o)
{
    char why[512];
    o->identity = describe(o, why, sizeof why);
    if (!o->identity && o->progress >= 0)
        fprintf(stderr, "smemlab-batch: could not ask the grader what it grades with (%s): "
                "the class is held to its options alone\n", why);
    return o->identity ? 0 : -1;
}

/* This run's way of grading, as class.json holds it. */
static cJSON *way_now(const batch_opts *o)
{
    cJSON *w = cJSON_CreateObject(), *args = cJSON_CreateArray();
    cJSON_AddStringToObject(w, "lab", o->lab->id);
    /* sorted: the same options in another order are the same way */
    const char *sorted[64];
    int n = 0;
    for (int i = 0; i < o->n_grader_args && n < 64; i++)
        if (decides(o->grader_args[i]))
            sorted[n++] = o->grader_args[i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
            const char *t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(sorted[i]));
    cJSON_AddItemToObject(w, "grader_args", args);
    cJSON_AddStringToObject(w, "table_sha256", jstr(o->identity, "table_sha256"));
    cJSON_AddStringToObject(w, "table", jstr(o->identity, "table"));
    cJSON_AddStringToObject(w, "course", jstr(o->identity, "course"));
    cJSON_AddStringToObject(w, "grader", jstr(o->identity, "grader"));
    return w;
}

/* The table's lines that differ between two texts, "- old" / "+ new", into out. */
static void table_lines(const char *was, const char *now, char *out, size_t size)
{
    size_t o = strlen(out);
    char *a = strdup(was), *b = strdup(now);
    for (int side = 0; side < 2; side++) {
        char *mine = strdup(side ? now : was), *other = side ? a : b;
        for (char *save = NULL, *l = strtok_r(mine, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            char *hit = strstr(other, l);
            int whole = hit && (hit == other || hit[-1] == '\n') &&
                        (hit[strlen(l)] == '\n' || !hit[strlen(l)]);
            if (!whole && o < size)
                o += (size_t)snprintf(out + o, size - o, "      %s %s\n", side ? "now" : "was", l);
        }
        free(mine);
    }
    free(a);
    free(b);
}

/* What differs between the way recorded and this run's, in words ("" for nothing). */
static void way_diff(const cJSON *was, const cJSON *now, char *out, size_t size)
{
    out[0] = 0;
    size_t o = 0;
    char *pa = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(was, "grader_args"));
    char *pb = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(now, "grader_args"));
    if (strcmp(jstr(was, "lab"), jstr(now, "lab")))
        o += (size_t)snprintf(out + o, size - o, "    the lab: %s, now %s\n", jstr(was, "lab"),
                              jstr(now, "lab"));
    if (pa && pb && strcmp(pa, pb))
        o += (size_t)snprintf(out + o, size - o, "    the grader's options: %s, now %s\n", pa, pb);
    const char *ta = jstr(was, "table_sha256"), *tb = jstr(now, "table_sha256");
    if (ta[0] && tb[0] && strcmp(ta, tb)) {
        o += (size_t)snprintf(out + o, o < size ? size - o : 0, "    the lab's table (points, "
                              "speed thresholds, steps; course file %s, now %s):\n",
                              jstr(was, "course")[0] ? jstr(was, "course") : "none",
                              jstr(now, "course")[0] ? jstr(now, "course") : "none");
        if (o < size)
            table_lines(jstr(was, "table"), jstr(now, "table"), out, size);
    }
    free(pa);
    free(pb);
}

int class_way_check(const batch_opts *o)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", o->results, CLASS_FILE);
    char *text = read_file_all(path, NULL, 1 << 20);
    cJSON *was = text ? cJSON_Parse(text) : NULL, *now = way_now(o);
    free(text);
    int rc = 0;
    char diff[8192];
    if (cJSON_IsObject(was)) {
        way_diff(was, now, diff, sizeof diff);
        if (diff[0] && !o->regrade && !o->reproduce) {
            fprintf(stderr, "smemlab-batch: %s was graded another way:\n%s"
                    "A class is graded one way. To grade all of it again this way (the earlier "
                    "records kept in history/, --diff says whose points changed), add --regrade "
                    "(make batch: BATCH_FLAGS=--regrade); to go on the way it was graded, run "
                    "with its options and course file (class.json).\n",
                    o->results, diff);
            rc = -1;
        } else if (diff[0] && o->regrade && o->progress >= 0) {
            printf("Grading the class again another way:\n%s", diff);
        }
    }
    cJSON_Delete(was);
    cJSON_Delete(now);
    return rc;
}

void class_way_write(const batch_opts *o)
{
    cJSON *now = way_now(o);
    char *text = cJSON_Print(now), err[512];
    cJSON_Delete(now);
    if (text && write_file_atomic(o->results, CLASS_FILE, text, strlen(text), err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s\n", err);
    free(text);
}

void batch_provenance(const batch_opts *o, result *r)
{
    if (!r->grading)
        r->grading = cJSON_CreateObject();
    cJSON *b = cJSON_CreateObject(), *args = cJSON_CreateArray();
    for (int i = 0; i < o->n_grader_args; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(o->grader_args[i]));
    cJSON_AddItemToObject(b, "grader_args", args);
    cJSON_AddStringToObject(b, "nvcc", o->nvcc ? o->nvcc : "nvcc");
    cJSON_AddStringToObject(b, "nvcc_arch", o->nvcc_arch ? o->nvcc_arch : "");
    cJSON_AddNumberToObject(b, "build_timeout", o->build_timeout);
    cJSON_AddNumberToObject(b, "build_memory", (double)o->build_memory);
    cJSON_AddStringToObject(b, "build_sandbox", o->build_sandbox);
    cJSON_AddNumberToObject(b, "time_limit", o->time_limit);
    cJSON_AddStringToObject(b, "grader_path", o->grader);
    cJSON_DeleteItemFromObjectCaseSensitive(r->grading, "batch");
    cJSON_AddItemToObject(r->grading, "batch", b);
}
