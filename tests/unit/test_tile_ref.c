/* test_tile_ref.c - host reference and output comparison of the tile labs. */
#include "reference/tile_ref.h"

#include <check.h>
#include <string.h>

static tile_spec spec(tile_order store, int store_pitch, tile_order load, int load_pitch)
{
    tile_spec t = {.store = {.order = store, .pitch = store_pitch},
                   .load = {.order = load, .pitch = load_pitch}, .store_code = "store", .load_code = "load"};
    return t;
}

static void fill(int *out, long n, int v)
{
    for (long i = 0; i < n; i++)
        out[i] = v;
}

START_TEST(test_identity_square)
{
    int out[1024];
    tile_spec rr = spec(TILE_ROW, 32, TILE_ROW, 32);
    fill(out, 1024, -7);
    tile_reference(&rr, 32, 32, out);
    for (int i = 0; i < 1024; i++)
        ck_assert_int_eq(out[i], i);

    tile_spec cc = spec(TILE_COL, 32, TILE_COL, 32);
    fill(out, 1024, -7);
    tile_reference(&cc, 32, 32, out);
    for (int i = 0; i < 1024; i++)
        ck_assert_int_eq(out[i], i);
}
END_TEST

START_TEST(test_identity_rectangle)
{
    int out[512];
    tile_spec rr = spec(TILE_ROW, 32, TILE_ROW, 32);
    fill(out, 512, -7);
    tile_reference(&rr, 32, 16, out);
    for (int i = 0; i < 512; i++)
        ck_assert_int_eq(out[i], i);

    /* tile declared [BDIMX][BDIMY]: pitch 16 */
    tile_spec cc = spec(TILE_COL, 16, TILE_COL, 16);
    fill(out, 512, -7);
    tile_reference(&cc, 32, 16, out);
    for (int i = 0; i < 512; i++)
        ck_assert_int_eq(out[i], i);
}
END_TEST

START_TEST(test_square_transpose)
{
    int out[1024];
    tile_spec t = spec(TILE_ROW, 32, TILE_COL, 32);
    tile_reference(&t, 32, 32, out);
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++)
            ck_assert_msg(out[y * 32 + x] == x * 32 + y, "out[%d][%d] = %d, expected %d", y, x,
                          out[y * 32 + x], x * 32 + y);
}
END_TEST

START_TEST(test_rectangle_transpose)
{
    int out[512];
    tile_spec t = spec(TILE_ROW, 32, TILE_TRANSPOSED, 32);
    tile_reference(&t, 32, 16, out);
    for (int idx = 0; idx < 512; idx++) {
        int irow = idx / 16, icol = idx % 16;
        ck_assert_msg(out[idx] == icol * 32 + irow, "out[%d] = %d, expected %d", idx, out[idx],
                      icol * 32 + irow);
    }
    /* spot values: the first row of out walks down tile columns 0 and 1 */
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 32);
    ck_assert_int_eq(out[15], 15 * 32);
    ck_assert_int_eq(out[16], 1);
    ck_assert_int_eq(out[511], 15 * 32 + 31);
}
END_TEST

/* Padding changes where elements sit in the tile, never what the kernel outputs. */
static const struct { tile_order store, load; int bdimx, bdimy, pitch, padded; } pads[] = {
    {TILE_ROW, TILE_ROW, 32, 32, 32, 33},
    {TILE_COL, TILE_COL, 32, 32, 32, 33},
    {TILE_ROW, TILE_COL, 32, 32, 32, 33},
    {TILE_ROW, TILE_COL, 32, 32, 32, 34},
    {TILE_ROW, TILE_TRANSPOSED, 32, 16, 32, 33},
    {TILE_ROW, TILE_TRANSPOSED, 32, 16, 32, 34},
    {TILE_ROW, TILE_TRANSPOSED, 32, 16, 32, 40},
    {TILE_COL, TILE_COL, 32, 16, 16, 17},
};

START_TEST(test_padded_same_output)
{
    int plain[1024], padded[1024];
    int n = pads[_i].bdimx * pads[_i].bdimy;
    tile_spec a = spec(pads[_i].store, pads[_i].pitch, pads[_i].load, pads[_i].pitch);
    tile_spec b = spec(pads[_i].store, pads[_i].padded, pads[_i].load, pads[_i].padded);
    fill(plain, 1024, -7);
    fill(padded, 1024, -9);
    tile_reference(&a, pads[_i].bdimx, pads[_i].bdimy, plain);
    tile_reference(&b, pads[_i].bdimx, pads[_i].bdimy, padded);
    for (int i = 0; i < n; i++) {
        ck_assert_int_ge(padded[i], 0); /* never a pad slot */
        ck_assert_int_eq(padded[i], plain[i]);
    }
    /* out has bdimx * bdimy elements: nothing past it is written */
    for (int i = n; i < 1024; i++)
        ck_assert_int_eq(padded[i], -9);
}
END_TEST

