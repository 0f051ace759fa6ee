/*
 * checks.h - every check the grader knows, by id: its name (what reports and
 * --json call it) is one string in checks.c, and each kind of problem lists
 * the ids it grades, in the order reports show them. The lab tables give a
 * check its points by id (lab_kernel.points.of[CHK_...]), the problem kinds
 * judge it by id (problems/problem.h), the runner and the reports compare ids:
 * a misspelt check is a compile error, never a check no one runs.
 */
#ifndef SMEMLAB_CHECKS_H
#define SMEMLAB_CHECKS_H

typedef enum check_id {
    CHK_NONE,            /* no check: a name check_id_of does not know */
    CHK_CORRECT,         /* the output against the host reference, on every size */
    CHK_STORE_REQUESTS,  /* tile labs: shared store requests against the bank model */
    CHK_LOAD_REQUESTS,
    CHK_STORE_CONFLICTS, /* tile labs: the stores' conflict degree against the model */
    CHK_LOAD_CONFLICTS,
    CHK_COUNTS,          /* the idiom corpus: what the measurement saw, in words */
    CHK_GLOBAL_LOADS,    /* labs 5, 6, 10: global load instructions against the tiled model */
    CHK_GLOBAL_TRAFFIC,  /* labs 7, 8: global loads and stores against the step's model */
    CHK_LOAD_COALESCING, /* lab 9: the global side's sectors against their ideal */
    CHK_STORE_COALESCING,
    CHK_SMEM_CONFLICTS,  /* labs 5 to 10: the kernel's shared conflicts against its model */
    CHK_SHUFFLE,         /* lab 8: shuffles executed, shared memory only where asked */
    CHK_MEMORY_PATH,     /* lab 10: the coefficients or the table read through the path asked */
    CHK_CONST_SERIAL,    /* lab 10: distinct constant addresses a warp request, as modelled */
    CHK_DYNAMIC_TILE,    /* the tile is dynamic: extern __shared__, its bytes at launch */
    CHK_RACE,            /* no two warps touch one shared word between barriers */
    CHK_SPEED,           /* against the kind's reference (cuBLAS, a copy, CUB), GPU only */
    CHECK_IDS
} check_id;

/* The name of a check ("correct", "store-requests", ...); "" for CHK_NONE. */
const char *check_name(check_id id);

/* The id of a check's name, or CHK_NONE. */
check_id check_id_of(const char *name);

#endif /* SMEMLAB_CHECKS_H */
