/*
 * lib_code.h - which of a lab's device code is a library's, not the student's.
 *
 * A kernel's lesson may be done for the student by a library the toolkit
 * ships: CUB's block and warp reductions, a cooperative group reduced whole,
 * Thrust. Two places show it, whatever the backend: a kernel that is a
 * library's template (its mangled name's first namespace: cub::, thrust::),
 * and, in a kernel of the student's own, the library code the compiler
 * inlined into it. The kit builds every lab with -lineinfo, so the PTX says
 * for each instruction which header's function it came from and where in
 * the student's file that function was called (.loc's function_name and
 * inlined_at): code that only includes a header, or uses a helper that does
 * not do the lesson (a cooperative group's tile and its shuffles), is told
 * apart from a library that does. The PTX is hostile input read as text:
 * nothing is trusted to be well formed.
 */
#ifndef SMEMLAB_LIB_CODE_H
#define SMEMLAB_LIB_CODE_H

#include <stddef.h>

/* What library code a kernel holds (a bit each). */
typedef enum lib_code {
    LIB_CODE_CUB_REDUCE = 1u << 0,   /* cub::BlockReduce, WarpReduce, DeviceReduce */
    LIB_CODE_CUB_EXCHANGE = 1u << 1, /* cub::BlockExchange, WarpExchange: a tile transposed */
    LIB_CODE_CUB_OTHER = 1u << 2,    /* any other of CUB's collectives (scan, load, sort) */
    LIB_CODE_THRUST = 1u << 3,       /* a Thrust algorithm */
    LIB_CODE_CG_WARP_REDUCE = 1u << 4,  /* cooperative_groups::reduce of a warp or less */
    LIB_CODE_CG_BLOCK_REDUCE = 1u << 5  /* of a tile of more than a warp (a block's) */
} lib_code;

typedef struct lib_use {
    unsigned found;      /* lib_code bits */
    struct {
        char what[128];  /* "cub::BlockReduce (CUB)" */
        char where[96];  /* the student's call: "lab7.cu:63", or "" */
    } first[6];          /* the first use of each bit found, by bit number */
} lib_use;

/*
 * The library code of kernel `kernel` (its .entry name) in the PTX text (len
 * bytes), itself and the functions it calls: 0 with out filled (found 0: none,
 * or PTX with no line info), or -1 when the PTX has no such kernel.
 */
int lib_code_of_kernel(const char *ptx, size_t len, const char *kernel, lib_use *out);

/*
 * Where in the student's file kernel `kernel` (and what it calls) runs an instruction
 * whose opcode starts with op ("ld.const"): up to max distinct lines of the kernel's own
 * file, a header's code placed at the line that called it (inlined_at), in PTX order,
 * into lines; how many (0: none, or PTX without line info), or -1 when the PTX has no
 * such kernel. *file: the file's name (its base name), where one was found.
 */
int lib_code_op_lines(const char *ptx, size_t len, const char *kernel, const char *op,
                      int *lines, int max, char *file, size_t file_size);

/* The library whose kernel a mangled kernel name is ("CUB", "Thrust"), or NULL. */
const char *lib_code_kernel_library(const char *mangled);

/*
 * A mangled name readable: its nested names to the first template argument,
 * a library's version namespaces left out ("cub::detail::reduce::DeviceReduceKernel");
 * the name itself where it is no nested name.
 */
void lib_code_readable(const char *mangled, char *out, size_t size);

#endif /* SMEMLAB_LIB_CODE_H */
