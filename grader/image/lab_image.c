/* lab_image.c - reading a lab library's ELF file; see lab_image.h. */
#define _POSIX_C_SOURCE 200809L
#include "lab_image.h"

#include "elf_view.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_CUBIN 2
#define EIFMT_NVAL 1
#define EIFMT_BVAL 2
#define EIFMT_HVAL 3
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17

/* --- kernels: .nv.info.<name> of each cubin -------------------------------- */

/* The KPARAM_INFO attributes of one kernel; 0, or -1 when malformed. */
static int parse_kernel_info(const unsigned char *p, size_t len, image_kernel *k)
{
    int seen[IMAGE_MAX_PARAMS] = {0};
    size_t i = 0;
    k->n_params = 0;
    k->param_bytes = 0;
    while (i + 2 <= len) {
        if (p[i] == 0) { /* padding between attributes (sm_80 and sm_86 cubins have it) */
            i++;
            continue;
        }
        unsigned fmt = p[i], attr = p[i + 1];
        size_t vlen;
        if (fmt == EIFMT_NVAL)
            vlen = 0;
        else if (fmt == EIFMT_BVAL || fmt == EIFMT_HVAL)
            vlen = 2;
        else if (fmt == EIFMT_SVAL && i + 4 <= len)
            vlen = 2 + (size_t)(p[i + 2] | p[i + 3] << 8);
        else
            return -1;
        if (vlen > len - i - 2)
            return -1;
        if (fmt == EIFMT_SVAL && attr == EIATTR_KPARAM_INFO && vlen >= 2 + 12) {
            const unsigned char *q = p + i + 4;
            unsigned ordinal = q[4] | q[5] << 8, offset = q[6] | q[7] << 8;
            uint32_t word = (uint32_t)q[8] | (uint32_t)q[9] << 8 | (uint32_t)q[10] << 16 |
                            (uint32_t)q[11] << 24;
            unsigned size = word >> 18;
            if (ordinal >= IMAGE_MAX_PARAMS || seen[ordinal] || size == 0)
                return -1;
            seen[ordinal] = 1;
            k->params[ordinal] = (kernel_param){offset, size};
            if (ordinal + 1 > (unsigned)k->n_params)
                k->n_params = (int)ordinal + 1;
            if (offset + size > k->param_bytes)
                k->param_bytes = offset + size;
        }
        i += 2 + vlen;
    }
    for (int j = 0; j < k->n_params; j++)
        if (!seen[j])
            return -1; /* a hole in the parameter list */
    return 0;
}

static int same_layout(const image_kernel *a, const image_kernel *b)
{
    if (a->n_params != b->n_params)
        return 0;
    for (int i = 0; i < a->n_params; i++)
        if (a->params[i].offset != b->params[i].offset || a->params[i].size != b->params[i].size)
            return 0;
    return 1;
}

static int add_kernel(lab_image *img, const image_kernel *k, char *why, size_t n)
{
    int at = lab_image_kernel(img, k->name);
    if (at >= 0) {
        if (same_layout(&img->kernels[at], k))
            return 0; /* the same kernel compiled for another architecture */
        snprintf(why, n, "kernel %s has different parameters in two of its compiled "
                 "versions: rebuild the lab with the kit's Makefile", k->name);
        return -1;
    }
    if (img->n_kernels == IMAGE_MAX_KERNELS) {
        snprintf(why, n, "more than %d kernels: a lab file needs only a few", IMAGE_MAX_KERNELS);
        return -1;
    }
    img->kernels[img->n_kernels++] = *k;
    return 0;
}

