/*
 * batch.h - smemlab-batch: grade a class of submissions (docs/instructors.md).
 *
 * discover.c  a class folder or archive -> one submission per student (or a reason why not)
 * layouts.c   how learning systems name their exports (Moodle, Canvas, Blackboard, Gradescope)
 * names.c     original names kept for the gradebook, safe student ids for files
 * roster.c    --roster: ids, names and emails put on what an export names
 * pipeline.c  builds (make lab-lib, -j N) feed a queue that graders (N per GPU) consume
 * record.c    RESULTS_DIR/STUDENT.json, written atomically as each one is done
 * reports.c   gradebook.csv, feedback text/HTML, Gradescope, Autolab, JUnit, summary
 * slurm.c     --slurm: the same, as a Slurm job array
 * leftovers.c what a run killed with -9 left (processes, scratch folder), ended by the next
 */
#ifndef SMEMLAB_BATCH_H
#define SMEMLAB_BATCH_H

#include "../labs/lab_table.h"
#include "../base/build_limits.h"
#include "../base/sha256.h"

#include <stddef.h>
#include <stdio.h>

#define BATCH_EXIT_OK 0         /* every submission has a final result */
#define BATCH_EXIT_NOT_GRADED 1 /* some could not be graded (no GPU, time limit, ...) */
#define BATCH_EXIT_USAGE 2      /* bad command line: nothing was done */
#define BATCH_EXIT_ENV 3        /* the kit is not usable (grader or make missing) */

#define ID_MAX 128
#define NAME_MAX_B 256
#define REASON_MAX 1024

typedef enum sub_status {
    ST_PENDING = 0,   /* to be built and graded */
    ST_GRADED,        /* the grader ran: points out of max */
    ST_NOT_COMPILED,  /* nvcc failed: reason holds the first error */
    ST_NOT_GRADED,    /* the grader could not grade it: reason says why */
    ST_REJECTED       /* not a usable submission: reason says why */
} sub_status;

const char *status_name(sub_status s); /* "graded", "not-compiled", ... */
sub_status status_parse(const char *s);

typedef struct check_rec {
    char *kernel, *check, *status, *message, *measured, *expected, *hint;
    double points, max_points;
    char *bank_map;        /* the student's worst warp instruction, drawn ("" if none) */
    struct cJSON *lines;   /* the grader's per-line records (file, line, op, ...); NULL if none */
} check_rec;

/* A deep copy of one check; check_rec_free frees what it holds. */
void check_rec_copy(check_rec *to, const check_rec *from);
void check_rec_free(check_rec *c);

/* One student's result: what RESULTS_DIR/STUDENT.json holds. */
typedef struct result {
    char student[ID_MAX];
    char name[NAME_MAX_B];   /* as the export or the roster names them (UTF-8) */
    char email[NAME_MAX_B];
    int late;                /* the export marks it late (Canvas) */
    char entry[ID_MAX * 2];  /* the entry of SUBMISSIONS_DIR it came from */
    char source[1024];       /* where labN.cu was found, relative ("alice.zip:alice/lab3.cu") */
    char source_note[512];   /* why that file was taken, when not plainly labN.cu ("" otherwise) */
    char sha256[65];
    char lab[16];
    sub_status status;
    char reason[REASON_MAX];
    double points, max_points;
    double build_seconds, grade_seconds;
    int grader_exit;         /* -1: the grader did not run */
    char device[512];        /* the grader's "device" line: what measured, and how */
    char provenance[256];    /* the same, short ("trace on NVIDIA H100 80GB HBM3, sm_90") */
    char compiler[2048];     /* not compiled: the compiler's first lines about the file */
    int not_measured;        /* checks graded neither pass nor fail (not measured, not graded) */
    char predictions[2048];  /* the student's PREDICT lines judged (no points; "" if none) */
    int final;               /* a re-run keeps it (unless --regrade) */
    check_rec *checks;
    int n_checks;
    char lms[16];            /* the learning system the export came from ("moodle", ...; "") */
    char lms_id[NAME_MAX_B]; /* its own id of the student (participant id, user id, SID) */
    double max_here;         /* max_points less the checks not measured or not graded here */
    double final_points;     /* points after the course's policy (policy.c; not recorded) */
    char policy[256];        /* what the policy did ("late: -10%"; "" where nothing) */
    char graded_with[512];   /* the grading, short: version, table, seed, toolchain */
    struct cJSON *grading;   /* what graded it, whole (provenance.h, and the batch's own) */
} result;

void result_free_checks(result *r); /* and the provenance */

/* How a result's reason begins when the student's library broke the lab's contract
   (rejected, 0 points, final: the student's to fix, not the machine's). */
#define CONTRACT_BROKEN "breaks the lab's contract: "

