/* ffn.c — D -> F -> D with an activation between, chunked over rows. */
#include "ffn.h"

#include "kernels.h"
#include "linear.h"

void tf_ffn(float *y, float *hidden, size_t chunk, const float *x, const tf_layer_weights *lw,
            size_t N, size_t D, size_t F, int activation)
{
    for (size_t r0 = 0; r0 < N; r0 += chunk) {
        const size_t rows = N - r0 < chunk ? N - r0 : chunk;
        tf_linear(hidden, x + r0 * D, lw->up_w, lw->up_b, rows, F, D); /* (rows, F) */
        tf_activation_apply(hidden, rows * F, activation);
        tf_linear(y + r0 * D, hidden, lw->down_w, lw->down_b, rows, D, F); /* (rows, D) */
    }
}
