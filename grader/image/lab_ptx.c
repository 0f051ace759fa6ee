/*
 * lab_ptx.c - the PTX of a lab file, out of its fatbinary (see lab_image.h).
 * Apart from lab_image.c so that the recorder, which reads images too, does
 * not link the decompressor.
 */
#define _GNU_SOURCE
#include "lab_image.h"

#include "elf_view.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define FATBIN_KIND_PTX 1
#define PTX_MAX_BYTES (64u << 20) /* a lab's PTX is a few hundred KB; a bomb is refused */

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* One entry of a fatbinary: its kind (FATBIN_KIND_PTX or a cubin), its architecture and
   its payload. */
typedef struct fatbin_entry {
    unsigned kind;
    int sm;
    const unsigned char *payload;
    size_t size;
} fatbin_entry;

/* Every entry of every fatbinary of img, in order, to visit(e, arg); a header that runs
   past its fatbinary ends that one's walk (hostile input: nothing is trusted). */
static void fatbin_walk(const lab_image *img, void (*visit)(const fatbin_entry *, void *), void *arg)
{
    for (int f = 0; f < img->n_fatbins; f++) {
        const unsigned char *p = img->fatbins[f].data;
        size_t len = img->fatbins[f].size, at = le(p + 6, 2);
        while (at + 32 <= len) {
            uint64_t hsize = le(p + at + 4, 4), psize = le(p + at + 8, 8);
            if (hsize < 32 || !elf_in_bounds(len, at, hsize) ||
                !elf_in_bounds(len, at + hsize, psize))
                break;
            fatbin_entry e = {(unsigned)le(p + at, 2), (int)le(p + at + 28, 4), p + at + hsize,
                              (size_t)psize};
            visit(&e, arg);
            at += hsize + psize;
        }
    }
}

typedef struct newest {
    const unsigned char *payload;
    size_t size;
    int arch;
} newest;

static void keep_newest_ptx(const fatbin_entry *e, void *arg)
{
    newest *n = arg;
    if (e->kind == FATBIN_KIND_PTX && e->sm > n->arch)
        *n = (newest){e->payload, e->size, e->sm};
}

/* The newest PTX entry of every fatbinary: its payload, and its architecture. */
static int newest_ptx(const lab_image *img, const unsigned char **payload, size_t *size,
                      int *arch)
{
    newest n = {NULL, 0, -1};
    fatbin_walk(img, keep_newest_ptx, &n);
    *payload = n.payload, *size = n.size, *arch = n.arch;
    return n.payload ? 0 : -1;
}

/* A zstd frame of at most PTX_MAX_BYTES, decompressed; NULL with why otherwise. */
static char *unzstd(const unsigned char *p, size_t size, size_t *len, char *why, size_t n)
{
    unsigned long long want = ZSTD_getFrameContentSize(p, size);
    if (want == ZSTD_CONTENTSIZE_ERROR || want == ZSTD_CONTENTSIZE_UNKNOWN || want > PTX_MAX_BYTES) {
        snprintf(why, n, "the lab's PTX is damaged or too large");
        return NULL;
    }
    size_t frame = ZSTD_findFrameCompressedSize(p, size); /* the payload is padded */
    char *text = ZSTD_isError(frame) ? NULL : malloc((size_t)want + 1);
    size_t got = text ? ZSTD_decompress(text, (size_t)want, p, frame) : 0;
    if (!text || ZSTD_isError(got) || got != want) {
        free(text);
        snprintf(why, n, "the lab's PTX does not decompress: rebuild it (make labN)");
        return NULL;
    }
    text[got] = '\0';
    *len = strlen(text); /* nvcc's text ends with a NUL of its own */
    return text;
}