/* One student's submission after discovery. */
typedef struct submission {
    char student[ID_MAX];      /* safe id: letters, digits, '.', '_', '-' (names.c) */
    char name[NAME_MAX_B];     /* their name as exported (or the roster's), UTF-8 */
    char email[NAME_MAX_B];
    char ext_id[NAME_MAX_B];   /* the id the export carries (user id, username, SID) */
    const char *layout;        /* "folder", "moodle", "canvas", "blackboard", "gradescope", "roster" */
    int late;
    char entry[ID_MAX * 2];    /* the class folder's entry it came from (the first, if several) */
    char source[1024];     /* relative description of where labN.cu was found */
    char source_note[512]; /* why that file was taken (a renamed file, the newest upload) */
    char *code;            /* labN.cu's bytes (NULL when rejected) */
    size_t code_len;
    char sha256[65];
    sub_status status;     /* ST_PENDING or ST_REJECTED */
    char reason[REASON_MAX];
} submission;

typedef struct discover_limits {
    long long max_source;   /* bytes of labN.cu */
    long long max_archive;  /* bytes of an archive file, and of everything it holds */
    long long max_entries;  /* entries of an archive or a folder */
} discover_limits;

/* --roster FILE (roster.c). */
typedef struct roster_row {
    char id[NAME_MAX_B], name[NAME_MAX_B], email[NAME_MAX_B];
    char key[NAME_MAX_B]; /* the name folded (name_key) */
} roster_row;
typedef struct roster {
    roster_row *rows;
    int n;
} roster;
int roster_load(const char *path, roster *r, char *err, size_t errlen);
const roster_row *roster_match(const roster *r, const char *ext_id, const char *email,
                               const char *name);
void roster_free(roster *r);

/* Names (names.c). */
void name_clean(const char *in, char *out, size_t size);   /* valid UTF-8, no control characters */
void name_safe_id(const char *name, char *out, size_t size); /* as is, or folded + "-" + 8 hex */
void name_fold(const char *in, char *out, size_t size, int keep_punct); /* to ASCII */
void name_key(const char *name, char *out, size_t size);   /* folded, lower case, letters and digits */

/*
 * The class at `path` (a folder, or a .zip/.tar/.tar.gz/.tar.xz of one, as a
 * learning system exports it): one submission per student, sorted by id.
 * With a roster, ids, names and emails come from it, and everyone on it
 * without a submission gets one that says so. Names in `only` (ids), when
 * given, are the ones kept. Returns the count, *out, or -1 with a message in
 * err when the class cannot be read at all.
 */
int discover(const char *path, const lab_def *lab, const discover_limits *lim,
             const roster *ro, char *const *only, int n_only, submission **out, char *err,
             size_t errlen);
void submissions_free(submission *s, int n);

/* Results folder records. */
int record_write(const char *results_dir, const result *r, char *err, size_t errlen);
int record_read(const char *path, result *r); /* 0, or -1 when absent or unreadable */
void record_clean_temps(const char *results_dir);

/* Filling a result from the grader's --json output: 1, or 0 when it wrote none. */
int result_from_grader_json(result *r, const char *json_path, int exit_status,
                             const char *fallback_reason);

/* Options of a run. */
typedef struct batch_opts {
    const lab_def *lab;
    const char *submissions, *results;
    const char *kit, *grader, *nvcc, *nvcc_arch, *make;
    const char *roster_path; /* --roster, passed on to Slurm tasks */
    roster roster;
    int jobs, jobs_set;
    int gpus[64], n_gpus;
    int per_gpu;       /* graders at a time on each GPU (they take turns measuring) */
    double time_limit; /* from when a grader has its GPU (--status-fd) */
    int no_meter_server; /* each grader measures by itself */
    int regrade;
    int regrade_apart; /* --regrade-not-measured: grade again what has checks not measured */
    char **only; int n_only;
    char **grader_args; int n_grader_args;
    discover_limits limits;
    /* The build jail (grader/jail/): its limits, passed to make lab-lib. */
    double build_timeout;      /* seconds of CPU, each compiler process (--build-timeout) */
    long long build_memory;    /* bytes of address space, each compiler process */
    long long build_output;    /* bytes, each file a build writes */
    long long build_log;       /* bytes of compiler messages kept */
    const char *build_sandbox; /* "auto" or "portable" */
    int progress;  /* 1: TTY progress line, 0: plain lines, -1: quiet */
    int slurm; int chunk_size; const char *sbatch; char **sbatch_args; int n_sbatch_args;
    int slurm_gpu;     /* --slurm-gpu: each task asks for a GPU (--gres=gpu:1) */
    long task; const char *chunk_file;
    const char *self; /* this program, for Slurm tasks */
    char **argv; int argc;
    const char *course_path;  /* --course, or the kit's course.conf; NULL: none */
    struct cJSON *identity;   /* the grader's --describe of the lab (identity.c); NULL */
    int regrade_all;          /* --regrade-all: not compiled and rejected too */
    int reproduce;            /* --reproduce STUDENT (reproduce.c) */
    const char *reproduce_id;
    int diff_only;            /* --diff: what the last re-grade changed, nothing graded */
    const char *assignment;   /* --assignment: the learning system's name of it (lms.c) */
} batch_opts;

