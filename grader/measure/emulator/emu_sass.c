/*
 * emu_sass.c - the access widths the GPU executes, for the emulator's records
 * (docs/emulator.md#widths).
 *
 * The emulator runs PTX; ptxas, after it, may narrow an access (an 8-byte
 * load of which 4 bytes are used becomes LDS.32, at +4 for the high half) or
 * merge adjacent ones (two 4-byte loads of one base become LDS.64). The lab's
 * library carries the SASS ptxas made of the same PTX: read it (image/sass.h,
 * no nvdisasm needed), and match its shared accesses with the PTX's source
 * line by source line, kind by kind:
 *   as many SASS as PTX accesses on a line: in order; a narrower SASS one narrows the
 *     PTX one (its offset in the element from the two immediates);
 *   a wider SASS access: a run of PTX accesses of one base at adjacent offsets, one on
 *     its line (ptxas merges neighbouring lines' too), merges into it, the smallest
 *     offset carrying the record;
 *   anything else: the PTX's widths stay (counted in the note).
 */
#include "emu_sass.h"

#include "../access/lineinfo.h"
#include "../../image/sass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The PTX access kind a SASS class carries out, or -1. */
static int kind_of(int cls)
{
    switch (cls) {
    case SASS_LDS: return EMU_ACC_LOAD;
    case SASS_STS: return EMU_ACC_STORE;
    case SASS_ATOMS: return EMU_ACC_ATOMIC;
    case SASS_LDGSTS: return EMU_ACC_ASYNC;
    case SASS_LDSM: return EMU_ACC_MATRIX_LOAD;
    case SASS_STSM: return EMU_ACC_MATRIX_STORE;
    default: return -1;
    }
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

typedef struct gpu_access {
    int kind, width, line;
    int32_t imm;
    const char *file;
} gpu_access;

typedef struct fix_list {
    emu_access_fix *v;
    int n, cap;
} fix_list;

static int add_fix(fix_list *l, emu_access_fix f)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        emu_access_fix *nv = realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = f;
    return 0;
}

static int same_place(const char *file_a, int line_a, const char *file_b, int line_b)
{
    return line_a == line_b && strcmp(base_name(file_a), base_name(file_b)) == 0;
}

/* A narrower SASS access for PTX access p: the bytes it reads, where in the element. */
static int narrow(int f, const emu_access_info *p, const gpu_access *g, fix_list *l)
{
    int64_t shift = (int64_t)g->imm - p->imm;
    shift = ((shift % p->width) + p->width) % p->width;
    if (shift + g->width > p->width)
        shift = 0;
    return add_fix(l, (emu_access_fix){(uint32_t)f, p->instr, (uint8_t)g->width, (uint8_t)shift, 0});
}

/* Step 1, a place (file, line) and kind at a time: as many accesses on both sides pair
   in order; a narrower SASS one narrows its PTX one, a wider one waits for step 2. */
static int pair_places(int f, const emu_access_info *p, int np, uint8_t *p_done,
                       const gpu_access *g, int ng, uint8_t *g_done, fix_list *l)
{
    for (int i = 0; i < np; i++) {
        int at[64], n = 0, gat[64], m = 0;
        if (p_done[i])
            continue;
        for (int j = i; j < np && n < 64; j++)
            if (!p_done[j] && p[j].kind == p[i].kind &&
                same_place(p[j].file, p[j].line, p[i].file, p[i].line))
                at[n++] = j;
        for (int j = 0; j < ng && m < 64; j++)
            if (!g_done[j] && g[j].kind == p[i].kind &&
                same_place(g[j].file, g[j].line, p[i].file, p[i].line))
                gat[m++] = j;
        if (n != m) {
            p_done[i] = 2; /* left for step 2 */
            continue;
        }
        for (int k = 0; k < n; k++) {
            const emu_access_info *x = &p[at[k]];
            const gpu_access *y = &g[gat[k]];
            if (y->width > x->width)
                continue; /* merged with another PTX access: step 2 */
            if (y->width < x->width && narrow(f, x, y, l))
                return -1;
            p_done[at[k]] = g_done[gat[k]] = 1;
        }
    }
    for (int i = 0; i < np; i++)
        p_done[i] = p_done[i] == 1;
    return 0;
}

/* Step 2: a SASS access wider than what is left of its line takes a run of PTX accesses
   of its kind, one base, adjacent offsets, one of them on its line (ptxas merges accesses
   of neighbouring source lines too), smallest offset first. */
