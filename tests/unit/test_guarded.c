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

Suite *guarded_suite(void)
{
    Suite *s = suite_create("guarded");
    TCase *tc = tcase_create("buffers");
    tcase_add_test(tc, inside_whole_outside_counted);
    tcase_add_test(tc, arrays_between_guard_zones);
    tcase_add_test(tc, trace_address_named_by_the_device);
    suite_add_tcase(s, tc);
    return s;
}
