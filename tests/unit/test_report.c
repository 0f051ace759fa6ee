/* test_report.c - the text and JSON reports (grader/report/). */
#define _POSIX_C_SOURCE 200809L
#include "base/exit_codes.h"
#include "base/provenance.h"
#include "report/report.h"

#include <cJSON.h>
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Quotes, newlines, backslashes, a tab and a control character. */
#define NASTY_HINT "Use \"tile[threadIdx.x][threadIdx.y]\"\nthen C:\\path\\to\\lab1.cu\ttab \x01 end"

static check_result results_checks[4];
static lab_result results[2];
static score total;
static int total_code;

/* lab1 graded with one check of each status, lab2 not graded at all. */
static void setup(void)
{
    memset(results, 0, sizeof results);
    memset(&total, 0, sizeof total);

    check_result *c = results_checks;
    check_init(&c[0], "lab1", "setRowReadRow", "correct", 2);
    check_set(&c[0], CHECK_PASS, "all 1024 elements right (3 runs)");
    check_field(c[0].hint, sizeof c[0].hint, "pass hint, shown only when verbose");
    check_field(c[0].measured, sizeof c[0].measured, "1024 right");
    check_field(c[0].expected, sizeof c[0].expected, "1024 right");

    check_init(&c[1], "lab1", "setColReadCol", "load-conflicts", 1);
    check_set(&c[1], CHECK_FAIL, "loads conflict-free (expected 32-way conflict)");
    check_field(c[1].measured, sizeof c[1].measured, "32 wavefronts / 32 requests");
    check_field(c[1].expected, sizeof c[1].expected,
                "1024 wavefronts / 32 requests (32-way conflict)");
    check_field(c[1].hint, sizeof c[1].hint, "%s", NASTY_HINT);

    check_init(&c[2], "lab1", "setColReadCol", "store-conflicts", 1);
    check_set(&c[2], CHECK_NOT_MEASURED, "not measured: ERR_NVGPUCTRPERM");
    check_field(c[2].measured, sizeof c[2].measured, "not measured");
    check_field(c[2].expected, sizeof c[2].expected, "1024 wavefronts / 32 requests");
    check_field(c[2].hint, sizeof c[2].hint, "ask an administrator");

    check_init(&c[3], "lab1", "setColReadColDyn", "correct", 0);
    check_set(&c[3], CHECK_SKIPPED, "optional: launch_setColReadColDyn is not in your file");

    results[0].lab = lab_find("lab1");
    results[0].checks = c;
    results[0].n_checks = 4;
    results[0].cap = 4;
    results[0].seconds = 1.25;
    results[0].points = 2; /* the runner adds them up once; reports only print them */
    results[0].max_points = 4;
    results[0].host_printed = (char *)"hello from a launcher\nScore: 99/99\n";
    snprintf(results[0].device, sizeof results[0].device, "NVIDIA H100 80GB HBM3 (cupti)");

    results[1].lab = lab_find("lab2");
    results[1].env_code = EXIT_ENVIRONMENT;
    snprintf(results[1].env_text, sizeof results[1].env_text,
             "build/lab2.so not found: build the lab first with `make lab2`");

    score_add(&total, &results[0]);
    score_add(&total, &results[1]);
    total_code = score_exit_code(&total);
}

/* Everything f received, as a string (f is closed). */
static char *slurp(FILE *f)
{
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *text = calloc((size_t)n + 1, 1);
    ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

static char *json_text(void)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json(f, results, 2, &total, total_code), 0);
    return slurp(f);
}

/* (not inlined: gcc 12 then takes what strstr finds in the text for a pointer to the
   local that open_memstream fills, -Wdangling-pointer) */
__attribute__((noinline)) static char *lab_text(int i, report_style st)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    ck_assert_ptr_nonnull(f);
    report_text_lab(f, &results[i], &st);
    fclose(f);
    return buf;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(v != NULL, "JSON has no \"%s\"", key);
    return v;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    ck_assert_msg(cJSON_IsString(v), "\"%s\" is not a string", key);
    return v->valuestring;
}

static double get_num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "\"%s\" is not a number", key);
    return v->valuedouble;
}

START_TEST(test_json_structure)
{
    char *text = json_text();
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "report_json wrote invalid JSON:\n%s", text);
    ck_assert_str_eq(get_str(root, "tool"), "smemlab-grade");
    ck_assert_double_eq_tol(get_num(root, "contract_version"), 1, 1e-12);

    const cJSON *labs = get(root, "labs");
    ck_assert(cJSON_IsArray(labs));
    ck_assert_int_eq(cJSON_GetArraySize(labs), 2);
    const cJSON *lab1 = cJSON_GetArrayItem(labs, 0), *lab2 = cJSON_GetArrayItem(labs, 1);
    ck_assert_str_eq(get_str(lab1, "id"), "lab1");
    ck_assert_str_eq(get_str(lab1, "title"), results[0].lab->title);
    ck_assert_str_eq(get_str(lab1, "source"), "labs/lab1-square/lab1.cu");
    ck_assert_str_eq(get_str(lab1, "device"), "NVIDIA H100 80GB HBM3 (cupti)");
    ck_assert_str_eq(get_str(lab1, "provenance"), "NVIDIA H100 80GB HBM3 (cupti)");
    ck_assert(cJSON_IsNull(get(lab1, "not_graded")));
    ck_assert_double_eq_tol(get_num(lab1, "points"), 2, 1e-12);
    ck_assert_double_eq_tol(get_num(lab1, "max_points"), 4, 1e-12);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(lab1, "host_printed")->valuestring,
                     "hello from a launcher\nScore: 99/99\n");
    ck_assert_double_eq_tol(get_num(lab1, "seconds"), 1.25, 1e-9);

    const cJSON *checks = get(lab1, "checks");
    ck_assert(cJSON_IsArray(checks));
    ck_assert_int_eq(cJSON_GetArraySize(checks), 4);
    static const char *const status[] = {"pass", "fail", "not-measured", "skipped"};
    static const char *const ids[] = {"correct", "load-conflicts", "store-conflicts", "correct"};
    static const double points[] = {2, 0, 0, 0}, max_points[] = {2, 1, 1, 0};
    for (int i = 0; i < 4; i++) {
        const cJSON *c = cJSON_GetArrayItem(checks, i);
        ck_assert_str_eq(get_str(c, "status"), status[i]);
        ck_assert_str_eq(get_str(c, "check"), ids[i]);
        ck_assert_str_eq(get_str(c, "kernel"), results_checks[i].kernel);
        ck_assert_str_eq(get_str(c, "message"), results_checks[i].message);
        ck_assert_str_eq(get_str(c, "measured"), results_checks[i].measured);
        ck_assert_str_eq(get_str(c, "expected"), results_checks[i].expected);
        ck_assert_double_eq_tol(get_num(c, "points"), points[i], 1e-12);
        ck_assert_double_eq_tol(get_num(c, "max_points"), max_points[i], 1e-12);
    }

    ck_assert_str_eq(get_str(lab2, "id"), "lab2");
    ck_assert_str_eq(get_str(lab2, "not_graded"), results[1].env_text);
    ck_assert_int_eq(cJSON_GetArraySize(get(lab2, "checks")), 0);
    ck_assert_double_eq_tol(get_num(lab2, "points"), 0, 1e-12);

    ck_assert_double_eq_tol(get_num(root, "points"), 2, 1e-12);
    ck_assert_double_eq_tol(get_num(root, "max_points"), 4, 1e-12);
    ck_assert_double_eq_tol(get_num(root, "failed"), 1, 1e-12);
    ck_assert_double_eq_tol(get_num(root, "not_measured"), 1, 1e-12);
    ck_assert_int_eq(total_code, EXIT_CHECK_FAILED);
    ck_assert_double_eq_tol(get_num(root, "exit_code"), EXIT_CHECK_FAILED, 1e-12);
    cJSON_Delete(root);
    free(text);
}
END_TEST

