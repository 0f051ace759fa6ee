/*
 * blas.h - cuBLAS SGEMM, the speed reference of lab 5, loaded on first use.
 *
 * Linking libcublas costs every grader process about 0.4 s and 200 MB at
 * start-up (its loader work), though only lab 5 needs it: so it is opened
 * with dlopen when a lab 5 speed check first asks for it.
 */
#ifndef SMEMLAB_BLAS_H
#define SMEMLAB_BLAS_H

#include <stddef.h>

/* Load cuBLAS and make its handle. Returns 0, or -1 with what to do in why. */
int blas_load(char *why, size_t why_size);

/* Row-major C = A B (M x K times K x N), float32, on the default stream. */
int blas_sgemm(const float *A, const float *B, float *C, int M, int N, int K);

#endif
