/* conv_ref.c - 1-D and 2-D convolution in double with zero ghost cells; see reference.h. */
#include "parallel.h"
#include "reference.h"

#include <stddef.h>

double ref_conv1d_at(const float *in, const float *mask, int n, int mask_width, int i)
{
    int r = mask_width / 2;
    double sum = 0.0;
    for (int j = 0; j < mask_width; j++) {
        int src = i - r + j;
        if (src >= 0 && src < n) /* ghost cells add nothing */
            sum += (double)in[src] * mask[j];
    }
    return sum;
}

/* Taps that fall outside the image are skipped (ghosts). */
double ref_conv2d_at(const float *in, const float *mask, int width, int height,
                     int mask_width, int x, int y)
{
    int r = mask_width / 2;
    double sum = 0.0;
    for (int i = 0; i < mask_width; i++) {
        int sy = y - r + i;
        if (sy < 0 || sy >= height)
            continue;
        for (int j = 0; j < mask_width; j++) {
            int sx = x - r + j;
            if (sx >= 0 && sx < width)
                sum += (double)in[(size_t)sy * width + sx] * mask[i * mask_width + j];
        }
    }
    return sum;
}

/* A 1-D signal is one row of width n: both shapes share the slices by rows
   (1-D: by outputs, a row of one). */
typedef struct conv_job {
    const float *in, *mask;
    float *out;
    int width, height, mask_width;
} conv_job;

static void conv1d_slice(void *p, long first, long last)
{
    const conv_job *c = p;
    for (long i = first; i < last; i++)
        c->out[i] = (float)ref_conv1d_at(c->in, c->mask, c->width, c->mask_width, (int)i);
}

static void conv2d_rows(void *p, long first, long last)
{
    const conv_job *c = p;
    for (long y = first; y < last; y++)
        for (int x = 0; x < c->width; x++)
            c->out[(size_t)y * c->width + x] = (float)ref_conv2d_at(
                c->in, c->mask, c->width, c->height, c->mask_width, x, (int)y);
}

void ref_conv1d(const float *in, const float *mask, float *out, int n, int mask_width)
{
    conv_job c = {in, mask, out, n, 1, mask_width};
    par_for(n, (double)n * mask_width, conv1d_slice, &c);
}

void ref_conv2d(const float *in, const float *mask, float *out, int width, int height,
                int mask_width)
{
    conv_job c = {in, mask, out, width, height, mask_width};
    par_for(height, (double)width * height * mask_width * mask_width, conv2d_rows, &c);
}
