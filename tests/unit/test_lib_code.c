/*
 * test_lib_code.c - which device code is a library's (grader/image/lib_code.c):
 * the library code a kernel inlines, read from its PTX's line info (.loc's
 * function_name and inlined_at), told apart from code that only includes a
 * header or uses a helper; a library's kernels by name; hostile PTX.
 */
#include "image/lib_code.h"
#include "labs/lab_table.h"
#include "problems/problem.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "_ZN..." as the .b8 lines of a $L__info_string (nvcc writes the bytes, then a 0). */
static void info_string(char *out, size_t size, int n, const char *name)
{
    size_t at = (size_t)snprintf(out, size, "$L__info_string%d:\n.b8 ", n);
    for (const char *p = name; *p && at < size; p++)
        at += (size_t)snprintf(out + at, size - at, "%d,", (unsigned char)*p);
    snprintf(out + at, size - at, "0\n");
}

/*
 * A module as nvcc -lineinfo writes one: kernels whose bodies are given, the
 * files, and four inlined functions' names: 0 cub::BlockReduce<int, 256>::Sum,
 * 1 cooperative_groups::reduce of a 256-thread tile, 2 of a 32-thread tile, 3 a
 * tile's shfl_xor.
 */
static char *module_of(const char *bodies)
{
    static const char *const names[] = {
        "_ZN3cub17CUB_300001_SM_90011BlockReduceIiLi256ELNS_20BlockReduceAlgorithmE2ELi1ELi1EE"
        "3SumEi",
        "_ZN18cooperative_groups4__v16reduceINS0_17thread_block_tileILj256ENS0_12thread_block"
        "EEERKiiNS0_4plusEEEDTclfp1_fp0_fp0_EERKT_OT0_OT1_IT1_E",
        "_ZN18cooperative_groups4__v16reduceINS0_17thread_block_tileILj32ENS0_12thread_block"
        "EEERKiiNS0_4plusEEEDTclfp1_fp0_fp0_EERKT_OT0_OT1_IT1_E",
        "_ZNK18cooperative_groups4__v131__static_size_thread_block_tile_baseILj32EE8shfl_xor"
        "IRiiEET0_OT_j"};
    size_t size = strlen(bodies) + 16384;
    char *m = malloc(size), s[2048];
    size_t at = (size_t)snprintf(m, size, ".version 9.0\n.target sm_90\n%s\n"
                                 "\t.file\t1 \"/home/student/lab7.cu\"\n"
                                 "\t.file\t2 \"/usr/local/cuda-13.0/include/cccl/cub/block/"
                                 "block_reduce.cuh\"\n"
                                 "\t.file\t3 \"/usr/local/cuda/include/cooperative_groups/details/"
                                 "reduce.h\"\n"
                                 "\t.file\t4 \"/usr/local/cuda/include/cooperative_groups.h\"\n"
                                 "\t.file\t5 \"/usr/local/cuda-13.0/include/cccl/cub/util_ptx."
                                 "cuh\"\n"
                                 "\t.section\t.debug_str\n\t{\n", bodies);
    for (int i = 0; i < 4; i++) {
        info_string(s, sizeof s, i, names[i]);
        at += (size_t)snprintf(m + at, size - at, "%s", s);
    }
    snprintf(m + at, size - at, "\t}\n");
    return m;
}

static lib_use scan(const char *bodies, const char *kernel, int want_rc)
{
    char *m = module_of(bodies);
    lib_use u;
    ck_assert_int_eq(lib_code_of_kernel(m, strlen(m), kernel, &u), want_rc);
    free(m);
    return u;
}

START_TEST(test_cub_block_reduce_inlined)
{
    lib_use u = scan(".visible .entry _Z10reduceSmemPKiPii(\n\t.param .u64 p\n)\n{\n"
                     "\t.loc\t1 60 1\n\tld.global.u32 %r1, [%rd1];\n"
                     "\t.loc\t2 353 5, function_name $L__info_string0, inlined_at 1 63 15\n"
                     "\tst.shared.u32 [%r2], %r1;\n\t.loc\t1 64 1\n\tret;\n}\n",
                     "_Z10reduceSmemPKiPii", 0);
    ck_assert_uint_eq(u.found, LIB_CODE_CUB_REDUCE);
    ck_assert_str_eq(u.first[0].what, "cub::BlockReduce (CUB)");
    ck_assert_str_eq(u.first[0].where, "lab7.cu:63");
}
END_TEST

