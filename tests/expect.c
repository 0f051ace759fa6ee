/*
 * expect.c - assertions on the grader's JSON results, for tests/gpu/check-gpu.sh.
 *
 *   expect FILE full                      every lab got full marks, exit_code 0
 *   expect FILE full-but-speed            every check passed but speed, not measured
 *                                         (the emulator), exit_code 0 or 4
 *   expect FILE not-full                  some points were lost (fewer points than the
 *                                         maximum, whatever the exit code)
 *   expect FILE scores                    every passed check has its points, every other
 *                                         check 0; the labs' and the total's points and
 *                                         maxima are their checks' sums; a failed check
 *                                         means less than full marks and exit_code 1
 *   expect FILE others-correct KERNEL     every other kernel's correct check passed
 *   expect FILE not-graded TEXT           exit_code 3, a lab not graded for TEXT
 *   expect FILE printed TEXT              the student's host code printed TEXT, shown
 *                                         apart from the report (host_printed)
 *   expect FILE device-printed TEXT       the student's kernels printed TEXT (device
 *                                         printf), shown apart (device_printed)
 *   expect FILE kernel-not-graded KERNEL TEXT
 *                                         every check of KERNEL (speed aside) is not-graded,
 *                                         0 points, its message holding TEXT; no check
 *                                         failed; exit_code 4
 *   expect FILE measures-not-graded KERNEL TEXT
 *                                         the same, but its correct check may pass (the
 *                                         kernel ran as compiled; only measuring it failed)
 *   expect FILE check KERNEL CHECK STATUS [TEXT]
 *                                         that check has STATUS (pass/fail/...) and
 *                                         its message contains TEXT (case-insensitive)
 * Prints one line saying what was wrong; exits 0 when the expectation holds.
 */
#define _GNU_SOURCE
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = calloc(1, (size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    fclose(f);
    text[got] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root)
        printf("%s is not valid JSON\n", path);
    return root;
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static const char *string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int expect_full(const cJSON *root, int want_full)
{
    double pts = number(root, "points"), max = number(root, "max_points");
    /* not-full is points lost: an exit code of 1 with every point kept is no skeleton's */
    int full = want_full ? max > 0 && pts == max && number(root, "exit_code") == 0
                         : !(max > 0 && pts < max);
    if (full == want_full)
        return 0;
    printf("expected %s marks, got %g/%g (exit_code %g)\n", want_full ? "full" : "less than full",
           pts, max, number(root, "exit_code"));
    return 1;
}

/* Emulated: every check passed, but speed checks, which are not measured. */
static int expect_full_but_speed(const cJSON *root)
{
    const cJSON *lab, *c;
    double code = number(root, "exit_code");
    int n = 0;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(lab, "checks")) {
            int speed = strcmp(string(c, "check"), "speed") == 0;
            const char *st = string(c, "status");
            n++;
            if (strcmp(st, speed ? "not-measured" : "pass") == 0 ||
                (!speed && strcmp(st, "skipped") == 0))
                continue;
            printf("%s %s: expected %s, got %s: %s\n", string(c, "kernel"), string(c, "check"),
                   speed ? "not-measured" : "pass", st, string(c, "message"));
            return 1;
        }
    if (n == 0 || (code != 0 && code != 4)) {
        printf("expected every check but speed to pass, exit_code 0 or 4; got %d checks, "
               "exit_code %g\n", n, code);
        return 1;
    }
    return 0;
}

static int expect_check(const cJSON *root, const char *kernel, const char *check,
                        const char *status, const char *text)
{
    const cJSON *lab, *c;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(lab, "checks")) {
            if (strcmp(string(c, "kernel"), kernel) || strcmp(string(c, "check"), check))
                continue;
            if (strcmp(string(c, "status"), status)) {
                printf("%s %s: expected %s, got %s: %s\n", kernel, check, status,
                       string(c, "status"), string(c, "message"));
                return 1;
            }
            if (text && !strcasestr(string(c, "message"), text)) {
                printf("%s %s: message \"%s\" lacks \"%s\"\n", kernel, check,
                       string(c, "message"), text);
                return 1;
            }
            return 0;
        }
    printf("%s %s: no such check in the results\n", kernel, check);
    return 1;
}

/* Points follow the statuses: a pass earns its check's points, anything else
   none; the sums add up; a failed check costs marks and exits 1. */
static int expect_scores(const cJSON *root)
{
    const cJSON *lab, *c;
    double total = 0, total_max = 0;
    int failed = 0;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs")) {
        double pts = 0, max = 0;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(lab, "checks")) {
            const char *st = string(c, "status");
            double p = number(c, "points"), m = number(c, "max_points");
            double want = strcmp(st, "pass") == 0 ? m : 0;
            if (p != want || m < 0) {
                printf("%s %s: %s with %g of %g points (expected %g)\n", string(c, "kernel"),
                       string(c, "check"), st, p, m, want);
                return 1;
            }
            failed += strcmp(st, "fail") == 0;
            pts += p;
            max += m;
        }
        if (number(lab, "points") != pts || number(lab, "max_points") != max) {
            printf("%s: %g/%g points, its checks add up to %g/%g\n", string(lab, "id"),
                   number(lab, "points"), number(lab, "max_points"), pts, max);
            return 1;
        }
        total += pts;
        total_max += max;
    }
    if (number(root, "points") != total || number(root, "max_points") != total_max) {
        printf("total %g/%g points, the labs add up to %g/%g\n", number(root, "points"),
               number(root, "max_points"), total, total_max);
        return 1;
    }
    if (number(root, "failed") != failed) {
        printf("\"failed\": %g, but %d checks failed\n", number(root, "failed"), failed);
        return 1;
    }
    if (failed && (!(total < total_max) || number(root, "exit_code") != 1)) {
        printf("%d checks failed, yet %g/%g points, exit_code %g\n", failed, total, total_max,
               number(root, "exit_code"));
        return 1;
    }
    return 0;
}

