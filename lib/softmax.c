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

/* (static: the resolver that target_clones makes stays local) */
TF_VECTOR_LOOP static void softmax_rows(float *s, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        float *row = s + r * cols; /* (cols) */
        float max = -INFINITY;
        for (size_t j = 0; j < cols; j++)
            max = row[j] > max ? row[j] : max;
        if (max == -INFINITY) {
            softmax_masked_row(row, cols);
            continue;
        }
        for (size_t j = 0; j < cols; j++)
            row[j] = tf_vexpf(row[j] - max); /* vectorised */
        float sum = 0.0f;
        for (size_t j = 0; j < cols; j++)
            sum += row[j];
        const float inv = 1.0f / sum;
        for (size_t j = 0; j < cols; j++)
            row[j] *= inv;
    }
}

void tf_softmax_rows(float *s, size_t rows, size_t cols)
{
    softmax_rows(s, rows, cols);
}
