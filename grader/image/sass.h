/*
 * sass.h - the shared-memory instructions of a kernel as ptxas compiled it,
 * read from the cubin without nvdisasm (which many machines lack).
 *
 * The emulator counts requests and wavefronts from the PTX, but ptxas may
 * change access widths on the way to SASS: an 8-byte load of which half is
 * used becomes a 4-byte LDS, adjacent 4-byte accesses become one LDS.64 or
 * LDS.128. This reader tells what the GPU executes, instruction by
 * instruction, so the PTX counts can be corrected.
 *
 * Only what the fields below need is decoded, and only for the architectures
 * whose encodings were checked against nvdisasm (tests/sass/listings/:
 * sm_75, 80, 86, 89, 90). Every read is bounds-checked: cubins come from
 * students.
 */
#ifndef SMEMLAB_SASS_H
#define SMEMLAB_SASS_H

#include "lab_image.h"

#include <stddef.h>
#include <stdint.h>

typedef enum sass_class {
    SASS_NONE,   /* not a memory instruction the reader reports */
    SASS_LDS,    /* shared load */
    SASS_STS,    /* shared store */
    SASS_ATOMS,  /* shared atomic (CAS included) */
    SASS_LDSM,   /* ldmatrix */
    SASS_STSM,   /* stmatrix */
    SASS_LDGSTS, /* cp.async: a global load and a shared store */
    SASS_LDG,    /* global load */
    SASS_STG     /* global store */
} sass_class;

typedef enum sass_atom {
    SASS_ATOM_NONE,
    SASS_ATOM_ADD,
    SASS_ATOM_MIN,
    SASS_ATOM_MAX,
    SASS_ATOM_INC,
    SASS_ATOM_DEC,
    SASS_ATOM_AND,
    SASS_ATOM_OR,
    SASS_ATOM_XOR,
    SASS_ATOM_EXCH,
    SASS_ATOM_CAS,     /* ATOMS.CAS and ATOMS.CAST.SPIN */
    SASS_ATOM_POPC_INC /* the warp-aggregated increment: one lane's add per warp */
} sass_atom;

typedef struct sass_access {
    uint32_t offset;  /* byte offset of the instruction in its function */
    uint8_t cls;      /* sass_class */
    uint8_t width;    /* bytes a lane moves: 1, 2, 4, 8 or 16 (LDSM/STSM: 16, a row) */
    uint8_t matrices; /* LDSM/STSM: 1, 2 or 4; else 0 */
    uint8_t atom_op;  /* ATOMS: sass_atom; else 0 */
    uint8_t never;    /* guarded by @!PT: never executes (ptxas pads cp.async with
                         `@!PT LDS RZ, [RZ]`) */
    int32_t imm;      /* the address's immediate offset (LDGSTS: the shared one) */
} sass_access;

/*
 * The memory instructions of function `name` (its mangled name, as in
 * .text.NAME) in a cubin, in order: 0 with *out (malloc'd, free() it; NULL
 * when *n is 0) and *n, and the sm number (75, 80, 86, 89, 90) in *arch; or
 * -1 with why: not a cubin, an architecture the reader was not checked on,
 * no such function, or an instruction whose fields it cannot read.
 */
int sass_function_accesses(const void *cubin, size_t size, const char *name, sass_access **out,
                           int *n, int *arch, char *why, size_t why_size);

/*
 * Decode one instruction (lo, hi: its two little-endian 64-bit words): 1 with
 * *a filled (a->offset left 0) for a memory instruction, 0 for another
 * instruction, -1 for a memory instruction with a field the reader does not
 * know.
 */
int sass_decode(uint64_t lo, uint64_t hi, sass_access *a);

/*
 * The cubin of the highest sm_XX among the fatbinaries of a lab image: a
 * pointer into img->device (valid while img is open), its size and the sm
 * number its entry names. 0, or -1 with why (no cubin, or the newest one
 * compressed, which the reader does not undo).
 */
int sass_newest_cubin(const lab_image *img, const unsigned char **cubin, size_t *size, int *arch,
                      char *why, size_t why_size);

/*
 * The one width (1, 2, 4, 8 or 16 bytes a lane) that the accesses of class
 * `cls` of kernel `kernel` (its name as written) move in img's newest cubin:
 * what the GPU executes where no trace says it. 0 when the kernel has none of
 * them in its own code, several widths, or SASS the reader cannot read.
 */
int sass_kernel_width(const lab_image *img, const char *kernel, sass_class cls);

#endif
