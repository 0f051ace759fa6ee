/* sum_explain.c - a wrong reduction's counts in words; see sum_explain.h. */
#include "sum_explain.h"

#include "../base/check.h"

#include <stdio.h>
#include <string.h>

/* Ranges a list names before ", ...". */
#define RANGES_SHOWN 3

/* An index of in[]: absolute (p = 0), or offset a of every p ("64k + 32"). */
static void index_text(long p, long a, char *buf, size_t size)
{
    if (!p)
        snprintf(buf, size, "%ld", a);
    else if (a == 0)
        snprintf(buf, size, "%ldk", p);
    else
        snprintf(buf, size, "%ldk + %ld", p, a);
}

/* The runs of set flags in flag[0 .. m) as "in[a .. b]", joined; offsets of every p
   where p > 0. Returns the runs found. */
static int runs_text(const unsigned char *flag, long m, long p, char *buf, size_t size)
{
    int runs = 0;
    size_t at = strlen(buf);
    for (long j = 0; j < m; j++) {
        if (!flag[j] || (j > 0 && flag[j - 1]))
            continue;
        long e = j;
        while (e + 1 < m && flag[e + 1])
            e++;
        runs++;
        if (runs > RANGES_SHOWN) {
            snprintf(buf + at, size - at, ", ...");
            break;
        }
        char a[48], b[48];
        index_text(p, j, a, sizeof a);
        index_text(p, e, b, sizeof b);
        int more = 0; /* is there a run after this one? */
        for (long k = e + 1; k < m && !more; k++)
            more = flag[k];
        const char *sep = runs == 1 ? "" : more ? ", " : " and ";
        if (j == e)
            snprintf(buf + at, size - at, "%sin[%s]", sep, a);
        else
            snprintf(buf + at, size - at, "%sin[%s .. %s]", sep, a, b);
        at = strlen(buf);
    }
    return runs;
}

long sum_elements_text(const unsigned char *flag, long m, long per, char *buf, size_t size)
{
    long set = 0, first = -1, last = -1;
    buf[0] = '\0';
    for (long j = 0; j < m; j++)
        if (flag[j]) {
            set++;
            first = first < 0 ? j : first;
            last = j;
        }
    if (set == 0)
        return 0;
    /* the same pattern in every p elements, two of them at least: said once for all */
    long p = 0;
    for (long q = 2; set < m && q <= per && 2 * q <= m && !p; q *= 2) {
        int same = 1;
        for (long j = q; j < m && same; j++)
            same = flag[j] == flag[j % q];
        p = same ? q : 0;
    }
    if (p) {
        long in_period = 0;
        for (long j = 0; j < p; j++)
            in_period += flag[j] != 0;
        runs_text(flag, p, p, buf, size);
        size_t at = strlen(buf);
        snprintf(buf + at, size - at, " for every k (%ld of every %ld elements)", in_period, p);
        return set;
    }
    runs_text(flag, m, 0, buf, size);
    size_t at = strlen(buf);
    if (per > 0 && first / per == last / per)
        snprintf(buf + at, size - at, " of block %ld", first / per);
    else if (per > 0)
        snprintf(buf + at, size - at, " (blocks %ld .. %ld)", first / per, last / per);
    return set;
}

static int power_of_two(long v)
{
    return v > 1 && (v & (v - 1)) == 0;
}

static int log2_of(long v)
{
    int l = 0;
    while (v > 1)
        v >>= 1, l++;
    return l;
}

/* Lane r of every warp (or the first element of every block) counted k times, the
   others not at all: the set's period (32 or per) and its offset; 0 if not so. */
static long one_lane(const sum_counts *s, long *r, int32_t *k)
{
    long m = s->probed, first = -1;
    for (long j = 0; j < m && first < 0; j++)
        if (s->count[j] != 0)
            first = j;
    if (first < 0 || m <= 32)
        return 0;
    for (long p = 32; p <= s->per; p *= 2) {
        int fits = 2 * p <= m || p == s->per;
        for (long j = 0; j < m && fits; j++)
            fits = (j % p == first % p) ? s->count[j] == s->count[first] : s->count[j] == 0;
        if (fits && first < p) {
            *r = first % p;
            *k = s->count[first];
            return p;
        }
    }
    return 0;
}

/* The first w lanes of every warp counted k times each, the others not at all (the
   counts repeat every 32 elements): w, a power of two below 32, or 0. */
