/* lab8.c - the warp shuffle: the chapter's exercises, and the reduction with shuffles. */
#include "lab_table.h"

/* The reduction's lesson: a warp's 32 values added with shuffles, in registers. A
   library's reduction (cub::WarpReduce, cooperative_groups::reduce) does it; a cooperative
   group's tile and its shfl_xor are the student's shuffles. */
#define SHUFFLE_LESSON                                                                       \
    {CHK_SHUFFLE, "a warp's sum made with your own shuffles", LESSON_LIBS_REDUCTION,         \
     "Write the warp's levels yourself with shuffles: __shfl_xor_sync or __shfl_down_sync, "  \
     "or a warp tile's shfl_xor and shfl_down (cg::tiled_partition<32>): helpers, yours to "  \
     "use, as are __syncwarp() and a group's sync()."}

/* The reductions' flow: every partial sum made of the warps' shuffled sums. */
#define SHUFFLE_FLOW                                                                         \
    {{FLOW_SHUFFLE, {CHK_SHUFFLE}, 1.0, NULL, "the warps' shuffled sums",                     \
      "Make partial[blockIdx.x] from warp_sum's results: each warp's shuffled sum into "      \
      "warp_sums, warp 0 shuffling those; shuffles whose result is dropped, the sum made "   \
      "another way (global atomics), earn none of the shuffle's points.", 1.0}}

/* An exercise's: every lane that takes another lane's value (the reference says which:
   flow_output.moved) takes it from the shuffle, at every value of the argument the grader
   tries. A lane that keeps its own (shflUp's first delta lanes, the broadcast's source)
   may write it from its register: the flow run changes no value a shuffle did not move. */
#define EXERCISE_FLOW                                                                        \
    {{FLOW_SHUFFLE, {CHK_SHUFFLE}, 1.0, NULL, "the shuffled values",                          \
      "Write out from the value your shuffle returns, for every value of the argument: a "    \
      "shuffle whose result is dropped, out read from in directly, earns none of the "        \
      "shuffle's point.", 1.0}}

/* An exercise: right for every value the grader tries, with shuffles and no shared memory. */
#define EXERCISE(kname, ex, what)                                                             \
    {.name = #kname, .launcher = "launch_" #kname, .section = "exercises", .step = 1,         \
     .teaches = what, .reduce = {.exercise = ex}, .flow = EXERCISE_FLOW,                    \
     .points = {{[CHK_CORRECT] = 1, [CHK_SHUFFLE] = 1}}}

static const lab_kernel kernels[] = {
    EXERCISE(shflBroadcast, EXERCISE_BROADCAST, "every lane reads one lane's register"),
    EXERCISE(shflUp, EXERCISE_UP, "lane t reads lane t - delta; the first lanes keep theirs"),
    EXERCISE(shflDown, EXERCISE_DOWN, "lane t reads lane t + delta; the last lanes keep theirs"),
    EXERCISE(shflWrap, EXERCISE_WRAP, "a shift that wraps around the warp"),
    EXERCISE(shflXor, EXERCISE_XOR, "the butterfly: lane t swaps with lane t ^ laneMask"),
    EXERCISE(shflXorArray, EXERCISE_XOR_ARRAY, "four registers a lane, each exchanged"),
    {.name = "reduceShfl", .launcher = "launch_reduceShfl", .section = "reduce", .step = 2,
     .teaches = "warps reduce in registers; shared memory holds one word a warp",
     .reduce = {.per_thread = 1, .shuffle = 1}, .lesson = SHUFFLE_LESSON,
     .flow = SHUFFLE_FLOW,
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_TRAFFIC] = 1, [CHK_SHUFFLE] = 2,
                 [CHK_RACE] = RACE_POINTS}}},
    {.name = "reduceShflUnroll", .launcher = "launch_reduceShflUnroll", .section = "unroll",
     .step = 3, .teaches = "four elements a thread first, then the shuffle reduction",
     .reduce = {.per_thread = 4, .shuffle = 1}, .lesson = SHUFFLE_LESSON,
     .flow = SHUFFLE_FLOW,
     /* 45% of CUB, as lab 7's step 3 (grader/labs/lab7.c says why); the solution
        reaches 96% to 106%, one element a thread (reduceShfl) 47% on an H100. */
     .speed_fraction = 0.45,
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_TRAFFIC] = 1, [CHK_SHUFFLE] = 1,
                 [CHK_RACE] = RACE_POINTS, [CHK_SPEED] = 3}}},
};

const lab_def lab8_def = {
    .id = "lab8", .title = "The warp shuffle",
    .source = "labs/lab8-shuffle/lab8.cu", .kind = PROBLEM_REDUCE,
    .params = {{"WARP", 32}, {"DIM", 256}, {"UNROLL", 4}},
    .limits = {.launches = 1, .shared_bytes = 48 * 1024},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
