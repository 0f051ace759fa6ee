/* matmul_ref.c - C = A * B in double, stored as float; see reference.h. */
#include "parallel.h"
#include "reference.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct matmul_job {
    const float *A, *B;
    float *C;
    int N, K;
} matmul_job;

/* Rows first..last by dot products: the slow path when no scratch row can be had. */
static void matmul_dot(const matmul_job *m, long first, long last)
{
    for (long i = first; i < last; i++)
        for (int j = 0; j < m->N; j++) {
            double sum = 0.0;
            for (int k = 0; k < m->K; k++)
                sum += (double)m->A[(size_t)i * m->K + k] * m->B[(size_t)k * m->N + j];
            m->C[(size_t)i * m->N + j] = (float)sum;
        }
}

/*
 * Rows first..last row by row with the k loop outside the j loop, so B is read
 * along its rows: at 1024^3 this is several times faster than dot products
 * down B's columns. Each element is summed in the same order either way.
 */
static void matmul_rows(void *p, long first, long last)
{
    const matmul_job *m = p;
    double *row = malloc((size_t)m->N * sizeof *row);
    if (row == NULL) {
        matmul_dot(m, first, last);
        return;
    }
    for (long i = first; i < last; i++) {
        for (int j = 0; j < m->N; j++)
            row[j] = 0.0;
        for (int k = 0; k < m->K; k++) {
            double a = m->A[(size_t)i * m->K + k];
            const float *b = m->B + (size_t)k * m->N;
            for (int j = 0; j < m->N; j++)
                row[j] += a * b[j];
        }
        for (int j = 0; j < m->N; j++)
            m->C[(size_t)i * m->N + j] = (float)row[j];
    }
    free(row);
}

void ref_matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    matmul_job m = {A, B, C, N, K};
    par_for(M, (double)M * N * K, matmul_rows, &m);
}
