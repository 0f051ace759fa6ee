/* test_predict.c - the student's PREDICT lines (grader/compare/predict.c): parsing and judging. */
#define _POSIX_C_SOURCE 200809L
#include "labs/lab_table.h"
#include "compare/predict.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static predict_set set;

static void parse(const char *text)
{
    predict_parse_text(text, strlen(text), &set);
}

static double degree_of(const char *kernel, predict_access a)
{
    const prediction *p = predict_find(&set, kernel, a);
    return p ? p->degree : -1.0;
}

static int notes_mention(const char *s)
{
    for (int i = 0; i < set.n_notes; i++)
        if (strstr(set.notes[i], s))
            return 1;
    return 0;
}

START_TEST(reads_store_and_load_in_any_order)
{
    parse("#include \"smemlab.h\"\n"
          "// PREDICT setRowReadRow store 1 load 1\n"
          "   //PREDICT setRowReadCol load 32 store 1\n"
          " * PREDICT setColReadCol store 32\n"
          "/* PREDICT setRowReadColPad load 1.5 */\n"
          "__global__ void k() {}\n");
    ck_assert_int_eq(set.count, 6);
    ck_assert_int_eq(set.n_notes, 0);
    ck_assert_double_eq(degree_of("setRowReadRow", PREDICT_STORE), 1.0);
    ck_assert_double_eq(degree_of("setRowReadRow", PREDICT_LOAD), 1.0);
    ck_assert_double_eq(degree_of("setRowReadCol", PREDICT_LOAD), 32.0);
    ck_assert_double_eq(degree_of("setRowReadCol", PREDICT_STORE), 1.0);
    ck_assert_double_eq(degree_of("setColReadCol", PREDICT_STORE), 32.0);
    ck_assert_double_eq(degree_of("setColReadCol", PREDICT_LOAD), -1.0);
    ck_assert_double_eq(degree_of("setRowReadColPad", PREDICT_LOAD), 1.5);
    ck_assert_int_eq(predict_find(&set, "setRowReadCol", PREDICT_LOAD)->line, 3);
    ck_assert_ptr_null(predict_find(&set, "setRowReadColDyn", PREDICT_LOAD));
}
END_TEST

START_TEST(question_marks_are_no_prediction)
{
    parse("// PREDICT setRowReadRow store ? load ?\n"
          "// PREDICT setColReadCol store ? load 32\n");
    ck_assert_int_eq(set.n_notes, 0);
    ck_assert_int_eq(set.count, 1);
    ck_assert_double_eq(degree_of("setColReadCol", PREDICT_LOAD), 32.0);
}
END_TEST

START_TEST(only_comment_lines_count)
{
    parse("int PREDICT = 3;\n"
          "x = 1; // PREDICT setRowReadRow store 1\n"
          "// PREDICTION setRowReadRow store 2\n"
          "// predict setRowReadRow store 2\n"
          "// The grader reads lines such as PREDICT k store 1.\n");
    ck_assert_int_eq(set.count, 0);
    ck_assert_int_eq(set.n_notes, 0);
}
END_TEST

START_TEST(bad_lines_get_a_note_and_keep_nothing)
{
    parse("// PREDICT\n"                                   /* 1: no name */
          "// PREDICT 9lives store 1\n"                    /* 2: not an identifier */
          "// PREDICT setRowReadRow\n"                     /* 3: nothing predicted */
          "// PREDICT setRowReadRow store\n"               /* 4: no value */
          "// PREDICT setRowReadRow stores 1\n"            /* 5: unknown word */
          "// PREDICT setRowReadRow store 1 load 0\n"      /* 6: below 1: nothing kept */
          "// PREDICT setRowReadRow load 33\n"             /* 7: above 32 */
          "// PREDICT setRowReadRow load nan\n"            /* 8 */
          "// PREDICT setRowReadRow load 1e1\n"            /* 9: no exponents */
          "// PREDICT setRowReadRow load 1..2\n"           /* 10 */
          "// PREDICT setRowReadRow load 2 load 4\n");     /* 11: twice */
    ck_assert_int_eq(set.count, 0);
    ck_assert_int_eq(set.n_notes, PREDICT_MAX_NOTES);
    ck_assert_int_eq(set.notes_dropped, 11 - PREDICT_MAX_NOTES);
    ck_assert_ptr_nonnull(strstr(set.notes[0], "line 1: "));
    ck_assert_ptr_nonnull(strstr(set.notes[0], "kernel name"));
    ck_assert_ptr_nonnull(strstr(set.notes[1], "line 2: "));
    ck_assert(notes_mention("line 5: expected 'store', 'load' or 'const'"));
    ck_assert(notes_mention("line 6: the load degree must be a number from 1"));
    ck_assert(notes_mention("line 7: the load degree"));
}
END_TEST

