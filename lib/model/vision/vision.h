/* vision.h — Vision Transformer towers as transformers computes them: ViT
 * (modeling_vit.py), CLIP's vision half (modeling_clip.py) and SigLIP's
 * (modeling_siglip.py).
 *
 *   pixel_values [B, C, H, W]
 *     -> patch embedding: im2col + one product, the Conv2d with stride =
 *        kernel = p (vision_embed.c)               patches (B, P, D), P = H/p W/p
 *     -> [class token |] patches + positions (interpolated bicubically to
 *        another grid on request)                  embeds [B, T, D], T = P (+ 1)
 *     -> the encoder's pre-norm layers (tf_encoder with vectors in: CLIP's
 *        pre_layrnorm is its embedding norm, ViT's layernorm and SigLIP's
 *        post_layernorm its final norm)            last_hidden_state [B, T, D]
 *     -> the heads (vision_heads.c, attention_pool.c): ViTModel's pooler,
 *        ViTForImageClassification's classifier, CLIP's post_layernorm +
 *        visual_projection, SigLIP's attention-pooling head.
 *
 * Dimension letters: B images, C channels, H x W pixels, p the patch side,
 * K = C p p one patch's values, P patches per image, T tokens per image, D
 * the width, F the feed-forward width, L labels, E the projection's width. */
#ifndef TF_VISION_H
#define TF_VISION_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* Which upstream model a tower computes as. */
typedef enum tf__vision_family {
    TF_VISION_VIT = 0,    /* ViTModel / ViTForImageClassification */
    TF_VISION_CLIP = 1,   /* CLIPVisionTransformer (+ visual_projection) */
    TF_VISION_SIGLIP = 2, /* SiglipVisionTransformer (+ its attention-pooling head) */
    TF_VISION_FAMILY_COUNT
} tf__vision_family;

/* "vit", "clip", "siglip"; NULL for another value. */
const char *tf__vision_family_name(int32_t family);

typedef struct tf__vision_config {
    int32_t family;                           /* tf__vision_family */
    int32_t image_size, patch_size, channels; /* the trained square image, p, C */
    int32_t d_model, n_heads, d_ff, n_layers; /* D, H, F, layers */
    int32_t activation;                       /* tf_activation of every MLP */
    float layer_norm_eps;
    int32_t class_token;    /* a learned class token before the patches (ViT, CLIP) */
    int32_t patch_bias;     /* the patch Conv2d has a bias (ViT, SigLIP) */
    int32_t qkv_bias;       /* q, k, v have biases (ViT's qkv_bias; CLIP, SigLIP: 1) */
    int32_t pre_norm;       /* a LayerNorm over the embeddings (CLIP's pre_layrnorm) */
    int32_t final_norm;     /* a LayerNorm over every token after the layers
                               (ViT's layernorm, SigLIP's post_layernorm) */
    int32_t post_norm;      /* a LayerNorm over the class token's row only, the
                               pooled output (CLIP's post_layernorm) */
    int32_t pooler;         /* ViTModel's pooler: tanh(dense(h[:, 0])) */
    int32_t n_labels;       /* ViTForImageClassification's classifier (L, D) on
                               h[:, 0]; 0: none */
    int32_t projection_dim; /* CLIP's visual_projection (E, D), no bias; 0: none */
    int32_t attention_pool; /* SigLIP's SiglipMultiheadAttentionPoolingHead */
} tf__vision_config;

/* *c = family's defaults as its transformers config class has them
 * (ViTConfig, CLIPVisionConfig, SiglipVisionConfig) and the modules its
 * tower always has; the heads off. */
void tf__vision_config_defaults(tf__vision_config *c, int32_t family);

/* Checks c: ranges, D % H, the heads that fit the family. The message
 * names the field and its value. */
tf_status tf__vision_config_validate(const tf__vision_config *c);

/* One tensor of a tower outside its encoder layers: the name it has here,
 * its shape as upstream stores it, where its values are. */
#define TF_VISION_MAX_RANK 4
typedef struct tf__vision_tensor {
    const char *name; /* "patch.weight", "head.attention.in_proj_weight", ... */
    int32_t rank;
    int64_t dims[TF_VISION_MAX_RANK];
    size_t count;
    size_t offset;  /* in floats, into the tower's block */
    int transposed; /* stored as (count / dims[0], dims[0]): the patch weight
                       (D, C, p, p) as (K, D) for the product */
} tf__vision_tensor;

