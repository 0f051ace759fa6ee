/*
 * emu_internal.h - what the parts of the emulator share: device memory
 * internals, a kernel linked for running (emu_link.c), the state of a launch,
 * a block and a warp, and the instruction handlers (emu_ops_*.c).
 */
#ifndef SMEMLAB_EMU_INTERNAL_H
#define SMEMLAB_EMU_INTERNAL_H

#include "emu.h"
#include "ptx.h"

#include <stdarg.h>
#include <stdint.h>

/* --- address space (docs/emulator.md#semantics) ----------------------------
 * Global allocations (module variables too) sit from EMU_GLOBAL_BASE up, each
 * 256-byte aligned with an unmapped gap after it, so that running off the end
 * faults. Generic addresses in the shared, local and kernel-parameter windows
 * map to the block's shared memory, the thread's local memory and the
 * parameter buffer. */
#define EMU_GLOBAL_BASE UINT64_C(0x0000000200000000)
#define EMU_GLOBAL_END UINT64_C(0x0000600000000000)
#define EMU_SHARED_WINDOW UINT64_C(0x0000700000000000)
#define EMU_LOCAL_WINDOW UINT64_C(0x0000710000000000)
#define EMU_PARAM_WINDOW UINT64_C(0x0000720000000000)
#define EMU_WINDOW_SIZE UINT64_C(0x0000000100000000)
#define EMU_ALLOC_GAP UINT64_C(65536)

#define EMU_FULL 0xffffffffu
#define EMU_MAX_THREADS 1024
#define EMU_MAX_WARPS 32
#define EMU_MAX_SHARED (227u * 1024u)      /* per block, as an sm_90 grants at most */
#define EMU_MAX_LOCAL (64u * 1024u)        /* per thread */
#define EMU_SIMT_DEPTH 96
#define EMU_SLICE 256                      /* instructions a warp runs before the next's turn */
#define EMU_SYNC_SEEN 64                   /* distinct synchronisation errors a launch reports */
#define EMU_MAX_BARS 64                    /* barrier instructions the skip check follows */
#define EMU_OOB_SEEN 16                    /* instructions whose bounds errors a launch reports */

/* --- device memory (emu_mem.c) ------------------------------------------------ */

enum { EMU_ALLOC_USER, EMU_ALLOC_GLOBAL_VAR, EMU_ALLOC_CONST_VAR };

typedef struct emu_region {
    uint64_t addr, size;
    uint8_t *host;
    uint8_t kind;
    uint64_t lo, hi; /* the array: [lo, hi); the rest is guard zone (emu_guard) */
} emu_region;

struct emu_device {
    uint64_t limit, used, next;
    emu_region *r;
    uint32_t n, cap;
    uint32_t last; /* the region found last: most accesses hit it again */
};

/* The region holding [addr, addr + n), or NULL. */
emu_region *emu_region_find(emu_device *d, uint64_t addr, uint64_t n);
int emu_alloc_kind(emu_device *d, uint64_t bytes, uint8_t kind, uint64_t *addr);

/* --- a kernel linked for running (emu_link.c) -------------------------------- */

typedef struct emu_warp emu_warp;
/* A handler runs one instruction for the lanes of mask m (never 0). 0, or -1 when it
   stopped the launch (the result says why). */
typedef int (*emu_fn)(emu_warp *w, const ptx_instr *in, uint32_t m);

/* How the scheduler treats an instruction. */
enum {
    CTL_PLAIN,    /* a handler and on to the next */
    CTL_BRA, CTL_BRX, CTL_CALL, CTL_RET, CTL_EXIT, CTL_TRAP, CTL_BAR, CTL_UNSUPPORTED
};

typedef struct emu_step {
    emu_fn fn;
    uint8_t ctl;
} emu_step;

/* A byte copy between two frames (call arguments and results). */
typedef struct emu_pcopy {
    uint32_t from, to, size;
} emu_pcopy;