START_TEST(test_cooperative_groups)
{
    /* a block's tile reduced whole; a warp's; a warp tile's shuffles (a helper, legal) */
    const char *k = ".visible .entry _Z1bv()\n{\n\t.loc\t1 10 1\n"
                    "\t.loc\t3 364 5, function_name $L__info_string1, inlined_at 1 12 9\n"
                    "\tshfl.sync.bfly.b32 %r1, %r2, 16, 31, -1;\n\tret;\n}\n"
                    ".visible .entry _Z1wv()\n{\n\t.loc\t1 20 1\n"
                    "\t.loc\t3 364 5, function_name $L__info_string2, inlined_at 1 22 9\n"
                    "\tredux.sync.add.s32 %r1, %r2, -1;\n\tret;\n}\n"
                    ".visible .entry _Z1sv()\n{\n\t.loc\t1 30 1\n"
                    "\t.loc\t4 661 9, function_name $L__info_string3, inlined_at 1 31 14\n"
                    "\tshfl.sync.bfly.b32 %r1, %r2, 16, 31, -1;\n\tret;\n}\n";
    lib_use b = scan(k, "_Z1bv", 0), w = scan(k, "_Z1wv", 0), s = scan(k, "_Z1sv", 0);
    ck_assert_uint_eq(b.found, LIB_CODE_CG_BLOCK_REDUCE);
    ck_assert_str_eq(b.first[5].where, "lab7.cu:12");
    ck_assert_msg(strstr(b.first[5].what, "cooperative_groups::reduce"), "%s", b.first[5].what);
    ck_assert_uint_eq(w.found, LIB_CODE_CG_WARP_REDUCE);
    ck_assert_uint_eq(s.found, 0);
}
END_TEST

START_TEST(test_header_and_helper_only)
{
    /* code of CUB's utilities (a lane id) and no library code at all: nothing found; a
       kernel the PTX lacks: -1 */
    const char *k = ".visible .entry _Z1hv()\n{\n\t.loc\t1 10 1\n"
                    "\t.loc\t5 200 3, inlined_at 1 11 5\n\tmov.u32 %r1, %laneid;\n\tret;\n}\n"
                    ".visible .entry _Z1pv()\n{\n\tret;\n}\n";
    ck_assert_uint_eq(scan(k, "_Z1hv", 0).found, 0);
    ck_assert_uint_eq(scan(k, "_Z1pv", 0).found, 0);
    scan(k, "_Z1qv", -1);
}
END_TEST

START_TEST(test_through_a_call)
{
    /* the library's code in a function the kernel calls, not inlined */
    lib_use u = scan(".func (.param .b32 r) _Z3sumi(\n\t.param .b32 x\n)\n{\n"
                     "\t.loc\t1 5 1\n"
                     "\t.loc\t2 353 5, function_name $L__info_string0, inlined_at 1 6 12\n"
                     "\tret;\n}\n"
                     ".visible .entry _Z1kv()\n{\n\t.loc\t1 10 1\n"
                     "\tcall.uni (retval0), \n\t_Z3sumi, \n\t(\n\tparam0\n\t);\n\tret;\n}\n"
                     ".visible .entry _Z1ov()\n{\n\t.loc\t1 30 1\n\tret;\n}\n",
                     "_Z1kv", 0);
    ck_assert_uint_eq(u.found, LIB_CODE_CUB_REDUCE);
    ck_assert_uint_eq(scan(".func (.param .b32 r) _Z3sumi(\n)\n{\n\t.loc\t1 5 1\n"
                           "\t.loc\t2 353 5, function_name $L__info_string0, inlined_at 1 6 "
                           "12\n\tret;\n}\n.visible .entry _Z1ov()\n{\n\t.loc\t1 30 1\n"
                           "\tcall.uni \n\t_Z1xv, \n\t(\n\t);\n\tret;\n}\n"
                           ".func _Z1xv()\n{\n\tret;\n}\n", "_Z1ov", 0).found, 0);
    /* through a function pointer: every function with a body may be the one called */
    u = scan(".func (.param .b32 r) _Z3sumi(\n\t.param .b32 x\n)\n{\n"
             "\t.loc\t1 5 1\n"
             "\t.loc\t2 353 5, function_name $L__info_string0, inlined_at 1 6 12\n"
             "\tret;\n}\n"
             ".visible .entry _Z1pv()\n{\n\t.loc\t1 10 1\n\tmov.u64 %rd1, _Z3sumi;\n"
             "\tcall (retval0), %rd1, (param0), prototype_0;\n\tret;\n}\n"
             ".visible .entry _Z1nv()\n{\n\t.loc\t1 20 1\n\tret;\n}\n",
             "_Z1pv", 0);
    ck_assert_uint_eq(u.found, LIB_CODE_CUB_REDUCE);
}
END_TEST

