/*
 * test_sass.c - the SASS reader (grader/image/sass.c) against what NVIDIA's
 * nvdisasm printed (tests/sass/listings/NAME.smXX.txt, CUDA 13.0) for the
 * cubins make check-unit builds here from the same sources with the same
 * flags (SMEMLAB_SASS_CUBINS/NAME.smXX.cubin): ptxas writes the same bytes,
 * which the test checks first. Every listed instruction is decoded and
 * compared with its mnemonic and operands; sass.*.txt list every
 * instruction, the others their memory instructions only. Then damaged
 * and hostile inputs.
 */
#define _POSIX_C_SOURCE 200809L
#include "image/elf_view.h"
#include "image/sass.h"

#include "ptx/tests/unit/emu_testlib.h"

#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LISTINGS "tests/sass/listings/"

static char why[512];

/* --- the listings ---------------------------------------------------------------- */

typedef struct insn {
    uint32_t off;
    char pred[8];   /* "@!PT", "@P0", or "" */
    char text[200]; /* mnemonic and operands */
    uint64_t lo, hi;
} insn;

typedef struct func {
    char name[256];
    insn *v;
    int n;
} func;

typedef struct listing {
    func f[64];
    int n;
} listing;

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static void read_listing(const char *path, listing *l)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    memset(l, 0, sizeof *l);
    char *line = NULL;
    size_t cap = 0;
    insn *pending = NULL;
    while (getline(&line, &cap, f) > 0) {
        const char *s = skip_ws(line), *colon;
        if (strncmp(line, ".text.", 6) == 0 && (colon = strchr(line, ':'))) {
            ck_assert_int_lt(l->n, 64);
            func *fn = &l->f[l->n++];
            snprintf(fn->name, sizeof fn->name, "%.*s", (int)(colon - line - 6), line + 6);
            continue;
        }
        if (strncmp(s, "/* 0x", 5) == 0 && pending) { /* the second word */
            pending->hi = strtoull(s + 3, NULL, 16);
            pending = NULL;
            continue;
        }
        char *end;
        if (s[0] != '/' || s[1] != '*' || !isxdigit((unsigned char)s[2]))
            continue;
        unsigned long off = strtoul(s + 2, &end, 16);
        if (end[0] != '*' || end[1] != '/')
            continue;
        ck_assert_msg(l->n > 0, "%s: an instruction before any .text.NAME: label", path);
        func *fn = &l->f[l->n - 1];
        fn->v = realloc(fn->v, (size_t)(fn->n + 1) * sizeof *fn->v);
        ck_assert_ptr_nonnull(fn->v);
        insn *in = &fn->v[fn->n++];
        memset(in, 0, sizeof *in);
        in->off = (uint32_t)off;
        s = skip_ws(end + 2);
        if (*s == '@') {
            size_t k = strcspn(s, " ");
            snprintf(in->pred, sizeof in->pred, "%.*s", (int)k, s);
            s = skip_ws(s + k);
        }
        const char *semi = strchr(s, ';'), *word = semi ? strstr(semi, "/* 0x") : NULL;
        ck_assert_msg(word != NULL, "%s: no encoding on line %s", path, line);
        size_t k = (size_t)(semi - s);
        while (k > 0 && s[k - 1] == ' ')
            k--;
        snprintf(in->text, sizeof in->text, "%.*s", (int)k, s);
        in->lo = strtoull(word + 3, NULL, 16);
        pending = in;
    }
    free(line);
    fclose(f);
}

static void free_listing(listing *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->f[i].v);
}

/* --- what a listed instruction says ---------------------------------------------- */

static int has_token(char tok[][16], int n, const char *t)
{
    for (int i = 1; i < n; i++)
        if (strcmp(tok[i], t) == 0)
            return 1;
    return 0;
}

