/* lab4.c - rectangular 32x16 tile, the irow/icol transpose, and its padding. */
#include "lab_table.h"

#define BX 32
#define BY 16
/* Two pad columns: with one, the two tile columns a warp reads still share
 * banks pairwise (2-way); the model shows it, the exercise asks for none. */
#define PITCH (BX + 2)
static const check_points tile_points = TILE_POINTS(2, 0);
/* A dynamic tile's kernel: the tile must be dynamic (lab 2's lesson). */
static const check_points dyn_points = TILE_POINTS(2, 1);

static const lab_kernel kernels[] = {
    {.name = "setRowReadRow", .launcher = "launch_setRowReadRow",
     .teaches = "row-major access of a rectangular tile",
     .tile = {{TILE_ROW, BX}, {TILE_ROW, BX},
              "tile[threadIdx.y][threadIdx.x] = idx", "out[idx] = tile[threadIdx.y][threadIdx.x]"},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setColReadCol", .launcher = "launch_setColReadCol",
     .teaches = "column-major access of a tile declared [BDIMX][BDIMY]",
     .tile = {{TILE_COL, BY}, {TILE_COL, BY},
              "tile[threadIdx.x][threadIdx.y] = idx", "out[idx] = tile[threadIdx.x][threadIdx.y]"},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setRowReadCol", .launcher = "launch_setRowReadCol",
     .teaches = "the rectangular transpose: irow = idx / blockDim.y, icol = idx % blockDim.y",
     .tile = {{TILE_ROW, BX}, {TILE_TRANSPOSED, BX},
              "tile[threadIdx.y][threadIdx.x] = idx", "out[idx] = tile[icol][irow]"},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setRowReadColDyn", .launcher = "launch_setRowReadColDyn",
     .teaches = "the rectangular transpose on a dynamic tile: col_idx = icol * blockDim.x + irow",
     .tile = {{TILE_ROW, BX}, {TILE_TRANSPOSED, BX},
              "tile[idx] = idx", "out[idx] = tile[col_idx]"},
     .points = dyn_points, .flow = TILE_FLOW},
    {.name = "setRowReadColPad", .launcher = "launch_setRowReadColPad",
     .teaches = "padding the rectangular tile until the irow/icol read is conflict-free",
     .tile = {{TILE_ROW, PITCH}, {TILE_TRANSPOSED, PITCH},
              "tile[threadIdx.y][threadIdx.x] = idx", "out[idx] = tile[icol][irow]", .pad_free = 1},
     .points = tile_points, .flow = TILE_FLOW},
    {.name = "setRowReadColDynPad", .launcher = "launch_setRowReadColDynPad",
     .teaches = "padding the dynamic rectangular tile: row_idx, col_idx and idx",
     .tile = {{TILE_ROW, PITCH}, {TILE_TRANSPOSED, PITCH},
              "tile[row_idx] = idx", "out[idx] = tile[col_idx]", .pad_free = 1},
     .points = dyn_points, .flow = TILE_FLOW},
};

const lab_def lab4_def = {
    .id = "lab4", .title = "Rectangular tile",
    .source = "labs/lab4-rectangle/lab4.cu", .kind = PROBLEM_TILE, .bdimx = BX, .bdimy = BY,
    .limits = {.launches = 2, .blocks = 64, .shared_bytes = 48 * 1024},
    .pad_param = "smemlab_param_IPAD",
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
