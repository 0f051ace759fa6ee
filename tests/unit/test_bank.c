/* test_bank.c - the shared-memory bank model (grader/model/bank.c). */
#include "model/bank.h"

#include <check.h>
#include <string.h>

#define ALL_LANES 0xFFFFFFFFu

/* 32 banks of 4 bytes, 32 lanes: every GPU since Maxwell. */
static bank_geometry modern(void)
{
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(9, 0, 32, 0, &g), 0);
    return g;
}

/* Every lane touches byte address base + lane * stride_bytes. */
static warp_access strided(uint32_t base, uint32_t stride_bytes, int width, uint32_t active)
{
    warp_access a;
    memset(&a, 0, sizeof a);
    for (int lane = 0; lane < BANK_MAX_LANES; lane++)
        a.addr[lane] = base + (uint32_t)lane * stride_bytes;
    a.active = active;
    a.width = width;
    return a;
}

/* Check the per-lane wavefronts against the total and against each other. */
static void assert_lane_wavefronts_consistent(const bank_geometry *g, const warp_access *a)
{
    int wave[BANK_MAX_LANES];
    int used[BANK_MAX_LANES * 4] = {0};
    int total = bank_lane_wavefronts(g, a, wave);

    ck_assert_int_eq(total, bank_wavefronts(g, a));
    ck_assert_int_le(total, BANK_MAX_LANES * 4);
    for (int lane = 0; lane < BANK_MAX_LANES; lane++) {
        int active = lane < g->warp_size && (a->active >> lane & 1u);
        if (!active) {
            ck_assert_msg(wave[lane] == -1, "inactive lane %d got wavefront %d", lane, wave[lane]);
            continue;
        }
        ck_assert_msg(wave[lane] >= 0 && wave[lane] < total,
                      "lane %d in wavefront %d of %d", lane, wave[lane], total);
        used[wave[lane]] = 1;
    }
    for (int w = 0; w < total; w++)
        ck_assert_msg(used[w], "wavefront %d of %d serves no lane", w, total);

    /* One word per lane: lanes in one wavefront never hit two rows of a bank,
     * and lanes reading the same row share a wavefront. */
    if (a->width <= g->bank_bytes)
        for (int i = 0; i < g->warp_size; i++)
            for (int j = i + 1; j < g->warp_size; j++) {
                if (wave[i] < 0 || wave[j] < 0)
                    continue;
                uint32_t ri = bank_row_key(g, a->addr[i]), rj = bank_row_key(g, a->addr[j]);
                if (ri == rj)
                    ck_assert_msg(wave[i] == wave[j],
                                  "lanes %d and %d read one row in wavefronts %d and %d", i, j,
                                  wave[i], wave[j]);
                else if (bank_of(g, a->addr[i]) == bank_of(g, a->addr[j]))
                    ck_assert_msg(wave[i] != wave[j],
                                  "lanes %d and %d hit bank %d with different rows in "
                                  "wavefront %d", i, j, bank_of(g, a->addr[i]), wave[i]);
            }
}

START_TEST(test_bank_of)
{
    bank_geometry g = modern();
    ck_assert_int_eq(g.banks, 32);
    ck_assert_int_eq(g.bank_bytes, 4);
    ck_assert_int_eq(g.warp_size, 32);
    ck_assert_int_eq(bank_of(&g, 0), 0);
    ck_assert_int_eq(bank_of(&g, 3), 0);   /* bytes of one word share its bank */
    ck_assert_int_eq(bank_of(&g, 4), 1);
    ck_assert_int_eq(bank_of(&g, 124), 31);
    ck_assert_int_eq(bank_of(&g, 127), 31);
    ck_assert_int_eq(bank_of(&g, 128), 0); /* wraps after 32 words */
    ck_assert_int_eq(bank_of(&g, 132), 1);
    ck_assert_int_eq(bank_of(&g, 33 * 4), 1);
    ck_assert_int_eq(bank_of(&g, 0xFFFFFFFCu), 31);

    bank_geometry k;
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, 1, &k), 0);
    ck_assert_int_eq(bank_of(&k, 4), 0);   /* 8-byte banks */
    ck_assert_int_eq(bank_of(&k, 8), 1);
    ck_assert_int_eq(bank_of(&k, 255), 31);
    ck_assert_int_eq(bank_of(&k, 256), 0);
}
END_TEST

