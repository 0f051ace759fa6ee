/*
 * ptx.h - a PTX module as the emulator reads it (docs/emulator.md#parts).
 *
 * ptx_parse turns PTX text into module variables and functions whose
 * instructions are decoded once: every register is a slot number, every
 * immediate a constant slot, every label an instruction index, every call a
 * function index, and each instruction carries the source line of the .loc
 * before it. Nothing here runs anything; the emulator links a kernel's code
 * (emu_link.c) and interprets it (emu_exec.c).
 *
 * The text may be hostile: every function here checks its bounds, caps what
 * it allocates by the size of the input, and reports an error with the PTX
 * line at fault instead of crashing.
 */
#ifndef SMEMLAB_PTX_H
#define SMEMLAB_PTX_H

#include <stddef.h>
#include <stdint.h>

#define PTX_NONE UINT32_MAX
/* What a function's name stands for as a value (a function pointer): an address in a
   window of its own, PTX_CODE_BASE + 16 * its index in the module. */
#define PTX_CODE_BASE UINT64_C(0x0000730000000000)
#define PTX_MAX_OPS 6
/* Caps that keep hostile input from making the parser allocate without bound. */
#define PTX_MAX_SLOTS 65536u               /* register slots of one function */
#define PTX_MAX_INIT_BYTES (16u << 20)     /* an initialised variable */
#define PTX_MAX_VAR_BYTES (UINT64_C(1) << 32)
#define PTX_MAX_DEPTH 64                   /* nested { } in a body */
#define PTX_MAX_PARAM_LIST 1024            /* parameters of one function */

/* --- types and state spaces ------------------------------------------------ */

typedef enum ptx_type {
    PT_NONE, PT_PRED,
    PT_B8, PT_B16, PT_B32, PT_B64, PT_B128,
    PT_U8, PT_U16, PT_U32, PT_U64,
    PT_S8, PT_S16, PT_S32, PT_S64,
    PT_F16, PT_F16X2, PT_BF16, PT_BF16X2, PT_F32, PT_F64,
    PT_COUNT
} ptx_type;

int ptx_type_size(ptx_type t);     /* bytes; PT_PRED and PT_NONE: 0 */
int ptx_type_is_signed(ptx_type t);
int ptx_type_is_float(ptx_type t); /* f16, bf16, f32, f64 (and the x2 forms) */
const char *ptx_type_name(ptx_type t);
ptx_type ptx_type_parse(const char *s, size_t n); /* "u32" (no dot); PT_NONE if not a type */

typedef enum ptx_space {
    PS_GENERIC, PS_GLOBAL, PS_CONST, PS_SHARED, PS_LOCAL, PS_PARAM,
    PS_KPARAM, /* a kernel's parameter buffer (linked code only: ld.param of an .entry's parameter) */
    PS_REG
} ptx_space;

const char *ptx_space_name(ptx_space s);

/* Special registers. Those up to PSR_LAST_FIXED are the same for a whole warp
   from its start; the clocks change as it runs. */
typedef enum ptx_sreg {
    PSR_TID_X, PSR_TID_Y, PSR_TID_Z, PSR_NTID_X, PSR_NTID_Y, PSR_NTID_Z,
    PSR_CTAID_X, PSR_CTAID_Y, PSR_CTAID_Z, PSR_NCTAID_X, PSR_NCTAID_Y, PSR_NCTAID_Z,
    PSR_LANEID, PSR_WARPID, PSR_NWARPID, PSR_SMID, PSR_NSMID, PSR_GRIDID,
    PSR_LANEMASK_EQ, PSR_LANEMASK_LE, PSR_LANEMASK_LT, PSR_LANEMASK_GE, PSR_LANEMASK_GT,
    PSR_DYNAMIC_SMEM, PSR_TOTAL_SMEM, PSR_AGGR_SMEM,
    PSR_CLUSTER_CTAID_X, PSR_CLUSTER_CTAID_Y, PSR_CLUSTER_CTAID_Z,
    PSR_CLUSTER_NCTAID_X, PSR_CLUSTER_NCTAID_Y, PSR_CLUSTER_NCTAID_Z,
    PSR_CLUSTERID_X, PSR_CLUSTERID_Y, PSR_CLUSTERID_Z,
    PSR_NCLUSTERID_X, PSR_NCLUSTERID_Y, PSR_NCLUSTERID_Z,
    PSR_CLUSTER_CTARANK, PSR_CLUSTER_NCTARANK, PSR_IS_EXPLICIT_CLUSTER,
    /* the block's reserved shared region (cooperative groups keep a multi-warp tile's
       barrier there): its start, end, capacity and the two offsets into it */
    PSR_RESERVED_SMEM_BEGIN, PSR_RESERVED_SMEM_END, PSR_RESERVED_SMEM_CAP,
    PSR_RESERVED_SMEM_0, PSR_RESERVED_SMEM_1,
    /* read as 0: the performance monitors (%pm0..7, %pm0_64..7_64), the driver's
       %envreg0..31 and the graph a launch belongs to (none) */
    PSR_PM, PSR_PM64, PSR_ENVREG, PSR_CURRENT_GRAPH_EXEC,
    PSR_LAST_FIXED = PSR_CURRENT_GRAPH_EXEC,
    PSR_CLOCK, PSR_CLOCK_HI, PSR_CLOCK64, PSR_GLOBALTIMER, PSR_GLOBALTIMER_LO,
    PSR_GLOBALTIMER_HI,
    PSR_COUNT
} ptx_sreg;

