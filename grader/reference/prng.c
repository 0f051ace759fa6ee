/* prng.c - splitmix64 and uniform floats; see prng.h. */
#include "prng.h"

#include "parallel.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#define PRNG_GAMMA UINT64_C(0x9E3779B97F4A7C15) /* the state's step */

void prng_seed(prng *p, uint64_t seed)
{
    p->state = seed;
}

/* Constants from Steele, Lea and Flood, "Fast splittable PRNGs" (2014). */
uint64_t prng_next(prng *p)
{
    uint64_t z = (p->state += PRNG_GAMMA);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Top 24 bits: an integer in [0, 2^24), scaled to [0, 2) and shifted; all exact. */
float prng_uniform(prng *p)
{
    uint32_t bits = (uint32_t)(prng_next(p) >> 40);
    return (float)bits * (1.0f / 8388608.0f) - 1.0f;
}

typedef struct fill_job {
    float *x;
    uint64_t seed;
} fill_job;

/* The state only ever grows by PRNG_GAMMA: value i's generator is seed + i * gamma,
   so a slice starts where one generator would be after `first` values. */
static void fill_slice(void *ctx, long first, long last)
{
    const fill_job *f = ctx;
    prng p;
    prng_seed(&p, f->seed + (uint64_t)first * PRNG_GAMMA);
    for (long i = first; i < last; i++)
        f->x[i] = prng_uniform(&p);
}

void prng_fill(float *x, size_t n, uint64_t seed)
{
    fill_job f = {x, seed};
    par_for((long)n, 8.0 * (double)n, fill_slice, &f);
}

/* Base 10 unless 0x: a leading zero must not switch to octal as strtoull's base 0 would. */
int prng_parse_seed(const char *text, uint64_t *out)
{
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return -1;
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (hex && !isxdigit((unsigned char)text[2]))
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}
