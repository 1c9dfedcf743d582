/* embedding.h — token vectors + positional encodings (+ token types), and
 * the embedding LayerNorm. */
#ifndef TF_EMBEDDING_H
#define TF_EMBEDDING_H

#include "batch.h"
#include "trace.h"
#include "weights.h"

/* row (D) = the sinusoidal encoding of position t:
 * row[2i] = sin(t / 10000^(2i/D)), row[2i+1] = cos(t / 10000^(2i/D)). */
void tf_sinusoidal_row(float *row, int64_t t, size_t D);

/* x (N, D) = the embeddings of the batch's real tokens. tmp (N, D) and
 * pos_row (D) are scratch. */
void tf_embed(float *x, float *tmp, float *pos_row, const tf_config *cfg, const tf_weights *w,
              const tf_forward_args *a, const tf_batch *batch, tf_tracer *tr);

#endif
