/* matmul_ref.c - C = A * B in double, stored as float; see reference.h. */
#include "reference.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

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
 * Rows first..last row by row with the k loop outside the j loop, so B is read
 * along its rows: at 1024^3 this is several times faster than dot products
 * down B's columns.
 */
typedef struct rows_job {
    const float *A, *B;
    float *C;
    int N, K, first, last;
    int failed;
} rows_job;

static void *matmul_rows(void *p)
{
    rows_job *r = p;
    double *row = malloc((size_t)r->N * sizeof *row);
    if (row == NULL) {
        r->failed = 1;
        return NULL;
    }
    for (int i = r->first; i < r->last; i++) {
        for (int j = 0; j < r->N; j++)
            row[j] = 0.0;
        for (int k = 0; k < r->K; k++) {
            double a = r->A[(size_t)i * r->K + k];
            const float *b = r->B + (size_t)k * r->N;
            for (int j = 0; j < r->N; j++)
                row[j] += a * b[j];
        }
        for (int j = 0; j < r->N; j++)
            r->C[(size_t)i * r->N + j] = (float)row[j];
    }
    free(row);
    return NULL;
}

/* Large products are shared among the machine's cores by rows: each element is
   summed in the same order whatever the split, so the result is the same. */
#define REF_MAX_THREADS 16
#define REF_PARALLEL_WORK (1L << 24) /* multiply-adds below which one thread is enough */

void ref_matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = (long)M * N * K < REF_PARALLEL_WORK || cores < 2 ? 1
            : cores > REF_MAX_THREADS ? REF_MAX_THREADS : (int)cores;
    n = n > M ? (M > 0 ? M : 1) : n;
    rows_job jobs[REF_MAX_THREADS];
    pthread_t tid[REF_MAX_THREADS];
    int started[REF_MAX_THREADS] = {0};
    for (int t = 0; t < n; t++) {
        jobs[t] = (rows_job){A, B, C, N, K, (int)((long)M * t / n), (int)((long)M * (t + 1) / n), 0};
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, matmul_rows, &jobs[t]) == 0;
    }
    matmul_rows(&jobs[0]);
    int failed = jobs[0].failed;
    for (int t = 1; t < n; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            matmul_rows(&jobs[t]); /* no thread to be had: this one does the rows */
        failed |= jobs[t].failed;
    }
    if (failed)
        matmul_dot(A, B, C, M, N, K);
}
