/*
 * sass.c - memory instructions read from a cubin's SASS; see sass.h.
 *
 * Volta and later encode every instruction in 16 bytes, two little-endian
 * 64-bit words lo and hi. The fields below were read off nvdisasm listings
 * (tests/sass/listings/, CUDA 13.0) and are the same on sm_75 to sm_90;
 * test_sass.c compares every instruction of those listings.
 *
 *   opcode     lo & 0x1ff (lo bits 9..11 pick the operand form: a uniform
 *              register in the address and the like)
 *   guard      lo bits 12..15: predicate index, 7 = PT, bit 15 negates
 *   immediate  lo bits 40..63, signed (LDGSTS: the shared address's in lo
 *              bits 44..63, the global one's in bits 32..43)
 *   size       hi bits 9..11 (LDS, STS, LDG, STG, LDGSTS; ATOMS: 0 .32,
 *              1 .S32, 2 .64)
 *   atomic op  hi bits 23..26 (ATOMS); the form 7 of ATOMS is POPC.INC
 *   matrices   hi bits 8..9 (LDSM, STSM: 0 x1, 1 x2, 2 x4)
 */
#include "sass.h"

#include "elf_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif
#define SASS_MAX_TEXT (16u << 20) /* a lab kernel is a few KB of code */
#define FATBIN_KIND_CUBIN 2

enum width_from { SIZE_FIELD, ATOM_SIZE, MATRIX_ROWS };

static const struct opcode {
    uint16_t code;
    uint8_t cls, width_from;
} opcodes[] = {
    {0x184, SASS_LDS, SIZE_FIELD},    {0x188, SASS_STS, SIZE_FIELD},
    {0x18c, SASS_ATOMS, ATOM_SIZE},   {0x18d, SASS_ATOMS, ATOM_SIZE}, /* CAS, CAST.SPIN */
    {0x03b, SASS_LDSM, MATRIX_ROWS},  {0x044, SASS_STSM, MATRIX_ROWS},
    {0x1ae, SASS_LDGSTS, SIZE_FIELD}, {0x181, SASS_LDG, SIZE_FIELD},
    {0x186, SASS_STG, SIZE_FIELD},
};

/* U8, S8, U16, S16, 32, 64, 128; 7 is not an access size */
static const uint8_t size_bytes[8] = {1, 1, 2, 2, 4, 8, 16, 0};
/* .32, .S32, .64 */
static const uint8_t atom_bytes[8] = {4, 4, 8, 0, 0, 0, 0, 0};
static const uint8_t matrix_count[4] = {1, 2, 4, 0};

static int32_t sign_extend(uint64_t v, int bits)
{
    uint64_t sign = (uint64_t)1 << (bits - 1);
    v &= (sign << 1) - 1;
    return (int32_t)((int64_t)(v ^ sign) - (int64_t)sign);
}

int sass_decode(uint64_t lo, uint64_t hi, sass_access *a)
{
    const struct opcode *op = NULL;
    for (size_t i = 0; i < sizeof opcodes / sizeof opcodes[0] && !op; i++)
        if ((lo & 0x1ff) == opcodes[i].code)
            op = &opcodes[i];
    memset(a, 0, sizeof *a);
    if (!op)
        return 0;
    a->cls = op->cls;
    a->never = ((lo >> 12) & 0xf) == 0xf; /* @!PT */
    a->imm = op->cls == SASS_LDGSTS ? sign_extend(lo >> 44, 20) : sign_extend(lo >> 40, 24);
    switch (op->width_from) {
    case SIZE_FIELD:
        a->width = size_bytes[(hi >> 9) & 7];
        break;
    case ATOM_SIZE:
        a->width = atom_bytes[(hi >> 9) & 7];
        if (op->code == 0x18d)
            a->atom_op = SASS_ATOM_CAS;
        else if (((lo >> 9) & 7) == 7)
            a->atom_op = SASS_ATOM_POPC_INC;
        else if (((hi >> 23) & 0xf) <= 8) /* ADD MIN MAX INC DEC AND OR XOR EXCH */
            a->atom_op = (uint8_t)(SASS_ATOM_ADD + ((hi >> 23) & 0xf));
        break;
    case MATRIX_ROWS:
        a->matrices = matrix_count[(hi >> 8) & 3];
        a->width = a->matrices ? 16 : 0;
        break;
    }
    if (a->width == 0 || (op->cls == SASS_ATOMS && a->atom_op == SASS_ATOM_NONE))
        return -1;
    return 1;
}

/* The sm number of a cubin from its ELF header, or -1 (with why). */
static int cubin_arch(const elf_view *v, char *why, size_t why_size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->data;
    unsigned abi = eh->e_ident[EI_ABIVERSION];
    int sm;
    if (eh->e_machine != EM_CUDA) {
        snprintf(why, why_size, "not a CUDA cubin (ELF machine %u)", (unsigned)eh->e_machine);
        return -1;
    }
    /* The sm number moved from the low byte of e_flags (ABI version 7) to the next (8). */
    if (abi == 7)
        sm = (int)(eh->e_flags & 0xff);
    else if (abi == 8)
        sm = (int)((eh->e_flags >> 8) & 0xff);
    else {
        snprintf(why, why_size, "a cubin of ELF ABI version %u, which the SASS reader does not "
                 "know", abi);
        return -1;
    }
    if (sm != 75 && sm != 80 && sm != 86 && sm != 89 && sm != 90) {
        snprintf(why, why_size, "a cubin for sm_%d: the SASS reader knows sm_75, 80, 86, 89 "
                 "and 90 only", sm);
        return -1;
    }
    return sm;
}

