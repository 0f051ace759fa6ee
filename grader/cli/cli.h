/* cli.h - the grader's command line. */
#ifndef SMEMLAB_CLI_H
#define SMEMLAB_CLI_H

#include "../labs/lab_table.h"
#include "../measure/measure.h"
#include "../grade/worker.h"

#include <stdio.h>

#define CLI_MAX_LABS 16

typedef struct cli_options {
    const lab_def *labs[CLI_MAX_LABS];
    int n_labs;
    const char *lib;       /* --lib: one lab's library, overriding the default */
    const char *source;    /* --source: the lab file with the student's predictions */
    int solutions;         /* grade build/solutions/<lab>.so */
    const char *build_dir; /* default "build" */
    const char *json;      /* --json FILE */
    const char *html;      /* --html PATH: the report pages (a folder, or one lab's FILE.html) */
    int verbose, list, help, version;
    int handin; /* --handin: graded as a handed-in file (an autograder): no make commands */
    int check_launches; /* --check-launches: record and validate only */
    const char *serve_meter; /* --serve-meter SOCKET: be a batch's meter server (meter_server.h) */
    measure_mode measure;  /* --measure auto|counters|trace (default auto) */
    const char *kernel;    /* --kernel NAME: grade that kernel alone */
    const char *course;    /* --course FILE ("none"); NULL: the kit's course.conf, if any */
    const char *describe;  /* --describe LAB: what would grade it, as JSON (smemlab-batch) */
    grade_options grade;
} cli_options;

/*
 * Parse argv. Returns 0, or EXIT_USAGE after printing what is wrong and what
 * to do to err.
 */
int cli_parse(int argc, char **argv, cli_options *o, FILE *err);

void cli_usage(FILE *f);

/* Whether --html PATH names a page (ends in .html) rather than a folder of them. */
int html_is_file(const char *path);

/* Library path for lab (into buf). */
const char *cli_lib_path(const cli_options *o, const lab_def *lab, char *buf, size_t size);

#endif
