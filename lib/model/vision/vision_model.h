/* vision_model.h — the tower's handle and the steps of its forward call,
 * shared by the files of model/vision/. */
#ifndef TF_VISION_MODEL_H
#define TF_VISION_MODEL_H

#include "schedule.h"
#include "vision.h"

/* The most tensors a tower has outside its encoder (a SigLIP tower with its
 * head: 15). */
#define TF_VISION_MAX_TENSORS 24

struct tf__vision_model {
    tf__vision_config cfg;
    float *block; /* every tensor of the table, n_floats of them */
    size_t n_floats;
    tf__vision_tensor tensors[TF_VISION_MAX_TENSORS]; /* in block order */
    size_t n_tensors;
    tf_encoder *encoder; /* the layers, pre- and final norms, ViT's pooler */
};

/* The values of tensor name in the block (the patch weight as (K, D)), or
 * NULL when the tower has none. */
const float *tf__vision_view(const tf__vision_model *m, const char *name);

/* The encoder's config for a tower's: pre-norm layers on vectors, no
 * positions of its own. */
void tf__vision_encoder_config(const tf__vision_config *c, tf_config *e);

/* Scratch of tf__vision_embed for B images of P patches. */
typedef struct tf__vision_embed_scratch {
    float *cols;      /* (B P, K) every patch's pixels, im2col */
    float *patches;   /* (B P, D) their embeddings */
    float *positions; /* (P, D) the patch positions interpolated to the grid */
} tf__vision_embed_scratch;

/* embeds [B, T, D] = [class token + pos[0] |] patches . W^T + b + pos, the
 * positions interpolated to the H/p x W/p grid where it is not the trained
 * one (vision_embed.c). */
void tf__vision_embed(const tf__schedule *s, float *embeds, const tf__vision_embed_scratch *x,
                      const tf__vision_model *m, const float *pixels, int32_t B, int32_t height,
                      int32_t width);

/* The heads on the last hidden state h [B, T, D] (vision_heads.c): the
 * outputs a asks for but the encoder's pooler (ViT's, written by the
 * encoder): logits, CLIP's pooled output and image_embeds, SigLIP's pooled
 * output, its probe's attention weights [B, H, T] kept in pool_weights
 * unless NULL. scratch: tf__vision_head_floats(). */
size_t tf__vision_head_floats(const tf__vision_config *c, int32_t B, int32_t T);
void tf__vision_heads(const tf__vision_model *m, const tf__vision_args *a, const float *h,
                      int32_t T, float *pool_weights, float *scratch);

/* SigLIP's head: pooled [B, D] = SiglipMultiheadAttentionPoolingHead(h),
 * h [B, T, D] (attention_pool.c), its small products on the caller's
 * thread; the probe's attention weights (B, H, T) kept in weights unless
 * NULL. scratch: tf__attention_pool_floats(). */
size_t tf__attention_pool_floats(const tf__vision_config *c, int32_t B, int32_t T);
void tf__attention_pool(float *pooled, float *weights, const tf__vision_model *m, const float *h,
                        int32_t B, int32_t T, float *scratch);

#endif
