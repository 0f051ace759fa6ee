/* reduce_ref.c - host references of labs 7 and 8; see reduce_ref.h. */
#include "reduce_ref.h"

#include "prng.h"

void reduce_fill(int32_t *x, size_t n, reduce_values v, uint64_t seed)
{
    prng p;
    prng_seed(&p, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = prng_next(&p);
        switch (v) {
        case VALUES_NEGATIVE: x[i] = -1 - (int32_t)(r % 1000); break;
        case VALUES_WRAP: /* near INT_MAX, a quarter near INT_MIN: the sum wraps, often */
            x[i] = (r >> 32) & 3 ? INT32_MAX - (int32_t)(r & 0xffff)
                                 : INT32_MIN + (int32_t)(r & 0xffff);
            break;
        default: x[i] = (int32_t)(r % 2001) - 1000; break;
        }
    }
}

int32_t ref_sum(const int32_t *x, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (uint32_t)x[i];
    return (int32_t)s;
}

void ref_partials(const int32_t *x, size_t n, size_t per_block, int32_t *out, size_t blocks)
{
    for (size_t b = 0; b < blocks; b++) {
        size_t first = b * per_block;
        size_t count = first >= n ? 0 : n - first < per_block ? n - first : per_block;
        out[b] = ref_sum(x + (first < n ? first : 0), count);
    }
}

int32_t ref_sum_partials(const int32_t *p, size_t blocks)
{
    return ref_sum(p, blocks);
}

int ref_shuffle_elems(reduce_exercise ex)
{
    return ex == EXERCISE_XOR_ARRAY ? 128 : 32;
}

void ref_shuffle(reduce_exercise ex, int param, const int32_t *in, int32_t *out)
{
    for (int t = 0; t < 32; t++) {
        int src = t;
        switch (ex) {
        case EXERCISE_BROADCAST: src = param & 31; break;
        case EXERCISE_UP: src = t >= param ? t - param : t; break;
        case EXERCISE_DOWN: src = t + param < 32 ? t + param : t; break;
        case EXERCISE_WRAP: src = (t + param) & 31; break;
        case EXERCISE_XOR: case EXERCISE_XOR_ARRAY: src = (t ^ param) & 31; break;
        default: break;
        }
        if (ex == EXERCISE_XOR_ARRAY)
            for (int k = 0; k < 4; k++)
                out[4 * t + k] = in[4 * src + k];
        else
            out[t] = in[src];
    }
}
