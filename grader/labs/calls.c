/* calls.c - the launcher calls of each kernel; see calls.h. */
#include "calls.h"

#include "sizes.h"

#include <stdio.h>
#include <string.h>

#define F sizeof(float)

static call_arg buf(int i) { return (call_arg){i, 0}; }
static call_arg num(int v) { return (call_arg){-1, v}; }

void call_name_buffer(call_spec *c, int i, const char *name)
{
    snprintf(c->buffer_name[i], sizeof c->buffer_name[i], "%s", name);
}

void call_name_input(call_spec *c, int i, const char *name)
{
    call_name_buffer(c, i, name);
    c->inputs |= 1u << i;
}

/* launch_X(int *out): one BDIMX x BDIMY output. */
static int tile_calls(const lab_def *lab, call_spec *out)
{
    memset(out, 0, sizeof *out);
    out->n_args = 1;
    out->args[0] = buf(0);
    out->n_buffers = 1;
    out->buffer_bytes[0] = (size_t)lab->bdimx * lab->bdimy * sizeof(int);
    call_name_buffer(out, 0, "out");
    snprintf(out->label, sizeof out->label, "%dx%d tile", lab->bdimx, lab->bdimy);
    out->width = lab->bdimx, out->height = lab->bdimy, out->depth = 1;
    out->role = CALL_CORRECT | CALL_TRAFFIC;
    out->devices = SIZE_BOTH;
    return 1;
}

/* launch_matmulX(A, B, C, M, N, K) */
static void matmul_call(const matmul_size *s, int role, call_spec *c)
{
    memset(c, 0, sizeof *c);
    c->n_args = 6;
    c->args[0] = buf(0), c->args[1] = buf(1), c->args[2] = buf(2);
    c->args[3] = num(s->M), c->args[4] = num(s->N), c->args[5] = num(s->K);
    c->n_buffers = 3;
    c->buffer_bytes[0] = (size_t)s->M * s->K * F;
    c->buffer_bytes[1] = (size_t)s->K * s->N * F;
    c->buffer_bytes[2] = (size_t)s->M * s->N * F;
    call_name_input(c, 0, "A");
    call_name_input(c, 1, "B");
    call_name_buffer(c, 2, "C");
    snprintf(c->label, sizeof c->label, "M=%d N=%d K=%d (%s)", s->M, s->N, s->K, s->why);
    c->width = s->M, c->height = s->N, c->depth = s->K;
    c->role = role | ((s->devices & SIZE_EDGE) && (role & CALL_CORRECT) ? CALL_EDGE : 0);
    c->devices = s->devices;
}

static int matmul_calls(call_spec *out)
{
    int n = 0;
    for (int i = 0; i < sizes_matmul_count && n < CALL_MAX - 2; i++)
        matmul_call(&sizes_matmul[i], CALL_CORRECT, &out[n++]);
    matmul_call(&sizes_matmul_traffic, CALL_TRAFFIC, &out[n++]);
    matmul_call(&sizes_matmul_speed, CALL_SPEED, &out[n++]);
    return n;
}

int call_runs_on(const call_spec *c, int emulated)
{
    return (c->devices & (emulated ? SIZE_EMULATOR : SIZE_GPU)) != 0;
}

int calls_find(const call_spec *specs, int n, int role, int emulated)
{
    for (int i = 0; i < n; i++)
        if ((specs[i].role & role) && call_runs_on(&specs[i], emulated))
            return i;
    return -1;
}

/*
 * Step 1: launch(in, mask, out, n, mw); step 2: launch(in, out, n, mw);
 * step 3: launch(in, out, width, height, mw).
 */
static void conv_call(const lab_kernel *k, int width, int height, int mw, const char *why,
                      int role, int devices, call_spec *c)
{
    int two_d = k->step == 3, a = 0;
    memset(c, 0, sizeof *c);
    c->buffer_bytes[0] = (size_t)width * height * F; /* in */
    c->buffer_bytes[1] = (size_t)width * height * F; /* out */
    c->n_buffers = 2;
    call_name_input(c, 0, "in");
    call_name_buffer(c, 1, "out");
    call_name_input(c, 2, "mask");
    c->args[a++] = buf(0);
    if (!k->mask_symbol) {
        c->buffer_bytes[2] = (size_t)mw * F;
        c->n_buffers = 3;
        c->args[a++] = buf(2);
    }
    c->args[a++] = buf(1);
    c->args[a++] = num(width);
    if (two_d)
        c->args[a++] = num(height);
    c->args[a++] = num(mw);
    c->n_args = a;
    if (two_d)
        snprintf(c->label, sizeof c->label, "%dx%d image, %dx%d mask (%s)", width, height, mw,
                 mw, why);
    else
        snprintf(c->label, sizeof c->label, "n=%d, mask width %d", width, mw);
    c->width = width, c->height = height, c->depth = mw;
    c->role = role;
    c->devices = devices;
}

