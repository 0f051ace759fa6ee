/* test_tile_model.c - block-level cost of tile accesses (grader/model/tile_model.c). */
#include "labs/lab_table.h"
#include "model/tile_model.h"

#include <check.h>
#include <string.h>

static bank_geometry h100(void)
{
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    return g;
}

/*
 * Wavefronts / requests of one block, as measured on an H100 (32 banks of
 * 4 bytes) with the labs' kernels.
 */
static const struct {
    const char *what;
    tile_order order;
    int pitch, bdimx, bdimy;
    long wavefronts, requests;
} measured[] = {
    {"square row", TILE_ROW, 32, 32, 32, 32, 32},
    {"square column", TILE_COL, 32, 32, 32, 1024, 32},
    {"square column, pitch 33", TILE_COL, 33, 32, 32, 32, 32},
    {"square row, pitch 33", TILE_ROW, 33, 32, 32, 32, 32},
    {"rectangle row", TILE_ROW, 32, 32, 16, 16, 16},
    {"rectangle [BDIMX][BDIMY] column", TILE_COL, 16, 32, 16, 256, 16},
    {"rectangle irow/icol", TILE_TRANSPOSED, 32, 32, 16, 256, 16},
    {"rectangle irow/icol, pitch 33", TILE_TRANSPOSED, 33, 32, 16, 32, 16},
    {"rectangle irow/icol, pitch 34", TILE_TRANSPOSED, 34, 32, 16, 16, 16},
    {"rectangle row, pitch 34", TILE_ROW, 34, 32, 16, 16, 16},
};

START_TEST(test_measured_table)
{
    bank_geometry g = h100();
    smem_cost c;
    memset(&c, 0xff, sizeof c);
    tile_access a = {.order = measured[_i].order, .pitch = measured[_i].pitch};
    ck_assert_int_eq(tile_model_cost(&g, &a, measured[_i].bdimx, measured[_i].bdimy, 4, 1, &c), 0);
    ck_assert_msg(c.wavefronts == measured[_i].wavefronts && c.requests == measured[_i].requests,
                  "%s: model %ld/%ld, measured %ld/%ld", measured[_i].what, c.wavefronts,
                  c.requests, measured[_i].wavefronts, measured[_i].requests);
    /* every warp's request is conflict-free at best in one wavefront */
    ck_assert_int_eq(c.ideal, c.requests);
}
END_TEST

/*
 * The course's Kepler K40 (compute capability 3.5, docs/lab4.md#kepler): the labs'
 * kernels in each bank mode, worked out by hand from the CUDA Programming Guide's rules
 * for 3.x (8-byte mode: bank = (byte / 8) % 32; 4-byte mode: words i and i + 32 of a
 * 64-word segment share a bank's 8-byte row). The course notes' nvprof figures
 * (shared transactions a request) are beside each: 16 for the square column, 8 for the
 * rectangle's [BDIMX][BDIMY] column and irow/icol read, 1.0 with one pad column on the
 * square (the 4-byte mode's figure; the 8-byte mode needs two).
 */
