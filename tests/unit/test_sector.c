/*
 * test_sector.c - the sector model (model/sector.c) on the accesses every
 * CUDA course draws, on every kernel of the global-access corpus against what
 * Nsight Compute counted on an H100 (tests/truth/h100-global.tsv, the kernel's
 * pattern read from its name: tests/truth/gen-global.py), the per-line
 * analysis (measure/access/coalesce.c) and its drawing; lab 9's tile model and
 * matrices.
 */
#include "measure/access/coalesce.h"
#include "measure/access/trace.h"
#include "model/sector.h"
#include "model/transpose_model.h"
#include "labs/calls.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* lane i at base + i * stride bytes, the lanes of mask */
static global_access strided(uint64_t base, int stride, int width, uint32_t mask)
{
    global_access a;
    memset(&a, 0, sizeof a);
    a.active = mask;
    a.width = width;
    for (int i = 0; i < SECTOR_LANES; i++)
        a.addr[i] = base + (uint64_t)i * (uint64_t)stride;
    return a;
}

START_TEST(test_textbook)
{
    global_access a = strided(0, 4, 4, 0xFFFFFFFFu); /* a row of floats */
    ck_assert_int_eq(sector_count(&a), 4);
    ck_assert_int_eq(sector_ideal(&a), 4);
    a = strided(4, 4, 4, 0xFFFFFFFFu); /* misaligned by one float: one more */
    ck_assert_int_eq(sector_count(&a), 5);
    a = strided(0, 4096, 4, 0xFFFFFFFFu); /* a column: one sector a lane */
    ck_assert_int_eq(sector_count(&a), 32);
    a = strided(64, 0, 4, 0xFFFFFFFFu); /* a broadcast */
    ck_assert_int_eq(sector_count(&a), 1);
    ck_assert_int_eq(sector_ideal(&a), 4);
    a = strided(0, 16, 16, 0xFFFFFFFFu); /* float4 */
    ck_assert_int_eq(sector_count(&a), 16);
    ck_assert_int_eq(sector_ideal(&a), 16);
    a = strided(0, 1, 1, 0xFFFFFFFFu); /* chars */
    ck_assert_int_eq(sector_count(&a), 1);
    ck_assert_int_eq(sector_ideal(&a), 1);
    a = strided(0, 8, 4, 0xFFFFFFFFu); /* every other float */
    ck_assert_int_eq(sector_count(&a), 8);
    a = strided(0, 4, 4, 0x0000FFFFu); /* half a warp */
    ck_assert_int_eq(sector_count(&a), 2);
    ck_assert_int_eq(sector_ideal(&a), 2);
    a = strided(0, 4, 4, 0); /* no lane */
    ck_assert_int_eq(sector_count(&a), 0);
    ck_assert_int_eq(sector_ideal(&a), 0);
    a = strided(28, 4, 8, 1); /* 8 bytes across a sector's end */
    ck_assert_int_eq(sector_count(&a), 2);
}
END_TEST

START_TEST(test_lane_numbers)
{
    int n[SECTOR_LANES];
    global_access a = strided(0, 4, 4, 0xFFFFFFFEu);
    a.addr[31] = 0; /* lane 31 back in the first sector */
    ck_assert_int_eq(sector_lane_numbers(&a, n), 4);
    ck_assert_int_eq(n[0], 0); /* idle */
    ck_assert_int_eq(n[1], 1);
    ck_assert_int_eq(n[8], 2);
    ck_assert_int_eq(n[30], 4);
    ck_assert_int_eq(n[31], 1);
}
END_TEST

/* The lane's element in a corpus kernel (gen-global.py's lane_index). */
static long pattern_index(const char *pat, int lane)
{
    int k;
    if (strcmp(pat, "rev") == 0)
        return 31 - lane;
    if (strcmp(pat, "perm") == 0)
        return (lane * 7) % 32;
    if (sscanf(pat, "mod%d", &k) == 1)
        return lane % k;
    if (sscanf(pat, "div%d", &k) == 1)
        return lane / k;
    if (sscanf(pat, "s%d", &k) == 1)
        return (long)lane * k;
    return -1;
}

/* A corpus kernel's name -> its warp access (every warp's, over its own 256-byte
   aligned span); 0, or -1 for a name this test does not read. */
