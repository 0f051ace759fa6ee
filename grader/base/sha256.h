/*
 * sha256.h - SHA-256 digests, for what a record carries: the grader's own file,
 * its lab tables, a course file (provenance.h), a student's source (the batch),
 * so that one digest means one thing everywhere. OpenSSL's (libcrypto, Debian's
 * libssl-dev) does the hashing.
 */
#ifndef SMEMLAB_SHA256_H
#define SMEMLAB_SHA256_H

#include <stddef.h>

/* The digest of len bytes as 64 lower-case hex digits and a NUL ("" if the library fails). */
void sha256_hex_of(const void *data, size_t len, char out[65]);
/* A file's digest: 0, or -1 when it cannot be read ("" in out). */
int sha256_file_hex(const char *path, char out[65]);

#endif
