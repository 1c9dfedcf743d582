/* attention.h — multi-head scaled dot-product attention over packed rows. */
#ifndef TF_ATTENTION_H
#define TF_ATTENTION_H

#include "batch.h"
#include "schedule.h"

/* What the scores get besides Q K^T / sqrt(d_k). */
typedef struct tf__attn_mask {
    int causal;            /* query t sees keys 0..t */
    const float *additive; /* (T, T), or (B, T, T) when batched; or NULL */
    int additive_batched;
    size_t half_window;         /* > 0: a local layer's; query i sees keys |i - j| <=
                                 half_window only, and only those are computed */
    const float *alibi_slopes;  /* (H), or NULL: score (i, j) of head h -= m_h |i - j| */
    const float *relative_bias; /* (H, 2 relative_len - 1), or NULL: score (i, j) of head h
                                  += relative_bias[h, j - i + relative_len - 1] */
    size_t relative_len;        /* the call's longest sequence */
} tf__attn_mask;

/* Query rows per block of a local layer: with the window's keys, a block
 * computes (64, 64 + 2 half_window) scores, so a local layer costs
 * O(len (64 + 2 half_window)), not O(len^2). */
#define TF_LOCAL_BLOCK_ROWS 64

/* For each sequence b and head h (d_k = D / H):
 *   ctx[rows_b, h*d_k : (h+1)*d_k] = softmax(Q_h K_h^T / sqrt(d_k) + mask) V_h
 * with Q_h, K_h, V_h read in place from qkv (N, 3D) (lda = 3D), query rows
 * taken tf__attention_block_rows(len, H) at a time (TF_LOCAL_BLOCK_ROWS for a
 * local layer) so that the scores are (block, keys the block sees), on the
 * caller's thread. scratch: tf__attention_block_floats(max_len) floats.
 * weights_out (B, H, T, T) or NULL: the softmax weights (0 where padded).
 * scores_out (B, H, T, T) or NULL: the scaled, masked scores (-inf where a
 * key is masked or padded; 0 in rows of padded queries). */
void tf__attention(float *ctx, float *weights_out, float *scores_out, float *scratch,
                   const float *qkv, const tf__batch *batch, const tf__attn_mask *mask, size_t D,
                   size_t H);

/* The same, one task per (sequence, head, block of query rows) on s's
 * threads (QK^T, masks, softmax and .V inside each task); scratch holds
 * tf__attention_block_floats(max_len) floats per thread of s->width. */
void tf__attention_split(const tf__schedule *s, float *ctx, float *weights_out, float *scores_out,
                         float *scratch, const float *qkv, const tf__batch *batch,
                         const tf__attn_mask *mask, size_t D, size_t H);

#endif