/* --- decoded instructions --------------------------------------------------- */

typedef enum ptx_op {
    OP_UNKNOWN,
    /* integer */
    OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_MUL24, OP_MAD24, OP_SAD, OP_DIV, OP_REM, OP_ABS, OP_NEG,
    OP_MIN, OP_MAX, OP_POPC, OP_CLZ, OP_BFIND, OP_BREV, OP_BFE, OP_BFI, OP_PRMT, OP_SHF, OP_SHL,
    OP_SHR, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_LOP3, OP_ADDC, OP_SUBC, OP_MADC,
    OP_SZEXT, OP_BMSK, OP_DP4A, OP_DP2A,
    /* floating point (add, sub, mul, mad, div, abs, neg, min, max share the integer names) */
    OP_FMA, OP_RCP, OP_SQRT, OP_RSQRT, OP_SIN, OP_COS, OP_LG2, OP_EX2, OP_TANH, OP_COPYSIGN,
    OP_TESTP,
    /* comparison and selection */
    OP_SETP, OP_SET, OP_SELP, OP_SLCT,
    /* data movement and conversion */
    OP_MOV, OP_CVT, OP_CVTA, OP_ISSPACEP, OP_LD, OP_LDU, OP_ST, OP_PREFETCH, OP_ATOM, OP_RED,
    OP_CP_ASYNC,   /* cp.async: a copy from global to shared memory, its commit and wait */
    OP_LDMATRIX, OP_STMATRIX,
    /* warp and block */
    OP_SHFL, OP_VOTE, OP_MATCH, OP_ACTIVEMASK, OP_REDUX, OP_ELECT, OP_BAR, OP_BAR_WARP,
    OP_MEMBAR, OP_NOP,
    /* control */
    OP_BRA, OP_BRX, OP_CALL, OP_RET, OP_EXIT, OP_TRAP,
    OP_COUNT
} ptx_op;

/* ptx_instr.flags */
enum {
    PF_FTZ = 1u << 0, PF_SAT = 1u << 1, PF_APPROX = 1u << 2, PF_FULL = 1u << 3,
    PF_HI = 1u << 4, PF_LO = 1u << 5, PF_WIDE = 1u << 6, PF_CC = 1u << 7,
    PF_UNI = 1u << 8, PF_NAN = 1u << 9, PF_SYNC = 1u << 10, PF_TO = 1u << 11,
    PF_RELU = 1u << 12, /* f16/bf16 fma, min, max, cvt: negative results become +0 */
    PF_NC = 1u << 13,   /* ld.global.nc: through the read-only (texture) cache */
    PF_UNSUPPORTED = 1u << 15 /* a form the emulator does not run: fails when executed */
};

/* ptx_instr.sem: an access's memory order (.acq_rel: both) */
enum { PSEM_ACQUIRE = 1u << 0, PSEM_RELEASE = 1u << 1 };

/* Rounding (ptx_instr.rnd): the float modes and the integer ones of cvt. */
enum { PR_NONE, PR_RN, PR_RZ, PR_RM, PR_RP, PR_RNA, PR_RNI, PR_RZI, PR_RMI, PR_RPI };

/* Comparisons (setp, set): ordered, unsigned, unordered. */
enum {
    PC_EQ, PC_NE, PC_LT, PC_LE, PC_GT, PC_GE, PC_LO, PC_LS, PC_HI, PC_HS,
    PC_EQU, PC_NEU, PC_LTU, PC_LEU, PC_GTU, PC_GEU, PC_NUM, PC_NAN
};