START_TEST(test_json_escaping)
{
    char *text = json_text();
    /* raw control characters never appear inside JSON strings (cJSON indents
     * with tabs, so only the \x01 and the newline inside the hint can tell) */
    ck_assert_ptr_null(strchr(text, '\x01'));
    ck_assert_ptr_null(strstr(text, "lab1.cu\ttab"));
    ck_assert_ptr_null(strstr(text, "]\"\nthen"));
    ck_assert_ptr_nonnull(strstr(text, "\\n"));
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *check = cJSON_GetArrayItem(get(cJSON_GetArrayItem(get(root, "labs"), 0),
                                                "checks"), 1);
    ck_assert_str_eq(get_str(check, "hint"), NASTY_HINT);
    cJSON_Delete(root);
    free(text);
}
END_TEST

START_TEST(test_json_exit_code_passed_through)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json(f, results, 1, &total, EXIT_NOT_MEASURED), 0);
    char *text = slurp(f);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_double_eq_tol(get_num(root, "exit_code"), EXIT_NOT_MEASURED, 1e-12);
    ck_assert_int_eq(cJSON_GetArraySize(get(root, "labs")), 1);
    cJSON_Delete(root);
    free(text);

    /* no labs at all is still a valid document */
    score none;
    memset(&none, 0, sizeof none);
    f = tmpfile();
    ck_assert_int_eq(report_json(f, results, 0, &none, EXIT_ALL_PASSED), 0);
    text = slurp(f);
    root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(cJSON_GetArraySize(get(root, "labs")), 0);
    ck_assert_double_eq_tol(get_num(root, "exit_code"), 0, 1e-12);
    cJSON_Delete(root);
    free(text);
}
END_TEST

START_TEST(test_json_write_error)
{
    FILE *f = fopen("/dev/null", "r"); /* writes to a read-only stream fail */
    ck_assert_ptr_nonnull(f);
    errno = 0;
    ck_assert_int_eq(report_json(f, results, 2, &total, total_code), -1);
    ck_assert_int_ne(errno, 0);
    fclose(f);
}
END_TEST

/* --verbose: every check on its line, the numbers and hints of passing ones too. */
START_TEST(test_text_lab)
{
    char *t = lab_text(0, (report_style){.verbose = 1});
    ck_assert_msg(strstr(t, "== lab1: ") != NULL, "%s", t);
    ck_assert_ptr_nonnull(strstr(t, results[0].lab->title));
    ck_assert_ptr_nonnull(strstr(t, "NVIDIA H100 80GB HBM3 (cupti)"));
    ck_assert_ptr_nonnull(strstr(t, "setRowReadRow\n"));
    ck_assert_ptr_nonnull(strstr(t, "setColReadCol\n"));
    ck_assert_ptr_nonnull(strstr(t, "PASS  correct"));
    ck_assert_ptr_nonnull(strstr(t, "all 1024 elements right (3 runs)"));
    ck_assert_ptr_nonnull(strstr(t, "FAIL  load-conflicts"));
    ck_assert_ptr_nonnull(strstr(t, "loads conflict-free (expected 32-way conflict)"));
    ck_assert_ptr_nonnull(strstr(t, "measured 32 wavefronts / 32 requests"));
    ck_assert_ptr_nonnull(strstr(t, "expected 1024 wavefronts / 32 requests (32-way conflict)"));
    ck_assert_ptr_nonnull(strstr(t, "hint: Use \"tile[threadIdx.x][threadIdx.y]\""));
    ck_assert_ptr_nonnull(strstr(t, "N/M"));
    ck_assert_ptr_nonnull(strstr(t, "not measured: ERR_NVGPUCTRPERM"));
    ck_assert_ptr_nonnull(strstr(t, "SKIP"));
    ck_assert_ptr_nonnull(strstr(t, "lab1: 2/4 points"));
    /* what the student's code printed is quoted in its own section, every line marked */
    ck_assert_ptr_nonnull(strstr(t, "-- your launchers (host code) printed (not part of the "
                                    "grade) --\n  | hello from a launcher\n  | Score: 99/99\n"));
    ck_assert_ptr_null(strstr(t, "\nScore: 99/99"));
    ck_assert_ptr_nonnull(strstr(t, "pass hint"));
    ck_assert_ptr_nonnull(strstr(t, "measured 1024 right"));
    ck_assert_ptr_null(strstr(t, "\033["));
    /* a not-measured check has no measured/expected line, but its hint */
    ck_assert_ptr_null(strstr(t, "measured not measured"));
    ck_assert_ptr_nonnull(strstr(t, "hint: ask an administrator"));
    /* the kernel heading appears once for its two checks */
    const char *first = strstr(t, "setColReadCol\n");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "setColReadCol\n"));
    free(t);
}
END_TEST

