/*
 * reserved_ops.cu - the block's reserved shared region, and what lies past the
 * block's own bytes (test_emu_mem.c):
 * %reserved_smem_offset_* read and written by hand, and cooperative groups'
 * multi-warp tiles, whose barrier word and partial sums lie there on sm_80
 * and later (docs/emulator.md#reserved).
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

/* The region's offsets; what its first word held at the block's start; a word written by
   warp 0 through %reserved_smem_offset_1 and read by warp 1 after a barrier; and the
   kernel's own array, which keeps its offsets beside it. */
extern "C" __global__ void reserved_regs(unsigned *out, unsigned *seen)
{
    __shared__ unsigned mine[64];
    unsigned begin, end, cap, r0, r1, first = 0;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(end));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(r0));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(r1));
    unsigned t = threadIdx.x;
    if (t == 0)
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(first) : "r"(r1));
    __syncthreads();
    if (t == 0)
        asm volatile("st.shared.u32 [%0+4], %1;" ::"r"(r1), "r"(0x600dcafeu) : "memory");
    mine[t] = t;
    __syncthreads();
    if (t == 32) {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1+4];" : "=r"(v) : "r"(r1));
        seen[0] = v;
    }
    if (t == 0) {
        out[0] = begin, out[1] = end, out[2] = cap, out[3] = r0, out[4] = r1;
        out[5] = first;
    }
    seen[1 + t] = mine[63 - t];
}

/* A tile of two warps (tiled_partition<64>): each thread writes its slot, tile.sync()
   (cooperative groups' barrier in the reserved region), then reads the slot 32 ranks
   away, in the tile's other warp; and cg::reduce of the tile. */
extern "C" __global__ void cg_tile64(const int *in, int *out, int *sums)
{
    __shared__ int slot[256];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    unsigned t = threadIdx.x, base = t - tile.thread_rank();
    slot[t] = in[blockIdx.x * blockDim.x + t];
    tile.sync();
    out[blockIdx.x * blockDim.x + t] = slot[base + (tile.thread_rank() + 32) % 64];
    int sum = cg::reduce(tile, slot[t], cg::plus<int>());
    if (tile.thread_rank() == 0)
        sums[blockIdx.x * (blockDim.x / 64) + t / 64] = sum;
}

/* A store past the block's shared bytes (s has 32 words; k = 40 reaches past them), then a
   wait on a word no thread ever sets: the launch times out, and says where it overran. */
extern "C" __global__ void past_then_spin(int *out, int k)
{
    __shared__ volatile int s[32];
    s[threadIdx.x % 32] = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        s[k] = 1;
        while (s[0] == 0)
            ;
    }
    out[threadIdx.x] = s[threadIdx.x % 32];
}
