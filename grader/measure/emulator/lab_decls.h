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

#endif /* SMEMLAB_LAB_DECLS_H */
