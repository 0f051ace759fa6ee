/*
 * test_sync.c - synchronisation errors as verdicts (grader/compare/sync.c): a
 * divergent barrier fails correct and race with the barrier's line and the
 * threads on each side; a member mask that names lanes not there fails
 * correct only; the student's line of a CUDA header's intrinsic; nothing met,
 * nothing changed.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/compare/sync.h"

static trace_summary summary_of(const trace_sync *e, int n)
{
    trace_summary s;
    memset(&s, 0, sizeof s);
    s.sync = (trace_sync *)e;
    s.n_sync = n;
    s.sync_count = n;
    return s;
}

static void passing(check_result *c, const char *id)
{
    check_init(c, "lab9", "transposeSmem", id, 3);
    check_set(c, CHECK_PASS, "was right");
}

static void threads(uint32_t *words, unsigned lo, unsigned hi)
{
    for (unsigned t = lo; t < hi; t++)
        words[t / 32] |= 1u << (t % 32);
}

START_TEST(test_nothing_met_changes_nothing)
{
    check_result correct, race;
    passing(&correct, "correct");
    passing(&race, "race");
    trace_summary s = summary_of(NULL, 0);
    ck_assert_int_eq(compare_sync(&correct, &race, &s), 0);
    ck_assert_int_eq(compare_sync(&correct, &race, NULL), 0);
    ck_assert_int_eq(correct.status, CHECK_PASS);
    ck_assert_int_eq(race.status, CHECK_PASS);
    ck_assert_str_eq(correct.message, "was right");
}
END_TEST

START_TEST(test_barrier_fails_correct_and_race)
{
    trace_sync e;
    memset(&e, 0, sizeof e);
    e.kind = TRACE_SYNC_BARRIER_BLOCK;
    e.text = "bar.sync";
    e.file = "/tmp/build/lab9.cu";
    e.line = 42;
    e.branch_file = "/tmp/build/lab9.cu";
    e.branch_line = 40;
    e.ctaid[0] = 2;
    e.threads = 1024;
    threads(e.reached, 0, 512);
    threads(e.skipped, 512, 1024);
    check_result correct, race;
    passing(&correct, "correct");
    passing(&race, "race");
    trace_summary s = summary_of(&e, 1);
    ck_assert_int_eq(compare_sync(&correct, &race, &s), 1);
    ck_assert_int_eq(correct.status, CHECK_FAIL);
    ck_assert_int_eq(race.status, CHECK_FAIL);
    ck_assert_str_eq(correct.message,
                     "divergent barrier: the __syncthreads() at lab9.cu:42 was reached by "
                     "threads 0-511 of block (2,0,0) but not by threads 512-1023, which had not "
                     "exited: they went on past it");
    ck_assert_str_eq(race.message, correct.message);
    ck_assert_ptr_nonnull(strstr(correct.hint, "left at the branch at lab9.cu:40"));
    ck_assert_ptr_nonnull(strstr(correct.hint, "Every thread of a block must reach each"));
    ck_assert_int_eq(correct.n_lines, 1);
    ck_assert_str_eq(correct.lines[0].file, "lab9.cu");
    ck_assert_int_eq(correct.lines[0].line, 42);
    ck_assert_double_eq(correct.points, 0);
}
END_TEST

START_TEST(test_barrier_in_a_warp)
{
    trace_sync e;
    memset(&e, 0, sizeof e);
    e.kind = TRACE_SYNC_BARRIER_WARP;
    e.text = "bar.sync";
    e.file = e.other_file = e.branch_file = "lab7.cu";
    e.line = 42;
    e.other_line = 45;
    e.branch_line = 40;
    e.warp = 1;
    e.lanes = 0xaaaaaaaau; /* odd lanes: threads 33, 35, ... */
    e.missing = 0x55555555u;
    check_result correct;
    passing(&correct, "correct");
    trace_summary s = summary_of(&e, 1);
    ck_assert_int_eq(compare_sync(&correct, NULL, &s), 1); /* no race check: correct alone */
    ck_assert_str_eq(correct.message,
                     "divergent barrier: the __syncthreads() at lab7.cu:42 was reached by "
                     "threads 33, 35, 37 and 13 more of block (0,0,0) but not by threads 32, "
                     "34, 36 and 13 more, which had not exited");
    ck_assert_ptr_nonnull(strstr(correct.hint, "take the other path, from lab7.cu:45 on, "
                                               "past the branch at lab7.cu:40"));
    /* the barrier in a function of the student's, inlined into the kernel at line 60 */
    e.call_file = "lab7.cu";
    e.call_line = 60;
    passing(&correct, "correct");
    compare_sync(&correct, NULL, &s);
    ck_assert_ptr_nonnull(strstr(correct.message, "the __syncthreads() at lab7.cu:42 (called "
                                                  "from lab7.cu:60) was reached by"));
}
END_TEST

