/* sha256.c - SHA-256 through OpenSSL's EVP interface; see sha256.h. */
#include "sha256.h"

#include <openssl/evp.h>
#include <stdio.h>

static void hex(const unsigned char *d, unsigned n, char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < n && i < 32; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[n == 32 ? 64 : 0] = '\0';
}

void sha256_hex_of(const void *data, size_t len, char out[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    out[0] = '\0';
    if (EVP_Digest(data, len, d, &n, EVP_sha256(), NULL))
        hex(d, n, out);
}

int sha256_file_hex(const char *path, char out[65])
{
    unsigned char buf[1 << 16], d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    size_t got;
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *c = f ? EVP_MD_CTX_new() : NULL;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0)
        ok = EVP_DigestUpdate(c, buf, got);
    ok = ok && !ferror(f) && EVP_DigestFinal_ex(c, d, &n);
    EVP_MD_CTX_free(c);
    if (f)
        fclose(f);
    if (!ok)
        return -1;
    hex(d, n, out);
    return 0;
}
