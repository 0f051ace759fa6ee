/*
 * emu.h - the PTX emulator: device memory, modules parsed from PTX text, and
 * launches interpreted warp by warp (docs/emulator.md).
 *
 * Plain C11, no CUDA headers. Everything a kernel does is bounds-checked
 * here: a student's kernel can make a launch fail (fault, time-out,
 * unsupported instruction), never the process that runs it.
 */
#ifndef SMEMLAB_EMU_H
#define SMEMLAB_EMU_H

#include <stddef.h>
#include <stdint.h>

/* --- device memory ------------------------------------------------------- */

typedef struct emu_device emu_device;

/* A device whose allocations may total at most memory_limit bytes. NULL: out of memory. */
emu_device *emu_device_create(uint64_t memory_limit);
void emu_device_destroy(emu_device *d);

/* An allocation of bytes (zero-filled, 256-byte aligned) at *addr; 0, or -1 past the limit. */
int emu_alloc(emu_device *d, uint64_t bytes, uint64_t *addr);
/* Free the allocation that starts at addr (0 is a no-op); -1 if none starts there. */
int emu_free(emu_device *d, uint64_t addr);

/* Host <-> device copies and fills; -1 unless [addr, addr + n) lies in one allocation. */
int emu_write(emu_device *d, uint64_t addr, const void *src, uint64_t n);
int emu_read(emu_device *d, void *dst, uint64_t addr, uint64_t n);
int emu_memset(emu_device *d, uint64_t addr, int byte, uint64_t n);
int emu_copy(emu_device *d, uint64_t dst, uint64_t src, uint64_t n);

/* The host bytes behind [addr, addr + n) when they lie in one allocation, else NULL. */
void *emu_host_view(emu_device *d, uint64_t addr, uint64_t n);
/* The allocation holding byte addr: 0 with its first address and its bytes, or -1. */
int emu_region_of(emu_device *d, uint64_t addr, uint64_t *base, uint64_t *bytes);

/*
 * Guard zones (docs/emulator.md#bounds): the first `front` and the last `back` bytes of
 * the allocation that starts at addr lie outside the array it holds. A kernel's access
 * there is no fault (the bytes are mapped, as on a GPU, where the next allocation or
 * none may lie): it goes on and is reported (emu_oob). The owner fills them. 0, or -1
 * where no allocation starts at addr or the zones leave it no bytes.
 */
int emu_guard(emu_device *d, uint64_t addr, uint64_t front, uint64_t back);

/* --- modules --------------------------------------------------------------- */

typedef struct emu_module emu_module;

/*
 * Parse PTX text and place its module variables (.const, .global, with their
 * initialisers) in d's memory. 0, or -1 with why: the line of the PTX at
 * fault for text that does not parse (hostile input: never a crash).
 */
int emu_module_load(emu_device *d, const char *ptx, size_t len, emu_module **out, char *why,
                    size_t why_size);
void emu_module_unload(emu_module *m);

#define EMU_MAX_PARAMS 64

typedef struct emu_kernel_info {
    const char *name;       /* the .entry's (mangled) name */
    int n_params;
    uint32_t param_offset[EMU_MAX_PARAMS], param_size[EMU_MAX_PARAMS];
    uint32_t param_bytes;   /* end of the last parameter */
    uint32_t static_shared; /* bytes of .shared variables the kernel can reach */
    int dynamic_shared;     /* it declares an extern .shared array */
} emu_kernel_info;

int emu_kernel_count(const emu_module *m);
/* Index of the .entry called name, or -1. */
int emu_kernel_find(const emu_module *m, const char *name);
/* 0, or -1 when k is not a kernel index. */
int emu_kernel_describe(const emu_module *m, int k, emu_kernel_info *out);

/* State space of a module variable. */
typedef enum emu_space { EMU_SPACE_GLOBAL, EMU_SPACE_CONST, EMU_SPACE_SHARED } emu_space;

/* Device address, size and space of the module variable name (.global/.const); 0 or -1. */
int emu_module_symbol(const emu_module *m, const char *name, uint64_t *addr, uint64_t *size,
                      emu_space *space);

/* Static shared bytes of function func of a module read by ptx_parse (ptx.h), and
   whether it reaches an extern .shared array: nothing linked, placed or run. */
struct ptx_module;
void emu_shared_of(const struct ptx_module *m, uint32_t func, uint32_t *static_bytes,
                   int *dynamic);

/* The shared variables function func reaches, where a launch places them: the static
   ones in declaration order, then the extern (unsized) ones at the dynamic area's base.
   Their PTX names (mangled, as the module has them). Returns how many were found (the
   first max of them written), or -1. */
