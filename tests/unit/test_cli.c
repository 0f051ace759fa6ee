/* test_cli.c - the grader's command line (grader/cli/cli.c). */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "base/exit_codes.h"
#include "base/sha256.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 32

typedef struct parsed {
    cli_options o;
    int rc;
    char err[1024];
} parsed;

/* Parse a NULL-terminated argument list (program name added); err captured. */
static parsed parse_v(const char *const *args)
{
    static parsed p;
    /* Fresh copies every time, never freed: getopt keeps pointers into the
     * previous argv between calls (its own state, not cli_parse's). */
    char **argv = calloc(MAX_ARGS + 2, sizeof *argv);
    int argc = 0;

    memset(&p, 0, sizeof p);
    argv[argc++] = strdup("smemlab-grade");
    for (int i = 0; args[i]; i++) {
        ck_assert_int_lt(argc, MAX_ARGS);
        argv[argc++] = strdup(args[i]);
    }
    argv[argc] = NULL;

    char *buf = NULL;
    size_t size = 0;
    FILE *err = open_memstream(&buf, &size);
    ck_assert_ptr_nonnull(err);
    p.rc = cli_parse(argc, argv, &p.o, err);
    fclose(err);
    snprintf(p.err, sizeof p.err, "%s", buf ? buf : "");
    free(buf);
    return p;
}

#define PARSE(...) parse_v((const char *const[]){__VA_ARGS__, NULL})

static const parsed *parse0(void)
{
    static parsed p;
    p = parse_v((const char *const[]){NULL});
    return &p;
}

START_TEST(test_defaults)
{
    const parsed *p = parse0();
    ck_assert_int_eq(p->rc, 0);
    ck_assert_str_eq(p->err, "");
    ck_assert_str_eq(p->o.build_dir, "build");
    ck_assert_int_eq(p->o.grade.repeats, 3);
    ck_assert_double_eq_tol(p->o.grade.timeout_s, 10.0, 1e-12);
    ck_assert_int_eq(p->o.grade.use_counters, 1);
    ck_assert_int_eq(p->o.grade.device, 0);
    ck_assert_int_eq(p->o.n_labs, 0);
    ck_assert_ptr_null(p->o.lib);
    ck_assert_ptr_null(p->o.json);
    ck_assert_int_eq(p->o.solutions, 0);
    ck_assert_int_eq(p->o.verbose, 0);
    ck_assert_int_eq(p->o.list, 0);
    ck_assert_int_eq(p->o.help, 0);
    ck_assert_int_eq(p->o.version, 0);
}
END_TEST

START_TEST(test_options)
{
    parsed p = PARSE("--timeout", "2.5", "--repeats", "7", "--device", "1", "--seed", "42",
                     "--no-counters", "--verbose", "--json", "out.json", "--build-dir", "b2",
                     "--solutions", "lab4");
    ck_assert_msg(p.rc == 0, "%s", p.err);
    ck_assert_double_eq_tol(p.o.grade.timeout_s, 2.5, 1e-12);
    ck_assert_int_eq(p.o.grade.repeats, 7);
    ck_assert_int_eq(p.o.grade.device, 1);
    ck_assert_uint_eq(p.o.grade.seed, 42);
    ck_assert_int_eq(p.o.grade.use_counters, 0);
    ck_assert_int_eq(p.o.verbose, 1);
    ck_assert_str_eq(p.o.json, "out.json");
    ck_assert_str_eq(p.o.build_dir, "b2");
    ck_assert_int_eq(p.o.solutions, 1);
    ck_assert_int_eq(p.o.n_labs, 1);
    ck_assert_str_eq(p.o.labs[0]->id, "lab4");

    p = PARSE("--timeout=0.5", "-v", "--list");
    ck_assert_msg(p.rc == 0, "%s", p.err);
    ck_assert_double_eq_tol(p.o.grade.timeout_s, 0.5, 1e-12);
    ck_assert_int_eq(p.o.verbose, 1);
    ck_assert_int_eq(p.o.list, 1);
    p = PARSE("-h");
    ck_assert_int_eq(p.rc, 0);
    ck_assert_int_eq(p.o.help, 1);
    p = PARSE("--version");
    ck_assert_msg(p.rc == 0, "--version: %s", p.err);
    ck_assert_int_eq(p.o.version, 1);
}
END_TEST

