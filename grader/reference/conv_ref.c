/* conv_ref.c - 1-D and 2-D convolution in double with zero ghost cells; see reference.h. */
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

void ref_conv1d(const float *in, const float *mask, float *out, int n, int mask_width)
{
    for (int i = 0; i < n; i++)
        out[i] = (float)ref_conv1d_at(in, mask, n, mask_width, i);
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

void ref_conv2d(const float *in, const float *mask, float *out, int width, int height,
                int mask_width)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            out[(size_t)y * width + x] =
                (float)ref_conv2d_at(in, mask, width, height, mask_width, x, y);
}