/* The access the mnemonic and operands describe: 1, or 0 for another instruction. */
static int expected(const insn *in, sass_access *e)
{
    static const char *classes[] = {"", "LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS", "LDG", "STG"};
    static const char *ops[] = {"", "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH",
                                "CAS", "POPC"};
    char tok[12][16];
    int n = 0;
    size_t len = strcspn(in->text, " ");
    for (const char *p = in->text; p < in->text + len && n < 12; n++) {
        size_t k = strcspn(p, ". ");
        snprintf(tok[n], sizeof tok[n], "%.*s", (int)k, p);
        p += k + (p[k] == '.');
    }
    memset(e, 0, sizeof *e);
    for (int c = 1; c < 9; c++)
        if (strcmp(tok[0], classes[c]) == 0)
            e->cls = (uint8_t)c;
    if (e->cls == SASS_NONE)
        return 0;
    e->offset = in->off;
    e->never = strcmp(in->pred, "@!PT") == 0;
    if (e->cls == SASS_LDSM || e->cls == SASS_STSM) {
        e->width = 16;
        e->matrices = strcmp(tok[n - 1], "4") == 0 ? 4 : strcmp(tok[n - 1], "2") == 0 ? 2 : 1;
    } else if (e->cls == SASS_ATOMS) {
        e->width = has_token(tok, n, "64") ? 8 : 4;
        for (int o = 1; o < 12; o++)
            if (strcmp(tok[1], ops[o]) == 0)
                e->atom_op = (uint8_t)o;
        if (strcmp(tok[1], "CAST") == 0) /* CAST.SPIN */
            e->atom_op = SASS_ATOM_CAS;
        if (strcmp(tok[1], "POPC") == 0)
            e->atom_op = SASS_ATOM_POPC_INC;
        ck_assert_msg(e->atom_op != 0, "unknown atomic: %s", in->text);
    } else {
        e->width = has_token(tok, n, "U8") || has_token(tok, n, "S8")     ? 1
                   : has_token(tok, n, "U16") || has_token(tok, n, "S16") ? 2
                   : has_token(tok, n, "64")                              ? 8
                   : has_token(tok, n, "128")                             ? 16
                                                                          : 4;
    }
    /* the address: the first [...] (the shared one of LDGSTS), the last of LDG/STG
       (after desc[URn]) */
    const char *open = e->cls == SASS_LDG || e->cls == SASS_STG ? strrchr(in->text, '[')
                                                                : strchr(in->text, '[');
    ck_assert_msg(open != NULL, "no address in %s", in->text);
    for (const char *p = open + 1; *p && *p != ']';) {
        size_t k = strcspn(p, "+]");
        if (strncmp(p, "0x", 2) == 0 || strncmp(p, "-0x", 3) == 0)
            e->imm = (int32_t)strtol(p, NULL, 16);
        p += k + (p[k] == '+');
    }
    return 1;
}

/* --- the comparison --------------------------------------------------------------- */

static const char *cubin_dir(void)
{
    const char *d = getenv("SMEMLAB_SASS_CUBINS");
    ck_assert_msg(d != NULL, "SMEMLAB_SASS_CUBINS is not set (make check-unit sets it)");
    return d;
}

static unsigned char *cubin_of(const char *stem, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.cubin", cubin_dir(), stem);
    return et_slurp(path, n);
}

static uint64_t word(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static const func *listed_function(const listing *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->f[i].name, name) == 0)
            return &l->f[i];
    return NULL;
}

/*
 * One function: the reader's accesses against the listed instructions, in
 * order. A whole listing lists every 16 bytes; a filtered one every memory
 * instruction, so an access at an offset it does not list is one too many.
 */