/* Sub-operations (ptx_instr.mod) of atom/red/redux/bar.red/vote/shfl/match/... */
enum {
    PM_NONE,
    PM_ADD, PM_MIN, PM_MAX, PM_INC, PM_DEC, PM_AND, PM_OR, PM_XOR, PM_EXCH, PM_CAS, /* atom */
    PM_POPC,                                                               /* bar.red */
    PM_ALL, PM_ANY, PM_UNI, PM_BALLOT,                                     /* vote, match */
    PM_UP, PM_DOWN, PM_BFLY, PM_IDX,                                       /* shfl */
    PM_SYNC, PM_ARRIVE, PM_RED,                                            /* bar */
    PM_L, PM_R, PM_WRAP, PM_CLAMP,                                         /* shf */
    PM_F4E, PM_B4E, PM_RC8, PM_ECL, PM_ECR, PM_RC16,                       /* prmt */
    PM_FINITE, PM_INFINITE, PM_NUMBER, PM_NOTANUMBER, PM_NORMAL, PM_SUBNORMAL, /* testp */
    PM_SHIFTAMT,                                                           /* bfind */
    PM_PACK, PM_UNPACK,                                                    /* mov with a vector */
    PM_COMMIT, PM_WAIT, PM_WAIT_ALL,                                       /* cp.async */
    PM_TRANS                                                               /* ldmatrix */
};

typedef enum ptx_okind {
    PO_NONE,  /* absent (an optional operand left out) */
    PO_REG,   /* a register slot; immediates and symbol addresses are constant slots */
    PO_PRED,  /* a predicate (neg: written !%p) */
    PO_ADDR,  /* [base + imm]: r is the base slot or PTX_NONE, sym the variable or PTX_NONE */
    PO_LABEL, /* r: instruction index in the function */
    PO_FUNC,  /* r: function index */
    PO_SREG,  /* r: a special register that changes as the warp runs (the clocks) */
    PO_SINK   /* _ : the value is dropped (r: a scratch slot) */
} ptx_okind;

typedef struct ptx_operand {
    uint8_t kind;   /* ptx_okind */
    uint8_t neg;    /* PO_PRED written !%p */
    uint8_t size;   /* PO_REG: bytes of the register's declared type (1..8) */
    uint8_t is_imm; /* PO_REG: a constant slot */
    uint32_t r;
    uint32_t sym;   /* PO_ADDR, or a constant slot holding an address: the variable */
    int64_t imm;    /* PO_ADDR: byte offset (plus the variable's address once linked);
                       a constant slot: its value */
} ptx_operand;

typedef struct ptx_instr {
    uint16_t op;        /* ptx_op */
    uint16_t flags;     /* PF_* */
    uint8_t type;       /* the instruction type; cvt and set: the destination's */
    uint8_t type2;      /* cvt and set: the source type; mul.wide: the product's */
    uint8_t space;      /* ptx_space of ld/st/atom/red/cvta/isspacep/prefetch */
    uint8_t vec;        /* ld/st/mov: elements (1, 2, 4) */
    uint8_t mod;        /* PM_* or the comparison PC_* of setp/set */
    uint8_t mod2;       /* setp/set: the combining PM_AND/PM_OR/PM_XOR, else PM_NONE */
    uint8_t rnd;        /* PR_* */
    uint8_t nops;
    uint8_t guard_neg;  /* @!%p */
    uint8_t sem;        /* PSEM_*: the memory order an ld/st/atom/red asks (.acquire, .release,
                           .acq_rel), which orders warps through a shared word (the race check) */
    uint8_t pad[2];
    uint32_t guard;     /* predicate index, or PTX_NONE */
    uint32_t line;      /* source line of the last .loc, 0 if none */
    uint32_t file;      /* index in ptx_module.files, or PTX_NONE */
    uint32_t call_line; /* inlined code: the line it was inlined at (.loc's inlined_at), or 0 */
    uint32_t call_file; /* and its file, or PTX_NONE */
    uint32_t caller_line; /* a header's code in the student's own function: where that
                             function was inlined at in call_file (its caller), or 0 */
    uint32_t aux;       /* call: ptx_func.calls index; brx: ptx_func.tables index */
    const char *text;   /* the opcode as written, for messages (interned) */
    ptx_operand o[PTX_MAX_OPS];
} ptx_instr;

/* A call site: the caller's .param variables that carry arguments and results. */
typedef struct ptx_call {
    uint32_t func;         /* PTX_NONE: through a register (o[0]): any function whose
                              address the module takes */
    uint32_t n_args, n_rets;
    uint32_t *args, *rets; /* variable indices */
} ptx_call;

/* A .branchtargets list (brx.idx). */
typedef struct ptx_table {
    uint32_t n;
    uint32_t *targets; /* instruction indices */
} ptx_table;