static int lower_lanes(const sum_counts *s, int32_t *k)
{
    long m = s->probed;
    int w = 0;
    if (m < 64 || s->count[0] <= 0)
        return 0;
    while (w < 32 && s->count[w] == s->count[0])
        w++;
    if (w >= 32 || !power_of_two(w))
        return 0;
    for (long j = 0; j < m; j++)
        if (s->count[j] != (j % 32 < w ? s->count[0] : 0))
            return 0;
    *k = s->count[0];
    return w;
}

/* The cause of elements missing or counted twice, for where the tree runs. */
static const char *level_cause(const sum_counts *s)
{
    if (s->no_shared && !s->in_place)
        return "several threads write one word of global memory in an order nothing fixes (a "
               "word one thread zeroes while others atomicAdd into it: the zeroing store may "
               "land after their adds, or another block's), or an index skips or repeats them";
    return s->in_place
        ? "a level reads in[tid + stride] before another warp has added into it (no "
          "__syncthreads() between the levels: a block's warps run in any order), or an index "
          "skips or repeats them"
        : "a level reads a word of the tile before the level above wrote it (a __syncthreads() "
          "or __syncwarp() missing between levels), or an index skips or repeats them";
}

static void say_up(const sum_counts *s, long j, int32_t k, long zeros, char *hint, size_t size)
{
    char others[96] = "";
    if (zeros)
        snprintf(others, sizeof others, ", and %ld of the others not at all", zeros);
    check_field(hint, size, "Your sum counts in[%ld] %d times%s. Your __shfl_up_sync (%s) gives "
                "lane t the value of lane t - delta, and a lane below delta gets its own value "
                "back: lane 0 adds its own value at every level (%d = 2^%d) and never sees "
                "another lane's. A sum over the warp reads the other lanes' values: "
                "v += __shfl_xor_sync(FULL_MASK, v, mask, WARP) leaves the sum in every lane, "
                "__shfl_down_sync in lane 0.", j, k, others, s->shfl_up, k, log2_of(k));
}

static int explain(const sum_counts *s, char *hint, size_t size);

int sum_explain(const sum_counts *s, char *hint, size_t size)
{
    if (!s->at)
        return explain(s, hint, size);
    char words[640];
    if (!explain(s, words, sizeof words))
        return 0;
    check_field(hint, size, "At %s: %s", s->at, words);
    return 1;
}