static void compare_function(const char *stem, const unsigned char *cubin, size_t size,
                             const char *name, const unsigned char *text, size_t len,
                             const func *fn, int whole, int sm, int *n_insn, int *n_mem)
{
    sass_access *acc, e;
    int na, arch, j = 0;
    ck_assert_msg(sass_function_accesses(cubin, size, name, &acc, &na, &arch, why, sizeof why) == 0,
                  "%s: %s: %s", stem, name, why);
    ck_assert_int_eq(arch, sm);
    if (whole)
        ck_assert_msg(fn && (size_t)fn->n * 16 == len, "%s: %s: the listing is not whole", stem,
                      name);
    for (int i = 0; fn && i < fn->n; i++) {
        const insn *in = &fn->v[i];
        ck_assert_msg(!whole || in->off == (uint32_t)i * 16, "%s: %s+0x%x out of order", stem,
                      name, in->off);
        ck_assert_msg(in->off % 16 == 0 && in->off + 16 <= len, "%s: %s+0x%x past the code", stem,
                      name, in->off);
        ck_assert_msg(word(text + in->off) == in->lo && word(text + in->off + 8) == in->hi,
                      "%s: %s+0x%x: the cubin built here is not the one listed (a ptxas other "
                      "than CUDA 13.0's? regenerate tests/sass/listings)", stem, name, in->off);
        ck_assert_msg(j >= na || acc[j].offset >= in->off,
                      "%s: %s+0x%x: the reader finds a memory instruction the listing does not have",
                      stem, name, acc[j].offset);
        ++*n_insn;
        if (!expected(in, &e)) {
            ck_assert_msg(j >= na || acc[j].offset != in->off, "%s: %s+0x%x: %s read as memory",
                          stem, name, in->off, in->text);
            continue;
        }
        ck_assert_msg(j < na && acc[j].offset == in->off, "%s: %s+0x%x: %s not found", stem, name,
                      in->off, in->text);
        const sass_access *a = &acc[j++];
        ck_assert_msg(a->cls == e.cls && a->width == e.width && a->matrices == e.matrices &&
                          a->atom_op == e.atom_op && a->never == e.never && a->imm == e.imm,
                      "%s: %s+0x%x: %s%s%s: read class %d width %d matrices %d op %d never %d "
                      "imm %d, expected %d %d %d %d %d %d", stem, name, in->off, in->pred,
                      in->pred[0] ? " " : "", in->text, a->cls, a->width, a->matrices, a->atom_op,
                      a->never, a->imm, e.cls, e.width, e.matrices, e.atom_op, e.never, e.imm);
        ++*n_mem;
    }
    ck_assert_msg(j == na, "%s: %s+0x%x: the reader finds a memory instruction the listing does "
                  "not have", stem, name, j < na ? acc[j].offset : 0);
    free(acc);
}

/*
 * Functions CUDA 13.0's ptxas writes more than one way from run to run (the same
 * source and flags: two different cubins alternate over repeated builds), so a
 * listing of them matches some builds only. Each is compared where the cubin built
 * here is the listed one and skipped where it is not; it decides nothing about
 * whether this is the listings' ptxas.
 */
static const char *const unsteady[] = {
    "_Z11conv2dTiledILi7ELb1EEvPKfPfiii", /* lab 6's 7 x 7 float4 kernel: the largest */
};

static int is_unsteady(const char *name)
{
    for (size_t i = 0; i < sizeof unsteady / sizeof unsteady[0]; i++)
        if (strcmp(name, unsteady[i]) == 0)
            return 1;
    return 0;
}

/* Whether the bytes of fn are the ones listed. */
static int same_function(const unsigned char *text, size_t len, const func *fn)
{
    for (int j = 0; j < fn->n; j++)
        if (fn->v[j].off + 16 > len || word(text + fn->v[j].off) != fn->v[j].lo ||
            word(text + fn->v[j].off + 8) != fn->v[j].hi)
            return 0;
    return 1;
}

/* Whether the cubin built here is the one listed: the listings are CUDA 13.0's, and
   another ptxas (the kit takes 12.6 and later) writes other code; nothing to compare
   then, and nothing wrong with the reader. */
