/*
 * check.h - one graded check and its outcome.
 *
 * Results travel from the worker process (which runs the student's kernels)
 * to the grader process through a pipe, so they are plain fixed-size records.
 */
#ifndef SMEMLAB_CHECK_H
#define SMEMLAB_CHECK_H

#include <stddef.h>

typedef enum check_status {
    CHECK_PASS,
    CHECK_FAIL,
    CHECK_NOT_MEASURED, /* counters unavailable: no points, never a silent pass */
    CHECK_SKIPPED,      /* optional kernel the student did not write */
    CHECK_NOT_GRADED    /* an instrument's limit (an instruction the emulator or a backend
                           cannot measure): no points lost, none given; never FAIL */
} check_status;

/*
 * The worst warp execution of a line (the trace and the emulator record it), lane
 * by lane, for the report page's drawing: the byte address each lane touched
 * (shared, or a global address's low 32 bits), in the bank geometry it was judged
 * in. active 0: none recorded. Plain numbers: the report draws them with the
 * models (model/bank.h, model/sector.h), as the course's figures are drawn.
 */
#define CHECK_WARP_LANES 32
typedef struct check_warp {
    unsigned addr[CHECK_WARP_LANES];
    unsigned active;      /* bit i: lane i took part */
    int width;            /* bytes a lane: 1, 2, 4, 8 or 16 */
    int kind;             /* shared: model/bank.h's BANK_* (0: a plain load or store) */
    int lines, skewed;    /* shared, BANK_ASYNC: as model/bank.h's warp_access has them */
    int banks, bank_bytes; /* shared: the geometry the grader judged it in */
    int row_bytes;        /* shared: bytes a bank serves a wavefront (0: bank_bytes; 8: Kepler) */
    unsigned block, warp; /* which execution it was */
} check_warp;

/* One source line of the kernel, as the trace backend attributes it. A check keeps
   up to CHECK_MAX_LINES, the worst first (the report page and the JSON show them
   all: an unrolled tree has a dozen); the text report the first CHECK_TEXT_LINES. */
#define CHECK_MAX_LINES 16
#define CHECK_TEXT_LINES 4
typedef struct check_line {
    char file[48];  /* base name: lab3.cu */
    int line;
    char op[8];     /* load, store, atomic; gload, gstore, gatomic: global (wavefronts are
                       sectors); cload: a constant load, named from the compiled code (no
                       counts); bounds, input, nc load, written: a line correct names */
    long requests, wavefronts, ideal;
    check_warp worst; /* its worst warp (active 0: not recorded, as for a race's lines) */
} check_line;

typedef struct check_result {
    char lab[16];
    char kernel[48];
    char check[24];     /* id: correct, store-requests, load-conflicts, ... */
    check_status status;
    double points;
    double max_points;
    char measured[128]; /* what the GPU showed */
    char expected[128]; /* what the model or reference says */
    char message[256];  /* one line for the student */
    char hint[640];     /* why, and what to change */
    double degree;      /* conflict checks: the measured conflict degree; const-serialization:
                           distinct addresses a request (0: none measured) */
    /* The degrees the check accepts for what degree measures (accept_lo .. accept_hi; 0
       and 0: it does not say): a student's PREDICT line is judged against them, as the
       check judges the code (report/report_predict.c). */
    double accept_lo, accept_hi;
    /* Conflict checks: what was counted (JSON "counts"; 0: nothing measured).
       ideal: wavefronts with no conflict for the bytes moved; width: bytes
       a lane the accesses moved (0: unknown, as with the counters, or mixed). */
    double requests, wavefronts, ideal;
    int width;
    /* Trace backend only (else empty): the lines behind the verdict, worst
     * first, the two lines of a race, and the student's worst warp access
     * drawn as a bank map. */
    check_line lines[CHECK_MAX_LINES];
    int n_lines;
    char bank_map[512];
    /* What the exercise expects of the lines of each side (0: the check does not
       say): shared, the conflict degree (wavefronts per ideal); global, sectors per
       ideal, CHECK_EXPECT_STRIDED where the step walks a column on purpose. The
       report page colours each line by its distance from it. */
    double expect_load, expect_store;
} check_result;

#define CHECK_EXPECT_STRIDED (-1.0)

/* Start a record: ids copied, status FAIL, no points yet. */
void check_init(check_result *c, const char *lab, const char *kernel, const char *check,
                double max_points);

/* Set the outcome; PASS earns max_points. fmt is printf-style for message. */
void check_set(check_result *c, check_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A source path's last part ("lab1.cu" of "/x/labs/lab1-square/lab1.cu"), as a message names
   a file; "?" where there is none. */
const char *check_file_base(const char *path);

/* printf into a fixed field, truncating safely. */
void check_field(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

const char *check_status_name(check_status s);

/* A warp from another process made drawable or dropped: a width other than 1, 2,
   4, 8 or 16 bytes, or a geometry no GPU has, clears it (active 0). */
void check_warp_tidy(check_warp *w);

/* "lab3.cu:41  load  32-way (1024 wavefronts / 32 requests)" */
const char *check_line_text(const check_line *l, char *buf, size_t size);

/* What a student reads for a launch that never ended (on the GPU or emulated). */
extern const char CHECK_HINT_HANG[];

/* What a student reads for a check an instrument could not grade. */
extern const char CHECK_HINT_NOT_GRADED[];

/* A launch that failed: "CUDA error[ at AT]: WHY" with hint (CHECK_HINT_HANG where
   WHY says it timed out), or, where an instrument could not run the kernel ("not
   graded: the emulator does not support ..."), CHECK_NOT_GRADED with its words
   whole and a hint of their own (returns 1 then). */
/* The hint for a launch that faulted on a misaligned address (check_fail_launch's). */
extern const char CHECK_HINT_MISALIGNED[];
int check_fail_launch(check_result *c, const char *at, const char *why, const char *hint);

/* Whether c failed only because something else must come first: it waits for it
   ("waits for a shared tile: ..."), or for correct (counts of a wrong result, "not
   counted: ..."; a kernel that did not get that far, "not run: ..."; a speed "not
   timed: ..." yet). It earns nothing; the report lists it apart, under WAIT. */
int check_waits(const check_result *c);

/* Whether why is an instrument's "not graded: ..." (the kernel is not the cause). */
int check_why_not_graded(const char *why);

/* c is not graded for the reason cause gives (cause: a CHECK_NOT_GRADED record of
   the same kernel): the other checks of a kernel the instrument could not run. */
void check_not_graded_like(check_result *c, const check_result *cause);

#endif /* SMEMLAB_CHECK_H */
