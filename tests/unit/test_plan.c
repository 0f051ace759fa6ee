/*
 * test_plan.c - validating a launcher's record (grader/record/plan.c): what
 * the grader replays, and every way a record can break the lab's contract.
 */
#include "record/plan.h"
#include "labs/sizes.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const lab_def lab1_def, lab5_def;

static lab_image img;
static call_spec spec;
static rec_call a, b;
static call_plan plan;
static char why[512];

/* A module with one kernel, int *out (8 bytes at 0), and one call with a 4 KB buffer. */
static void setup(void)
{
    memset(&img, 0, sizeof img);
    snprintf(img.kernels[0].name, sizeof img.kernels[0].name, "_Z13setRowReadRowPi");
    img.kernels[0].n_params = 1;
    img.kernels[0].params[0] = (kernel_param){0, 8};
    img.kernels[0].param_bytes = 8;
    snprintf(img.kernels[1].name, sizeof img.kernels[1].name, "_Z6matmulPKfS0_Pfiii");
    img.kernels[1].n_params = 6;
    unsigned offs[] = {0, 8, 16, 24, 28, 32}, sizes[] = {8, 8, 8, 4, 4, 4};
    for (int i = 0; i < 6; i++)
        img.kernels[1].params[i] = (kernel_param){offs[i], sizes[i]};
    img.kernels[1].param_bytes = 36;
    img.n_kernels = 2;
    lab_calls(&lab1_def, &lab1_def.kernels[0], &spec);

    memset(&a, 0, sizeof a);
    a.magic = REC_MAGIC;
    a.status = REC_RETURNED;
    a.n_launches = 1;
    rec_launch *l = &a.launches[0];
    snprintf(l->kernel, sizeof l->kernel, "%s", img.kernels[0].name);
    l->grid[0] = l->grid[1] = l->grid[2] = 1;
    l->block[0] = l->block[1] = 32;
    l->block[2] = 1;
    l->param_bytes = 8;
    uint64_t out = FAKE_BUFFER(0);
    memcpy(l->params, &out, 8);
    l->max_dynamic_shared = l->carveout = REC_ATTR_UNSET;
    b = a;
    b.repeat = 1;
}

static int validate(void)
{
    b = a;
    b.repeat = 1;
    return plan_from_records(&lab1_def, &lab1_def.kernels[0], &img, &spec, &a, &b, &plan, why,
                             sizeof why);
}

static void set_pointer(rec_launch *l, unsigned off, uint64_t v)
{
    memcpy(l->params + off, &v, 8);
}

#define REFUSED_WITH(text)                                        \
    do {                                                          \
        ck_assert_int_eq(validate(), -1);                         \
        ck_assert_msg(strstr(why, text), "message: %s", why);     \
    } while (0)

START_TEST(test_valid_record_becomes_a_plan)
{
    ck_assert_int_eq(validate(), 0);
    ck_assert_int_eq(plan.n_launches, 1);
    ck_assert_int_eq(plan.launches[0].kernel, 0);
    ck_assert_int_eq(plan.launches[0].block[0], 32);
    ck_assert_int_eq(plan.launches[0].n_relocs, 1);
    ck_assert_int_eq(plan.launches[0].relocs[0].offset, 0);
    ck_assert_int_eq(plan.launches[0].relocs[0].buffer, 0);
    ck_assert_uint_eq(plan.launches[0].relocs[0].delta, 0);
}
END_TEST

START_TEST(test_pointer_into_a_buffer_is_relocated)
{
    set_pointer(&a.launches[0], 0, FAKE_BUFFER(0) + 128);
    ck_assert_int_eq(validate(), 0);
    ck_assert_uint_eq(plan.launches[0].relocs[0].delta, 128);
}
END_TEST

START_TEST(test_pointer_past_the_buffer)
{
    set_pointer(&a.launches[0], 0, FAKE_BUFFER(0) + spec.buffer_bytes[0] + 4);
    REFUSED_WITH("outside the buffers");
}
END_TEST

START_TEST(test_pointer_to_another_buffer_index)
{
    set_pointer(&a.launches[0], 0, FAKE_BUFFER(2)); /* lab 1 passes one buffer */
    REFUSED_WITH("outside the buffers");
}
END_TEST

START_TEST(test_foreign_pointer)
{
    set_pointer(&a.launches[0], 0, 0x7f1234567000ull);
    REFUSED_WITH("none of the buffers");
}
END_TEST