typedef struct emu_shared_var {
    const char *name;
    uint64_t offset, size; /* size 0: extern, sized at launch */
    int dynamic;
} emu_shared_var;
int emu_shared_vars(const struct ptx_module *m, uint32_t func, emu_shared_var *out, int max);

/* The first instruction of kernel k and the functions it calls (the kernel's own code
   first) that a GPU older than sm_`sm` cannot run (ptx_instr_sm): its opcode as written,
   the sm it needs, its source line (.loc; NULL and 0 where none). 1 with *out, 0 where
   the GPU runs all of them, -1 out of memory. */
typedef struct emu_newer {
    const char *text;
    int sm;
    const char *file;
    int line;
} emu_newer;
int emu_kernel_newer(const emu_module *m, int k, int sm, emu_newer *out);
int emu_newer_in(const struct ptx_module *m, uint32_t func, int sm, emu_newer *out);

/* Source file and line of the instruction at pc of kernel k (from .loc); 0 or -1. */
int emu_line(const emu_module *m, int k, uint64_t pc, const char **file, int *line);
/* The same as a student reads it: a header's instruction (an intrinsic: __ldg) at the
   line of the student's that called it, where the PTX says. */
int emu_student_line(const emu_module *m, int k, uint64_t pc, const char **file, int *line);

/* --- what the compiler after PTX did to the accesses ---------------------------------
 * ptxas may give an access another width than PTX's: an 8-byte load of which half is
 * used becomes a 4-byte one, adjacent accesses of one base merge into one wider one.
 * An adapter that reads the GPU code (the grader's: measure/emulator/emu_sass.c) tells
 * the emulator, whose records then carry what the GPU executes. */

typedef enum emu_access_kind {
    EMU_ACC_LOAD, EMU_ACC_STORE, EMU_ACC_ATOMIC, EMU_ACC_ASYNC, EMU_ACC_MATRIX_LOAD,
    EMU_ACC_MATRIX_STORE
} emu_access_kind;

/* One shared-memory access instruction of a function, in code order. */
typedef struct emu_access_info {
    uint32_t instr;     /* its index in the function's code */
    uint8_t kind;       /* emu_access_kind */
    uint8_t width;      /* bytes a lane (a vector's whole) */
    uint32_t base;      /* the address's register (UINT32_MAX: none) */
    int64_t imm;        /* the address's offset */
    const char *file;   /* source file and line (.loc), or NULL and 0 */
    int line;
} emu_access_info;

/* The module's functions (.entry and .func): how many, and the name of each. */
int emu_function_count(const emu_module *m);
const char *emu_function_name(const emu_module *m, int f);
/* The accesses of function f in the .shared state space: *out malloc'd (free it). 0 or -1. */
int emu_function_accesses(const emu_module *m, int f, emu_access_info **out, int *n);

/* What the GPU does with access instruction `instr` of function f: `width` bytes a lane
   at `shift` bytes into the PTX element, or nothing of its own (`merged`: another
   instruction's wider access covers it). */
typedef struct emu_access_fix {
    uint32_t func, instr;
    uint8_t width, shift, merged;
} emu_access_fix;

/* Install fixes (before the first launch of the kernels they touch). 0 or -1. */
int emu_module_fix_accesses(emu_module *m, const emu_access_fix *fixes, int n);

/* --- launches -------------------------------------------------------------- */

/* A line of the student's file: its path is the module's own string, compared as a
   pointer (the lines of one module's launches). */
typedef struct emu_src_line {
    const char *file;
    int line;
} emu_src_line;

typedef struct emu_launch {
    int kernel;
    uint32_t grid[3], block[3];
    uint32_t dynamic_shared;   /* bytes */
    const void *params;        /* the parameter buffer, laid out as emu_kernel_info says */
    uint32_t param_bytes;
    uint32_t shared_fill;      /* every shared word starts as this (the grader's junk) */
    /* Run the blocks last to first, and a block's warps last to first: a GPU runs them in
       any order (the CUDA Programming Guide: blocks "must be independent"), so a kernel
       whose output depends on it is wrong, and a run in the other order shows it. */
    uint8_t reverse;
    /* The flow run (docs/emulator.md#flow): where perturb names a source (EMU_PERTURB_*),
       every value the launch reads from it reaches the kernel changed (below), so
       that an output word unchanged beside a plain run's did not come through it. The
       read-only source only from [perturb_lo, perturb_hi) where perturb_hi is not 0; where
       perturb_at.line is not 0, only values read at that line of the student's file (a
       header's code at the line that called it, as emu_sync_error names it). */
    uint32_t perturb;
    uint64_t perturb_lo, perturb_hi;
    emu_src_line perturb_at;
    /* Where device printf's output goes once the launch has ended (NULL: nowhere). */
    void (*print)(void *ctx, const char *text, size_t len);
    void *print_ctx;
    /* What the machine's own registers say, as the GPU graded for would: %nsmid its SMs
       (0: 1), %smid a block's (its index modulo them), %gridid the launch's number, and
       %globaltimer (ns) and %clock64 counting on from time_base. A kernel must not be
       able to tell the emulator from a GPU by them and take another path on one. */
    uint32_t sm_count;
    uint64_t grid_id, time_base;
} emu_launch;

