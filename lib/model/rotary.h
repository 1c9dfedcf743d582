/* rotary.h — rotary position embedding (RoPE) of each head's Q and K, in
 * place in the QKV matrix, from a table of cos / sin per position. Follows
 * the modeling code of the families that use it: pairs (i, i + r/2)
 * ("rotate_half": transformers' apply_rotary_pos_emb, ModernBERT, GTE);
 * pairs (2i, 2i + 1) when interleaved (nomic's apply_rotary_emb with
 * interleaved=True); only the first r dimensions of each head rotate. */
#ifndef TF_ROTARY_H
#define TF_ROTARY_H

#include <stddef.h>

#include "batch.h"
#include "schedule.h"
#include "tfenc.h"

/* r: the rotated dimensions of each head. */
size_t tf__rotary_dim(const tf_config *cfg);

/* theta of a global (local = 0) or local layer in a call whose longest
 * sequence has max_len tokens: rotary_base (or rotary_base_local), with
 * NTK scaling (static, or dynamic past rotary_ntk_positions). */
double tf__rotary_theta(const tf_config *cfg, int local, int32_t max_len);

/* table (max_len, r): row t holds cos(t w_i) for i < r/2, then sin(t w_i),
 * w_i = theta^(-2i / r) / f with f the config's rotary_linear_factor (1
 * without one), computed in double. */
void tf__rotary_table(float *table, const tf_config *cfg, double theta, int32_t max_len);

/* Rotates Q and K of every head of qkv (N, 3D) at each token's position
 * (0 .. len - 1 within its sequence) by table (max_len, r); rows split over
 * s's threads. */
void tf__rotary_apply(const tf__schedule *s, float *qkv, const float *table, const tf__batch *batch,
                      const tf_config *cfg);

#endif