START_TEST(a_later_line_replaces_an_earlier_one)
{
    parse("// PREDICT setRowReadCol load 2\n"
          "\n"
          "// PREDICT setRowReadCol load 32\n");
    ck_assert_int_eq(set.count, 1);
    ck_assert_double_eq(degree_of("setRowReadCol", PREDICT_LOAD), 32.0);
    ck_assert_int_eq(predict_find(&set, "setRowReadCol", PREDICT_LOAD)->line, 3);
    ck_assert_int_eq(set.n_notes, 1);
    ck_assert(notes_mention("line 3: setRowReadCol load was predicted on line 1 too"));
}
END_TEST

START_TEST(hostile_text_stays_bounded)
{
    /* A very long PREDICT line, NUL bytes, CRLF, a name too long, no final newline. */
    size_t n = 100000;
    char *text = malloc(n + 512);
    ck_assert_ptr_nonnull(text);
    strcpy(text, "// PREDICT a store 2 ");
    size_t len = strlen(text);
    memset(text + len, '1', n);
    len += n;
    const char tail[] = "\n// PREDICT b\0c store 4\r\n// PREDICT "
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa store 1\n"
                        "// PREDICT last load 8";
    memcpy(text + len, tail, sizeof tail - 1);
    len += sizeof tail - 1;
    predict_parse_text(text, len, &set);
    free(text);
    /* line 1 too long, line 2 "b c store 4" has an odd word, line 3 name too long */
    ck_assert_int_eq(set.count, 1);
    ck_assert_double_eq(degree_of("last", PREDICT_LOAD), 8.0);
    ck_assert_int_eq(predict_find(&set, "last", PREDICT_LOAD)->line, 4);
    ck_assert(notes_mention("line 1: a PREDICT line longer than"));
    ck_assert(notes_mention("line 2: "));
    ck_assert(notes_mention("line 3: PREDICT needs a kernel name"));
    for (int i = 0; i < set.n_notes; i++)
        ck_assert_uint_lt(strlen(set.notes[i]), PREDICT_NOTE_MAX);
}
END_TEST

START_TEST(at_most_predict_max_are_kept)
{
    size_t cap = (PREDICT_MAX + 10) * 64;
    char *text = malloc(cap), *p = text;
    for (int i = 0; i < PREDICT_MAX + 10; i++)
        p += sprintf(p, "// PREDICT k%d store 1\n", i);
    predict_parse_text(text, (size_t)(p - text), &set);
    free(text);
    ck_assert_int_eq(set.count, PREDICT_MAX);
    ck_assert_int_eq(set.dropped, 10);
    ck_assert_ptr_nonnull(predict_find(&set, "k0", PREDICT_STORE));
    ck_assert_ptr_null(predict_find(&set, "k70", PREDICT_STORE));
}
END_TEST

static char tmpdir[64];

static void make_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/smemlab-predict.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

