/*
 * predict.h - the student's own predictions of bank conflicts, read from
 * the lab's .cu file and compared with what the grader measured.
 *
 * A student writes, anywhere in the lab file, comment lines such as
 *
 *     // PREDICT setRowReadCol store 1 load 32
 *     // PREDICT setColReadCol load 32
 *     // PREDICT setRowReadColPad store ? load ?     (? = no prediction yet)
 *     // PREDICT lookupConst const 30
 *
 * that is: `//` (or `*` inside a block comment), the word PREDICT in
 * capitals, a kernel name, then `store N` and/or `load N` in either order,
 * N being the conflict degree the student expects (1 = conflict-free, 32 =
 * 32-way; decimals such as 1.5 are allowed), or `const N`: the distinct
 * constant-memory addresses a warp request reads (lab 10: 1 is a broadcast,
 * and the constant cache serves N addresses one after another). The grader compares each with
 * the measured degree and prints one line per prediction. Predictions earn
 * and cost no points: they are there to make the student think first.
 *
 * The file is the student's and may hold anything: it is read only up to
 * PREDICT_MAX_BYTES, only as a regular file, every line is looked at through
 * a bounded buffer, and at most PREDICT_MAX predictions and
 * PREDICT_MAX_NOTES notes about unreadable lines are kept.
 */
#ifndef SMEMLAB_PREDICT_H
#define SMEMLAB_PREDICT_H

#include <stddef.h>

#define PREDICT_MAX 64          /* predictions kept per file */
#define PREDICT_NAME_MAX 64     /* kernel name, terminating NUL included */
#define PREDICT_MAX_NOTES 8     /* notes about lines that could not be read */
#define PREDICT_NOTE_MAX 192
#define PREDICT_MAX_BYTES (1L << 20) /* read at most this much of the file */
#define PREDICT_MAX_DEGREE 32.0 /* a warp has 32 lanes: no request costs more */

typedef enum predict_access { PREDICT_STORE, PREDICT_LOAD, PREDICT_CONST } predict_access;

typedef struct prediction {
    char kernel[PREDICT_NAME_MAX];
    predict_access access;
    double degree; /* predicted conflict degree (const: addresses), 1 .. PREDICT_MAX_DEGREE */
    int line;      /* 1-based line of the file it came from */
} prediction;

typedef struct predict_set {
    prediction items[PREDICT_MAX];
    int count;
    int dropped;   /* readable predictions beyond PREDICT_MAX, not kept */
    int truncated; /* 1: the file was longer than PREDICT_MAX_BYTES; the rest was not read */
    char notes[PREDICT_MAX_NOTES][PREDICT_NOTE_MAX]; /* "line 7: ..." what was wrong */
    int n_notes;
    int notes_dropped; /* notes beyond PREDICT_MAX_NOTES */
} predict_set;

/*
 * Read the predictions of the lab file at path into *out (cleared first).
 * Returns 0 (also when the file holds none), or -1 when the file cannot be
 * read at all: err then says why and what to do.
 */
int predict_parse(const char *path, predict_set *out, char *err, size_t err_size);

/* The same, on text already in memory (len bytes; NUL bytes are allowed). */
void predict_parse_text(const char *text, size_t len, predict_set *out);

/* The prediction for kernel's store or load, or NULL. A later line replaces an earlier one. */
const prediction *predict_find(const predict_set *set, const char *kernel, predict_access access);

typedef enum predict_verdict {
    PREDICT_RIGHT,        /* among the degrees the check accepts (or near the measurement) */
    PREDICT_WRONG,
    PREDICT_NOT_MEASURED, /* measured is not a number >= 1: nothing to compare */
    PREDICT_NOT_JUDGED    /* the check failed: the code, not the prediction, is what differs */
} predict_verdict;

/* What the check a prediction names said of the student's kernel. */
typedef struct predict_against {
    double measured;  /* the degree (wavefronts / ideal, measured_degree), or distinct
                         constant addresses; not a number >= 1: not measured */
    double lo, hi;    /* the degrees the check accepts (check_result.accept_lo, _hi; 0 and 0:
                         it does not say, and the measurement stands for them) */
    int code_differs; /* the check failed */
    const char *check; /* its name ("load-conflicts"), for the words */
} predict_against;

/*
 * Judge p against what the check said and write one line for the report into text:
 *   "setRowReadCol load: you predicted 32-way conflict, measured 32-way conflict: right"
 * A prediction is of the exercise's code: right when it lies among the degrees the check
 * accepts (the interleaved tree's 3.80-way as written and 3.48-way as nvcc merges its
 * loads, say), else within DEGREE_TOLERANCE (relative) of the measurement. Where the
 * check failed the code is what differs from the exercise: the line says so and judges
 * nothing (PREDICT_NOT_JUDGED).
 */
predict_verdict predict_judge(const prediction *p, const predict_against *a, char *text,
                              size_t text_size);

/* "store", "load" or "const". */
const char *predict_access_name(predict_access a);

#endif /* SMEMLAB_PREDICT_H */
