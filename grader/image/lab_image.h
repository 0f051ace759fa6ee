/*
 * lab_image.h - a lab library read as a file, never loaded.
 *
 * The grader must not run a student's host code, so it reads what it needs
 * from files: the exported contract constants and launchers from the
 * library's ELF (.dynsym), and the GPU code from X.fatbin beside X.so, the
 * device code of the lab file alone that make kept from the same nvcc run
 * (never the library's .nv_fatbin, which host assembly can add to). From
 * the fatbinary come the kernels and their parameter layout (each cubin's
 * .nv.info.<kernel> section). Both files are hostile input: every offset is
 * checked before it is used.
 */
#ifndef SMEMLAB_LAB_IMAGE_H
#define SMEMLAB_LAB_IMAGE_H

#include <stddef.h>

#define IMAGE_MAX_FATBINS 16
#define IMAGE_MAX_KERNELS 64
#define IMAGE_MAX_PARAMS 32
#define IMAGE_MAX_NAME 256
#define IMAGE_MAX_FILE (256u << 20) /* a lab library is a few MB */

typedef struct kernel_param {
    unsigned offset, size; /* in the kernel's parameter buffer */
} kernel_param;

typedef struct image_kernel {
    char name[IMAGE_MAX_NAME]; /* device (mangled) name */
    int n_params;              /* in order */
    kernel_param params[IMAGE_MAX_PARAMS];
    unsigned param_bytes;      /* end of the last parameter */
} image_kernel;

typedef struct image_blob {
    const unsigned char *data;
    size_t size;
} image_blob;

typedef struct lab_image {
    char path[512];
    unsigned char *file; /* the library */
    size_t file_size;
    char device_path[520];
    unsigned char *device; /* X.fatbin: the GPU code */
    size_t device_size;
    image_blob fatbins[IMAGE_MAX_FATBINS];
    int n_fatbins;
    image_kernel kernels[IMAGE_MAX_KERNELS];
    int n_kernels;
} lab_image;

/* Read and check path. Returns 0, or -1 with what to do in why. */
int lab_image_open(const char *path, lab_image *img, char *why, size_t why_size);
/*
 * The same from the bytes of a library (path names it) and of its .fatbin,
 * both malloc'd: the image owns them from here, even on failure. The meter
 * server grades the very bytes its grader read and validated.
 */
int lab_image_from_bytes(const char *path, unsigned char *file, size_t file_size,
                         unsigned char *device, size_t device_size, lab_image *img, char *why,
                         size_t why_size);
void lab_image_close(lab_image *img);

/*
 * The PTX of the lab file: the newest (highest compute_XX) PTX entry of its
 * fatbinary, decompressed (nvcc compresses PTX with zstd), NUL-terminated
 * and malloc'd into *text (its length in *len, the architecture in *arch).
 * The emulator runs it; the grader reads declarations from it. 0, or -1
 * with why (no PTX, an unknown compression, a damaged or oversized entry).
 */
int lab_image_ptx(const lab_image *img, char **text, size_t *len, int *arch, char *why,
                  size_t why_size);

/* Value of an exported `const int` (SMEMLAB_PARAM, the contract version); 0 if found. */
int lab_image_int(const lab_image *img, const char *symbol, int *value);

/* Does the library export a function of this name (a launcher)? */
int lab_image_has_function(const lab_image *img, const char *symbol);

/* Index of the kernel with this device name, or -1. */
int lab_image_kernel(const lab_image *img, const char *name);

/* What built the lab's device code: "nvcc V13.0.88; sm_75 sm_90 compute_90" (lab_ptx.c). */
void lab_image_toolchain(const lab_image *img, char *out, size_t size);

#endif
