/* test_guarded.c - guarded output buffers (run/gpu.h) on the emulated device:
   what a kernel writes inside comes back whole, a byte outside is counted; every
   array dev_malloc makes lies between two guard zones (run/device.h). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/emulator/emu_device.h"
#include "problems/problem.h"
#include "run/gpu.h"

enum { BYTES = 4000 };

START_TEST(inside_whole_outside_counted)
{
    const device_ops *was = device_current();
    device_use(&device_emulator);
    guarded g;
    char why[256];
    unsigned char host[BYTES], want[BYTES];
    long changed = -1;
    ck_assert_int_eq(guarded_alloc(&g, BYTES, why, sizeof why), 0);
    ck_assert_int_eq(guarded_read(&g, host, &changed, why, sizeof why), 0);
    ck_assert_int_eq(changed, 0);
    ck_assert_int_eq(host[0], GPU_POISON_BYTE); /* poisoned, never written */
    for (int i = 0; i < BYTES; i++)
        want[i] = (unsigned char)(i * 7);
    ck_assert_int_eq(dev_copy(g.data, want, BYTES, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(guarded_read(&g, host, &changed, why, sizeof why), 0);
    ck_assert_int_eq(changed, 0);
    ck_assert_mem_eq(host, want, BYTES);
    /* one byte before the output, two after its end */
    ck_assert_int_eq(dev_memset(g.base + g.guard_bytes - 1, 0, 1), cudaSuccess);
    ck_assert_int_eq(dev_memset(g.base + g.guard_bytes + BYTES, 0, 2), cudaSuccess);
    ck_assert_int_eq(guarded_read(&g, host, &changed, why, sizeof why), 0);
    ck_assert_int_eq(changed, 3);
    ck_assert_mem_eq(host, want, BYTES);
    guarded_free(&g);
    device_use(was);
}
END_TEST

/*
 * Every array between two guard zones of DEV_GUARD_BYTES filled with DEV_GUARD_BYTE,
 * no other array adjacent: the name a launch gives it, the array that holds an
 * address of its zones, the zones the trace is handed; all gone with dev_free.
 */
START_TEST(arrays_between_guard_zones)
{
    const device_ops *was = device_current();
    device_use(&device_emulator);
    unsigned char *in = NULL, *out = NULL, zone[16];
    dev_array a;
    unsigned long long lo[8], hi[8];
    ck_assert_int_eq(dev_malloc((void **)&in, 4), cudaSuccess);
    ck_assert_int_eq(dev_malloc((void **)&out, 100), cudaSuccess);
    ck_assert_int_eq(dev_copy(zone, in + 4, sizeof zone, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < sizeof zone; i++)
        ck_assert_uint_eq(zone[i], DEV_GUARD_BYTE);
    ck_assert_int_eq(dev_copy(zone, in - sizeof zone, sizeof zone, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    ck_assert_uint_eq(zone[sizeof zone - 1], DEV_GUARD_BYTE);
    unsigned long long b = (unsigned long long)(uintptr_t)in;
    ck_assert(out > in + 4 + DEV_GUARD_BYTES || out + 100 + DEV_GUARD_BYTES < in);

    dev_name(in + 2, "in");
    ck_assert_int_eq(dev_array_at(b + 512, &a), 1); /* 512 bytes past: its zone */
    ck_assert_uint_eq(a.base, b);
    ck_assert_uint_eq(a.bytes, 4);
    ck_assert_str_eq(a.name, "in");
    ck_assert_int_eq(dev_array_at(b - 1, &a), 1);
    ck_assert_int_eq(dev_array_at(b + 4 + DEV_GUARD_BYTES, &a), 0); /* past the zone */

    int n = dev_guard_zones(lo, hi, 8), mine = 0;
    ck_assert_int_ge(n, 4);
    for (int i = 0; i < n; i++) {
        mine += lo[i] == b - DEV_GUARD_BYTES && hi[i] == b;
        mine += lo[i] == b + 4 && hi[i] == b + 4 + DEV_GUARD_BYTES;
    }
    ck_assert_int_eq(mine, 2);
    ck_assert_int_eq(dev_guard_zones(lo, hi, 1), 0); /* room for no array's two */

    dev_free(in);
    ck_assert_int_eq(dev_array_at(b + 512, &a), 0);
    dev_free(out);
    device_use(was);
}
END_TEST

/*
 * The trace's patches find an access into a zone by its address alone: the driver
 * names the array from the device while it lives (worker_judge_oob), in the words the
 * emulator's would have.
 */
START_TEST(trace_address_named_by_the_device)
{
    const device_ops *was = device_current();
    device_use(&device_emulator);
    unsigned char *in = NULL;
    problem *p = calloc(1, sizeof *p);
    trace_summary s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(dev_malloc((void **)&in, 4), cudaSuccess);
    dev_name(in, "in");
    check_init(&p->c[CHK_CORRECT], "lab7", "reduceGmem", "correct", 3);
    worker_judge_oob(p, &s); /* none found: nothing said */
    ck_assert_int_eq(p->c[CHK_CORRECT].status, CHECK_FAIL);
    ck_assert_str_eq(p->c[CHK_CORRECT].message, "");
    s.oob_count = 3;
    s.oob = (trace_oob){.pc = 0x40, .file = "lab7.cu", .line = 59, .op = TRACE_OP_LOAD,
                        .addr = (uint64_t)(uintptr_t)in + 512, .width = 4};
    worker_judge_oob(p, &s);
    ck_assert_str_eq(p->c[CHK_CORRECT].message, "out of bounds: lab7.cu:59: a load by lane 0 "
                                                "of warp 0 of block 0 reaches bytes 512 to 515 of in (an "
                                                "argument of 4 bytes), 512 bytes past its end");
    ck_assert(p->oob_failed);
    s.oob.addr = (uint64_t)(uintptr_t)in + 4, s.oob.line = 60; /* a later one: the first stands */
    worker_judge_oob(p, &s);
    ck_assert_int_eq(p->c[CHK_CORRECT].lines[0].line, 59);
    dev_free(in);
    free(p);
    device_use(was);
}
END_TEST

/* dev_keep: every array and its guard zones put back as they were, as often as asked. */
START_TEST(kept_arrays_put_back)
{
    const device_ops *was = device_current();
    device_use(&device_emulator);
    unsigned char *in = NULL, *out = NULL, got[8];
    const unsigned char want[8] = {1, 2, 3, 4, 5, 6, 7, 8}, other[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    ck_assert_int_eq(dev_malloc((void **)&in, 8), cudaSuccess);
    ck_assert_int_eq(dev_malloc((void **)&out, 8), cudaSuccess);
    ck_assert_int_eq(dev_copy(in, want, 8, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(dev_memset(out, 0, 8), cudaSuccess);
    ck_assert_int_eq(dev_keep(), cudaSuccess);
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(dev_copy(in, other, 8, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(dev_copy(out, other, 8, cudaMemcpyHostToDevice), cudaSuccess);
        ck_assert_int_eq(dev_memset(in + 8, 0, 1), cudaSuccess); /* its guard zone */
        ck_assert_int_eq(dev_restore(), cudaSuccess);
        ck_assert_int_eq(dev_copy(got, in, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        ck_assert_mem_eq(got, want, 8);
        ck_assert_int_eq(dev_copy(got, out, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int i = 0; i < 8; i++)
            ck_assert_uint_eq(got[i], 0);
        ck_assert_int_eq(dev_copy(got, in + 8, 1, cudaMemcpyDeviceToHost), cudaSuccess);
        ck_assert_uint_eq(got[0], DEV_GUARD_BYTE);
    }
    dev_forget();
    ck_assert_int_eq(dev_copy(in, other, 8, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(dev_restore(), cudaSuccess); /* nothing kept: nothing put back */
    ck_assert_int_eq(dev_copy(got, in, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_mem_eq(got, other, 8);
    dev_free(in);
    dev_free(out);
    device_use(was);
}
END_TEST

/* A stand-in for the counters: measure() launches twice; each launch adds one to in[0]
   and stores what it found there in out[0] (a kernel that writes into its input). */
typedef struct twice_state {
    unsigned char *in, *out;
    unsigned char seen[2];
    int n;
} twice_state;

static void add_into_input(void *arg)
{
    twice_state *t = arg;
    unsigned char v;
    dev_copy(&v, t->in, 1, cudaMemcpyDeviceToHost);
    if (t->n < 2)
        t->seen[t->n] = v;
    t->n++;
    dev_copy(t->out, &v, 1, cudaMemcpyHostToDevice);
    v++;
    dev_copy(t->in, &v, 1, cudaMemcpyHostToDevice);
}

static measure_status launch_twice(measure_backend *self, void (*launch)(void *), void *arg,
                                   measurement *out, char *why, size_t why_size)
{
    (void)self, (void)out, (void)why, (void)why_size;
    launch(arg);
    launch(arg);
    return MEASURE_OK;
}

/* meter_measure: the second of a meter's two launches finds the bytes the first found,
   and the arrays end as the first left them; a meter that launches once is left alone. */
START_TEST(second_launch_finds_the_first_bytes)
{
    const device_ops *was = device_current();
    device_use(&device_emulator);
    twice_state t = {0};
    unsigned char v = 7, got;
    measurement m;
    char why[128] = "";
    ck_assert_int_eq(dev_malloc((void **)&t.in, 1), cudaSuccess);
    ck_assert_int_eq(dev_malloc((void **)&t.out, 1), cudaSuccess);
    ck_assert_int_eq(dev_copy(t.in, &v, 1, cudaMemcpyHostToDevice), cudaSuccess);
    measure_backend twice = {.name = "twice", .measure = launch_twice, .relaunches = 1};
    ck_assert_int_eq(meter_measure(&twice, add_into_input, &t, &m, why, sizeof why), MEASURE_OK);
    ck_assert_int_eq(t.n, 2);
    ck_assert_uint_eq(t.seen[0], 7);
    ck_assert_uint_eq(t.seen[1], 7);
    ck_assert_int_eq(dev_copy(&got, t.in, 1, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_uint_eq(got, 8); /* as one launch leaves it */
    twice.relaunches = 0; /* a meter that says nothing: each launch sees what the last left */
    t.n = 0;
    ck_assert_int_eq(meter_measure(&twice, add_into_input, &t, &m, why, sizeof why), MEASURE_OK);
    ck_assert_uint_eq(t.seen[0], 8);
    ck_assert_uint_eq(t.seen[1], 9);
    dev_free(t.in);
    dev_free(t.out);
    device_use(was);
}
END_TEST

Suite *guarded_suite(void)
{
    Suite *s = suite_create("guarded");
    TCase *tc = tcase_create("buffers");
    tcase_add_test(tc, inside_whole_outside_counted);
    tcase_add_test(tc, arrays_between_guard_zones);
    tcase_add_test(tc, trace_address_named_by_the_device);
    tcase_add_test(tc, kept_arrays_put_back);
    tcase_add_test(tc, second_launch_finds_the_first_bytes);
    suite_add_tcase(s, tc);
    return s;
}
