/* lab5.c - tiled matrix multiply: naive, shared tiles, register tiling. */
#include "lab_table.h"

/* Steps 2 and 3's lesson: C's sums made of the elements read from the shared tiles, at
   every size (a kernel that tiles only at the measured size earns none of it); the global
   loads the tiles cut are the tiles' points too. */
#define TILES_FLOW                                                                           \
    {{FLOW_SHARED, {CHK_SMEM_CONFLICTS, CHK_GLOBAL_LOADS}, 1.0, NULL,                        \
      "the shared tiles' elements",                                                         \
      "Multiply the elements you read back from the tiles of A and B: every element of C "    \
      "must be their sum, at every size; tiles loaded and then bypassed (C made from global " \
      "memory) earn none of the tiles' points.", TILE_ELSEWHERE}}

static const lab_kernel kernels[] = {
    {.name = "matmulNaive", .launcher = "launch_matmulNaive", .section = "naive", .step = 1,
     .teaches = "one output per thread, every operand from global memory",
     .points = {{[CHK_CORRECT] = 4}}},
    {.name = "matmulTiled", .launcher = "launch_matmulTiled", .section = "tiled", .step = 2,
     .teaches = "TILE x TILE shared tiles cut global loads by TILE", .tile_param = "TILE",
     .flow = TILES_FLOW,
     .points = {{[CHK_CORRECT] = 4, [CHK_GLOBAL_LOADS] = 3, [CHK_SMEM_CONFLICTS] = 2,
                 [CHK_RACE] = RACE_POINTS}}},
    {.name = "matmulCoarse", .launcher = "launch_matmulCoarse", .section = "coarse", .step = 3,
     .teaches = "several outputs per thread from registers, on top of shared tiles",
     .tile_param = "TILE", /* at least as good as step 2's tiling */
     /* Half of cuBLAS at 4096^3 earns the speed points; the solution aims at 70%. */
     .speed_fraction = 0.5, .flow = TILES_FLOW,
     .points = {{[CHK_CORRECT] = 4, [CHK_GLOBAL_LOADS] = 1, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_SPEED] = 4, [CHK_RACE] = RACE_POINTS}}},
};

const lab_def lab5_def = {
    .id = "lab5", .title = "Tiled matrix multiply",
    .source = "labs/lab5-matmul/lab5.cu", .kind = PROBLEM_MATMUL,
    .params = {{"TILE", 16}},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
