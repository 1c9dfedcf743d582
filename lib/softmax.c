/* softmax.c — row softmax, numerically safe and mask-aware. */
#include <math.h>
#include <string.h>

#include "kernels.h"

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

void tf_softmax_rows(float *s, size_t rows, size_t cols)
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
        float sum = 0.0f;
        for (size_t j = 0; j < cols; j++) {
            row[j] = expf(row[j] - max);
            sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (size_t j = 0; j < cols; j++)
            row[j] *= inv;
    }
}
