/* lab2.c - square 32x32 dynamic tile: extern __shared__, 1-D index, size at launch. */
#include "lab_table.h"

#define N 32
/* A dynamic tile's kernel: the tile must be dynamic (lab 2's lesson). */
static const check_points dyn_points = TILE_POINTS(2, 1);

static const lab_kernel kernels[] = {
    {.name = "setRowReadColDyn", .launcher = "launch_setRowReadColDyn",
     .teaches = "a dynamic tile indexed in 1-D: row_idx to store, col_idx to load",
     .tile = {{TILE_ROW, N}, {TILE_COL, N},
              "tile[row_idx] = row_idx", "out[row_idx] = tile[col_idx]"},
     .points = dyn_points, .flow = TILE_FLOW},
    {.name = "setColReadColDyn", .launcher = "launch_setColReadColDyn", .optional = 1,
     .teaches = "a dynamic tile written and read column-major through col_idx",
     .tile = {{TILE_COL, N}, {TILE_COL, N},
              "tile[col_idx] = row_idx", "out[row_idx] = tile[col_idx]"},
     .points = dyn_points, .flow = TILE_FLOW},
};

const lab_def lab2_def = {
    .id = "lab2", .title = "Dynamic shared memory",
    .source = "labs/lab2-dynamic/lab2.cu", .kind = PROBLEM_TILE, .bdimx = N, .bdimy = N,
    .limits = {.launches = 2, .blocks = 64, .shared_bytes = 48 * 1024},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