/* emu_launch.perturb: the sources whose values a launch changes. */
#define EMU_PERTURB_LINES 16
#define EMU_PERTURB_SHARED 0x1u   /* loads from shared memory (ld, an atomic's old value,
                                     ldmatrix), whatever the instruction's state space */
#define EMU_PERTURB_SHUFFLE 0x2u  /* what a shuffle (shfl.sync) delivers, in every lane */
#define EMU_PERTURB_CONST 0x4u    /* loads from constant memory (ld.const) */
#define EMU_PERTURB_READONLY 0x8u /* loads through the read-only cache (ld.global.nc) */

/*
 * How a value is changed (emu_perturb.c), so that nothing a kernel computes takes the
 * change back: by an amount drawn from where it came from (the address it was loaded
 * from, the lane a shuffle read), so that two values from two places never change alike
 * (a difference of two loads, a sum of many, does not cancel but by a 2^-32 chance). A
 * float of the element's type (f16, bf16, f32, f64; each half of an f16x2) gains 2^40
 * (2^12 for an f16) times 1 to 2: a finite change, so that a product with 0 still takes
 * it away (NaN would not: 0 * NaN is NaN); any other value, in the width of the register
 * it lands in, gains an odd amount, so that a copy differs in every byte width and a sum
 * of k changed values is off unless the amounts happen to add up to 0.
 */

/* --- what a launch did: one record a warp-level access ------------------------- */

/* The block's reserved shared region: the 1 KB a block of an sm_80 or later GPU keeps for
   the toolkit (the CUDA Programming Guide), where cooperative groups keep a multi-warp
   tile's barrier word and partial sums (%reserved_smem_offset_*). A GPU puts it below the
   kernel's own bytes; here it lies at an offset of its own, past the most a block can
   have, so that the kernel's variables keep their offsets and banks, and an access past
   them is still out of bounds, never the toolkit's bytes. Its accesses are the toolkit's,
   not the kernel's: they move bytes and are never recorded. Its end as an H200 gave it
   (driver 580): 288 bytes, cooperative groups' layout for 32 warps. */
#define EMU_RESERVED_OFFSET (1u << 20)
#define EMU_RESERVED_BYTES 1024u
#define EMU_RESERVED_USED 288u

#define EMU_RECORD_LANES 32

/* emu_shared_record.flags (and emu_global_record.flags: READ and WRITE, and the two below) */
#define EMU_REC_READ 0x1u        /* a load (READ and WRITE together: an atomic) */
#define EMU_REC_WRITE 0x2u       /* a store */
#define EMU_REC_BARRIER 0x4u     /* a block-wide barrier (bar.sync); no address */
#define EMU_REC_ASYNC 0x10u      /* cp.async: with WRITE its shared side */
#define EMU_REC_MATRIX 0x20u     /* ldmatrix / stmatrix: addr[] holds the row address each
                                    lane gave, width 16 */
#define EMU_REC_ATOM_EXCH 0x40u  /* an atomic exch, inc or dec: lanes on one word are served
                                    one by one */
#define EMU_REC_ATOM_CAS 0x80u   /* an atomic cas, or a compare-and-swap loop's */
#define EMU_REC_ASYNC_SKEW 0x100u /* cp.async whose lanes' shared and global layouts differ */
#define EMU_REC_SYNCWARP 0x200u  /* bar.warp.sync (__syncwarp); no address: it orders the
                                    accesses of the lanes in active */