START_TEST(test_split)
{
    trace_sync e;
    memset(&e, 0, sizeof e);
    e.kind = TRACE_SYNC_BARRIER_SPLIT;
    e.text = "bar.sync";
    e.file = e.other_file = "k.cu";
    e.line = 20;
    e.other_line = 24;
    e.threads = 128;
    threads(e.reached, 0, 64);
    threads(e.skipped, 64, 128);
    char text[400];
    compare_sync_text(&e, text, sizeof text);
    ck_assert_str_eq(text, "divergent barrier: in block (0,0,0) threads 0-63 waited at the "
                           "__syncthreads() at k.cu:20 and threads 64-127 at the one at k.cu:24");
    e.other_line = 20; /* one source barrier, two copies of it */
    compare_sync_text(&e, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "at another copy of it (nvcc's, of a loop whose passes "
                                       "differ between them)"));
    /* a header's barrier both, called from a header too (a cooperative group's sync(), the
       student's lines deeper than the PTX says): the cause is not claimed to be nvcc's */
    e.file = "/usr/local/cuda/include/sm_30_intrinsics.hpp";
    e.line = 98;
    e.call_file = e.other_file = "/usr/local/cuda/include/cooperative_groups/details/helpers.h";
    e.call_line = e.other_line = 87; /* the other at the place it reads too: the same */
    compare_sync_text(&e, text, sizeof text);
    ck_assert_msg(strstr(text, "at helpers.h:87 (in sm_30_intrinsics.hpp:98) and threads "
                               "64-127 at another barrier of that header line (another sync() "
                               "of yours, or nvcc's copy of a loop)") && !strstr(text, "copy of it"),
                  "%s", text);
    /* the student's two calls, named (the emulator gives the other barrier's place as the
       student reads it: emu_student_where) */
    e.call_file = "lab7.cu", e.call_line = 120;
    e.other_file = "lab7.cu", e.other_line = 123;
    compare_sync_text(&e, text, sizeof text);
    ck_assert_msg(strstr(text, "at lab7.cu:120 (in sm_30_intrinsics.hpp:98) and threads 64-127 "
                               "at the one at lab7.cu:123"), "%s", text);
}
END_TEST

