/* cls_pooler.h — BERT's pooler: tanh(W_p h[CLS] + b_p). */
#ifndef TF_POOLER_H
#define TF_POOLER_H

#include "batch.h"
#include "weights.h"

/* pooled [B, D] = tanh(W_p x[first row of b] + b_p) for each non-empty
 * sequence b, 0 for empty ones. x (N, D); cls, out (B, D) scratch, of which
 * the first n rows are used, n = the non-empty sequences. */
void tf__pooler(float *pooled, float *cls, float *out, const float *x, const tf__weights *w,
                const tf__batch *batch, size_t D);

#endif