/* The wall time the jail gives one build (build_limits.h). */
static inline double batch_build_wall_s(const batch_opts *o)
{
    return BUILD_WALL_PER_CPU * o->build_timeout;
}

/* Build and grade the pending submissions; records each result as it is done.
 * results[i] corresponds to subs[i]. Returns 0, or -1 if the pipeline could not start. */
int pipeline_run(const batch_opts *o, submission *subs, int n, result *results);

/* Reports over all results of the class (RESULTS_DIR/...). Returns 0 or -1. */
int reports_write(const batch_opts *o, const result *rs, int n, char *err, size_t errlen);
void summary_print(FILE *f, const batch_opts *o, const result *rs, int n);

/* A run's scratch folder, noted in RESULTS before it is made and while the run works;
 * the next run ends what a killed one left working there and removes it (leftovers.c).
 * leftovers_make_scratch makes it in root: 0, or -1 (errno). */
int leftovers_make_scratch(const batch_opts *o, char *root, size_t size);
void leftovers_forget(const char *results);
void leftovers_clean(const batch_opts *o);

/* --slurm: grade the pending submissions through a job array. */
int slurm_run(const batch_opts *o, submission *subs, int n, result *results);
/* The --time of each array task, in minutes: one chunk's builds and grades, each at
 * its limit, one after another, rounded up, plus 5 (docs/instructors.md#slurm). */
int slurm_minutes(const batch_opts *o);

/* What grades the class and one way of grading it (identity.c). */
int grader_arg_check(const char *arg, char *why, size_t size); /* 0, or -1 with why */
int identity_ask(batch_opts *o);            /* the grader's --describe: 0, or -1 (said) */
int class_way_check(const batch_opts *o);   /* 0, or -1: graded another way (said) */
void class_way_write(const batch_opts *o);
void batch_provenance(const batch_opts *o, result *r); /* the batch's part of r's provenance */

/* A re-grade keeps what it replaces (history.c). */
int history_keep(const char *results, const char *student); /* RESULTS/history/ID/N.json */
/* RESULTS/sources/SHA256.cu: every source graded, once, so that a record can be graded
   again from the results folder alone (--reproduce). */
void history_keep_source(const char *results, const submission *s);
void history_report(FILE *f, const batch_opts *o, const result *rs, int n, const int *regraded);
int history_diff(const batch_opts *o); /* --diff: the exit status */

/* main.c's set-up, shared with --reproduce: 0, or the exit status (said). */
int batch_locate_kit(batch_opts *o, const char *argv0);
int batch_load_course(batch_opts *o);
char *batch_ask_arch(const batch_opts *o); /* `make -s nvcc-arch`, or NULL */
/* --reproduce ID (reproduce.c): the exit status. */
int reproduce_run(batch_opts *o, const char *argv0);

/* The course's late penalty and extra points: each r's final_points and policy (policy.c). */
int policy_apply(const batch_opts *o, result *rs, int n);
/* RESULTS/lms/: the learning system's own import files (lms.c); html[i]: rs[i]'s feedback. */
int lms_write(const batch_opts *o, const result *rs, int n, char *const *html, char *err,
              size_t errlen);
/* RESULTS/similar.txt: identical and near-identical submissions (similar.c). */
int similar_write(const batch_opts *o, const result *rs, int n);
/* RESULTS/manifest.txt, and files of students no longer in the class set apart (stale.c). */
int stale_sweep(const batch_opts *o, const result *rs, int n, const char *const *extra, int n_extra);

/* Small helpers (util.c). */
double now_seconds(void);
int mkdir_p(const char *path, int mode);
int rm_rf(const char *path);
int write_file_atomic(const char *dir, const char *name, const void *data, size_t len,
                      char *err, size_t errlen);
int write_file(const char *path, const void *data, size_t len);
char *read_file_all(const char *path, size_t *len, long long cap);
/* Runs argv (PATH searched where argv[0] has no '/'), its standard output into buf (size
   bytes, NUL-terminated; what does not fit is read and dropped), MAKEFLAGS and MAKELEVEL
   unset where plain_make (a make of its own, not of the caller's). Its exit status, or
   -1 where it could not start or did not exit. */
int run_capture(char *const argv[], int plain_make, char *buf, size_t size);
void result_init_from_sub(result *r, const submission *s, const lab_def *lab);
/* Every "DIR/" in the result's texts removed (a scratch folder: no student sees it). */
void result_scrub(result *r, const char *dir);
/* "1 check", "2 checks": n and the noun, singular or plural. */
const char *count_of(int n, const char *one, const char *many, char *buf, size_t size);

#endif
