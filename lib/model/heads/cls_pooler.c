/* cls_pooler.c — the [CLS] row of each sequence through a tanh layer. */
#include "cls_pooler.h"

#include <math.h>
#include <string.h>

#include "linear.h"

void tf__pooler(float *pooled, float *cls, float *out, const float *x, const tf__weights *w,
                const tf__batch *batch, size_t D)
{
    size_t n = 0; /* non-empty sequences, gathered in order into cls (n, D) */
    for (int32_t b = 0; b < batch->B; b++)
        if (batch->lengths[b] > 0)
            memcpy(cls + n++ * D, x + batch->row_start[b] * D, D * sizeof *cls);
    tf__linear(out, cls, w->pooler_w, w->pooler_b, n, D, D); /* (n, D) */
    for (size_t i = 0; i < n * D; i++)
        out[i] = tanhf(out[i]);
    n = 0;
    for (int32_t b = 0; b < batch->B; b++) {
        float *dst = pooled + (size_t)b * D; /* (D) */
        if (batch->lengths[b] > 0)
            memcpy(dst, out + n++ * D, D * sizeof *dst);
        else
            memset(dst, 0, D * sizeof *dst);
    }
}
