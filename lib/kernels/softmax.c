/* softmax.c — row softmax, numerically safe and mask-aware, on vectors
 * (compiled once per kernel build: see kernels.h). */
#include <math.h>
#include <string.h>

#include "kernels.h"
#include "vecmath.h"

/* A row with no finite maximum: all -inf (fully masked) gives zeros; if a
 * NaN hid among the -inf, the row is NaN so it is not silently dropped. */
static void softmax_masked_row(float *row, size_t cols)
{
    for (size_t j = 0; j < cols; j++) {
        if (isnan(row[j])) {
            for (size_t k = 0; k < cols; k++)
                row[k] = NAN;
            return;
        }
    }
    memset(row, 0, cols * sizeof *row);
}

/* max of row (cols); NaN never wins a comparison, so it is left for
 * softmax_masked_row (or exp) to find. Two accumulators: independent
 * chains. */
static float row_max(const float *row, size_t cols)
{
    tf__vf max0 = tf__vf_splat(-INFINITY), max1 = max0;
    size_t j = 0;
    for (; j + 2 * TF_VW <= cols; j += 2 * TF_VW) {
        max0 = tf__vf_max(max0, tf__vf_load(row + j));
        max1 = tf__vf_max(max1, tf__vf_load(row + j + TF_VW));
    }
    for (; j + TF_VW <= cols; j += TF_VW)
        max0 = tf__vf_max(max0, tf__vf_load(row + j));
    if (j < cols)
        max1 = tf__vf_max(max1, tf__vf_load_part(row + j, cols - j, -INFINITY));
    return tf__vf_max_lane(tf__vf_max(max0, max1));
}

/* row (cols) = exp(row - max); returns the sum of the new values. */
static float exp_and_sum(float *row, size_t cols, float max)
{
    const tf__vf shift = tf__vf_splat(max);
    tf__vf sum0 = tf__vf_splat(0.0f), sum1 = sum0;
    size_t j = 0;
    for (; j + 2 * TF_VW <= cols; j += 2 * TF_VW) {
        const tf__vf e0 = tf__vf_exp(tf__vf_load(row + j) - shift);
        const tf__vf e1 = tf__vf_exp(tf__vf_load(row + j + TF_VW) - shift);
        tf__vf_store(row + j, e0);
        tf__vf_store(row + j + TF_VW, e1);
        sum0 += e0;
        sum1 += e1;
    }
    for (; j + TF_VW <= cols; j += TF_VW) {
        const tf__vf e = tf__vf_exp(tf__vf_load(row + j) - shift);
        tf__vf_store(row + j, e);
        sum0 += e;
    }
    if (j < cols) { /* the lanes past the end hold -inf: exp gives 0 */
        const tf__vf e = tf__vf_exp(tf__vf_load_part(row + j, cols - j, -INFINITY) - shift);
        tf__vf_store_part(row + j, e, cols - j);
        sum1 += e;
    }
    return tf__vf_sum_lanes(sum0 + sum1);
}

/* row (cols) *= factor */
static void scale_row(float *row, size_t cols, float factor)
{
    const tf__vf f = tf__vf_splat(factor);
    size_t j = 0;
    for (; j + TF_VW <= cols; j += TF_VW)
        tf__vf_store(row + j, tf__vf_load(row + j) * f);
    for (; j < cols; j++)
        row[j] *= factor;
}

void TF_KERNEL(tf__softmax_rows)(float *s, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = s + r * cols; /* (cols) */
        const float max = row_max(row, cols);
        if (max == -INFINITY) {
            softmax_masked_row(row, cols);
            continue;
        }
        scale_row(row, cols, 1.0f / exp_and_sum(row, cols, max));
    }
}