#define EMU_REC_SHFL 0x400u      /* a shuffle (shfl.sync); no address, counted */
#define EMU_REC_ACQUIRE 0x2000u  /* an access that acquires (ld.acquire, atom.acq_rel) or */
#define EMU_REC_RELEASE 0x4000u  /* releases (st/red.release) the shared words addr[]: it
                                    orders warps; without READ and WRITE, the toolkit's word
                                    in the reserved region (no access of the kernel's) */
/* emu_global_record.flags only: */
#define EMU_REC_CONST 0x800u     /* a constant-memory load (ld.const): addr[] in the module's
                                    .const variables; never a global load */
#define EMU_REC_NC 0x1000u       /* a global load through the read-only cache (ld.global.nc) */

/* One warp-level shared-memory access, barrier, __syncwarp or shuffle. */
typedef struct emu_shared_record {
    uint64_t pc;                  /* instruction index * 16 */
    uint32_t block, warp, active; /* linear block index in the grid; warp of the block
                                     (linear thread index / 32); bit i: lane i executed it */
    uint8_t width, lines;         /* bytes each lane accesses: 1, 2, 4, 8 or 16; the shared
                                     side of cp.async: 128-byte lines its source touched */
    uint16_t flags;               /* EMU_REC_* */
    uint32_t addr[EMU_RECORD_LANES]; /* offset in the block's shared memory, per active lane */
} emu_shared_record;

/* One warp-level global access: every active lane's 64-bit address. */
typedef struct emu_global_record {
    uint64_t pc;
    uint32_t block, warp, active;
    uint16_t width;            /* bytes per lane */
    uint16_t flags;            /* EMU_REC_READ, EMU_REC_WRITE (both: an atomic), EMU_REC_CONST,
                                  EMU_REC_NC */
    uint64_t addr[EMU_RECORD_LANES];
} emu_global_record;

/* --- what a launch did wrong with its synchronisation (docs/emulator.md#sync) ----------
 * The rules are the CUDA Programming Guide's and the PTX ISA's, as compute-sanitizer's
 * synccheck applies them: every thread of a block that has not exited reaches each
 * __syncthreads() (a block-wide bar.sync, bar.red, barrier.sync) in the same instance:
 * the lanes of a warp there together, and a thread that skips one may only store its
 * results and leave (not read, nor wait at a barrier, past it); a warp primitive's mask
 * names only lanes that execute it, each executing lane is in its mask, and a shuffle
 * reads only lanes that execute it. The launch goes on as the machine defines it (a warp
 * counts as arrived, a primitive runs on the lanes there): its other checks are graded. */

typedef enum emu_sync_kind {
    EMU_SYNC_BARRIER_WARP,  /* lanes of an arriving warp, not exited, never reached it */
    EMU_SYNC_BARRIER_BLOCK, /* threads went on past the barrier the others waited at */
    EMU_SYNC_BARRIER_SPLIT, /* threads of one block waited at different barriers */
    EMU_SYNC_MASK_ABSENT,   /* a member mask names lanes that do not execute it */
    EMU_SYNC_MASK_SELF,     /* lanes execute it that their member mask leaves out */
    EMU_SYNC_MASK_READ      /* a shuffle reads lanes that do not execute it */
} emu_sync_kind;

#define EMU_SYNC_KINDS 6
#define EMU_BLOCK_WORDS 32 /* threads of a block, a bit each: 1024 */

typedef struct emu_sync_error {
    uint8_t kind;            /* emu_sync_kind */
    const char *text;        /* the instruction as written: "bar.sync", "shfl.sync.bfly.b32" */
    uint64_t pc;             /* the barrier or primitive (instruction index * 16) */
    const char *file, *call_file; /* its source line, and where it was inlined (NULL: none) */
    int line, call_line;
    int caller_line;         /* a header's code: the caller of the student's function at
                                call_line, in call_file (ptx_instr.caller_line), or 0 */
    /* Where the threads that did not come are: the instruction they wait at (BARRIER_WARP,
       MASK_ABSENT), went past (BARRIER_BLOCK) or the other barrier (SPLIT); line 0: unknown. */
    uint64_t other_pc;
    const char *other_file;
    int other_line;
    /* The branch that took them away (line 0: none known). */
    uint64_t branch_pc;
    const char *branch_file;
    int branch_line;
    uint32_t block, ctaid[3];
    uint32_t threads;        /* in the block */
    uint32_t warp;           /* warp kinds (BARRIER_WARP, MASK_*): the warp of the block */
    uint32_t mask;           /* MASK_*: the member mask */
    uint32_t lanes;          /* warp kinds: the lanes that executed it */
    uint32_t missing;        /* BARRIER_WARP, MASK_ABSENT: lanes not there; MASK_SELF: those
                                outside the mask; MASK_READ: lanes read that were not there */
    uint32_t gone;           /* of missing (MASK_READ), those that had exited or do not exist */
    /* BARRIER_BLOCK, BARRIER_SPLIT: threads of the block, bit t % 32 of word t / 32 (the
       linear thread index): those that waited at the barrier, and those that went past
       it (SPLIT: that waited at the other one). */
    uint32_t reached[EMU_BLOCK_WORDS], skipped[EMU_BLOCK_WORDS];
} emu_sync_error;

/* --- a global access outside the array it indexes (docs/emulator.md#bounds) -------
 * An access into an allocation's guard zone (emu_guard): the lane, the address and the
 * array it lies before or after. The launch goes on: a GPU does not fault there. */
typedef struct emu_oob {
    uint64_t pc;                  /* instruction index * 16 */
    const char *file, *call_file; /* its source line, and where it was inlined (NULL: none) */
    int line, call_line;
    uint64_t addr;                /* the lane's first byte */
    uint32_t width;               /* bytes it moved */
    uint16_t flags;               /* EMU_REC_READ, EMU_REC_WRITE (both: an atomic) */
    uint32_t block, ctaid[3], warp, lane;
    uint64_t base, size;          /* the array: its first byte (past the front zone), bytes */
} emu_oob;

/* Where the records of a launch go. Any callback may be NULL. sync: each kind of
   error at each instruction once a launch, the first block's where it happened; oob:
   each instruction's first access out of bounds, once a launch. */
typedef struct emu_sink {
    void *ctx;
    void (*shared)(void *ctx, const emu_shared_record *r);
    void (*global)(void *ctx, const emu_global_record *g);
    void (*sync)(void *ctx, const emu_sync_error *e);
    void (*oob)(void *ctx, const emu_oob *e);
} emu_sink;

typedef enum emu_status {
    EMU_OK,
    EMU_FAULT,       /* an illegal or misaligned address */
    EMU_UNSUPPORTED, /* an instruction or form the emulator does not know */
    EMU_TIMEOUT,     /* past the instruction budget */
    EMU_DEADLOCK,    /* warps wait at barriers no other warp can reach */
    EMU_TRAP,        /* trap / brkpt / a failed assert */
    EMU_BAD_LAUNCH   /* a configuration the GPU refuses (threads, shared bytes, params) */
} emu_status;

typedef struct emu_result {
    emu_status status;
    char why[512];      /* one line for the student, naming the instruction */
    const char *file;   /* source line of the instruction at fault, or NULL */
    int line;
    const char *call_file; /* where that code was inlined (a header's function the */
    int call_line;         /* student called), or NULL and 0 */
    uint64_t warp_instructions; /* executed */
    /* A fault of a memory access (EMU_FAULT from ld, st, atom ...): the lane's address
       (global; an offset in the other spaces), its bytes, the access and who made it.
       fault_access 0: the fault was something else. */
    int fault_access;
    uint64_t fault_addr;
    uint32_t fault_size;
    int fault_space; /* EMU_FAULT_GLOBAL, _SHARED, _LOCAL, _PARAM */
    int fault_op;    /* EMU_ACC_LOAD, EMU_ACC_STORE, EMU_ACC_ATOMIC */
    int fault_lane;
    uint32_t fault_warp, fault_block[3];
    int fault_misaligned; /* the fault: an address not aligned to its access's size (a GPU's
                             cudaErrorMisalignedAddress), of any space */
    /* Synchronisation errors: how many times one was met, and the first (the launch
       itself ends EMU_OK: they are judged by the grader, not a fault of the run). */
    uint64_t sync_errors;
    emu_sync_error first_sync;
    /* Accesses into a guard zone (emu_guard): how many lanes made one, and the first. */
    uint64_t oob_errors;
    emu_oob first_oob;
    /* Shared accesses past the block's own bytes (recorded at their offsets, where the
       grader names them; they move nothing real): how many lanes made one, and the first
       (base 0, size the block's bytes). A launch that then stops otherwise (a timeout, a
       deadlock, a trap) names it in why: what such an access read was no array's, and may
       be why it stopped. */
    uint64_t shared_past;
    emu_oob first_shared_past;
    /* The flow run (emu_launch.perturb): lane values changed, and the lines of the
       student's file where they were read (the first EMU_PERTURB_LINES, in order met;
       an atomic's old value counted, its line not listed). */
    uint64_t perturbed;
    emu_src_line perturb_lines[EMU_PERTURB_LINES];
    int n_perturb_lines;
} emu_result;

enum { EMU_FAULT_GLOBAL, EMU_FAULT_SHARED, EMU_FAULT_LOCAL, EMU_FAULT_PARAM };

#define EMU_DEFAULT_BUDGET (UINT64_C(1) << 28)

/* Run one launch to its end. Returns res->status. */
emu_status emu_run(emu_module *m, const emu_launch *l, const emu_sink *sink,
                   uint64_t max_warp_instructions, emu_result *res);

const char *emu_status_name(emu_status s);

#endif /* SMEMLAB_EMU_H */
