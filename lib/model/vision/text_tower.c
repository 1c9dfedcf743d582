/* text_tower.c — a CLIP or SigLIP text tower: its config's defaults and derived
 * settings, its encoder and projection, and one forward call:
 *   ids [B, T] -> the encoder (token + learned positions, pre-norm layers, causal
 *   for CLIP, final norm) -> h [B, T, D] -> pooled (B, D) -> out [B, E]. */
#include "text_tower.h"

#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "config.h"
#include "encoder.h"
#include "error.h"
#include "linear.h"
#include "schedule.h"
#include "vision.h"

/* CLIP's text_config before transformers 4.31 says eos_token_id 2 (openai's
 * config.json), and CLIPTextTransformer then pools at the largest id. */
#define TF_CLIP_LEGACY_EOS 2

struct tf__text_tower {
    tf__text_config cfg;
    tf_encoder *encoder;
    float *projection_w; /* (E, D) */
    float *projection_b; /* (E), or NULL */
};

void tf__text_config_defaults(tf__text_config *c, int32_t family)
{
    const int clip = family == TF_VISION_CLIP;
    /* CLIPTextConfig / SiglipTextConfig */
    *c = (tf__text_config){.family = family,
                           .vocab_size = clip ? 49408 : 32000,
                           .max_positions = clip ? 77 : 64,
                           .d_model = clip ? 512 : 768,
                           .n_heads = clip ? 8 : 12,
                           .d_ff = clip ? 2048 : 3072,
                           .n_layers = 12,
                           .activation = clip ? TF_ACTIVATION_QUICK_GELU : TF_ACTIVATION_GELU_TANH,
                           .layer_norm_eps = clip ? 1e-5f : 1e-6f,
                           .eos_token_id = 49407,
                           .projection_dim = clip ? 512 : 768};
}

tf__text_pooling tf__text_pooling_of(const tf__text_config *c)
{
    if (c->family != TF_VISION_CLIP)
        return TF_TEXT_POOL_LAST;
    return c->eos_token_id == TF_CLIP_LEGACY_EOS ? TF_TEXT_POOL_EOS_ARGMAX : TF_TEXT_POOL_EOS_FIRST;
}

int tf__text_causal(const tf__text_config *c)
{
    return c->family == TF_VISION_CLIP;
}

int tf__text_projection_bias(const tf__text_config *c)
{
    return c->family != TF_VISION_CLIP;
}

/* The encoder's config: token and learned position embeddings, pre-norm
 * layers with biases, a final norm. */
static void encoder_config(const tf__text_config *c, tf_config *e)
{
    tf_config_init(e);
    e->d_model = c->d_model;
    e->n_heads = c->n_heads;
    e->d_ff = c->d_ff;
    e->n_layers = c->n_layers;
    e->vocab_size = c->vocab_size;
    e->max_positions = c->max_positions;
    e->position = TF_POSITION_LEARNED;
    e->n_token_types = 0;
    e->embedding_norm = 0;
    e->norm_placement = TF_NORM_PRE;
    e->final_norm = 1;
    e->activation = c->activation;
    e->bias = 1;
    e->layer_norm_eps = c->layer_norm_eps;
}

tf_status tf__text_tower_new(const tf__text_config *c, tf__text_tower **out)
{
    *out = NULL;
    if (c->projection_dim < 1 || c->projection_dim > TF_MAX_D_MODEL)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "text config: projection_dim must be in 1..%d, "
                        "got %d",
                        TF_MAX_D_MODEL, (int)c->projection_dim);
    tf_config e, valid;
    encoder_config(c, &e);
    tf_status s = tf__config_validate(&e, &valid);
    if (s)
        return s;
    tf__text_tower *m = tf__calloc(1, sizeof *m);
    if (!m)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "text tower: cannot allocate the model");
    m->cfg = *c;
    const size_t E = (size_t)c->projection_dim, D = (size_t)c->d_model;
    m->projection_w = tf__malloc(E * D * sizeof *m->projection_w);
    if (tf__text_projection_bias(c))
        m->projection_b = tf__malloc(E * sizeof *m->projection_b);
    if (!m->projection_w || (tf__text_projection_bias(c) && !m->projection_b))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "text tower: cannot allocate the projection");
    else
        s = tf__encoder_new(&valid, &m->encoder);
    if (s) {
        tf__text_tower_free(m);
        return s;
    }
    *out = m;
    return TF_OK;
}