START_TEST(test_labs)
{
    parsed p = PARSE("lab3");
    ck_assert_int_eq(p.rc, 0);
    ck_assert_int_eq(p.o.n_labs, 1);
    ck_assert_ptr_eq(p.o.labs[0], lab_find("lab3"));
    ck_assert_str_eq(p.o.labs[0]->id, "lab3");

    p = PARSE("3");
    ck_assert_int_eq(p.rc, 0);
    ck_assert_int_eq(p.o.n_labs, 1);
    ck_assert_str_eq(p.o.labs[0]->id, "lab3");

    /* order kept; labs may come before options */
    p = PARSE("lab2", "--timeout", "5", "1", "lab4");
    ck_assert_msg(p.rc == 0, "%s", p.err);
    ck_assert_int_eq(p.o.n_labs, 3);
    ck_assert_str_eq(p.o.labs[0]->id, "lab2");
    ck_assert_str_eq(p.o.labs[1]->id, "lab1");
    ck_assert_str_eq(p.o.labs[2]->id, "lab4");
    ck_assert_double_eq_tol(p.o.grade.timeout_s, 5, 1e-12);
}
END_TEST

START_TEST(test_unknown_lab)
{
    parsed p = PARSE("lab11");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_msg(strstr(p.err, "lab11") != NULL, "error does not name the lab: %s", p.err);
    ck_assert_ptr_nonnull(strstr(p.err, "--help"));

    p = PARSE("lab1", "banana");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "banana"));
    p = PARSE("0");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    p = PARSE("lab");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    p = PARSE("");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
}
END_TEST

START_TEST(test_unknown_option)
{
    parsed p = PARSE("--bogus", "lab1");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "--bogus"));
    p = PARSE("-x");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "-x"));
}
END_TEST

static const char *const bad_timeouts[] = {"abc", "0", "-1", "5s", "", "3601", "inf", "nan"};

START_TEST(test_bad_timeout)
{
    parsed p = PARSE("--timeout", bad_timeouts[_i], "lab1");
    ck_assert_msg(p.rc == EXIT_USAGE, "--timeout '%s' accepted (timeout %g)", bad_timeouts[_i],
                  p.o.grade.timeout_s);
    ck_assert_ptr_nonnull(strstr(p.err, "--timeout"));
}
END_TEST

START_TEST(test_missing_value)
{
    parsed p = PARSE("--timeout");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "--timeout"));
    ck_assert_ptr_nonnull(strstr(p.err, "needs a value"));
    p = PARSE("lab1", "--json");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "--json"));
    p = PARSE("lab1", "--lib");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
}
END_TEST

START_TEST(test_bad_numbers)
{
    static const char *const cases[][2] = {
        {"--repeats", "0"},  {"--repeats", "2.5"}, {"--repeats", "101"}, {"--repeats", "x"},
        {"--device", "-1"},  {"--device", "64"},   {"--device", "0.5"},  {"--seed", "-3"},
        {"--seed", "seven"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        parsed p = PARSE(cases[i][0], cases[i][1], "lab1");
        ck_assert_msg(p.rc == EXIT_USAGE, "%s %s accepted", cases[i][0], cases[i][1]);
        ck_assert_ptr_nonnull(strstr(p.err, cases[i][0]));
    }
    parsed p = PARSE("--repeats", "100", "--device", "63", "--timeout", "3600", "lab1");
    ck_assert_msg(p.rc == 0, "%s", p.err);
    ck_assert_int_eq(p.o.grade.repeats, 100);
    ck_assert_int_eq(p.o.grade.device, 63);
}
END_TEST

/* --status-fd N: an open descriptor past stderr, or refused before any work. */
START_TEST(test_status_fd)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    char open_fd[16], closed_fd[16];
    snprintf(open_fd, sizeof open_fd, "%d", fds[1]);
    snprintf(closed_fd, sizeof closed_fd, "%d", fds[1] + 100);
    parsed p = PARSE("--status-fd", open_fd, "lab1");
    ck_assert_msg(p.rc == 0, "%s", p.err);
    ck_assert_int_eq(p.o.grade.status_fd, fds[1]);
    ck_assert_int_eq(parse0()->o.grade.status_fd, 0); /* none */
    static const char *const refused[] = {"1", "2", "x", "3.5"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        p = PARSE("--status-fd", refused[i], "lab1");
        ck_assert_msg(p.rc == EXIT_USAGE, "--status-fd %s accepted", refused[i]);
        ck_assert_ptr_nonnull(strstr(p.err, "--status-fd wants an open descriptor"));
    }
    p = PARSE("--status-fd", closed_fd, "lab1");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    close(fds[0]);
    close(fds[1]);
}
END_TEST