START_TEST(test_mask_fails_correct_only)
{
    trace_sync e;
    memset(&e, 0, sizeof e);
    e.kind = TRACE_SYNC_MASK_ABSENT;
    e.text = "shfl.sync.bfly.b32";
    e.file = "/usr/local/cuda/include/sm_30_intrinsics.hpp";
    e.line = 409;
    e.call_file = "/home/s/lab8.cu";
    e.call_line = 121;
    e.mask = 0xffffffffu;
    e.lanes = 0xffu;
    e.missing = 0xffffff00u;
    check_result correct, race;
    passing(&correct, "correct");
    passing(&race, "race");
    trace_summary s = summary_of(&e, 1);
    ck_assert_int_eq(compare_sync(&correct, &race, &s), 1);
    ck_assert_int_eq(race.status, CHECK_PASS);
    ck_assert_str_eq(correct.message,
                     "warp mask: __shfl_xor_sync at lab8.cu:121 (in sm_30_intrinsics.hpp:409) "
                     "with mask 0xffffffff runs on lanes 0-7 of warp 0 (block (0,0,0)); lanes "
                     "8-31, which the mask names, do not execute it");
    ck_assert_ptr_nonnull(strstr(correct.hint, "Every lane a mask names must execute the same"));
    ck_assert_ptr_nonnull(strstr(correct.hint, "docs/lab8.md#shuffle"));
    /* the shuffle in a function of the student's, called under an if: its caller too */
    e.caller_line = 140;
    passing(&correct, "correct");
    compare_sync(&correct, NULL, &s);
    ck_assert_ptr_nonnull(strstr(correct.message, "__shfl_xor_sync at lab8.cu:121 (in "
                                                  "sm_30_intrinsics.hpp:409; called from "
                                                  "lab8.cu:140) with mask"));
    e.caller_line = 0;
    /* a shuffle that reads a lane that returned */
    e.kind = TRACE_SYNC_MASK_READ;
    e.missing = e.gone = 1u << 20;
    passing(&correct, "correct");
    compare_sync(&correct, NULL, &s);
    ck_assert_ptr_nonnull(strstr(correct.message, "reads lane 20 of warp 0 (block (0,0,0)), which "
                                                  "does not execute it"));
    ck_assert_ptr_nonnull(strstr(correct.hint, "have returned, skipped it (an if around the call), or do not exist"));
    e.kind = TRACE_SYNC_MASK_SELF;
    e.text = "vote.sync.any.pred";
    e.file = "k.cu";
    e.line = 9;
    e.call_file = NULL; /* the kernel's own line: no caller */
    e.call_line = 0;
    e.mask = 0xffffu;
    e.missing = 0xffff0000u;
    passing(&correct, "correct");
    compare_sync(&correct, NULL, &s);
    ck_assert_str_eq(correct.message, "warp mask: lanes 16-31 of warp 0 (block (0,0,0)) execute "
                                      "__any_sync at k.cu:9 with mask 0x0000ffff, which leaves "
                                      "them out");
}
END_TEST

START_TEST(test_names)
{
    char b[48];
    ck_assert_str_eq(compare_sync_name("shfl.sync.down.b32", b, sizeof b), "__shfl_down_sync");
    ck_assert_str_eq(compare_sync_name("shfl.sync.idx.b32", b, sizeof b), "__shfl_sync");
    ck_assert_str_eq(compare_sync_name("vote.sync.ballot.b32", b, sizeof b), "__ballot_sync");
    ck_assert_str_eq(compare_sync_name("redux.sync.min.s32", b, sizeof b), "__reduce_min_sync");
    ck_assert_str_eq(compare_sync_name("match.any.sync.b64", b, sizeof b), "__match_any_sync");
    ck_assert_str_eq(compare_sync_name("bar.warp.sync", b, sizeof b), "__syncwarp");
    ck_assert_str_eq(compare_sync_name("bar.red.popc.u32", b, sizeof b),
                     "__syncthreads_count()");
    ck_assert_str_eq(compare_sync_name("barrier.sync.aligned", b, sizeof b), "__syncthreads()");
    ck_assert_str_eq(compare_sync_name("bar.sync", b, sizeof b), "__syncthreads()");
    ck_assert_str_eq(compare_sync_name("barx.sync", b, sizeof b), "barx.sync");
}
END_TEST

Suite *sync_suite(void)
{
    Suite *s = suite_create("sync");
    TCase *tc = tcase_create("sync");
    tcase_add_test(tc, test_nothing_met_changes_nothing);
    tcase_add_test(tc, test_barrier_fails_correct_and_race);
    tcase_add_test(tc, test_barrier_in_a_warp);
    tcase_add_test(tc, test_split);
    tcase_add_test(tc, test_mask_fails_correct_only);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);
    return s;
}
