/*
 * compare.h - measured counters against the model's expectation, turned
 * into checks with messages and hints for the student.
 */
#ifndef SMEMLAB_COMPARE_H
#define SMEMLAB_COMPARE_H

#include "../base/check.h"
#include "../measure/measure.h"
#include "../model/tile_model.h"
#include "../measure/access/trace.h"

#include <stddef.h>

/* Which side of a shared access a check is about. */
typedef struct smem_side {
    const char *op;     /* "stores" or "loads" */
    metric_id requests, wavefronts, conflicts;
    const char *code;   /* the access as the exercise writes it */
    const bank_geometry *banks; /* the banks judged on, for the hint's words (NULL: 32 x 4) */
} smem_side;

/* Which bank a word falls in, in a student's words, on banks g (NULL: 32 banks of 4
   bytes): "bank = word index % 32, words of 4 bytes", and Kepler's two modes. */
const char *compare_bank_rule(const bank_geometry *g);

extern const smem_side SIDE_STORE, SIDE_LOAD;

/* Relative slack allowed between measured and modelled conflict degree. */
#define DEGREE_TOLERANCE 0.05

/* "conflict-free", "32-way conflict", "1.07-way conflict". */
const char *degree_text(double degree, char *buf, size_t size);

/* Degree as the counters give it: wavefronts / (wavefronts - conflicts). */
double measured_degree(const measurement *m, const smem_side *side);

/* Warp-level requests of one side against the model's count. */
void compare_requests(check_result *c, const smem_side *side, const measurement *m,
                      long expected);

/* Conflict degree of one side against the model's. pad_note may be NULL. */
void compare_conflicts(check_result *c, const smem_side *side, const measurement *m,
                       const smem_cost *model, double tolerance, const char *pad_note);

/*
 * The width rule's words, for backends that see widths (trace, emulator):
 * the side's accesses moved `width` bytes a lane where the exercise's move
 * `exercise_width`. Says so in the message and the hint, and gives the
 * model's numbers for the width measured (at_width) as the expectation.
 * width 0 (unknown or mixed) or equal to exercise_width: nothing changes.
 */
void compare_conflicts_width(check_result *c, const smem_side *side, int width,
                             int exercise_width, const smem_cost *at_width);

/* The counters could not be read: no points, and say why (a launcher that
 * launched nothing is the student's failure, not the environment's). */
void compare_not_measured(check_result *c, measure_status st, const char *why);

/*
 * Trace backend: name the source lines behind a conflict check in c->lines
 * (the sites of op, or of loads and stores where op is -1; most wavefronts
 * beyond the ideal first) and, when the check failed, draw the worst warp
 * execution of the worst line in c->bank_map.
 */
void compare_trace_lines(check_result *c, const trace_summary *s, int op,
                         const bank_geometry *g);

/*
 * The tile-flow rule (labs 1-4): every thread's shared load reads the word
 * that the thread the exercise names stored (src[t], as the host reference
 * gives it), wherever the layout put it, so padding and a swizzle both pass.
 * Fails c (the load-requests check) where the first block traced shows a
 * thread reading another word: its own, say, with the answer computed
 * instead. Says nothing unless every thread made one store and one load.
 */
void compare_tile_flow(check_result *c, const trace_summary *s, const int *src, int threads,
                       int bdimx, const char *load_code);

/*
 * A race the trace proves makes the output a matter of luck: correct fails
 * with the race, the same message every run, whatever this run's output was
 * (docs/troubleshooting.md#races). No race proven: correct is left alone.
 */
void compare_race_spoils_correct(check_result *correct, const trace_summary *s);

/*
 * The race check: two warps of a block touching one shared word between the
 * same two barriers, at least one writing. Fails naming both lines. s NULL:
 * no trace (why says why), and the check is not measured.
 */
void compare_races(check_result *c, const trace_summary *s, const char *why);

/* Sectors a global side may take beyond its ideal and still count as coalesced: a
   row that starts mid-sector takes 5 where 4 would do (1.25x), a column 8x and more. */
#define COALESCE_TOLERANCE 1.5

/*
 * The coalescing check of one side (store 0: the global loads, 1: the stores):
 * the sectors measured against the ideal for the widths and lanes of the
 * accesses (the trace's and the emulator's, or model_ideal where the
 * backend knows none: the counters). With a trace (s not NULL), the lines
 * of that side, worst first, and on failure the worst warp drawn over its
 * sectors. code: the access as the exercise names it, for the hint, or NULL.
 * expect_strided: the step walks a column of this side on purpose (a naive
 * transpose): the check holds it to being strided, and draws what it costs.
 */
/* The lines of one side's global sites (coalesce_side: loads, stores or atomics), worst
   first, after c's own (s NULL: none): a check whose failure is that side's names them. */
void compare_global_side_lines(check_result *c, const trace_summary *s, int side);

/* The global sites of a check that counts traffic whole (no lines of its own): loads,
   and stores and atomics too where writes_too; a check not judged, or one with lines,
   unchanged. */
/* A check with nothing to judge because the kernel stores to shared memory and never loads:
   it waits for the tile to be read (not for a tile: one was written). */
void compare_tile_unread(check_result *c);

void compare_global_sites(check_result *c, const trace_summary *s, int writes_too);

/* The global load sites whose worst warp read inside [lo, lo + bytes) (one array: a
   check about how it is read names the lines that read it, not the worst-coalesced load
   of another), after c's own; none drawn. */
void compare_global_loads_of(check_result *c, const trace_summary *s, uint64_t lo,
                             uint64_t bytes);

void compare_coalescing(check_result *c, int store, const measurement *m, double model_ideal,
                        const trace_summary *s, const char *code, int expect_strided);

#endif /* SMEMLAB_COMPARE_H */