/* The section .text.NAME that holds function name's code, or NULL. */
static const Elf64_Shdr *function_section(const elf_view *v, const char *name)
{
    for (unsigned i = 0; i < v->n_sh; i++) {
        const char *s = elf_section_name(v, &v->sh[i]);
        if (s && strncmp(s, ".text.", 6) == 0 && strcmp(s + 6, name) == 0)
            return &v->sh[i];
    }
    return NULL;
}

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int sass_function_accesses(const void *cubin, size_t size, const char *name, sass_access **out,
                           int *n, int *arch, char *why, size_t why_size)
{
    elf_view v;
    const Elf64_Shdr *sec;
    const unsigned char *text;
    size_t len = 0;
    *out = NULL;
    *n = 0;
    *arch = -1;
    if (!cubin || elf_open(&v, cubin, size) != 0) {
        snprintf(why, why_size, "not a 64-bit little-endian ELF cubin");
        return -1;
    }
    if ((*arch = cubin_arch(&v, why, why_size)) < 0)
        return -1;
    if (!name || !(sec = function_section(&v, name))) {
        snprintf(why, why_size, "the cubin has no function %s", name ? name : "(null)");
        return -1;
    }
    if (!(text = elf_section(&v, sec, &len))) {
        snprintf(why, why_size, "the code of %s lies outside the cubin", name);
        return -1;
    }
    if (len % 16 != 0 || len > SASS_MAX_TEXT) {
        snprintf(why, why_size, "the code of %s is %zu bytes: not whole instructions, or over "
                 "%u MiB", name, len, SASS_MAX_TEXT >> 20);
        return -1;
    }
    /* Two passes: count, then fill exactly as many (at most len / 16). */
    sass_access a;
    int count = 0;
    for (size_t at = 0; at < len; at += 16) {
        int r = sass_decode(le(text + at, 8), le(text + at + 8, 8), &a);
        if (r < 0) {
            snprintf(why, why_size, "%s+0x%zx: a memory instruction the SASS reader cannot "
                     "read (0x%016llx 0x%016llx)", name, at,
                     (unsigned long long)le(text + at, 8), (unsigned long long)le(text + at + 8, 8));
            return -1;
        }
        count += r;
    }
    if (count == 0)
        return 0;
    if (!(*out = malloc((size_t)count * sizeof **out))) {
        snprintf(why, why_size, "out of memory reading the SASS of %s", name);
        return -1;
    }
    for (size_t at = 0; at < len; at += 16)
        if (sass_decode(le(text + at, 8), le(text + at + 8, 8), &a) == 1) {
            a.offset = (uint32_t)at;
            (*out)[(*n)++] = a;
        }
    return 0;
}

int sass_newest_cubin(const lab_image *img, const unsigned char **cubin, size_t *size, int *arch,
                      char *why, size_t why_size)
{
    const unsigned char *best = NULL;
    size_t best_size = 0;
    *cubin = NULL;
    *size = 0;
    *arch = -1;
    for (int f = 0; f < img->n_fatbins; f++) {
        const unsigned char *p = img->fatbins[f].data;
        size_t len = img->fatbins[f].size;
        if (len < 16)
            continue;
        /* entries after the fatbinary's header: kind, header size, payload size, sm */
        size_t at = (size_t)le(p + 6, 2);
        while (at <= len && len - at >= 32) {
            const unsigned char *e = p + at;
            uint64_t hsize = le(e + 4, 4), psize = le(e + 8, 8), sm = le(e + 28, 4);
            if (hsize < 32 || !elf_in_bounds(len, at, hsize) || !elf_in_bounds(len, at + hsize, psize))
                break;
            if (le(e, 2) == FATBIN_KIND_CUBIN && sm < 1000 && (int)sm > *arch) {
                best = e + hsize;
                best_size = (size_t)psize;
                *arch = (int)sm;
            }
            at += hsize + psize;
        }
    }
    if (!best) {
        snprintf(why, why_size, "%s holds no cubin: build the lab with the kit's Makefile "
                 "(make labN)", img->device_path);
        return -1;
    }
    if (best_size < SELFMAG || memcmp(best, ELFMAG, SELFMAG) != 0) {
        snprintf(why, why_size, "%s: its sm_%d cubin is compressed, which the SASS reader does "
                 "not undo: build the lab with the kit's Makefile (make labN)", img->device_path,
                 *arch);
        *arch = -1;
        return -1;
    }
    *cubin = best;
    *size = best_size;
    return 0;
}

/* Whether image kernel `mangled` is the kernel written `name`: extern "C" or
   C++-mangled (_Z<length><name>...). */
static int kernel_named(const char *mangled, const char *name)
{
    char prefix[IMAGE_MAX_NAME + 16];
    if (strcmp(mangled, name) == 0)
        return 1;
    snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(name), name);
    return strncmp(mangled, prefix, strlen(prefix)) == 0;
}

int sass_kernel_width(const lab_image *img, const char *kernel, sass_class cls)
{
    const unsigned char *cubin;
    size_t size;
    sass_access *acc = NULL;
    int arch, n = 0, width = 0;
    char why[200];
    const char *mangled = NULL;
    for (int i = 0; i < img->n_kernels && !mangled; i++)
        if (kernel_named(img->kernels[i].name, kernel))
            mangled = img->kernels[i].name;
    if (!mangled || sass_newest_cubin(img, &cubin, &size, &arch, why, sizeof why) != 0 ||
        sass_function_accesses(cubin, size, mangled, &acc, &n, &arch, why, sizeof why) != 0)
        return 0;
    for (int i = 0; i < n && width >= 0; i++)
        if (acc[i].cls == cls && !acc[i].never)
            width = width == 0 || width == acc[i].width ? acc[i].width : -1;
    free(acc);
    return width > 0 ? width : 0;
}