static int same_code(const unsigned char *cubin, size_t size, const listing *l)
{
    elf_view v;
    if (elf_open(&v, cubin, size) != 0)
        return 0;
    for (unsigned i = 0; i < v.n_sh; i++) {
        const char *name = elf_section_name(&v, &v.sh[i]);
        size_t len;
        const unsigned char *text;
        const func *fn;
        if (!name || strncmp(name, ".text.", 6) != 0 || !(fn = listed_function(l, name + 6)) ||
            is_unsteady(name + 6) || !(text = elf_section(&v, &v.sh[i], &len)))
            continue;
        if (!same_function(text, len, fn))
            return 0;
    }
    return 1;
}

static int other_ptxas; /* listings whose code this ptxas does not write */

static void compare_listing(const char *stem, int *n_insn, int *n_mem)
{
    static listing l;
    char path[512];
    size_t size;
    elf_view v;
    snprintf(path, sizeof path, LISTINGS "%s.txt", stem);
    read_listing(path, &l);
    unsigned char *cubin = cubin_of(stem, &size);
    if (!same_code(cubin, size, &l)) {
        other_ptxas++;
        free(cubin);
        free_listing(&l);
        return;
    }
    const char *dot = strrchr(stem, '.');
    int sm = atoi(dot + 3), whole = strncmp(stem, "sass.", 5) == 0, seen = 0;
    ck_assert_int_eq(elf_open(&v, cubin, size), 0);
    for (unsigned i = 0; i < v.n_sh; i++) {
        const char *name = elf_section_name(&v, &v.sh[i]);
        size_t len;
        const unsigned char *text;
        if (!name || strncmp(name, ".text.", 6) != 0)
            continue;
        ck_assert_ptr_nonnull(text = elf_section(&v, &v.sh[i], &len));
        const func *fn = listed_function(&l, name + 6);
        seen += fn != NULL;
        if (fn && is_unsteady(name + 6) && !same_function(text, len, fn))
            continue; /* ptxas wrote it the other way this time */
        compare_function(stem, cubin, size, name + 6, text, len, fn, whole, sm, n_insn, n_mem);
    }
    ck_assert_msg(seen == l.n, "%s: the listing names a function the cubin does not have", stem);
    free(cubin);
    free_listing(&l);
}

/* Every listing, every instruction it lists. */
START_TEST(test_listings)
{
    DIR *d = opendir(LISTINGS);
    ck_assert_msg(d != NULL, "run the tests from the kit's root");
    struct dirent *ent;
    int listings = 0, archs = 0, n_insn = 0, n_mem = 0;
    while ((ent = readdir(d))) {
        size_t len = strlen(ent->d_name);
        if (len < 9 || strcmp(ent->d_name + len - 4, ".txt") != 0 || !strstr(ent->d_name, ".sm"))
            continue;
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(len - 4), ent->d_name);
        compare_listing(stem, &n_insn, &n_mem);
        listings++;
        archs += strncmp(stem, "sass.widths.", 12) == 0;
    }
    closedir(d);
    ck_assert_int_eq(archs, 5); /* widths.cu on sm_75, 80, 86, 89, 90 */
    /* 13 of the tests' own sources; 13 more of the solutions, which the student kit
       does not have */
    ck_assert_int_ge(listings, access("solutions", F_OK) == 0 ? 26 : 13);
    if (other_ptxas == listings) { /* another CUDA than the listings': say so, compare nothing */
        printf("sass: note: this ptxas writes other code than CUDA 13.0's for all %d listings: "
               "nothing compared (tests/sass/listings are CUDA 13.0's)\n", listings);
        return;
    }
    ck_assert_msg(other_ptxas == 0, "%d of %d listings do not match the code built here while "
                  "the others do: a damaged listing?", other_ptxas, listings);
    printf("sass: %d listings, %d instructions compared, %d of them memory instructions\n",
           listings, n_insn, n_mem);
}
END_TEST