START_TEST(reads_a_file_and_refuses_what_is_not_one)
{
    make_tmp();
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/lab1.cu", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("// PREDICT setRowReadCol store 1 load 32\n", f);
    fclose(f);
    ck_assert_int_eq(predict_parse(path, &set, err, sizeof err), 0);
    ck_assert_int_eq(set.count, 2);
    ck_assert_int_eq(set.truncated, 0);

    char missing[128];
    snprintf(missing, sizeof missing, "%s/nope.cu", tmpdir);
    ck_assert_int_eq(predict_parse(missing, &set, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "nope.cu"));
    ck_assert_int_eq(set.count, 0);

    /* a directory, and a FIFO that nobody writes: refused at once, no hang */
    ck_assert_int_eq(predict_parse(tmpdir, &set, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/fifo.cu", tmpdir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(predict_parse(fifo, &set, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    unlink(fifo);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

START_TEST(a_huge_file_is_read_only_in_part)
{
    make_tmp();
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/big.cu", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("// PREDICT early store 2\n", f);
    for (long i = 0; i < PREDICT_MAX_BYTES / 16 + 10; i++)
        fputs("/* padding... */\n", f);
    fputs("// PREDICT late store 4\n", f);
    fclose(f);
    ck_assert_int_eq(predict_parse(path, &set, err, sizeof err), 0);
    ck_assert_int_eq(set.truncated, 1);
    ck_assert_ptr_nonnull(predict_find(&set, "early", PREDICT_STORE));
    ck_assert_ptr_null(predict_find(&set, "late", PREDICT_STORE));
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* p against a check that measured `measured`, passed, and says no range: the measurement
   stands for what it accepts. */
static predict_verdict judge(const prediction *p, double measured, char *text, size_t size)
{
    predict_against a = {measured, 0, 0, 0, "load-conflicts"};
    return predict_judge(p, &a, text, size);
}

START_TEST(judges_against_the_measured_degree)
{
    prediction p = {"setRowReadCol", PREDICT_LOAD, 32.0, 3};
    char text[256];
    ck_assert_int_eq(judge(&p, 32.0, text, sizeof text), PREDICT_RIGHT);
    ck_assert_str_eq(text, "setRowReadCol load: you predicted 32-way conflict, "
                           "measured 32-way conflict: right");
    ck_assert_int_eq(judge(&p, 31.0, text, sizeof text), PREDICT_RIGHT); /* within 5% */
    ck_assert_int_eq(judge(&p, 16.0, text, sizeof text), PREDICT_WRONG);
    ck_assert_ptr_nonnull(strstr(text, "measured 16-way conflict"));
    ck_assert_ptr_nonnull(strstr(text, "not this time"));

    prediction q = {"setRowReadColPad", PREDICT_LOAD, 1.0, 9};
    ck_assert_int_eq(judge(&q, 1.0, text, sizeof text), PREDICT_RIGHT);
    ck_assert_ptr_nonnull(strstr(text, "predicted conflict-free, measured conflict-free"));
    ck_assert_int_eq(judge(&q, 2.0, text, sizeof text), PREDICT_WRONG);
    ck_assert_int_eq(judge(&q, 1.07, text, sizeof text), PREDICT_WRONG);
    ck_assert_int_eq(judge(&q, -1.0, text, sizeof text), PREDICT_NOT_MEASURED);
    ck_assert_ptr_nonnull(strstr(text, "not measured"));
    ck_assert_int_eq(judge(&q, NAN, text, sizeof text), PREDICT_NOT_MEASURED);

    /* a short buffer is cut, not overrun */
    char small[12];
    memset(small, 'x', sizeof small);
    judge(&p, 32.0, small, sizeof small);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

/* lab 10's prediction: the distinct constant addresses a warp request reads */
/*
 * A prediction is of the exercise's code: judged against the degrees its check accepts,
 * not one measurement (the interleaved tree's 3.80-way, as written, is right where nvcc
 * merged its loads to 3.48-way), and not judged where the check failed: the code differs.
 */
START_TEST(judges_against_what_the_check_accepts)
{
    prediction p = {"reduceSmemInterleaved", PREDICT_LOAD, 3.8, 7};
    char text[320];
    predict_against tree = {3.48, 3.48 * 0.95, 3.80 * 1.05, 0, "smem-conflicts"};
    ck_assert_int_eq(predict_judge(&p, &tree, text, sizeof text), PREDICT_RIGHT);
    ck_assert_str_eq(text, "reduceSmemInterleaved load: you predicted 3.80-way conflict, "
                           "measured 3.48-way conflict: right (the check accepts 3.31- to "
                           "3.99-way)");
    p.degree = 8;
    ck_assert_int_eq(predict_judge(&p, &tree, text, sizeof text), PREDICT_WRONG);
    ck_assert_ptr_nonnull(strstr(text, "not this time"));
    /* a wrong pad: the code fails the check, the prediction of the exercise is not blamed */
    prediction q = {"setRowReadColPad", PREDICT_LOAD, 1.0, 9};
    predict_against pad = {32.0, 0.95, 1.05, 1, "load-conflicts"};
    ck_assert_int_eq(predict_judge(&q, &pad, text, sizeof text), PREDICT_NOT_JUDGED);
    ck_assert_str_eq(text, "setRowReadColPad load: you predicted conflict-free; your kernel "
                           "measured 32-way conflict, and load-conflicts says how its code "
                           "differs from the exercise's: the prediction is judged once it "
                           "passes");
    ck_assert_ptr_null(strstr(text, "not this time"));
    q.degree = 32; /* even one that matches the wrong code: it is not the exercise's */
    ck_assert_int_eq(predict_judge(&q, &pad, text, sizeof text), PREDICT_NOT_JUDGED);
}
END_TEST

START_TEST(const_predictions_count_addresses)
{
    parse("// PREDICT lookupConst const 30\n"
          "// PREDICT stencil1DConst const 1 load 1\n"
          "// PREDICT lookupReadOnly const ?\n"
          "// PREDICT lookupConst const 40\n");
    ck_assert_double_eq(degree_of("lookupConst", PREDICT_CONST), 30.0);
    ck_assert_double_eq(degree_of("stencil1DConst", PREDICT_CONST), 1.0);
    ck_assert_double_eq(degree_of("stencil1DConst", PREDICT_LOAD), 1.0);
    ck_assert_double_eq(degree_of("lookupConst", PREDICT_LOAD), -1.0);
    ck_assert_ptr_null(predict_find(&set, "lookupReadOnly", PREDICT_CONST));
    ck_assert_int_eq(set.n_notes, 1); /* 40 addresses: a warp has 32 lanes */
    ck_assert_msg(notes_mention("const count must be a number of addresses"), "%s", set.notes[0]);

    prediction p = {"lookupConst", PREDICT_CONST, 30.0, 1};
    char text[256];
    ck_assert_int_eq(judge(&p, 30.2, text, sizeof text), PREDICT_RIGHT);
    ck_assert_str_eq(text, "lookupConst const: you predicted 30 distinct addresses a request, "
                           "measured 30.2 distinct addresses a request: right");
    ck_assert_int_eq(judge(&p, 1.0, text, sizeof text), PREDICT_WRONG);
    ck_assert_ptr_nonnull(strstr(text, "measured 1 distinct address a request"));
    ck_assert_ptr_nonnull(strstr(text, "count the distinct words"));
}
END_TEST

/*
 * The skeletons of labs 1-4 carry one PREDICT line per kernel with ? marks:
 * they must parse without a note, predict nothing yet, and once the ? are
 * filled in, name exactly the kernels of the lab's table, store and load.
 */
START_TEST(the_skeletons_prediction_lines_name_their_kernels)
{
    static const char *const ids[] = {"lab1", "lab2", "lab3", "lab4"};
    for (int l = 0; l < 4; l++) {
        const lab_def *lab = lab_find(ids[l]);
        ck_assert_ptr_nonnull(lab);
        char err[256];
        ck_assert_msg(predict_parse(lab->source, &set, err, sizeof err) == 0, "%s: %s", lab->source, err);
        ck_assert_msg(set.n_notes == 0, "%s: %s", lab->source, set.notes[0]);
        ck_assert_int_eq(set.count, 0);

        /* the same file with every ? answered */
        FILE *f = fopen(lab->source, "r");
        ck_assert_ptr_nonnull(f);
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        for (char *q = text; (q = strstr(q, " ?")) != NULL; q += 2)
            q[1] = '2';
        predict_parse_text(text, n, &set);
        ck_assert_int_eq(set.n_notes, 0);
        ck_assert_msg(set.count == 2 * lab->n_kernels, "%s: %d predictions for %d kernels",
                      lab->source, set.count, lab->n_kernels);
        for (int k = 0; k < lab->n_kernels; k++) {
            ck_assert_msg(predict_find(&set, lab->kernels[k].name, PREDICT_STORE) != NULL, "%s: %s store",
                          lab->source, lab->kernels[k].name);
            ck_assert_ptr_nonnull(predict_find(&set, lab->kernels[k].name, PREDICT_LOAD));
        }
    }
}
END_TEST

Suite *predict_suite(void)
{
    Suite *s = suite_create("predict");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reads_store_and_load_in_any_order);
    tcase_add_test(tc, question_marks_are_no_prediction);
    tcase_add_test(tc, only_comment_lines_count);
    tcase_add_test(tc, bad_lines_get_a_note_and_keep_nothing);
    tcase_add_test(tc, a_later_line_replaces_an_earlier_one);
    tcase_add_test(tc, hostile_text_stays_bounded);
    tcase_add_test(tc, at_most_predict_max_are_kept);
    tcase_add_test(tc, reads_a_file_and_refuses_what_is_not_one);
    tcase_add_test(tc, a_huge_file_is_read_only_in_part);
    tcase_add_test(tc, judges_against_the_measured_degree);
    tcase_add_test(tc, judges_against_what_the_check_accepts);
    tcase_add_test(tc, const_predictions_count_addresses);
    tcase_add_test(tc, the_skeletons_prediction_lines_name_their_kernels);
    suite_add_tcase(s, tc);
    return s;
}