void tf__text_tower_free(tf__text_tower *m)
{
    if (!m)
        return;
    tf_encoder_destroy(m->encoder);
    tf__free(m->projection_w);
    tf__free(m->projection_b);
    tf__free(m);
}

const tf__text_config *tf__text_tower_config(const tf__text_tower *m)
{
    return &m->cfg;
}

tf_encoder *tf__text_tower_encoder(tf__text_tower *m)
{
    return m->encoder;
}

float *tf__text_tower_projection_weight(tf__text_tower *m)
{
    return m->projection_w;
}

float *tf__text_tower_projection_bias(tf__text_tower *m)
{
    return m->projection_b;
}

/* The real tokens of row b: those before its first 0 in mask, or T. */
static int32_t real_length(const int32_t *mask, int32_t b, int32_t T)
{
    int32_t len = 0;
    while (mask && len < T && mask[(size_t)b * (size_t)T + (size_t)len])
        len++;
    return mask ? len : T;
}

/* The position of row (T ids) that upstream pools. */
static int32_t pooled_position(const tf__text_config *c, const int32_t *row, int32_t T)
{
    int32_t at = 0;
    switch (tf__text_pooling_of(c)) {
    case TF_TEXT_POOL_EOS_ARGMAX: /* input_ids.argmax(-1): the first largest */
        for (int32_t t = 1; t < T; t++)
            at = row[t] > row[at] ? t : at;
        return at;
    case TF_TEXT_POOL_EOS_FIRST: /* (input_ids == eos_token_id).int().argmax(-1) */
        while (at < T && row[at] != c->eos_token_id)
            at++;
        return at < T ? at : 0;
    case TF_TEXT_POOL_LAST:
        break;
    }
    return T - 1;
}

/* positions [B] = each text's pooled row; refused when one is padding
 * (text b named first + b). */
static tf_status pooled_positions(int32_t *positions, const tf__text_config *c, const int32_t *ids,
                                  const int32_t *mask, int32_t B, int32_t T, size_t first)
{
    for (int32_t b = 0; b < B; b++) {
        const int32_t at = pooled_position(c, ids + (size_t)b * (size_t)T, T);
        const int32_t len = real_length(mask, b, T);
        if (at >= len)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "text %zu: the pooled position %d (%s) is padding: the text has %d "
                            "tokens",
                            first + (size_t)b, (int)at,
                            tf__text_pooling_of(c) == TF_TEXT_POOL_EOS_ARGMAX
                                ? "its largest id"
                                : "its first eos_token_id",
                            (int)len);
        positions[b] = at;
    }
    return TF_OK;
}

tf_status tf__text_tower_forward(const tf__text_tower *m, const int32_t *ids, const int32_t *mask,
                                 int32_t B, int32_t T, size_t first, int32_t n_threads, float *out)
{
    const tf__text_config *c = &m->cfg;
    const size_t D = (size_t)c->d_model, E = (size_t)c->projection_dim;
    if (B < 1 || T < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "text tower: %d texts of %d tokens", (int)B,
                        (int)T);
    int32_t *positions = tf__malloc((size_t)B * sizeof *positions);
    float *hidden = tf__malloc((size_t)B * (size_t)T * D * sizeof *hidden); /* [B, T, D] */
    float *pooled = tf__malloc((size_t)B * D * sizeof *pooled);             /* (B, D) */
    tf_status s = TF_OK;
    if (!positions || !hidden || !pooled)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "text tower: cannot allocate %d x %d hidden states",
                     (int)B, (int)T);
    if (s == TF_OK)
        s = pooled_positions(positions, c, ids, mask, B, T, first);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.attention_mask = mask;
    a.causal = tf__text_causal(c);
    a.output = hidden;
    a.n_threads = n_threads;
    if (s == TF_OK)
        s = tf_encoder_forward(m->encoder, &a);
    if (s == TF_OK) {
        for (size_t b = 0; b < (size_t)B; b++) /* pooled[b] = h[b, positions[b]] */
            memcpy(pooled + b * D, hidden + (b * (size_t)T + (size_t)positions[b]) * D,
                   D * sizeof *pooled);
        tf__schedule sched; /* the BLAS held as in every call */
        tf__schedule_begin(&sched, n_threads);
        tf__linear(out, pooled, m->projection_w, m->projection_b, (size_t)B, E, D);
        tf__schedule_end(&sched);
    }
    tf__free(positions);
    tf__free(hidden);
    tf__free(pooled);
    return s;
}
