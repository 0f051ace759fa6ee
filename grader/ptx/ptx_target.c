/*
 * ptx_target.c - the oldest GPU that runs an instruction: the "Target ISA notes" of the
 * PTX ISA (NVIDIA's "Parallel Thread Execution ISA", each instruction's section), for
 * the forms the reader decodes. An instruction that sm_20 runs says 20; the rows below
 * are those a later GPU introduced. The grader asks it of a kernel it grades as an older
 * GPU (--gpu kepler: sm_35): a kernel that reaches a newer instruction could not run
 * there, and is not graded as that GPU.
 */
#include "ptx_internal.h"

#include <string.h>

/* Whether the opcode as written has `.word` among its dotted parts (".gpu" in
   "atom.gpu.global.add.u32"; a part that starts with word:: counts too: "L2::128B"). */
static int has_part(const ptx_instr *in, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = ptx_instr_text(in); (p = strchr(p, '.')) != NULL;) {
        p++;
        if (strncmp(p, word, n) == 0 && (p[n] == '\0' || p[n] == '.' || p[n] == ':'))
            return 1;
    }
    return 0;
}

static int max_sm(int a, int b)
{
    return a > b ? a : b;
}

/* Memory ordering and scopes (atom, red, ld, st): scopes sm_60, semantics sm_70, the
   cluster sm_90. */
static int ordering_sm(const ptx_instr *in)
{
    int sm = 20;
    if (has_part(in, "cta") || has_part(in, "gpu") || has_part(in, "sys"))
        sm = 60;
    if (has_part(in, "relaxed") || has_part(in, "acquire") || has_part(in, "release") ||
        has_part(in, "acq_rel") || has_part(in, "L1"))
        sm = max_sm(sm, 70);
    if (has_part(in, "L2"))
        sm = max_sm(sm, 75);
    if (has_part(in, "cluster") || has_part(in, "shared::cluster"))
        sm = 90;
    return sm;
}

/* atom and red: what their type and operation need on top of their ordering. */
static int atomic_sm(const ptx_instr *in)
{
    int sm = ordering_sm(in);
    switch (in->type) {
    case PT_F64: return max_sm(sm, in->mod == PM_ADD ? 60 : 20);
    case PT_F16: case PT_F16X2: return max_sm(sm, 70);
    case PT_BF16: case PT_BF16X2: case PT_B128: return max_sm(sm, 90);
    default: return sm;
    }
}

/* Half-precision arithmetic: f16 sm_53 (min and max sm_80), bf16 sm_80 (add, sub and
   mul sm_90); moving and converting them is older (cvt's bf16 and f16x2 forms aside). */
static int half_sm(const ptx_instr *in)
{
    int bf = in->type == PT_BF16 || in->type == PT_BF16X2 || in->type2 == PT_BF16 ||
             in->type2 == PT_BF16X2;
    int f16 = in->type == PT_F16 || in->type == PT_F16X2 || in->type2 == PT_F16 ||
              in->type2 == PT_F16X2;
    switch (in->op) {
    case OP_MOV: case OP_LD: case OP_LDU: case OP_ST: case OP_SELP: case OP_ATOM: case OP_RED:
        return 20;
    case OP_CVT:
        return bf || in->type == PT_F16X2 || (in->flags & PF_RELU) ? 80 : 20;
    case OP_MIN: case OP_MAX:
        return bf || f16 ? 80 : 20;
    case OP_ADD: case OP_SUB: case OP_MUL:
        return bf ? 90 : f16 ? 53 : 20;
    default:
        return bf ? 80 : f16 ? 53 : 20;
    }
}

int ptx_instr_sm(const ptx_instr *in)
{
    int sm = 20;
    switch (in->op) {
    case OP_LOP3: return 50;
    case OP_DP4A: case OP_DP2A: return 61;
    case OP_SZEXT: case OP_BMSK: case OP_MATCH: return 70;
    case OP_TANH: case OP_LDMATRIX: return 75;
    case OP_REDUX: return 80;
    case OP_CP_ASYNC: return has_part(in, "bulk") ? 90 : 80;
    case OP_ELECT: case OP_STMATRIX: return 90;
    case OP_SHF: return 32;
    case OP_SHFL: case OP_VOTE: case OP_ACTIVEMASK: case OP_BAR_WARP: return 30;
    case OP_ATOM: case OP_RED: return max_sm(atomic_sm(in), half_sm(in));
    case OP_LD: case OP_ST: sm = ordering_sm(in); break;
    case OP_MEMBAR:
        if (strncmp(ptx_instr_text(in), "fence", 5) == 0)
            return has_part(in, "proxy") || has_part(in, "cluster") ? 90 : 70;
        return 20;
    case OP_BAR:
        return has_part(in, "cluster") ? 90 : 20;
    case OP_EX2:
        return in->type == PT_F16 || in->type == PT_F16X2 || in->type == PT_BF16 ||
               in->type == PT_BF16X2 ? 75 : 20;
    default: break;
    }
    if ((in->op == OP_MIN || in->op == OP_MAX || in->op == OP_FMA) && (in->flags & PF_RELU))
        sm = max_sm(sm, 80);
    return max_sm(sm, half_sm(in));
}
