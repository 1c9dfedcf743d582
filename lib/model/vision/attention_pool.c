/* attention_pool.c — SigLIP's pooling head, as
 * SiglipMultiheadAttentionPoolingHead.forward (modeling_siglip.py) computes
 * it: a learned probe attends over the last hidden state through
 * nn.MultiheadAttention (in_proj_weight = [W_q | W_k | W_v], out_proj),
 * then x + MLP(LayerNorm(x)); its one row is the pooled output. */
#include <cblas.h>
#include <math.h>

#include "kernels.h"
#include "linear.h"
#include "vision_model.h"

/* The head's scratch for B images of T tokens. */
typedef struct pool_scratch {
    float *q;      /* (D) the probe's query, the same for every image */
    float *kv;     /* (B T, 2D) K | V of every token */
    float *scores; /* (T) one head's attention over one image */
    float *ctx;    /* (B, D) heads concatenated */
    float *attn;   /* (B, D) out_proj(ctx): the residual */
    float *normed; /* (B, D) LayerNorm(attn) */
    float *hidden; /* (B, F) act(fc1(normed)) */
} pool_scratch;

static float *carve(float **at, size_t n)
{
    float *p = *at;
    *at += n;
    return p;
}

static pool_scratch carve_scratch(float *mem, const tf__vision_config *c, int32_t B, int32_t T)
{
    const size_t D = (size_t)c->d_model, F = (size_t)c->d_ff, BT = (size_t)B * (size_t)T;
    pool_scratch p;
    p.q = carve(&mem, D);
    p.kv = carve(&mem, BT * 2 * D);
    p.scores = carve(&mem, (size_t)T);
    p.ctx = carve(&mem, (size_t)B * D);
    p.attn = carve(&mem, (size_t)B * D);
    p.normed = carve(&mem, (size_t)B * D);
    p.hidden = carve(&mem, (size_t)B * F);
    return p;
}

size_t tf__attention_pool_floats(const tf__vision_config *c, int32_t B, int32_t T)
{
    const size_t D = (size_t)c->d_model, F = (size_t)c->d_ff, BT = (size_t)B * (size_t)T;
    return D + BT * 2 * D + (size_t)T + 3 * (size_t)B * D + (size_t)B * F;
}

/* ctx (B, D) = for each image b and head h: softmax(q_h K_h^T / sqrt(d_k)) V_h,
 * q (D), kv (B T, 2D) (K | V); the softmax kept in weights (B, H, T) unless
 * it is NULL. */
static void attend(const pool_scratch *p, float *weights, int32_t B, int32_t T, size_t D, size_t H)
{
    const size_t dk = D / H, ld = 2 * D;
    const float scale = (float)(1.0 / sqrt((double)dk));
    for (size_t b = 0; b < (size_t)B; b++) {
        const float *K = p->kv + b * (size_t)T * ld, *V = K + D; /* (T, D) each, row stride 2D */
        for (size_t h = 0; h < H; h++) {
            float *scores = weights ? weights + (b * H + h) * (size_t)T : p->scores; /* (T) */
            /* scores (1, T) = q_h (1, d_k) . K_h^T / sqrt(d_k) */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 1, T, (int)dk, scale,
                        p->q + h * dk, (int)dk, K + h * dk, (int)ld, 0.0f, scores, T);
            tf__softmax_rows(scores, 1, (size_t)T);
            /* ctx[b, h d_k : (h + 1) d_k] (1, d_k) = scores (1, T) . V_h (T, d_k) */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, (int)dk, T, 1.0f, scores, T,
                        V + h * dk, (int)ld, 0.0f, p->ctx + b * D + h * dk, (int)D);
        }
    }
}

void tf__attention_pool(float *pooled, float *weights, const tf__vision_model *m, const float *h,
                        int32_t B, int32_t T, float *scratch)
{
    const tf__vision_config *c = &m->cfg;
    const size_t D = (size_t)c->d_model, F = (size_t)c->d_ff;
    const pool_scratch p = carve_scratch(scratch, c, B, T);
    const float *in_w = tf__vision_view(m, TF_VISION_HEAD_IN_WEIGHT); /* (3D, D) */
    const float *in_b = tf__vision_view(m, TF_VISION_HEAD_IN_BIAS);   /* (3D) */

    /* q (1, D) = probe . W_q^T + b_q; kv (B T, 2D) = h . [W_k | W_v]^T + [b_k | b_v] */
    tf__linear(p.q, tf__vision_view(m, TF_VISION_HEAD_PROBE), in_w, in_b, 1, D, D);
    tf__linear(p.kv, h, in_w + D * D, in_b + D, (size_t)B * (size_t)T, 2 * D, D);
    attend(&p, weights, B, T, D, (size_t)c->n_heads);
    /* attn (B, D) = ctx . W_out^T + b_out */
    tf__linear(p.attn, p.ctx, tf__vision_view(m, TF_VISION_HEAD_OUT_WEIGHT),
               tf__vision_view(m, TF_VISION_HEAD_OUT_BIAS), (size_t)B, D, D);
    /* pooled (B, D) = attn + fc2(act(fc1(LayerNorm(attn)))) (SiglipMLP) */
    tf__layernorm_rows(p.normed, p.attn, tf__vision_view(m, TF_VISION_HEAD_NORM_WEIGHT),
                       tf__vision_view(m, TF_VISION_HEAD_NORM_BIAS), (size_t)B, D,
                       c->layer_norm_eps);
    tf__linear(p.hidden, p.normed, tf__vision_view(m, TF_VISION_HEAD_FC1_WEIGHT),
               tf__vision_view(m, TF_VISION_HEAD_FC1_BIAS), (size_t)B, F, D);
    tf__activation_apply(p.hidden, (size_t)B * F, c->activation);
    tf__linear(pooled, p.hidden, tf__vision_view(m, TF_VISION_HEAD_FC2_WEIGHT),
               tf__vision_view(m, TF_VISION_HEAD_FC2_BIAS), (size_t)B, D, F);
    tf__add(pooled, p.attn, (size_t)B * D);
}