/* The lab tables: a padded kernel gives the output of its unpadded twin. */
START_TEST(test_lab_tables_padded)
{
    int want[1024], got[1024];
    const lab_def *lab1 = lab_find("lab1"), *lab3 = lab_find("lab3"), *lab4 = lab_find("lab4");
    ck_assert_ptr_nonnull(lab1);
    ck_assert_ptr_nonnull(lab3);
    ck_assert_ptr_nonnull(lab4);

    tile_spec square_t = spec(TILE_ROW, 32, TILE_COL, 32);
    tile_reference(&square_t, 32, 32, want);
    for (int k = 0; k < lab3->n_kernels; k++) {
        tile_reference(&lab3->kernels[k].tile, lab3->bdimx, lab3->bdimy, got);
        ck_assert_msg(memcmp(want, got, sizeof want) == 0, "lab3 %s", lab3->kernels[k].name);
    }
    tile_spec rect_t = spec(TILE_ROW, 32, TILE_TRANSPOSED, 32);
    tile_reference(&rect_t, 32, 16, want);
    for (int k = 0; k < lab4->n_kernels; k++) {
        if (lab4->kernels[k].tile.load.order != TILE_TRANSPOSED)
            continue;
        tile_reference(&lab4->kernels[k].tile, lab4->bdimx, lab4->bdimy, got);
        ck_assert_msg(memcmp(want, got, 512 * sizeof *want) == 0, "lab4 %s",
                      lab4->kernels[k].name);
    }
}
END_TEST

START_TEST(test_compare_ints)
{
    const int poison = -1234;
    int want[6] = {0, 1, 2, 3, 4, 5};
    int got[6] = {0, 9, 2, poison, poison, 5};
    int_diff d;
    memset(&d, 0x5a, sizeof d);
    compare_ints(want, got, 6, poison, &d);
    ck_assert_int_eq(d.wrong, 3);
    ck_assert_int_eq(d.unwritten, 2);
    ck_assert_int_eq(d.first, 1);
    ck_assert_int_eq(d.expected, 1);
    ck_assert_int_eq(d.got, 9);

    /* first wrong element is an unwritten one */
    int got2[6] = {0, 1, poison, 3, 4, 7};
    compare_ints(want, got2, 6, poison, &d);
    ck_assert_int_eq(d.wrong, 2);
    ck_assert_int_eq(d.unwritten, 1);
    ck_assert_int_eq(d.first, 2);
    ck_assert_int_eq(d.expected, 2);
    ck_assert_int_eq(d.got, poison);

    /* last element only */
    int got3[6] = {0, 1, 2, 3, 4, 6};
    compare_ints(want, got3, 6, poison, &d);
    ck_assert_int_eq(d.wrong, 1);
    ck_assert_int_eq(d.unwritten, 0);
    ck_assert_int_eq(d.first, 5);
    ck_assert_int_eq(d.expected, 5);
    ck_assert_int_eq(d.got, 6);
}
END_TEST

START_TEST(test_compare_ints_equal)
{
    int want[4] = {4, 3, 2, 1}, got[4] = {4, 3, 2, 1};
    int_diff d;
    memset(&d, 0x5a, sizeof d);
    compare_ints(want, got, 4, -1, &d);
    ck_assert_int_eq(d.wrong, 0);
    ck_assert_int_eq(d.unwritten, 0);
    ck_assert_int_eq(d.first, -1);
    memset(&d, 0x5a, sizeof d);
    compare_ints(want, got, 0, -1, &d);
    ck_assert_int_eq(d.wrong, 0);
    ck_assert_int_eq(d.first, -1);
    /* only n elements are compared */
    got[3] = 99;
    compare_ints(want, got, 3, -1, &d);
    ck_assert_int_eq(d.wrong, 0);
    compare_ints(want, got, 4, -1, &d);
    ck_assert_int_eq(d.wrong, 1);
}
END_TEST

START_TEST(test_compare_ints_all_unwritten)
{
    int want[1024], got[1024];
    for (int i = 0; i < 1024; i++) {
        want[i] = i;
        got[i] = -42;
    }
    int_diff d;
    compare_ints(want, got, 1024, -42, &d);
    ck_assert_int_eq(d.wrong, 1024);
    ck_assert_int_eq(d.unwritten, 1024);
    ck_assert_int_eq(d.first, 0);
}
END_TEST

Suite *tile_ref_suite(void)
{
    Suite *s = suite_create("tile_ref");
    TCase *tc = tcase_create("reference");
    tcase_add_test(tc, test_identity_square);
    tcase_add_test(tc, test_identity_rectangle);
    tcase_add_test(tc, test_square_transpose);
    tcase_add_test(tc, test_rectangle_transpose);
    tcase_add_loop_test(tc, test_padded_same_output, 0, (int)(sizeof pads / sizeof pads[0]));
    tcase_add_test(tc, test_lab_tables_padded);
    tcase_add_test(tc, test_compare_ints);
    tcase_add_test(tc, test_compare_ints_equal);
    tcase_add_test(tc, test_compare_ints_all_unwritten);
    suite_add_tcase(s, tc);
    return s;
}
