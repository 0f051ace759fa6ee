/*
 * lab_table.h - what the grader knows about each lab, as data.
 *
 * One table per lab (grader/labs/labN.c) lists its kernels: the launcher the
 * lab library exports, the access pattern the exercise asks for, the output
 * the host reference expects and the points of each check. The program
 * itself holds no per-lab knowledge.
 */
#ifndef SMEMLAB_LAB_TABLE_H
#define SMEMLAB_LAB_TABLE_H

#include "../model/tile_model.h"
#include "checks.h"

typedef enum problem_kind {
    PROBLEM_TILE,   /* labs 1-4: one block writes an int tile and reads it back */
    PROBLEM_MATMUL, /* lab 5 */
    PROBLEM_CONV,   /* lab 6 */
    PROBLEM_IDIOM,  /* the idiom corpus (tests/truth/gen-idioms.py): what ran, measured */
    PROBLEM_REDUCE, /* labs 7 and 8: int sums, partial sums a block; the shuffle exercises */
    PROBLEM_TRANSPOSE, /* lab 9: a float matrix copied or transposed, global coalescing */
    PROBLEM_STENCIL /* lab 10: a 1-D stencil and a per-lane lookup, constant against read-only */
} problem_kind;

/* Lab 10: where a kernel must read its coefficients or its table from. */
typedef enum mem_path {
    MEM_PATH_NONE,
    MEM_PATH_CONSTANT, /* __constant__ memory (ld.const; the SASS's c[bank][offset], LDC) */
    MEM_PATH_READONLY  /* the read-only data cache: ld.global.nc (__ldg, const __restrict__) */
} mem_path;

/*
 * A kernel of lab 9 (PROBLEM_TRANSPOSE, grader/problems/transpose.c): in holds
 * ny rows of nx floats; a transpose writes out[x * ny + y] = in[y * nx + x],
 * the copy out = in. Which global side the step leaves strided (the naive
 * transposes: the coalescing check then holds the side to being strided, and
 * shows what it costs) and how its shared tile is laid out (the conflict model).
 */
typedef struct transpose_spec {
    int copy;           /* step 1: out = in */
    int strided_load;   /* naiveCol: the load walks columns */
    int strided_store;  /* naiveRow: the store walks columns */
    int tile_pad;       /* steps 3-5: words a tile row is padded by (-1: no tile); step 3
                           none (its 16-way column read), the others IPAD */
    int unroll;         /* elements a thread moves (1, 2) */
} transpose_spec;

/*
 * A kernel of labs 7 and 8 (PROBLEM_REDUCE, grader/problems/reduce.c): a
 * reduction whose blocks of DIM threads write one partial sum each, or one
 * of lab 8's shuffle exercises (a warp moving 32 values between lanes).
 */
typedef enum reduce_tree {
    TREE_SEQUENTIAL,  /* smem[tid] += smem[tid + stride], stride halving: conflict-free */
    TREE_INTERLEAVED  /* index = 2 * stride * tid: the chapter's first try, conflicts */
} reduce_tree;

typedef enum reduce_exercise {
    EXERCISE_NONE,    /* a reduction */
    EXERCISE_BROADCAST, EXERCISE_UP, EXERCISE_DOWN, EXERCISE_WRAP, EXERCISE_XOR,
    EXERCISE_XOR_ARRAY
} reduce_exercise;

typedef struct reduce_spec {
    int per_thread;          /* elements a thread adds from global memory first (1, UNROLL) */
    int in_place;            /* step 1: the tree runs in global memory, in place */
    int shuffle;             /* lab 8: warps reduce with shuffles, shared holds a word a warp */
    reduce_tree tree;        /* the shared tree the exercise asks for (no shuffle) */
    reduce_exercise exercise; /* lab 8 step 1; EXERCISE_NONE for a reduction */
} reduce_spec;

/*
 * A tile kernel stores idx = threadIdx.y * BDIMX + threadIdx.x through `store`
 * and writes out[idx] from `load`; the host reference replays exactly that.
 * The truth corpus (elem_parts > 0) stores instead a value of the element's
 * index, of elem_bytes in elem_parts components (tests/truth/gen-corpus.py),
 * and writes their weighted sum, -1 where the thread sits out the load.
 */