/* The tower's own tensors (those outside its encoder), by the names here. */
#define TF_VISION_PATCH_WEIGHT "patch.weight"                      /* (D, C, p, p) */
#define TF_VISION_PATCH_BIAS "patch.bias"                          /* (D) */
#define TF_VISION_CLASS_TOKEN "class_token"                        /* (D); ViT: (1, 1, D) */
#define TF_VISION_POSITION "position"                              /* (T, D); ViT: (1, T, D) */
#define TF_VISION_POST_NORM_WEIGHT "post_norm.weight"              /* (D) */
#define TF_VISION_POST_NORM_BIAS "post_norm.bias"                  /* (D) */
#define TF_VISION_CLASSIFIER_WEIGHT "classifier.weight"            /* (L, D) */
#define TF_VISION_CLASSIFIER_BIAS "classifier.bias"                /* (L) */
#define TF_VISION_PROJECTION_WEIGHT "projection.weight"            /* (E, D) */
#define TF_VISION_HEAD_PROBE "head.probe"                          /* (1, 1, D) */
#define TF_VISION_HEAD_IN_WEIGHT "head.attention.in_proj_weight"   /* (3D, D) */
#define TF_VISION_HEAD_IN_BIAS "head.attention.in_proj_bias"       /* (3D) */
#define TF_VISION_HEAD_OUT_WEIGHT "head.attention.out_proj.weight" /* (D, D) */
#define TF_VISION_HEAD_OUT_BIAS "head.attention.out_proj.bias"     /* (D) */
#define TF_VISION_HEAD_NORM_WEIGHT "head.layernorm.weight"         /* (D) */
#define TF_VISION_HEAD_NORM_BIAS "head.layernorm.bias"             /* (D) */
#define TF_VISION_HEAD_FC1_WEIGHT "head.mlp.fc1.weight"            /* (F, D) */
#define TF_VISION_HEAD_FC1_BIAS "head.mlp.fc1.bias"                /* (F) */
#define TF_VISION_HEAD_FC2_WEIGHT "head.mlp.fc2.weight"            /* (D, F) */
#define TF_VISION_HEAD_FC2_BIAS "head.mlp.fc2.bias"                /* (D) */

/* A tower: its own tensors in one block and the encoder for its layers. */
typedef struct tf__vision_model tf__vision_model;

/* A tower for a valid config, its weights allocated, uninitialised. */
tf_status tf__vision_model_new(const tf__vision_config *c, tf__vision_model **out);
void tf__vision_model_free(tf__vision_model *m); /* NULL is fine */

const tf__vision_config *tf__vision_model_config(const tf__vision_model *m);

/* The encoder that runs the layers (its tensors "layers.{l}.attn.q.weight"
 * ..., weights.h, filled through tf__weights_find / tf__weights_put). */
tf_encoder *tf__vision_model_encoder(tf__vision_model *m);

/* The tower's own tensor called name (NULL: none). */
const tf__vision_tensor *tf__vision_tensor_find(const tf__vision_model *m, const char *name);

/* Writes t's count values, row-major in upstream's shape, from src. */
void tf__vision_tensor_put(tf__vision_model *m, const tf__vision_tensor *t, const float *src);

/* One call. Outputs are caller-owned and written only when the call
 * succeeds; each may be NULL where not wanted. */
typedef struct tf__vision_args {
    int32_t batch, channels;          /* B >= 1; C: the tower's */
    int32_t height, width;            /* H, W: positive multiples of p */
    const float *pixel_values;        /* [B, C, H, W], finite */
    int32_t interpolate_pos_encoding; /* 1: H x W other than the trained
                                          size takes the positions
                                          interpolated to its grid (all three
                                          families' interpolate_pos_encoding);
                                          0: it is refused */
    float *last_hidden_state;         /* [B, T, D] */
    float *pooled_output;             /* [B, D]: ViT's pooler (with one), CLIP's
                                          post_layernorm(h[:, 0]), SigLIP's head */
    float *logits;                    /* [B, L]: ViT's classifier */
    float *image_embeds;              /* [B, E]: CLIP's projection of pooled_output
                                          (get_image_features: not normalised) */
    float *hidden_states;             /* [layers + 1, B, T, D]: the embeddings, then
                                          each layer's output (tf_forward_args') */
    float *attentions;                /* [layers, B, H, T, T] */
    tf_trace_fn trace;                /* the tower's steps (pixel_values, embed.patches,
                                         embed.class_token, embed.position), the
                                         encoder's (tf_forward_args') from its input
                                         (the embeddings) on, SigLIP's head's
                                         head.attn.weights: tfenc.h's "Tracing an
                                         image" */
    void *trace_user_data;
    int32_t n_threads; /* tf_forward_args' */
} tf__vision_args;

/* pos (gh gw, D) = the (g, g, D) table of trained patch positions resized
 * to (gh, gw, D) as torch.nn.functional.interpolate(mode="bicubic",
 * align_corners=False) resizes it (a = -0.75, indices clamped at the
 * borders). */
void tf__vision_interpolate_positions(float *pos, const float *trained, int32_t g, int32_t gh,
                                      int32_t gw, int32_t D);

/* T, the tokens per image of an H x W image (0 if H or W is no multiple of
 * p). */
int32_t tf__vision_tokens(const tf__vision_config *c, int32_t height, int32_t width);

/* Runs the tower. Refused, naming the argument and its value, with nothing
 * written: B < 1, C not the tower's, H or W not a positive multiple of p (a
 * Conv2d would drop the rest), H x W other than the trained size without
 * interpolate_pos_encoding (upstream's "Input image size (H*W) doesn't match
 * model (S*S)."), a non-finite pixel, an output the tower has no head for. */
tf_status tf__vision_forward(const tf__vision_model *m, const tf__vision_args *a);

#endif