enum { CALL_CODE, CALL_PRINTF, CALL_ASSERT, CALL_REFUSED, CALL_INDIRECT };

typedef struct emu_call {
    uint8_t kind;          /* CALL_* */
    uint32_t target;       /* CALL_CODE: first instruction of the callee */
    uint32_t func;         /* the callee's index in the module (PTX_NONE: none) */
    uint32_t first_alt, n_alts; /* CALL_INDIRECT: the calls it may make, one a function
                                   whose address the module takes, in prog->calls */
    uint32_t n_args, n_rets;
    emu_pcopy *args, *rets; /* frame offsets, caller -> callee and back */
    char why[160];         /* CALL_REFUSED: what the student sees */
} emu_call;

typedef struct emu_init {
    uint32_t slot;
    uint64_t value;
} emu_init;

/* A linked instruction's record as the GPU makes it (emu_access_fix): 0 width: PTX's. */
typedef struct emu_record_fix {
    uint8_t width, shift, merged;
} emu_record_fix;

typedef struct emu_program {
    const ptx_module *ptx;
    const char *name;
    ptx_instr *code;
    emu_step *steps;
    uint32_t *reconv;
    uint32_t n_code;
    uint32_t n_slots, n_preds;
    emu_init *consts;
    uint32_t n_consts;
    ptx_sreg_slot *sregs;
    uint32_t n_sregs;
    uint32_t *pred_false, *pred_true;
    uint32_t n_pred_false, n_pred_true;
    emu_call *calls;
    uint32_t n_calls;
    ptx_table *tables;
    uint32_t n_tables;
    uint32_t local_bytes;    /* per thread */
    uint32_t static_shared;
    uint32_t dyn_base;       /* where the dynamic area starts (static bytes, aligned) */
    int dynamic_shared;
    uint32_t param_bytes;
    uint32_t maxntid[3], reqntid[3];
    emu_record_fix *record_fix; /* per instruction, or NULL: records as PTX says */
    /* What the synchronisation checks know of the code (emu_sync_cfg.c). */
    uint8_t *exitish;        /* per instruction: it only leads out of the kernel (ret, exit,
                                branches to them): lanes there do nothing more */
    uint32_t n_bars;         /* block-wide barrier instructions (no thread count) */
    uint32_t *bar_pc;        /* their instruction indices, in code order */
    uint32_t *bar_branch;    /* the branch whose condition each is under, or PTX_NONE */
    uint64_t *after;         /* per instruction: bit b when it lies strictly after barrier b
                                (reachable from it, b not reachable from it) and observes
                                what a barrier orders (a shared access, a global load...);
                                NULL: no barrier, or too large to tell */
} emu_program;

/* A source line and where it was inlined (file NULL: none). */
typedef struct emu_where_at {
    const char *file, *call_file;
    int line, call_line;
} emu_where_at;

/* Link kernel func of m: its code and every function it calls, one flat array.
   0, or -1 with why: out of memory, or code the reader set aside (ptx_func.bad),
   whose source line goes to *at (at may be NULL). */
int emu_link(const ptx_module *m, uint32_t func, const emu_access_fix *fixes, int n_fixes,
             emu_program **out, char *why, size_t why_size, emu_where_at *at);
void emu_program_free(emu_program *p);

struct emu_module {
    emu_device *dev;
    ptx_module *ptx;
    uint32_t n_kernels;
    uint32_t *kernel_func;   /* ptx function of each kernel */
    emu_program **progs;     /* linked when first launched */
    uint64_t *var_alloc;     /* device address of each placed variable (0: none) */
    emu_access_fix *fixes;   /* what ptxas did to accesses (emu_module_fix_accesses) */
    int n_fixes;
};


/* --- a launch, a block, a warp (emu_exec.c) ------------------------------------ */

typedef struct simt_entry {
    uint32_t pc, rpc, mask;
    uint32_t call;           /* PTX_NONE, or the call (in prog->calls) whose frame begins here */
    uint32_t src;            /* the branch whose divergence made it, or PTX_NONE */
    uint8_t kind;            /* ENTRY_* */
    uint64_t beyond;         /* the barriers its lanes went strictly past (emu_program.after) */
} simt_entry;