/* The compact report: a passing kernel is one line, a failing one shows what
 * failed with its numbers and hint; no colour unless asked. */
START_TEST(test_text_lab_compact)
{
    char *t = lab_text(0, (report_style){0});
    ck_assert_msg(strstr(t, "setRowReadRow       2/2  PASS  1 of 1 check\n") != NULL, "%s", t);
    ck_assert_ptr_null(strstr(t, "all 1024 elements right"));
    ck_assert_ptr_null(strstr(t, "pass hint"));
    ck_assert_ptr_nonnull(strstr(t, "setColReadCol       0/2\n"));
    ck_assert_ptr_nonnull(strstr(t, "  FAIL  load-conflicts   loads conflict-free (expected 32-way"));
    ck_assert_ptr_nonnull(strstr(t, "measured 32 wavefronts / 32 requests"));
    ck_assert_ptr_nonnull(strstr(t, "hint: Use \"tile[threadIdx.x][threadIdx.y]\""));
    ck_assert_ptr_nonnull(strstr(t, "  N/M   store-conflicts  not measured: ERR_NVGPUCTRPERM"));
    ck_assert_ptr_nonnull(strstr(t, "setColReadColDyn    0/0  SKIP  optional: "));
    ck_assert_ptr_nonnull(strstr(t, "lab1: 2/4 points"));
    ck_assert_ptr_null(strstr(t, "\033["));
    free(t);
}
END_TEST

START_TEST(test_text_lab_verbose_color)
{
    char *t = lab_text(0, (report_style){.color = 1, .verbose = 1});
    ck_assert_ptr_nonnull(strstr(t, "pass hint"));
    ck_assert_ptr_nonnull(strstr(t, "measured 1024 right"));
    ck_assert_ptr_nonnull(strstr(t, "\033[32mPASS\033[0m"));
    ck_assert_ptr_nonnull(strstr(t, "\033[31mFAIL\033[0m"));
    free(t);
}
END_TEST

/* A lab 1 file in the skeleton's shape: TODOs inside the bodies, one above a
 * launcher, braces in comments and strings that must not count. */
static const char *const SKELETON =
    "#include \"smemlab.h\"\n"                                  /* 1 */
    "/* { a brace in a comment */\n"                             /* 2 */
    "__global__ void setRowReadRow(int *out)\n"                  /* 3 */
    "{\n"                                                        /* 4 */
    "    const char *s = \"}\";\n"                                /* 5 */
    "    /* TODO(student): store, sync, load */\n"                /* 6 */
    "}\n"                                                        /* 7 */
    "__global__ void setColReadCol(int *out)\n"                  /* 8 */
    "{\n"                                                        /* 9 */
    "    out[0] = 1;\n"                                           /* 10 */
    "}\n"                                                        /* 11 */
    "/* TODO(student): launch setRowReadCol, sum_{i,j} */\n"     /* 12 */
    "SMEMLAB_LAUNCHER void launch_setRowReadCol(int *out)\n"     /* 13 */
    "{\n"                                                        /* 14 */
    "    // cudaDeviceSynchronize(); no call: a comment\n"       /* 15 */
    "    my_cudaHelper(out); cudaish(out);\n"                    /* 16 */
    "    cudaMemcpyToSymbol(c, out, 4);\n"                       /* 17 */
    "    setRowReadCol<<<1, 32>>>(out);\n"                       /* 18 */
    "}\n";                                                       /* 19 */

static char *write_skeleton(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/smemlab-places-%d.cu", (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(SKELETON, f);
    fclose(f);
    return path;
}

/* r's report over the skeleton's places (its lab's lines too where with_lab), then Next:
   into a buffer the caller frees; the skeleton's path, removed by then, into path. */
static char *report_over_skeleton(lab_result *r, int with_lab, char *path, size_t size)
{
    snprintf(path, size, "%s", write_skeleton());
    report_find_places(r, path);
    char *buf = NULL;
    size_t used = 0;
    FILE *f = open_memstream(&buf, &used);
    report_style st = {0};
    if (with_lab)
        report_text_lab(f, r, &st);
    report_text_next(f, r, 1, &st);
    fclose(f);
    remove(path);
    return buf;
}

START_TEST(test_places)
{
    lab_result r = {.lab = lab_find("lab1")};
    char *path = write_skeleton();
    report_find_places(&r, path);
    remove(path);
    ck_assert_ptr_nonnull(r.places);
    ck_assert_str_eq(r.source, path);
    ck_assert_int_eq(r.places[0].kernel, 3);
    ck_assert_int_eq(r.places[0].todo, 6);
    ck_assert_int_eq(r.places[1].kernel, 8);
    ck_assert_int_eq(r.places[1].todo, 0); /* written: no TODO left */
    ck_assert_int_eq(r.places[2].kernel, 0);
    ck_assert_int_eq(r.places[2].launcher_todo, 12);
    ck_assert_int_eq(r.places[2].runtime_call, 17); /* not the comment's, nor a name's tail */
    ck_assert_int_eq(r.places[2].launch, 18);
    ck_assert_int_eq(r.places[0].launch, 0); /* a kernel's body is no launcher's */
    free(r.places);
    lab_result none = {.lab = lab_find("lab1")};
    report_find_places(&none, "/nonexistent/lab1.cu");
    ck_assert_ptr_null(none.places);
}
END_TEST

