/* embedding.h — token vectors + positional encodings (+ token types), the
 * embedding LayerNorm, and the projection of E-wide embeddings to D. */
#ifndef TF_EMBEDDING_H
#define TF_EMBEDDING_H

#include "observe.h"
#include "run.h"

/* row (D) = the sinusoidal encoding of position t:
 * row[2i] = sin(t / 10000^(2i/D)), row[2i+1] = cos(t / 10000^(2i/D)). */
void tf__sinusoidal_row(float *row, int64_t t, size_t D);

/* run->s.x (N, D) = the embeddings of the batch's real tokens. With an E
 * other than D (tf__embed_projects) they are summed and normalised in s.embed
 * (N, E), then s.embed . embed.project^T + bias into s.x. s.tmp (N, E) and
 * s.pos_row (E) are scratch. */
void tf__embed(tf__run *run);

/* out (T, E) = the encodings of positions 0..T-1 as the embedding adds them,
 * sinusoidal or learned (with a position_offset O: positions O..O+T-1, those
 * of tokens that are not padding), E = tf__embed_width. */
void tf__embed_positions(float *out, const tf_config *cfg, const tf__weights *w, size_t T);

/* The step whose rows s.x holds after tf__embed: TF_STEP_EMBED_PROJECT,
 * _NORM or _SUM. */
tf__step tf__embed_last_step(const tf_config *cfg);

#endif
