/*
 * gen-traces.c - writes the recorded traces of tests/traces/ from the tile
 * model: what the trace capture records for the access patterns of labs 1-4
 * (one block; every warp stores, passes the barrier, loads).
 *
 *   make traces    rebuilds them (tests/traces/NAME.trace)
 *
 * Records come out as the GPU would write them: warps interleaved (all the
 * stores, then the barriers, then the loads in reverse warp order), so the
 * analysis cannot lean on a global order. PCs match the hand-written
 * disassembly sample tests/traces/lab1.nvdisasm: STS at 0x90, BAR at 0xa0,
 * LDS at 0xc0.
 */
#include "model/tile_model.h"
#include "measure/access/trace.h"

#include <stdio.h>
#include <string.h>

#define PC_STORE 0x90
#define PC_BAR 0xa0
#define PC_LOAD 0xc0

#define ROW(p) {.order = TILE_ROW, .pitch = (p)}
#define COL(p) {.order = TILE_COL, .pitch = (p)}
#define LIN(a, b, c) {.order = TILE_LINEAR, .arg = {(a), (b), (c)}}

typedef struct trace_case {
    const char *name, *what;
    int bdimx, bdimy, elem;
    tile_access store, load;
    int barrier;
} trace_case;

static const trace_case cases[] = {
    {"lab1-row", "lab1 setRowReadRow: row store, row load", 32, 32, 4,
     {.order = TILE_ROW, .pitch = 32}, {.order = TILE_ROW, .pitch = 32}, 1},
    {"lab1-col", "lab1 setColReadCol: column store, column load", 32, 32, 4,
     {.order = TILE_COL, .pitch = 32}, {.order = TILE_COL, .pitch = 32}, 1},
    {"lab1-rowcol", "lab1 setRowReadCol: row store, column load", 32, 32, 4,
     {.order = TILE_ROW, .pitch = 32}, {.order = TILE_COL, .pitch = 32}, 1},
    {"lab1-rowcol-nosync", "lab1 setRowReadCol without __syncthreads: a race", 32, 32, 4,
     {.order = TILE_ROW, .pitch = 32}, {.order = TILE_COL, .pitch = 32}, 0},
    {"lab1-row-nosync", "lab1 setRowReadRow without __syncthreads: each warp reads its own "
     "words, no race", 32, 32, 4, {.order = TILE_ROW, .pitch = 32}, {.order = TILE_ROW, .pitch = 32}, 0},
    {"lab3-pad", "lab3 setRowReadColPad: pitch 33, column load", 32, 32, 4,
     {.order = TILE_ROW, .pitch = 33}, {.order = TILE_COL, .pitch = 33}, 1},
    {"lab4-irow-icol", "lab4 setRowReadCol: 32x16, irow/icol load", 32, 16, 4,
     {.order = TILE_ROW, .pitch = 32}, {.order = TILE_TRANSPOSED, .pitch = 32}, 1},
    {"lab4-irow-icol-pad1", "lab4 setRowReadColPad with one pad column", 32, 16, 4,
     {.order = TILE_ROW, .pitch = 33}, {.order = TILE_TRANSPOSED, .pitch = 33}, 1},
    {"lab4-irow-icol-pad2", "lab4 setRowReadColPad with two pad columns", 32, 16, 4,
     {.order = TILE_ROW, .pitch = 34}, {.order = TILE_TRANSPOSED, .pitch = 34}, 1},
    {"long-row", "a long long 32x32 tile, row store and row load (the 64-bit rule)", 32, 32, 8,
     {.order = TILE_ROW, .pitch = 32}, {.order = TILE_ROW, .pitch = 32}, 1},
    {"long-rowcol", "a long long 32x32 tile, row store, column load", 32, 32, 8,
     {.order = TILE_ROW, .pitch = 32}, {.order = TILE_COL, .pitch = 32}, 1},
    /* One pattern for both sides, at every width: the verdicts must agree. */
    {"w1-row", "char 32x32 tile, row both ways", 32, 32, 1, ROW(32), ROW(32), 1},
    {"w2-row", "short 32x32 tile, row both ways", 32, 32, 2, ROW(32), ROW(32), 1},
    {"w8-row", "long long 32x32 tile, row both ways", 32, 32, 8, ROW(32), ROW(32), 1},
    {"w16-row", "int4 32x32 tile, row both ways", 32, 32, 16, ROW(32), ROW(32), 1},
    {"w1-col", "char 32x32 tile, column both ways", 32, 32, 1, COL(32), COL(32), 1},
    {"w2-col", "short 32x32 tile, column both ways", 32, 32, 2, COL(32), COL(32), 1},
    {"w8-col", "long long 32x32 tile, column both ways", 32, 32, 8, COL(32), COL(32), 1},
    {"w16-col", "int4 32x32 tile, column both ways", 32, 32, 16, COL(32), COL(32), 1},
    {"w8-col-pad1", "long long 32x33 tile, column both ways", 32, 32, 8, COL(33), COL(33), 1},
    {"w16-col-pad1", "int4 32x33 tile, column both ways", 32, 32, 16, COL(33), COL(33), 1},
    /* Wide loads whose lanes pair up: served in phases twice as wide (bank.h). */
    {"w8-pairs", "long long: row store, lanes 2k and 2k+1 load element k", 32, 4, 8,
     ROW(32), LIN(0, 1, 2), 1},
    {"w16-bcast", "int4: row store, every lane loads element 0", 32, 4, 16, ROW(32), LIN(0, 0, 1), 1},
};

static void record(FILE *f, const bank_geometry *g, const trace_case *c, tile_access a,
                   int warp, uint64_t pc, uint16_t flags)
{
    warp_access w;
    trace_record r;
    tile_warp_access(g, &a, c->bdimx, c->bdimy, c->elem, flags == TRACE_READ, warp, &w);
    memset(&r, 0, sizeof r);
    r.pc = pc;
    r.warp = (uint32_t)warp;
    r.active = w.active;
    r.width = (uint16_t)c->elem;
    r.flags = flags;
    memcpy(r.addr, w.addr, sizeof r.addr);
    trace_write_record(f, &r);
}

int main(int argc, char **argv)
{
    bank_geometry g;
    const char *dir = argc > 1 ? argv[1] : "tests/traces";
    bank_geometry_for(9, 0, 32, 0, &g);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const trace_case *c = &cases[i];
        char path[512];
        int warps = (c->bdimx * c->bdimy + 31) / 32;
        snprintf(path, sizeof path, "%s/%s.trace", dir, c->name);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 1;
        }
        fprintf(f, "# %s\n# generated by tests/traces/gen-traces.c (make traces): block %dx%d, "
                "%d-byte elements\n", c->what, c->bdimx, c->bdimy, c->elem);
        for (int w = 0; w < warps; w++)
            record(f, &g, c, c->store, w, PC_STORE, TRACE_WRITE);
        for (int w = 0; c->barrier && w < warps; w++) {
            trace_record b = {.pc = PC_BAR, .warp = (uint32_t)w, .active = 0xFFFFFFFFu,
                              .flags = TRACE_BARRIER};
            trace_write_record(f, &b);
        }
        for (int w = warps - 1; w >= 0; w--)
            record(f, &g, c, c->load, w, PC_LOAD, TRACE_READ);
        if (fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}