/* Words read off the listings, decoded alone. */
START_TEST(test_decode_words)
{
    sass_access a;
    /* STS [R3+-0x400], R0 (sm_90): a negative immediate */
    ck_assert_int_eq(sass_decode(0xfffc000003007388ull, 0x000fe20000000800ull, &a), 1);
    ck_assert_int_eq(a.cls, SASS_STS);
    ck_assert_int_eq(a.imm, -0x400);
    ck_assert_int_eq(a.width, 4);
    /* the ends of the 24-bit range (no listing reaches them: ptxas 13.0's words for
       ld.shared [r+0x7ffff0] and ldmatrix [r-0x800000] on sm_90) */
    ck_assert_int_eq(sass_decode(0x7ffff00007007984ull, 0x002e620000000800ull, &a), 1);
    ck_assert_int_eq(a.imm, 0x7ffff0);
    ck_assert_int_eq(sass_decode(0x800000000704783bull, 0x000ea80000000000ull, &a), 1);
    ck_assert_int_eq(a.cls, SASS_LDSM);
    ck_assert_int_eq(a.imm, -0x800000);
    /* @!PT LDS RZ, [RZ]: cp.async's padding */
    ck_assert_int_eq(sass_decode(0x00000000fffff984ull, 0x000fe20000000800ull, &a), 1);
    ck_assert_int_eq(a.never, 1);
    /* LDGSTS.E.64 [R15+0x1000], [R4.64] (sm_80): the shared immediate */
    ck_assert_int_eq(sass_decode(0x01000000040f7faeull, 0x000fe6000b921a44ull, &a), 1);
    ck_assert_int_eq(a.cls, SASS_LDGSTS);
    ck_assert_int_eq(a.width, 8);
    ck_assert_int_eq(a.imm, 0x1000);
    /* LDGSTS [R5+-0x4], [R2.64]: 20 signed bits (no listing has a negative one: this
       word is ptxas 13.0's for cp.async [r-4] on sm_80) */
    ck_assert_int_eq(sass_decode(0xffffc00002057faeull, 0x000fe8000b921844ull, &a), 1);
    ck_assert_int_eq(a.imm, -4);
    /* LDS.U8 with the size field set to 7, no access size: refused */
    ck_assert_int_eq(sass_decode(0x0000000011007984ull, 0x000ea80008000e00ull, &a), -1);
    /* an ATOMS operation past EXCH: refused */
    ck_assert_int_eq(sass_decode(0x0000000c04ff798cull, 0x000fe2000c800005ull, &a), -1);
    /* LDSM with a matrix count of 3: refused */
    ck_assert_int_eq(sass_decode(0x000000000004783bull, 0x000e240000000300ull, &a), -1);
    /* LDC R1, c[0x0][0x28]: not memory the reader reports */
    ck_assert_int_eq(sass_decode(0x00000a00ff017b82ull, 0x000fe20000000800ull, &a), 0);
    ck_assert_int_eq(a.cls, SASS_NONE);
}
END_TEST

/* --- damaged and hostile cubins ---------------------------------------------------- */

static unsigned char *base_cubin(size_t *n)
{
    return cubin_of("sass.widths.sm90", n);
}

/* The file offset of the section header of .text.NAME. */
static size_t text_header(const unsigned char *c, size_t n, const char *name)
{
    elf_view v;
    ck_assert_int_eq(elf_open(&v, c, n), 0);
    char full[256];
    snprintf(full, sizeof full, ".text.%s", name);
    const Elf64_Shdr *s = elf_find(&v, full);
    ck_assert_ptr_nonnull(s);
    return (size_t)((const unsigned char *)s - c);
}

static int read_plain(const unsigned char *c, size_t n, int *na, int *arch)
{
    sass_access *acc = NULL;
    int rc = sass_function_accesses(c, n, "plain", &acc, na, arch, why, sizeof why);
    ck_assert(rc == 0 || (acc == NULL && *na == 0));
    free(acc);
    return rc;
}