START_TEST(test_foreign_kernel)
{
    snprintf(a.launches[0].kernel, sizeof a.launches[0].kernel, "cutlass_80_sgemm_128x128");
    REFUSED_WITH("not a kernel of your file");
}
END_TEST

START_TEST(test_unterminated_kernel_name)
{
    memset(a.launches[0].kernel, 'A', sizeof a.launches[0].kernel);
    REFUSED_WITH("not a kernel of your file");
}
END_TEST

START_TEST(test_block_too_large)
{
    a.launches[0].block[0] = 64;
    a.launches[0].block[1] = 32;
    REFUSED_WITH("1 to 1024 threads");
}
END_TEST

START_TEST(test_grid_over_the_labs_limit)
{
    a.launches[0].grid[0] = 65; /* lab 1 allows 64 blocks */
    REFUSED_WITH("allows 1 to 64 blocks");
    a.launches[0].grid[0] = 0;
    REFUSED_WITH("blocks");
}
END_TEST

START_TEST(test_shared_bytes_over_the_limit)
{
    a.launches[0].shared_bytes = 1u << 20;
    REFUSED_WITH("bytes of dynamic shared memory");
    a.launches[0].shared_bytes = 0;
    a.launches[0].max_dynamic_shared = 1 << 20;
    REFUSED_WITH("bytes of dynamic shared memory");
}
END_TEST

START_TEST(test_too_many_launches)
{
    a.n_launches = 3; /* lab 1 allows 2 per call */
    a.launches[1] = a.launches[2] = a.launches[0];
    REFUSED_WITH("at most 2");
    a.n_launches = 40; /* more than were even kept */
    REFUSED_WITH("at most 2");
}
END_TEST

START_TEST(test_negative_counts)
{
    a.n_launches = -1; /* "nothing to check", as a forged record might say */
    REFUSED_WITH("not one the kit's recorder writes");
    a.n_launches = 1;
    a.n_violations = -5;
    REFUSED_WITH("not one the kit's recorder writes");
}
END_TEST

START_TEST(test_no_launch)
{
    a.n_launches = 0;
    REFUSED_WITH("launched no kernel");
}
END_TEST

START_TEST(test_forbidden_call)
{
    a.n_violations = 3;
    snprintf(a.violations[0], sizeof a.violations[0], "cudaMemcpy");
    REFUSED_WITH("called cudaMemcpy (and 2 more calls)");
}
END_TEST

/* A launch of a library's kernel compiled into the file (issue 36): refused, named. */
START_TEST(test_library_kernel)
{
    const char *cub = "_ZN3cub17CUB_300001_SM_7506detail6reduce18DeviceReduceKernelINS2_10policy_"
                      "hubIijEEPKijEEvT0_";
    snprintf(img.kernels[1].name, sizeof img.kernels[1].name, "%s", cub);
    snprintf(a.launches[0].kernel, sizeof a.launches[0].kernel, "%s", cub);
    REFUSED_WITH("a launch of cub::detail::reduce::DeviceReduceKernel, a kernel of CUB's");
}
END_TEST

/* A call the fake runtime refused, in a file that compiles a library's kernels: the
   library's host code named with the call (issue 36). */
START_TEST(test_call_of_a_library)
{
    snprintf(img.kernels[1].name, sizeof img.kernels[1].name, "_ZN6thrust20THRUST_300001_SM_7506"
             "detail6kernelIiEEvv");
    a.n_violations = 1;
    snprintf(a.violations[0], sizeof a.violations[0], "cudaGetDeviceCount");
    REFUSED_WITH("called cudaGetDeviceCount, as Thrust's algorithms do (your file compiles its "
                 "thrust::detail::kernel)");
    a.n_violations = 1;
    snprintf(img.kernels[1].name, sizeof img.kernels[1].name, "_Z6matmulPKfS0_Pfiii");
    snprintf(a.violations[0], sizeof a.violations[0], "cublasSgemm_v2");
    REFUSED_WITH("called cublasSgemm_v2 (cuBLAS: the library does the work");
}
END_TEST

START_TEST(test_other_stream)
{
    a.launches[0].stream = 0x55aa00;
    REFUSED_WITH("not the default stream");
}
END_TEST