/*
 * --seed N: a seed the parser accepts must be the number the user wrote.
 * Arguments that name no whole number must be refused.
 */
START_TEST(test_seed_parsed_as_given)
{
    static const struct { const char *arg; int must_refuse; unsigned long long value; } seeds[] = {
        {"0", 0, 0},        {"123456789", 0, 123456789ULL},
        {"1e5", 0, 100000ULL}, /* refusing it is fine too; seed 1 is not */
        {"0x10", 0, 16ULL},    /* likewise; seed 0 is not */
        {"12.5", 1, 0},        {"nan", 1, 0},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        parsed p = PARSE("--seed", seeds[i].arg, "lab1");
        if (p.rc == EXIT_USAGE)
            continue;
        ck_assert_msg(!seeds[i].must_refuse && p.rc == 0 && p.o.grade.seed == seeds[i].value,
                      "--seed %s accepted as seed %llu", seeds[i].arg, p.o.grade.seed);
    }
    parsed p = PARSE("--seed", "0", "lab1");
    ck_assert_int_eq(p.rc, 0);
    p = PARSE("--seed", "123456789", "lab1");
    ck_assert_int_eq(p.rc, 0);
    ck_assert_uint_eq(p.o.grade.seed, 123456789ULL);
}
END_TEST

START_TEST(test_lib_needs_one_lab)
{
    parsed p = PARSE("--lib", "mine.so");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "mine.so"));
    ck_assert_ptr_nonnull(strstr(p.err, "exactly one LAB"));
    p = PARSE("--lib", "mine.so", "lab1", "lab2");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    p = PARSE("--lib", "mine.so", "--solutions", "lab1");
    ck_assert_int_eq(p.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(p.err, "--solutions"));
    p = PARSE("--lib", "mine.so", "lab1");
    ck_assert_int_eq(p.rc, 0);
    ck_assert_str_eq(p.o.lib, "mine.so");
}
END_TEST

START_TEST(test_lib_path)
{
    char buf[256];
    const lab_def *lab3 = lab_find("lab3");
    parsed p = PARSE("lab3");
    ck_assert_str_eq(cli_lib_path(&p.o, lab3, buf, sizeof buf), "build/lab3.so");
    ck_assert_ptr_eq(cli_lib_path(&p.o, lab3, buf, sizeof buf), buf);
    p = PARSE("--solutions", "lab3");
    ck_assert_str_eq(cli_lib_path(&p.o, lab3, buf, sizeof buf), "build/solutions/lab3.so");
    p = PARSE("--build-dir", "/tmp/out", "lab3");
    ck_assert_str_eq(cli_lib_path(&p.o, lab3, buf, sizeof buf), "/tmp/out/lab3.so");
    p = PARSE("--build-dir", "/tmp/out", "--solutions", "lab3");
    ck_assert_str_eq(cli_lib_path(&p.o, lab3, buf, sizeof buf), "/tmp/out/solutions/lab3.so");
    p = PARSE("--lib", "/x/y/mine.so", "--build-dir", "elsewhere", "lab3");
    ck_assert_str_eq(cli_lib_path(&p.o, lab3, buf, sizeof buf), "/x/y/mine.so");
    /* a short buffer truncates */
    char small[8];
    p = PARSE("lab3");
    ck_assert_str_eq(cli_lib_path(&p.o, lab3, small, sizeof small), "build/l");
}
END_TEST

START_TEST(test_lab_find)
{
    ck_assert_ptr_null(lab_find("lab11"));
    ck_assert_ptr_nonnull(lab_find("lab9"));
    ck_assert_ptr_null(lab_find(NULL));
    ck_assert_ptr_null(lab_find("lab"));
    ck_assert_ptr_null(lab_find("lab1x"));
    ck_assert_ptr_null(lab_find("Lab1"));
    for (int i = 0; i < lab_registry_count; i++) {
        const lab_def *l = lab_registry[i];
        ck_assert_ptr_eq(lab_find(l->id), l);
        ck_assert_ptr_eq(lab_find(l->id + 3), l); /* "lab3" -> "3" */
    }
    ck_assert_int_ge(lab_registry_count, 4);
    ck_assert_str_eq(lab_registry[0]->id, "lab1");
    ck_assert_str_eq(lab_registry[3]->id, "lab4");
}
END_TEST

