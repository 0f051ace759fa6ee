/*
 * trace.h - from a shared-memory access trace to what the counters report,
 * per instruction and per source line, plus the races between warps.
 *
 * Input: warp-level records (trace_record.h), in the order the capture wrote
 * them. Within one warp that order is program order; across warps it is not
 * an order at all, and nothing here depends on it: the blocks checked for
 * races are the lowest ones, ties (the worst execution of a site, the
 * instruction that reached furthest) go to the lowest block, warp or PC.
 *
 * Output, per instruction (PC of the kernel): requests (warp-level
 * executions), wavefronts by the kit's bank model (grader/model/bank.c), the
 * ideal wavefronts for the width used (one per 128 bytes a warp touches) and
 * the worst execution, for the hint's bank map. Totals per side give the
 * numbers the counters report (smsp__inst_executed_op_shared_{ld,st},
 * l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}).
 *
 * Plain C, no CUDA: unit-tested from recorded traces in tests/traces/.
 */
#ifndef SMEMLAB_TRACE_H
#define SMEMLAB_TRACE_H

#include "../measure.h"
#include "../../model/bank.h"
#include "coalesce.h"
#include "trace_record.h"
#include "trace_oob.h"
#include "trace_race.h"
#include "trace_sync.h"

#include <stddef.h>
#include <stdio.h>

/* The race check of a whole trace (trace_analyze: the GPU's, whose blocks come in
   no order) looks at its lowest this many blocks; a stream (the emulator's, block
   after block) is checked on every block. */
#define TRACE_RACE_BLOCKS 16

/* Barrier instructions a summary keeps (to tell a race across loop passes). */
#define TRACE_BARRIER_SITES 32

typedef enum trace_op { TRACE_OP_LOAD, TRACE_OP_STORE, TRACE_OP_ATOMIC } trace_op;

/* One shared-memory instruction of the kernel (one PC). */
typedef struct trace_site {
    uint64_t pc;
    trace_op op;
    int width;            /* widest access seen at this PC */
    long requests;        /* warp-level executions */
    long wavefronts;
    long ideal;
    long worst_wavefronts;  /* of the single execution with the most wavefronts */
    warp_access worst;      /* that execution, for the bank map */
    uint32_t worst_block, worst_warp;
    const char *file;       /* source file (set by trace_attribute), or NULL */
    int line;
} trace_site;


/* The highest shared byte reached, and the instruction that reached it first. */
typedef struct trace_extent {
    uint32_t end;   /* one past the highest shared byte accessed (0: none) */
    uint64_t pc;    /* the lowest instruction that reached it */
    trace_op op;
} trace_extent;

/* Launches whose extent a summary keeps apart (the block's high byte, TRACE_LAUNCH_SHIFT):
   as many as the trace's capture follows; a later one's is in the whole's alone. */
#define TRACE_EXTENT_LAUNCHES 8

/* What one thread of the lowest block traced did: where its first shared load
   and store went, and how many of each it made (the tile-flow check). */
typedef struct trace_thread {
    uint32_t load_addr, store_addr;
    uint32_t loads, stores;
} trace_thread;

#define TRACE_FLOW_THREADS 1024

typedef struct trace_summary {
    trace_site *sites;   /* sorted by pc */
    int n_sites;
    trace_race *races;   /* one per pair of PCs, most words first: those between warps,
                            then those between the lanes of a warp (in_warp) */
    int n_races;
    long requests[3], wavefronts[3], ideal[3]; /* [0] loads, [1] stores, [2] atomics
                                                  (trace_op); ldmatrix is a load, stmatrix
                                                  and cp.async's shared side stores */
    long barriers;       /* warp-level barrier executions */
    uint64_t barrier_pc[TRACE_BARRIER_SITES]; /* the barrier instructions seen, in PC order */
    int n_barrier_pcs;
    int race_blocks;     /* blocks the race check looked at */
    long records;
    trace_extent extent;      /* of every record */
    trace_extent launch_extent[TRACE_EXTENT_LAUNCHES]; /* of each launch's records, so that
                                 each is held to its own shared memory (a launch given too
                                 few bytes beside one given enough) */
    uint32_t flow_block;      /* the block threads[] describes: the lowest one traced */
    trace_thread *threads;    /* TRACE_FLOW_THREADS of them (NULL: none) */
    /* Global loads of the first TRACE_GLOBAL_BLOCKS blocks, lane by lane: how
       many, and how many read an address their block had read already; a
       broadcast (every active lane, two or more, on one address) is neither. */
    long global_lanes, global_repeats;
    uint32_t repeat_block;    /* the lowest block that read an address twice */
    uint64_t repeat_pc;       /* a load that did, and its line (trace_attribute) */
    const char *repeat_file;
    int repeat_line;
    long repeat_count;        /* in that block */
    /* Global loads, stores and atomics of the first TRACE_GLOBAL_BLOCKS blocks, per
       instruction: requests, sectors, ideal, the worst warp (coalesce.h). */
    coalesce_sites global;
    /* Synchronisation errors (trace_sync.h), first met first; sync_count: how many
       times one was met in all. Only a backend that runs the PTX fills them. */
    trace_sync *sync;
    int n_sync;
    long sync_count;
    /* Global accesses out of bounds (trace_oob.h): how many lanes made one (0: none),
       and the first. The emulator's meter and the trace's patches fill them. */
    long oob_count;
    trace_oob oob;
    /* Stores and atomics into an input (measure_inputs: an array the kernel must only
       read), every block's, as trace_oob.h lays an access out: how many lanes made one
       (0: none), and the first. The emulator's meter and the trace's patches fill them. */
    long input_write_count;
    trace_oob input_write;
    /* Words of global memory a launch both read through the read-only cache (ld.global.nc:
       __ldg, const __restrict__) and wrote (a store or an atomic, before or after): how
       many, and the first's load and write. The emulator's meter alone (the trace's
       patches see no load's cache path). */
    long nc_written_count;
    trace_oob nc_load, nc_write;
    /* The trace's lanes that touched the driver's reserved shared memory (cooperative
       groups' multi-warp tile barrier: release and acquire the trace does not see), so
       that what it calls a race between warps may be ordered there (compare_races). The
       emulator's meter orders them itself (TRACE_ACQUIRE, TRACE_RELEASE): 0 there. */
    long toolkit_accesses;
} trace_summary;

