/* attention.c — S = Q_blk K^T / sqrt(d_k) (sgemm), mask, softmax in place,
 * ctx = S V (sgemm). Head slices are strided views of the QKV matrix. */
#include "attention.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "kernels.h"
#include "workspace.h"

/* Adds the causal and additive masks to scores s (nq, nk) of query rows
 * q0 .. q0+nq-1 of sequence b. */
static void apply_masks(float *s, size_t q0, size_t nq, size_t nk, int32_t b, size_t T,
                        const tf_attn_mask *m)
{
    for (size_t i = 0; i < nq; i++) {
        float *row = s + i * nk; /* (nk) */
        const size_t q = q0 + i;
        if (m->additive) {
            const float *add = m->additive + (m->additive_batched ? (size_t)b * T * T : 0) + q * T;
            tf_add(row, add, nk);
        }
        if (m->causal)
            for (size_t j = q + 1; j < nk; j++)
                row[j] = -INFINITY;
    }
}

/* Copies rows (nq, nk) to out rows of width T, filling columns nk..T-1. */
static void store_rows(float *out, const float *s, size_t nq, size_t nk, size_t T, float fill)
{
    for (size_t i = 0; i < nq; i++) {
        memcpy(out + i * T, s + i * nk, nk * sizeof *out);
        for (size_t j = nk; j < T; j++)
            out[i * T + j] = fill;
    }
}

/* One head of one sequence: rows r0 .. r0+len-1 of qkv and ctx. */
static void attend_head(float *ctx, float *weights, float *scores, float *s, const float *qkv,
                        size_t len, int32_t b, size_t T, size_t h, size_t D, size_t H,
                        const tf_attn_mask *m)
{
    const size_t dk = D / H, ld = 3 * D, block = tf_attention_block_rows(len);
    const float scale = (float)(1.0 / sqrt((double)dk));
    const float *Q = qkv + h * dk;         /* (len, d_k), lda 3D */
    const float *K = qkv + D + h * dk;     /* (len, d_k), lda 3D */
    const float *V = qkv + 2 * D + h * dk; /* (len, d_k), lda 3D */
    for (size_t q0 = 0; q0 < len; q0 += block) {
        const size_t nq = len - q0 < block ? len - q0 : block;
        /* A causal block sees no key after its last query. */
        const size_t nk = m->causal ? q0 + nq : len;
        /* s (nq, nk) = Q_blk . K^T / sqrt(d_k) */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nq, (int)nk, (int)dk, scale,
                    Q + q0 * ld, (int)ld, K, (int)ld, 0.0f, s, (int)nk);
        apply_masks(s, q0, nq, nk, b, T, m);
        if (scores)
            store_rows(scores + q0 * T, s, nq, nk, T, -INFINITY);
        tf_softmax_rows(s, nq, nk);
        if (weights)
            store_rows(weights + q0 * T, s, nq, nk, T, 0.0f);
        /* ctx[q0 .. q0+nq, h*d_k ..] (nq, d_k) = s (nq, nk) . V (nk, d_k) */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nq, (int)dk, (int)nk, 1.0f,
                    s, (int)nk, V, (int)ld, 0.0f, ctx + q0 * D + h * dk, (int)D);
    }
}

void tf_attention(float *ctx, float *weights_out, float *scores_out, float *scratch,
                  const float *qkv, const tf_batch *batch, const tf_attn_mask *mask, size_t D,
                  size_t H)
{
    const size_t T = (size_t)batch->T;
    const size_t per_head = T * T; /* (T, T) of one sequence and head */
    if (weights_out)
        memset(weights_out, 0, (size_t)batch->B * H * per_head * sizeof(float));
    if (scores_out)
        memset(scores_out, 0, (size_t)batch->B * H * per_head * sizeof(float));
    for (int32_t b = 0; b < batch->B; b++) {
        const size_t len = (size_t)batch->lengths[b], r0 = batch->row_start[b];
        for (size_t h = 0; len > 0 && h < H; h++) {
            const size_t bh = ((size_t)b * H + h) * per_head;
            attend_head(ctx + r0 * D, weights_out ? weights_out + bh : NULL,
                        scores_out ? scores_out + bh : NULL, scratch, qkv + r0 * 3 * D, len, b,
                        T, h, D, H, mask);
        }
    }
}