static int parse_cubin(lab_image *img, const unsigned char *data, size_t size, char *why,
                       size_t n)
{
    static const char prefix[] = ".nv.info.";
    elf_view v;
    if (elf_open(&v, data, size) != 0) {
        snprintf(why, n, "%s holds a damaged cubin: rebuild it with the kit's Makefile",
                 img->path);
        return -1;
    }
    for (unsigned i = 0; i < v.n_sh; i++) {
        const char *name = elf_section_name(&v, &v.sh[i]);
        size_t len;
        const unsigned char *p;
        image_kernel k;
        if (!name || strncmp(name, prefix, sizeof prefix - 1) != 0)
            continue;
        name += sizeof prefix - 1;
        if (strlen(name) >= sizeof k.name) {
            snprintf(why, n, "a kernel name in %s is longer than %d characters", img->path,
                     IMAGE_MAX_NAME - 1);
            return -1;
        }
        memset(&k, 0, sizeof k);
        snprintf(k.name, sizeof k.name, "%s", name);
        if (!(p = elf_section(&v, &v.sh[i], &len)) || parse_kernel_info(p, len, &k) != 0) {
            snprintf(why, n, "the parameter table of kernel %s in %s is damaged: rebuild "
                     "it with the kit's Makefile", k.name, img->path);
            return -1;
        }
        if (add_kernel(img, &k, why, n) != 0)
            return -1;
    }
    return 0;
}

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The entries of one fatbinary: parse every uncompressed cubin. */
static int parse_fatbin(lab_image *img, const unsigned char *p, size_t len, int *cubins,
                        char *why, size_t n)
{
    size_t at = 0;
    while (at + 16 <= len) {
        unsigned kind = (unsigned)le(p + at, 2);
        uint64_t hsize = le(p + at + 4, 4), psize = le(p + at + 8, 8);
        if (hsize < 16 || !elf_in_bounds(len, at, hsize) || !elf_in_bounds(len, at + hsize, psize))
            break;
        const unsigned char *payload = p + at + hsize;
        if (kind == FATBIN_KIND_CUBIN && psize >= 4 && memcmp(payload, ELFMAG, SELFMAG) == 0) {
            if (parse_cubin(img, payload, psize, why, n) != 0)
                return -1;
            ++*cubins;
        }
        at += hsize + psize;
    }
    return 0;
}

/* The device file holds the fatbinary of the lab file (a copy of what nvcc
 * embedded in the library, kept by make); fatbinaries are 8-byte aligned. */
static int parse_fatbins(lab_image *img, const unsigned char *p, size_t len, char *why,
                         size_t n)
{
    size_t at = 0;
    int cubins = 0;
    while (at + 16 <= len) {
        if (le(p + at, 4) != FATBIN_MAGIC) { /* only zero padding between fatbinaries */
            if (at > 0 && le(p + at, 8) == 0) {
                at += 8;
                continue;
            }
            snprintf(why, n, "%s is not a fatbinary nvcc wrote: rebuild the lab with the kit's "
                     "Makefile (make labN)", img->device_path);
            return -1;
        }
        uint64_t hsize = le(p + at + 6, 2), fsize = le(p + at + 8, 8);
        if (hsize < 16 || !elf_in_bounds(len, at, hsize) || !elf_in_bounds(len, at + hsize, fsize)) {
            snprintf(why, n, "%s holds a damaged fatbinary: rebuild it with the kit's Makefile",
                     img->device_path);
            return -1;
        }
        if (img->n_fatbins == IMAGE_MAX_FATBINS) {
            snprintf(why, n, "%s holds more than %d fatbinaries", img->device_path,
                     IMAGE_MAX_FATBINS);
            return -1;
        }
        img->fatbins[img->n_fatbins++] = (image_blob){p + at, hsize + fsize};
        if (parse_fatbin(img, p + at + hsize, fsize, &cubins, why, n) != 0)
            return -1;
        at += (hsize + fsize + 7) & ~(uint64_t)7;
    }
    if (cubins == 0) {
        snprintf(why, n, "%s holds no compiled GPU code the grader can read (PTX only, or "
                 "compressed): build it with the kit's Makefile (make labN)", img->device_path);
        return -1;
    }
    return 0;
}

/* --- exported host symbols: .dynsym ----------------------------------------- */

typedef struct found_symbol {
    const Elf64_Sym *sym;
    elf_view view;
} found_symbol;

static int find_dynsym(const lab_image *img, const char *name, int type, found_symbol *out)
{
    if (elf_open(&out->view, img->file, img->file_size) != 0)
        return -1;
    const elf_view *v = &out->view;
    for (unsigned i = 0; i < v->n_sh; i++) {
        const Elf64_Shdr *s = &v->sh[i];
        size_t len;
        const unsigned char *p;
        if (s->sh_type != SHT_DYNSYM || s->sh_link >= v->n_sh || !(p = elf_section(v, s, &len)))
            continue;
        for (size_t j = 1; j < len / sizeof(Elf64_Sym); j++) {
            const Elf64_Sym *sym = (const Elf64_Sym *)(p + j * sizeof(Elf64_Sym));
            const char *n = elf_string(v, &v->sh[s->sh_link], sym->st_name);
            if (!n || strcmp(n, name) != 0 || sym->st_shndx == SHN_UNDEF ||
                ELF64_ST_TYPE(sym->st_info) != type ||
                ELF64_ST_VISIBILITY(sym->st_other) != STV_DEFAULT)
                continue;
            out->sym = sym;
            return 0;
        }
    }
    return -1;
}