typedef struct tile_spec {
    tile_access store;      /* how tile is written */
    tile_access load;       /* how tile is read back */
    const char *store_code; /* the store as the exercise writes it, for hints */
    const char *load_code;
    int elem_bytes;         /* bytes an element; 0: the labs' int */
    int elem_parts;         /* the corpus's vector components; 0: the labs' values */
    int pad_free;           /* 1: the exercise pads the tile until its load is conflict-free:
                               both sides' pitch is then bdimx plus the least pad that does it
                               on the banks graded (tile_spec_on); the pitches above are what
                               that is on today's GPUs (test_tile_model holds them to it) */
} tile_spec;

/* Bytes an element of a tile kernel moves a lane (an int unless the spec says). */
int tile_elem_bytes(const tile_spec *t);


/*
 * Points of the race check of every kernel that uses shared memory: graded
 * from the trace (Compute Sanitizer) whichever backend counts, and "not
 * measured" where there is no trace.
 */
#define RACE_POINTS 1

/* Points of each check of a kernel, by id (0: the check is not run):
   .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_TRAFFIC] = 1}}. */
typedef struct check_points {
    double of[CHECK_IDS];
} check_points;

/* A tile lab's kernel (labs 1 to 4): correct, a point for each side's requests and
   conflicts, the race, and `dynamic` for the lesson of a dynamic tile. */
#define TILE_POINTS(correct, dynamic)                                                       \
    {{[CHK_CORRECT] = (correct), [CHK_STORE_REQUESTS] = 1, [CHK_LOAD_REQUESTS] = 1,        \
      [CHK_STORE_CONFLICTS] = 1, [CHK_LOAD_CONFLICTS] = 1, [CHK_RACE] = RACE_POINTS,       \
      [CHK_DYNAMIC_TILE] = (dynamic)}}

/*
 * Library code that does a lesson for the student, found in a kernel's PTX
 * (image/lib_code.h: the same bits). A kernel that holds any its lesson lists
 * fails the lesson's check, naming the library; helpers that do not do the
 * lesson (a cooperative group's tiles and shuffles, CUB's lane id) are not
 * listed, and cost nothing.
 */
typedef enum lesson_library {
    LESSON_LIB_CUB_REDUCE = 1u << 0,      /* cub::BlockReduce, WarpReduce, DeviceReduce */
    LESSON_LIB_CUB_EXCHANGE = 1u << 1,    /* cub::BlockExchange, WarpExchange */
    LESSON_LIB_THRUST = 1u << 3,          /* a Thrust algorithm */
    LESSON_LIB_CG_WARP_REDUCE = 1u << 4,  /* cooperative_groups::reduce of a warp */
    LESSON_LIB_CG_BLOCK_REDUCE = 1u << 5  /* of a tile of more than a warp: a block's */
} lesson_library;

/* A reduction's lesson, in labs 7 and 8: every library reduction does it. */
#define LESSON_LIBS_REDUCTION                                                                  \
    (LESSON_LIB_CUB_REDUCE | LESSON_LIB_THRUST | LESSON_LIB_CG_WARP_REDUCE |                  \
     LESSON_LIB_CG_BLOCK_REDUCE)

/* The check that holds a kernel's lesson, what the lesson is in words ("the tree's levels
   in the shared tile"), the library code that would do it (lesson_library bits), and
   what the student writes instead, with the helpers this lab allows: the last words of
   the library's hint, true of this lab (a tile's shfl_xor is lab 8's lesson, and fails
   lab 7's tree). */
typedef struct lesson_spec {
    check_id check;    /* CHK_NONE: no library does this kernel's lesson */
    const char *what;
    unsigned libraries;
    const char *yours; /* "Write the levels yourself ...": one or two sentences */
} lesson_spec;