/* Stride s words on 32 banks of 4 B: gcd(s, 32)-way. */
static const struct { uint32_t stride_words; int wavefronts; } stride_table[] = {
    {1, 1}, {2, 2}, {3, 1}, {4, 4}, {5, 1}, {8, 8}, {16, 16}, {17, 1}, {32, 32}, {33, 1},
    {64, 32},
};

START_TEST(test_stride_32bit)
{
    bank_geometry g = modern();
    uint32_t s = stride_table[_i].stride_words;
    warp_access a = strided(0, s * 4, 4, ALL_LANES);
    ck_assert_msg(bank_wavefronts(&g, &a) == stride_table[_i].wavefronts,
                  "stride %u words: %d wavefronts, expected %d", s, bank_wavefronts(&g, &a),
                  stride_table[_i].wavefronts);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    /* The same pattern shifted by a few words costs the same. */
    warp_access b = strided(12, s * 4, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &b), stride_table[_i].wavefronts);
    assert_lane_wavefronts_consistent(&g, &a);
}
END_TEST

START_TEST(test_broadcast)
{
    bank_geometry g = modern();
    warp_access a = strided(40, 0, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    assert_lane_wavefronts_consistent(&g, &a);
}
END_TEST

START_TEST(test_half_broadcast)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 0, 4, ALL_LANES);
    /* lanes 0-15 read word 0, lanes 16-31 read words 1..16 */
    for (int lane = 16; lane < 32; lane++)
        a.addr[lane] = (uint32_t)(lane - 15) * 4;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    /* words 0..15 again: word 0 shared by 17 lanes, still one wavefront */
    for (int lane = 16; lane < 32; lane++)
        a.addr[lane] = (uint32_t)(lane - 16) * 4;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    assert_lane_wavefronts_consistent(&g, &a);
}
END_TEST

START_TEST(test_two_words_one_bank_broadcast)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 0, 4, ALL_LANES);
    /* even lanes read word 0, odd lanes word 32: both in bank 0 */
    for (int lane = 1; lane < 32; lane += 2)
        a.addr[lane] = 32 * 4;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 2);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    assert_lane_wavefronts_consistent(&g, &a);

    /* three words of bank 5, each read by several lanes, plus conflict-free rest */
    for (int lane = 0; lane < 32; lane++)
        a.addr[lane] = (uint32_t)lane * 4;
    a.addr[0] = (5 + 32) * 4;
    a.addr[1] = (5 + 64) * 4;
    a.addr[2] = (5 + 32) * 4;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 3);
    assert_lane_wavefronts_consistent(&g, &a);
}
END_TEST

START_TEST(test_active_mask)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 32 * 4, 4, 0x1u); /* stride 32, only lane 0 */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    a.active = 0x3u;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 2);
    a.active = 0x80000001u;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 2);
    assert_lane_wavefronts_consistent(&g, &a);

    /* lanes 16-31 would conflict with lanes 0-15, but they do not take part */
    warp_access b = strided(0, 4, 4, 0x0000FFFFu);
    for (int lane = 16; lane < 32; lane++)
        b.addr[lane] = (uint32_t)(lane + 16) * 4 + 32 * 4 * 7;
    ck_assert_int_eq(bank_wavefronts(&g, &b), 1);
    b.active = ALL_LANES;
    ck_assert_int_gt(bank_wavefronts(&g, &b), 1);
}
END_TEST

