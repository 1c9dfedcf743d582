/* layer.h — one encoder layer. */
#ifndef TF_LAYER_H
#define TF_LAYER_H

#include "run.h"

/* What every layer of a call shares, computed once: the rotary tables, the
 * ALiBi slopes and the relative bias of each head per distance (into
 * run->s, the slopes and the biases also into run->mask). */
void tf__layer_prepare(tf__run *run);

/* run->s.x (N, D) = layer l applied to run->s.x. attn_weights (B, H, T, T)
 * receives the softmax weights, or is NULL. */
void tf__layer_forward(tf__run *run, int32_t l, float *attn_weights);

#endif
