/* attention.c — S = Q_blk K^T / sqrt(d_k) (sgemm), mask, softmax in place,
 * ctx = S V (sgemm). Head slices are strided views of the QKV matrix. */
#include "attention.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "kernels.h"
#include "workspace.h"

/* The keys [*k0, *k1) that query rows q0 .. q0+nq-1 of a sequence of len
 * tokens can see: all, those up to the last query when causal, those
 * within half_window of some query in a local layer. */
static void key_range(size_t *k0, size_t *k1, size_t q0, size_t nq, size_t len,
                      const tf__attn_mask *m)
{
    *k0 = 0;
    *k1 = m->causal ? q0 + nq : len;
    if (m->half_window) {
        const size_t hw = m->half_window, last = q0 + nq - 1 + hw + 1;
        *k0 = q0 > hw ? q0 - hw : 0;
        *k1 = last < *k1 ? last : *k1;
    }
}

/* Adds the masks and biases to scores s (nq, nk) of query rows q0 ..
 * q0+nq-1 of sequence b and head h, keys k0 .. k0+nk-1: the relative
 * position bias (before the mask, as MPNetSelfAttention adds it), the
 * additive mask, ALiBi's -m_h |q - k|, -inf past a causal query or outside
 * the window. */
static void apply_masks(float *s, size_t q0, size_t nq, size_t k0, size_t nk, int32_t b, size_t h,
                        size_t T, const tf__attn_mask *m)
{
    const float slope = m->alibi_slopes ? m->alibi_slopes[h] : 0.0f;
    /* head h's bias for j - i = 0, (2 relative_len - 1) values around it */
    const float *relative = m->relative_bias
        ? m->relative_bias + h * (2 * m->relative_len - 1) + (m->relative_len - 1)
        : NULL;
    for (size_t i = 0; i < nq; i++) {
        float *row = s + i * nk; /* (nk) keys k0 .. */
        const size_t q = q0 + i;
        if (relative) /* keys k0 .. k0+nk-1: j - i from k0 - q */
            tf__add(row, relative + k0 - q, nk);
        if (m->additive) {
            const float *add = m->additive + (m->additive_batched ? (size_t)b * T * T : 0) + q * T;
            tf__add(row, add + k0, nk);
        }
        if (m->alibi_slopes)
            for (size_t j = 0; j < nk; j++) {
                const size_t k = k0 + j, distance = k > q ? k - q : q - k;
                row[j] -= slope * (float)distance;
            }
        for (size_t j = 0; (m->causal || m->half_window) && j < nk; j++) {
            const size_t k = k0 + j, distance = k > q ? k - q : q - k;
            if ((m->causal && k > q) || (m->half_window && distance > m->half_window))
                row[j] = -INFINITY;
        }
    }
}

/* Copies rows (nq, nk) of keys k0 .. into out rows of width T, filling the
 * columns outside them. */
static void store_rows(float *out, const float *s, size_t nq, size_t k0, size_t nk, size_t T,
                       float fill)
{
    for (size_t i = 0; i < nq; i++) {
        float *row = out + i * T; /* (T) */
        for (size_t j = 0; j < k0; j++)
            row[j] = fill;
        memcpy(row + k0, s + i * nk, nk * sizeof *out);
        for (size_t j = k0 + nk; j < T; j++)
            row[j] = fill;
    }
}

/* Query rows q0 .. q0+nq-1 of one head of one sequence (rows r0 ..
 * r0+len-1 of qkv and ctx): QK^T, masks, softmax and .V on one block of
 * scores s (nq, nk) over the keys the block sees, which stays in cache
 * between the steps. */