START_TEST(test_no_active_lane)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 32 * 4, 4, 0);
    int wave[BANK_MAX_LANES];
    ck_assert_int_eq(bank_wavefronts(&g, &a), 0);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 0);
    ck_assert_int_eq(bank_lane_wavefronts(&g, &a, wave), 0);
    for (int lane = 0; lane < BANK_MAX_LANES; lane++)
        ck_assert_int_eq(wave[lane], -1);
    a.width = 8;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 0);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 0);
}
END_TEST

START_TEST(test_narrow_accesses)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 1, 1, ALL_LANES); /* 32 chars: 8 words */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    a = strided(0, 2, 2, ALL_LANES); /* 32 shorts: 16 words */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    a = strided(0, 128, 1, ALL_LANES); /* one char per row of 32 words */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 32);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
}
END_TEST

START_TEST(test_64bit_consecutive)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 8, 8, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 2);       /* two half-warps */
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 2);
    assert_lane_wavefronts_consistent(&g, &a);
    int wave[BANK_MAX_LANES];
    bank_lane_wavefronts(&g, &a, wave);
    for (int lane = 0; lane < 32; lane++)
        ck_assert_int_eq(wave[lane], lane < 16 ? 0 : 1);

    /* only the first half-warp takes part: one phase */
    a.active = 0x0000FFFFu;
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
}
END_TEST

START_TEST(test_64bit_stride2)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 16, 8, ALL_LANES); /* 16 B apart */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 4);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 2);
    assert_lane_wavefronts_consistent(&g, &a);
}
END_TEST

START_TEST(test_128bit_consecutive)
{
    bank_geometry g = modern();
    warp_access a = strided(0, 16, 16, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 4);       /* four quarter-warps */
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 4);
    assert_lane_wavefronts_consistent(&g, &a);
    int wave[BANK_MAX_LANES];
    bank_lane_wavefronts(&g, &a, wave);
    for (int lane = 0; lane < 32; lane++)
        ck_assert_int_eq(wave[lane], lane / 8);
}
END_TEST

/*
 * Wide loads whose lanes pair up on 8-byte words, as neighbours (lanes 0 and 1
 * of each four on one word, 2 and 3 on another) or by stride (0 and 2, 1 and
 * 3): sixteen words side by side, which a load serves in one pass (1
 * wavefront, below the ideal of 2 for its bytes). A store never pairs: a
 * half-warp a pass, 2 wavefronts. Four words in a group of four lanes: no
 * pairs, 2 for a load too.
 */
START_TEST(test_wide_load_pairs)
{
    bank_geometry g = modern();
    for (int shape = 0; shape < 3; shape++) {
        warp_access a = strided(0, 0, 8, ALL_LANES);
        for (int lane = 0; lane < 32; lane++) {
            int q = lane / 4, i = lane % 4;
            int word = shape == 0 ? 2 * q + i / 2 : shape == 1 ? 2 * q + i % 2 : lane;
            a.addr[lane] = 8u * (uint32_t)word;
        }
        a.load = 1;
        ck_assert_msg(bank_wavefronts(&g, &a) == (shape < 2 ? 1 : 2), "shape %d load: %d", shape,
                      bank_wavefronts(&g, &a));
        ck_assert_int_eq(bank_phase_lanes(&g, &a), shape < 2 ? 32 : 16);
        a.load = 0;
        ck_assert_msg(bank_wavefronts(&g, &a) == 2, "shape %d store: %d", shape,
                      bank_wavefronts(&g, &a));
        ck_assert_int_eq(bank_phase_lanes(&g, &a), 16);
        ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 2);
        assert_lane_wavefronts_consistent(&g, &a);
    }
}
END_TEST

/* Atomics as the H100 serves them: lanes on one word share it when the atomic
   combines (add), take a wavefront each for exch, and twice that for cas; on 32
   different words, one pass (cas: its read and its write). */