static int conv_calls(const lab_def *lab, const lab_kernel *k, call_spec *out)
{
    int two_d = k->step == 3, n = 0;
    int limit = k->max_mask_param ? lab_param_value(lab, k->max_mask_param) : 1 << 20;
    int n_sizes = two_d ? sizes_conv2d_count : sizes_conv1d_n_count;
    int n_masks = two_d ? sizes_conv2d_mask_count : sizes_conv1d_mask_count, widest = 0;
    for (int j = 0; j < n_masks; j++) { /* an edge entry's edge run: its widest halo */
        int mw = two_d ? sizes_conv2d_mask[j] : sizes_conv1d_mask[j];
        widest = mw <= limit && mw > widest ? mw : widest;
    }

    for (int i = 0; i < n_sizes; i++)
        for (int j = 0; j < n_masks && n < CALL_MAX - 3; j++) {
            int mw = two_d ? sizes_conv2d_mask[j] : sizes_conv1d_mask[j];
            int where = two_d ? sizes_conv2d[i].devices : sizes_conv1d_n[i].devices;
            int edge = (where & SIZE_EDGE) && mw == widest;
            if (mw > limit)
                continue;
            if (two_d)
                conv_call(k, sizes_conv2d[i].width, sizes_conv2d[i].height, mw,
                          sizes_conv2d[i].why, CALL_CORRECT | (edge ? CALL_EDGE : 0),
                          sizes_conv2d[i].devices, &out[n++]);
            else
                conv_call(k, sizes_conv1d_n[i].n, 1, mw, "", CALL_CORRECT | (edge ? CALL_EDGE : 0),
                          sizes_conv1d_n[i].devices, &out[n++]);
        }
    /* speed on the largest input; traffic (the instrumented run) on a smaller one,
       smaller still for the emulator */
    if (two_d) {
        conv_call(k, sizes_conv2d_speed.width, sizes_conv2d_speed.height,
                  sizes_conv2d_speed_mask, "speed", CALL_SPEED, SIZE_GPU, &out[n++]);
        conv_call(k, sizes_conv2d_traffic.width, sizes_conv2d_traffic.height,
                  sizes_conv2d_speed_mask, "global loads", CALL_TRAFFIC, SIZE_GPU, &out[n++]);
        conv_call(k, sizes_conv2d_traffic_emulated.width, sizes_conv2d_traffic_emulated.height,
                  sizes_conv2d_speed_mask, "global loads", CALL_TRAFFIC, SIZE_EMULATOR, &out[n++]);
    } else {
        conv_call(k, sizes_conv1d_speed_n, 1, sizes_conv1d_speed_mask, "speed", CALL_SPEED,
                  SIZE_GPU, &out[n++]);
        conv_call(k, sizes_conv1d_traffic_n, 1, sizes_conv1d_speed_mask, "global loads",
                  CALL_TRAFFIC, SIZE_GPU, &out[n++]);
        conv_call(k, sizes_conv1d_traffic_emulated_n, 1, sizes_conv1d_speed_mask, "global loads",
                  CALL_TRAFFIC, SIZE_EMULATOR, &out[n++]);
    }
    return n;
}

int lab_calls(const lab_def *lab, const lab_kernel *k, call_spec *out)
{
    switch (lab->kind) {
    case PROBLEM_TILE: case PROBLEM_IDIOM: return tile_calls(lab, out);
    case PROBLEM_MATMUL: return matmul_calls(out);
    case PROBLEM_CONV: return conv_calls(lab, k, out);
    case PROBLEM_REDUCE: return reduce_calls(lab, k, out);
    case PROBLEM_TRANSPOSE: return transpose_calls(lab, k, out);
    case PROBLEM_STENCIL: return stencil_calls(lab, k, out);
    }
    return 0;
}
