/*
 * score.h - what grading a lab came to (lab_result: its checks with their
 * points, the device it ran on, what it printed), points per lab and
 * overall, and the exit status they imply.
 *
 * The runner (grade/runner.c) fills a lab_result; the score totals it and
 * the report (report/) prints it. May include: base/, labs/.
 */
#ifndef SMEMLAB_SCORE_H
#define SMEMLAB_SCORE_H

#include "../base/check.h"
#include "../labs/lab_table.h"

/* Where a kernel lives in the student's file (0: not found): the report points there. */
typedef struct kernel_place {
    int kernel;        /* its __global__ line */
    int todo;          /* the TODO that asks for it: inside its body, else just above it */
    int launcher_todo; /* a TODO inside or above its launcher */
    int launch;        /* the first line of its launcher's body with a launch (<<<) */
    int runtime_call;  /* the first line of its launcher's body that calls a cuda...()
                          function (what a launcher may not do) */
} kernel_place;

typedef struct lab_result {
    const lab_def *lab;
    check_result *checks; /* in the table's order: kernel by kernel */
    int n_checks, cap;
    double points, max_points; /* computed once, here; every report uses these */
    char device[1024];  /* GPU and counter backend, as the worker saw them */
    char graded_as[16]; /* --gpu: the GPU the emulator graded as ("kepler"); "": the one here */
    int env_code;       /* 0, or EXIT_ENVIRONMENT when the lab could not run */
    int refused;        /* with env_code: the library itself breaks the lab's contract (a
                           fixed parameter changed): the student's to fix, not the machine's */
    char env_text[1024];
    double seconds;     /* wall time of the whole lab */
    char *host_printed;   /* what the launchers (host code) printed, capped; NULL: nothing */
    char *device_printed; /* what the kernels printed (device printf), capped; NULL: nothing */
    int rejected_messages; /* worker messages refused (unknown id, duplicate, bad index) */
    char *predictions;     /* the student's predictions judged, one per line; NULL: none */
    char source[256];      /* the student's file the places are in ("": none read) */
    kernel_place *places;  /* one per kernel of lab, or NULL (report_find_places) */
    char page[512];        /* the report page written for it (--html; "": none) */
    char toolchain[256];   /* what built its device code (lab_image_toolchain; "": unread) */
} lab_result;

void lab_result_free(lab_result *r);

typedef struct score {
    double points, max_points;
    int failed, not_measured, passed, skipped;
    int waiting; /* of the failed, those that wait for another check (check_waits) */
    int not_graded; /* checks an instrument could not grade (CHECK_NOT_GRADED) */
    int env_errors;
} score;

/* Add one lab's checks (and whether it could run at all) to *s. */
void score_add(score *s, const lab_result *r);

/* Exit status for the whole run (exit_codes.h). */
int score_exit_code(const score *s);

#endif
