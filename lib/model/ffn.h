/* ffn.h — the position-wise feed-forward block, plain or gated:
 *   plain: y = act(x W_up^T + b_up) W_down^T + b_down
 *   gated: y = (act(x W_gate^T + b_gate) * (x W_up^T + b_up)) W_down^T + b_down
 * (GeGLU with GELU, SwiGLU with SiLU), in three steps over a chunk of rows:
 * tf_ffn_in, tf_ffn_gate, tf_ffn_out (layer.c runs them). */
#ifndef TF_FFN_H
#define TF_FFN_H

#include <stddef.h>

#include "schedule.h"
#include "weights.h"

/* The block's shape: D -> F -> D, the activation, gated or not. */
typedef struct tf_ffn_shape {
    size_t D, F;
    int activation; /* tf_activation */
    int gated;
} tf_ffn_shape;

/* Floats per row of the hidden buffer: F, or 2F for a gated block (up |
 * gate side by side). */
static inline size_t tf_ffn_hidden_width(const tf_ffn_shape *f)
{
    return f->gated ? 2 * f->F : f->F;
}

/* hidden (rows, tf_ffn_hidden_width) = x (rows, D) . W_up^T + b_up: for a
 * plain block with the activation applied; for a gated one up | gate, each
 * (rows, F) at row stride 2F, before the gate's activation. */
void tf_ffn_in(const tf_schedule *s, float *hidden, const float *x, const tf_layer_weights *lw,
               size_t rows, const tf_ffn_shape *f);

/* Gated blocks: hidden's up half (rows, F) *= act(gate half), in place (the
 * gate half is left activated). Plain blocks: nothing to do. */
void tf_ffn_gate(const tf_schedule *s, float *hidden, size_t rows, const tf_ffn_shape *f);

/* y (rows, D) = hidden's first F columns . W_down^T + b_down. */
void tf_ffn_out(const tf_schedule *s, float *y, const float *hidden, const tf_layer_weights *lw,
                size_t rows, const tf_ffn_shape *f);

#endif
