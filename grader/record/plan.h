/*
 * plan.h - launches the grader replays: a launcher's record, validated.
 *
 * A plan names a kernel of the student's own module (by index into the lab
 * image), its configuration and its argument bytes, with every pointer
 * argument turned into a reference to one of the grader's buffers (a
 * relocation). The measuring process fills in its own buffers and launches;
 * nothing in a plan can point anywhere else.
 */
#ifndef SMEMLAB_PLAN_H
#define SMEMLAB_PLAN_H

#include "../labs/calls.h"
#include "../image/lab_image.h"
#include "../labs/lab_table.h"
#include "record.h"

#include <stddef.h>
#include <stdint.h>

#define PLAN_MAX_LAUNCHES 4
#define PLAN_MAX_RELOCS 16

typedef struct plan_reloc {
    uint32_t offset; /* of the 8-byte word in the parameter buffer */
    int32_t buffer;
    uint64_t delta;  /* bytes into the buffer */
} plan_reloc;

typedef struct plan_launch {
    int kernel;      /* index into lab_image.kernels */
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;
    int32_t max_dynamic_shared, carveout; /* REC_ATTR_UNSET or the value to set */
    int32_t smem_config;  /* REC_ATTR_UNSET or the launcher's cudaSharedMemConfig: recorded,
                             not set (a no-op since Kepler; the emulated K40's bank mode) */
    uint32_t param_bytes;
    unsigned char params[REC_MAX_PARAM_BYTES];
    int n_relocs;
    plan_reloc relocs[PLAN_MAX_RELOCS];
} plan_launch;

typedef struct call_plan {
    int n_launches;
    plan_launch launches[PLAN_MAX_LAUNCHES];
} call_plan;

/* What the grader decided about one kernel's launcher. */
typedef enum plan_verdict {
    PLAN_PENDING,   /* not recorded yet */
    PLAN_OK,        /* every call validated: the measurer replays calls[] */
    PLAN_MISSING,   /* the library does not export the launcher */
    PLAN_REJECTED,  /* why[] says what the launcher did wrong */
    PLAN_NOT_ASKED  /* --kernel named another kernel: neither graded nor reported */
} plan_verdict;

typedef struct kernel_plan {
    plan_verdict verdict;
    char why[512];
    int n_calls;
    call_spec specs[CALL_MAX];
    call_plan calls[CALL_MAX];
} kernel_plan;

/* Limits the lab's contract sets on any launch (lab_def.limits; 0 means the default). */
int plan_max_launches(const lab_def *lab);
unsigned long long plan_max_blocks(const lab_def *lab);
unsigned plan_max_shared(const lab_def *lab);

/* The calls a record's launcher made that the recorder refused, named (with the library
   whose host code makes them, where the image holds its kernels) in why: 1, or 0 for none. */
int plan_refused_calls(const lab_kernel *k, const lab_image *img, const rec_call *r, char *why,
                       size_t n);

/*
 * Turn the two records of one call (made twice with the same arguments) into
 * a plan. Returns 0, or -1 with the message a student reads in why.
 */
int plan_from_records(const lab_def *lab, const lab_kernel *k, const lab_image *img,
                      const call_spec *spec, const rec_call *first, const rec_call *second,
                      call_plan *out, char *why, size_t why_size);

#endif