/* --- module variables and functions ------------------------------------------ */

/* An initialiser entry that is the address of a variable: generic(name) or name. */
typedef struct ptx_reloc {
    uint64_t offset;  /* in the initialised variable */
    uint32_t var;
    uint8_t size;     /* bytes written: 4 or 8 */
    uint8_t generic;
    int64_t addend;
} ptx_reloc;

typedef struct ptx_var {
    const char *name;
    uint8_t space;      /* ptx_space: global, const, shared, local, param */
    uint8_t type;       /* element type */
    uint8_t is_extern;
    uint8_t unsized;    /* name[] with no size: the extern .shared dynamic area */
    uint8_t kparam;     /* a kernel's formal parameter: addr is its offset in the buffer */
    uint32_t align;
    uint32_t func;      /* PTX_NONE: module scope; else the function that declares it */
    uint32_t line;
    uint64_t size;      /* bytes */
    uint8_t *init;      /* size bytes, or NULL: zeros */
    ptx_reloc *relocs;
    uint32_t n_relocs;
    uint64_t addr;      /* global/const: device address once placed; local, param (not
                           kparam): offset in the declaring function's frame */
} ptx_var;

/* A constant slot: its value is known at link time (an immediate, or a variable's address). */
typedef struct ptx_const {
    uint32_t slot;
    uint32_t sym;       /* PTX_NONE, or the variable whose address is added */
    int64_t value;
} ptx_const;

typedef struct ptx_sreg_slot {
    uint32_t slot;
    uint32_t sreg;      /* ptx_sreg (fixed ones only) */
} ptx_sreg_slot;

typedef struct ptx_func {
    const char *name;
    uint8_t is_entry, has_body, is_extern;
    uint8_t addr_taken;            /* its name is used as a value: indirect calls may reach it */
    uint32_t line;
    uint32_t n_params, n_rets;
    uint32_t *params, *rets;       /* variable indices */
    uint32_t param_bytes;          /* .entry: end of the last parameter */
    uint32_t maxntid[3], reqntid[3];
    uint32_t n_slots, n_preds;
    uint32_t pred_const[2];        /* predicates that hold false / true (constants), or PTX_NONE */
    ptx_instr *code;
    uint32_t n_code;
    uint32_t *reconv;              /* per instruction: where a divergent branch here
                                      reconverges (PTX_NONE: at the function's end) */
    ptx_const *consts;
    uint32_t n_consts;
    ptx_sreg_slot *sregs;
    uint32_t n_sregs;
    ptx_call *calls;
    uint32_t n_calls;
    ptx_table *tables;
    uint32_t n_tables;
    uint32_t *uses;                /* module-scope variables the code names */
    uint32_t n_uses;
    uint32_t frame_bytes;          /* its .local and .param variables, per thread */
    uint32_t frame_align;
    /* A body the reader could not read: why ("line N: ..."), and the source line of the
       statement at fault (.loc; file an index in ptx_module.files, or PTX_NONE). The
       module loads; only a kernel that reaches this function fails, when it is linked. */
    const char *bad;
    uint32_t bad_line, bad_file, bad_call_line, bad_call_file;
} ptx_func;

typedef struct ptx_file {
    uint32_t number;               /* as in .file N */
    const char *path;
} ptx_file;

typedef struct ptx_module {
    ptx_var *vars;
    uint32_t n_vars;
    ptx_func *funcs;
    uint32_t n_funcs;
    ptx_file *files;
    uint32_t n_files;
    unsigned version_major, version_minor;
    struct ptx_arena *arena;       /* names and interned strings */
} ptx_module;

/* 0, or -1 with why ("line N: ..."). *out is freed with ptx_free. */
int ptx_parse(const char *text, size_t len, ptx_module **out, char *why, size_t why_size);
void ptx_free(ptx_module *m);

/* Index of the function or variable called name, or PTX_NONE. */
uint32_t ptx_find_func(const ptx_module *m, const char *name);
uint32_t ptx_find_var(const ptx_module *m, const char *name); /* module scope only */

/* Basic blocks and immediate post-dominators: fills f->reconv (ptx_cfg.c). 0 or -1. */
int ptx_cfg_build(ptx_func *f);

/* The oldest GPU that runs the instruction, as sm_XX's XX (20 for any GPU the PTX ISA
   still targets): ptx_target.c, from the PTX ISA's target notes. */
int ptx_instr_sm(const ptx_instr *in);

/* The (interned) opcode text of an instruction, for messages. */
static inline const char *ptx_instr_text(const ptx_instr *in)
{
    return in->text ? in->text : "?";
}

#endif /* SMEMLAB_PTX_H */
