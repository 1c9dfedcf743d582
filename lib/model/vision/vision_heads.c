/* vision_heads.c — the outputs on top of the last hidden state h [B, T, D]:
 * ViTForImageClassification's classifier(h[:, 0]); CLIPVisionTransformer's
 * pooled output post_layernorm(h[:, 0]) and CLIPVisionModelWithProjection's
 * visual_projection of it; SigLIP's attention-pooling head
 * (attention_pool.c). ViTModel's pooler is the encoder's. */
#include <string.h>

#include "kernels.h"
#include "linear.h"
#include "vision_model.h"

size_t tf__vision_head_floats(const tf__vision_config *c, int32_t B, int32_t T)
{
    const size_t rows = 2 * (size_t)B * (size_t)c->d_model; /* cls, pooled */
    return rows + (c->attention_pool ? tf__attention_pool_floats(c, B, T) : 0);
}

/* cls (B, D) = h[:, 0] */
static void gather_first(float *cls, const float *h, int32_t B, int32_t T, size_t D)
{
    for (size_t b = 0; b < (size_t)B; b++)
        memcpy(cls + b * D, h + b * (size_t)T * D, D * sizeof *cls);
}

void tf__vision_heads(const tf__vision_model *m, const tf__vision_args *a, const float *h,
                      int32_t T, float *pool_weights, float *scratch)
{
    const tf__vision_config *c = &m->cfg;
    const size_t B = (size_t)a->batch, D = (size_t)c->d_model;
    float *cls = scratch;                                                  /* (B, D) */
    float *pooled = a->pooled_output ? a->pooled_output : scratch + B * D; /* (B, D) */
    float *rest = scratch + 2 * B * D;
    if (a->logits) { /* (B, L) = h[:, 0] . W_c^T + b_c */
        gather_first(cls, h, a->batch, T, D);
        tf__linear(a->logits, cls, tf__vision_view(m, TF_VISION_CLASSIFIER_WEIGHT),
                   tf__vision_view(m, TF_VISION_CLASSIFIER_BIAS), B, (size_t)c->n_labels, D);
    }
    if (c->post_norm && (a->pooled_output || a->image_embeds)) {
        gather_first(cls, h, a->batch, T, D); /* pooled (B, D) = post_layernorm(h[:, 0]) */
        tf__layernorm_rows(pooled, cls, tf__vision_view(m, TF_VISION_POST_NORM_WEIGHT),
                           tf__vision_view(m, TF_VISION_POST_NORM_BIAS), B, D, c->layer_norm_eps);
    }
    if (a->image_embeds) /* (B, E) = pooled . W_proj^T, no bias */
        tf__linear(a->image_embeds, pooled, tf__vision_view(m, TF_VISION_PROJECTION_WEIGHT), NULL,
                   B, (size_t)c->projection_dim, D);
    if (c->attention_pool && a->pooled_output)
        tf__attention_pool(a->pooled_output, pool_weights, m, h, a->batch, T, rest);
}
