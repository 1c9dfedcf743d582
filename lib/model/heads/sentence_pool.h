/* sentence_pool.h — sentence vectors from hidden states: the pooling modes
 * of sentence-transformers' Pooling module, and L2 normalisation. */
#ifndef TF_SENTENCE_POOL_H
#define TF_SENTENCE_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "names.h"

/* The tf_pooling modes in the order Pooling.py concatenates them (and names
 * them in its config): cls, max, mean, mean_sqrt_len_tokens, weightedmean,
 * lasttoken. */
extern const int32_t tf__pooling_order[TF_POOLING_COUNT];

/* out (B, ld_out), columns 0..D-1 = `pooling` (a tf_pooling) of seq
 * [B, T, D] over the tokens first[b] <= t < lengths[b] (first NULL: from
 * 0), as sentence-transformers computes it (its Pooling.forward): a token
 * outside them counts for nothing; CLS is token 0 always; a sequence with
 * no such token gives zeros (max: -1e9, the value it gives them). */
void tf__pool_mode(float *out, size_t ld_out, const float *seq, const int32_t *lengths,
                   const int32_t *first, size_t B, size_t T, size_t D, int pooling);

/* Each row of x (n, D) scaled to unit L2 norm: x / max(|x|, 1e-12), as
 * torch.nn.functional.normalize (a zero row stays zero). */
void tf__l2_normalize_rows(float *x, size_t n, size_t D);

/* Each row of x (n, D) through a layer norm with neither weight nor bias,
 * (x - mean) / sqrt(var + eps) with the biased variance, in double: as
 * torch.nn.functional.layer_norm(x, (D,), eps=eps), the Matryoshka step of
 * nomic-embed-text-v1.5 (tf_pipeline_args.dimensions_layer_norm). */
void tf__layer_norm_vectors(float *x, size_t n, size_t D, double eps);

#endif