int lab_image_int(const lab_image *img, const char *symbol, int *value)
{
    found_symbol f;
    if (!symbol || find_dynsym(img, symbol, STT_OBJECT, &f) != 0 || f.sym->st_size < sizeof(int))
        return -1;
    /* The section that holds the symbol's address tells where it lies in the file. */
    for (unsigned i = 0; i < f.view.n_sh; i++) {
        const Elf64_Shdr *s = &f.view.sh[i];
        uint64_t addr = f.sym->st_value;
        size_t len;
        const unsigned char *p;
        if (!(s->sh_flags & SHF_ALLOC) || addr < s->sh_addr || addr - s->sh_addr >= s->sh_size ||
            !(p = elf_section(&f.view, s, &len)) || addr - s->sh_addr + sizeof(int) > len)
            continue;
        int32_t v;
        memcpy(&v, p + (addr - s->sh_addr), sizeof v);
        *value = v;
        return 0;
    }
    return -1;
}

int lab_image_has_function(const lab_image *img, const char *symbol)
{
    found_symbol f;
    return symbol && find_dynsym(img, symbol, STT_FUNC, &f) == 0;
}

int lab_image_kernel(const lab_image *img, const char *name)
{
    for (int i = 0; i < img->n_kernels; i++)
        if (strcmp(img->kernels[i].name, name) == 0)
            return i;
    return -1;
}

/* --- opening ------------------------------------------------------------------ */

/* Returns 0, -2 if path does not exist, -1 otherwise. */
static int read_file(const char *path, unsigned char **data, size_t *size, char *why, size_t n)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int missing = errno == ENOENT;
        snprintf(why, n, missing ? "%s does not exist: build the lab first (make labN)"
                                 : "cannot read %s: %s", path, strerror(errno));
        return missing ? -2 : -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (unsigned long long)st.st_size > IMAGE_MAX_FILE) {
        snprintf(why, n, "%s is not a lab library (not a regular file of at most %u MB)", path,
                 IMAGE_MAX_FILE >> 20);
        close(fd);
        return -1;
    }
    *size = (size_t)st.st_size;
    *data = malloc(*size);
    size_t got = 0;
    while (*data && got < *size) {
        ssize_t r = read(fd, *data + got, *size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!*data || got != *size) {
        snprintf(why, n, "cannot read %s", path);
        return -1;
    }
    return 0;
}

/* X.so -> X.fatbin: where make put the device code of the lab file. */
static int device_path_of(const char *path, char *out, size_t size)
{
    size_t len = strlen(path);
    if (len > 3 && strcmp(path + len - 3, ".so") == 0)
        len -= 3;
    return snprintf(out, size, "%.*s.fatbin", (int)len, path) < (int)size ? 0 : -1;
}

int lab_image_open(const char *path, lab_image *img, char *why, size_t why_size)
{
    unsigned char *file = NULL, *device = NULL;
    size_t file_size = 0, device_size = 0;
    char device_path[sizeof img->device_path];
    if (read_file(path, &file, &file_size, why, why_size) != 0)
        return -1;
    if (device_path_of(path, device_path, sizeof device_path) != 0) {
        snprintf(why, why_size, "%s: the path is too long", path);
        free(file);
        return -1;
    }
    int rc = read_file(device_path, &device, &device_size, why, why_size);
    if (rc != 0) {
        if (rc == -2)
            snprintf(why, why_size, "%s is missing: the grader runs the GPU code of your lab "
                     "file from it, never the code inside %s; build the lab again with the "
                     "kit's Makefile (make labN)", device_path, path);
        free(file);
        return -1;
    }
    return lab_image_from_bytes(path, file, file_size, device, device_size, img, why, why_size);
}

int lab_image_from_bytes(const char *path, unsigned char *file, size_t file_size,
                         unsigned char *device, size_t device_size, lab_image *img, char *why,
                         size_t why_size)
{
    elf_view v;
    memset(img, 0, sizeof *img);
    snprintf(img->path, sizeof img->path, "%s", path);
    img->file = file;
    img->file_size = file_size;
    img->device = device;
    img->device_size = device_size;
    if (elf_open(&v, img->file, img->file_size) != 0 ||
        ((const Elf64_Ehdr *)img->file)->e_type != ET_DYN) {
        snprintf(why, why_size, "%s is not a shared library built for this machine: rebuild "
                 "it (make clean && make labN)", path);
        goto fail;
    }
    if (device_path_of(path, img->device_path, sizeof img->device_path) != 0) {
        snprintf(why, why_size, "%s: the path is too long", path);
        goto fail;
    }
    if (parse_fatbins(img, img->device, img->device_size, why, why_size) != 0)
        goto fail;
    return 0;
fail:
    lab_image_close(img);
    return -1;
}

void lab_image_close(lab_image *img)
{
    free(img->file);
    free(img->device);
    img->file = img->device = NULL;
    img->file_size = img->device_size = 0;
    img->n_fatbins = img->n_kernels = 0;
}