static const struct {
    const char *what;
    int eight_byte;
    tile_order order;
    int pitch, bdimx, bdimy;
    long wavefronts, requests;
} kepler[] = {
    {"8-byte, square row (notes: 1)", 1, TILE_ROW, 32, 32, 32, 32, 32},
    {"8-byte, square column (notes: 16)", 1, TILE_COL, 32, 32, 32, 512, 32},
    {"8-byte, square column, pitch 33: odd columns 2-way", 1, TILE_COL, 33, 32, 32, 48, 32},
    {"8-byte, square column, pitch 34", 1, TILE_COL, 34, 32, 32, 32, 32},
    {"8-byte, rectangle row (notes: 1)", 1, TILE_ROW, 32, 32, 16, 16, 16},
    {"8-byte, rectangle [BDIMX][BDIMY] column (notes: 8)", 1, TILE_COL, 16, 32, 16, 128, 16},
    {"8-byte, rectangle irow/icol (notes: 8)", 1, TILE_TRANSPOSED, 32, 32, 16, 128, 16},
    {"8-byte, rectangle irow/icol, pitch 33: 2-way", 1, TILE_TRANSPOSED, 33, 32, 16, 32, 16},
    {"8-byte, rectangle irow/icol, pitch 34 (notes: 1)", 1, TILE_TRANSPOSED, 34, 32, 16, 16, 16},
    {"4-byte, square row", 0, TILE_ROW, 32, 32, 32, 32, 32},
    {"4-byte, square column: rows of 2 words, 16-way", 0, TILE_COL, 32, 32, 32, 512, 32},
    {"4-byte, square column, pitch 33 (notes: 1.0)", 0, TILE_COL, 33, 32, 32, 32, 32},
    {"4-byte, rectangle [BDIMX][BDIMY] column", 0, TILE_COL, 16, 32, 16, 128, 16},
    {"4-byte, rectangle irow/icol", 0, TILE_TRANSPOSED, 32, 32, 16, 128, 16},
    {"4-byte, rectangle irow/icol, pitch 34", 0, TILE_TRANSPOSED, 34, 32, 16, 16, 16},
};

START_TEST(test_kepler_table)
{
    bank_geometry g;
    smem_cost c;
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, kepler[_i].eight_byte, &g), 0);
    tile_access a = {.order = kepler[_i].order, .pitch = kepler[_i].pitch};
    ck_assert_int_eq(tile_model_cost(&g, &a, kepler[_i].bdimx, kepler[_i].bdimy, 4, 1, &c), 0);
    ck_assert_msg(c.wavefronts == kepler[_i].wavefronts && c.requests == kepler[_i].requests,
                  "K40 %s: model %ld/%ld, by hand %ld/%ld", kepler[_i].what, c.wavefronts,
                  c.requests, kepler[_i].wavefronts, kepler[_i].requests);
    ck_assert_int_eq(c.ideal, c.requests); /* 128 bytes a warp: one of Kepler's 256-byte passes */
}
END_TEST

START_TEST(test_degree)
{
    bank_geometry g = h100();
    smem_cost c;
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_COL, .pitch = 32}, 32, 32, 4, 1, &c), 0);
    ck_assert_double_eq_tol(smem_degree(&c), 32.0, 1e-12);
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_ROW, .pitch = 32}, 32, 32, 4, 1, &c), 0);
    ck_assert_double_eq_tol(smem_degree(&c), 1.0, 1e-12);
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_TRANSPOSED, .pitch = 33}, 32, 16, 4, 1, &c), 0);
    ck_assert_double_eq_tol(smem_degree(&c), 2.0, 1e-12);
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_COL, .pitch = 16}, 32, 16, 4, 1, &c), 0);
    ck_assert_double_eq_tol(smem_degree(&c), 16.0, 1e-12);

    smem_cost hand = {.requests = 4, .wavefronts = 6, .ideal = 4};
    ck_assert_double_eq_tol(smem_degree(&hand), 1.5, 1e-12);
    smem_cost one_warp = {.requests = 1, .wavefronts = 32, .ideal = 1};
    ck_assert_double_eq_tol(smem_degree(&one_warp), 32.0, 1e-12);
    smem_cost none = {0, 0, 0};
    ck_assert_double_eq_tol(smem_degree(&none), 1.0, 1e-12);
}
END_TEST

