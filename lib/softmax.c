/* softmax.c — row softmax, numerically safe and mask-aware. */
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

enum { LANES = 16 }; /* independent partial results, so reductions vectorise */

/* max of row (cols); NaN never wins a comparison, so it is left for
 * softmax_masked_row to find. */
static inline float row_max(const float *row, size_t cols)
{
    float lane[LANES];
    for (size_t k = 0; k < LANES; k++)
        lane[k] = -INFINITY;
    size_t j = 0;
    for (; j + LANES <= cols; j += LANES)
        for (size_t k = 0; k < LANES; k++)
            lane[k] = row[j + k] > lane[k] ? row[j + k] : lane[k];
    float max = -INFINITY;
    for (; j < cols; j++)
        max = row[j] > max ? row[j] : max;
    for (size_t k = 0; k < LANES; k++)
        max = lane[k] > max ? lane[k] : max;
    return max;
}

/* row (cols) = exp(row - max); returns the sum of the new values. */
static inline float exp_and_sum(float *row, size_t cols, float max)
{
    float lane[LANES] = {0};
    size_t j = 0;
    for (; j + LANES <= cols; j += LANES)
        for (size_t k = 0; k < LANES; k++) {
            row[j + k] = tf_vexpf(row[j + k] - max);
            lane[k] += row[j + k];
        }
    float sum = 0.0f;
    for (; j < cols; j++) {
        row[j] = tf_vexpf(row[j] - max);
        sum += row[j];
    }
    for (size_t k = 0; k < LANES; k++)
        sum += lane[k];
    return sum;
}

/* (static: the resolver that target_clones makes stays local) */
TF_VECTOR_LOOP static void softmax_rows(float *s, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = s + r * cols; /* (cols) */
        const float max = row_max(row, cols);
        if (max == -INFINITY) {
            softmax_masked_row(row, cols);
            continue;
        }
        const float inv = 1.0f / exp_and_sum(row, cols, max);
        for (size_t j = 0; j < cols; j++)
            row[j] *= inv;
    }
}

void tf_softmax_rows(float *s, size_t rows, size_t cols)
{
    softmax_rows(s, rows, cols);
}
