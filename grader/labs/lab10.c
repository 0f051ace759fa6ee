/* lab10.c - constant memory against the read-only cache: a 9-point 1-D stencil with its
   coefficients in each, and a table each lane indexes differently, through each. */
#include "lab_table.h"

/* Where the lessons' values must go (problems/flow.c): the stencils' tile, a check of its
   own; the coefficients or the table through the path the step asks, the checks that
   give that path its points. Every output is a sum of taps, or a lookup: all of them. */
#define FLOW_TILE10                                                                          \
    {FLOW_SHARED, {CHK_SMEM_CONFLICTS}, 1.0, NULL, "the tile's values",                       \
     "Read every tap from the shared tile and its halo: a tile loaded and then bypassed "     \
     "(the taps read from in) earns none of the tile's points.", TILE_ELSEWHERE}
#define FLOW_CONST(what, symbol)                                                             \
    {FLOW_CONSTANT, {CHK_MEMORY_PATH, CHK_CONST_SERIAL}, 1.0, NULL,                          \
     "the " what " read from " symbol,                                                       \
     "Compute each output with the " what " you read from " symbol ": a constant read "      \
     "that is thrown away, the output made from another copy (a shared one, or one in "     \
     "registers another warp filled), earns none of the path's points.", 1.0}
#define FLOW_READONLY(what, array, ...)                                                      \
    {FLOW_READONLY, {CHK_MEMORY_PATH, __VA_ARGS__}, 1.0, array,                              \
     "the " what " read by __ldg",                                                           \
     "Compute each output with the " what " you read with __ldg (or through const "          \
     "__restrict__): a read-only load that is thrown away, the output made another way (a "  \
     "plain load of " array ", the other step's __constant__ array), earns none of the "     \
     "path's points.", 1.0}

static const lab_kernel kernels[] = {
    {.name = "stencil1DConst", .launcher = "launch_stencil1DConst", .section = "constant",
     .step = 1, .path = MEM_PATH_CONSTANT, .mask_symbol = "c_coef", .tile_param = "TILE",
     .teaches = "the tile and its halo in shared memory, the coefficients in constant "
                "memory: every lane reads the same one, a broadcast",
     .speed_fraction = 0.6, .flow = {FLOW_TILE10, FLOW_CONST("coefficients", "c_coef")},
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_LOADS] = 2, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_SPEED] = 1, [CHK_RACE] = RACE_POINTS, [CHK_MEMORY_PATH] = 2,
                 [CHK_CONST_SERIAL] = 1}}},
    {.name = "stencil1DReadOnly", .launcher = "launch_stencil1DReadOnly", .section = "read-only",
     .step = 2, .path = MEM_PATH_READONLY, .tile_param = "TILE",
     .teaches = "the same stencil, the coefficients through the read-only cache "
                "(__ldg, const __restrict__)",
     .speed_fraction = 0.6,
     .flow = {FLOW_TILE10, FLOW_READONLY("coefficients", "coef", CHK_NONE)},
     .points = {{[CHK_CORRECT] = 3, [CHK_GLOBAL_LOADS] = 2, [CHK_SMEM_CONFLICTS] = 1,
                 [CHK_SPEED] = 1, [CHK_RACE] = RACE_POINTS, [CHK_MEMORY_PATH] = 2}}},
    {.name = "lookupConst", .launcher = "launch_lookupConst", .section = "lookup", .step = 3,
     .path = MEM_PATH_CONSTANT, .mask_symbol = "c_table",
     .teaches = "a table each lane indexes differently, in constant memory: a warp's "
                "request is served one distinct address at a time",
     .flow = {FLOW_CONST("table's entries", "c_table")},
     .points = {{[CHK_CORRECT] = 2, [CHK_MEMORY_PATH] = 1, [CHK_CONST_SERIAL] = 2}}},
    {.name = "lookupReadOnly", .launcher = "launch_lookupReadOnly", .section = "lookup",
     .step = 4, .path = MEM_PATH_READONLY,
     .teaches = "the same lookup through the read-only cache: no serialization",
     .speed_fraction = 0.6,
     .flow = {FLOW_READONLY("table's entries", "table", CHK_CONST_SERIAL)},
     .points = {{[CHK_CORRECT] = 2, [CHK_MEMORY_PATH] = 2, [CHK_CONST_SERIAL] = 1,
                 [CHK_SPEED] = 1}}},
};

const lab_def lab10_def = {
    .id = "lab10", .title = "Constant memory and the read-only cache",
    .source = "labs/lab10-constant/lab10.cu", .kind = PROBLEM_STENCIL,
    /* Outputs a block, the stencil's radius (9 points), the lookup table's entries. */
    .params = {{"TILE", 1024}, {"RADIUS", 4}, {"TABLE", 256}},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
