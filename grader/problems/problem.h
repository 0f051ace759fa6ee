/*
 * problem.h - a problem kind: how the kernels of one kind of lab are graded
 * (tile.c: labs 1 to 4, matmul.c: lab 5, conv.c: lab 6, reduce.c: labs 7 and 8,
 * transpose.c: lab 9, stencil.c: lab 10, idiom.c: the truth corpus), declared
 * as data and run by one driver (problem.c).
 *
 * The worker (grade/worker.c) loads the student's code, opens the device and
 * the meter, fills a worker_env and calls problem_grade for each kernel. The
 * driver takes the kernel through the phases every kind shares, in this order,
 * calling the kind's hooks (kind_desc) where the kind does something its own way:
 *
 *   1. checks     the kernel's checks from the lab table (labs/checks.h: ids in
 *                 the kind's report order, points by id); setup (the kind's state)
 *      lesson     the lesson's check (lab_kernel.lesson) fails where a kernel the plan
 *                 launches holds a library's code that does the lesson, read from the
 *                 PTX before any launch and sent at once, so that a hang or a crash
 *                 cannot take it back (problem_lesson_libraries, lesson.c)
 *   2. dynamic    dynamic-tile, where listed: the first launch against tile_bytes
 *   3. shapes     the launches against the contract (shapes); a breach fails
 *                 correct and leaves every other check "not run"
 *   4. correct    every call of role CALL_CORRECT this device runs, --repeats times
 *                 each, every run on fresh inputs (problem_seed): run, judged into
 *                 correct; explain_wrong after a wrong first run (a later run wrong
 *                 after a right one is the driver's to explain: an earlier launch's
 *                 result kept, or a race); passed words the pass
 *   5. measured   the call of role CALL_TRAFFIC: prepare, launch under the meter
 *                 (watch: a range whose loads are counted apart), right (is its
 *                 whole output the reference's? where not, every count check is
 *                 "not counted"), then the race check from its trace whatever its
 *                 output (a proven race fails correct, and the counts are judged
 *                 whatever the output), the shared bounds (bounds), the
 *                 synchronisation errors (a divergent barrier or a warp mask naming
 *                 absent lanes fails correct, as a proven race does), the global
 *                 bounds (an access into an array's guard zone fails correct), each
 *                 listed count check's judge (measured first), release; then, where
 *                 the meter is the emulator, the edge run: the call of role CALL_EDGE
 *                 measured again, its races and bounds judged on every block, and the
 *                 flow run (flow.c): the measured input again with the lesson's values
 *                 changed, whose output must change, or the lesson's checks that passed
 *                 fail "for show" (on a GPU the twin's verdict)
 *   6. twin       where the meter is not the emulator (the trace, the counters),
 *                 before the measured run: the kernel graded again on the emulator,
 *                 a problem of its own (correct at the emulator's sizes, its
 *                 measured run under the emulator's meter), for what only it sees:
 *                 synchronisation, races at its sizes, the kind's `emulated` checks,
 *                 the flow run; what it finds joins the measured run's verdicts
 *                 (problem.c)
 *   7. speed      where listed and due (correct passed, the device times kernels)
 *
 * Each check goes to the grader as soon as it is decided, so a crash later costs
 * only the checks not yet sent. A kind reaches nothing above it: a new kind is a
 * file here with its kind_desc and one row in problem.c's table; a new check is a
 * row in labs/checks.c, its place in its kind's list (labs/lab_table.c) and its
 * judge in the kind's kind_desc (docs: ARCHITECTURE.md, "Add a check").
 *
 * May include: base/, labs/, image/, record/plan.h, run/, measure/,
 * reference/, compare/. Never grade/, score/, report/, cli/.
 */
#ifndef SMEMLAB_PROBLEM_H
#define SMEMLAB_PROBLEM_H

#include "../base/check.h"
#include "../base/grade_options.h"
#include "../image/lab_image.h"
#include "../labs/lab_table.h"
#include "../measure/access/trace.h"
#include "../measure/measure.h"
#include "../record/plan.h"
#include "../run/gpu.h"
#include "../run/module.h"

#include <stdint.h>
#include <time.h>

