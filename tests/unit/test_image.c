/*
 * test_image.c - reading a lab library's file without loading it
 * (grader/image/): a real library built by nvcc (SMEMLAB_TEST_LIB, set by
 * make check-unit to the lab 5 solution), and damaged copies of it.
 */
#define _POSIX_C_SOURCE 200809L
#include "image/lab_image.h"
#include "lab_table.h"

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

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *d = malloc(*n);
    ck_assert_uint_eq(fread(d, 1, *n, f), *n);
    fclose(f);
    return d;
}

static const char *write_tmp(const unsigned char *d, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/smemlab-image-%d.so", (int)getpid());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(d, 1, n, f), n);
    fclose(f);
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
    ck_assert_int_eq(lab_image_check_contract(&img, &lab5_def, why, sizeof why), 0);
    ck_assert_int_eq(lab_image_check_contract(&img, &lab6_def, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "does not export TILE1D"));
    lab_image_close(&img);
}
END_TEST

START_TEST(test_not_a_library)
{
    static const unsigned char text[] = "not an ELF file at all";
    ck_assert_int_eq(lab_image_open(write_tmp(text, sizeof text), &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not a shared library"));
    ck_assert_int_eq(lab_image_open("/nonexistent/lab1.so", &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "build the lab first"));
    ck_assert_int_eq(lab_image_open("/tmp", &img, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not a lab library"));
}
END_TEST

/* Every truncation of the real file: refused or read, never a crash or a hang. */
START_TEST(test_truncated_copies)
{
    size_t n;
    unsigned char *d = slurp(test_lib(), &n);
    for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
        int rc = lab_image_open(write_tmp(d, cut ? cut : 1), &img, why, sizeof why);
        ck_assert(rc == -1 || img.n_kernels > 0);
        lab_image_close(&img);
    }
    free(d);
}
END_TEST

/* Bytes flipped all over the file, headers included. */
START_TEST(test_scribbled_copies)
{
    size_t n;
    unsigned char *d = slurp(test_lib(), &n), *copy = malloc(n);
    unsigned seed = 12345;
    for (int round = 0; round < 60; round++) {
        memcpy(copy, d, n);
        for (int i = 0; i < 64; i++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = round < 20 ? (seed >> 8) % 256 : (seed >> 4) % n; /* headers first */
            copy[at] ^= (unsigned char)(seed >> 24 | 1);
        }
        int rc = lab_image_open(write_tmp(copy, n), &img, why, sizeof why);
        ck_assert(rc == 0 || rc == -1);
        for (int k = 0; rc == 0 && k < img.n_kernels; k++)
            ck_assert_uint_lt(strlen(img.kernels[k].name), IMAGE_MAX_NAME);
        lab_image_close(&img);
    }
    free(d);
    free(copy);
}
END_TEST

Suite *image_suite(void)
{
    Suite *s = suite_create("image");
    TCase *tc = tcase_create("elf");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_real_library);
    tcase_add_test(tc, test_not_a_library);
    tcase_add_test(tc, test_truncated_copies);
    tcase_add_test(tc, test_scribbled_copies);
    suite_add_tcase(s, tc);
    return s;
}
