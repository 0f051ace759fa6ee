/*
 * sha256.h - SHA-256 (FIPS 180-4), for the digests a record carries: the
 * grader's own file, its lab tables, a course file (provenance.h). The batch
 * hashes sources with the same function, so one digest means one thing.
 */
#ifndef SMEMLAB_SHA256_H
#define SMEMLAB_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
/* The digest as 64 lower-case hex digits and a NUL. */
void sha256_final_hex(sha256_ctx *c, char out[65]);
void sha256_hex_of(const void *data, size_t len, char out[65]);
/* A file's digest: 0, or -1 when it cannot be read ("" in out). */
int sha256_file_hex(const char *path, char out[65]);

#endif
