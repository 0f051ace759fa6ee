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
/* The backend that measured, from the same line: "trace", "counters", "emulator", or
   "none" where no meter ran. */
const char *device_backend(const char *device);

/*
 * What graded a record, whole enough to grade it again the same way
 * (docs/instructors.md#provenance): the grader's version (git describe of the
 * kit it was built from, "-dirty" where its tree had changes; a student kit's
 * VERSION file), the SHA-256 of the grader's own program, the course file, the
 * options that decide a grade, the host and the time. The lab's table digest
 * and its toolchain are the lab's (lab_table_digest, lab_result.toolchain).
 */
typedef struct run_provenance {
    char version[128];
    char grader_sha256[65];
    char course[1024], course_sha256[65]; /* "" where no course file was read */
    unsigned long long seed;
    int repeats, counters;
    double timeout_s;
    const char *measure; /* auto, counters, trace, emulator */
    const char *kernel;  /* --kernel, or NULL */
    char host[256];
    char time[32];       /* UTC, ISO 8601 */
} run_provenance;

const char *grader_version(void);
/* The running program's own SHA-256 (/proc/self/exe): 0, or -1 ("" in out). */
int program_digest(char out[65]);
/* The host and the time fields of p, now. */
void provenance_stamp(run_provenance *p);

#endif
