/*
 * trace_patches.cu - the device side of the trace backend: functions the
 * Compute Sanitizer calls before every shared-memory access, barrier and
 * global access of a patched kernel (see measure_trace.c).
 *
 * Built with `nvcc --fatbin --compile-as-tools-patch` (Makefile: trace
 * backend) into smemlab-trace-patches.fatbin, which measure_trace.c loads
 * with sanitizerAddPatchesFromFile.
 *
 * Aggregation happens here, on the GPU: the lanes of a warp that execute one
 * instruction together (__match_any_sync on the PC) take ONE record; its
 * leader reserves the slot and fills the common fields, every lane writes its
 * own address. A 32x32 block's tile store is 32 records, not 1024.
 */
#include <sanitizer_patching.h>

#include <type_traits>

#include "../access/trace_record.h"

static __device__ __forceinline__ uint32_t lane_id()
{
    uint32_t lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

static __device__ __forceinline__ uint32_t linear_block()
{
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

static __device__ __forceinline__ uint32_t warp_in_block()
{
    uint32_t t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return t / 32u;
}

/* Whether this block is traced (labs 5 and 6 sample blocks to stay fast). */
static __device__ __forceinline__ bool traced(const trace_buffer *b, uint32_t block)
{
    if (!b)
        return false;
    if (b->max_block && block >= b->max_block)
        return false;
    return b->sample <= 1 || block % b->sample == 0;
}

/* A slot for one record of the lanes `together` (their leader reserves it); capacity or
   more when the buffer is full (the host sees count > capacity). */
static __device__ __forceinline__ uint32_t reserve(trace_buffer *b, uint32_t together)
{
    uint32_t leader = __ffs(together) - 1, slot = 0;
    if (lane_id() == leader)
        slot = atomicAdd(&b->count, 1u);
    return __shfl_sync(together, slot, leader);
}

static __device__ __forceinline__ void fill(trace_record *r, uint64_t pc, uint32_t block,
                                            uint32_t active, uint32_t width, uint32_t flags)
{
    r->pc = pc;
    r->block = block;
    r->warp = warp_in_block();
    r->active = active;
    r->width = (uint8_t)width;
    r->lines = 0;
    r->flags = (uint16_t)flags;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
smemlab_shared_access(void *userdata, uint64_t pc, void *ptr, uint32_t accessSize,
                      uint32_t flags, const void *newValue)
{
    (void)newValue;
    trace_buffer *b = (trace_buffer *)userdata;
    uint32_t block = linear_block();
    if (!traced(b, block))
        return SANITIZER_PATCH_SUCCESS;
    if ((uint32_t)(uintptr_t)ptr < b->toolkit_bytes) { /* the toolkit's bytes, not the kernel's: */
        atomicAdd(&b->toolkit_accesses, 1ull);       /* counted, as they may order its warps */
        return SANITIZER_PATCH_SUCCESS;
    }
    uint32_t together = __match_any_sync(__activemask(), pc);
    uint32_t lane = lane_id(), slot = reserve(b, together);
    if (slot >= b->capacity)
        return SANITIZER_PATCH_SUCCESS; /* full: the host sees count > capacity */
    trace_record *r = &b->records[slot];
    r->addr[lane] = (uint32_t)(uintptr_t)ptr; /* an offset in the shared window */
    if (lane == (uint32_t)(__ffs(together) - 1)) /* the host subtracts the function's first PC */
        fill(r, pc, block, together, accessSize, flags & (TRACE_READ | TRACE_WRITE));
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult
smemlab_barrier(void *userdata, uint64_t pc, uint32_t barIndex, uint32_t threadCount,
                uint32_t flags)
{
    (void)barIndex, (void)flags;
    trace_buffer *b = (trace_buffer *)userdata;
    uint32_t block = linear_block();
    if (!traced(b, block))
        return SANITIZER_PATCH_SUCCESS;
    /* Only a barrier the whole block waits at orders one warp's access before
       another's: a partial one (bar.sync 1, 32; __syncwarp) is no barrier to
       the race check, so the accesses around it still race. */
    uint32_t block_threads = blockDim.x * blockDim.y * blockDim.z;
    if (threadCount != 0 && threadCount < block_threads)
        return SANITIZER_PATCH_SUCCESS;
    uint32_t together = __activemask();
    if (lane_id() != (uint32_t)(__ffs(together) - 1))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t slot = atomicAdd(&b->count, 1u);
    if (slot >= b->capacity)
        return SANITIZER_PATCH_SUCCESS;
    fill(&b->records[slot], pc, block, together, 0, TRACE_BARRIER);
    return SANITIZER_PATCH_SUCCESS;
}

/* The sectors of one warp's global access and their ideal, as model/sector.c counts them:
 * distinct 32-byte sectors of the lanes' bytes (at most 16 aligned bytes a lane: one
 * sector each), and ceil(lanes * width / 32). Every lane of `together` calls it. */
static __device__ __forceinline__ void count_sectors(trace_buffer *b, uint32_t together,
                                                     const void *ptr, uint32_t width, int store)
{
    unsigned long long sector = (unsigned long long)(uintptr_t)ptr / 32u;
    uint32_t same = __match_any_sync(together, sector);
    uint32_t firsts = __ballot_sync(together, lane_id() == (uint32_t)(__ffs(same) - 1));
    if (lane_id() == (uint32_t)(__ffs(together) - 1)) {
        atomicAdd(&b->sectors[store], (unsigned long long)__popc(firsts));
        atomicAdd(&b->ideal[store], (unsigned long long)((__popc(together) * width + 31u) / 32u));
    }
}

/* Whether [a, a + size) reaches into a guard zone of b (trace_record.h): the first such
   access is kept, every lane counted. Every block, before sampling: an access out of
   bounds anywhere fails the kernel (compare/bounds.h). */
static __device__ __forceinline__ void guard_zones(trace_buffer *b, uint64_t pc, const void *ptr,
                                                   uint32_t size, uint32_t flags)
{
    unsigned long long a = (unsigned long long)(uintptr_t)ptr;
    uint32_t n = b->n_zones < TRACE_ZONES ? b->n_zones : TRACE_ZONES;
    for (uint32_t z = 0; z < n; z++) {
        if (a >= b->zone_hi[z] || a + size <= b->zone_lo[z])
            continue;
        if (atomicAdd(&b->oob_hits, 1ull) == 0) {
            b->oob.pc = pc;
            b->oob.addr = a;
            b->oob.block = linear_block();
            b->oob.warp = warp_in_block();
            b->oob.lane = lane_id();
            b->oob.width = size;
            b->oob.flags = flags & (TRACE_READ | TRACE_WRITE);
        }
        return;
    }
}

/* Whether a store or an atomic [a, a + size) reaches into an input of b (trace_record.h):
   the first such access is kept, every lane counted. Every block, before sampling: a
   write into an input anywhere fails the kernel (compare/inputs.h). */
static __device__ __forceinline__ void input_writes(trace_buffer *b, uint64_t pc, const void *ptr,
                                                    uint32_t size, uint32_t flags)
{
    unsigned long long a = (unsigned long long)(uintptr_t)ptr;
    uint32_t n = b->n_inputs < TRACE_INPUTS ? b->n_inputs : TRACE_INPUTS;
    for (uint32_t i = 0; i < n; i++) {
        if (a >= b->input_hi[i] || a + size <= b->input_lo[i])
            continue;
        if (atomicAdd(&b->input_hits, 1ull) == 0) {
            b->input.pc = pc;
            b->input.addr = a;
            b->input.block = linear_block();
            b->input.warp = warp_in_block();
            b->input.lane = lane_id();
            b->input.width = size;
            b->input.flags = flags & (TRACE_READ | TRACE_WRITE);
        }
        return;
    }
}

/* Global loads, stores and atomics: counted (labs 5 to 8 check how many warp-level
 * instructions reach global memory, one count per warp and instruction; an atomic, READ
 * and WRITE together, is a side of its own, as Nsight Compute counts it), the sectors of
 * loads and stores counted (coalescing, lab 9), and those of the first
 * TRACE_GLOBAL_BLOCKS blocks recorded address by address (lab 6: does a block read an
 * input element twice? lab 9: which line is not coalesced? labs 7, 8: which line writes
 * global memory?). */
extern "C" __device__ __noinline__ SanitizerPatchResult
smemlab_global_access(void *userdata, uint64_t pc, void *ptr, uint32_t accessSize,
                      uint32_t flags, const void *newValue)
{
    (void)newValue;
    trace_buffer *b = (trace_buffer *)userdata;
    uint32_t block = linear_block();
    if (b && b->n_zones)
        guard_zones(b, pc, ptr, accessSize, flags);
    if (b && b->n_inputs && (flags & TRACE_WRITE)) /* a store, or an atomic (both flags) */
        input_writes(b, pc, ptr, accessSize, flags);
    if (!traced(b, block))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t together = __match_any_sync(__activemask(), pc);
    uint32_t lane = lane_id(), leader = __ffs(together) - 1;
    uint32_t kind = flags & (TRACE_READ | TRACE_WRITE);
    if (!kind) /* neither (a prefetch): a load, as before stores were told apart */
        kind = TRACE_READ;
    int store = kind == TRACE_WRITE, atomic = kind == (TRACE_READ | TRACE_WRITE);
    if (lane == leader)
        atomicAdd(atomic ? &b->global_atomics : store ? &b->global_stores : &b->global_loads,
                  1ull);
    if (!atomic)
        count_sectors(b, together, ptr, accessSize, store);
    if (block >= TRACE_GLOBAL_BLOCKS)
        return SANITIZER_PATCH_SUCCESS;
    uint32_t slot = reserve(b, together);
    if (slot >= b->capacity)
        return SANITIZER_PATCH_SUCCESS;
    trace_record *r = &b->records[slot];
    r->addr[lane] = (uint32_t)(uintptr_t)ptr; /* the low half: elements of one buffer differ there */
    if (lane == leader)
        fill(r, pc, block, together, accessSize, kind | TRACE_GLOBAL);
    return SANITIZER_PATCH_SUCCESS;
}

/* __syncwarp(): a record of its own, which orders the accesses of the warp's lanes
 * (an unrolled last warp of a reduction without it races; labs 7 and 8). */
extern "C" __device__ __noinline__ SanitizerPatchResult
smemlab_syncwarp(void *userdata, uint64_t pc, uint32_t mask)
{
    (void)mask;
    trace_buffer *b = (trace_buffer *)userdata;
    uint32_t block = linear_block();
    if (!traced(b, block))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t together = __match_any_sync(__activemask(), pc);
    if (lane_id() != (uint32_t)(__ffs(together) - 1))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t slot = atomicAdd(&b->count, 1u);
    if (slot >= b->capacity)
        return SANITIZER_PATCH_SUCCESS;
    fill(&b->records[slot], pc, block, together, 0, TRACE_SYNCWARP);
    return SANITIZER_PATCH_SUCCESS;
}

/* Shuffles: counted, one a warp and instruction (lab 8: the reduction shuffles). */
extern "C" __device__ __noinline__ SanitizerPatchResult smemlab_shfl(void *userdata, uint64_t pc)
{
    trace_buffer *b = (trace_buffer *)userdata;
    if (!traced(b, linear_block()))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t together = __match_any_sync(__activemask(), pc);
    if (lane_id() == (uint32_t)(__ffs(together) - 1))
        atomicAdd(&b->shuffles, 1ull);
    return SANITIZER_PATCH_SUCCESS;
}

/* cp.async (LDGSTS): a global load request, and a store into shared memory whose bytes
   land later; both recorded at the instruction, as Nsight Compute counts them. */
extern "C" __device__ __noinline__ SanitizerPatchResult
smemlab_memcpy_async(void *userdata, uint64_t pc, void *src, uint32_t dst, uint32_t accessSize)
{
    trace_buffer *b = (trace_buffer *)userdata;
    uint32_t block = linear_block();
    if (b && b->n_zones && src)
        guard_zones(b, pc, src, accessSize, TRACE_READ);
    if (!traced(b, block))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t together = __match_any_sync(__activemask(), pc);
    uint32_t lane = lane_id(), leader = __ffs(together) - 1;
    if (lane == leader)
        atomicAdd(&b->global_loads, 1ull);
    /* how the source lies (model/bank.h): its 128-byte lines, and whether the lanes'
       shared and global layouts differ */
    uint32_t reading = __ballot_sync(together, src != NULL); /* src-size 0: nothing read */
    uint64_t line = (uint64_t)(uintptr_t)src >> 7;
    uint32_t same_line = __match_any_sync(together, src ? line : ~0ull);
    uint32_t first_of_line = __ballot_sync(together, src && lane == (uint32_t)(__ffs(same_line) - 1));
    uint32_t delta = dst - (uint32_t)(uintptr_t)src;
    uint32_t same_delta = __match_any_sync(together, src ? delta : 0u);
    uint32_t skewed = __ballot_sync(together, src && (same_delta & reading) != reading);
    uint32_t slot = reserve(b, together);
    if (slot < b->capacity) {
        trace_record *r = &b->records[slot];
        r->addr[lane] = dst;
        if (lane == leader) {
            fill(r, pc, block, together, accessSize,
                 TRACE_WRITE | TRACE_ASYNC | (skewed ? TRACE_ASYNC_SKEW : 0));
            r->lines = (uint8_t)__popc(first_of_line);
        }
    }
    if (block >= TRACE_GLOBAL_BLOCKS)
        return SANITIZER_PATCH_SUCCESS;
    slot = reserve(b, together);
    if (slot < b->capacity) {
        trace_record *r = &b->records[slot];
        r->addr[lane] = (uint32_t)(uintptr_t)src;
        if (lane == leader)
            fill(r, pc, block, reading, accessSize, TRACE_READ | TRACE_GLOBAL | TRACE_ASYNC);
    }
    return SANITIZER_PATCH_SUCCESS;
}

/* ldmatrix / stmatrix (LDSM, STSM): lanes 8k .. 8k + 7 give the rows of matrix k, 16
   bytes each; the other lanes' addresses are not used. */
extern "C" __device__ __noinline__ SanitizerPatchResult
smemlab_matrix_access(void *userdata, uint64_t pc, uint32_t address, uint32_t accessSize,
                      uint32_t flags, uint32_t count, const void *pNewValue)
{
    (void)pNewValue;
    trace_buffer *b = (trace_buffer *)userdata;
    uint32_t block = linear_block();
    if (!traced(b, block))
        return SANITIZER_PATCH_SUCCESS;
    uint32_t together = __match_any_sync(__activemask(), pc);
    uint32_t rows = count >= 4 ? 0xffffffffu : (1u << (8 * count)) - 1;
    uint32_t slot = reserve(b, together), lane = lane_id();
    if (slot >= b->capacity)
        return SANITIZER_PATCH_SUCCESS;
    trace_record *r = &b->records[slot];
    r->addr[lane] = address;
    if (lane == (uint32_t)(__ffs(together) - 1))
        fill(r, pc, block, together & rows, accessSize,
             (flags & (TRACE_READ | TRACE_WRITE)) | TRACE_MATRIX);
    return SANITIZER_PATCH_SUCCESS;
}

/* The header's callback types: a changed signature in a newer toolkit stops
 * the build here instead of corrupting the trace. */
static_assert(std::is_same<decltype(&smemlab_shared_access), SanitizerCallbackMemoryAccess>::value,
              "smemlab_shared_access does not match SanitizerCallbackMemoryAccess");
static_assert(std::is_same<decltype(&smemlab_global_access), SanitizerCallbackMemoryAccess>::value,
              "smemlab_global_access does not match SanitizerCallbackMemoryAccess");
static_assert(std::is_same<decltype(&smemlab_barrier), SanitizerCallbackBarrier>::value,
              "smemlab_barrier does not match SanitizerCallbackBarrier");
static_assert(std::is_same<decltype(&smemlab_syncwarp), SanitizerCallbackSyncwarp>::value,
              "smemlab_syncwarp does not match SanitizerCallbackSyncwarp");
static_assert(std::is_same<decltype(&smemlab_shfl), SanitizerCallbackShfl>::value,
              "smemlab_shfl does not match SanitizerCallbackShfl");
static_assert(std::is_same<decltype(&smemlab_memcpy_async), SanitizerCallbackMemcpyAsync>::value,
              "smemlab_memcpy_async does not match SanitizerCallbackMemcpyAsync");
static_assert(std::is_same<decltype(&smemlab_matrix_access),
                           SanitizerCallbackMatrixMemoryAccess>::value,
              "smemlab_matrix_access does not match SanitizerCallbackMatrixMemoryAccess");
