/*
 * builtins.cu - built-ins as nvcc writes them in PTX, for the emulator's
 * test_builtins (test_emu_simt.c). A file of its own: tests/sass/listings has
 * no listing of it (control.cu's functions are compared with theirs).
 */
/* The built-ins nvcc names in PTX: warpSize (WARP_SZ), and special registers read as 0
   here (performance monitors, the driver's environment registers, the graph a launch
   belongs to); the reserved shared region's offsets have a kernel of their own
   (reserved_ops.cu). */
extern "C" __global__ void builtins(unsigned *out)
{
    unsigned t = threadIdx.x, pm, pm64, env;
    unsigned long long graph;
    asm volatile("mov.u32 %0, %%pm3;" : "=r"(pm));
    asm volatile("{ .reg .u64 x; mov.u64 x, %%pm7_64; cvt.u32.u64 %0, x; }" : "=r"(pm64));
    asm volatile("mov.u32 %0, %%envreg31;" : "=r"(env));
    asm volatile("mov.u64 %0, %%current_graph_exec;" : "=l"(graph));
    out[t * 4 + 0] = warpSize;
    out[t * 4 + 1] = t % warpSize + 100 * (t / warpSize);
    out[t * 4 + 2] = pm | pm64 | env | (unsigned)graph;
    out[t * 4 + 3] = blockDim.x / warpSize;
}
