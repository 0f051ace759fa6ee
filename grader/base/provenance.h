/*
 * provenance.h - what graded a submission, short enough for a gradebook
 * column: "trace on NVIDIA H100 80GB HBM3, sm_90", "emulated on the CPU: no
 * GPU found; speed not measured". Read from the grader's device line, which
 * the grader's JSON carries whole ("device") and short ("provenance"), and
 * the batch reads from records written before the short one existed.
 */
#ifndef SMEMLAB_PROVENANCE_H
#define SMEMLAB_PROVENANCE_H

#include <stddef.h>

void device_provenance(const char *device, char *out, size_t size);

#endif