/* A path still to run, lanes waiting at a reconvergence point (or after a call) for the
   paths above, or a path whose lanes wait at a barrier while the warp's others run. */
enum { ENTRY_PATH, ENTRY_JOIN, ENTRY_PARKED };

enum { WARP_RUN, WARP_WAIT, WARP_DONE };

typedef struct emu_block emu_block;

struct emu_warp {
    uint64_t *r;             /* r[slot * 32 + lane] */
    uint32_t *p;             /* predicate masks */
    emu_block *b;
    simt_entry cur;          /* the running entry (the top of the SIMT stack) */
    simt_entry stack[EMU_SIMT_DEPTH];
    uint32_t sp;
    uint32_t present;        /* lanes that exist (a partial last warp has fewer) */
    uint32_t exited;
    uint32_t carry;          /* CC.CF of each lane */
    uint32_t index;
    uint8_t state;
    uint8_t bar_id;
    uint32_t bar_pc;         /* the barrier instruction it waits at */
    uint32_t bar_lanes;      /* the lanes that arrived */
    uint32_t commits[32];    /* cp.async.commit_group each lane made */
    /* A block-wide barrier the warp is arriving at, path by path (emu_barrier.c): the
       lanes there so far, the barrier instruction and its id (arr_lanes 0: none). */
    uint32_t arr_lanes, arr_pc;
    uint8_t arr_id;
    uint64_t lane_beyond[32]; /* each lane's beyond when it exited */
    /* The reserved word and bits of its last arrival at a cooperative groups' tile
       barrier (atom.or there, emu_ops_mem.c: toolkit_order); tile_bits 0: none. */
    uint32_t tile_word, tile_bits;
};

typedef struct emu_barrier {
    uint32_t arrived;        /* warps counted (bit per warp) */
    uint32_t waiting;        /* warps that wait for it */
    uint32_t threads;        /* counted: 32 a warp, as the hardware counts */
    uint32_t expected;       /* 0: every warp that has not exited */
    uint32_t popc;           /* bar.red */
    uint8_t any, all;
    uint8_t started;         /* an instance under way (its first lanes arrived) */
    uint32_t warp_pc[EMU_MAX_WARPS]; /* block-wide: where each arrived warp waits */
    uint32_t lanes[EMU_MAX_WARPS];   /* and with which lanes */
} emu_barrier;

typedef struct emu_ctx emu_ctx;

/* A cp.async in flight: its bytes land in shared memory when the lane waits for its
   group (cp.async.wait_group / wait_all), as on a GPU, not when it is issued. */
typedef struct emu_async {
    uint8_t *dst;        /* the shared bytes (or the block's `nowhere`) */
    const uint8_t *src;  /* the global bytes; NULL when none are read (src-size 0) */
    uint32_t group;      /* the lane's commits before it: the group it belongs to */
    uint16_t warp;
    uint8_t lane, size, src_size;
} emu_async;

#define EMU_MAX_ASYNC (1u << 20) /* copies in flight in one block */

struct emu_block {
    emu_ctx *x;
    uint32_t index;          /* linear block index */
    uint32_t ctaid[3];
    uint8_t *shared;
    uint32_t shared_bytes;   /* static + dynamic */
    uint32_t shared_limit;   /* shared_bytes rounded up to 128 */
    _Alignas(16) uint8_t nowhere[16]; /* where accesses past shared_limit go (see lane_shared) */
    _Alignas(16) uint8_t reserved[EMU_RESERVED_BYTES]; /* the toolkit's (EMU_RESERVED_OFFSET) */
    uint8_t *local;          /* local_bytes per thread */
    uint32_t local_bytes;
    emu_warp *warps;
    uint32_t n_warps;
    uint32_t live;           /* warps that have not exited (bit per warp) */
    emu_barrier bars[16];
    emu_async *async;        /* cp.async copies in flight */
    uint32_t n_async, cap_async;
};