/* What a problem kind is given while it grades one kernel (the worker fills it). */
typedef struct worker_env worker_env;
struct worker_env {
    const lab_def *lab;
    const grade_options *opt;
    const lab_image *img;
    int kernel;              /* index of the kernel being graded */
    const kernel_plan *plan; /* its validated launches */
    device_module mod;
    gpu_info gpu;
    measure_backend *meter;
    measure_status meter_status;
    char meter_why[512];
    char meter_line[512]; /* which backend and why, for the device line */
    /* The trace, for the race check and the source lines: the meter when it
       is the trace, else NULL and tracer_why says why. */
    measure_backend *tracer;
    char tracer_why[256];
    int fd; /* pipe to the grader */
    /* How a check's outcome reaches the grader (worker_emit calls it): the
       worker's, which sends it through fd. */
    void (*emit)(worker_env *env, const check_result *c);
    /* What the lab's PTX declares (shared bytes, state spaces), read once a
       lab; NULL with decls_why where it cannot be read. */
    struct lab_decls *decls;
    char decls_why[256];
    /* SMEMLAB_TIMINGS=1 (worker_mark): set by the worker, and the last mark. */
    int timings;
    struct timespec marked;
    /* SMEMLAB_TWIN=1, a developer's test of the emulated twin with no GPU (make
       check-emulated): an emulated grade judges as a GPU backend does, its measured
       run's synchronisation errors not its own, and runs the twin beside it.
       SMEMLAB_TWIN=off: no twin on a GPU, to see the trace's own verdicts (never for
       grading: synchronisation is then not judged there). */
    int twin_test, twin_off;
};

/* Returned by a problem kind when the CUDA context is lost. */
#define KERNEL_CONTEXT_LOST 1

/* The output the flow run (flow.c) compares, as a kind's output hook gives it. */
typedef struct flow_output {
    int buffer;       /* as the lab's calls number the buffers */
    size_t elems;     /* its 4-byte elements */
    const char *noun; /* what they are called ("partial sums"); NULL: "elements of" the
                         buffer's name */
    int zero_free;    /* an element 0 in the plain run is not judged: a reduction's partial
                         sum of 0 adds nothing to the total, and a kernel may add every
                         block's sum into one (the last block's, or partial[0]) */
    size_t moved;     /* how many elements the lesson brings from elsewhere, the share's
                         whole (an exercise's lanes that take another lane's value: shflUp's
                         first delta lanes keep theirs); 0: every element judged */
} flow_output;

/* What the flow run (flow.c) found of one of the kernel's flow specs: whether the checks
   it lists fail (those that passed), with these words. */
typedef struct flow_verdict {
    int failed;
    int derailed; /* the run with the values changed did not finish: not graded */
    int elsewhere; /* found on another input than the measured one: the lines the checks
                      counted there (the measured input's) are not behind it */
    char message[256], measured[128], expected[128], hint[640];
} flow_verdict;

/* One kernel being graded: what the driver hands each hook of its kind. */
typedef struct problem problem;
typedef struct kind_desc kind_desc;
struct problem {
    worker_env *env;
    const kind_desc *kind;
    const lab_kernel *k;
    /* Where launches run: &env->mod, or the emulated twin's module (phase 6). */
    const device_module *mod;
    int call; /* the call (plan index) the hook runs: a size, the measured run's */
    int run;  /* which run of that call: 0, then each repeat */
    check_result c[CHECK_IDS]; /* by check id */
    int listed[CHECK_IDS];     /* the lab table gives the kernel this check */
    int sent[CHECK_IDS];
    int lost; /* the CUDA context is gone: nothing more runs, nothing is freed */
    int sync_failed; /* a synchronisation error failed correct (its words stand) */
    int oob_failed;  /* a global access out of bounds failed correct (its words stand) */
    int inputs_failed; /* a write into an input, or a word read through the read-only
                          cache and written, failed correct (its words stand) */
    int luck; /* the measured run's output is luck: a proven race, a synchronisation error */
    int order_failed; /* a correct run in the other order of blocks and warps was wrong */
    int runs_right;   /* every correct run was right (a twin's correct is PASS again before
                         its measured run adds what it finds: this says what its runs said) */
    int kept_state; /* a size right on run 1 came out wrong on this run (1-based): the output
                       depends on what an earlier launch left, 0 where none did */
    flow_verdict flow[KERNEL_FLOWS]; /* the flow run's, by the lab table's flow specs (its
                                        twin's on a GPU): problem_flow_rule applies them */
    void *state; /* the kind's own, kind->state_bytes zeroed for each kernel */
};

/* A check's judge: c (check id of the kernel) from the measured run's measurement m
   and trace s (NULL where the meter records no trace). */
typedef void (*check_judge)(problem *p, check_id id, const measurement *m,
                            const trace_summary *s, check_result *c);

/* What a kind declares: its state, its hooks (NULL: the phase is the driver's
   alone, or the kind has none) and its count checks' judges. */