/* Sets c to what the tile module reports for a kernel never started. */
static void never_written(check_result *c, const char *kernel, const char *check)
{
    check_init(c, "lab1", kernel, check, 1);
    if (strcmp(check, "correct") == 0)
        check_set(c, CHECK_FAIL, "out was never written: all 1024 elements still hold the "
                  "poison value");
    else if (strcmp(check, "race") == 0)
        check_set(c, CHECK_FAIL, "waits for a shared tile: no shared loads or stores ran, "
                  "nothing to judge");
    else
        check_set(c, CHECK_FAIL, "not counted: the measured run gave a wrong result (out was "
                  "never written)");
    check_field(c->hint, sizeof c->hint, "hint of %s", check);
}

/*
 * A fresh skeleton: each kernel never started is one line naming its TODO;
 * a started kernel whose counts wait for correct says so on one line; a
 * hint is said once; the report ends with Next: the first failing kernel,
 * its TODO and its page.
 */
START_TEST(test_text_compact_skeleton)
{
    static const char *const ids[] = {"correct", "store-requests", "load-requests",
                                      "store-conflicts", "load-conflicts", "race"};
    check_result c[18];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 6; i++)
            never_written(&c[k * 6 + i], results[0].lab->kernels[k].name, ids[i]);
    /* setColReadCol (no TODO left) was written, but wrongly: its counts wait */
    check_set(&c[6], CHECK_FAIL, "3 of 1024 elements differ; first at row 0, col 1");
    check_field(c[6].hint, sizeof c[6].hint, "hint of correct");
    lab_result r = {.lab = lab_find("lab1"), .checks = c, .n_checks = 18, .max_points = 18};
    char path[64];
    char *buf = report_over_skeleton(&r, 1, path, sizeof path);
    char want[256];
    snprintf(want, sizeof want, "setRowReadRow    0/6  TODO  not started: out was never written; "
             "fill the TODO at %s:6\n", strrchr(path, '/') + 1);
    ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
    ck_assert_ptr_nonnull(strstr(buf, "setColReadCol    0/6\n  FAIL  correct          3 of 1024"));
    ck_assert_ptr_nonnull(strstr(buf, "  WAIT  5 checks wait for correct: store-requests, "
                                      "load-requests, store-conflicts, load-conflicts, race\n"));
    /* said once: the first kernel's line carries no hint, the second's correct does */
    char *hint = strstr(buf, "hint of correct");
    ck_assert_ptr_nonnull(hint);
    ck_assert_ptr_null(strstr(hint + 1, "hint of correct"));
    ck_assert_ptr_null(strstr(buf, "hint of store-requests"));
    ck_assert_ptr_nonnull(strstr(buf, "setRowReadCol    0/6  TODO  not started"));
    snprintf(want, sizeof want, "\nNext: setRowReadRow: out was never written; fill the TODO at "
             "%s:6. Course: ", path);
    ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
    ck_assert_ptr_nonnull(strstr(buf, "lab1.html#exercise\n") ? buf : strstr(buf, "lab1.md#exercise\n"));
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    ck_assert_int_le(lines, 12);
    free(buf);
    free(r.places);
}
END_TEST

/* A launcher's call that the grader refuses: Next names the line that makes it, where the
   check itself names none (the recorder sees the call, not its line). */
START_TEST(test_next_names_runtime_call)
{
    static const char *const ids[] = {"correct", "store-requests", "load-requests",
                                      "store-conflicts", "load-conflicts", "race"};
    check_result c[18];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 6; i++) {
            check_init(&c[k * 6 + i], "lab1", results[0].lab->kernels[k].name, ids[i], 1);
            check_set(&c[k * 6 + i], CHECK_PASS, "fine");
        }
    check_set(&c[12], CHECK_FAIL, "launch_setRowReadCol called cudaMemcpyToSymbol: a launcher "
              "may only launch kernels on the default stream");
    for (int i = 13; i < 18; i++)
        check_set(&c[i], CHECK_FAIL, "not run: launch_setRowReadCol called cudaMemcpyToSymbol");
    lab_result r = {.lab = lab_find("lab1"), .checks = c, .n_checks = 18, .max_points = 18};
    char path[64];
    char *buf = report_over_skeleton(&r, 0, path, sizeof path);
    char want[256];
    snprintf(want, sizeof want, "Next: setRowReadCol: correct fails at %s:17. ", path);
    ck_assert_msg(strstr(buf, want) != NULL, "%s", buf);
    free(buf);
    free(r.places);
}
END_TEST

/* Every check not graded for one reason: one line, its hint once. */
START_TEST(test_text_compact_not_graded)
{
    check_result c[3];
    for (int i = 0; i < 3; i++) {
        check_init(&c[i], "lab1", "setRowReadCol", i ? "race" : "correct", 1);
        check_set(&c[i], CHECK_NOT_GRADED, "not graded: the emulator does not support `mma`");
        check_field(c[i].hint, sizeof c[i].hint, "%s", CHECK_HINT_NOT_GRADED);
    }
    lab_result r = {.lab = lab_find("lab1"), .checks = c, .n_checks = 3};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    report_text_lab(f, &r, &(report_style){0});
    fclose(f);
    ck_assert_msg(strstr(buf, "setRowReadCol    0/3  N/G   not graded: the emulator does not "
                              "support `mma`\n        hint: This is a limit") != NULL, "%s", buf);
    ck_assert_ptr_null(strstr(strstr(buf, "hint:") + 1, "hint:"));
    free(buf);
}
END_TEST

/*
 * Checks with nothing to judge wait, grouped by what they wait for, and are not
 * the Next: line's failure; the Score line counts the failures to fix apart from
 * those waiting for them.
 */
