/*
 * lookup_ref.h - host reference of lab 10's per-lane lookup (pure C11, no CUDA),
 * and the constant cache's model of it. The stencil's reference is ref_conv1d
 * (reference.h) with 2 RADIUS + 1 taps: a 9-point stencil is a 1-D convolution.
 */
#ifndef SMEMLAB_LOOKUP_REF_H
#define SMEMLAB_LOOKUP_REF_H

#include <stddef.h>
#include <stdint.h>

/* keys[0..n): uniform in [0, table), drawn from seed (table >= 1). */
void lookup_keys(int32_t *keys, size_t n, int table, uint64_t seed);

/* out[i] = table[keys[i]]. */
void ref_lookup(const int32_t *keys, const float *table, float *out, size_t n);

/*
 * The constant cache's passes a warp request of the lookup needs: the distinct
 * keys among 32 lanes, averaged over the groups of 32 consecutive keys (the
 * last group: what is left). 32 keys drawn uniformly from T give about
 * T (1 - (1 - 1/T)^32): 30.2 for T = 256. 0 for n = 0.
 */
double lookup_distinct_per_warp(const int32_t *keys, size_t n);

#endif