static int explain(const sum_counts *s, char *hint, size_t size)
{
    long m = s->probed;
    if (m <= 0 || !s->count)
        return 0;
    if (!s->consistent) {
        check_field(hint, size, "Run on inputs that are 0 but for one element, your kernel's "
                    "partial sums do not add up to what it gave for this input: what it adds "
                    "depends on the values or on the run. A race is the usual cause: %s.",
                    level_cause(s));
        return 1;
    }
    if (s->junk != 0) {
        check_field(hint, size, "With every element 0 your partial sums still add up to %d "
                    "(block %ld's is %d): your kernel adds a word that holds no element of this "
                    "run. %s", s->junk, s->junk_block, s->junk_value, s->in_place
                    ? "Does a thread read past the block's elements, or past n?"
                    : "A word of shared memory that no thread wrote in this launch (the grader "
                      "fills shared memory with junk first), or a read past the end of an "
                      "array: every word a level reads must be one the block wrote.");
        return 1;
    }
    long zeros = 0, multi = 0, first_multi = -1;
    int uniform = 1;
    for (long j = 0; j < m; j++) {
        int32_t c = s->count[j];
        uniform &= c == s->count[0];
        zeros += c == 0;
        if (c > 1 && first_multi < 0)
            first_multi = j;
        multi += c > 1;
    }
    if (s->shfl_up && first_multi >= 0 && power_of_two(s->count[first_multi])) {
        say_up(s, first_multi, s->count[first_multi], zeros, hint, size);
        return 1;
    }
    if (uniform && s->count[0] > 1) {
        check_field(hint, size, "Your kernel counts every element %d times: its sum comes out "
                    "%d times the elements'. A level of a tree or of the shuffles adds a value to "
                    "itself: in a shuffle whose source lane lies outside the segment (a laneMask "
                    "or delta at least the width, or a width narrower than the warp), a lane "
                    "keeps its own value, and adding it counts it twice.", s->count[0],
                    s->count[0]);
        return 1;
    }
    if (uniform && s->count[0] == 0) {
        check_field(hint, size, "No element is in your sum: run on inputs that are 0 but for "
                    "one element, every partial sum comes out 0. Does each thread add the element "
                    "it loads (in[blockIdx.x * %ld + threadIdx.x] and on), and does thread 0 "
                    "store the block's total?", s->per);
        return 1;
    }
    long p, r;
    int32_t k;
    int w;
    if ((w = lower_lanes(s, &k)) != 0) {
        check_field(hint, size, "Only lanes 0 .. %d of each warp reach your sum, %d time%s "
                    "each, lanes %d .. 31 not at all: your warp's shuffles work within "
                    "segments of %d lanes (a width of %d, or no laneMask or delta reaching "
                    "lane %d), so lane 0 never sees the upper lanes' values, and a level whose "
                    "source lies outside the segment adds a lane's own value again. The width "
                    "(the last argument) is WARP (32): v += __shfl_xor_sync(FULL_MASK, v, mask, "
                    "WARP) for mask = 16 .. 1.", w - 1, k, k == 1 ? "" : "s", w, w, w, w);
        return 1;
    }
    if ((p = one_lane(s, &r, &k)) != 0) {
        char shfl[96] = "";
        if (s->shfl_idx)
            snprintf(shfl, sizeof shfl, " (your __shfl_sync at %s gives every lane one lane's)",
                     s->shfl_idx);
        char at[48];
        index_text(p, r, at, sizeof at);
        check_field(hint, size, "Only in[%s] (%s) is in your sum, %d time%s, and no other "
                    "element: one lane's value reaches every lane where each lane's own should "
                    "be added%s. A sum over the warp adds the others' values to each lane's own: "
                    "v += __shfl_xor_sync(FULL_MASK, v, mask, WARP).", at,
                    p == 32 ? "one lane of each warp" : "the first element of each block", k,
                    k == 1 ? "" : "s", shfl);
        return 1;
    }
    unsigned char flag_missing[4096], flag_multi[4096];
    long shown = m < (long)sizeof flag_missing ? m : (long)sizeof flag_missing;
    for (long j = 0; j < shown; j++) {
        flag_missing[j] = s->count[j] == 0;
        flag_multi[j] = s->count[j] > 1;
    }
    char missing[200], twice[200];
    sum_elements_text(flag_missing, shown, s->per, missing, sizeof missing);
    sum_elements_text(flag_multi, shown, s->per, twice, sizeof twice);
    int32_t times = first_multi >= 0 ? s->count[first_multi] : 0;
    char how[32];
    snprintf(how, sizeof how, times == 2 ? "twice" : "%d times", times);
    if (zeros && !multi) {
        long tail = m; /* a missing tail in[tail .. n): the last block's first elements only */
        while (tail > 0 && s->count[tail - 1] == 0)
            tail--;
        long block = (tail ? tail - 1 : 0) / s->per;
        int is_tail = tail + zeros == m && m == s->n && tail > block * s->per;
        if (is_tail && s->n % s->per != 0)
            check_field(hint, size, "Your sum misses %s: block %ld, which holds %ld elements "
                        "(fewer than its %ld, n being no multiple of it), adds its first %ld "
                        "only. Elements past n must add nothing, and every element before n "
                        "something; a tree over a count that is no power of two loses elements "
                        "at the levels that halve an odd count.", missing, block,
                        s->n - block * s->per, s->per, tail - block * s->per);
        else if (is_tail)
            check_field(hint, size, "Your sum misses %s: block %ld adds its first %ld elements "
                        "only. The tree stops early, or a thread adds fewer of its elements than "
                        "it owns.", missing, block, tail - block * s->per);
        else
            check_field(hint, size, "Your sum misses %s (%ld element%s): %s.", missing, zeros,
                        zeros == 1 ? "" : "s", level_cause(s));
        return 1;
    }
    int shared_by_blocks = multi > 0 && s->adders;
    for (long j = 0; j < m && shared_by_blocks; j++)
        shared_by_blocks = s->count[j] <= 1 || s->adders[j] >= 2;
    if (multi && shared_by_blocks) {
        check_field(hint, size, "Your sum counts %s %s%s, each in the partial sums of two "
                    "blocks or more: the blocks' elements overlap. Block b's %ld elements "
                    "start at in[b * %ld], and no two blocks share one.", twice, how,
                    zeros ? " (and misses others)" : "", s->per, s->per);
        return 1;
    }
    if (multi && !zeros) {
        check_field(hint, size, "Your sum counts %s %s, every other element once: a level adds "
                    "a word twice (%s), or two threads add the same element.", twice, how,
                    s->in_place
                    ? "in[tid + stride] added twice"
                    : "the last warp's smem[tid + 32] added once too often, say");
        return 1;
    }
    check_field(hint, size, "Your sum counts %s %s and misses %s: a thread adds another "
                "thread's element in place of its own, an index off by a stride or a block "
                "(block b's elements start at in[b * %ld]); or %s.", twice, how, missing, s->per,
                level_cause(s));
    return 1;
}
