/* ffn.c — D -> F -> D with an activation between, chunked over rows; each
 * projection in column blocks on the call's threads. */
#include "ffn.h"

#include "linear.h"

void tf_ffn(const tf_schedule *s, float *y, float *hidden, size_t chunk, const float *x,
            const tf_layer_weights *lw, size_t N, size_t D, size_t F, int activation)
{
    for (size_t r0 = 0; r0 < N; r0 += chunk) {
        const size_t rows = N - r0 < chunk ? N - r0 : chunk;
        /* hidden (rows, F) = act(x . W_up^T + b_up), the activation inside each block */
        tf_linear_split(s, hidden, x + r0 * D, lw->up_w, lw->up_b, rows, F, D, activation);
        tf_linear_split(s, y + r0 * D, hidden, lw->down_w, lw->down_b, rows, D, F,
                        TF_LINEAR_NO_ACTIVATION); /* (rows, D) */
    }
}
