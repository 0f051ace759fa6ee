/* transpose_calls.c - lab 9's launcher calls and matrix sizes; see calls.h. */
#include "calls.h"
#include "sizes.h"

#include <stdio.h>
#include <string.h>

/*
 * Where a tiled transpose breaks: one element, one row and one column (a tile with
 * a single live row or column), sizes just past a block either way (32 x 16) and
 * past the unrolled block (64 wide), non-multiples both ways, blocks of 64 x 64 whole
 * inside a ragged matrix (a kernel that stacks tiles down a column, as the solution's
 * step 5 does, takes its unguarded path there), and a large one where a missing
 * barrier has time to show.
 */
static const image_size sizes_transpose[] = {
    {1, 1, "one element", SIZE_BOTH},
    {77, 1, "one row", SIZE_BOTH},
    {1, 77, "one column", SIZE_BOTH},
    {33, 17, "just past a block both ways", SIZE_BOTH},
    {64, 32, "whole unrolled blocks", SIZE_BOTH},
    {65, 16, "one past the unrolled block", SIZE_BOTH},
    {100, 37, "no multiple either way", SIZE_BOTH},
    {200, 136, "blocks of 64 x 64 inside, ragged both ways", SIZE_BOTH},
    /* more blocks than a GPU trace's race window (16) for every block the lab's kernels
       take: 11 x 14 of 32 x 16, 6 x 14 unrolled, 6 x 4 of the solution's 64 x 64 */
    {323, 211, "more blocks than the race window, ragged both ways", SIZE_BOTH | SIZE_EDGE},
    {1031, 997, "large, primes", SIZE_GPU},
};

/* The measured runs (the GPU's: a few hundred blocks; the emulator's: 9) and the timed
   one: 8192 x 8192 floats, 256 MB each way, as the chapter's figures use. */
static const image_size sizes_transpose_traffic = {1024, 512, "measured", SIZE_GPU};
static const image_size sizes_transpose_traffic_emulated = {128, 48, "measured", SIZE_EMULATOR};
static const image_size sizes_transpose_speed = {8192, 8192, "timed", SIZE_GPU};

/* launch_X(in, out, nx, ny): in ny rows of nx floats, out as many floats. */
static void transpose_call(const image_size *s, int role, call_spec *c)
{
    memset(c, 0, sizeof *c);
    c->n_args = 4;
    c->args[0] = (call_arg){0, 0};
    c->args[1] = (call_arg){1, 0};
    c->args[2] = (call_arg){-1, s->width};
    c->args[3] = (call_arg){-1, s->height};
    c->n_buffers = 2;
    c->buffer_bytes[0] = c->buffer_bytes[1] = (size_t)s->width * (size_t)s->height * sizeof(float);
    call_name_input(c, 0, "in");
    call_name_buffer(c, 1, "out");
    snprintf(c->label, sizeof c->label, "nx=%d ny=%d (%s)", s->width, s->height, s->why);
    c->width = s->width, c->height = s->height, c->depth = 1;
    c->role = role | ((s->devices & SIZE_EDGE) && (role & CALL_CORRECT) ? CALL_EDGE : 0);
    c->devices = s->devices;
}

int transpose_calls(const lab_def *lab, const lab_kernel *k, call_spec *out)
{
    int n = 0;
    (void)lab, (void)k;
    for (size_t i = 0; i < sizeof sizes_transpose / sizeof sizes_transpose[0]; i++)
        transpose_call(&sizes_transpose[i], CALL_CORRECT, &out[n++]);
    transpose_call(&sizes_transpose_traffic, CALL_TRAFFIC, &out[n++]);
    transpose_call(&sizes_transpose_traffic_emulated, CALL_TRAFFIC, &out[n++]);
    transpose_call(&sizes_transpose_speed, CALL_SPEED, &out[n++]);
    return n;
}