static int corpus_access(const char *name, char *side, global_access *a)
{
    char pat[16];
    int w, off = 0, at = 0;
    unsigned mask = 0xFFFFFFFFu;
    if (sscanf(name, "%c%d%n", side, &w, &at) != 2 || (*side != 'l' && *side != 's'))
        return -1;
    const char *p = name + at;
    size_t len = 0; /* rev, perm, or a letter run and its number (s33, mod16, div2) */
    if (strncmp(p, "rev", 3) == 0 || strncmp(p, "perm", 4) == 0)
        len = p[0] == 'r' ? 3 : 4;
    else {
        while (p[len] >= 'a' && p[len] <= 'z')
            len++;
        while (p[len] >= '0' && p[len] <= '9')
            len++;
    }
    if (len == 0 || len >= sizeof pat)
        return -1;
    memcpy(pat, p, len);
    pat[len] = '\0';
    p += len;
    if (*p == 'o' && sscanf(p, "o%d%n", &off, &at) == 1)
        p += at;
    if (*p == 'm' && sscanf(p, "m%x%n", &mask, &at) == 1)
        p += at;
    if (*p)
        return -1;
    memset(a, 0, sizeof *a);
    a->active = mask;
    a->width = w;
    for (int lane = 0; lane < SECTOR_LANES; lane++) {
        long i = pattern_index(pat, lane);
        if (i < 0)
            return -1;
        a->addr[lane] = (uint64_t)(i + off) * (uint64_t)w;
    }
    return 0;
}

/* Every kernel Nsight Compute measured: 4 warps of the kernel's access, and a load
   kernel's 4 stores of out[t] (32 ints a warp: 4 sectors each). */
START_TEST(test_h100_corpus)
{
    FILE *f = fopen("tests/truth/h100-global.tsv", "r");
    ck_assert_msg(f != NULL, "tests/truth/h100-global.tsv is missing (run from the repository root)");
    char line[512], name[64], fp[32];
    long ld_req, ld_sec, st_req, st_sec;
    int kernels = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strncmp(line, "name\t", 5) == 0)
            continue;
        ck_assert_int_eq(sscanf(line, "%63s %31s %ld %ld %ld %ld", name, fp, &ld_req, &ld_sec,
                                &st_req, &st_sec), 6);
        char side;
        global_access a;
        ck_assert_msg(corpus_access(name, &side, &a) == 0, "cannot read the kernel name %s", name);
        long model = 4L * sector_count(&a);
        if (side == 'l') {
            ck_assert_msg(ld_sec == model, "%s: the H100 counted %ld load sectors, the model %ld",
                          name, ld_sec, model);
            ck_assert_msg(ld_req == 4 && st_req == 4 && st_sec == 16, "%s: requests %ld/%ld", name,
                          ld_req, st_req);
        } else {
            ck_assert_msg(st_sec == model, "%s: the H100 counted %ld store sectors, the model %ld",
                          name, st_sec, model);
            ck_assert_msg(st_req == 4 && ld_req == 0 && ld_sec == 0, "%s: requests %ld/%ld", name,
                          ld_req, st_req);
        }
        kernels++;
    }
    fclose(f);
    ck_assert_int_ge(kernels, 200);
}
END_TEST

static trace_record global_record(uint64_t pc, uint32_t block, uint32_t warp, uint16_t flags,
                                  uint32_t base, uint32_t stride)
{
    trace_record r;
    memset(&r, 0, sizeof r);
    r.pc = pc;
    r.block = block;
    r.warp = warp;
    r.active = 0xFFFFFFFFu;
    r.width = 4;
    r.flags = flags | TRACE_GLOBAL;
    for (int i = 0; i < TRACE_LANES; i++)
        r.addr[i] = base + (uint32_t)i * stride;
    return r;
}

/* The naive transpose's two sides through the analysis: a coalesced load, a strided
   store; the worst site is the store, drawn lane by lane. */
