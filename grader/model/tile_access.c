/* tile_access.c - which element each thread touches, and the corpus grammar;
 * see tile_model.h (no bank model here: the recorder and the batch link it). */
#include "tile_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long tile_offset(const tile_access *a, int bdimx, int bdimy, int tx, int ty)
{
    long t = (long)ty * bdimx + tx;
    switch (a->order) {
    case TILE_ROW:
        return (long)ty * a->pitch + tx;
    case TILE_COL:
        return (long)tx * a->pitch + ty;
    case TILE_TRANSPOSED:
        return (t % bdimy) * a->pitch + t / bdimy;
    case TILE_LINEAR:
        return a->arg[0] + a->arg[1] * (t / a->arg[2]);
    case TILE_XOR:
        return t ^ a->arg[0];
    case TILE_SWIZZLE:
        return (long)tx * a->pitch + (ty ^ (tx % bdimy));
    case TILE_AFFINE:
        return (a->arg[0] * t + a->arg[1]) % a->arg[2];
    case TILE_HASH:
        return (long)((((uint32_t)t * 2654435761u + (uint32_t)a->arg[0]) >> 7) %
                      (uint32_t)a->arg[1]);
    case TILE_TABLE:
        return a->table[t % TILE_TABLE_LANES];
    }
    return 0;
}

int tile_thread_active(const tile_access *a, int bdimx, int tx, int ty)
{
    long t = (long)ty * bdimx + tx;
    return a->lanes == 0 || (a->lanes >> (t % 32) & 1u);
}

int tile_access_valid(const tile_access *a)
{
    switch (a->order) {
    case TILE_ROW: case TILE_COL: case TILE_TRANSPOSED: case TILE_SWIZZLE:
        return a->pitch > 0;
    case TILE_LINEAR:
        return a->arg[0] >= 0 && a->arg[1] >= 0 && a->arg[2] > 0;
    case TILE_AFFINE:
        return a->arg[0] >= 0 && a->arg[1] >= 0 && a->arg[2] > 0;
    case TILE_HASH:
        return a->arg[0] >= 0 && a->arg[1] > 0;
    case TILE_XOR:
        return a->arg[0] >= 0;
    case TILE_TABLE:
        for (int i = 0; i < TILE_TABLE_LANES; i++)
            if (a->table[i] < 0)
                return 0;
        return 1;
    }
    return 0;
}

const char *tile_order_name(tile_order o)
{
    switch (o) {
    case TILE_ROW: return "row";
    case TILE_COL: return "column";
    case TILE_TRANSPOSED: return "irow/icol";
    case TILE_LINEAR: return "linear";
    case TILE_XOR: return "xor";
    case TILE_SWIZZLE: return "swizzled column";
    case TILE_AFFINE: return "affine";
    case TILE_HASH: return "gather";
    case TILE_TABLE: return "lane table";
    }
    return "?";
}

/* --- the corpus grammar ---------------------------------------------------- */

static const struct {
    const char *name;
    tile_order order;
    int args; /* numbers after the name; the pitch is the first of row/col/swz */
} kinds[] = {
    {"row", TILE_ROW, 1}, {"col", TILE_COL, 1}, {"swz", TILE_SWIZZLE, 1},
    {"lin", TILE_LINEAR, 3}, {"xor", TILE_XOR, 1}, {"aff", TILE_AFFINE, 3},
    {"hsh", TILE_HASH, 2}, {"tab", TILE_TABLE, TILE_TABLE_LANES},
};

/* One number of text at *p, ended by one of `ends` (or the string's end). */
static int number(const char **p, const char *ends, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(*p, &end, 10);
    if (end == *p || errno || v < 0 || v > 0xffffffffL || (*end && !strchr(ends, *end)))
        return -1;
    *out = v;
    *p = end;
    return 0;
}

int tile_access_parse(const char *text, tile_access *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    const char *colon = strchr(text, ':');
    size_t n_kinds = sizeof kinds / sizeof kinds[0], k = 0;
    while (colon && k < n_kinds &&
           !(strlen(kinds[k].name) == (size_t)(colon - text) &&
             strncmp(kinds[k].name, text, (size_t)(colon - text)) == 0))
        k++;
    if (!colon || k == n_kinds) {
        snprintf(why, why_size, "'%.60s': not an access (row, col, swz, lin, xor, aff, hsh, "
                 "tab, then ':' and numbers)", text);
        return -1;
    }
    out->order = kinds[k].order;
    const char *p = colon + 1;
    for (int i = 0; i < kinds[k].args; i++) {
        long v;
        const char *sep = out->order == TILE_TABLE ? ",@" : ":@";
        if (i > 0 && *p++ != sep[0])
            goto bad;
        if (number(&p, sep, &v) != 0)
            goto bad;
        if (out->order == TILE_TABLE)
            out->table[i] = (int)v;
        else if (i == 0 && kinds[k].args == 1 && out->order != TILE_XOR)
            out->pitch = (int)v;
        else
            out->arg[i] = v;
    }
    if (*p == '@') {
        char *end;
        unsigned long m = strtoul(p + 1, &end, 16);
        if (end == p + 1 || *end || m == 0 || m > 0xffffffffUL)
            goto bad;
        out->lanes = (uint32_t)m;
    } else if (*p) {
        goto bad;
    }
    if (!tile_access_valid(out))
        goto bad;
    return 0;
bad:
    snprintf(why, why_size, "'%.60s': a %s access takes %d number%s%s (and @MASK in hex "
             "for the lanes that take part)", text, kinds[k].name, kinds[k].args,
             kinds[k].args == 1 ? "" : "s", out->order == TILE_TABLE ? ", separated by ','" : "");
    return -1;
}