int lab_image_ptx(const lab_image *img, char **text, size_t *len, int *arch, char *why,
                  size_t why_size)
{
    const unsigned char *p;
    size_t size;
    *text = NULL;
    if (newest_ptx(img, &p, &size, arch) != 0) {
        snprintf(why, why_size, "%s holds no PTX: rebuild the lab with the kit's Makefile (its "
                 "flags keep the PTX the emulator runs)", img->device_path);
        return -1;
    }
    /* the payload is padded with zeros: the frame or the text ends before */
    if (size >= 4 && le(p, 4) == ZSTD_MAGICNUMBER) {
        *text = unzstd(p, size, len, why, why_size);
        return *text ? 0 : -1;
    }
    size_t n = strnlen((const char *)p, size);
    if (n == 0 || n > PTX_MAX_BYTES || memchr(p, '.', n) == NULL) {
        snprintf(why, why_size, "%s: its PTX is compressed in a way the grader does not read "
                 "(only zstd): rebuild the lab with this kit (make clean && make labN)",
                 img->device_path);
        return -1;
    }
    if (!(*text = malloc(n + 1))) {
        snprintf(why, why_size, "out of memory reading the lab's PTX");
        return -1;
    }
    memcpy(*text, p, n);
    (*text)[n] = '\0';
    *len = n;
    return 0;
}


/* "sm_90" or "compute_90" of an entry, once, into the list arg (256 bytes). */
static void add_arch(const fatbin_entry *e, void *arg)
{
    char *archs = arg, one[24];
    size_t o = strlen(archs);
    snprintf(one, sizeof one, "%s_%d", e->kind == FATBIN_KIND_PTX ? "compute" : "sm", e->sm);
    if (!strstr(archs, one) && o + 1 < 256)
        snprintf(archs + o, 256 - o, "%s%s", o ? " " : "", one);
}

/*
 * What built the lab's device code, read from its fatbinary: each entry's
 * architecture ("sm_75 sm_90 compute_90") and the release nvcc wrote at the
 * note of its cubins ("Cuda compilation tools, release 13.0, V13.0.88") with
 * the options ptxas ran with, as "nvcc V13.0.88; sm_75 sm_90 compute_90; ptxas
 * -lineinfo". A record's toolchain is the
 * library's own, never what a Makefile meant to build.
 */
void lab_image_toolchain(const lab_image *img, char *out, size_t size)
{
    char archs[256] = "", release[64] = "";
    fatbin_walk(img, add_arch, archs);
    /* each cubin's .note.nv.tkinfo: "ptxas", "Cuda compilation tools, release 13.0,
       V13.0.88", its build, then the options ptxas ran with ("-lineinfo  -arch sm_90 -m 64") */
    char flags[128] = "";
    const unsigned char *d = img->device;
    size_t left = img->device_size;
    static const char tag[] = "Cuda compilation tools, release ";
    const unsigned char *hit = d ? memmem(d, left, tag, sizeof tag - 1) : NULL;
    if (hit) {
        size_t rest = left - (size_t)(hit - d);
        const char *v = memmem(hit, rest < 80 ? rest : 80, ", V", 3);
        if (v)
            snprintf(release, sizeof release, "nvcc %.*s", (int)strcspn(v + 2, "\r\n "), v + 2);
        /* the options: the second string after this one (after the build line) */
        const unsigned char *end = d + left, *q = hit;
        for (int skip = 0; skip < 2 && q < end; skip++) {
            const unsigned char *z = memchr(q, 0, (size_t)(end - q));
            q = z ? z + 1 : end;
        }
        if (q < end && *q == '-') {
            size_t n = strnlen((const char *)q, (size_t)(end - q));
            char opts[128];
            snprintf(opts, sizeof opts, "%.*s", (int)(n < 127 ? n : 127), q);
            char *a = strstr(opts, "-arch "); /* the architecture is the list's */
            if (a) {
                char *after = a + 6 + strcspn(a + 6, " ");
                memmove(a, after, strlen(after) + 1);
            }
            char *m = strstr(opts, "-m 64");
            if (m)
                memmove(m, m + 5, strlen(m + 5) + 1);
            size_t o2 = 0;
            for (char *t = strtok(opts, " "); t && o2 < sizeof flags; t = strtok(NULL, " "))
                o2 += (size_t)snprintf(flags + o2, sizeof flags - o2, " %s", t);
        }
    }
    snprintf(out, size, "%s%s%s%s%s", release[0] ? release : "nvcc (release unknown)",
             archs[0] ? "; " : "", archs, flags[0] ? "; ptxas" : "", flags);
}
