/* tolerance.c - compare a float32 result with the reference; see tolerance.h. */
#include "tolerance.h"

#include "parallel.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tol_limits tol_default_limits(void)
{
    tol_limits lim = {TOL_ELEM, TOL_OVERALL};
    return lim;
}

static double max_abs(const float *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = fabs((double)x[i]);
        if (v > m)
            m = v;
    }
    return m;
}

double tol_floor_matmul(const float *A, size_t a_count, const float *B, size_t b_count, int K)
{
    return sqrt((double)K) * max_abs(A, a_count) * max_abs(B, b_count);
}

double tol_floor_conv(const float *in, size_t in_count, const float *mask, int taps)
{
    return sqrt((double)taps) * max_abs(in, in_count) * max_abs(mask, (size_t)taps);
}

/* Keep worst[] sorted by rel_err, largest first; an equal error keeps its earlier place. */
static void note_worst(tol_report *rep, const tol_element *e)
{
    int pos = rep->nworst;
    while (pos > 0 && rep->worst[pos - 1].rel_err < e->rel_err)
        pos--;
    if (pos >= TOL_WORST_MAX)
        return;
    int last = rep->nworst < TOL_WORST_MAX ? rep->nworst : TOL_WORST_MAX - 1;
    memmove(&rep->worst[pos + 1], &rep->worst[pos], (size_t)(last - pos) * sizeof rep->worst[0]);
    rep->worst[pos] = *e;
    if (rep->nworst < TOL_WORST_MAX)
        rep->nworst++;
}

/* Per-element error; +Inf when either side is not finite (NaN must never pass). */
static double element_error(float got, float ref, double floor)
{
    if (!isfinite(got) || !isfinite(ref))
        return INFINITY;
    double denom = fabs((double)ref) > floor ? fabs((double)ref) : floor;
    return fabs((double)got - (double)ref) / denom;
}

/* A block of the comparison: its own counts, sums and worst elements. */
typedef struct tol_block {
    tol_report part;
    double diff2, ref2;
} tol_block;

typedef struct tol_job {
    const float *got, *ref;
    long cols, n;
    double floor;
    tol_limits lim;
    tol_block *blocks;
} tol_job;

/* Elements are compared in fixed blocks, whatever the cores: the sums are
   then added in the same order on every machine. */
#define TOL_BLOCK (1L << 16)

static void compare_block(const tol_job *j, long b, tol_block *out)
{
    tol_report *rep = &out->part;
    long end = (b + 1) * TOL_BLOCK < j->n ? (b + 1) * TOL_BLOCK : j->n;
    memset(out, 0, sizeof *out);
    for (long i = b * TOL_BLOCK; i < end; i++) {
        float got = j->got[i], ref = j->ref[i];
        double err = element_error(got, ref, j->floor);
        rep->nonfinite += !isfinite(got);
        rep->over += !(err <= j->lim.elem);
        if (err > rep->max_rel)
            rep->max_rel = err;
        if (err > 0.0 && (rep->nworst < TOL_WORST_MAX ||
                          err > rep->worst[TOL_WORST_MAX - 1].rel_err)) {
            tol_element e = {i, (int)(i / j->cols), (int)(i % j->cols), ref, got, err};
            note_worst(rep, &e);
        }
        double d = (double)got - (double)ref;
        out->diff2 += d * d;
        out->ref2 += (double)ref * ref;
    }
}

static void compare_blocks(void *p, long first, long last)
{
    tol_job *j = p;
    for (long b = first; b < last; b++)
        compare_block(j, b, &j->blocks[b]);
}

/* Blocks in order: counts and sums add, the worst lists merge (ties keep
   the earlier element, as one pass over the whole would). */
static void merge_block(tol_report *rep, const tol_block *b, double *diff2, double *ref2)
{
    rep->nonfinite += b->part.nonfinite;
    rep->over += b->part.over;
    if (b->part.max_rel > rep->max_rel)
        rep->max_rel = b->part.max_rel;
    for (int w = 0; w < b->part.nworst; w++)
        note_worst(rep, &b->part.worst[w]);
    *diff2 += b->diff2;
    *ref2 += b->ref2;
}

int tol_compare(const float *got, const float *ref, int rows, int cols, double floor,
                tol_limits lim, tol_report *rep)
{
    memset(rep, 0, sizeof *rep);
    floor = floor > FLT_MIN ? floor : FLT_MIN;
    rep->floor = floor;
    rep->compared = (long)rows * cols;
    long n_blocks = (rep->compared + TOL_BLOCK - 1) / TOL_BLOCK;
    tol_block one, *blocks = n_blocks > 1 ? malloc((size_t)n_blocks * sizeof *blocks) : &one;
    tol_job job = {got, ref, cols > 0 ? cols : 1, rep->compared, floor, lim, blocks};
    double diff2 = 0.0, ref2 = 0.0;
    if (blocks == NULL) { /* no memory for the blocks: one at a time, in place */
        for (long b = 0; b < n_blocks; b++) {
            compare_block(&job, b, &one);
            merge_block(rep, &one, &diff2, &ref2);
        }
    } else {
        par_for(n_blocks, 8.0 * (double)rep->compared, compare_blocks, &job);
        for (long b = 0; b < n_blocks; b++)
            merge_block(rep, &blocks[b], &diff2, &ref2);
        if (blocks != &one)
            free(blocks);
    }
    double norm_floor = TOL_NORM_FLOOR * sqrt((double)rep->compared) * floor;
    double denom = sqrt(ref2) > norm_floor ? sqrt(ref2) : norm_floor;
    rep->overall_rel = isfinite(diff2) ? sqrt(diff2) / denom : INFINITY;
    rep->pass = rep->over == 0 && rep->overall_rel <= lim.overall;
    return rep->pass;
}

const char *tol_describe(const tol_report *rep, const tol_limits *lim, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    int n;
    if (rep->over > 0)
        n = snprintf(buf, size, "%ld of %ld elements differ (limit %.0e", rep->over,
                     rep->compared, lim->elem);
    else
        n = snprintf(buf, size, "all %ld elements match (limit %.0e", rep->compared, lim->elem);
    if (n >= 0 && rep->nonfinite > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, ", %ld NaN/Inf", rep->nonfinite);
    if (n >= 0 && rep->nworst > 0 && (size_t)n < size) {
        const tol_element *w = &rep->worst[0];
        n += snprintf(buf + n, size - (size_t)n,
                      "); worst: row %d col %d expected %.9g got %.9g rel err %.2e", w->row,
                      w->col, (double)w->expected, (double)w->got, w->rel_err);
    } else if (n >= 0 && (size_t)n < size) {
        n += snprintf(buf + n, size - (size_t)n, ")");
    }
    if (n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "; overall rel err %.2e (limit %.0e)",
                 rep->overall_rel, lim->overall);
    return buf;
}
