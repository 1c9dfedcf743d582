/* layernorm.c — LayerNorm over the last dimension, two-pass in double so
 * that a row with a large mean and a tiny spread keeps its precision.
 * Compiled once per kernel build (kernels.h), as plain C the compiler
 * vectorises to the build's width (8 doubles a vector with AVX-512); the
 * AVX2 and AVX-512 builds fuse multiply-adds, so their last bits may differ
 * from the baseline's (a process runs one build: tf__kernel_build_chosen). */
#include <math.h>

#include "kernels.h"

enum {
    LANES = 32
}; /* independent partial sums: four AVX-512 vectors of doubles, so the
                        adds of one row do not wait on each other */

/* sum of x (D) in double */
static double row_sum(const float *x, size_t D)
{
    double lane[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= D; i += LANES)
        for (size_t k = 0; k < LANES; k++)
            lane[k] += (double)x[i + k];
    double sum = 0.0;
    for (; i < D; i++)
        sum += (double)x[i];
    for (size_t k = 0; k < LANES; k++)
        sum += lane[k];
    return sum;
}

/* sum of (x - mean)^2 over x (D) in double */
static double row_square_deviation(const float *x, size_t D, double mean)
{
    double lane[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= D; i += LANES)
        for (size_t k = 0; k < LANES; k++) {
            const double d = (double)x[i + k] - mean;
            lane[k] += d * d;
        }
    double sum = 0.0;
    for (; i < D; i++) {
        const double d = (double)x[i] - mean;
        sum += d * d;
    }
    for (size_t k = 0; k < LANES; k++)
        sum += lane[k];
    return sum;
}

static void layernorm_row(float *out, const float *x, const float *w, const float *b, size_t D,
                          float eps)
{
    const double mean = row_sum(x, D) / (double)D;
    const double rstd = 1.0 / sqrt(row_square_deviation(x, D, mean) / (double)D + (double)eps);
    if (b) {
        for (size_t i = 0; i < D; i++)
            out[i] = (float)(((double)x[i] - mean) * rstd) * w[i] + b[i];
    } else {
        for (size_t i = 0; i < D; i++)
            out[i] = (float)(((double)x[i] - mean) * rstd) * w[i];
    }
}

void TF_KERNEL(tf__layernorm_rows)(float *out, const float *x, const float *w, const float *b,
                                   size_t rows, size_t D, float eps)
{
    for (size_t r = 0; r < rows; r++)
        layernorm_row(out + r * D, x + r * D, w, b, D, eps);
}

void TF_KERNEL(tf__add_layernorm_rows)(float *x, const float *delta, const float *w, const float *b,
                                       size_t rows, size_t D, float eps)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * D; /* (D) */
        for (size_t i = 0; i < D; i++)
            row[i] += delta[r * D + i];
        layernorm_row(row, row, w, b, D, eps);
    }
}