START_TEST(test_hostile_text)
{
    /* cut off mid-name, huge file and string numbers, an unterminated path: no crash */
    static const char *const bad[] = {
        ".visible .entry _Z1kv()\n{\n\t.loc\t99999999 1 1, function_name $L__info_string9999999"
        "9, inlined_at 4294967296 1 1\n",
        "\t.file\t3 \"/cub/\n.visible .entry _Z1kv(\n{\n\t.loc\t3",
        "$L__info_string0:\n.b8 999,-1,x,\n.visible .entry _Z1kv()\n{{{\n",
        ".func",
        ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lib_use u;
        int rc = lib_code_of_kernel(bad[i], strlen(bad[i]), "_Z1kv", &u);
        ck_assert(rc == 0 || rc == -1);
        ck_assert_uint_eq(rc == 0 ? u.found : 0, 0);
    }
}
END_TEST

START_TEST(test_names)
{
    char out[128];
    lib_code_readable("_ZN3cub17CUB_300001_SM_7506detail6reduce28DeviceReduceSingleTileKernelI"
                      "NS2_10policy_hubIijEEEEvT0_", out, sizeof out);
    ck_assert_str_eq(out, "cub::detail::reduce::DeviceReduceSingleTileKernel");
    lib_code_readable("_Z10reduceSmemPKiPii", out, sizeof out);
    ck_assert_str_eq(out, "reduceSmem");
    lib_code_readable("kernel_c_name", out, sizeof out);
    ck_assert_str_eq(out, "kernel_c_name");
    lib_code_readable("_ZN9999", out, sizeof out); /* a length past the end */
    ck_assert_str_eq(out, "_ZN9999");
    ck_assert_str_eq(lib_code_kernel_library("_ZN3cub17CUB_300001_SM_7506detail11EmptyKernelI"
                                             "vEEvv"), "CUB");
    ck_assert_str_eq(lib_code_kernel_library("_ZN6thrust20THRUST_300001_SM_7506detail6kernel"
                                             "IiEEvv"), "Thrust");
    ck_assert_ptr_null(lib_code_kernel_library("_Z10reduceSmemPKiPii"));
    ck_assert_ptr_null(lib_code_kernel_library("_ZN7mycub_x6kernelEv"));
}
END_TEST

/* Every kernel's lesson names one of its own checks, and the libraries that do it:
   a lesson whose check the kernel does not have would never fail. */
/* Every kernel that has a lesson, lab by lab: the next one after *at (start at {0, -1}),
   its lab in *lab; NULL after the last. */
typedef struct lesson_at {
    int lab, kernel;
} lesson_at;

static const lab_kernel *next_lesson(lesson_at *at, const lab_def **lab)
{
    for (; at->lab < lab_registry_count; at->lab++, at->kernel = -1) {
        *lab = lab_registry[at->lab];
        while (++at->kernel < (*lab)->n_kernels)
            if ((*lab)->kernels[at->kernel].lesson.check != CHK_NONE)
                return &(*lab)->kernels[at->kernel];
    }
    return NULL;
}

START_TEST(test_lessons_are_checks)
{
    int lessons = 0;
    lesson_at at = {0, -1};
    const lab_def *lab;
    for (const lab_kernel *k; (k = next_lesson(&at, &lab));) {
        lessons++;
        ck_assert_msg(k->points.of[k->lesson.check] > 0, "%s %s: its lesson's check %s is "
                      "not one of its checks", lab->id, k->name, check_name(k->lesson.check));
        ck_assert_msg(k->lesson.libraries != 0 && k->lesson.what && k->lesson.what[0] &&
                          k->lesson.yours && k->lesson.yours[0],
                      "%s %s: a lesson with no library, no words or nothing the student "
                      "writes instead", lab->id, k->name);
    }
    ck_assert_int_ge(lessons, 4 + 1 + 2 + 4); /* labs 7 (and its optional tree), 8, 9 */
}
END_TEST