START_TEST(test_usage)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    cli_usage(f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "usage: smemlab-grade"));
    ck_assert_ptr_nonnull(strstr(buf, "exit status"));
    static const char *const options[] = {"--solutions", "--lib", "--build-dir", "--json",
                                          "--timeout", "--repeats", "--device", "--seed",
                                          "--no-counters", "--verbose", "--list", "--help",
                                          "--measure", "--gpu kepler"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        ck_assert_msg(strstr(buf, options[i]) != NULL, "usage does not mention %s", options[i]);
    free(buf);
}
END_TEST

START_TEST(test_measure_option)
{
    const parsed *p = parse0();
    ck_assert_int_eq(p->o.measure, MEASURE_MODE_AUTO);
    parsed q = PARSE("--measure", "trace", "lab1");
    ck_assert_int_eq(q.rc, 0);
    ck_assert_int_eq(q.o.measure, MEASURE_MODE_TRACE);
    q = PARSE("--measure=counters");
    ck_assert_int_eq(q.rc, 0);
    ck_assert_int_eq(q.o.measure, MEASURE_MODE_COUNTERS);
    q = PARSE("--measure", "sanitizer");
    ck_assert_int_eq(q.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(q.err, "--measure wants auto, counters, trace or emulator, not 'sanitizer'"));
    q = PARSE("--measure", "trace", "--no-counters");
    ck_assert_int_eq(q.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(q.err, "--measure trace and --no-counters exclude each other"));
    q = PARSE("--measure");
    ck_assert_int_eq(q.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(q.err, "--measure needs a value"));
}
END_TEST

/* --gpu kepler: graded by the emulator as the course's K40; nothing else is a GPU it knows,
   and it measures by the emulator alone, here. */
START_TEST(test_gpu_option)
{
    ck_assert_ptr_null(parse0()->o.grade.gpu);
    parsed q = PARSE("--gpu", "kepler", "lab1");
    ck_assert_int_eq(q.rc, 0);
    ck_assert_str_eq(q.o.grade.gpu, "kepler");
    ck_assert_int_eq(q.o.measure, MEASURE_MODE_EMULATOR);
    ck_assert_int_eq(q.o.grade.measure, MEASURE_MODE_EMULATOR);
    q = PARSE("--gpu", "kepler", "--measure", "emulator", "lab1");
    ck_assert_int_eq(q.rc, 0);
    q = PARSE("--gpu", "fermi", "lab1");
    ck_assert_int_eq(q.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(q.err, "--gpu wants kepler (the course's Tesla K40, graded by the emulator), not 'fermi'"));
    q = PARSE("--gpu", "kepler", "--measure", "trace", "lab1");
    ck_assert_int_eq(q.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(q.err, "excludes --measure trace and counters"));
    q = PARSE("--gpu", "kepler", "--meter-socket", "/tmp/s", "lab1");
    ck_assert_int_eq(q.rc, EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(q.err, "takes no --meter-socket"));
}
END_TEST

/* The digests --version and every record carry, as sha256sum gives them (FIPS 180-4's
   examples): of nothing, of "abc", of a file; an unreadable file says so. */
START_TEST(test_sha256)
{
    char hex[65];
    sha256_hex_of("", 0, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex_of("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char path[] = "/tmp/smemlab-sha256.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "abc", 3), 3);
    close(fd);
    ck_assert_int_eq(sha256_file_hex(path, hex), 0);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    remove(path);
    ck_assert_int_eq(sha256_file_hex(path, hex), -1);
    ck_assert_str_eq(hex, "");
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_sha256);
    tcase_add_test(tc, test_options);
    tcase_add_test(tc, test_labs);
    tcase_add_test(tc, test_unknown_lab);
    tcase_add_test(tc, test_unknown_option);
    tcase_add_loop_test(tc, test_bad_timeout, 0,
                        (int)(sizeof bad_timeouts / sizeof bad_timeouts[0]));
    tcase_add_test(tc, test_missing_value);
    tcase_add_test(tc, test_bad_numbers);
    tcase_add_test(tc, test_status_fd);
    tcase_add_test(tc, test_seed_parsed_as_given);
    tcase_add_test(tc, test_lib_needs_one_lab);
    tcase_add_test(tc, test_lib_path);
    tcase_add_test(tc, test_lab_find);
    tcase_add_test(tc, test_usage);
    tcase_add_test(tc, test_measure_option);
    tcase_add_test(tc, test_gpu_option);
    suite_add_tcase(s, tc);
    return s;
}