/*
 * Where a lesson's values must go (problems/flow.c, docs/emulator.md#flow): a check that
 * gives the lesson's points (the tile's requests and conflicts, the shuffle, the memory
 * path) needs the values the lesson moved to reach the output, so that a tile or a
 * shuffle run for show, its result thrown away and the output made another way, earns
 * none of them. The emulator runs the measured input once more with every value read
 * from `source` changed (ptx/emu.h: by an amount no arithmetic takes back), and compares
 * the output with a plain run's bit for bit: where fewer than `share` of its elements
 * changed, each listed check that passed fails, with what was seen. On a GPU the
 * emulated twin makes the runs, so every backend gives the same verdict.
 */
typedef enum flow_source {
    FLOW_NONE,
    FLOW_SHARED,   /* every value a load reads from shared memory (the tile) */
    FLOW_SHUFFLE,  /* every value a warp shuffle delivers */
    FLOW_CONSTANT, /* every value a load reads from constant memory */
    FLOW_READONLY  /* every value a load reads through the read-only cache from `array` */
} flow_source;

#define FLOW_MAX_CHECKS 4
#define KERNEL_FLOWS 2

typedef struct flow_spec {
    flow_source source;
    check_id checks[FLOW_MAX_CHECKS]; /* the checks that need it (CHK_NONE ends the list) */
    double share;       /* the least fraction of the output's elements that must change */
    const char *array;  /* FLOW_READONLY: the launcher's argument it reads ("coef") */
    const char *values; /* the lesson's values, as the message names them: "the tree's sums" */
    const char *fix;    /* the hint's last words: what the output must be made from */
    /* At the kernel's other inputs (its largest correctness input, each other argument of
       an exercise: problems/flow.c), where a kernel that tells the measured input apart
       does the lesson there alone: the least fraction that must change there; 0: some
       element must. */
    double elsewhere;
} flow_spec;

/* A tiled kernel's share elsewhere (labs 5, 6, 9 and 10): that input's border blocks are
   ragged, and a kernel may make them without the tile, as a plain loop, honestly (the
   measured inputs are whole tiles); off the measured input with no tile at all, none of
   the output changes. Half: the border blocks there are at most 4 % of the output. */
#define TILE_ELSEWHERE 0.5

/* A tile lab's kernel (labs 1 to 4): its four count checks measure the tile, so out must
   be what the loads read back from it, every element. */
#define TILE_FLOW                                                                            \
    {{FLOW_SHARED,                                                                           \
      {CHK_STORE_REQUESTS, CHK_LOAD_REQUESTS, CHK_STORE_CONFLICTS, CHK_LOAD_CONFLICTS}, 1.0,  \
      NULL, "the values read back from the tile",                                           \
      "Write out[idx] with the value your load reads back from the tile, as the exercise's " \
      "out[idx] = tile[...]: a tile stored and read for the counts, out written another "    \
      "way, earns none of the tile's points.", 1.0}}

typedef struct lab_kernel {
    const char *name;     /* as the exercise names it */
    const char *launcher; /* exported symbol */
    int optional;         /* graded only when the launcher exists, for no points */
    const char *teaches;  /* one line: what the kernel demonstrates */
    const char *section;  /* the section of docs/<lab id>.md that teaches it (the
                             report's Next: line); NULL: "exercise" */
    tile_spec tile;       /* PROBLEM_TILE */
    int step;             /* PROBLEM_MATMUL / PROBLEM_CONV: which step (1, 2, 3);
                             PROBLEM_STENCIL: 1, 2 the stencil, 3, 4 the lookup */
    const char *tile_param;     /* contract parameter the traffic model divides by */
    const char *max_mask_param; /* PROBLEM_CONV: widest mask the kernel takes */
    const char *mask_symbol;    /* PROBLEM_CONV: __constant__ mask, exported with
                                   SMEMLAB_SYMBOL; NULL: the mask is an argument;
                                   PROBLEM_STENCIL: the __constant__ array of the kernel's
                                   data (c_coef, c_table), filled for every kernel */
    reduce_spec reduce;         /* PROBLEM_REDUCE */
    transpose_spec transpose;   /* PROBLEM_TRANSPOSE */
    mem_path path;              /* PROBLEM_STENCIL: where the coefficients or table come from */
    lesson_spec lesson;         /* the library code that does the lesson, and its check */
    flow_spec flow[KERNEL_FLOWS]; /* where the lesson's values must go (FLOW_NONE: unused) */
    double speed_fraction; /* speed check: at least this fraction of the reference */
    check_points points;
} lab_kernel;