/* A library's failure of a lesson (problems/lesson.c), as every lab words it: the message
   says what the library's code does (cooperative_groups::reduce adds in registers, not in a
   shared tile) and fits whole with the longest library name; the hint ends with what the lab
   lets the student write instead, whole, true of that lab: lab 7's tree lets a group's
   sync() in and says shuffled levels fail there, lab 8's shuffles are the student's. */
START_TEST(test_lesson_words)
{
    static const char longest[] = "cooperative_groups::reduce (cooperative groups, a tile of "
                                  "more than a warp)";
    int worded = 0;
    lesson_at at = {0, -1};
    const lab_def *lab;
    for (const lab_kernel *k; (k = next_lesson(&at, &lab));) {
        for (unsigned bit = 1; bit <= LIB_CODE_CG_BLOCK_REDUCE; bit <<= 1) {
            if (!(k->lesson.libraries & bit))
                continue;
            check_result c;
            check_init(&c, lab->id, k->name, check_name(k->lesson.check), 1);
            lesson_library_fail(&c, &k->lesson, bit, longest, "lab10.cu:1234");
            worded++;
            ck_assert_int_eq(c.status, CHECK_FAIL);
            size_t m = strlen(c.message), h = strlen(c.hint), y = strlen(k->lesson.yours);
            ck_assert_msg(m < sizeof c.message - 1 && strstr(c.message, "(lab10.cu:1234)") &&
                              !strcmp(c.message + m - strlen("points"), "points"),
                          "%s %s: the message is cut: %s", lab->id, k->name, c.message);
            ck_assert_msg(h < sizeof c.hint - 1 && h > y &&
                              !strcmp(c.hint + h - y, k->lesson.yours),
                          "%s %s: the hint is cut: %s", lab->id, k->name, c.hint);
            ck_assert_msg(!strstr(c.message, "does "), "%s %s: the message says the library "
                          "does the lesson, not what it does: %s", lab->id, k->name,
                          c.message);
            if (bit == LIB_CODE_CG_WARP_REDUCE || bit == LIB_CODE_CG_BLOCK_REDUCE)
                ck_assert_msg(strstr(c.message, "in registers") &&
                                  !strstr(c.message, "shared tile"),
                              "%s %s: cg::reduce's words: %s", lab->id, k->name, c.message);
            if (!strcmp(lab->id, "lab7"))
                ck_assert_msg(strstr(c.hint, "sync(): a helper, yours to use") ||
                                      strstr(c.hint, "sync() of the block or of a tile: "
                                                     "a helper, yours to use"),
                              "lab7 %s: no group's sync() in the hint: %s", k->name, c.hint);
            if (!strcmp(lab->id, "lab7"))
                ck_assert_msg(strstr(c.hint, "lab 8's lesson") &&
                                  strstr(c.hint, "in registers") &&
                                  strstr(c.hint, "fails this check too") &&
                                  !strstr(c.hint, "shfl_xor and shfl_down"),
                              "lab7 %s: the hint is not lab 7's: %s", k->name, c.hint);
            if (!strcmp(lab->id, "lab8"))
                ck_assert_msg(strstr(c.hint, "a warp tile's shfl_xor and shfl_down "
                                             "(cg::tiled_partition<32>): helpers, yours to "
                                             "use") && !strstr(c.hint, "fails this check"),
                              "lab8 %s: the hint is not lab 8's: %s", k->name, c.hint);
        }
    }
    ck_assert_int_ge(worded, (4 + 1) * 4 + 2 * 4 + 4); /* labs 7, 8: 4 libraries; lab 9: 1 */
}
END_TEST

Suite *lib_code_suite(void)
{
    Suite *s = suite_create("lib_code");
    TCase *tc = tcase_create("lib_code");
    tcase_add_test(tc, test_cub_block_reduce_inlined);
    tcase_add_test(tc, test_cooperative_groups);
    tcase_add_test(tc, test_header_and_helper_only);
    tcase_add_test(tc, test_through_a_call);
    tcase_add_test(tc, test_hostile_text);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_lessons_are_checks);
    tcase_add_test(tc, test_lesson_words);
    suite_add_tcase(s, tc);
    return s;
}