static int merge_runs(int f, const emu_access_info *p, int np, uint8_t *p_done,
                      const gpu_access *g, int ng, uint8_t *g_done, fix_list *l)
{
    for (int j = 0; j < ng; j++) {
        if (g_done[j])
            continue;
        for (int i = 0; i < np && !g_done[j]; i++) {
            if (p_done[i] || p[i].kind != g[j].kind ||
                !same_place(p[i].file, p[i].line, g[j].file, g[j].line))
                continue;
            /* the run through p[i]: walk down to its start, then up to the width */
            int first = i, bytes, k;
            for (int moved = 1; moved;) {
                moved = 0;
                for (k = 0; k < np; k++)
                    if (!p_done[k] && p[k].kind == g[j].kind && p[k].base == p[first].base &&
                        p[k].imm + p[k].width == p[first].imm && p[first].imm - p[k].imm <
                        g[j].width) {
                        first = k;
                        moved = 1;
                    }
            }
            int run[16], n = 0;
            run[n++] = first;
            bytes = p[first].width;
            while (bytes < g[j].width && n < 16) {
                int next = -1;
                for (k = 0; k < np; k++)
                    if (!p_done[k] && p[k].kind == g[j].kind && p[k].base == p[first].base &&
                        p[k].imm == p[first].imm + bytes)
                        next = k;
                if (next < 0)
                    break;
                run[n++] = next;
                bytes += p[next].width;
            }
            int covers = 0;
            for (k = 0; k < n; k++)
                covers |= run[k] == i;
            if (bytes != g[j].width || n < 2 || !covers)
                continue;
            if (add_fix(l, (emu_access_fix){(uint32_t)f, p[first].instr, (uint8_t)bytes, 0, 0}))
                return -1;
            for (k = 1; k < n; k++)
                if (add_fix(l, (emu_access_fix){(uint32_t)f, p[run[k]].instr, 0, 0, 1}))
                    return -1;
            for (k = 0; k < n; k++)
                p_done[run[k]] = 1;
            g_done[j] = 1;
        }
    }
    return 0;
}

/* One function: its SASS and PTX shared accesses, matched. */
static int fix_function(emu_module *m, int f, const void *cubin, size_t size,
                        const line_table *lines, fix_list *l, int *unmatched)
{
    const char *name = emu_function_name(m, f);
    sass_access *sa = NULL;
    emu_access_info *pa = NULL;
    int ns = 0, np = 0, arch, n = 0, rc = -1;
    char why[160];
    if (sass_function_accesses(cubin, size, name, &sa, &ns, &arch, why, sizeof why) != 0 ||
        emu_function_accesses(m, f, &pa, &np) != 0) {
        free(sa);
        free(pa);
        return 0; /* a function without SASS of its own (inlined everywhere), or unread */
    }
    gpu_access *g = malloc(((size_t)ns + 1) * sizeof *g);
    uint8_t *p_done = calloc((size_t)np + 1, 1), *g_done = calloc((size_t)ns + 1, 1);
    if (g && p_done && g_done) {
        for (int i = 0; i < ns; i++) {
            line_loc loc;
            int kind = kind_of(sa[i].cls);
            if (kind < 0 || sa[i].never || lineinfo_lookup(lines, name, sa[i].offset, &loc) != 0)
                continue;
            g[n++] = (gpu_access){kind, sa[i].width, loc.line, sa[i].imm, loc.file};
        }
        rc = pair_places(f, pa, np, p_done, g, n, g_done, l) ||
                     merge_runs(f, pa, np, p_done, g, n, g_done, l) ? -1 : 0;
        for (int j = 0; j < n; j++)
            *unmatched += !g_done[j];
    }
    free(p_done);
    free(g_done);
    free(g);
    free(sa);
    free(pa);
    return rc;
}

int emu_sass_fix(emu_module *m, const lab_image *img, char *note, size_t note_size)
{
    const unsigned char *cubin;
    size_t size;
    int arch, unmatched = 0, rc = 0;
    line_table lines;
    fix_list l = {0};
    char why[200];
    note[0] = '\0';
    if (sass_newest_cubin(img, &cubin, &size, &arch, why, sizeof why) != 0 ||
        lineinfo_from_cubin(cubin, size, &lines, why, sizeof why) != 0) {
        snprintf(note, note_size, "the widths are PTX's: %s", why);
        return 0;
    }
    for (int f = 0; rc == 0 && f < emu_function_count(m); f++)
        rc = fix_function(m, f, cubin, size, &lines, &l, &unmatched);
    if (rc == 0 && l.n)
        rc = emu_module_fix_accesses(m, l.v, l.n);
    if (unmatched)
        snprintf(note, note_size, "%d shared accesses of the SASS (sm_%d) the emulator does not "
                 "match with its PTX: the PTX's widths there", unmatched, arch);
    free(l.v);
    lineinfo_free(&lines);
    return rc;
}