/* What printf printed in a launch: the newest calls whose records fit the GPU's
   circular buffer (emu_printf.c). */
typedef struct emu_print_rec {
    char *text;
    size_t len;
    uint32_t cost;
} emu_print_rec;

typedef struct emu_printed {
    emu_print_rec *recs;
    uint32_t n, cap, first; /* recs[first..n) are kept */
    uint64_t bytes;
} emu_printed;

/* The GPU's printf buffer (cudaLimitPrintfFifoSize's default) and what one call's
   record takes in it: a header and the format's address, then 8 bytes an argument. */
#define EMU_PRINTF_FIFO (1u << 20)
#define EMU_PRINTF_RECORD(args) (16u + 8u * (uint32_t)(args))

struct emu_ctx {
    emu_module *m;
    const emu_program *prog;
    emu_device *dev;
    const emu_launch *l;
    const emu_sink *sink;
    emu_result *res;
    uint64_t budget, executed;
    uint32_t nthreads, nwarps;
    uint32_t block_dim[3], grid_dim[3];
    const uint8_t *params;
    emu_block blk;
    uint64_t *regs;          /* every warp's registers, allocated once a launch */
    uint32_t *preds;
    emu_printed printed;
    /* the synchronisation errors reported to the sink: each (kind, instruction) once */
    struct { uint8_t kind; uint32_t pc; } sync_seen[EMU_SYNC_SEEN];
    uint32_t n_sync_seen;
    /* the instructions whose accesses into a guard zone were reported */
    uint32_t oob_seen[EMU_OOB_SEEN];
    uint32_t n_oob_seen;
};

/* --- synchronisation (emu_sync_cfg.c, emu_sync.c) ------------------------------------ */

/* Fill p->exitish, the barrier table and p->after from the linked code. 0, or -1 (out
   of memory). */
int emu_sync_cfg(emu_program *p);
/* The index of block-wide barrier instruction pc in p->bar_pc, or -1. */
int emu_bar_index(const emu_program *p, uint32_t pc);
/* Report e (kind, pc and the kind's fields filled) for warp w at instruction in: its
   lines, block and thread count are filled here; counted in the result, and sent to
   the sink once a launch for each kind and instruction. */
void emu_sync_report(emu_warp *w, const ptx_instr *in, emu_sync_error *e);
/* A warp primitive's member mask (operand k, as lane l of m gives it) judged against
   the lanes m that execute it: what is wrong is reported. The mask of the first lane. */
uint32_t emu_sync_members(emu_warp *w, const ptx_instr *in, int k, uint32_t m);
/* A shuffle's lanes m read lanes src (bit j: some lane read lane j): those that do not
   execute it are reported. */
void emu_sync_shuffle_reads(emu_warp *w, const ptx_instr *in, uint32_t m, uint32_t src);

/* printf (vprintf) by lanes m, through call c. 0, or -1 when the launch stopped. */
int emu_printf(emu_warp *w, const ptx_instr *in, const emu_call *c, uint32_t m);
/* Hand what the launch printed to emu_launch.print, oldest first, and forget it. */
void emu_printed_flush(emu_ctx *x);

#ifdef EMU_STATS
/* Lanes that executed an instruction, summed over warp instructions (make emu-bench). */
extern uint64_t emu_stat_lane_ops;
#endif

static inline uint64_t *emu_reg(emu_warp *w, uint32_t slot)
{
    return w->r + (size_t)slot * 32;
}

/* Stop the launch: status, message, and the instruction's source line. Returns -1
   (emu_fail.c). */
