/*
 * tolerance.h - is a float32 result close enough to the double reference?
 *
 * Two tests, both must pass:
 *
 * 1. Per element: rel = |got - ref| / max(|ref|, floor) <= TOL_ELEM.
 *    A plain relative error explodes where the exact result happens to be
 *    near 0 (the sum of K random products cancels now and then), so the
 *    denominator never drops below a floor: the size an element of this
 *    computation typically has. For a K-term dot product of A and B that is
 *    sqrt(K) * max|A| * max|B| (tol_floor_matmul); for a convolution with T
 *    taps, sqrt(T) * max|in| * max|mask| (tol_floor_conv).
 *
 * 2. Overall: ||got - ref||_2 / max(||ref||_2, TOL_NORM_FLOOR * sqrt(n) * floor)
 *    <= TOL_OVERALL. This catches small errors everywhere (lower precision
 *    math) that no single element shows. The same floor, at a tenth, keeps a
 *    tiny all-cancelling result from turning rounding into a failure; for
 *    ordinary data ||ref||_2 is the larger term and this is a true relative
 *    error.
 *
 * NaN and Inf in the result never pass, nor does a finite result where the
 * reference is not finite.
 *
 * Why these numbers (u = 2^-24 ~ 6.0e-8, float32 unit roundoff):
 *  - Float32 accumulation of K products of values in [-1, 1), in any order
 *    (sequential, tiled, FMA or not), has an rms error of about
 *    u * K / sqrt(54); divided by the floor sqrt(K) that is ~ 0.14 u sqrt(K),
 *    5e-7 at K = 4096, and the worst of 16 million elements is a few times
 *    that. TOL_ELEM = 1e-3 leaves a margin of over 100 and still flags one
 *    missing or doubled product at K up to a few thousand (|a b| ~ 0.25,
 *    0.25 / sqrt(4096) ~ 4e-3) and any wrong tile, halo or ghost cell.
 *  - The overall error of float32 accumulation is ~ 0.4 u sqrt(K): 1.6e-6 at
 *    K = 4096, 3.2e-6 at K = 16384. TOL_OVERALL = 1e-5 accepts it for every
 *    size the grader uses, while TF32 tensor-core math (u = 2^-11, overall
 *    ~ 3e-4) and half precision fail: the labs are about float32.
 */
#ifndef SMEMLAB_TOLERANCE_H
#define SMEMLAB_TOLERANCE_H

#include <stddef.h>

#define TOL_ELEM 1e-3
#define TOL_OVERALL 1e-5
#define TOL_NORM_FLOOR 0.1
#define TOL_WORST_MAX 8

typedef struct tol_limits {
    double elem;    /* per-element limit on rel */
    double overall; /* limit on the overall relative error */
} tol_limits;

/* {TOL_ELEM, TOL_OVERALL}. */
tol_limits tol_default_limits(void);

/* One element of the result, as reported. */
typedef struct tol_element {
    long index;      /* row * cols + col */
    int row, col;    /* 1-D results: row 0 */
    float expected;  /* the reference */
    float got;       /* the lab's value */
    double rel_err;  /* per-element error as defined above; +Inf for NaN/Inf */
} tol_element;

typedef struct tol_report {
    long compared;     /* elements compared */
    long over;         /* elements over the per-element limit, NaN/Inf included */
    long nonfinite;    /* elements where the result is NaN or Inf */
    double max_rel;    /* the worst per-element error */
    double overall_rel;/* the overall relative error; +Inf if any element is not finite */
    double floor;      /* the floor that was used */
    int nworst;        /* entries used in worst[] */
    tol_element worst[TOL_WORST_MAX]; /* the worst elements, worst first, ties by position */
    int pass;          /* 1: both tests passed */
} tol_report;

/* sqrt(K) * max|A| * max|B|: the floor for a K-term dot product. */
double tol_floor_matmul(const float *A, size_t a_count, const float *B, size_t b_count, int K);

/* sqrt(taps) * max|in| * max|mask|: the floor for a convolution with `taps` mask entries. */
double tol_floor_conv(const float *in, size_t in_count, const float *mask, int taps);

/*
 * Compare got with ref, both rows x cols row-major (1-D: rows = 1), with the
 * given floor (values below FLT_MIN count as FLT_MIN, so an all-zero
 * reference still demands an all-zero result). Fills *rep and returns
 * rep->pass.
 */
int tol_compare(const float *got, const float *ref, int rows, int cols, double floor,
                tol_limits lim, tol_report *rep);

/*
 * One line for the user, written into buf (always terminated), e.g.
 * "3 of 3551 elements differ (limit 1e-03); worst: row 2 col 7 expected
 * 1.25 got 0.5 rel err 6.0e-01; overall rel err 2.1e-04 (limit 1e-05)".
 * A passing report reads "all 3551 elements match; ...". Returns buf.
 */
const char *tol_describe(const tol_report *rep, const tol_limits *lim, char *buf, size_t size);

#endif /* SMEMLAB_TOLERANCE_H */