START_TEST(test_damaged_cubins)
{
    size_t n;
    int na, arch;
    unsigned char *b = base_cubin(&n), *c = malloc(n);
    sass_access *acc;

    ck_assert_int_eq(read_plain(b, n, &na, &arch), 0);
    ck_assert_int_eq(arch, 90);
    ck_assert_int_gt(na, 10);

    /* not an ELF, cut short, empty */
    ck_assert_int_eq(read_plain((const unsigned char *)"#!/bin/sh\n", 10, &na, &arch), -1);
    ck_assert_str_eq(why, "not a 64-bit little-endian ELF cubin");
    ck_assert_int_eq(read_plain(b, 100, &na, &arch), -1);
    ck_assert_str_eq(why, "not a 64-bit little-endian ELF cubin");
    ck_assert_int_eq(sass_function_accesses(NULL, 0, "plain", &acc, &na, &arch, why, sizeof why), -1);
    ck_assert_ptr_null(acc);

    /* no such function; no name */
    ck_assert_int_eq(sass_function_accesses(b, n, "_Z6nosuchPi", &acc, &na, &arch, why, sizeof why), -1);
    ck_assert_str_eq(why, "the cubin has no function _Z6nosuchPi");
    ck_assert_int_eq(sass_function_accesses(b, n, NULL, &acc, &na, &arch, why, sizeof why), -1);

    /* the code section past the end of the file, or longer than it */
    size_t sh = text_header(b, n, "plain");
    Elf64_Shdr s;
    memcpy(c, b, n);
    memcpy(&s, c + sh, sizeof s);
    s.sh_offset = n - 16;
    memcpy(c + sh, &s, sizeof s);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_str_eq(why, "the code of plain lies outside the cubin");
    s.sh_offset = UINT64_MAX - 8;
    memcpy(c + sh, &s, sizeof s);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_str_eq(why, "the code of plain lies outside the cubin");
    /* a part of an instruction at the end */
    memcpy(c, b, n);
    memcpy(&s, c + sh, sizeof s);
    s.sh_size -= 8;
    memcpy(c + sh, &s, sizeof s);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_ptr_nonnull(strstr(why, "not whole instructions"));

    /* architectures: ABI version 7 keeps the sm number in the low byte */
    Elf64_Ehdr eh;
    memcpy(c, b, n);
    memcpy(&eh, c, sizeof eh);
    eh.e_ident[EI_ABIVERSION] = 7;
    eh.e_flags = 0x5a055a;
    memcpy(c, &eh, sizeof eh);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), 0);
    ck_assert_int_eq(arch, 90);
    eh.e_flags = 0x460546; /* sm_70: not checked, refused */
    memcpy(c, &eh, sizeof eh);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_str_eq(why, "a cubin for sm_70: the SASS reader knows sm_75, 80, 86, 89 and 90 only");
    eh.e_ident[EI_ABIVERSION] = 8;
    eh.e_flags = 0x6406402; /* sm_100 */
    memcpy(c, &eh, sizeof eh);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_ptr_nonnull(strstr(why, "a cubin for sm_100"));
    eh.e_ident[EI_ABIVERSION] = 9;
    memcpy(c, &eh, sizeof eh);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_str_eq(why, "a cubin of ELF ABI version 9, which the SASS reader does not know");
    memcpy(&eh, b, sizeof eh);
    eh.e_machine = EM_X86_64;
    memcpy(c, &eh, sizeof eh);
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    ck_assert_str_eq(why, "not a CUDA cubin (ELF machine 62)");

    /* an instruction the reader cannot read: an LDS whose size field is 7 */
    memcpy(c, b, n);
    memcpy(&s, c + sh, sizeof s);
    size_t at;
    for (at = 0; at < s.sh_size; at += 16)
        if ((word(c + s.sh_offset + at) & 0x1ff) == 0x184)
            break;
    ck_assert_uint_lt(at, s.sh_size);
    c[s.sh_offset + at + 9] |= 0x0e; /* hi bits 9..11 */
    ck_assert_int_eq(read_plain(c, n, &na, &arch), -1);
    char want[64];
    snprintf(want, sizeof want, "plain+0x%zx: a memory instruction", at);
    ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "%s", why);
    free(b);
    free(c);
}
END_TEST

