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

/* Query rows q0 .. q0+nq-1 of one head of one sequence (rows r0 ..
 * r0+len-1 of qkv and ctx): QK^T, masks, softmax and .V on one block of
 * scores s (nq, nk), which stays in cache between the steps. */
static void attend_block(float *ctx, float *weights, float *scores, float *s, const float *qkv,
                         size_t len, int32_t b, size_t T, size_t h, size_t D, size_t H,
                         const tf_attn_mask *m, size_t q0, size_t nq)
{
    const size_t dk = D / H, ld = 3 * D;
    const float scale = (float)(1.0 / sqrt((double)dk));
    const float *Q = qkv + h * dk;         /* (len, d_k), lda 3D */
    const float *K = qkv + D + h * dk;     /* (len, d_k), lda 3D */
    const float *V = qkv + 2 * D + h * dk; /* (len, d_k), lda 3D */
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
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nq, (int)dk, (int)nk, 1.0f, s,
                (int)nk, V, (int)ld, 0.0f, ctx + q0 * D + h * dk, (int)D);
}

typedef struct attention_job {
    float *ctx, *weights_out, *scores_out, *scratch;
    const float *qkv;
    const tf_batch *batch;
    const tf_attn_mask *mask;
    size_t D, H;
    size_t blocks;     /* query blocks of the longest sequence, the most any has */
    size_t slot;       /* floats of scratch per thread */
} attention_job;

/* Task t = (sequence b, head h, query block k), k fastest; blocks past a
 * shorter sequence's end are empty. */
static void attention_task(void *ctx, size_t t, int thread)
{
    const attention_job *j = ctx;
    const size_t k = t % j->blocks, h = t / j->blocks % j->H;
    const int32_t b = (int32_t)(t / j->blocks / j->H);
    const size_t len = (size_t)j->batch->lengths[b], rows = tf_attention_block_rows(len);
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

void tf_attention_split(const tf_schedule *s, float *ctx, float *weights_out, float *scores_out,
                        float *scratch, const float *qkv, const tf_batch *batch,
                        const tf_attn_mask *mask, size_t D, size_t H)
{
    const size_t T = (size_t)batch->T, L = (size_t)batch->max_len;
    const size_t per_call = (size_t)batch->B * H * T * T; /* (B, H, T, T) */
    if (weights_out)
        memset(weights_out, 0, per_call * sizeof(float));
    if (scores_out)
        memset(scores_out, 0, per_call * sizeof(float));
    if (L == 0)
        return;
    const size_t rows = tf_attention_block_rows(L);
    attention_job job = {ctx, weights_out, scores_out, scratch, qkv, batch, mask, D, H,
                         (L + rows - 1) / rows, rows * L};
    tf_schedule_run(s, attention_task, &job, (size_t)batch->B * H * job.blocks);
}

void tf_attention(float *ctx, float *weights_out, float *scores_out, float *scratch,
                  const float *qkv, const tf_batch *batch, const tf_attn_mask *mask, size_t D,
                  size_t H)
{
    const tf_schedule alone = {.threads = 1, .width = 1};
    tf_attention_split(&alone, ctx, weights_out, scores_out, scratch, qkv, batch, mask, D, H);
}
