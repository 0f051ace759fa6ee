/* reduce_calls.c - the launcher calls of labs 7 and 8; see calls.h. */
#include "calls.h"

#include "reduce_sizes.h"

#include <stdio.h>
#include <string.h>

#define I sizeof(int)

static call_arg buf(int i) { return (call_arg){i, 0}; }
static call_arg num(int v) { return (call_arg){-1, v}; }

/*
 * launch_X(in, partial, n). The partial sums hold one int a block the
 * launch has, which the grader learns from the launch: the call passes room
 * for the most blocks the contract allows (one element a thread), and the
 * measuring process allocates exactly gridDim.x, guarded.
 */
static void sum_call(const lab_def *lab, const lab_kernel *k, const reduce_size *s, int role,
                     call_spec *c)
{
    int dim = lab_param_value(lab, "DIM");
    long blocks = dim > 0 ? ((long)s->n + dim - 1) / dim : s->n;
    memset(c, 0, sizeof *c);
    c->n_args = 3;
    c->args[0] = buf(0), c->args[1] = buf(1), c->args[2] = num(s->n);
    c->n_buffers = 2;
    c->buffer_bytes[0] = (size_t)(s->n > 0 ? s->n : 1) * I;
    c->buffer_bytes[1] = (size_t)(blocks > 0 ? blocks : 1) * I;
    if (k->reduce.in_place) /* step 1's tree runs in its input */
        call_name_buffer(c, 0, "in");
    else
        call_name_input(c, 0, "in");
    call_name_buffer(c, 1, "partial");
    if (role & CALL_CORRECT)
        snprintf(c->label, sizeof c->label, "n=%d (%s; %s)", s->n, s->why,
                 reduce_values_name(s->values));
    else
        snprintf(c->label, sizeof c->label, "n=%d (%s)", s->n, s->why);
    c->width = s->n, c->height = (int)s->values, c->depth = 1;
    c->role = role | (s->n == 0 ? CALL_EMPTY : 0) |
              ((s->devices & SIZE_EDGE) && (role & CALL_CORRECT) ? CALL_EDGE : 0);
    c->devices = s->devices;
}

/* launch_shflX(in, out, value): one warp, 32 ints in and out (4 a lane for the array). */
static void exercise_call(const lab_kernel *k, const char *param, int value, call_spec *c)
{
    int elems = k->reduce.exercise == EXERCISE_XOR_ARRAY ? 128 : 32;
    memset(c, 0, sizeof *c);
    c->n_args = 3;
    c->args[0] = buf(0), c->args[1] = buf(1), c->args[2] = num(value);
    c->n_buffers = 2;
    c->buffer_bytes[0] = c->buffer_bytes[1] = (size_t)elems * I;
    call_name_input(c, 0, "in");
    call_name_buffer(c, 1, "out");
    snprintf(c->label, sizeof c->label, "%s = %d", param, value);
    c->width = elems, c->height = 1, c->depth = value;
    /* one warp: the same run is the one measured */
    c->role = CALL_CORRECT | CALL_TRAFFIC;
    c->devices = SIZE_BOTH;
}

static int exercise_calls(const lab_kernel *k, call_spec *out)
{
    const int *v = sizes_shfl_xor;
    int n = sizes_shfl_xor_count;
    const char *param = "laneMask";
    switch (k->reduce.exercise) {
    case EXERCISE_BROADCAST:
        v = sizes_shfl_broadcast, n = sizes_shfl_broadcast_count, param = "srcLane";
        break;
    case EXERCISE_UP: case EXERCISE_DOWN:
        v = sizes_shfl_delta, n = sizes_shfl_delta_count, param = "delta";
        break;
    case EXERCISE_WRAP:
        v = sizes_shfl_wrap, n = sizes_shfl_wrap_count, param = "offset";
        break;
    default:
        break;
    }
    for (int i = 0; i < n && i < CALL_MAX; i++)
        exercise_call(k, param, v[i], &out[i]);
    return n < CALL_MAX ? n : CALL_MAX;
}

int reduce_calls(const lab_def *lab, const lab_kernel *k, call_spec *out)
{
    int n = 0;
    if (k->reduce.exercise != EXERCISE_NONE)
        return exercise_calls(k, out);
    for (int i = 0; i < sizes_reduce_count && n < CALL_MAX - 3; i++)
        sum_call(lab, k, &sizes_reduce[i], CALL_CORRECT, &out[n++]);
    sum_call(lab, k, &sizes_reduce_traffic, CALL_TRAFFIC, &out[n++]);
    sum_call(lab, k, &sizes_reduce_traffic_emulated, CALL_TRAFFIC, &out[n++]);
    sum_call(lab, k, &sizes_reduce_speed, CALL_SPEED, &out[n++]);
    return n;
}