static void attend_block(float *ctx, float *weights, float *scores, float *s, const float *qkv,
                         size_t len, int32_t b, size_t T, size_t h, size_t D, size_t H,
                         const tf__attn_mask *m, size_t q0, size_t nq)
{
    const size_t dk = D / H, ld = 3 * D;
    const float scale = (float)(1.0 / sqrt((double)dk));
    const float *Q = qkv + h * dk;         /* (len, d_k), lda 3D */
    const float *K = qkv + D + h * dk;     /* (len, d_k), lda 3D */
    const float *V = qkv + 2 * D + h * dk; /* (len, d_k), lda 3D */
    size_t k0, k1;
    key_range(&k0, &k1, q0, nq, len, m);
    const size_t nk = k1 - k0;
    /* s (nq, nk) = Q_blk . K[k0 : k1]^T / sqrt(d_k) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nq, (int)nk, (int)dk, scale,
                Q + q0 * ld, (int)ld, K + k0 * ld, (int)ld, 0.0f, s, (int)nk);
    apply_masks(s, q0, nq, k0, nk, b, h, T, m);
    if (scores)
        store_rows(scores + q0 * T, s, nq, k0, nk, T, -INFINITY);
    tf__softmax_rows(s, nq, nk);
    if (weights)
        store_rows(weights + q0 * T, s, nq, k0, nk, T, 0.0f);
    /* ctx[q0 .. q0+nq, h*d_k ..] (nq, d_k) = s (nq, nk) . V[k0 : k1] (nk, d_k) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nq, (int)dk, (int)nk, 1.0f, s,
                (int)nk, V + k0 * ld, (int)ld, 0.0f, ctx + q0 * D + h * dk, (int)D);
}

/* Query rows per block for a sequence of len tokens in this layer. */
static size_t block_rows(size_t len, size_t H, const tf__attn_mask *m)
{
    const size_t rows = tf__attention_block_rows(len, H);
    return m->half_window && rows > TF_LOCAL_BLOCK_ROWS ? TF_LOCAL_BLOCK_ROWS : rows;
}

typedef struct attention_job {
    float *ctx, *weights_out, *scores_out, *scratch;
    const float *qkv;
    const tf__batch *batch;
    const tf__attn_mask *mask;
    size_t D, H;
    size_t blocks; /* query blocks of the sequence that has the most */
    size_t slot;   /* floats of scratch per thread */
} attention_job;

/* Task t = (sequence b, head h, query block k), k fastest; blocks past a
 * shorter sequence's end are empty. */
static void attention_task(void *ctx, size_t t, int thread)
{
    const attention_job *j = ctx;
    const size_t k = t % j->blocks, h = t / j->blocks % j->H;
    const int32_t b = (int32_t)(t / j->blocks / j->H);
    const size_t len = (size_t)j->batch->lengths[b], rows = block_rows(len, j->H, j->mask);
    const size_t q0 = k * rows;
    if (q0 >= len)
        return;
    const size_t T = (size_t)j->batch->T, r0 = j->batch->row_start[b], D = j->D;
    const size_t bh = ((size_t)b * j->H + h) * T * T; /* (T, T) of this sequence and head */
    attend_block(j->ctx + r0 * D, j->weights_out ? j->weights_out + bh : NULL,
                 j->scores_out ? j->scores_out + bh : NULL, j->scratch + (size_t)thread * j->slot,
                 j->qkv + r0 * 3 * D, len, b, T, h, D, j->H, j->mask, q0,
                 len - q0 < rows ? len - q0 : rows);
}

void tf__attention_split(const tf__schedule *s, float *ctx, float *weights_out, float *scores_out,
                         float *scratch, const float *qkv, const tf__batch *batch,
                         const tf__attn_mask *mask, size_t D, size_t H)
{
    const size_t T = (size_t)batch->T, L = (size_t)batch->max_len;
    const size_t per_call = (size_t)batch->B * H * T * T; /* (B, H, T, T) */
    if (weights_out)
        memset(weights_out, 0, per_call * sizeof(float));
    if (scores_out)
        memset(scores_out, 0, per_call * sizeof(float));
    if (L == 0)
        return;
    size_t blocks = 0; /* the most any sequence has */
    for (int32_t b = 0; b < batch->B; b++) {
        const size_t len = (size_t)batch->lengths[b], rows = len ? block_rows(len, H, mask) : 1;
        const size_t n = (len + rows - 1) / rows;
        blocks = n > blocks ? n : blocks;
    }
    attention_job job = {ctx,
                         weights_out,
                         scores_out,
                         scratch,
                         qkv,
                         batch,
                         mask,
                         D,
                         H,
                         blocks,
                         tf__attention_block_floats(L)};
    tf__schedule_run(s, attention_task, &job, (size_t)batch->B * H * job.blocks);
}

void tf__attention(float *ctx, float *weights_out, float *scores_out, float *scratch,
                   const float *qkv, const tf__batch *batch, const tf__attn_mask *mask, size_t D,
                   size_t H)
{
    const tf__schedule alone = {.threads = 1, .width = 1};
    tf__attention_split(&alone, ctx, weights_out, scores_out, scratch, qkv, batch, mask, D, H);
}