/*
 * Analyse n records. Returns 0, or -1 with why filled (a record that makes no
 * sense: width not 1/2/4/8/16, no active lane, an access past 4 GiB...).
 */
int trace_analyze(const bank_geometry *g, const trace_record *r, size_t n, trace_summary *out,
                  char *why, size_t why_size);

void trace_summary_free(trace_summary *s);

/*
 * The same, a record at a time, in memory that does not grow with the
 * blocks (sites, one block's touches for the race check): for a backend
 * whose traces are long and come block by block (the emulator). Every
 * block's races are found, each block's when the next one starts, so its
 * records must not come back once another block's have. add: 0, or -1 with
 * why (then free the analyzer); finish: 0, or -1 with why, and frees it.
 */
typedef struct trace_analyzer trace_analyzer;
trace_analyzer *trace_analyzer_new(const bank_geometry *g);
/* The banks the records added from now on are served by (a launch of another bank mode:
   the emulated Kepler's). */
void trace_analyzer_geometry(trace_analyzer *a, const bank_geometry *g);
int trace_analyzer_add(trace_analyzer *a, const trace_record *r, char *why, size_t why_size);
int trace_analyzer_finish(trace_analyzer *a, trace_summary *out, char *why, size_t why_size);
void trace_analyzer_free(trace_analyzer *a);

/*
 * The counters' view of a summary: requests and wavefronts per side,
 * conflicts = wavefronts beyond the ideal, and the ideal itself
 * (measurement.ideal_ld / ideal_st), so that loads and stores are judged
 * alike.
 */
void trace_to_measurement(const trace_summary *s, measurement *m);

/* "load", "store", "atomic". */
const char *trace_op_name(trace_op op);

/* The site of pc, or NULL. */
const trace_site *trace_find_site(const trace_summary *s, uint64_t pc);

/*
 * One line for a site: "lab3.cu:41  load  32-way (1024 wavefronts / 32
 * requests)"; "pc 0x1a0" stands in for file:line where none is known.
 */
const char *trace_site_text(const trace_site *site, char *buf, size_t size);

/* "lab1.cu:30 (store) and lab1.cu:33 (load) race: warps 0 and 1 of block 0 touch shared byte
   0x80 ..."; across loop passes: "lab5.cu:106 (load) in one pass of a loop and lab5.cu:103
   (store) in the next race: ..." */
const char *trace_race_text(const trace_race *race, char *buf, size_t size);

/* "lab7.cu:95" (the file's base name), or "pc 0x1a0" where no line is known. */
const char *trace_where(const char *file, int line, uint64_t pc, char *buf, size_t size);

/* Bytes a lane every site of op moved: 0 when op has no site, -1 when they differ. */
int trace_side_width(const trace_summary *s, trace_op op);

/* The site of one side with the most wavefronts beyond its ideal (NULL: none). */
const trace_site *trace_worst_site(const trace_summary *s, trace_op op);

/*
 * Text traces (tests/traces/NAME.trace), one record a line; '#' starts a comment:
 *   ld|st|atom|gl|gs|ga PC BLOCK WARP WIDTH MASK ADDR... (one ADDR per active lane, hex;
 *                                                 gl: a global load, the address's low half;
 *                                                 gs: a global store, ga: a global atomic,
 *                                                 the same)
 *   bar PC BLOCK WARP MASK
 * PC, MASK and ADDR in hex (0x optional), BLOCK, WARP and WIDTH in decimal.
 * trace_read returns the records (free them) and their count in *n, or NULL
 * with why naming the line at fault.
 */
trace_record *trace_read(FILE *f, const char *name, size_t *n, char *why, size_t why_size);
int trace_write_record(FILE *f, const trace_record *r);

#endif /* SMEMLAB_TRACE_H */
