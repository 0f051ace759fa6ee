/* tolerance.c - compare a float32 result with the reference; see tolerance.h. */
#include "tolerance.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
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

int tol_compare(const float *got, const float *ref, int rows, int cols, double floor,
                tol_limits lim, tol_report *rep)
{
    memset(rep, 0, sizeof *rep);
    floor = floor > FLT_MIN ? floor : FLT_MIN;
    rep->floor = floor;
    double diff2 = 0.0, ref2 = 0.0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            long i = (long)r * cols + c;
            tol_element e = {i, r, c, ref[i], got[i], element_error(got[i], ref[i], floor)};
            rep->nonfinite += !isfinite(got[i]);
            rep->over += !(e.rel_err <= lim.elem);
            if (e.rel_err > rep->max_rel)
                rep->max_rel = e.rel_err;
            if (e.rel_err > 0.0)
                note_worst(rep, &e);
            double d = (double)got[i] - (double)ref[i];
            diff2 += d * d;
            ref2 += (double)ref[i] * ref[i];
        }
    rep->compared = (long)rows * cols;
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
