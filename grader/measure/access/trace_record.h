/*
 * trace_record.h - one warp-level shared-memory event, as the trace capture
 * writes it on the GPU and the analysis reads it on the host.
 *
 * Plain C with fixed-width fields only: the same header is included by the
 * patch functions (grader/measure/trace/trace_patches.cu, compiled by nvcc) and by
 * the host analysis (grader/measure/access/trace.c, compiled by the C compiler), so the
 * layout is one and the same on both sides.
 *
 * The capture aggregates on the GPU: the lanes of a warp that execute one
 * shared-memory instruction together write ONE record (active mask plus 32
 * addresses), not 32 per-thread records. A barrier executed by a warp is one
 * record with TRACE_BARRIER set; a global load of one of the first blocks one
 * with TRACE_GLOBAL.
 */
#ifndef SMEMLAB_TRACE_RECORD_H
#define SMEMLAB_TRACE_RECORD_H

#include <stdint.h>

#define TRACE_LANES 32

/* trace_record.flags */
#define TRACE_READ 0x1u    /* a load (READ and WRITE together: an atomic) */
#define TRACE_WRITE 0x2u   /* a store */
#define TRACE_BARRIER 0x4u /* a block-wide barrier (__syncthreads); no address */
#define TRACE_GLOBAL 0x8u  /* with TRACE_READ or TRACE_WRITE (both: an atomic): a global
                              load, store or atomic of one of the first
                              TRACE_GLOBAL_BLOCKS blocks; addr[] holds the low 32 bits
                              of each lane's address */
#define TRACE_ASYNC 0x10u  /* cp.async (LDGSTS): with TRACE_WRITE its shared side,
                              with TRACE_READ | TRACE_GLOBAL its global side */
#define TRACE_MATRIX 0x20u /* ldmatrix / stmatrix (LDSM, STSM): addr[] holds the row
                              address each lane gave, width 16 */
#define TRACE_ATOM_EXCH 0x40u  /* an atomic exch, inc or dec: lanes on one word are served
                                  one by one */
#define TRACE_ATOM_CAS 0x80u   /* an atomic cas, or a compare-and-swap loop's */
#define TRACE_ASYNC_SKEW 0x100u /* cp.async whose lanes' shared and global layouts differ
                                   (the shared offset minus the source is not one value) */
#define TRACE_SYNCWARP 0x200u  /* __syncwarp (bar.warp.sync, WARPSYNC); no address: it
                                  orders the accesses of the warp's lanes (labs 7, 8) */
#define TRACE_SHFL 0x400u      /* a shuffle (shfl.sync), from the emulator to its meter,
                                  which counts it; no address, never analysed */
#define TRACE_ACQUIRE 0x2000u  /* an access that acquires (ld.acquire, atom.acq_rel) or */
#define TRACE_RELEASE 0x4000u  /* releases (st/red.release, atom.acq_rel) the shared words
                                  addr[]: it orders warps (sync_order.h). From the emulator
                                  alone: with READ or WRITE a kernel's access; without them
                                  the toolkit's word in the reserved shared memory
                                  (cooperative groups' multi-warp barrier), no access of
                                  the kernel's */

/* The launch of the measurement a record came from (0 first), in its block's high byte:
   the trace's capture and the emulator's meter mark it so, as grids have fewer than 2^24
   blocks (plan.c). Launches never race with each other, and each is held to its own
   shared memory (trace_summary.launch_extent). */
#define TRACE_LAUNCH_SHIFT 24

/* Blocks whose global loads, stores and atomics are recorded, address by address (the
   halo check, coalescing per line, the lines of global-traffic). */
#define TRACE_GLOBAL_BLOCKS 16

/* Guard zones a launch's global accesses are held to (run/device.h: two an array the
   grader gave the kernel), every block's, lane by lane. */
#define TRACE_ZONES 32

/* Inputs a launch's global stores and atomics are held to (measure.h: measure_inputs),
   every block's, lane by lane. */
#define TRACE_INPUTS 4

/* The first global access into a guard zone, or write into an input: where, and which
   lane (trace_oob.h). */
typedef struct trace_oob_hit {
    unsigned long long pc, addr;
    uint32_t block, warp, lane, width, flags; /* flags: TRACE_READ, TRACE_WRITE */
    uint32_t reserved;
} trace_oob_hit;

typedef struct trace_record {
    uint64_t pc;     /* the instruction's PC; the host makes it an offset from the
                        function's first byte before analysis */
    uint32_t block;  /* linear block index in the grid */
    uint32_t warp;   /* warp of the block (linear thread index / 32) */
    uint32_t active; /* bit i: lane i executed the instruction */
    uint8_t width;   /* bytes each lane accesses: 1, 2, 4, 8 or 16 */
    uint8_t lines;   /* the shared side of cp.async: 128-byte lines its source touched */
    uint16_t flags;  /* TRACE_* */
    uint32_t addr[TRACE_LANES]; /* offset in the shared window, per active lane */
} trace_record;

/*
 * What the patch functions get as userdata: a buffer in device memory that
 * the capture allocates and reads back after each launch.
 */
typedef struct trace_buffer {
    uint32_t count;     /* records written (may exceed capacity: then some were dropped) */
    uint32_t capacity;  /* records the buffer holds */
    uint32_t sample;    /* record only blocks whose index % sample == 0 (1: all) */
    uint32_t max_block; /* record only blocks below this index (0: no limit) */
    uint32_t toolkit_bytes; /* shared offsets below this are the driver's reserved bytes,
                               the toolkit's (cooperative groups' multi-warp barrier, its
                               waits spinning on a load): never recorded (0: none) */
    unsigned long long global_loads; /* warp-level global load instructions (traced blocks) */
    unsigned long long global_stores; /* warp-level global store instructions (traced blocks) */
    unsigned long long global_atomics; /* ... global atomics and reductions (traced blocks) */
    unsigned long long shuffles;      /* warp-level shfl.sync instructions (traced blocks) */
    unsigned long long toolkit_accesses; /* lanes' accesses to the toolkit's bytes (traced
                                            blocks): warps ordered where the trace cannot see */
    /* 32-byte sectors of the global loads [0] and stores [1], and their ideal
       (model/sector.h, counted on the GPU lane by lane; traced blocks) */
    unsigned long long sectors[2], ideal[2];
    /* the guard zones [zone_lo[i], zone_hi[i]) (the host's), and what the patches found
       there: lanes that reached one (every block, sampled or not), the first */
    unsigned long long zone_lo[TRACE_ZONES], zone_hi[TRACE_ZONES];
    uint32_t n_zones, oob_reserved;
    unsigned long long oob_hits;
    trace_oob_hit oob;
    /* the inputs [input_lo[i], input_hi[i]) (the host's: arrays the kernel must only
       read), and what the patches found there: lanes that stored or made an atomic into
       one (every block, sampled or not), the first */
    unsigned long long input_lo[TRACE_INPUTS], input_hi[TRACE_INPUTS];
    uint32_t n_inputs, input_reserved;
    unsigned long long input_hits;
    trace_oob_hit input;
    trace_record *records;
} trace_buffer;

#endif /* SMEMLAB_TRACE_RECORD_H */