START_TEST(test_text_waits_for_tile)
{
    static const char *const ids[] = {"correct", "global-loads", "smem-conflicts", "race"};
    check_result c[4];
    for (int i = 0; i < 4; i++)
        check_init(&c[i], "lab10", "stencil1DConst", ids[i], 1);
    check_set(&c[0], CHECK_PASS, "all 15 lengths right");
    check_set(&c[1], CHECK_FAIL, "global loads not cut: 2313 warp instructions");
    check_set(&c[2], CHECK_FAIL, "waits for a shared tile: 0 shared loads, 0 shared stores ran, "
              "no conflict to judge");
    check_set(&c[3], CHECK_FAIL, "waits for a shared tile: no shared loads or stores ran, "
              "nothing to judge");
    lab_result r = {.lab = lab_find("lab10"), .checks = c, .n_checks = 4, .max_points = 4};
    score sc = {0};
    score_add(&sc, &r);
    ck_assert_int_eq(sc.failed, 3);
    ck_assert_int_eq(sc.waiting, 2);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    report_style st = {0};
    report_text_lab(f, &r, &st);
    report_text_total(f, &sc);
    report_text_next(f, &r, 1, &st);
    fclose(f);
    ck_assert_msg(strstr(buf, "  WAIT  2 checks wait for a shared tile: smem-conflicts, race\n")
                  != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "FAIL  smem-conflicts") == NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "FAIL  race") == NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "(1 check failed, 2 more wait for it)") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "Next: stencil1DConst: global-loads fails") != NULL, "%s", buf);
    free(buf);

    /* waiting checks and none failed on its own: not "failed" (a student's walkthrough
       read "WAIT race" on the line and "(1 check failed)" under it) */
    score waits = {.points = 3, .max_points = 4, .failed = 1, .waiting = 1};
    f = open_memstream(&buf, &size);
    report_text_total(f, &waits);
    fclose(f);
    ck_assert_str_eq(buf, "Score: 3/4  (1 check waits, no points: see its line)\n");
    free(buf);

    /* Next: names the line of the student's file the failure names, not a header's */
    snprintf(r.source, sizeof r.source, "labs/lab10-constant/lab10.cu");
    c[1].n_lines = 2;
    snprintf(c[1].lines[0].file, sizeof c[1].lines[0].file, "sm_32_intrinsics.hpp");
    c[1].lines[0].line = 134;
    snprintf(c[1].lines[1].file, sizeof c[1].lines[1].file, "lab10.cu");
    c[1].lines[1].line = 59;
    f = open_memstream(&buf, &size);
    report_text_next(f, &r, 1, &st);
    fclose(f);
    ck_assert_msg(strstr(buf, "Next: stencil1DConst: global-loads fails at "
                              "labs/lab10-constant/lab10.cu:59. Course: ") != NULL, "%s", buf);
    free(buf);
    c[1].n_lines = 0;
    r.source[0] = '\0';

    /* correct failed: whatever a check says it waits for, it waits for correct first */
    check_set(&c[0], CHECK_FAIL, "at n=1: 1 of 1 elements differ");
    check_set(&c[1], CHECK_FAIL, "not counted: the measured run gave a wrong result");
    f = open_memstream(&buf, &size);
    report_text_lab(f, &r, &st);
    fclose(f);
    ck_assert_msg(strstr(buf, "  WAIT  3 checks wait for correct: global-loads, smem-conflicts, "
                              "race\n") != NULL, "%s", buf);
    free(buf);
}
END_TEST

/* The JSON: a check that waits for another is "waiting", never "fail", and the root's
   "failed" counts only the failures of their own ("waiting" the rest) (issue 39). A
   handed-in file's Next: line (--handin) names no make command. */
START_TEST(test_json_waiting)
{
    static const char *const ids[] = {"correct", "global-loads", "smem-conflicts"};
    check_result c[3];
    for (int i = 0; i < 3; i++)
        check_init(&c[i], "lab10", "stencil1DConst", ids[i], 1);
    check_set(&c[0], CHECK_FAIL, "at n=1: 1 of 1 elements differ");
    check_set(&c[1], CHECK_FAIL, "not counted: the measured run gave a wrong result");
    check_set(&c[2], CHECK_FAIL, "waits for a shared tile: no shared loads or stores ran");
    lab_result r = {.lab = lab_find("lab10"), .checks = c, .n_checks = 3, .max_points = 3};
    score sc = {0};
    score_add(&sc, &r);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json(f, &r, 1, &sc, score_exit_code(&sc)), 0);
    char *text = slurp(f);
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "%s", text);
    const cJSON *checks = get(cJSON_GetArrayItem(get(root, "labs"), 0), "checks");
    ck_assert_str_eq(get_str(cJSON_GetArrayItem(checks, 0), "status"), "fail");
    ck_assert_str_eq(get_str(cJSON_GetArrayItem(checks, 1), "status"), "waiting");
    ck_assert_str_eq(get_str(cJSON_GetArrayItem(checks, 2), "status"), "waiting");
    ck_assert_int_eq((int)get_num(root, "failed"), 1);
    ck_assert_int_eq((int)get_num(root, "waiting"), 2);
    ck_assert_int_eq((int)get_num(root, "exit_code"), EXIT_CHECK_FAILED);
    cJSON_Delete(root);
    free(text);

    /* a kernel with nothing left to fix, handed in: no "make grade grades the rest" (the
       whole lab's "On to lab10: make ..." is test-autolab.sh's: the solution's feedback) */
    for (int i = 0; i < 3; i++)
        check_set(&c[i], CHECK_PASS, "fine");
    lab_result done = {.lab = lab_find("lab9"), .checks = c, .n_checks = 3, .max_points = 3};
    char *buf = NULL;
    size_t size = 0;
    report_style st = {.handin = 1};
    f = open_memstream(&buf, &size);
    report_text_next(f, &done, 1, &st);
    fclose(f);
    ck_assert_msg(strstr(buf, "stencil1DConst has nothing left to fix.\n") != NULL &&
                  strstr(buf, "make") == NULL, "%s", buf);
    free(buf);
    st.handin = 0;
    f = open_memstream(&buf, &size);
    report_text_next(f, &done, 1, &st);
    fclose(f);
    ck_assert_msg(strstr(buf, "make grade grades the rest of lab9") != NULL, "%s", buf);
    free(buf);
}
END_TEST

/* A lab done but for speed, emulated: the report ends saying speed is measured on a GPU
   (make grade then succeeds on the grader's status 4); nothing of the kind otherwise. */
