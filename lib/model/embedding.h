/* embedding.h — token vectors + positional encodings (+ token types), the
 * embedding LayerNorm, and the projection of E-wide embeddings to D. */
#ifndef TF_EMBEDDING_H
#define TF_EMBEDDING_H

#include "batch.h"
#include "trace.h"
#include "weights.h"

/* row (D) = the sinusoidal encoding of position t:
 * row[2i] = sin(t / 10000^(2i/D)), row[2i+1] = cos(t / 10000^(2i/D)). */
void tf_sinusoidal_row(float *row, int64_t t, size_t D);

/* x (N, D) = the embeddings of the batch's real tokens. With an E other
 * than D (tf_embed_projects) they are summed and normalised in embed (N, E),
 * then embed . embed.project^T + bias into x; else embed is unused. tmp
 * (N, E) and pos_row (E) are scratch. */
void tf_embed(float *x, float *embed, float *tmp, float *pos_row, const tf_config *cfg,
              const tf_weights *w, const tf_forward_args *a, const tf_batch *batch,
              tf_tracer *tr);

/* The trace event whose rows x holds after tf_embed: "embed.project",
 * "embed.norm" or "embed.sum". */
const char *tf_embed_last_step(const tf_config *cfg);

#endif
