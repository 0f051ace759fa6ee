/* lookup_ref.c - lab 10's lookup reference and its constant-cache model; see lookup_ref.h. */
#include "lookup_ref.h"

#include "prng.h"

void lookup_keys(int32_t *keys, size_t n, int table, uint64_t seed)
{
    prng p;
    prng_seed(&p, seed);
    for (size_t i = 0; i < n; i++)
        keys[i] = (int32_t)(prng_next(&p) % (uint64_t)(table > 0 ? table : 1));
}

void ref_lookup(const int32_t *keys, const float *table, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = table[keys[i]];
}

/* Distinct values among x[0..n), n <= 32. */
static int distinct(const int32_t *x, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && x[j] != x[i])
            j++;
        d += j == i;
    }
    return d;
}

double lookup_distinct_per_warp(const int32_t *keys, size_t n)
{
    double sum = 0;
    size_t groups = 0;
    for (size_t i = 0; i < n; i += 32, groups++)
        sum += distinct(keys + i, n - i < 32 ? n - i : 32);
    return groups ? sum / (double)groups : 0.0;
}