int emu_fail(emu_warp *w, const ptx_instr *in, emu_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same into res, for a launch that stops before any warp runs (p, in: NULL) or
   outside a warp. Returns s. */
emu_status emu_fail_result(emu_result *res, const emu_program *p, const ptx_instr *in,
                           emu_status s, const char *fmt, va_list ap);
/* "`text` (lab1.cu:12)" style location of an instruction, for messages. */
void emu_where(const emu_program *p, const ptx_instr *in, const char **file, int *line);
/* The same as a student reads it: a header's instruction (a cooperative group's sync(),
   an intrinsic) at the line of the student's that called it, where the PTX says. */
void emu_student_where(const emu_program *p, const ptx_instr *in, const char **file, int *line);

/* Lanes of m, full masks first: the full-mask loop vectorises. */
#define EMU_LANES(m, l, ...)                                              \
    do {                                                                   \
        if ((m) == EMU_FULL) {                                             \
            for (int l = 0; l < 32; l++) {                                 \
                __VA_ARGS__;                                               \
            }                                                              \
        } else {                                                           \
            for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1) {                \
                int l = __builtin_ctz(mm_);                                \
                __VA_ARGS__;                                               \
            }                                                              \
        }                                                                  \
    } while (0)

/* --- handlers ---------------------------------------------------------------------- */

/* The handler of a plain instruction, or NULL: the emulator does not run it. */
emu_fn emu_bind(const ptx_instr *in);
emu_fn emu_bind_int(const ptx_instr *in);   /* emu_ops_int.c */
emu_fn emu_bind_bits(const ptx_instr *in);  /* emu_ops_bits.c */
emu_fn emu_bind_cmp(const ptx_instr *in);   /* emu_ops_cmp.c */
emu_fn emu_bind_float(const ptx_instr *in); /* emu_ops_float.c */
emu_fn emu_bind_cvt(const ptx_instr *in);   /* emu_ops_cvt.c */
emu_fn emu_bind_mem(const ptx_instr *in);   /* emu_ops_mem.c */
emu_fn emu_bind_warp(const ptx_instr *in);  /* emu_ops_warp.c */
emu_fn emu_bind_half(const ptx_instr *in);  /* emu_ops_half.c: f16, bf16 and their pairs */

/* The flow run (emu_launch.perturb, emu.h; emu_perturb.c): v, a register of rsize bytes
   holding an element of type t, changed by an amount drawn from key; and the key of a
   value from source (an EMU_PERTURB_* bit) at where (an element's address: a shared
   offset, a global address; a shuffle's pc and the lane it read). */
uint64_t emu_perturb_value(uint64_t v, ptx_type t, int rsize, uint64_t key);
uint64_t emu_perturb_key(uint32_t source, uint64_t where);
/* Whether the launch changes what instruction in reads (emu_launch.perturb_at: its line),
   counting `lanes` values and (but for an atomic's old value) the line in the result
   where it does: 1 or 0. */
int emu_perturb_here(emu_warp *w, const ptx_instr *in, uint64_t lanes);

/* Element half (0: the low 16 bits) of a register holding f16 or bf16 values, exact. */
double emu_half_element(uint64_t reg, ptx_type t, int half, int ftz);

/* The host runs AVX2 and FMA: handlers compiled for them may be used. */
static inline int emu_host_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int have = -1; /* the same answer in every thread: a benign race */
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return have;
#else
    return 0;
#endif
}

/* Fill the lanes of one warp's value of a fixed special register. */
uint64_t emu_sreg_value(const emu_warp *w, ptx_sreg s, int lane);

/* Register bits as floats and back: f32 lives in the low 32 bits. */
static inline float emu_f32(uint64_t bits)
{
    uint32_t u = (uint32_t)bits;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
static inline double emu_f64(uint64_t bits)
{
    double d;
    __builtin_memcpy(&d, &bits, 8);
    return d;
}
static inline uint64_t emu_bits32(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
static inline uint64_t emu_bits64(double d)
{
    uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}
/* .ftz: a subnormal becomes a zero of its sign. */
static inline float emu_ftz32(float f)
{
    uint32_t u = (uint32_t)emu_bits32(f);
    return (u & 0x7f800000u) == 0 ? emu_f32(u & 0x80000000u) : f;
}

#endif /* SMEMLAB_EMU_INTERNAL_H */
