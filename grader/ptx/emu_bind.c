/*
 * emu_bind.c - the handler of each plain instruction, chosen once when a
 * kernel is linked: by operation and type, so that running one is a single
 * indirect call (docs/emulator.md#speed).
 */
#include "emu_internal.h"

static int is_float(const ptx_instr *in)
{
    return ptx_type_is_float((ptx_type)in->type);
}

static int is_half(const ptx_instr *in)
{
    ptx_type t = (ptx_type)in->type;
    return t == PT_F16 || t == PT_F16X2 || t == PT_BF16 || t == PT_BF16X2;
}

/* The clocks are read by mov only: no other handler knows their operand kind. */
static int reads_clock_outside_mov(const ptx_instr *in)
{
    for (int i = 0; i < in->nops && i < PTX_MAX_OPS; i++)
        if (in->o[i].kind == PO_SREG && (in->op != OP_MOV || i != 1))
            return 1;
    return 0;
}

/* The family an operation's handler comes from, where the type decides it. */
static emu_fn bind_arith(const ptx_instr *in)
{
    return is_half(in) ? emu_bind_half(in) : is_float(in) ? emu_bind_float(in) : emu_bind_int(in);
}
static emu_fn bind_fma(const ptx_instr *in)
{
    return is_half(in) ? emu_bind_half(in) : emu_bind_float(in);
}
static emu_fn bind_logic(const ptx_instr *in)
{
    return in->type == PT_PRED ? emu_bind_cmp(in) : emu_bind_bits(in);
}
static emu_fn bind_mov(const ptx_instr *in)
{
    return in->type == PT_PRED ? emu_bind_cmp(in) : emu_bind_cvt(in);
}

/* Where each plain operation's handler is found: a new one is a row. The control
   instructions (bra, call, bar, ...) have none: the scheduler runs them (emu_exec.c). */
typedef emu_fn (*emu_binder)(const ptx_instr *in);
static const emu_binder bind_by_op[OP_COUNT] = {
    [OP_ADD] = bind_arith,
    [OP_SUB] = bind_arith,
    [OP_MUL] = bind_arith,
    [OP_MAD] = bind_arith,
    [OP_DIV] = bind_arith,
    [OP_ABS] = bind_arith,
    [OP_NEG] = bind_arith,
    [OP_MIN] = bind_arith,
    [OP_MAX] = bind_arith,
    [OP_FMA] = bind_fma,
    [OP_RCP] = emu_bind_float,
    [OP_SQRT] = emu_bind_float,
    [OP_RSQRT] = emu_bind_float,
    [OP_SIN] = emu_bind_float,
    [OP_COS] = emu_bind_float,
    [OP_LG2] = emu_bind_float,
    [OP_EX2] = emu_bind_float,
    [OP_TANH] = emu_bind_float,
    [OP_COPYSIGN] = emu_bind_float,
    [OP_REM] = emu_bind_int,
    [OP_MUL24] = emu_bind_int,
    [OP_MAD24] = emu_bind_int,
    [OP_SAD] = emu_bind_int,
    [OP_ADDC] = emu_bind_int,
    [OP_SUBC] = emu_bind_int,
    [OP_MADC] = emu_bind_int,
    [OP_AND] = bind_logic,
    [OP_OR] = bind_logic,
    [OP_XOR] = bind_logic,
    [OP_NOT] = bind_logic,
    [OP_CNOT] = bind_logic,
    [OP_SHL] = emu_bind_bits,
    [OP_SHR] = emu_bind_bits,
    [OP_SHF] = emu_bind_bits,
    [OP_BFE] = emu_bind_bits,
    [OP_BFI] = emu_bind_bits,
    [OP_PRMT] = emu_bind_bits,
    [OP_POPC] = emu_bind_bits,
    [OP_CLZ] = emu_bind_bits,
    [OP_BFIND] = emu_bind_bits,
    [OP_BREV] = emu_bind_bits,
    [OP_LOP3] = emu_bind_bits,
    [OP_SZEXT] = emu_bind_bits,
    [OP_BMSK] = emu_bind_bits,
    [OP_DP4A] = emu_bind_bits,
    [OP_SETP] = emu_bind_cmp,
    [OP_SET] = emu_bind_cmp,
    [OP_SELP] = emu_bind_cmp,
    [OP_SLCT] = emu_bind_cmp,
    [OP_TESTP] = emu_bind_cmp,
    [OP_MOV] = bind_mov,
    [OP_CVT] = emu_bind_cvt,
    [OP_CVTA] = emu_bind_cvt,
    [OP_ISSPACEP] = emu_bind_cvt,
    [OP_LD] = emu_bind_mem,
    [OP_LDU] = emu_bind_mem,
    [OP_ST] = emu_bind_mem,
    [OP_ATOM] = emu_bind_mem,
    [OP_RED] = emu_bind_mem,
    [OP_PREFETCH] = emu_bind_mem,
    [OP_CP_ASYNC] = emu_bind_mem,
    [OP_LDMATRIX] = emu_bind_mem,
    [OP_STMATRIX] = emu_bind_mem,
    [OP_MEMBAR] = emu_bind_mem,
    [OP_NOP] = emu_bind_mem,
    [OP_SHFL] = emu_bind_warp,
    [OP_VOTE] = emu_bind_warp,
    [OP_MATCH] = emu_bind_warp,
    [OP_ACTIVEMASK] = emu_bind_warp,
    [OP_REDUX] = emu_bind_warp,
    [OP_ELECT] = emu_bind_warp,
    [OP_BAR_WARP] = emu_bind_warp,
};

emu_fn emu_bind(const ptx_instr *in)
{
    if ((in->flags & PF_UNSUPPORTED) || reads_clock_outside_mov(in) || in->op >= OP_COUNT ||
        !bind_by_op[in->op])
        return NULL;
    return bind_by_op[in->op](in);
}