START_TEST(test_text_next_speed_on_gpu)
{
    check_result c[2];
    check_init(&c[0], "lab7", "reduceSmemUnroll", "correct", 3);
    check_set(&c[0], CHECK_PASS, "all 11 sizes right");
    check_init(&c[1], "lab7", "reduceSmemUnroll", "speed", 3);
    check_set(&c[1], CHECK_NOT_MEASURED, "not measured: emulated on the CPU (speed is the "
              "GPU's to tell)");
    lab_result r = {.lab = lab_find("lab7"), .checks = c, .n_checks = 2};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    report_text_next(f, &r, 1, &(report_style){0});
    fclose(f);
    ck_assert_msg(strstr(buf, "has nothing left to fix") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "Speed is measured on a GPU: this run was emulated, so the speed "
                              "of reduceSmemUnroll (3 points) waits for one; nothing failed.\n")
                  != NULL, "%s", buf);
    free(buf);
    c[1].status = CHECK_PASS;
    f = open_memstream(&buf, &size);
    report_text_next(f, &r, 1, &(report_style){0});
    fclose(f);
    ck_assert_msg(strstr(buf, "Speed is measured") == NULL, "%s", buf);
    free(buf);
}
END_TEST

START_TEST(test_text_not_graded)
{
    char *t = lab_text(1, (report_style){0});
    ck_assert_ptr_nonnull(strstr(t, "== lab2: "));
    ck_assert_ptr_nonnull(
        strstr(t, "not graded: build/lab2.so not found: build the lab first with `make lab2`"));
    ck_assert_ptr_null(strstr(t, "PASS"));
    ck_assert_ptr_null(strstr(t, "FAIL"));
    ck_assert_ptr_null(strstr(t, "points"));
    free(t);
}
END_TEST

static char *total_text(const score *s, int code)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    ck_assert_ptr_nonnull(f);
    (void)code;
    report_text_total(f, s);
    fclose(f);
    return buf;
}

START_TEST(test_predictions_judged_without_points)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/smemlab-predict-%d.cu", (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("// PREDICT setColReadCol store 32 load 32\n// PREDICT setRowReadRow load 1\n", f);
    fclose(f);
    char path2[80];
    snprintf(path2, sizeof path2, "%s.again", path);
    ck_assert_int_eq(link(path, path2), 0);
    results[0].checks[1].degree = 1.0; /* setColReadCol load-conflicts: measured conflict-free */
    double points = results[0].points;
    report_judge_predictions(&results[0], path);
    remove(path);
    ck_assert_ptr_nonnull(results[0].predictions);
    /* the load was predicted 32-way, as the exercise makes it, and measured conflict-free
       by a kernel that fails load-conflicts: the code differs, the prediction is not judged */
    ck_assert_ptr_nonnull(strstr(results[0].predictions, "setColReadCol load: you predicted "
                                 "32-way conflict; your kernel measured conflict-free, and "
                                 "load-conflicts says how its code differs"));
    ck_assert_ptr_nonnull(strstr(results[0].predictions, "1 prediction waits for the code to "
                                 "pass its check, none judged yet"));
    ck_assert_ptr_null(strstr(results[0].predictions, "0 of 0"));
    ck_assert_ptr_null(strstr(results[0].predictions, "not this time"));
    /* the same check passing, the same prediction measured otherwise: judged, wrong */
    free(results[0].predictions);
    results[0].checks[1].status = CHECK_PASS;
    report_judge_predictions(&results[0], path2);
    ck_assert_ptr_nonnull(strstr(results[0].predictions, "0 of 1 predictions right"));
    ck_assert_ptr_nonnull(strstr(results[0].predictions, "not this time"));
    results[0].checks[1].status = CHECK_FAIL;
    remove(path2);
    ck_assert_double_eq_tol(results[0].points, points, 1e-12);
    FILE *out = tmpfile();
    report_text_lab(out, &results[0], &(report_style){0});
    char *t = slurp(out);
    ck_assert_ptr_nonnull(strstr(t, "-- your predictions (no points) --"));
    free(t);
    free(results[0].predictions);
    results[0].predictions = NULL;
    report_judge_predictions(&results[0], "/nonexistent/lab1.cu"); /* no file: no section */
    ck_assert_ptr_null(results[0].predictions);
}
END_TEST

/* Labs 5 to 9 judge a kernel's shared conflicts in one check (smem-conflicts), its degree
   the loads': a load prediction is held to it (lab 9's unpadded tile, 16-way). */
START_TEST(test_predictions_of_smem_conflicts)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/smemlab-predict9-%d.cu", (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("// PREDICT transposeSmem load 16\n", f);
    fclose(f);
    lab_result r;
    check_result c;
    memset(&r, 0, sizeof r);
    check_init(&c, "lab9", "transposeSmem", "smem-conflicts", 1);
    check_set(&c, CHECK_PASS, "the tile's column read is a 16-way conflict");
    c.degree = 16.0;
    r.checks = &c;
    r.n_checks = 1;
    report_judge_predictions(&r, path);
    remove(path);
    ck_assert_ptr_nonnull(r.predictions);
    ck_assert_msg(strstr(r.predictions, "1 of 1 predictions right") != NULL, "%s", r.predictions);
    free(r.predictions);
}
END_TEST

START_TEST(test_text_total)
{
    score s = {.points = 5, .max_points = 6, .passed = 5};
    char *t = total_text(&s, EXIT_ALL_PASSED);
    ck_assert_str_eq(t, "Score: 5/6\n");
    free(t);

    s.failed = 1;
    t = total_text(&s, EXIT_CHECK_FAILED);
    ck_assert_ptr_nonnull(strstr(t, "Score: 5/6"));
    ck_assert_ptr_nonnull(strstr(t, "(1 check failed)"));
    free(t);

    s.failed = 2;
    s.not_measured = 3;
    s.env_errors = 1;
    s.points = 2.5;
    t = total_text(&s, EXIT_CHECK_FAILED);
    ck_assert_ptr_nonnull(strstr(t, "Score: 2.5/6"));
    ck_assert_ptr_nonnull(strstr(t, "(2 checks failed)"));
    ck_assert_ptr_nonnull(strstr(t, "3 checks not measured"));
    ck_assert_ptr_nonnull(strstr(t, "(1 lab not graded)"));
    free(t);

    t = total_text(&total, total_code);
    ck_assert_ptr_nonnull(strstr(t, "Score: 2/4"));
    ck_assert_ptr_nonnull(strstr(t, "1 lab not graded"));
    free(t);
}
END_TEST

