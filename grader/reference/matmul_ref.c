/* matmul_ref.c - C = A * B in double, stored as float; see reference.h. */
#include "reference.h"

#include <stddef.h>
#include <stdlib.h>

/* Slow path when no scratch row can be had: one dot product per element. */
static void matmul_dot(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0.0;
            for (int k = 0; k < K; k++)
                sum += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            C[(size_t)i * N + j] = (float)sum;
        }
}

/*
 * Row by row with the k loop outside the j loop, so B is read along its rows:
 * at 1024^3 this is several times faster than dot products down B's columns.
 */
void ref_matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    double *row = malloc((size_t)N * sizeof *row);
    if (row == NULL) {
        matmul_dot(A, B, C, M, N, K);
        return;
    }
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++)
            row[j] = 0.0;
        for (int k = 0; k < K; k++) {
            double a = A[(size_t)i * K + k];
            const float *b = B + (size_t)k * N;
            for (int j = 0; j < N; j++)
                row[j] += a * b[j];
        }
        for (int j = 0; j < N; j++)
            C[(size_t)i * N + j] = (float)row[j];
    }
    free(row);
}
