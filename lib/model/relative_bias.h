/* relative_bias.h — the relative position bias of MPNet (and T5): each
 * distance j - i between a query i and a key j falls in a bucket
 * (transformers' models/mpnet/modeling_mpnet.py,
 * MPNetEncoder.relative_position_bucket, bidirectional), and each bucket
 * holds one bias per head in an (R, H) table that every layer shares
 * (MPNetEncoder.relative_attention_bias; compute_position_bias). Attention
 * adds a head's bias for j - i to score (i, j) inside each task
 * (attention.c), from the per-call table below: never a [T, T] tensor. */
#ifndef TF_RELATIVE_BIAS_H
#define TF_RELATIVE_BIAS_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* The bucket 0 .. R - 1 of relative position j - i in a validated config
 * with relative_buckets R: keys after the query (j > i) in the upper half;
 * in each half, distance n = |j - i| below E = R/4 its own bucket, larger
 * ones E + floor(ln(n / E) / ln(M / E) * (R/2 - E)), at most R/2 - 1, in
 * float32 as upstream computes it. */
int32_t tf__relative_bucket(int64_t relative, const tf_config *cfg);

/* table (H, 2 max_len - 1): table[h, d + max_len - 1] = weight[bucket(d), h]
 * for d = j - i in -(max_len - 1) .. max_len - 1; weight (R, H). */
void tf__relative_bias_table(float *table, const float *weight, const tf_config *cfg,
                             size_t max_len);

#endif