/* Trace backend: the lines behind a check and the bank map, in text and JSON. */
START_TEST(test_trace_lines)
{
    check_result *c = &results_checks[1];
    c->n_lines = 2;
    c->lines[0] = (check_line){.file = "lab1.cu", .line = 73, .op = "load",
                               .requests = 32, .wavefronts = 1024, .ideal = 32};
    c->lines[1] = (check_line){.file = "lab1.cu", .line = 68, .op = "store",
                               .requests = 32, .wavefronts = 32, .ideal = 32};
    check_warp *w = &c->lines[0].worst; /* lane i down a column of 32-word rows */
    *w = (check_warp){.active = 0xFFFFFFFFu, .width = 4, .banks = 32, .bank_bytes = 4, .warp = 3};
    for (int lane = 0; lane < 32; lane++)
        w->addr[lane] = 128u * (unsigned)lane;
    snprintf(c->bank_map, sizeof c->bank_map, "        your worst load (lab1.cu:73)\n"
             "        lane  0  1\n");
    char *t = lab_text(0, (report_style){0});
    ck_assert_msg(strstr(t, "        at lab1.cu:73  load  32-way (1024 wavefronts / 32 requests)\n"
                            "        at lab1.cu:68  store  conflict-free (32 wavefronts / 32 requests)\n"
                            "        your worst load (lab1.cu:73)\n        lane  0  1\n") != NULL,
                  "%s", t);
    free(t);

    char *text = json_text();
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    const cJSON *checks = get(cJSON_GetArrayItem(get(root, "labs"), 0), "checks");
    const cJSON *conf = cJSON_GetArrayItem(checks, 1), *lines = get(conf, "lines");
    ck_assert_int_eq(cJSON_GetArraySize(lines), 2);
    const cJSON *l0 = cJSON_GetArrayItem(lines, 0);
    ck_assert_str_eq(get_str(l0, "file"), "lab1.cu");
    ck_assert_double_eq(get_num(l0, "line"), 73);
    ck_assert_str_eq(get_str(l0, "op"), "load");
    ck_assert_double_eq(get_num(l0, "wavefronts"), 1024);
    ck_assert_double_eq(get_num(l0, "ideal"), 32);
    ck_assert_ptr_nonnull(strstr(get_str(conf, "bank_map"), "lane  0  1"));
    /* the line's worst warp, lane by lane; a line without one has no "warp" */
    const cJSON *warp = get(l0, "warp"), *addr = get(warp, "addresses");
    ck_assert_double_eq(get_num(warp, "warp"), 3);
    ck_assert_double_eq(get_num(warp, "width"), 4);
    ck_assert_double_eq(get_num(warp, "active"), 4294967295.0);
    ck_assert_double_eq(get_num(warp, "banks"), 32);
    ck_assert_int_eq(cJSON_GetArraySize(addr), 32);
    ck_assert_double_eq(cJSON_GetArrayItem(addr, 31)->valuedouble, 128 * 31);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lines, 1), "warp"));
    /* checks without trace lines carry neither field */
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(checks, 0), "lines"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(checks, 0), "bank_map"));
    cJSON_Delete(root);
    free(text);
}
END_TEST

/* The page: lines marked by their distance from what the exercise expects, the worst
   warp drawn, everything the student wrote or a check says escaped. */
