/* ffn.h — the position-wise feed-forward block, plain or gated:
 *   plain: y = act(x W_up^T + b_up) W_down^T + b_down
 *   gated: y = (act(x W_gate^T + b_gate) * (x W_up^T + b_up)) W_down^T + b_down
 * (GeGLU with GELU, SwiGLU with SiLU), in three steps over a chunk of rows:
 * tf__ffn_in, tf__ffn_gate, tf__ffn_out (layer.c runs them). */
#ifndef TF_FFN_H
#define TF_FFN_H

#include <stddef.h>

#include "schedule.h"
#include "weights.h"

/* The block's shape: D -> F -> D, the activation, gated or not. */
typedef struct tf__ffn_shape {
    size_t D, F;
    int activation; /* tf_activation */
    int gated;
} tf__ffn_shape;

/* Floats per row of the hidden buffer: F, or 2F for a gated block (up |
 * gate side by side). */
static inline size_t tf__ffn_hidden_width(const tf__ffn_shape *f)
{
    return f->gated ? 2 * f->F : f->F;
}

/* hidden (rows, tf__ffn_hidden_width) = x (rows, D) . W_up^T + b_up: for a
 * plain block with the activation applied; for a gated one up | gate, each
 * (rows, F) at row stride 2F, before the gate's activation. */
void tf__ffn_in(const tf__schedule *s, float *hidden, const float *x, const tf__layer_weights *lw,
                size_t rows, const tf__ffn_shape *f);

/* Gated blocks: hidden's up half (rows, F) *= act(gate half), in place (the
 * gate half is left activated). Plain blocks: nothing to do. */
void tf__ffn_gate(const tf__schedule *s, float *hidden, size_t rows, const tf__ffn_shape *f);

/* y (rows, D) = hidden's first F columns . W_down^T + b_down. */
void tf__ffn_out(const tf__schedule *s, float *y, const float *hidden, const tf__layer_weights *lw,
                 size_t rows, const tf__ffn_shape *f);

#endif