/* Every truncation, and bytes flipped anywhere: read or refused, never a crash. */
START_TEST(test_hostile_cubins)
{
    size_t n;
    int na, arch;
    unsigned char *b = base_cubin(&n), *c = malloc(n);
    for (size_t cut = 0; cut < n; cut += n / 211 + 1) {
        memcpy(c, b, cut);
        int rc = read_plain(c, cut, &na, &arch);
        ck_assert(rc == -1 || (size_t)na <= cut / 16);
    }
    unsigned seed = 7;
    for (int round = 0; round < 400; round++) {
        memcpy(c, b, n);
        for (int i = 0; i < 16; i++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = round < 100 ? (seed >> 8) % 64 : (seed >> 4) % n; /* the ELF header */
            if (round >= 100 && round < 200) { /* the section headers */
                Elf64_Ehdr eh;
                memcpy(&eh, b, sizeof eh);
                at = eh.e_shoff + (seed >> 8) % ((size_t)eh.e_shnum * sizeof(Elf64_Shdr));
            }
            c[at] ^= (unsigned char)(seed >> 24 | 1);
        }
        int rc = read_plain(c, n, &na, &arch);
        ck_assert(rc == -1 || (size_t)na <= n / 16);
    }
    free(b);
    free(c);
}
END_TEST

/* --- the newest cubin of a lab image --------------------------------------------------- */

static const char *test_lib(void)
{
    const char *p = getenv("SMEMLAB_TEST_LIB");
    ck_assert_msg(p && access(p, R_OK) == 0,
                  "SMEMLAB_TEST_LIB must name a built lab 5 library (make check-unit sets it)");
    return p;
}

