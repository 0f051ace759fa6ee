/*
 * lab_decls.h - what the lab file's PTX declares, for the checks that read
 * the module rather than run it (on any device): how many bytes of static
 * shared memory a kernel has and whether it takes dynamic shared memory
 * (lab 2's lesson, and the bounds of every kernel's shared memory), and the
 * state space of a variable (lab 6's mask in constant memory). The PTX is
 * parsed by the emulator's parser, nothing is placed or run.
 */
#ifndef SMEMLAB_LAB_DECLS_H
#define SMEMLAB_LAB_DECLS_H

#include "../../image/lab_image.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lab_decls lab_decls;

/* The declarations of img's PTX; NULL with why (no PTX, or PTX that does not parse). */
lab_decls *lab_decls_read(const lab_image *img, char *why, size_t why_size);
/* The same from PTX text (len bytes). */
lab_decls *lab_decls_from_ptx(const char *text, size_t len, char *why, size_t why_size);
void lab_decls_free(lab_decls *d);

/* Static shared bytes of the kernel (its .entry name) and whether it declares an
   extern .shared array; 0, or -1 when there is no such kernel. */
int lab_decls_shared(const lab_decls *d, const char *kernel, uint32_t *static_bytes,
                     int *dynamic);

/* The kernel's shared arrays where a launch places them (static ones in declaration
   order, then the extern ones at the dynamic area's base, size 0), each by the name the
   source gives it ("warp_sums", not its mangled PTX name). Returns how many (the
   first max written), or -1 when there is no such kernel. */
typedef struct lab_shared_var {
    char name[64];
    uint64_t offset, size;
    int dynamic;
} lab_shared_var;
int lab_decls_shared_vars(const lab_decls *d, const char *kernel, lab_shared_var *out, int max);

/* The source's name of a PTX variable: "_ZZ10reduceSmemPKiPiiE4smem" is "smem" (a
   static in a function), "_ZZ...E4tile_0" is "tile"; a name not mangled is itself. */
void lab_decls_source_name(const char *ptx_name, char *out, size_t size);

/* "const", "global", "shared" ...: the state space of the module variable
   name, or NULL when the PTX declares none. */
const char *lab_decls_space(const lab_decls *d, const char *name);

/* Whether the kernel (its .entry name) calls function callee ("vprintf"), itself or
   through the functions it calls. */
int lab_decls_calls(const lab_decls *d, const char *kernel, const char *callee);

/* Whether the kernel, or a function it reaches, has an instruction that neither the
   trace nor the hardware counters measure (a bulk copy by the tensor memory
   accelerator, say): 1 with what ("`cp.async.bulk...` (lab1.cu:73)"), else 0. */
int lab_decls_unmeasured(const lab_decls *d, const char *kernel, char *what, size_t what_size);

/* Whether the kernel, or a function it reaches, reads %reserved_smem_offset_*: it uses
   the block's reserved shared memory (cooperative groups' tile of more than a warp keeps
   its barrier there), whose accesses are the toolkit's, not the student's. */
int lab_decls_reserved_smem(const lab_decls *d, const char *kernel);

/* Whether the kernel, or a function it reaches, has an instruction whose opcode starts
   with prefix ("shfl.sync.up": the direction of a shuffle): 1 with its own line
   ("lab8.cu:121", or "" where the PTX names none), else 0. */
int lab_decls_instr(const lab_decls *d, const char *kernel, const char *prefix, char *where,
                    size_t where_size);

#endif /* SMEMLAB_LAB_DECLS_H */
