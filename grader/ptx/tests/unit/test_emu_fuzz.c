/*
 * test_emu_fuzz.c - hostile PTX never crashes the emulator.
 *
 * Deterministic: every truncation point of a small real lab file, then a
 * few thousand mutants (bit flips, random bytes, deletions, duplicated and
 * swapped spans, lines copied over others, PTX-looking tokens inserted) of
 * real files with a fixed
 * seed. Each is loaded; a load that fails must say why with a line; a
 * module that loads has its kernels run with a tiny budget. Any status is
 * fine, a crash or a sanitizer report is not. The buffers are exactly as
 * long as the text, so that a sanitizer sees any read past the end.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu_testlib.h"

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static char *load_text(const char *name, size_t *len)
{
    char path[1024];
    struct stat st;
    /* the student kit has no solutions: its skeletons are real PTX too */
    if (!strncmp(name, "labs/solutions/", 15) && stat("solutions", &st) != 0)
        snprintf(path, sizeof path, "%s/labs/labs/%s.ptx", et_ptx_dir(), name + 15);
    else
        snprintf(path, sizeof path, "%s/%s.ptx", et_ptx_dir(), name);
    char *t = et_read_file(path, len);
    ck_assert_msg(t != NULL, "cannot read %s", path);
    return t;
}

/* Load text[0..len) (a buffer of exactly len bytes) and run what loads. */
static void try_ptx(const char *text, size_t len)
{
    char *buf = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, text, len);
    emu_device *d = emu_device_create(UINT64_C(64) << 20);
    emu_module *m = NULL;
    char why[256];
    memset(why, 'x', sizeof why);
    if (emu_module_load(d, buf, len, &m, why, sizeof why) != 0) {
        ck_assert_ptr_nonnull(memchr(why, '\0', sizeof why));
        ck_assert_msg(strncmp(why, "line ", 5) == 0 || strstr(why, "memory"), "why: %s", why);
        emu_device_destroy(d);
        free(buf);
        return;
    }
    uint64_t data;
    ck_assert_int_eq(emu_alloc(d, 65536, &data), 0);
    for (int k = 0; k < emu_kernel_count(m) && k < 8; k++) {
        emu_kernel_info ki;
        if (emu_kernel_describe(m, k, &ki) != 0)
            continue;
        unsigned char params[4096];
        memset(params, 0, sizeof params);
        if (ki.param_bytes > sizeof params)
            continue;
        for (int i = 0; i < ki.n_params; i++) {
            uint64_t v = ki.param_size[i] == 8 ? data : 17;
            if (ki.param_size[i] == 4 || ki.param_size[i] == 8)
                memcpy(params + ki.param_offset[i], &v, ki.param_size[i]);
        }
        emu_launch l = {.kernel = k, .grid = {2, 1, 1}, .block = {32, 2, 1}, .dynamic_shared = 512,
                        .params = params, .param_bytes = ki.param_bytes, .shared_fill = 0xdeadbeefu};
        emu_result r;
        emu_status st = emu_run(m, &l, NULL, 3000, &r);
        ck_assert_int_le(st, EMU_BAD_LAUNCH);
        ck_assert_ptr_nonnull(memchr(r.why, '\0', sizeof r.why));
        const char *file;
        int line;
        emu_line(m, k, 0, &file, &line);
    }
    emu_module_unload(m);
    emu_device_destroy(d);
    free(buf);
}

START_TEST(test_every_truncation)
{
    size_t len;
    char *text = load_text("labs/solutions/lab2-dynamic/lab2", &len);
    for (size_t n = 0; n <= len; n++)
        try_ptx(text, n);
    free(text);
}
END_TEST