START_TEST(test_tile_offset)
{
    /* thread (tx = 3, ty = 2) of a 32 x 32 block, pitch 33 */
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_ROW, .pitch = 33}, 32, 32, 3, 2), 2 * 33 + 3);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_COL, .pitch = 33}, 32, 32, 3, 2), 3 * 33 + 2);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_ROW, .pitch = 32}, 32, 32, 31, 31), 1023);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_COL, .pitch = 32}, 32, 32, 31, 0), 31 * 32);

    /* 32 x 16 block: idx = ty * 32 + tx, irow = idx / 16, icol = idx % 16 */
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_TRANSPOSED, .pitch = 32}, 32, 16, 5, 1), 5 * 32 + 2);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_TRANSPOSED, .pitch = 34}, 32, 16, 5, 1), 5 * 34 + 2);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_TRANSPOSED, .pitch = 32}, 32, 16, 0, 0), 0);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_TRANSPOSED, .pitch = 32}, 32, 16, 31, 15),
                     15 * 32 + 31);
    ck_assert_int_eq(tile_offset(&(tile_access){.order = TILE_COL, .pitch = 16}, 32, 16, 31, 15), 31 * 16 + 15);

    /* each order visits every element of an unpadded tile exactly once */
    const tile_order orders[] = {TILE_ROW, TILE_COL, TILE_TRANSPOSED};
    for (int o = 0; o < 3; o++) {
        int seen[512] = {0};
        int pitch = orders[o] == TILE_COL ? 16 : 32;
        for (int ty = 0; ty < 16; ty++)
            for (int tx = 0; tx < 32; tx++) {
                long off = tile_offset(&(tile_access){.order = orders[o], .pitch = pitch}, 32, 16, tx, ty);
                ck_assert_int_ge(off, 0);
                ck_assert_int_lt(off, 512);
                seen[off]++;
            }
        for (int i = 0; i < 512; i++)
            ck_assert_msg(seen[i] == 1, "%s: element %d visited %d times",
                          tile_order_name(orders[o]), i, seen[i]);
    }
}
END_TEST

START_TEST(test_warp_access)
{
    bank_geometry g = h100();
    warp_access w;
    /* warp 3 of a 32 x 16 block reading irow/icol with pitch 32 */
    tile_warp_access(&g, &(tile_access){.order = TILE_TRANSPOSED, .pitch = 32}, 32, 16, 4, 1, 3, &w);
    ck_assert_uint_eq(w.active, 0xFFFFFFFFu);
    ck_assert_int_eq(w.width, 4);
    for (int lane = 0; lane < 32; lane++) {
        int idx = 3 * 32 + lane;
        ck_assert_uint_eq(w.addr[lane], (uint32_t)(((idx % 16) * 32 + idx / 16) * 4));
    }

    /* a 24-thread block fills lanes 0..23 of one warp */
    tile_warp_access(&g, &(tile_access){.order = TILE_ROW, .pitch = 8}, 8, 3, 4, 1, 0, &w);
    ck_assert_uint_eq(w.active, 0x00FFFFFFu);
    smem_cost c;
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_ROW, .pitch = 8}, 8, 3, 4, 1, &c), 0);
    ck_assert_int_eq(c.requests, 1);
    ck_assert_int_eq(c.wavefronts, 1);
    /* 48 threads: two warps, the second half full */
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_ROW, .pitch = 16}, 16, 3, 4, 1, &c), 0);
    ck_assert_int_eq(c.requests, 2);
    tile_warp_access(&g, &(tile_access){.order = TILE_ROW, .pitch = 16}, 16, 3, 4, 1, 1, &w);
    ck_assert_uint_eq(w.active, 0x0000FFFFu);
}
END_TEST

/*
 * A tile's access is a plain one whatever the caller's warp_access held before:
 * the model's cost of a kernel once depended on the stack its caller left (a kind
 * of atomic or copy read from garbage: the truth corpus's 1-byte broadcast store
 * was modelled 32-way after one kernel and conflict-free after another).
 */
START_TEST(test_warp_access_plain)
{
    bank_geometry g = h100();
    warp_access w;
    smem_cost first, again;
    tile_access bcast = {.order = TILE_LINEAR, .arg = {0, 0, 1}};
    memset(&w, 0xab, sizeof w);
    tile_warp_access(&g, &bcast, 32, 4, 1, 0, 0, &w);
    ck_assert_int_eq(w.kind, BANK_PLAIN);
    ck_assert_int_eq(w.lines, 0);
    ck_assert_int_eq(w.skewed, 0);
    ck_assert_uint_eq(w.active, 0xFFFFFFFFu);
    ck_assert_int_eq(bank_wavefronts(&g, &w), 1); /* 32 lanes, one byte: one wavefront */
    ck_assert_int_eq(tile_model_cost(&g, &bcast, 32, 4, 1, 0, &first), 0);
    ck_assert_int_eq(tile_model_cost(&g, &bcast, 32, 4, 1, 0, &again), 0);
    ck_assert_int_eq(first.wavefronts, 4); /* a wavefront a warp, 4 warps */
    ck_assert_int_eq(again.wavefronts, first.wavefronts);
}
END_TEST

