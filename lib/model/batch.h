/* batch.h — a batch of right-padded sequences as packed rows: only real
 * tokens are computed. Sequence b occupies rows row_start[b] ..
 * row_start[b] + lengths[b] - 1 of every (N, ...) buffer. */
#ifndef TF_BATCH_H
#define TF_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

typedef struct tf__batch {
    int32_t B, T;
    int32_t max_len;         /* longest sequence */
    size_t N;                /* real tokens in all, sum of lengths */
    const int32_t *lengths;  /* [B] */
    const size_t *row_start; /* [B] */
} tf__batch;

/* Checks that a batch of B x T tokens fits the int-sized row counts the
 * BLAS takes (B, T >= 1 already checked). */
tf_status tf__check_token_count(int32_t B, int32_t T);

/* Real tokens of sequence b as the (validated) arguments describe it. */
int32_t tf__args_length(const tf_forward_args *a, int32_t b);

/* Fills lengths [B] and row_start [B] from the arguments. */
void tf__batch_fill(int32_t *lengths, size_t *row_start, const tf_forward_args *a);

/* dst [B, T, W] = src (N, W) at the real positions, 0 at padded ones. */
void tf__scatter_rows(float *dst, const float *src, const tf__batch *batch, size_t W);

#endif
