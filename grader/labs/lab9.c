/* lab9.c - transposing a matrix through shared memory: the copy, the naive transposes
   (one global side strided), the tile, its pad, two elements a thread. */
#include "lab_table.h"

/* Steps 3 to 5's lesson: the tile that turns the column walk into a row walk, written by
   the student; cub::BlockExchange (a block's items re-dealt through shared memory) does it. */
#define TILE_LESSON                                                                          \
    {CHK_SMEM_CONFLICTS, "the transpose through a shared tile", LESSON_LIB_CUB_EXCHANGE,     \
     "Write the tile yourself: each thread stores its element into a __shared__ tile, a "     \
     "barrier (__syncthreads(), or a cooperative group's block.sync(): a helper, yours to "   \
     "use), then reads its element of the transpose from the tile."}

/* Their flow: smem-conflicts counts the tile, and both sides are coalesced through it (the
   step's lesson), so every element of out must come through it, at every size. */
#define TILE_FLOW9                                                                           \
    {{FLOW_SHARED, {CHK_SMEM_CONFLICTS, CHK_LOAD_COALESCING, CHK_STORE_COALESCING}, 1.0, NULL, \
      "the tile's values",                                                                  \
      "Write out from what you read back from the tile after the barrier "                   \
      "(tile[icol][irow]): a tile filled and bypassed, out written from in "              \
      "directly, earns none of the tile's points.", TILE_ELSEWHERE}}

static const lab_kernel kernels[] = {
    {.name = "copyRow", .launcher = "launch_copyRow", .section = "copy", .step = 1,
     .teaches = "the roof: a row read, a row written, both coalesced",
     .transpose = {.copy = 1, .tile_pad = -1, .unroll = 1},
     .points = {{[CHK_CORRECT] = 2, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1}}},
    {.name = "naiveRow", .launcher = "launch_naiveRow", .section = "naive", .step = 2,
     .teaches = "the transpose straight through global memory: columns written",
     .transpose = {.strided_store = 1, .tile_pad = -1, .unroll = 1},
     .points = {{[CHK_CORRECT] = 2, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1}}},
    {.name = "naiveCol", .launcher = "launch_naiveCol", .section = "naive", .step = 2,
     .teaches = "the transpose straight through global memory: columns read",
     .transpose = {.strided_load = 1, .tile_pad = -1, .unroll = 1},
     .points = {{[CHK_CORRECT] = 2, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1}}},
    {.name = "transposeSmem", .launcher = "launch_transposeSmem", .section = "tile", .step = 3,
     .teaches = "both sides coalesced through a shared tile, its column read 16-way",
     .transpose = {.tile_pad = 0, .unroll = 1}, .lesson = TILE_LESSON, .flow = TILE_FLOW9,
     .points = {{[CHK_CORRECT] = 3, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1,
                 [CHK_SMEM_CONFLICTS] = 1, [CHK_RACE] = RACE_POINTS}}},
    {.name = "transposeSmemPad", .launcher = "launch_transposeSmemPad", .section = "pad",
     .step = 4, .teaches = "the tile padded by IPAD words: conflict-free",
     .transpose = {.tile_pad = 2, .unroll = 1}, .lesson = TILE_LESSON, .flow = TILE_FLOW9,
     /* The student's speed points at 60% of copyRow's; the solution aims at 90%. */
     .speed_fraction = 0.6,
     .points = {{[CHK_CORRECT] = 3, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1,
                 [CHK_SMEM_CONFLICTS] = 2, [CHK_RACE] = RACE_POINTS, [CHK_SPEED] = 2}}},
    {.name = "transposeSmemUnrollPad", .launcher = "launch_transposeSmemUnrollPad",
     .section = "unroll", .step = 5,
     .teaches = "two elements a thread, half the blocks, every edge guarded",
     .transpose = {.tile_pad = 2, .unroll = 2}, .lesson = TILE_LESSON, .flow = TILE_FLOW9,
     .speed_fraction = 0.6,
     .points = {{[CHK_CORRECT] = 3, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1,
                 [CHK_SMEM_CONFLICTS] = 1, [CHK_RACE] = RACE_POINTS, [CHK_SPEED] = 2}}},
    {.name = "transposeSmemUnrollPadDyn", .launcher = "launch_transposeSmemUnrollPadDyn",
     .section = "dynamic", .step = 5,
     .teaches = "step 5 with its tile sized at launch (extern __shared__)",
     .transpose = {.tile_pad = 2, .unroll = 2}, .lesson = TILE_LESSON, .flow = TILE_FLOW9,
     .points = {{[CHK_CORRECT] = 2, [CHK_LOAD_COALESCING] = 1, [CHK_STORE_COALESCING] = 1,
                 [CHK_SMEM_CONFLICTS] = 1, [CHK_RACE] = RACE_POINTS, [CHK_DYNAMIC_TILE] = 1}}},
};

const lab_def lab9_def = {
    .id = "lab9", .title = "Transpose through shared memory",
    .source = "labs/lab9-transpose/lab9.cu", .kind = PROBLEM_TRANSPOSE,
    .bdimx = 32, .bdimy = 16,
    /* The block the models (coalescing, the tile's banks) assume, and the pad. */
    .params = {{"BDIMX", 32}, {"BDIMY", 16}, {"IPAD", 2}},
    .limits = {.launches = 1, .shared_bytes = 48 * 1024},
    .kernels = kernels, .n_kernels = (int)(sizeof kernels / sizeof kernels[0]),
};
