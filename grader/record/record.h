/*
 * record.h - what the recorder process sends: the launches a launcher made.
 *
 * The recorder (smemlab-record) runs the student's host code, so nothing it
 * sends is trusted: a record says only what to launch, the grader validates
 * it against the lab's contract (validate.h) and launches the student's
 * kernels itself. Records are fixed-size; text fields are NUL-terminated by
 * the reader, never by trusting the writer.
 *
 * The recorder passes fake device pointers to the launchers: buffer i of a
 * call is FAKE_BUFFER(i). They are not addresses at all (the host faults on
 * them), and in a recorded argument they name the grader's buffer i.
 */
#ifndef SMEMLAB_RECORD_H
#define SMEMLAB_RECORD_H

#include <stdint.h>

#define REC_MAGIC 0x534d5231u /* "SMR1" */
#define REC_MAX_LAUNCHES 8     /* recorded per call; the lab table allows fewer */
#define REC_MAX_PARAM_BYTES 512
#define REC_MAX_VIOLATIONS 4
#define REC_NAME 256

#define FAKE_BUFFER_BASE 0x5e1ab00000000000ull /* non-canonical: a host access faults */
#define FAKE_BUFFER_SPAN 0x0000010000000000ull /* 1 TiB per buffer */
#define FAKE_BUFFER(i) (FAKE_BUFFER_BASE + (uint64_t)(i) * FAKE_BUFFER_SPAN)

/* cudaFuncSetAttribute calls a launcher may make (the others are violations). */
#define REC_ATTR_UNSET (-1)

typedef struct rec_launch {
    char kernel[REC_NAME];  /* device name, from the runtime's registration */
    uint32_t grid[3], block[3];
    uint64_t shared_bytes;
    uint64_t stream;        /* 0: the default stream */
    uint32_t param_bytes;
    unsigned char params[REC_MAX_PARAM_BYTES];
    int32_t max_dynamic_shared; /* cudaFuncAttributeMaxDynamicSharedMemorySize, or unset */
    int32_t carveout;           /* cudaFuncAttributePreferredSharedMemoryCarveout, or unset */
    int32_t smem_config;        /* the cudaSharedMemConfig in force (a launcher's
                                   cudaDeviceSetSharedMemConfig or cudaFuncSetSharedMemConfig:
                                   Kepler's bank mode, a no-op since), or unset */
} rec_launch;

typedef enum rec_status {
    REC_RETURNED = 1, /* the launcher returned */
    REC_NO_LAUNCHER,  /* the library does not export it */
    REC_NOT_LOADED,   /* the library could not be loaded: text says why */
    REC_LOADED,       /* the library is loaded (its constructors ran) */
    REC_ABORTED       /* the launcher aborted (abort(), an uncaught C++ exception: a
                         library's host code that threw on a call the recorder refused);
                         the record holds the calls refused until then */
} rec_status;

typedef struct rec_call {
    uint32_t magic;
    int32_t kernel, call, repeat;
    int32_t status;
    int32_t n_launches;        /* launches made; only the first REC_MAX_LAUNCHES are kept */
    int32_t n_violations;      /* calls a launcher may not make, counted */
    char violations[REC_MAX_VIOLATIONS][64]; /* the first few, by name */
    char text[256];
    rec_launch launches[REC_MAX_LAUNCHES];
} rec_call;

#endif
