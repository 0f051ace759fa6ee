/*
 * reference.h - host reference results for labs 5 and 6 (pure C11, no CUDA).
 *
 * Every sum is accumulated in double and rounded to float once at the end,
 * so the reference is as close to the exact result as a float can be; the
 * grader compares a lab's float32 result with it through tolerance.h.
 */
#ifndef SMEMLAB_REFERENCE_H
#define SMEMLAB_REFERENCE_H

/* C = A * B, row-major: A is M x K, B is K x N, C is M x N. */
void ref_matmul(const float *A, const float *B, float *C, int M, int N, int K);

/*
 * 1-D convolution as the labs define it (a correlation, the mask is not
 * flipped): out[i] = sum_j in[i - r + j] * mask[j], j = 0 .. mask_width-1,
 * r = mask_width / 2, and in[] reads as 0 outside [0, n) (ghost cells).
 */
void ref_conv1d(const float *in, const float *mask, float *out, int n, int mask_width);

/* One output of ref_conv1d, unrounded: for checking samples of a large result. */
double ref_conv1d_at(const float *in, const float *mask, int n, int mask_width, int i);

/*
 * 2-D convolution on a row-major width x height image (pixel (x, y) at
 * y * width + x) with a row-major mask_width x mask_width mask:
 * out(x, y) = sum_{i,j} in(x - r + j, y - r + i) * mask[i * mask_width + j],
 * pixels outside the image read as 0.
 */
void ref_conv2d(const float *in, const float *mask, float *out, int width, int height,
                int mask_width);

/* One output pixel (x, y) of ref_conv2d, unrounded. */
double ref_conv2d_at(const float *in, const float *mask, int width, int height, int mask_width,
                     int x, int y);

#endif /* SMEMLAB_REFERENCE_H */
