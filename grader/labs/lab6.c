/* lab6.c - tiled convolution: 1-D basic and tiled, 2-D tiled. */
#include "lab_table.h"

/* Steps 2 and 3's lesson: every output a sum of tile elements (its halo's too). */
#define TILE_FLOW6                                                                           \
    {{FLOW_SHARED, {CHK_SMEM_CONFLICTS, CHK_GLOBAL_LOADS}, 1.0, NULL, "the tile's values",    \
      "Read every tap from the shared tile and its halo, at every size: each output is a "    \
      "sum of tile elements times the mask; a tile loaded and then bypassed (the taps read " \
      "from in) earns none of the tile's points.", TILE_ELSEWHERE}}

static const lab_kernel kernels[] = {
    {.name = "conv1dBasic", .launcher = "launch_conv1dBasic", .section = "basic", .step = 1,
     .teaches = "one output per thread, inputs and mask from global memory",
     .points = {{[CHK_CORRECT] = 3}}},
    {.name = "conv1dTiled", .launcher = "launch_conv1dTiled", .section = "halo", .step = 2,
     .teaches = "a tile plus its halo in shared memory, the mask in constant memory",
     .tile_param = "TILE1D", .max_mask_param = "MAX_MASK1D", .mask_symbol = "c_mask1d",
     .flow = TILE_FLOW6,
     .points = {{[CHK_CORRECT] = 4, [CHK_GLOBAL_LOADS] = 2, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_RACE] = RACE_POINTS}}},
    {.name = "conv2dTiled", .launcher = "launch_conv2dTiled", .section = "tiles-2d", .step = 3,
     .teaches = "2-D tiles with a halo on every side, borders as ghost cells",
     .tile_param = "TILE2D", .max_mask_param = "MAX_MASK2D", .mask_symbol = "c_mask2d",
     /* A tiled 2-D convolution streams its image: 40% of copy speed earns the points. */
     .speed_fraction = 0.4, .flow = TILE_FLOW6,
     .points = {{[CHK_CORRECT] = 4, [CHK_GLOBAL_LOADS] = 2, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_SPEED] = 2, [CHK_RACE] = RACE_POINTS}}},
};

const lab_def lab6_def = {
    .id = "lab6", .title = "Tiled convolution",
    .source = "labs/lab6-convolution/lab6.cu", .kind = PROBLEM_CONV,
    /* Outputs per block and widest masks: the size lists and traffic limits assume them. */
    .params = {{"TILE1D", 1024}, {"MAX_MASK1D", 31}, {"TILE2D", 32}, {"MAX_MASK2D", 7}},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