START_TEST(test_sites_and_drawing)
{
    trace_record r[4] = {
        global_record(0x40, 0, 0, TRACE_READ, 0x1000, 4),
        global_record(0x80, 0, 0, TRACE_WRITE, 0x100000, 4096),
        global_record(0x40, 0, 1, TRACE_READ, 0x2000, 4),
        global_record(0x80, 0, 1, TRACE_WRITE, 0x100004, 4096),
    };
    bank_geometry g;
    bank_geometry_for(9, 0, 32, 0, &g);
    trace_summary s;
    char why[160];
    ck_assert_int_eq(trace_analyze(&g, r, 4, &s, why, sizeof why), 0);
    ck_assert_int_eq(s.global.n, 2);
    const coalesce_site *ld = coalesce_worst(&s.global, 0), *st = coalesce_worst(&s.global, 1);
    ck_assert_ptr_nonnull(ld);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(ld->requests, 2);
    ck_assert_int_eq(ld->sectors, 8);
    ck_assert_int_eq(ld->ideal, 8);
    ck_assert_int_eq(st->sectors, 64);
    ck_assert_int_eq(st->ideal, 8);
    ck_assert_int_eq(st->worst_warp, 0); /* a tie: the lowest warp */
    ck_assert_int_eq(s.global_lanes, 64); /* the halo check still sees the loads alone */
    measurement m;
    trace_to_measurement(&s, &m);
    ck_assert(m.value[METRIC_GLOBAL_ST_SECTORS] == 64 && m.value[METRIC_GLOBAL_LD_IDEAL] == 8);
    char buf[512];
    sector_map_text(&st->worst, "lab9.cu:30 (store)", "  ", buf, sizeof buf);
    ck_assert_msg(strstr(buf, "  lab9.cu:30 (store): 32 sectors, ideal 4\n") == buf, "%s", buf);
    ck_assert_msg(strstr(buf, "sector  1  2  3") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, " 31 32\n") != NULL, "%s", buf);
    /* the text form: a global store round-trips as gs */
    FILE *t = tmpfile();
    ck_assert_int_eq(trace_write_record(t, &r[1]), 0);
    rewind(t);
    size_t n = 0;
    trace_record *back = trace_read(t, "t", &n, why, sizeof why);
    fclose(t);
    ck_assert_ptr_nonnull(back);
    ck_assert_int_eq(back[0].flags, TRACE_WRITE | TRACE_GLOBAL);
    ck_assert_int_eq(back[0].addr[31], 0x100000 + 31 * 4096);
    free(back);
    trace_summary_free(&s);
}
END_TEST

extern const lab_def lab9_def;

/* Lab 9's tile: the chapter's numbers for a 32 x 16 block (16-way unpadded, 2-way with
   one word of pad, conflict-free with two), for rows of one and two elements a thread. */
START_TEST(test_transpose_tile)
{
    bank_geometry g;
    bank_geometry_for(9, 0, 32, 0, &g);
    ck_assert(transpose_read_degree(&g, 32, 16, 32) == 16.0);
    ck_assert(transpose_read_degree(&g, 32, 16, 33) == 2.0);
    ck_assert(transpose_read_degree(&g, 32, 16, 34) == 1.0);
    ck_assert(transpose_read_degree(&g, 32, 16, 64) == 16.0);
    ck_assert(transpose_read_degree(&g, 32, 16, 66) == 1.0);
    warp_access a;
    transpose_read_access(32, 16, 34, 1, &a); /* warp 1: irow 2 and 3 */
    ck_assert_uint_eq(a.active, 0xFFFFFFFFu);
    ck_assert_uint_eq(a.addr[0], 2 * 4);
    ck_assert_uint_eq(a.addr[17], (1 * 34 + 3) * 4);
}
END_TEST

/* Lab 9's matrices: one element, a row, a column, a measured matrix for each device,
   the timed 8192 x 8192; every call in, out, nx, ny with room for the matrix. */
START_TEST(test_transpose_calls)
{
    call_spec c[CALL_MAX];
    int n = lab_calls(&lab9_def, &lab9_def.kernels[3], c), one = 0, row = 0, col = 0;
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(c[i].n_args, 4);
        ck_assert_uint_eq(c[i].buffer_bytes[1], (size_t)c[i].width * c[i].height * sizeof(float));
        if (!(c[i].role & CALL_CORRECT))
            continue;
        one += c[i].width == 1 && c[i].height == 1;
        row += c[i].width > 1 && c[i].height == 1;
        col += c[i].width == 1 && c[i].height > 1;
    }
    ck_assert(one && row && col);
    ck_assert_int_ge(calls_find(c, n, CALL_TRAFFIC, 1), 0);
    ck_assert_int_ge(calls_find(c, n, CALL_TRAFFIC, 0), 0);
    int s = calls_find(c, n, CALL_SPEED, 0);
    ck_assert(s >= 0 && c[s].width == 8192 && c[s].height == 8192);
    ck_assert_int_lt(calls_find(c, n, CALL_SPEED, 1), 0); /* never timed emulated */
}
END_TEST

Suite *sector_suite(void)
{
    Suite *s = suite_create("sector");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_textbook);
    tcase_add_test(tc, test_lane_numbers);
    tcase_add_test(tc, test_h100_corpus);
    tcase_add_test(tc, test_sites_and_drawing);
    tcase_add_test(tc, test_transpose_tile);
    tcase_add_test(tc, test_transpose_calls);
    suite_add_tcase(s, tc);
    return s;
}