START_TEST(test_wide_elements)
{
    bank_geometry g = h100();
    smem_cost c;
    /* doubles, row-major: every warp needs its two half-warp phases */
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_ROW, .pitch = 32}, 32, 32, 8, 1, &c), 0);
    ck_assert_int_eq(c.requests, 32);
    ck_assert_int_eq(c.wavefronts, 64);
    ck_assert_int_eq(c.ideal, 64);
    ck_assert_double_eq_tol(smem_degree(&c), 1.0, 1e-12);
}
END_TEST

START_TEST(test_bad_sizes)
{
    bank_geometry g = h100();
    smem_cost c;
    tile_access row = {.order = TILE_ROW, .pitch = 32};
    ck_assert_int_eq(tile_model_cost(&g, &row, 0, 32, 4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &row, 32, 0, 4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &row, -32, 32, 4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &row, 32, -1, 4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &row, 32, 32, 0, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &row, 32, 32, -4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_ROW, .pitch = 0}, 32, 32, 4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &(tile_access){.order = TILE_COL, .pitch = -1}, 32, 32, 4, 1, &c), -1);
    ck_assert_int_eq(tile_model_cost(&g, &row, 1, 1, 4, 1, &c), 0);
    ck_assert_int_eq(c.requests, 1);
    ck_assert_int_eq(c.wavefronts, 1);
}
END_TEST

START_TEST(test_order_name)
{
    ck_assert_str_eq(tile_order_name(TILE_ROW), "row");
    ck_assert_str_eq(tile_order_name(TILE_COL), "column");
    ck_assert_str_eq(tile_order_name(TILE_TRANSPOSED), "irow/icol");
    ck_assert_str_eq(tile_order_name((tile_order)42), "?");
}
END_TEST

/* What each lab kernel teaches must be what the model gives for its table entry. */
static const struct {
    const char *lab, *kernel;
    long store_wavefronts, load_wavefronts, requests;
} lab_costs[] = {
    {"lab1", "setRowReadRow", 32, 32, 32},
    {"lab1", "setColReadCol", 1024, 1024, 32},
    {"lab1", "setRowReadCol", 32, 1024, 32},
    {"lab2", "setRowReadColDyn", 32, 1024, 32},
    {"lab2", "setColReadColDyn", 1024, 1024, 32},
    {"lab3", "setRowReadColPad", 32, 32, 32},
    {"lab3", "setRowReadColDynPad", 32, 32, 32},
    {"lab4", "setRowReadRow", 16, 16, 16},
    {"lab4", "setColReadCol", 256, 256, 16},
    {"lab4", "setRowReadCol", 16, 256, 16},
    {"lab4", "setRowReadColDyn", 16, 256, 16},
    {"lab4", "setRowReadColPad", 16, 16, 16},
    {"lab4", "setRowReadColDynPad", 16, 16, 16},
};

