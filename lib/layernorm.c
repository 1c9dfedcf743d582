/* layernorm.c — LayerNorm over the last dimension, two-pass in double so
 * that a row with a large mean and a tiny spread keeps its precision. */
#include <math.h>

#include "kernels.h"

static void layernorm_row(float *out, const float *x, const float *w, const float *b, size_t D,
                          float eps)
{
    double sum = 0.0;
    for (size_t i = 0; i < D; i++)
        sum += x[i];
    const double mean = sum / (double)D;
    double sq = 0.0;
    for (size_t i = 0; i < D; i++) {
        const double d = (double)x[i] - mean;
        sq += d * d;
    }
    const double rstd = 1.0 / sqrt(sq / (double)D + (double)eps);
    for (size_t i = 0; i < D; i++) {
        const float normed = (float)(((double)x[i] - mean) * rstd);
        out[i] = b ? normed * w[i] + b[i] : normed * w[i];
    }
}

void tf_layernorm_rows(float *out, const float *x, const float *w, const float *b, size_t rows,
                       size_t D, float eps)
{
    for (size_t r = 0; r < rows; r++)
        layernorm_row(out + r * D, x + r * D, w, b, D, eps);
}

void tf_add_layernorm_rows(float *x, const float *delta, const float *w, const float *b,
                           size_t rows, size_t D, float eps)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * D; /* (D) */
        tf_add(row, delta + r * D, D);
        layernorm_row(row, row, w, b, D, eps);
    }
}

void tf_add(float *x, const float *delta, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += delta[i];
}
