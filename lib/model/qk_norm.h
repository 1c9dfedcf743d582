/* qk_norm.h — LayerNorms on the queries and keys (JinaBERT v2's code
 * variant, jinaai/jina-bert-v2-qk-post-norm modeling_bert.py:
 * JinaBertSelfAttention.layer_norm_q and layer_norm_k,
 * nn.LayerNorm(hidden_size, eps=layer_norm_eps), applied to query(x) and
 * key(x) before transpose_for_scores): each row's D features of Q, and of
 * K, normalised together, not head by head. */
#ifndef TF_QK_NORM_H
#define TF_QK_NORM_H

#include <stddef.h>

#include "schedule.h"
#include "weights.h"

/* In qkv (N, 3D) = Q | K | V: Q (columns 0 .. D) = LN_q(Q) and K (D .. 2D)
 * = LN_k(K), row by row, with lw's q_norm and k_norm; V unchanged. Rows
 * split over s's threads. */
void tf__qk_norm_apply(const tf__schedule *s, float *qkv, const tf__layer_weights *lw, size_t N,
                       size_t D, float eps);

#endif
