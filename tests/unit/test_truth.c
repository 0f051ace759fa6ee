/*
 * test_truth.c - the bank model against the hardware: every kernel Nsight
 * Compute measured on an H100 (tests/truth/h100-ncu.tsv, written by make
 * check-truth-gpu from the corpus of tests/truth/gen-corpus.py) must get the
 * same requests and wavefronts from grader/model/, loads and stores alike.
 */
#include "model/bank.h"
#include "model/tile_model.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRUTH_FILE "tests/truth/h100-ncu.tsv"
#define BX 32 /* the corpus's block */
#define BY 4

typedef struct truth_row {
    char type[16], store[200], load[200];
    int width;
    long ld_req, ld_waves, ld_conf, st_req, st_waves, st_conf;
} truth_row;

static int read_row(const char *line, truth_row *r)
{
    return sscanf(line, "%15s %d %199s %199s %ld %ld %ld %ld %ld %ld", r->type, &r->width, r->store,
                  r->load, &r->ld_req, &r->ld_waves, &r->ld_conf, &r->st_req, &r->st_waves,
                  &r->st_conf) == 10;
}

/* The model's cost of one side of a row, or -1 when the access does not parse. */
static int model(const char *text, int width, int load, smem_cost *c)
{
    bank_geometry g;
    tile_access a;
    char why[160];
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    if (tile_access_parse(text, &a, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        return -1;
    }
    return tile_model_cost(&g, &a, BX, BY, width, load, c);
}

START_TEST(test_model_equals_ncu)
{
    FILE *f = fopen(TRUTH_FILE, "r");
    ck_assert_msg(f != NULL, "%s is missing: the tests run from the kit's root", TRUTH_FILE);
    char line[1024];
    int rows = 0, wrong = 0, widths[17] = {0};
    while (fgets(line, sizeof line, f)) {
        truth_row r;
        if (line[0] == '#' || strncmp(line, "type\t", 5) == 0)
            continue;
        ck_assert_msg(read_row(line, &r), "%s: malformed row: %s", TRUTH_FILE, line);
        smem_cost ld, st;
        ck_assert_int_eq(model(r.load, r.width, 1, &ld), 0);
        ck_assert_int_eq(model(r.store, r.width, 0, &st), 0);
        rows++;
        widths[r.width]++;
        if (ld.requests == r.ld_req && ld.wavefronts == r.ld_waves && st.requests == r.st_req &&
            st.wavefronts == r.st_waves)
            continue;
        if (wrong++ < 10)
            fprintf(stderr, "truth: %s store %s load %s: H100 ld %ld/%ld st %ld/%ld, model ld "
                    "%ld/%ld st %ld/%ld\n", r.type, r.store, r.load, r.ld_waves, r.ld_req,
                    r.st_waves, r.st_req, ld.wavefronts, ld.requests, st.wavefronts, st.requests);
    }
    fclose(f);
    ck_assert_int_gt(rows, 1000);
    for (int w = 1; w <= 16; w *= 2)
        ck_assert_msg(widths[w] > 50, "only %d rows of %d-byte lanes", widths[w], w);
    ck_assert_msg(wrong == 0, "%d of %d measured kernels differ from the model", wrong, rows);
}
END_TEST

/* The rule the table pinned down, case by case (bank.h). */
START_TEST(test_pairing_cases)
{
    static const struct {
        const char *access;
        int width, load;
        long waves; /* per block of 4 warps */
    } cases[] = {
        {"lin:0:0:1", 8, 1, 4},    /* a broadcast load pairs: one phase of 32 lanes */
        {"lin:0:0:1", 8, 0, 8},    /* a broadcast store never pairs: two half-warps */
        {"lin:0:0:1", 16, 1, 8},   /* 16-byte: halves of 16 lanes */
        {"lin:0:0:1", 16, 0, 16},  /* quarters */
        {"lin:0:1:2", 8, 1, 4},    /* lanes (0,1)(2,3) share */
        {"tab:0,1,0,1,2,3,2,3,4,5,4,5,6,7,6,7,8,9,8,9,10,11,10,11,12,13,12,13,14,15,14,15", 8, 1, 4},
        {"tab:0,1,1,0,2,3,3,2,4,5,5,4,6,7,7,6,8,9,9,8,10,11,11,10,12,13,13,12,14,15,15,14", 8, 1, 8},
        {"tab:0,0,0,1,2,2,2,3,4,4,4,5,6,6,6,7,8,8,8,9,10,10,10,11,12,12,12,13,14,14,14,15", 8, 1, 8},
        {"lin:0:1:2@55555555", 8, 1, 4}, /* lanes that sit out pair with anything */
        {"lin:0:1:1", 8, 1, 8},    /* 256 distinct bytes: two phases either way */
        {"lin:0:2:1", 8, 1, 16},   /* stride 2: a 2-way conflict in each half */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        smem_cost c;
        ck_assert_int_eq(model(cases[i].access, cases[i].width, cases[i].load, &c), 0);
        ck_assert_msg(c.wavefronts == cases[i].waves, "%s, %d bytes, %s: %ld wavefronts, want %ld",
                      cases[i].access, cases[i].width, cases[i].load ? "load" : "store",
                      c.wavefronts, cases[i].waves);
    }
}
END_TEST

START_TEST(test_access_grammar_errors)
{
    tile_access a;
    char why[160];
    const char *bad[] = {"", "row", "row:", "row:0", "foo:1", "lin:0:1", "lin:0:1:0",
                         "lin:0:1:1@", "lin:0:1:1@zz", "lin:0:1:1@0", "tab:1,2,3", "col:-3",
                         "row:33x", "aff:3:1:0", "hsh:1:0", "lin:99999999999:1:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(tile_access_parse(bad[i], &a, why, sizeof why) == -1 && why[0],
                      "'%s' parsed", bad[i]);
    ck_assert_int_eq(tile_access_parse("col:33@0000ffff", &a, why, sizeof why), 0);
    ck_assert_int_eq(a.order, TILE_COL);
    ck_assert_int_eq(a.pitch, 33);
    ck_assert_uint_eq(a.lanes, 0xffffu);
    ck_assert_int_eq(tile_offset(&a, BX, BY, 3, 2), 3 * 33 + 2);
    ck_assert(!tile_thread_active(&a, BX, 17, 0));
    ck_assert(tile_thread_active(&a, BX, 15, 3));
}
END_TEST

/*
 * cp.async's shared side and shared atomics (tests/truth/h100-async-atomics.tsv, one
 * warp a kernel): the model of model/bank.h against Nsight Compute. The rows the model
 * does not reach are named here, each with what the hardware did: 16-byte copies whose
 * warp is partly idle or whose layouts differ in a way other than "a wavefront a lane",
 * and float and 64-bit atomics, which the compiler turns into compare-and-swap loops
 * whose turns depend on the contention (the hardware's requests differ).
 */
#define ASYNC_ATOMICS_FILE "tests/truth/h100-async-atomics.tsv"

static int known_misfit(const char *kind, const char *what, int dst, int src, const char *mask)
{
    if (!strcmp(kind, "cp"))
        return !strcmp(what, "16") && (strcmp(mask, "ffffffff") || (dst == 3 && src == 1));
    return !strcmp(what, "addf") || !strcmp(what, "add64");
}

static void async_atomic_access(const char *kind, const char *what, int dst, int src,
                                uint32_t mask, warp_access *a)
{
    memset(a, 0, sizeof *a);
    a->active = mask;
    if (!strcmp(kind, "cp")) {
        int w = atoi(what);
        uint64_t seen[32];
        int n = 0;
        uint32_t first_delta = 0;
        a->width = w;
        a->kind = BANK_ASYNC;
        for (int l = 0; l < 32; l++) {
            if (!(mask >> l & 1u))
                continue;
            a->addr[l] = (uint32_t)(l * dst * w);
            uint64_t g = (uint64_t)l * (uint64_t)src * (uint64_t)w, line = g >> 7;
            int known = 0;
            for (int i = 0; i < n; i++)
                known |= seen[i] == line;
            if (!known)
                seen[n++] = line;
            uint32_t d = a->addr[l] - (uint32_t)g;
            if (l == __builtin_ctz(mask))
                first_delta = d;
            a->skewed |= d != first_delta;
        }
        a->lines = n;
        return;
    }
    int w = !strcmp(what, "add64") ? 8 : 4;
    a->width = w;
    a->kind = !strcmp(what, "exch") ? BANK_EXCH
              : !strcmp(what, "cas") || !strcmp(what, "addf") || !strcmp(what, "add64") ? BANK_CAS
                                                                                           : BANK_ATOMIC;
    for (int l = 0; l < 32; l++)
        a->addr[l] = (uint32_t)(l * dst * w);
}

START_TEST(test_async_and_atomics_equal_ncu)
{
    FILE *f = fopen(ASYNC_ATOMICS_FILE, "r");
    ck_assert_msg(f != NULL, "%s is missing: the tests run from the kit's root", ASYNC_ATOMICS_FILE);
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    char line[256];
    int rows = 0, misfits = 0;
    while (fgets(line, sizeof line, f)) {
        char kind[8], what[8], srcs[8], mask[12];
        int dst;
        long req, waves;
        if (line[0] == '#' || !strncmp(line, "kind\t", 5))
            continue;
        ck_assert_msg(sscanf(line, "%7s %7s %d %7s %11s %ld %ld", kind, what, &dst, srcs, mask,
                             &req, &waves) == 7, "%s: malformed row: %s", ASYNC_ATOMICS_FILE, line);
        warp_access a;
        async_atomic_access(kind, what, dst, atoi(srcs), (uint32_t)strtoul(mask, NULL, 16), &a);
        int model = bank_wavefronts(&g, &a);
        rows++;
        if (known_misfit(kind, what, dst, atoi(srcs), mask)) {
            misfits++;
            continue;
        }
        ck_assert_msg(req == 1 && model == waves, "%s %s dst %d src %s mask %s: model %d "
                      "wavefronts, the H100 %ld (%ld requests)", kind, what, dst, srcs, mask,
                      model, waves, req);
    }
    fclose(f);
    ck_assert_int_eq(rows, 114);
    ck_assert_int_eq(misfits, 4 + 14); /* 3 partly idle and one skewed copy; 14 loops */
}
END_TEST

Suite *truth_suite(void)
{
    Suite *s = suite_create("truth");
    TCase *tc = tcase_create("truth");
    tcase_add_test(tc, test_model_equals_ncu);
    tcase_add_test(tc, test_pairing_cases);
    tcase_add_test(tc, test_access_grammar_errors);
    tcase_add_test(tc, test_async_and_atomics_equal_ncu);
    suite_add_tcase(s, tc);
    return s;
}
