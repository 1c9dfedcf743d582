/* layernorm.c — LayerNorm over the last dimension, two-pass in double so
 * that a row with a large mean and a tiny spread keeps its precision. */
#include <math.h>

#include "kernels.h"

enum { LANES = 8 }; /* independent partial sums: no long chain of dependent adds */

/* sum of (x - shift)^power over x (D), power 1 or 2, in double */
static double row_moment(const float *x, size_t D, double shift, int power)
{
    double lane[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= D; i += LANES)
        for (size_t k = 0; k < LANES; k++) {
            const double d = (double)x[i + k] - shift;
            lane[k] += power == 1 ? d : d * d;
        }
    double sum = 0.0;
    for (; i < D; i++) {
        const double d = (double)x[i] - shift;
        sum += power == 1 ? d : d * d;
    }
    for (size_t k = 0; k < LANES; k++)
        sum += lane[k];
    return sum;
}

static void layernorm_row(float *out, const float *x, const float *w, const float *b, size_t D,
                          float eps)
{
    const double mean = row_moment(x, D, 0.0, 1) / (double)D;
    const double rstd = 1.0 / sqrt(row_moment(x, D, mean, 2) / (double)D + (double)eps);
    if (b) {
        for (size_t i = 0; i < D; i++)
            out[i] = (float)(((double)x[i] - mean) * rstd) * w[i] + b[i];
    } else {
        for (size_t i = 0; i < D; i++)
            out[i] = (float)(((double)x[i] - mean) * rstd) * w[i];
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

void tf_mul(float *x, const float *factor, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] *= factor[i];
}