START_TEST(test_atomics_on_one_word)
{
    bank_geometry g = modern();
    static const struct { int kind, one_word, distinct; } want[] = {
        {BANK_PLAIN, 1, 1}, {BANK_ATOMIC, 1, 1}, {BANK_EXCH, 32, 1}, {BANK_CAS, 64, 2}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        warp_access one = strided(64, 0, 4, ALL_LANES), all = strided(0, 4, 4, ALL_LANES);
        one.kind = all.kind = want[k].kind;
        ck_assert_msg(bank_wavefronts(&g, &one) == want[k].one_word, "kind %d on one word: %d",
                      want[k].kind, bank_wavefronts(&g, &one));
        ck_assert_msg(bank_wavefronts(&g, &all) == want[k].distinct, "kind %d on 32 words: %d",
                      want[k].kind, bank_wavefronts(&g, &all));
        ck_assert_int_eq(bank_ideal_wavefronts(&g, &one), 1);
    }
}
END_TEST

START_TEST(test_kepler_eight_byte)
{
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, 1, &g), 0);
    ck_assert_int_eq(g.banks, 32);
    ck_assert_int_eq(g.bank_bytes, 8);
    warp_access a = strided(0, 8, 8, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    assert_lane_wavefronts_consistent(&g, &a);
    /* 4-byte words two to a bank word: consecutive ints are conflict-free */
    a = strided(0, 4, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    /* stride 2 ints is no conflict either on 8-byte banks... */
    a = strided(0, 8, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    /* ...but stride 64 ints (256 B) is */
    a = strided(0, 256, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 32);

    /* 4-byte mode on Kepler, and later GPUs ignore the flag */
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, 0, &g), 0);
    ck_assert_int_eq(g.bank_bytes, 4);
    ck_assert_int_eq(bank_geometry_for(8, 6, 32, 1, &g), 0);
    ck_assert_int_eq(g.bank_bytes, 4);
    a = strided(0, 8, 8, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 2);
}
END_TEST

/* Kepler's 4-byte mode (the CUDA Programming Guide, 3.x): a bank's row is 8 bytes, so
   words i and i + 32 of one 64-word segment share a wavefront; i and i + 64 do not. */
START_TEST(test_kepler_four_byte_rows)
{
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(3, 5, 32, 0, &g), 0);
    ck_assert_int_eq(g.bank_bytes, 4);
    ck_assert_int_eq(bank_row_bytes(&g), 8);
    ck_assert_uint_eq(bank_row_key(&g, 0), bank_row_key(&g, 128));   /* words 0 and 32 */
    ck_assert_uint_ne(bank_row_key(&g, 0), bank_row_key(&g, 256));   /* words 0 and 64 */
    ck_assert_uint_ne(bank_row_key(&g, 128), bank_row_key(&g, 384)); /* 32 and 96 */
    warp_access a = strided(0, 128, 4, ALL_LANES); /* a column of 32 words a row */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 16);
    assert_lane_wavefronts_consistent(&g, &a);
    a = strided(0, 256, 4, ALL_LANES); /* a column of 64 words a row: no two share one */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 32);
    a = strided(0, 8, 8, ALL_LANES); /* 256 consecutive bytes: one pass of the rows */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 1);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    ck_assert_int_eq(bank_phase_lanes(&g, &a), 32);
    a = strided(4, 8, 8, ALL_LANES); /* the same, 4 bytes on: it spans two segments */
    ck_assert_int_eq(bank_wavefronts(&g, &a), 2);
    /* today's GPUs: a row is a word, the key the word's index */
    bank_geometry h = modern();
    ck_assert_int_eq(bank_row_bytes(&h), 4);
    ck_assert_uint_eq(bank_row_key(&h, 132), 33);
    a = strided(0, 128, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&h, &a), 32);
    /* a geometry written without rows (a drawing's) reads as one word a row */
    bank_geometry bare = {.banks = 32, .bank_bytes = 4, .warp_size = 32};
    ck_assert_int_eq(bank_wavefronts(&bare, &a), 32);
}
END_TEST