/* A library the grader refused: exit 3, the reason names TEXT. */
static int expect_not_graded(const cJSON *root, const char *text)
{
    const cJSON *lab;
    if (number(root, "exit_code") != 3) {
        printf("expected exit_code 3, got %g\n", number(root, "exit_code"));
        return 1;
    }
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        if (strcasestr(string(lab, "not_graded"), text))
            return 0;
    printf("no lab was refused for \"%s\"\n", text);
    return 1;
}

/* A kernel that crashed or hung must not cost the others their grade. */
static int expect_others_correct(const cJSON *root, const char *kernel)
{
    const cJSON *lab, *c;
    int bad = 0, seen = 0;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(lab, "checks")) {
            if (!strcmp(string(c, "kernel"), kernel) || strcmp(string(c, "check"), "correct"))
                continue;
            seen++;
            if (strcmp(string(c, "status"), "pass")) {
                printf("%s correct: expected pass, got %s: %s\n", string(c, "kernel"),
                       string(c, "status"), string(c, "message"));
                bad = 1;
            }
        }
    if (!seen)
        printf("no other kernel was graded\n");
    return bad || !seen;
}

/* An instrument's limit: the kernel's checks not graded, never failed, no points. */
static int expect_kernel_not_graded(const cJSON *root, const char *kernel, const char *text,
                                    int correct_may_pass)
{
    const cJSON *lab, *c;
    int seen = 0;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(lab, "checks")) {
            const char *st = string(c, "status");
            if (!strcmp(st, "fail")) {
                printf("%s %s: failed (%s); an instrument's limit must fail nothing\n",
                       string(c, "kernel"), string(c, "check"), string(c, "message"));
                return 1;
            }
            if (strcmp(string(c, "kernel"), kernel) || !strcmp(string(c, "check"), "speed"))
                continue;
            if (correct_may_pass && !strcmp(string(c, "check"), "correct") && !strcmp(st, "pass"))
                continue; /* run as compiled: only the measuring was out of reach */
            seen++;
            if (strcmp(st, "not-graded") || number(c, "points") != 0 ||
                !strcasestr(string(c, "message"), text)) {
                printf("%s %s: expected not-graded with 0 points and \"%s\", got %s (%g): %s\n",
                       kernel, string(c, "check"), text, st, number(c, "points"),
                       string(c, "message"));
                return 1;
            }
        }
    if (!seen || number(root, "exit_code") != 4) {
        printf("expected %s's checks not graded and exit_code 4; got %d checks, exit_code %g\n",
               kernel, seen, number(root, "exit_code"));
        return 1;
    }
    return 0;
}

/* What the launchers (host_printed) or the kernels (device_printed) printed is kept,
   capped, in a field of its own. */
static int expect_printed(const cJSON *root, const char *field, const char *text)
{
    const cJSON *lab;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        if (strcasestr(string(lab, field), text))
            return 0;
    printf("no lab's %s holds \"%s\"\n", field, text);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: expect FILE full|not-full|others-correct KERNEL|not-graded TEXT|\n"
                "              check KERNEL CHECK STATUS [TEXT]\n");
        return 2;
    }
    cJSON *root = load(argv[1]);
    if (!root)
        return 1;
    int rc = 2;
    if (!strcmp(argv[2], "full") || !strcmp(argv[2], "not-full"))
        rc = expect_full(root, !strcmp(argv[2], "full"));
    else if (!strcmp(argv[2], "scores"))
        rc = expect_scores(root);
    else if (!strcmp(argv[2], "full-but-speed"))
        rc = expect_full_but_speed(root);
    else if (!strcmp(argv[2], "not-graded") && argc == 4)
        rc = expect_not_graded(root, argv[3]);
    else if (!strcmp(argv[2], "printed") && argc == 4)
        rc = expect_printed(root, "host_printed", argv[3]);
    else if (!strcmp(argv[2], "device-printed") && argc == 4)
        rc = expect_printed(root, "device_printed", argv[3]);
    else if (!strcmp(argv[2], "kernel-not-graded") && argc == 5)
        rc = expect_kernel_not_graded(root, argv[3], argv[4], 0);
    else if (!strcmp(argv[2], "measures-not-graded") && argc == 5)
        rc = expect_kernel_not_graded(root, argv[3], argv[4], 1);
    else if (!strcmp(argv[2], "others-correct") && argc == 4)
        rc = expect_others_correct(root, argv[3]);
    else if (!strcmp(argv[2], "check") && argc >= 6)
        rc = expect_check(root, argv[3], argv[4], argv[5], argc > 6 ? argv[6] : NULL);
    else
        fprintf(stderr, "expect: bad arguments\n");
    cJSON_Delete(root);
    return rc;
}
