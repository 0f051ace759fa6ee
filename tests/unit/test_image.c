/*
 * test_image.c - reading a lab library's files without loading them
 * (grader/image/): a real library built by nvcc with its X.fatbin
 * (SMEMLAB_TEST_LIB, set by make check-unit to the lab 5 skeleton), damaged
 * copies of both, and a library with device code injected by host assembly
 * (SMEMLAB_INJECTED_LIB).
 */
#define _GNU_SOURCE /* memmem */
#include "image/lab_image.h"
#include "labs/lab_table.h"
#include "record/contract.h"

#include "ptx/tests/unit/emu_testlib.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const lab_def lab5_def, lab6_def;

static lab_image img;
static char why[1024];

static const char *test_lib(void)
{
    const char *p = getenv("SMEMLAB_TEST_LIB");
    ck_assert_msg(p && access(p, R_OK) == 0,
                  "SMEMLAB_TEST_LIB must name a built lab 5 library (make check-unit sets it)");
    return p;
}

static const char *injected_lib(void)
{
    const char *p = getenv("SMEMLAB_INJECTED_LIB");
    ck_assert_msg(p && access(p, R_OK) == 0,
                  "SMEMLAB_INJECTED_LIB must name tests/unit/injected/lab1-injected.so's build");
    return p;
}

static const char *device_of(const char *lib)
{
    static char path[512];
    snprintf(path, sizeof path, "%.*s.fatbin", (int)strlen(lib) - 3, lib);
    return path;
}

static void write_file(const char *path, const unsigned char *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(d, 1, n, f), n);
    fclose(f);
}

/* A library and its X.fatbin in /tmp; a NULL fatbin leaves none there. */
static const char *write_tmp(const unsigned char *lib, size_t n, const unsigned char *fatbin,
                             size_t m)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/smemlab-image-%d.so", (int)getpid());
    write_file(path, lib, n);
    unlink(device_of(path));
    if (fatbin)
        write_file(device_of(path), fatbin, m);
    return path;
}

START_TEST(test_real_library)
{
    ck_assert_int_eq(lab_image_open(test_lib(), &img, why, sizeof why), 0);
    ck_assert_int_ge(img.n_fatbins, 1);
    int k = lab_image_kernel(&img, "_Z11matmulNaivePKfS0_Pfiii");
    ck_assert_int_ge(k, 0);
    /* (const float *A, const float *B, float *C, int M, int N, int K) */
    static const unsigned off[] = {0, 8, 16, 24, 28, 32}, size[] = {8, 8, 8, 4, 4, 4};
    ck_assert_int_eq(img.kernels[k].n_params, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_uint_eq(img.kernels[k].params[i].offset, off[i]);
        ck_assert_uint_eq(img.kernels[k].params[i].size, size[i]);
    }
    ck_assert_uint_eq(img.kernels[k].param_bytes, 36);
    int v = 0;
    ck_assert_int_eq(lab_image_int(&img, "smemlab_contract_version", &v), 0);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(lab_image_int(&img, "smemlab_param_TILE", &v), 0);
    ck_assert_int_eq(v, 16);
    ck_assert_int_eq(lab_image_int(&img, "smemlab_param_NOPE", &v), -1);
    ck_assert(lab_image_has_function(&img, "launch_matmulCoarse"));
    ck_assert(!lab_image_has_function(&img, "launch_conv1dBasic"));
    ck_assert(!lab_image_has_function(&img, "smemlab_param_TILE")); /* an object, not code */
    ck_assert_int_eq(contract_check(&img, &lab5_def, why, sizeof why), 0);
    ck_assert_int_eq(contract_check(&img, &lab6_def, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "does not export TILE1D"));
    lab_image_close(&img);
}
END_TEST

/* The PTX the emulator runs: the newest entry (compute_90 for the kit's
 * default list), decompressed from the zstd frame nvcc writes. */
