/* stencil_calls.c - the launcher calls of lab 10; see calls.h. */
#include "calls.h"

#include "sizes.h"

#include <stdio.h>
#include <string.h>

static call_arg buf(int i) { return (call_arg){i, 0}; }
static call_arg num(int v) { return (call_arg){-1, v}; }

/*
 * Buffers: 0 the input (floats; the lookup's int keys), 1 the output, 2 the
 * coefficients or the table where the kernel takes them as an argument.
 * Steps 1 and 3: launch(in, out, n); steps 2 and 4: launch(in, data, out, n).
 */
static void stencil_call(const lab_def *lab, const lab_kernel *k, int n, const char *why,
                         int role, int devices, call_spec *c)
{
    int lookup = k->step >= 3, a = 0;
    int data = lookup ? lab_param_value(lab, "TABLE") : 2 * lab_param_value(lab, "RADIUS") + 1;
    memset(c, 0, sizeof *c);
    c->buffer_bytes[0] = (size_t)n * 4; /* a float or an int an element */
    c->buffer_bytes[1] = (size_t)n * sizeof(float);
    c->n_buffers = 2;
    call_name_input(c, 0, lookup ? "keys" : "in");
    call_name_buffer(c, 1, "out");
    call_name_input(c, 2, lookup ? "table" : "coef");
    c->args[a++] = buf(0);
    if (k->path == MEM_PATH_READONLY) {
        c->buffer_bytes[2] = (size_t)(data > 0 ? data : 1) * sizeof(float);
        c->n_buffers = 3;
        c->args[a++] = buf(2);
    }
    c->args[a++] = buf(1);
    c->args[a++] = num(n);
    c->n_args = a;
    snprintf(c->label, sizeof c->label, "n=%d%s%s", n, *why ? ", " : "", why);
    c->width = n, c->height = 1, c->depth = data;
    c->role = role;
    c->devices = devices;
}

/* Every length of lab 6's 1-D list (the tile's edges, primes, one element), then
   the speed input, the GPU's traffic input and the emulator's. */
int stencil_calls(const lab_def *lab, const lab_kernel *k, call_spec *out)
{
    int n = 0;
    for (int i = 0; i < sizes_conv1d_n_count && n < CALL_MAX - 3; i++)
        stencil_call(lab, k, sizes_conv1d_n[i].n, "",
                     CALL_CORRECT | (sizes_conv1d_n[i].devices & SIZE_EDGE ? CALL_EDGE : 0),
                     sizes_conv1d_n[i].devices, &out[n++]);
    stencil_call(lab, k, sizes_conv1d_speed_n, "speed", CALL_SPEED, SIZE_GPU, &out[n++]);
    stencil_call(lab, k, sizes_conv1d_traffic_n, "measured run", CALL_TRAFFIC, SIZE_GPU,
                 &out[n++]);
    stencil_call(lab, k, sizes_conv1d_traffic_emulated_n, "measured run", CALL_TRAFFIC,
                 SIZE_EMULATOR, &out[n++]);
    return n;
}
