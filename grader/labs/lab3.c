/* lab3.c - square tile padded by one column, static and dynamic. */
#include "lab_table.h"

#define N 32
#define PITCH (N + 1) /* one pad column moves each row one bank over (on today's
                         4-byte banks; .pad_free: the least pad that does it on the banks
                         graded, two on the K40's 8-byte banks) */
static const check_points tile_points = TILE_POINTS(2, 0);
/* A dynamic tile's kernel: the tile must be dynamic (lab 2's lesson). */
static const check_points dyn_points = TILE_POINTS(2, 1);

static const lab_kernel kernels[] = {
    {.name = "setRowReadColPad", .launcher = "launch_setRowReadColPad",
     .teaches = "a pad column turns the column read into a conflict-free one",
     .tile = {{TILE_ROW, PITCH}, {TILE_COL, PITCH},
              "tile[threadIdx.y][threadIdx.x] = idx", "out[idx] = tile[threadIdx.x][threadIdx.y]",
              .pad_free = 1},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setRowReadColDynPad", .launcher = "launch_setRowReadColDynPad",
     .teaches = "padding a dynamic tile: three indices, row_idx, col_idx and g_idx",
     .tile = {{TILE_ROW, PITCH}, {TILE_COL, PITCH},
              "tile[row_idx] = g_idx", "out[g_idx] = tile[col_idx]", .pad_free = 1},
     .points = dyn_points, .flow = TILE_FLOW},
};

const lab_def lab3_def = {
    .id = "lab3", .title = "Padding",
    .source = "labs/lab3-padding/lab3.cu", .kind = PROBLEM_TILE, .bdimx = N, .bdimy = N,
    .limits = {.launches = 2, .blocks = 64, .shared_bytes = 48 * 1024},
    .pad_param = "smemlab_param_IPAD",
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
