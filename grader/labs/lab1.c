/* lab1.c - square 32x32 static tile: row against column access. */
#include "lab_table.h"

#define N 32
static const check_points tile_points = TILE_POINTS(2, 0);

static const lab_kernel kernels[] = {
    {.name = "setRowReadRow", .launcher = "launch_setRowReadRow",
     .teaches = "row-major store and load: consecutive lanes touch consecutive words",
     .tile = {{TILE_ROW, N}, {TILE_ROW, N},
              "tile[threadIdx.y][threadIdx.x] = idx", "out[idx] = tile[threadIdx.y][threadIdx.x]"},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setColReadCol", .launcher = "launch_setColReadCol",
     .teaches = "column-major store and load: a warp's lanes sit one row (32 words) apart",
     .tile = {{TILE_COL, N}, {TILE_COL, N},
              "tile[threadIdx.x][threadIdx.y] = idx", "out[idx] = tile[threadIdx.x][threadIdx.y]"},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setRowReadCol", .launcher = "launch_setRowReadCol",
     .teaches = "row-major store, column-major load: a transpose through shared memory",
     .tile = {{TILE_ROW, N}, {TILE_COL, N},
              "tile[threadIdx.y][threadIdx.x] = idx", "out[idx] = tile[threadIdx.x][threadIdx.y]"},
     .points = tile_points, .flow = TILE_FLOW},
};

const lab_def lab1_def = {
    .id = "lab1", .title = "Square tile: row and column access",
    .source = "labs/lab1-square/lab1.cu", .kind = PROBLEM_TILE, .bdimx = N, .bdimy = N,
    .limits = {.launches = 2, .blocks = 64, .shared_bytes = 48 * 1024},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