struct kind_desc {
    const char *name;
    size_t state_bytes;
    void (*setup)(problem *p);
    /* 2. dynamic-tile: the bytes the exercise's tile needs; hint: the kind's words
       for a tile that is not dynamic (after worker_judge_dynamic's) */
    uint32_t (*tile_bytes)(const problem *p);
    void (*dynamic_hint)(const problem *p, uint32_t need, check_result *c);
    /* 3. 0, or -1 with p->c[CHK_CORRECT] failed saying which launch breaks what */
    int (*shapes)(problem *p);
    /* 4. one run of call p->call (its p->run-th) judged into c: fresh inputs, the
       kernel, its output against the reference; c untouched when right */
    run_outcome (*run)(problem *p, check_result *c);
    void (*explain_wrong)(problem *p, check_result *c);
    /* the pass of `runs` sizes, the last call_spec `last`; each: ", each 3 times on
       fresh inputs" (or "" for one run); NULL: run's words stand */
    void (*passed)(problem *p, int runs, int last, const char *each, check_result *c);
    int no_inputs; /* the output is the thread's own (labs 1-4): repeats, not fresh */
    /* bind: the buffers of call p->call as the lab's calls number them (calls.h),
       made ready for a launch (lab 7's in-place tree restarts from its input); every
       launch of the kind is problem_launch(p), which replays the call on them.
       5. the measured run of call p->call on p->mod: its buffers (0, or -1 with why),
       the watched range, whether its output is right (1, or 0 with why; NULL: not
       judged), and its buffers freed (p->lost: device memory kept) */
    int (*prepare)(problem *p, char *why, size_t why_size);
    void (*bind)(const problem *p, void *bufs[CALL_MAX_BUFFERS]);
    void (*watch)(const problem *p, const void **at, size_t *bytes);
    int (*right)(problem *p, char *why, size_t why_size);
    void (*release)(problem *p);
    /* the flow run (flow.c): the output of call p->call as prepare made it ready */
    void (*output)(const problem *p, flow_output *out);
    /* before the judges: the kind's reading of m beside the trace (tile: the SASS's
       widths where there is no trace) */
    void (*measured)(problem *p, measurement *m, const trace_summary *s);
    int bounds; /* the shared accesses held to the kernel's shared bytes (correct) */
    check_judge judge[CHECK_IDS];
    /* the kind's words for a failed check, where its judge has one fixed hint (a judge
       that words its own from what it measured leaves it NULL) */
    const char *hint[CHECK_IDS];
    /* 6. checks (a bit a check id) only the emulator's meter measures, and what it
       sees that the others do not (for "not graded" when it cannot run) */
    unsigned long emulated;
    const char *emulated_sees;
    /* 7. the kernel timed against its reference, judged into c */
    void (*speed)(problem *p, check_result *c);
};

/* Grade kernel k of env->lab (env->kernel, env->plan set) by its lab's kind: 0, or
   KERNEL_CONTEXT_LOST (nothing more can run in this process). */
int problem_grade(worker_env *env, const lab_kernel *k);

/* The kinds (problem.c's table). */
extern const kind_desc tile_kind, matmul_kind, conv_kind, idiom_kind, reduce_kind,
    transpose_kind, stencil_kind;

/*
 * A library is not the student's work (lesson.c): where the kernel's lesson check
 * (lab_kernel.lesson) is listed and not yet sent, and a kernel its plan launches
 * holds library code the lesson lists (CUB's reductions, cooperative_groups::reduce,
 * ...), that check fails naming it and the student's line. Read from the PTX, not
 * measured: the same verdict on every backend. The driver calls it once a kernel,
 * before the first launch, and sends the check at once where it failed. 1 when it
 * failed the check, else 0.
 */
int problem_lesson_libraries(problem *p);

/* c failed for library code (an image/lib_code.h bit) found in the kernel: the message says
   what that library does, by name (what) and the student's line that calls it (where, or
   ""); the hint, the lesson and what the lab lets the student write instead (lesson->yours). */
void lesson_library_fail(check_result *c, const lesson_spec *lesson, unsigned library,
                         const char *what, const char *where);

/*
 * A lesson's points only where its values reach the output (flow.c, the lab table's
 * flow_spec, docs/emulator.md#flow). problem_flow_run, on the emulator's device (an
 * emulated grade's, or the twin's): the measured input run plain, then once for each
 * flow spec with every value read from its source changed, the outputs compared bit for
 * bit, into p->flow; with judged, only for specs of which a check passed there (an
 * emulated grade's own; the twin's runs before the GPU's checks are judged: NULL). problem_flow_rule, once the count checks are judged: each check a
 * failed verdict lists fails with its words, where it had passed (a check that failed,
 * waits or was not measured keeps what it says).
 */
void problem_flow_run(problem *p, const problem *judged);
void problem_flow_rule(problem *p);

/* The lines of the student's file where the kernels p launched run an instruction whose
   opcode starts with op ("ld.const"), named in c's lines with op what ("cload"): where
   the counters and the emulator count requests but no trace shows a line (lesson.c). */
