/* text_tower.h — the text towers of CLIP and SigLIP, as transformers computes them:
 * clip/modeling_clip.py CLIPTextTransformer (token + learned position embeddings,
 * pre-norm layers under a causal mask, final_layer_norm, the row of the end-of-text
 * token) then CLIPModel's text_projection (no bias); siglip/modeling_siglip.py
 * SiglipTextTransformer (the same layers, no causal mask, final_layer_norm, the last
 * row of the padded sequence, then its head: a Linear with bias). The layers are the
 * encoder's (tf_encoder on token ids, pre-norm, final norm).
 *
 * Dimension letters: B texts, T tokens each (padded), D the tower's width, E the
 * projected width. */
#ifndef TF_TEXT_TOWER_H
#define TF_TEXT_TOWER_H

#include "tfenc.h"

/* Which row of a text's last hidden state is its pooled output. */
typedef enum tf__text_pooling {
    TF_TEXT_POOL_EOS_ARGMAX = 0, /* CLIP with eos_token_id 2 (older configs): the first
                                    position of the largest id */
    TF_TEXT_POOL_EOS_FIRST = 1,  /* CLIP: the first position of eos_token_id (0 when the
                                    text has none, as argmax over zeros gives) */
    TF_TEXT_POOL_LAST = 2        /* SigLIP: position T - 1 */
} tf__text_pooling;

/* CLIPTextConfig's or SiglipTextConfig's fields, and CLIPModel's projection_dim. */
typedef struct tf__text_config {
    int32_t family; /* tf__vision_family: TF_VISION_CLIP or TF_VISION_SIGLIP */
    int32_t vocab_size, max_positions, d_model, n_heads, d_ff, n_layers;
    int32_t activation; /* tf_activation */
    float layer_norm_eps;
    int32_t eos_token_id;
    int32_t projection_dim; /* E: CLIP's projection_dim; SigLIP's head: D */
} tf__text_config;

/* CLIPTextConfig's (openai/clip-vit-base-patch32's sizes) or SiglipTextConfig's
 * defaults, projection_dim 512 (CLIPConfig's) or D. */
void tf__text_config_defaults(tf__text_config *c, int32_t family);

/* Derived from the family and eos_token_id: the pooled row, the causal mask,
 * the projection's bias. */
tf__text_pooling tf__text_pooling_of(const tf__text_config *c);
int tf__text_causal(const tf__text_config *c);
int tf__text_projection_bias(const tf__text_config *c);

typedef struct tf__text_tower tf__text_tower;

/* A tower for c, its weights allocated, uninitialised; c's sizes refused as
 * tf_encoder_create refuses them (the message names the field). */
tf_status tf__text_tower_new(const tf__text_config *c, tf__text_tower **out);
void tf__text_tower_free(tf__text_tower *m); /* NULL is fine */

const tf__text_config *tf__text_tower_config(const tf__text_tower *m);

/* The encoder that runs embeddings and layers (its tensors "embed.token.weight",
 * "layers.{l}.attn.q.weight", "final_norm.weight", ..., weights.h). */
tf_encoder *tf__text_tower_encoder(tf__text_tower *m);

/* The projection's weight (E, D) and bias (E; NULL when it has none), to fill. */
float *tf__text_tower_projection_weight(tf__text_tower *m);
float *tf__text_tower_projection_bias(tf__text_tower *m);

/* out [B, E] = the projected pooled output of ids [B, T] (right-padded; mask
 * [B, T] 1 for a real token, or NULL: every token real). Refused, nothing
 * written: an id outside the vocabulary, T above max_positions (as the
 * encoder refuses them), and a pooled row that is padding (an argmax or
 * end-of-text position past a text's real tokens), naming the text as
 * "text <first + b>". */
tf_status tf__text_tower_forward(const tf__text_tower *m, const int32_t *ids, const int32_t *mask,
                                 int32_t B, int32_t T, size_t first, int32_t n_threads, float *out);

#endif
