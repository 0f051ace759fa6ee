/*
 * names.c - people's names as learning systems export them, made safe.
 *
 * A name may hold spaces, commas, accents, quotes, a leading '=' or bytes
 * that are not UTF-8 at all. Two forms are kept: the name itself for the
 * gradebook (valid UTF-8, control characters replaced: every report escapes
 * it for its format) and a student id for file names (RESULTS/ID.json,
 * feedback/ID.html), derived from the name alone so that it is the same in
 * every run: a name that is already safe is its own id; any other is folded
 * to ASCII letters, digits and '_' and given the first 8 hex digits of the
 * name's SHA-256, so that two names that fold alike stay apart.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <ctype.h>
#include <string.h>

/* The next code point of s (advancing *i), or -1 for a byte that starts no valid UTF-8. */
static long utf8_next(const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    int len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (len == 0 || *i + (size_t)len > n) {
        (*i)++;
        return -1;
    }
    long cp = c & (0x3f >> (len - 1));
    for (int k = 1; k < len; k++) {
        if ((s[*i + k] & 0xc0) != 0x80) {
            (*i)++;
            return -1;
        }
        cp = (cp << 6) | (s[*i + k] & 0x3f);
    }
    static const long min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        (*i)++;
        return -1;
    }
    *i += (size_t)len;
    return cp;
}

static size_t put_utf8(char *out, size_t o, size_t size, long cp)
{
    char buf[4];
    size_t n;
    if (cp < 0x80)
        buf[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        buf[0] = (char)(0xc0 | (cp >> 6)), buf[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        buf[0] = (char)(0xe0 | (cp >> 12)), buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
        buf[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    else
        buf[0] = (char)(0xf0 | (cp >> 18)), buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), buf[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    if (o + n + 1 > size)
        return o;
    memcpy(out + o, buf, n);
    return o + n;
}

void name_clean(const char *in, char *out, size_t size)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t n = strlen(in), i = 0, o = 0;
    while (i < n && o + 1 < size) {
        long cp = utf8_next(s, n, &i);
        if (cp < 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
            cp = 0xfffd; /* not UTF-8, or a control character: shown as the replacement mark */
        size_t before = o;
        o = put_utf8(out, o, size, cp);
        if (o == before)
            break;
    }
    out[o] = 0;
}

/* Latin-1 and Latin Extended-A letters to ASCII ("" for what has no letter). */
static const char *fold_cp(long cp)
{
    static const char *const latin1[64] = {
        "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
        "D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "ss",
        "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
        "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y"};
    static const char ext_a[] = "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIi"
                                "IiJjKkkLlLlLlLlLlNnNnNnnNnOoOoOoOoRrRrRrSsSsSsSsTtTtTt"
                                "UuUuUuUuUuUuWwYyYZzZzZzs";
    static char one[2];
    if (cp >= 0xc0 && cp <= 0xff)
        return latin1[cp - 0xc0];
    if (cp == 0x132) return "IJ";
    if (cp == 0x133) return "ij";
    if (cp == 0x152) return "OE";
    if (cp == 0x153) return "oe";
    if (cp >= 0x100 && cp <= 0x17f) {
        one[0] = ext_a[cp - 0x100];
        one[1] = 0;
        return one;
    }
    return "";
}

void name_fold(const char *in, char *out, size_t size, int keep_punct)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t n = strlen(in), i = 0, o = 0;
    while (i < n && o + 4 < size) {
        long cp = utf8_next(s, n, &i);
        const char *f;
        char ascii[2] = {(char)cp, 0};
        if (cp >= 0 && cp < 0x80 && isalnum((int)cp))
            f = ascii;
        else if (cp >= 0x80)
            f = fold_cp(cp);
        else
            f = keep_punct ? "_" : "";
        for (; *f && o + 1 < size; f++)
            out[o++] = *f;
    }
    out[o] = 0;
}

static int safe_as_is(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || !isalnum((unsigned char)s[0]))
        return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-'))
            return 0;
    return 1;
}

void name_safe_id(const char *name, char *out, size_t size)
{
    if (safe_as_is(name)) {
        snprintf(out, size, "%s", name);
        return;
    }
    char folded[256], squeezed[64];
    name_fold(name, folded, sizeof folded, 1);
    size_t o = 0;
    for (const char *p = folded; *p && o + 1 < 41; p++) { /* runs of '_' as one, none at the ends */
        if (*p == '_' && (o == 0 || squeezed[o - 1] == '_'))
            continue;
        squeezed[o++] = *p;
    }
    while (o > 0 && squeezed[o - 1] == '_')
        o--;
    squeezed[o] = 0;
    char hash[65];
    sha256_hex_of(name, strlen(name), hash);
    snprintf(out, size, "%s-%.8s", o ? squeezed : "student", hash);
}

void name_key(const char *name, char *out, size_t size)
{
    char folded[512];
    name_fold(name, folded, sizeof folded, 0);
    size_t o = 0;
    for (const char *p = folded; *p && o + 1 < size; p++)
        out[o++] = (char)tolower((unsigned char)*p);
    out[o] = 0;
}