START_TEST(test_parameter_bytes_must_match_the_kernel)
{
    a.launches[0].param_bytes = 4;
    REFUSED_WITH("do not match its parameters");
}
END_TEST

START_TEST(test_second_call_must_launch_the_same)
{
    b = a;
    b.repeat = 1;
    b.launches[0].grid[0] = 2;
    ck_assert_int_eq(plan_from_records(&lab1_def, &lab1_def.kernels[0], &img, &spec, &a, &b,
                                       &plan, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "launched differently when called twice"));
    b = a;
    b.n_launches = 0; /* a launcher that remembers it already launched */
    ck_assert_int_eq(plan_from_records(&lab1_def, &lab1_def.kernels[0], &img, &spec, &a, &b,
                                       &plan, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "then no launch"));
}
END_TEST

START_TEST(test_matmul_pointers_and_scalars)
{
    call_spec calls[CALL_MAX];
    int n = lab_calls(&lab5_def, &lab5_def.kernels[1], calls);
    int traffic = calls_find(calls, n, CALL_TRAFFIC, 0), speed = calls_find(calls, n, CALL_SPEED, 0);
    int emulated = calls_find(calls, n, CALL_TRAFFIC, 1);
    ck_assert_int_eq(n, sizes_matmul_count + 2);
    ck_assert(traffic >= 0 && speed > traffic && emulated == traffic); /* one traffic size */
    ck_assert_int_eq(calls_find(calls, n, CALL_SPEED, 1), -1); /* no speed on the emulator */
    ck_assert_int_eq(calls[emulated].width, sizes_matmul_traffic.M);
    const call_spec *s = &calls[traffic];
    rec_launch *l = &a.launches[0];
    snprintf(l->kernel, sizeof l->kernel, "%s", img.kernels[1].name);
    l->block[0] = l->block[1] = 16;
    l->grid[0] = l->grid[1] = 64;
    l->param_bytes = 36;
    for (int i = 0; i < 3; i++)
        set_pointer(l, 8 * (unsigned)i, FAKE_BUFFER(i));
    int ints[3] = {1024, 1024, 1024};
    memcpy(l->params + 24, ints, sizeof ints);
    b = a;
    b.repeat = 1;
    ck_assert_int_eq(plan_from_records(&lab5_def, &lab5_def.kernels[1], &img, s, &a, &b, &plan,
                                       why, sizeof why), 0);
    ck_assert_int_eq(plan.launches[0].n_relocs, 3);
    ck_assert_int_eq(plan.launches[0].relocs[2].buffer, 2);
    /* the two pointers swapped are still the grader's buffers; the product will be wrong */
    set_pointer(l, 0, FAKE_BUFFER(1));
    set_pointer(l, 8, FAKE_BUFFER(0));
    b = a;
    ck_assert_int_eq(plan_from_records(&lab5_def, &lab5_def.kernels[1], &img, s, &a, &b, &plan,
                                       why, sizeof why), 0);
    ck_assert_int_eq(plan.launches[0].relocs[0].buffer, 1);
}
END_TEST

Suite *plan_suite(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("validate");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_valid_record_becomes_a_plan);
    tcase_add_test(tc, test_library_kernel);
    tcase_add_test(tc, test_call_of_a_library);
    tcase_add_test(tc, test_pointer_into_a_buffer_is_relocated);
    tcase_add_test(tc, test_pointer_past_the_buffer);
    tcase_add_test(tc, test_pointer_to_another_buffer_index);
    tcase_add_test(tc, test_foreign_pointer);
    tcase_add_test(tc, test_foreign_kernel);
    tcase_add_test(tc, test_unterminated_kernel_name);
    tcase_add_test(tc, test_block_too_large);
    tcase_add_test(tc, test_grid_over_the_labs_limit);
    tcase_add_test(tc, test_shared_bytes_over_the_limit);
    tcase_add_test(tc, test_too_many_launches);
    tcase_add_test(tc, test_no_launch);
    tcase_add_test(tc, test_negative_counts);
    tcase_add_test(tc, test_forbidden_call);
    tcase_add_test(tc, test_other_stream);
    tcase_add_test(tc, test_parameter_bytes_must_match_the_kernel);
    tcase_add_test(tc, test_second_call_must_launch_the_same);
    tcase_add_test(tc, test_matmul_pointers_and_scalars);
    suite_add_tcase(s, tc);
    return s;
}
