/* mlm_head.h — the masked-LM prediction head (transformers'
 * *LMPredictionHead / *LMHead): a transform (dense, activation, LayerNorm)
 * on each token's hidden state, then the decoder to the vocabulary (tied to
 * the word embeddings unless the checkpoint has its own) and its bias. The
 * products through cblas_sgemm (linear.h). Shared by fill-mask and SPLADE.
 *
 * Dimensions: T tokens, D = d_model (the hidden states' width), E = the
 * decoder's width (D, but for ELECTRA's generator whose dense maps D to its
 * embedding_size), V = vocabulary rows. */
#ifndef TF_MLM_HEAD_H
#define TF_MLM_HEAD_H

#include <stddef.h>
#include <stdint.h>

#include "dense.h"

typedef struct tf__mlm_head {
    size_t D, E, V;                 /* d_model, the decoder's width, vocabulary rows */
    const float *dense_w, *dense_b; /* transform dense (E, D), (E) or NULL; dense_w NULL:
                                       none (then E == D) */
    tf__dense_activation act;       /* after dense */
    const float *norm_w, *norm_b;   /* LayerNorm (E), (E) or NULL; norm_w NULL: none */
    float norm_eps;
    const float *decoder_w; /* (V, E): the word embeddings when tied */
    const float *decoder_b; /* (V) or NULL */
} tf__mlm_head;

/* logits (T, V) = decoder(norm(act(dense(hidden (T, D))))) + bias;
 * scratch (T, E) (and hidden is left as it is). */
void tf__mlm_head_logits(const tf__mlm_head *h, const float *hidden, size_t T, float *scratch,
                         float *logits);

#endif