static const char *const tokens[] = {
    "%r9999", "[", "]", "{", "}", ";", "-", ",", "0f7F800000", "4294967295", "0x",
    "99999999999999999999", ".reg .b32 %q<100000>;", "bra $L__BB0_1;", "@%p1 ", "@!%p9 ",
    "ld.global.v4.f32", ".shared .align 16 .b8 big[1048576];", ".local .b8 d[99999999];",
    "call.uni (retval0), f, (param0);", "ret;", "exit;", "bar.sync 0;", "bar.sync 1, 32;",
    "%tid.x", "%clock64", ".entry", ".func", "(", ")", ".param .u64 p", "\"", "/*", "//",
    "\n", "\0", ".loc 1 99999 1\n", ".file 9 \"x.cu\"\n", "trap;", "brx.idx %r1, ts;",
    "ts: .branchtargets $L__BB0_1;", "mov.b64 {%r1, %r2}, %rd1;", "_", "|", "!", "<", ">",
    "shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;", "atom.shared.add.u32 %r1, [%r2], 1;",
    "st.shared.v4.f32 [%r1+-4], {%f1, %f1, %f1, %f1};", "0d7FF8000000000000", "-2147483648",
};

static size_t mutate(char *buf, size_t len, size_t cap, uint64_t *s)
{
    int rounds = 1 + (int)(next(s) % 4);
    for (int r = 0; r < rounds && len > 0; r++) {
        size_t at = next(s) % len;
        switch (next(s) % 7) {
        case 0: buf[at] ^= (char)(1u << (next(s) % 8)); break;
        case 1: buf[at] = (char)next(s); break;
        case 2: { /* delete a span */
            size_t n = 1 + next(s) % 64;
            if (n > len - at)
                n = len - at;
            memmove(buf + at, buf + at + n, len - at - n);
            len -= n;
            break;
        }
        case 3: { /* duplicate a span */
            size_t n = 1 + next(s) % 128;
            if (n > len - at)
                n = len - at;
            if (len + n <= cap) {
                memmove(buf + at + n, buf + at, len - at);
                len += n;
            }
            break;
        }
        case 4: { /* insert a token */
            const char *t = tokens[next(s) % (sizeof tokens / sizeof tokens[0])];
            size_t n = strlen(t) ? strlen(t) : 1;
            if (len + n <= cap) {
                memmove(buf + at + n, buf + at, len - at);
                memcpy(buf + at, t, n);
                len += n;
            }
            break;
        }
        case 5: { /* a line copied over another: still PTX, other semantics */
            size_t from = next(s) % len, a = at, b;
            while (a > 0 && buf[a - 1] != '\n')
                a--;
            while (from > 0 && buf[from - 1] != '\n')
                from--;
            for (b = from; b < len && buf[b] != '\n'; b++)
                ;
            size_t n = b - from, old;
            for (old = a; old < len && buf[old] != '\n'; old++)
                ;
            old -= a;
            if (n > 0 && n < 256 && len - old + n <= cap) {
                char line[256];
                memcpy(line, buf + from, n);
                memmove(buf + a + n, buf + a + old, len - a - old);
                memcpy(buf + a, line, n);
                len = len - old + n;
            }
            break;
        }
        default: { /* swap two spans of 16 bytes */
            size_t b = next(s) % len;
            if (at + 16 <= len && b + 16 <= len && (at + 16 <= b || b + 16 <= at)) {
                char tmp[16];
                memcpy(tmp, buf + at, 16);
                memcpy(buf + at, buf + b, 16);
                memcpy(buf + b, tmp, 16);
            }
        }
        }
    }
    return len;
}

START_TEST(test_mutants)
{
    static const char *const files[] = {"labs/solutions/lab1-square/lab1", "control", "mem_ops",
                                        "warp_ops", "labs/solutions/lab4-rectangle/lab4",
                                        "int_ops", "labs/solutions/lab6-convolution/lab6"};
    static const int cases[] = {1500, 700, 500, 500, 500, 300, 100};
    uint64_t s = 20250101;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        char *text = load_text(files[f], &len);
        size_t cap = len + 4096;
        char *buf = malloc(cap);
        ck_assert_ptr_nonnull(buf);
        for (int c = 0; c < cases[f]; c++) {
            memcpy(buf, text, len);
            size_t n = mutate(buf, len, cap, &s);
            try_ptx(buf, n);
        }
        free(buf);
        free(text);
    }
}
END_TEST

Suite *emu_fuzz_suite(void)
{
    Suite *s = suite_create("emu_fuzz");
    TCase *tc = tcase_create("emu_fuzz");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_truncation);
    tcase_add_test(tc, test_mutants);
    suite_add_tcase(s, tc);
    return s;
}