void problem_name_op_lines(problem *p, check_result *c, const char *op, const char *what);

/* --- what a kind's hooks may call -------------------------------------------------- */

/* Launch call p->call of the plan (p: a problem) on p->mod with the buffers the kind
   binds: a launch callback for gpu_run, worker_measure and the timed runs. */
void problem_launch(void *p);

/* The first call of the plan with a role in `role` that this device runs, or -1. */
int problem_call(const problem *p, int role);
/* p->call made that call (role 0: the one the driver chose stays) for a kind's large
   inputs (counters, timing): 0, or -1 with why where this device runs none. */
int problem_take_call(problem *p, int role, char *why, size_t why_size);

/* Whether call i is one this device runs (the GPU's sizes or the emulator's). */
int problem_runs(const problem *p, int i);

/* The seed of the inputs of the run now made (p->call, p->run): the options' seed
   plus the call on its first run, a seed no other run of the kernel has on each
   repeat (fresh inputs: a result kept from an earlier launch is wrong there). */
unsigned long long problem_seed(const problem *p);

/* Free device memory the kind allocated, unless the context is lost (then nothing
   can be freed); NULL is a no-op. problem_drop: the pointer at slot (a float *, an
   int *, ...) freed so and set to NULL. */
void problem_free(const problem *p, void *dev);
void problem_drop(const problem *p, void *slot);

/* meter->measure(launch, arg), and where the meter may launch more than once (its
   `relaunches`), every array as the first launch found it before each launch after it. */
measure_status meter_measure(measure_backend *meter, void (*launch)(void *), void *arg,
                             measurement *out, char *why, size_t why_size);

/* Measure the launches of launch(arg) with the meter, out cleared first and the
   watchdog armed (the problem kinds' only way to). */
measure_status worker_measure(worker_env *env, void (*launch)(void *), void *arg,
                              measurement *out, char *why, size_t why_size);

/*
 * The trace of the launch worker_measure measured last, for the race check
 * and the source lines; NULL with why filled where the meter is not the
 * trace (the counters: the two cannot share a process) or saw nothing.
 */
const trace_summary *worker_trace(worker_env *env, char *why, size_t why_size);

/*
 * The race check of the launch worker_measure measured last (st, why: its
 * outcome): judged from the trace, also when that run came out wrong; a
 * launch that could not be measured says so, as the other checks do.
 */
void worker_judge_races(worker_env *env, check_result *c, measure_status st, const char *why);

/*
 * With SMEMLAB_TIMINGS=1 in the environment, the worker prints to stderr how
 * long each phase of grading a kernel took ("correct", "measure", "speed"):
 * the time since the last mark, for finding where grading time goes. It also
 * runs each instrumented launch plain once first and prints both times: a
 * developer's tool (make bench-loops), not for grading (the measured run then
 * finds the plain run's output already in place).
 */
void worker_mark(worker_env *env, const char *phase);

/*
 * Lab 2's lesson (and 3 and 4's dynamic kernels): the tile is dynamic. The
 * kernel the call launches declares no static __shared__ bytes, takes an
 * extern __shared__ array, and the launch gives at least `need` bytes.
 */
void worker_judge_dynamic(worker_env *env, const call_plan *call, uint32_t need,
                          check_result *c);

/*
 * Shared memory out of bounds: where an access of the measured launch
 * reached past the kernel's shared bytes (its static arrays plus the bytes
 * the launch gives), correct fails naming the line and the offset, whether
 * or not the GPU happened to fault. 1 when it did so, else 0.
 */
int worker_judge_bounds(worker_env *env, const call_plan *call, const trace_summary *s,
                        check_result *correct);

/*
 * Global bounds (docs/emulator.md#bounds): where the launches s summarises made an
 * access into the guard zone before or after an array the grader gave the kernel
 * (run/device.h), p's correct fails with the line, the array and how far past its end,
 * whatever the output came to; the first such failure stands. The trace's patches know
 * the address alone: the array is the device's (dev_array_at), asked while it lives.
 */
void worker_judge_oob(problem *p, const trace_summary *s);

/*
 * What the kernel must only read (docs/emulator.md#inputs): where the launches s
 * summarises stored or made an atomic into an input (labs/calls.h: call_spec.inputs), or
 * read a word through the read-only cache that they wrote, p's correct fails naming the
 * array and the line, whatever the output came to; an access out of bounds found first
 * keeps its words, and the first such failure stands.
 */
void worker_judge_inputs(problem *p, const trace_summary *s);

/* Send one check to the grader (env->emit). */
void worker_emit(worker_env *env, const check_result *c);

#endif /* SMEMLAB_PROBLEM_H */