START_TEST(test_geometry_rejects)
{
    bank_geometry g = {0};
    ck_assert_int_eq(bank_geometry_for(2, 1, 32, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(1, 3, 32, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(0, 0, 32, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(-1, 0, 32, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(8, 0, 0, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(8, 0, -32, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(8, 0, 33, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(8, 0, 64, 0, &g), -1);
    ck_assert_int_eq(bank_geometry_for(3, 0, 32, 0, &g), 0);
    ck_assert_int_eq(bank_geometry_for(12, 0, 32, 0, &g), 0);
    ck_assert_int_eq(bank_geometry_for(7, 5, 16, 0, &g), 0);
    ck_assert_int_eq(g.warp_size, 16);
}
END_TEST

START_TEST(test_small_warp)
{
    bank_geometry g;
    ck_assert_int_eq(bank_geometry_for(7, 5, 16, 0, &g), 0);
    /* lanes 16..31 do not exist on a 16-lane warp even if their bits are set */
    warp_access a = strided(0, 32 * 4, 4, ALL_LANES);
    ck_assert_int_eq(bank_wavefronts(&g, &a), 16);
    ck_assert_int_eq(bank_ideal_wavefronts(&g, &a), 1);
    int wave[BANK_MAX_LANES];
    bank_lane_wavefronts(&g, &a, wave);
    for (int lane = 16; lane < BANK_MAX_LANES; lane++)
        ck_assert_int_eq(wave[lane], -1);
}
END_TEST

START_TEST(test_lane_wavefronts_consistent)
{
    bank_geometry g = modern();
    static const struct { uint32_t stride; int width; uint32_t active; } cases[] = {
        {4, 4, ALL_LANES},    {8, 4, ALL_LANES},     {12, 4, 0x0F0F0F0Fu},
        {128, 4, ALL_LANES},  {132, 4, ALL_LANES},   {64, 4, 0xAAAAAAAAu},
        {16, 4, 0x00FF00FFu}, {8, 8, 0xFFFF0000u},   {16, 8, ALL_LANES},
        {32, 8, ALL_LANES},   {16, 16, 0x0000FF00u}, {64, 16, ALL_LANES},
        {256, 8, 0x12345678u}, {0, 4, 0x80000000u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        warp_access a = strided(0, cases[i].stride, cases[i].width, cases[i].active);
        assert_lane_wavefronts_consistent(&g, &a);
    }
    /* NULL is allowed for the per-lane array */
    warp_access a = strided(0, 128, 4, ALL_LANES);
    ck_assert_int_eq(bank_lane_wavefronts(&g, &a, NULL), 32);
    /* the lanes of a 32-way conflict get 32 different wavefronts */
    int wave[BANK_MAX_LANES], seen[32] = {0};
    bank_lane_wavefronts(&g, &a, wave);
    for (int lane = 0; lane < 32; lane++)
        seen[wave[lane]]++;
    for (int w = 0; w < 32; w++)
        ck_assert_int_eq(seen[w], 1);
}
END_TEST

Suite *bank_suite(void)
{
    Suite *s = suite_create("bank");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, test_bank_of);
    tcase_add_loop_test(tc, test_stride_32bit, 0,
                        (int)(sizeof stride_table / sizeof stride_table[0]));
    tcase_add_test(tc, test_broadcast);
    tcase_add_test(tc, test_half_broadcast);
    tcase_add_test(tc, test_two_words_one_bank_broadcast);
    tcase_add_test(tc, test_active_mask);
    tcase_add_test(tc, test_no_active_lane);
    tcase_add_test(tc, test_narrow_accesses);
    tcase_add_test(tc, test_64bit_consecutive);
    tcase_add_test(tc, test_64bit_stride2);
    tcase_add_test(tc, test_128bit_consecutive);
    tcase_add_test(tc, test_kepler_eight_byte);
    tcase_add_test(tc, test_kepler_four_byte_rows);
    tcase_add_test(tc, test_wide_load_pairs);
    tcase_add_test(tc, test_atomics_on_one_word);
    tcase_add_test(tc, test_geometry_rejects);
    tcase_add_test(tc, test_small_warp);
    tcase_add_test(tc, test_lane_wavefronts_consistent);
    suite_add_tcase(s, tc);
    return s;
}
