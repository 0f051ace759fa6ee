/*
 * main.c - smemlab-grade: load lab -> run -> measure -> compare with model
 * -> score -> report. Each stage lives in its own file; this one only
 * strings them together.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "exit_codes.h"
#include "report/report.h"
#include "runner.h"
#include "score.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lab `make labN` built last, recorded in BUILD/last-lab. */
static const lab_def *last_built(const char *build_dir)
{
    char path[512], id[32] = "";
    snprintf(path, sizeof path, "%s/last-lab", build_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    if (fscanf(f, "%31s", id) != 1)
        id[0] = '\0';
    fclose(f);
    return lab_find(id);
}

static void list_labs(void)
{
    for (int i = 0; i < lab_registry_count; i++) {
        const lab_def *l = lab_registry[i];
        printf("%s  %-40s %s\n", l->id, l->title, l->source);
        for (int k = 0; k < l->n_kernels; k++)
            printf("      %s%s\n", l->kernels[k].name, l->kernels[k].optional ? " (optional)" : "");
    }
}

/* Write JSON next to the target and rename, so a crash never leaves half a file. */
static int write_json(const char *path, const lab_result *r, int n, const score *s, int code)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || report_json(f, r, n, s, code) != 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "smemlab-grade: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    cli_options o;
    int rc = cli_parse(argc, argv, &o, stderr);
    if (rc)
        return rc;
    if (o.help || o.version) {
        o.help ? cli_usage(stdout) : (void)puts("smemlab-grade, lab contract version 1");
        return EXIT_ALL_PASSED;
    }
    if (o.list) {
        list_labs();
        return EXIT_ALL_PASSED;
    }
    if (o.n_labs == 0 && !(o.labs[o.n_labs++] = last_built(o.build_dir))) {
        fprintf(stderr, "smemlab-grade: no lab given and none built yet in %s/.\n"
                "Build one first, e.g. `make lab1 && make grade`, or name it: "
                "`make grade LAB=lab1`.\n", o.build_dir);
        return EXIT_USAGE;
    }

    lab_result results[CLI_MAX_LABS];
    report_style style = {isatty(STDOUT_FILENO) && !getenv("NO_COLOR"), o.verbose};
    score total = {0};
    for (int i = 0; i < o.n_labs; i++) {
        char lib[512];
        o.grade.lib_path = cli_lib_path(&o, o.labs[i], lib, sizeof lib);
        run_lab(o.labs[i], &o.grade, &results[i]);
        report_text_lab(stdout, &results[i], &style);
        score_add(&total, &results[i]);
    }
    int code = score_exit_code(&total);
    report_text_total(stdout, &total, code);
    if (o.json && write_json(o.json, results, o.n_labs, &total, code) != 0)
        code = code ? code : EXIT_ENVIRONMENT;
    for (int i = 0; i < o.n_labs; i++)
        lab_result_free(&results[i]);
    return code;
}
