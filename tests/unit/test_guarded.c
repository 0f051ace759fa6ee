/* test_guarded.c - guarded output buffers (run/gpu.h) on the emulated device:
   what a kernel writes inside comes back whole, a byte outside is counted. */
#include <check.h>
#include <string.h>

#include "measure/emulator/emu_device.h"
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

Suite *guarded_suite(void)
{
    Suite *s = suite_create("guarded");
    TCase *tc = tcase_create("buffers");
    tcase_add_test(tc, inside_whole_outside_counted);
    suite_add_tcase(s, tc);
    return s;
}
