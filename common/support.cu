/*
 * support.cu - linked into every lab library by the kit's Makefile.
 *
 * It marks the library as built against this contract. Everything the grader
 * runs on the GPU besides the student's kernels (scrubbing shared memory,
 * fresh inputs, checks) is the grader's own code (grader/device/), never the
 * lab library's: the library is the student's to change.
 */
#include "smemlab.h"

SMEMLAB_EXTERN_C __attribute__((visibility("default"))) const int smemlab_contract_version =
    SMEMLAB_CONTRACT_VERSION;
