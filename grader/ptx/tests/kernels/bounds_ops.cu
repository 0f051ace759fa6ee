/*
 * bounds_ops.cu - a kernel for the guard zones' test (test_emu_mem.c,
 * test_guard_zones), in a file of its own: mem_ops.cu's functions are held to
 * tests/sass/listings, which has no listing of it.
 */

/* Lane t reads p[t + n] into out[t]: past p's array for n > 0, before it for n < 0. */
extern "C" __global__ void oob_read(const int *p, int n, int *out)
{
    out[threadIdx.x] = p[(int)threadIdx.x + n];
}