START_TEST(test_lab_tables)
{
    bank_geometry g = h100();
    const lab_def *lab = lab_find(lab_costs[_i].lab);
    const lab_kernel *k = NULL;
    ck_assert_ptr_nonnull(lab);
    for (int i = 0; i < lab->n_kernels; i++)
        if (strcmp(lab->kernels[i].name, lab_costs[_i].kernel) == 0)
            k = &lab->kernels[i];
    ck_assert_msg(k != NULL, "%s has no kernel %s", lab_costs[_i].lab, lab_costs[_i].kernel);
    smem_cost st, ld;
    ck_assert_int_eq(tile_model_cost(&g, &k->tile.store, lab->bdimx, lab->bdimy, 4, 0, &st), 0);
    ck_assert_int_eq(tile_model_cost(&g, &k->tile.load, lab->bdimx, lab->bdimy, 4, 1, &ld), 0);
    ck_assert_msg(st.wavefronts == lab_costs[_i].store_wavefronts &&
                  ld.wavefronts == lab_costs[_i].load_wavefronts &&
                  st.requests == lab_costs[_i].requests && ld.requests == lab_costs[_i].requests,
                  "%s %s: store %ld/%ld, load %ld/%ld", lab_costs[_i].lab, lab_costs[_i].kernel,
                  st.wavefronts, st.requests, ld.wavefronts, ld.requests);
}
END_TEST

/* The padded exercises ask for the least pad that makes the read conflict-free
   (tile_spec.pad_free): their tables' pitches are what that is on today's banks, and the
   K40 needs two columns in its 8-byte mode, one in its 4-byte mode on the square tile. */
START_TEST(test_least_pad)
{
    static const struct {
        const char *lab, *kernel;
        int today, kepler8, kepler4;
    } want[] = {
        {"lab3", "setRowReadColPad", 33, 34, 33}, {"lab3", "setRowReadColDynPad", 33, 34, 33},
        {"lab4", "setRowReadColPad", 34, 34, 34}, {"lab4", "setRowReadColDynPad", 34, 34, 34},
        {"lab4", "setRowReadCol", 32, 32, 32}, /* not padded: its own pitch everywhere */
    };
    bank_geometry today = h100(), k8, k4;
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, 1, &k8), 0);
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, 0, &k4), 0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const lab_def *lab = lab_find(want[i].lab);
        const lab_kernel *k = NULL;
        for (int j = 0; j < lab->n_kernels; j++)
            if (strcmp(lab->kernels[j].name, want[i].kernel) == 0)
                k = &lab->kernels[j];
        ck_assert_ptr_nonnull(k);
        tile_spec t;
        tile_spec_on(lab, k, &today, &t);
        ck_assert_int_eq(t.load.pitch, want[i].today);
        ck_assert_int_eq(t.load.pitch, k->tile.load.pitch); /* the table says today's */
        tile_spec_on(lab, k, &k8, &t);
        ck_assert_int_eq(t.load.pitch, want[i].kepler8);
        ck_assert_int_eq(t.store.pitch, want[i].kepler8);
        tile_spec_on(lab, k, &k4, &t);
        ck_assert_int_eq(t.load.pitch, want[i].kepler4);
    }
    /* a read no pad fixes has none */
    tile_access row = {.order = TILE_ROW, .pitch = 32};
    ck_assert_int_eq(tile_least_pad(&today, &row, 32, 32, 4), 1); /* any pad: rows stay free */
    tile_access bcast = {.order = TILE_LINEAR, .pitch = 32, .arg = {0, 64, 1}};
    ck_assert_int_eq(tile_least_pad(&today, &bcast, 32, 32, 4), 0);
}
END_TEST

Suite *tile_model_suite(void)
{
    Suite *s = suite_create("tile_model");
    TCase *tc = tcase_create("model");
    tcase_add_loop_test(tc, test_measured_table, 0, (int)(sizeof measured / sizeof measured[0]));
    tcase_add_loop_test(tc, test_kepler_table, 0, (int)(sizeof kepler / sizeof kepler[0]));
    tcase_add_test(tc, test_degree);
    tcase_add_test(tc, test_tile_offset);
    tcase_add_test(tc, test_warp_access);
    tcase_add_test(tc, test_warp_access_plain);
    tcase_add_test(tc, test_wide_elements);
    tcase_add_test(tc, test_bad_sizes);
    tcase_add_test(tc, test_order_name);
    tcase_add_loop_test(tc, test_lab_tables, 0, (int)(sizeof lab_costs / sizeof lab_costs[0]));
    tcase_add_test(tc, test_least_pad);
    suite_add_tcase(s, tc);
    return s;
}
