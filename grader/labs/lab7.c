/* lab7.c - parallel reduction: the tree in global memory, in a shared tile,
   unrolled, with a dynamic tile. */
#include "lab_table.h"

/* The lesson of steps 2 to 4 (and the optional tree): the tree's levels in the shared
   tile; of step 1, the tree in global memory. A library's reduction does either. What is
   the student's here is not lab 8's: a tree whose levels run in registers (shuffles, a
   tile's shfl_xor) fails smem-conflicts, below the tile's loads and stores the levels
   need (the last warp's five alone stay above: reduce_model.h, and the hint says so), so
   only a group's sync() is named a helper. */
#define TREE_LESSON                                                                          \
    {CHK_SMEM_CONFLICTS, "the tree's levels in the shared tile", LESSON_LIBS_REDUCTION,      \
     "Write the levels yourself in the tile: each adds smem[tid + stride] into smem[tid], "  \
     "a barrier between levels (__syncthreads() or a cooperative group's sync(): a helper, " \
     "yours to use). A tree shuffled in registers (lab 8's lesson) fails this check too; "   \
     "your own shuffles for the last warp alone keep the points."}

/* The same steps' flow: smem-conflicts counts the tree in the tile, so every block's
   partial sum must be the tree's. */
#define TREE_FLOW                                                                            \
    {{FLOW_SHARED, {CHK_SMEM_CONFLICTS}, 1.0, NULL, "the tree's sums",                        \
      "Store the tree's last sum (smem[0], or the last warp's) as partial[blockIdx.x]: a "   \
      "tree whose result is thrown away, the block's sum made another way (global "          \
      "atomics, a loop over in), earns none of the tile's points.", 1.0}}

static const lab_kernel kernels[] = {
    {.name = "reduceGmem", .launcher = "launch_reduceGmem", .section = "gmem", .step = 1,
     .teaches = "the tree in place in global memory: every level a round trip",
     .reduce = {.per_thread = 1, .in_place = 1},
     .lesson = {CHK_GLOBAL_TRAFFIC, "the tree's levels through global memory",
                LESSON_LIBS_REDUCTION,
                "Write the levels yourself, in place in global memory: each adds "
                "data[tid + stride] into data[tid] of the block's part, __syncthreads() "
                "between levels (a cooperative group's block.sync(): a helper, yours to use). "
                "A tree whose levels run in registers (shuffles: lab 8's lesson) fails this "
                "check too."},
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_TRAFFIC] = 1}}},
    {.name = "reduceSmem", .launcher = "launch_reduceSmem", .section = "smem", .step = 2,
     .teaches = "the tree in a shared tile: each element loaded once, one store a block",
     .reduce = {.per_thread = 1}, .lesson = TREE_LESSON, .flow = TREE_FLOW,
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_TRAFFIC] = 2, [CHK_SMEM_CONFLICTS] = 2,
                 [CHK_RACE] = RACE_POINTS}}},
    {.name = "reduceSmemUnroll", .launcher = "launch_reduceSmemUnroll", .section = "unroll",
     .step = 3,
     .teaches = "four elements a thread first, the last warp unrolled with __syncwarp()",
     .reduce = {.per_thread = 4}, .lesson = TREE_LESSON, .flow = TREE_FLOW,
     /* 45% of CUB: a grid-stride step 3, one load an iteration (planted lab7-grid-stride),
        measured 56% on an H200, where HBM3e's latency wants more bytes in flight than
        one int a thread at a time; the solution reaches 96% there, one element a thread
        (step 2's) 34% on an H100. */
     .speed_fraction = 0.45,
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_TRAFFIC] = 2, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_RACE] = RACE_POINTS, [CHK_SPEED] = 3}}},
    {.name = "reduceSmemUnrollDyn", .launcher = "launch_reduceSmemUnrollDyn", .section = "dynamic",
     .step = 4, .teaches = "step 3 with its tile sized at launch (extern __shared__)",
     .reduce = {.per_thread = 4}, .lesson = TREE_LESSON, .flow = TREE_FLOW,
     .points = {{[CHK_CORRECT] = 2, [CHK_GLOBAL_TRAFFIC] = 1, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_RACE] = RACE_POINTS, [CHK_DYNAMIC_TILE] = 1}}},
    {.name = "reduceSmemInterleaved", .launcher = "launch_reduceSmemInterleaved",
     .optional = 1, .section = "conflicts", .step = 2,
     .teaches = "the interleaved tree (index = 2 * stride * tid): its bank conflicts",
     .reduce = {.per_thread = 1, .tree = TREE_INTERLEAVED}, .lesson = TREE_LESSON,
     .flow = TREE_FLOW,
     .points = {{[CHK_CORRECT] = 1, [CHK_GLOBAL_TRAFFIC] = 1, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_RACE] = RACE_POINTS}}},
};

const lab_def lab7_def = {
    .id = "lab7", .title = "Parallel reduction",
    .source = "labs/lab7-reduction/lab7.cu", .kind = PROBLEM_REDUCE,
    /* Threads (and tile ints) of a block, elements a thread loads in steps 3 and 4:
       the traffic and tree models and the partial-sum array's size assume them. */
    .params = {{"DIM", 256}, {"UNROLL", 4}},
    .limits = {.launches = 1, .shared_bytes = 48 * 1024},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