START_TEST(test_ptx)
{
    char *text = NULL;
    size_t len = 0;
    int arch = 0;
    ck_assert_int_eq(lab_image_open(test_lib(), &img, why, sizeof why), 0);
    ck_assert_msg(lab_image_ptx(&img, &text, &len, &arch, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(arch, 90);
    ck_assert_uint_eq(strlen(text), len);
    ck_assert_ptr_nonnull(strstr(text, ".version"));
    ck_assert_ptr_nonnull(strstr(text, ".target sm_90"));
    ck_assert_ptr_nonnull(strstr(text, ".entry _Z11matmulNaivePKfS0_Pfiii"));
    free(text);
    lab_image_close(&img);
    /* a library built without PTX (sm_75 code only) says what to do */
    ck_assert_int_eq(lab_image_open(injected_lib(), &img, why, sizeof why), 0);
    ck_assert_int_eq(lab_image_ptx(&img, &text, &len, &arch, why, sizeof why), -1);
    ck_assert_ptr_null(text);
    ck_assert_ptr_nonnull(strstr(why, "holds no PTX: rebuild the lab with the kit's Makefile"));
    lab_image_close(&img);
}
END_TEST

START_TEST(test_not_a_library)
{
    static const unsigned char text[] = "not an ELF file at all";
    ck_assert_int_eq(lab_image_open(write_tmp(text, sizeof text, text, sizeof text), &img, why,
                                    sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not a shared library"));
    ck_assert_int_eq(lab_image_open("/nonexistent/lab1.so", &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "build the lab first"));
    ck_assert_int_eq(lab_image_open("/tmp", &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not a lab library"));
}
END_TEST

/* Without X.fatbin the library is refused, whatever GPU code it holds itself. */
START_TEST(test_no_device_file)
{
    size_t n, m;
    unsigned char *d = et_slurp(test_lib(), &n), *fb = et_slurp(device_of(test_lib()), &m);
    ck_assert_int_eq(lab_image_open(write_tmp(d, n, NULL, 0), &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, ".fatbin is missing"));
    ck_assert_ptr_nonnull(strstr(why, "make labN"));
    ck_assert_int_eq(lab_image_open(write_tmp(d, n, fb, m), &img, why, sizeof why), 0);
    lab_image_close(&img);
    /* A fatbinary that is not one: refused with its own name. */
    ck_assert_int_eq(lab_image_open(write_tmp(d, n, d, n), &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, ".fatbin is not a fatbinary nvcc wrote"));
    free(d);
    free(fb);
}
END_TEST

/*
 * Host assembly (.incbin into .nv_fatbin) put a second fatbinary, with a
 * kernel the lab file never defined, into the library: the grader's image
 * knows only the lab file's own kernels.
 */
START_TEST(test_injected_device_code)
{
    const char *lib = getenv("SMEMLAB_INJECTED_LIB");
    ck_assert_msg(lib && access(lib, R_OK) == 0,
                  "SMEMLAB_INJECTED_LIB must name tests/unit/injected/lab1-injected.so's build");
    size_t n;
    unsigned char *d = et_slurp(lib, &n);
    static const char foreign[] = "_Z13foreignKernelPi";
    ck_assert_msg(memmem(d, n, foreign, sizeof foreign - 1) != NULL,
                  "the test library does not hold the injected kernel: the test proves nothing");
    free(d);
    ck_assert_int_eq(lab_image_open(lib, &img, why, sizeof why), 0);
    ck_assert_int_ge(lab_image_kernel(&img, "_Z13setRowReadRowPi"), 0);
    ck_assert_int_eq(lab_image_kernel(&img, foreign), -1);
    for (int i = 0; i < img.n_fatbins; i++)
        ck_assert(memmem(img.fatbins[i].data, img.fatbins[i].size, foreign,
                         sizeof foreign - 1) == NULL);
    lab_image_close(&img);
}
END_TEST

/* Every truncation of either file: refused or read, never a crash or a hang. */
START_TEST(test_truncated_copies)
{
    size_t n, m;
    unsigned char *d = et_slurp(test_lib(), &n), *fb = et_slurp(device_of(test_lib()), &m);
    for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
        int rc = lab_image_open(write_tmp(d, cut ? cut : 1, fb, m), &img, why, sizeof why);
        ck_assert(rc == -1 || img.n_kernels > 0);
        lab_image_close(&img);
    }
    for (size_t cut = 0; cut < m; cut += m / 97 + 1) {
        int rc = lab_image_open(write_tmp(d, n, fb, cut ? cut : 1), &img, why, sizeof why);
        ck_assert(rc == -1 || img.n_kernels > 0);
        lab_image_close(&img);
    }
    free(d);
    free(fb);
}
END_TEST

static void scribble(unsigned char *copy, const unsigned char *orig, size_t n, int round,
                     unsigned *seed)
{
    memcpy(copy, orig, n);
    for (int i = 0; i < 64; i++) {
        *seed = *seed * 1103515245u + 12345u;
        size_t at = round < 20 ? (*seed >> 8) % (n < 256 ? n : 256) : (*seed >> 4) % n;
        copy[at] ^= (unsigned char)(*seed >> 24 | 1); /* headers first */
    }
}

/* Bytes flipped all over either file, headers included. */
START_TEST(test_scribbled_copies)
{
    size_t n, m;
    unsigned char *d = et_slurp(test_lib(), &n), *fb = et_slurp(device_of(test_lib()), &m);
    unsigned char *copy = malloc(n > m ? n : m);
    unsigned seed = 12345;
    for (int round = 0; round < 120; round++) {
        int lib = round < 60;
        scribble(copy, lib ? d : fb, lib ? n : m, round % 60, &seed);
        int rc = lab_image_open(lib ? write_tmp(copy, n, fb, m) : write_tmp(d, n, copy, m),
                                &img, why, sizeof why);
        ck_assert(rc == 0 || rc == -1);
        for (int k = 0; rc == 0 && k < img.n_kernels; k++)
            ck_assert_uint_lt(strlen(img.kernels[k].name), IMAGE_MAX_NAME);
        lab_image_close(&img);
    }
    free(d);
    free(fb);
    free(copy);
}
END_TEST

Suite *image_suite(void)
{
    Suite *s = suite_create("image");
    TCase *tc = tcase_create("elf");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_real_library);
    tcase_add_test(tc, test_ptx);
    tcase_add_test(tc, test_not_a_library);
    tcase_add_test(tc, test_no_device_file);
    tcase_add_test(tc, test_injected_device_code);
    tcase_add_test(tc, test_truncated_copies);
    tcase_add_test(tc, test_scribbled_copies);
    suite_add_tcase(s, tc);
    return s;
}