/*
 * A parameter the contract fixes: the lab file exports it with
 * SMEMLAB_PARAM(name, value) and the grader's sizes and limits assume it.
 */
typedef struct lab_param {
    const char *name;
    int value;
} lab_param;

#define LAB_MAX_PARAMS 8

/*
 * What any one call of a launcher may launch (0: the default of record/plan.c).
 * Not an expected value: a bound that keeps a replay finite and on contract.
 */
typedef struct launch_limits {
    int launches;              /* kernel launches per call */
    unsigned long long blocks; /* blocks per launch */
    unsigned shared_bytes;     /* dynamic shared memory per block */
} launch_limits;

typedef struct lab_def {
    const char *id;     /* "lab1" */
    const char *title;
    const char *source; /* the student's file, relative to the kit */
    problem_kind kind;
    int bdimx, bdimy;   /* block shape (PROBLEM_TILE) */
    const char *pad_param; /* exported parameter holding the pad, or NULL */
    lab_param params[LAB_MAX_PARAMS]; /* fixed by the contract; ends at a NULL name */
    launch_limits limits;
    const lab_kernel *kernels;
    int n_kernels;
} lab_def;

/* Every lab, in course order. */
extern const lab_def *lab_registry[];
extern const int lab_registry_count;

/* The lab with this id ("lab3" or "3", or "corpus" once one is loaded), or NULL. */
const lab_def *lab_find(const char *id);

/*
 * The truth corpus as a lab (grader/labs/corpus.c): one tile kernel a row of
 * a part-NN.tsv that tests/truth/gen-corpus.py wrote. 0, or -1 with why.
 * lab_find("corpus") finds it from then on; corpus_source() names the file.
 */
#define CORPUS_LAB_ID "corpus"
int corpus_load(const char *tsv, char *why, size_t why_size);
const char *corpus_source(void);

/* Kernel k's tile as graded on banks g: its own, but where it pads until conflict-free
   (pad_free), the pitch of the least such pad on g. */
void tile_spec_on(const lab_def *lab, const lab_kernel *k, const bank_geometry *g,
                  tile_spec *out);

/* Value of a contract parameter of lab ("TILE"), or -1 if the lab has none. */
int lab_param_value(const lab_def *lab, const char *name);

/* One check a kernel gets. */
typedef struct kernel_check {
    check_id id; /* its name: check_name(id) */
    double points;
} kernel_check;

#define KERNEL_MAX_CHECKS 7

/*
 * The checks of kernel k in report order, with their points (0 for an
 * optional kernel): of the checks its lab's kind grades (kind_checks), those
 * the table gives points. The problem kinds grade exactly these, and the
 * runner fails the ones a dead worker never sent. Returns how many.
 */
int kernel_checks(const lab_def *lab, const lab_kernel *k, kernel_check out[KERNEL_MAX_CHECKS]);

/* The checks a kind of problem grades, in the order reports list them; returns how
   many (at most KERNEL_MAX_CHECKS). */
int kind_checks(problem_kind kind, const check_id **ids);

/* What kernel k is worth: the points of its checks, added up. */
double kernel_max_points(const lab_def *lab, const lab_kernel *k);

/*
 * The lab's table as text, one line a kernel (its launcher, each check's
 * points, the speed threshold) and one of its contract: what decides a
 * grade, with a course file applied. lab_table_digest: its SHA-256, the
 * "table" every record carries (provenance.h), so that two grades from
 * different tables never pass as the same grading. Returns the length
 * written (cut at size).
 */
/* What the lab is worth: every kernel's points. */
double lab_total_points(const lab_def *lab);
size_t lab_table_text(const lab_def *lab, char *out, size_t size);
void lab_table_digest(const lab_def *lab, char out[65]);

#endif /* SMEMLAB_LAB_TABLE_H */