START_TEST(test_html_page)
{
    char dir[] = "/tmp/smemlab-page.XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/lab1.cu", dir);
    FILE *src = fopen(path, "w");
    ck_assert_ptr_nonnull(src);
    for (int i = 1; i <= 80; i++)
        fprintf(src, i == 5 ? "// </code></pre><script>alert(1)</script> \x01 & done\n"
                     : i == 73 ? "    out[idx] = tile[threadIdx.x][threadIdx.y];\n" : "int x%d;\n", i);
    fclose(src);
    check_result *c = &results_checks[1]; /* load-conflicts, failed: conflict-free where 32-way */
    c->n_lines = 2;
    c->lines[0] = (check_line){.file = "lab1.cu", .line = 73, .op = "load",
                               .requests = 32, .wavefronts = 32, .ideal = 32};
    c->lines[1] = (check_line){.file = "lab1.cu", .line = 68, .op = "store",
                               .requests = 32, .wavefronts = 32, .ideal = 32};
    c->expect_load = 32; /* the exercise's column read */
    check_set(c, CHECK_FAIL, "loads conflict-free (expected 32-way conflict) in %s/lab1.so", dir);
    check_warp *w = &c->lines[0].worst;
    *w = (check_warp){.active = 0xFFFFFFFFu, .width = 4, .banks = 32, .bank_bytes = 4};
    for (int lane = 0; lane < 32; lane++)
        w->addr[lane] = 4u * (unsigned)lane; /* a row: one wavefront */

    char *page = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&page, &size);
    ck_assert_int_eq(report_html(f, &results[0], path), 0);
    fclose(f);
    /* the load is conflict-free where the exercise asks for 32-way: far off; the store
       of the same failing check is at its ideal, which nothing says otherwise of */
    ck_assert_ptr_nonnull(strstr(page, "<span class=\"l m-far\" id=\"L73\">"));
    ck_assert_ptr_nonnull(strstr(page, "<span class=\"l m-ok\" id=\"L68\">"));
    ck_assert_ptr_nonnull(strstr(page, "<span class=\"l\" id=\"L72\">"));
    ck_assert_ptr_nonnull(strstr(page, "load conflict-free: 32 wavefronts / 32 requests (ideal "
                                       "32); expected 32-way"));
    /* its warp drawn from the addresses, by the model: one wavefront */
    const char *fig = strstr(page, "<figure id=\"f-setColReadCol-load-conflicts-0\">");
    ck_assert_ptr_nonnull(fig);
    ck_assert_ptr_nonnull(strstr(fig, "Model: 1 wavefront for this request of 32 lanes"));
    ck_assert_ptr_nonnull(strstr(page, "href=\"#f-setColReadCol-load-conflicts-0\""));
    ck_assert_ptr_nonnull(strstr(page, "href=\"#c-setColReadCol-load-conflicts\""));
    /* the file's markup and the hint's quotes are text; no control character gets through */
    ck_assert_ptr_nonnull(strstr(page, "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)"));
    ck_assert_ptr_null(strstr(page, "<script"));
    ck_assert_ptr_nonnull(strstr(page, "&quot;tile[threadIdx.x][threadIdx.y]&quot;"));
    ck_assert_ptr_null(memchr(page, '\x01', size));
    ck_assert_ptr_nonnull(strstr(page, "Measured on a GPU"));
    /* the folder the grader found the file in (a batch's scratch folder) is left out */
    ck_assert_ptr_null(strstr(page, dir));
    ck_assert_ptr_nonnull(strstr(page, "(expected 32-way conflict) in lab1.so"));
    free(page);

    /* a passing check whose words name a line (what the twin could not judge, and where)
       links it, and the line is marked: no link leads to a line the page leaves bare */
    check_result *pass = &results_checks[0];
    check_result was = *pass;
    check_set(pass, CHECK_PASS, "all 1024 elements right (synchronisation not judged: the "
              "emulator does not support `mma` (lab1.cu:40))");
    page = NULL;
    f = open_memstream(&page, &size);
    ck_assert_int_eq(report_html(f, &results[0], path), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(page, "href=\"#L40\""));
    ck_assert_msg(strstr(page, "<span class=\"l m-info\" id=\"L40\">") != NULL, "%s",
                  strstr(page, "id=\"L40\"") - 40);
    free(page);
    *pass = was;

    /* no file to show: the lines are named, not linked */
    page = NULL;
    f = open_memstream(&page, &size);
    ck_assert_int_eq(report_html(f, &results[0], "/nonexistent/lab1.cu"), 0);
    fclose(f);
    ck_assert_ptr_null(strstr(page, "href=\"#L73\""));
    ck_assert_ptr_nonnull(strstr(page, "<code>lab1.cu:73</code>"));
    ck_assert_ptr_nonnull(strstr(page, "could not be read here"));
    free(page);
    remove(path);
    rmdir(dir);
}
END_TEST

/* A worker's warp that no GPU could have made is dropped, not drawn. */
START_TEST(test_warp_tidy)
{
    check_warp w = {.active = 1, .width = 4, .banks = 32, .bank_bytes = 4, .addr = {8}};
    check_warp_tidy(&w);
    ck_assert_uint_eq(w.addr[0], 8); /* a shared warp as the grader records it: kept */
    w = (check_warp){.active = 1, .width = 16}; /* a global one: no geometry, kept */
    check_warp_tidy(&w);
    ck_assert_uint_eq(w.active, 1);
    check_warp bad[] = {{.active = 1, .width = 3, .banks = 32, .bank_bytes = 4},
                        {.active = 1, .width = 4, .banks = 7, .bank_bytes = 4},
                        {.active = 1, .width = 4, .banks = 32, .bank_bytes = 0},
                        {.active = 0, .width = 4, .banks = 32, .bank_bytes = 4, .addr = {9}}};
    for (int i = 0; i < 4; i++) {
        check_warp_tidy(&bad[i]);
        ck_assert_uint_eq(bad[i].active, 0);
        ck_assert_int_eq(bad[i].width, 0);
        ck_assert_uint_eq(bad[i].addr[0], 0);
    }
}
END_TEST

/* The grader's three device lines (grade/worker.c describe_device), short. */
START_TEST(test_provenance)
{
    char p[256];
    device_provenance("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 32 banks x 4 bytes); measured by "
                      "trace (Compute Sanitizer): it sees widths, lines and races", p, sizeof p);
    ck_assert_str_eq(p, "trace on NVIDIA H100 80GB HBM3, sm_90");
    device_provenance("emulated on the CPU: no GPU found; speed not measured (the PTX emulator, "
                      "32 banks x 4 bytes)", p, sizeof p);
    ck_assert_str_eq(p, "emulated on the CPU: no GPU found; speed not measured");
    device_provenance("Tesla T4 (sm_75, 40 SMs, 32 banks x 4 bytes); counters NOT measured: "
                      "ERR_NVGPUCTRPERM", p, sizeof p);
    ck_assert_str_eq(p, "Tesla T4, sm_75, counters not measured");
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_json_structure);
    tcase_add_test(tc, test_provenance);
    tcase_add_test(tc, test_json_escaping);
    tcase_add_test(tc, test_json_exit_code_passed_through);
    tcase_add_test(tc, test_json_write_error);
    tcase_add_test(tc, test_text_lab);
    tcase_add_test(tc, test_text_lab_compact);
    tcase_add_test(tc, test_text_lab_verbose_color);
    tcase_add_test(tc, test_places);
    tcase_add_test(tc, test_text_compact_skeleton);
    tcase_add_test(tc, test_next_names_runtime_call);
    tcase_add_test(tc, test_text_compact_not_graded);
    tcase_add_test(tc, test_text_not_graded);
    tcase_add_test(tc, test_text_waits_for_tile);
    tcase_add_test(tc, test_json_waiting);
    tcase_add_test(tc, test_text_next_speed_on_gpu);
    tcase_add_test(tc, test_text_total);
    tcase_add_test(tc, test_predictions_judged_without_points);
    tcase_add_test(tc, test_predictions_of_smem_conflicts);
    tcase_add_test(tc, test_trace_lines);
    tcase_add_test(tc, test_warp_tidy);
    tcase_add_test(tc, test_html_page);
    suite_add_tcase(s, tc);
    return s;
}