START_TEST(test_lab_cubin)
{
    lab_image img;
    const unsigned char *cubin;
    size_t size;
    int arch, na, sm;
    sass_access *acc;
    ck_assert_msg(lab_image_open(test_lib(), &img, why, sizeof why) == 0, "%s", why);
    /* built for sm_75 to sm_90: the sm_90 cubin */
    ck_assert_msg(sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(arch, 90);
    ck_assert_int_gt(img.n_kernels, 0);
    for (int k = 0; k < img.n_kernels; k++) { /* the skeleton's kernels are empty */
        ck_assert_msg(sass_function_accesses(cubin, size, img.kernels[k].name, &acc, &na, &sm,
                                             why, sizeof why) == 0, "%s", why);
        ck_assert_int_eq(sm, 90);
        ck_assert_int_eq(na, 0);
        ck_assert_ptr_null(acc);
    }
    lab_image_close(&img);
}
END_TEST

/* lab1-long-low stores a long long tile and reads it through an int: the widths the
   counters judge it at where no trace says them (problems/tile.c). */
START_TEST(test_kernel_width)
{
    lab_image img;
    const char *p = getenv("SMEMLAB_WIDE_LIB");
    if (!p) { /* the student kit: no planted variants */
        ck_assert_int_ne(access("tests/planted", F_OK), 0);
        return;
    }
    ck_assert_msg(access(p, R_OK) == 0, "SMEMLAB_WIDE_LIB must name the built lab1-long-low "
                  "library (make check-unit sets it)");
    ck_assert_msg(lab_image_open(p, &img, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(sass_kernel_width(&img, "setRowReadRow", SASS_STS), 8);
    ck_assert_int_eq(sass_kernel_width(&img, "setRowReadRow", SASS_LDS), 4);
    ck_assert_int_eq(sass_kernel_width(&img, "setColReadCol", SASS_STS), 4);
    ck_assert_int_eq(sass_kernel_width(&img, "setColReadCol", SASS_ATOMS), 0);
    ck_assert_int_eq(sass_kernel_width(&img, "setRowRead", SASS_STS), 0); /* a prefix only */
    ck_assert_int_eq(sass_kernel_width(&img, "noSuchKernel", SASS_STS), 0);
    lab_image_close(&img);
}
END_TEST

/* A fatbinary of entries made here: kind, header size, payload size, sm. */
static size_t entry(unsigned char *p, unsigned kind, unsigned sm, const void *payload, size_t n)
{
    memset(p, 0, 64);
    p[0] = (unsigned char)kind;
    p[4] = 64;
    for (int i = 0; i < 8; i++)
        p[8 + i] = (unsigned char)(n >> (8 * i));
    p[28] = (unsigned char)sm;
    memcpy(p + 64, payload, n);
    return 64 + n;
}

START_TEST(test_fatbin_entries)
{
    static unsigned char fb[4096];
    lab_image img;
    const unsigned char *cubin;
    size_t size, at = 16;
    int arch;
    memset(&img, 0, sizeof img);
    snprintf(img.device_path, sizeof img.device_path, "lab9.fatbin");
    img.fatbins[0] = (image_blob){fb, 0};
    img.n_fatbins = 1;
    memset(fb, 0, sizeof fb);
    fb[6] = 16;

    /* nothing but PTX */
    at += entry(fb + at, 1, 90, ".version 9.0\n\0\0\0", 16);
    img.fatbins[0].size = at;
    ck_assert_int_eq(sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why), -1);
    ck_assert_str_eq(why, "lab9.fatbin holds no cubin: build the lab with the kit's Makefile "
                          "(make labN)");
    /* two cubins: the higher sm, wherever it lies */
    at += entry(fb + at, 2, 86, "\177ELF-86-", 8);
    at += entry(fb + at, 2, 89, "\177ELF-89-", 8);
    at += entry(fb + at, 2, 80, "\177ELF-80-", 8);
    img.fatbins[0].size = at;
    ck_assert_int_eq(sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why), 0);
    ck_assert_int_eq(arch, 89);
    ck_assert_uint_eq(size, 8);
    ck_assert_int_eq(memcmp(cubin, "\177ELF-89-", 8), 0);
    /* a newer one compressed (a zstd frame): said so */
    at += entry(fb + at, 2, 90, "\x28\xb5\x2f\xfd....", 8);
    img.fatbins[0].size = at;
    ck_assert_int_eq(sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why), -1);
    ck_assert_ptr_null(cubin);
    ck_assert_str_eq(why, "lab9.fatbin: its sm_90 cubin is compressed, which the SASS reader "
                          "does not undo: build the lab with the kit's Makefile (make labN)");
    /* an entry whose payload runs past the fatbinary ends the walk: the sm_90 one is not seen */
    img.fatbins[0].size = at - 1;
    ck_assert_int_eq(sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why), 0);
    ck_assert_int_eq(arch, 89);
    /* every truncation and a header size of 0: no crash, no read past the end */
    for (size_t cut = 0; cut <= at; cut++) {
        img.fatbins[0].size = cut;
        int rc = sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why);
        ck_assert(rc == -1 || (cubin >= fb && cubin + size <= fb + cut));
    }
    fb[16 + 4] = 0;
    img.fatbins[0].size = at;
    ck_assert_int_eq(sass_newest_cubin(&img, &cubin, &size, &arch, why, sizeof why), -1);
}
END_TEST

Suite *sass_suite(void)
{
    Suite *s = suite_create("sass");
    TCase *tc = tcase_create("sass");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_listings);
    tcase_add_test(tc, test_decode_words);
    tcase_add_test(tc, test_damaged_cubins);
    tcase_add_test(tc, test_hostile_cubins);
    tcase_add_test(tc, test_lab_cubin);
    tcase_add_test(tc, test_kernel_width);
    tcase_add_test(tc, test_fatbin_entries);
    suite_add_tcase(s, tc);
    return s;
}
