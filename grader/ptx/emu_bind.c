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

emu_fn emu_bind(const ptx_instr *in)
{
    if ((in->flags & PF_UNSUPPORTED) || reads_clock_outside_mov(in))
        return NULL;
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_DIV: case OP_ABS:
    case OP_NEG: case OP_MIN: case OP_MAX:
        return is_half(in) ? emu_bind_half(in) : is_float(in) ? emu_bind_float(in)
                                                                : emu_bind_int(in);
    case OP_FMA:
        return is_half(in) ? emu_bind_half(in) : emu_bind_float(in);
    case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_SIN: case OP_COS:
    case OP_LG2: case OP_EX2: case OP_TANH: case OP_COPYSIGN:
        return emu_bind_float(in);
    case OP_REM: case OP_MUL24: case OP_MAD24: case OP_SAD: case OP_ADDC: case OP_SUBC:
    case OP_MADC:
        return emu_bind_int(in);
    case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT:
        return in->type == PT_PRED ? emu_bind_cmp(in) : emu_bind_bits(in);
    case OP_SHL: case OP_SHR: case OP_SHF: case OP_BFE: case OP_BFI: case OP_PRMT:
    case OP_POPC: case OP_CLZ: case OP_BFIND: case OP_BREV: case OP_LOP3: case OP_SZEXT:
    case OP_BMSK: case OP_DP4A:
        return emu_bind_bits(in);
    case OP_SETP: case OP_SET: case OP_SELP: case OP_SLCT: case OP_TESTP:
        return emu_bind_cmp(in);
    case OP_MOV:
        return in->type == PT_PRED ? emu_bind_cmp(in) : emu_bind_cvt(in);
    case OP_CVT: case OP_CVTA: case OP_ISSPACEP:
        return emu_bind_cvt(in);
    case OP_LD: case OP_LDU: case OP_ST: case OP_ATOM: case OP_RED: case OP_PREFETCH:
    case OP_CP_ASYNC: case OP_LDMATRIX: case OP_STMATRIX:
    case OP_MEMBAR: case OP_NOP:
        return emu_bind_mem(in);
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_ACTIVEMASK: case OP_REDUX:
    case OP_ELECT: case OP_BAR_WARP:
        return emu_bind_warp(in);
    default:
        return NULL;
    }
}
