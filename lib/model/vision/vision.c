/* vision.c — a vision tower's config (family defaults, validation), its
 * own tensors (one block, one table) and its encoder. */
#include "vision.h"

#include <math.h>
#include <string.h>

#include "alloc.h"
#include "config.h"
#include "encoder.h"
#include "error.h"
#include "vision_model.h"

static const char *const family_names[TF_VISION_FAMILY_COUNT] = {
    [TF_VISION_VIT] = "vit",
    [TF_VISION_CLIP] = "clip",
    [TF_VISION_SIGLIP] = "siglip",
};

const char *tf__vision_family_name(int32_t family)
{
    return family >= 0 && family < TF_VISION_FAMILY_COUNT ? family_names[family] : NULL;
}

void tf__vision_config_defaults(tf__vision_config *c, int32_t family)
{
    /* ViTConfig, CLIPVisionConfig, SiglipVisionConfig: 224 x 224 images,
     * 3 channels, D 768, H 12, F 3072, 12 layers; what differs: */
    static const struct {
        int32_t patch_size, activation;
        float eps;
        int32_t class_token, patch_bias, pre_norm, final_norm, post_norm;
    } family_defaults[TF_VISION_FAMILY_COUNT] = {
        [TF_VISION_VIT] = {16, TF_ACTIVATION_GELU, 1e-12f, 1, 1, 0, 1, 0},
        [TF_VISION_CLIP] = {32, TF_ACTIVATION_QUICK_GELU, 1e-5f, 1, 0, 1, 0, 1},
        [TF_VISION_SIGLIP] = {16, TF_ACTIVATION_GELU_TANH, 1e-6f, 0, 1, 0, 1, 0},
    };
    const int32_t f = family >= 0 && family < TF_VISION_FAMILY_COUNT ? family : TF_VISION_VIT;
    *c = (tf__vision_config){.family = f,
                             .image_size = 224,
                             .patch_size = family_defaults[f].patch_size,
                             .channels = 3,
                             .d_model = 768,
                             .n_heads = 12,
                             .d_ff = 3072,
                             .n_layers = 12,
                             .activation = family_defaults[f].activation,
                             .layer_norm_eps = family_defaults[f].eps,
                             .class_token = family_defaults[f].class_token,
                             .patch_bias = family_defaults[f].patch_bias,
                             .qkv_bias = 1,
                             .pre_norm = family_defaults[f].pre_norm,
                             .final_norm = family_defaults[f].final_norm,
                             .post_norm = family_defaults[f].post_norm};
}

/* The largest image side and patch side: a grid of at most 4096 x 4096
 * patches keeps every count the BLAS sees in an int. */
#define TF_VISION_MAX_IMAGE (1 << 16)
#define TF_VISION_MAX_CHANNELS 16

static tf_status check_range(const char *field, int64_t v, int64_t lo, int64_t hi)
{
    if (v < lo || v > hi)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "vision config: %s must be in %lld..%lld, got %lld", field, (long long)lo,
                        (long long)hi, (long long)v);
    return TF_OK;
}

tf_status tf__vision_config_validate(const tf__vision_config *c)
{
    if (!tf__vision_family_name(c->family))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "vision config: family must be 0..%d, got %d",
                        TF_VISION_FAMILY_COUNT - 1, (int)c->family);
    const struct {
        const char *field;
        int64_t v, lo, hi;
    } ranges[] = {
        {"image_size", c->image_size, 1, TF_VISION_MAX_IMAGE},
        {"patch_size", c->patch_size, 1, c->image_size},
        {"channels", c->channels, 1, TF_VISION_MAX_CHANNELS},
        {"n_layers", c->n_layers, 1, TF_MAX_LAYERS},
        {"n_labels", c->n_labels, 0, TF_MAX_D_FF},
        {"projection_dim", c->projection_dim, 0, TF_MAX_D_MODEL},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
        tf_status s = check_range(ranges[i].field, ranges[i].v, ranges[i].lo, ranges[i].hi);
        if (s)
            return s;
    }
    if (c->image_size % c->patch_size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "vision config: image_size %d is not a multiple of patch_size %d",
                        (int)c->image_size, (int)c->patch_size);
    const int64_t K = (int64_t)c->channels * c->patch_size * c->patch_size;
    if (K > INT32_MAX)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "vision config: a patch of %d channels x %d x %d has %lld values, over "
                        "%d",
                        (int)c->channels, (int)c->patch_size, (int)c->patch_size, (long long)K,
                        INT32_MAX);
    if (!(c->layer_norm_eps > 0.0f) || !isfinite(c->layer_norm_eps))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "vision config: layer_norm_eps must be positive and finite, got %g",
                        (double)c->layer_norm_eps);
    const struct {
        const char *head;
        int32_t on, family;
    } heads[] = {
        {"pooler", c->pooler, TF_VISION_VIT},
        {"n_labels", c->n_labels, TF_VISION_VIT},
        {"projection_dim", c->projection_dim, TF_VISION_CLIP},
        {"attention_pool", c->attention_pool, TF_VISION_SIGLIP},
    };
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++)
        if (heads[i].on && c->family != heads[i].family)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "vision config: %s %d is a %s head; this tower is %s", heads[i].head,
                            (int)heads[i].on, family_names[heads[i].family],
                            family_names[c->family]);
    tf_config e;
    tf__vision_encoder_config(c, &e);
    tf_config valid;
    return tf__config_validate(&e, &valid); /* D, H, F, the activation */
}

void tf__vision_encoder_config(const tf__vision_config *c, tf_config *e)
{
    tf_config_init(e);
    e->d_model = c->d_model;
    e->n_heads = c->n_heads;
    e->d_ff = c->d_ff;
    e->n_layers = c->n_layers;
    e->vocab_size = 0; /* the embeddings come in as vectors */
    e->max_positions = 0;
    e->position = TF_POSITION_NONE; /* added with the embeddings */
    e->n_token_types = 0;
    e->embedding_norm = c->pre_norm;
    e->norm_placement = TF_NORM_PRE;
    e->final_norm = c->final_norm;
    e->activation = c->activation;
    e->bias = 1;
    e->pooler = c->pooler;
    e->layer_norm_eps = c->layer_norm_eps;
}

int32_t tf__vision_tokens(const tf__vision_config *c, int32_t height, int32_t width)
{
    if (height <= 0 || width <= 0 || height % c->patch_size || width % c->patch_size)
        return 0;
    return (height / c->patch_size) * (width / c->patch_size) + (c->class_token ? 1 : 0);
}

/* ---- The tensor table ------------------------------------------------------ */

/* Adds tensor name of shape dims (rank values) to m's table. */
static void add(tf__vision_model *m, const char *name, int32_t rank, const int64_t *dims,
                int transposed)
{
    tf__vision_tensor *t = &m->tensors[m->n_tensors++];
    t->name = name;
    t->rank = rank;
    t->count = 1;
    for (int32_t i = 0; i < rank; i++) {
        t->dims[i] = dims[i];
        t->count *= (size_t)dims[i];
    }
    t->offset = m->n_floats;
    t->transposed = transposed;
    m->n_floats += t->count;
}

/* A vector of n floats, with a leading [1, 1] where upstream keeps a
 * parameter as [1, 1, n] (ViT's cls_token, SigLIP's probe). */
static void add_vector(tf__vision_model *m, const char *name, int64_t n, int batched)
{
    const int64_t batched_dims[3] = {1, 1, n};
    add(m, name, batched ? 3 : 1, batched ? batched_dims : batched_dims + 2, 0);
}

static void add_matrix(tf__vision_model *m, const char *name, int64_t rows, int64_t cols)
{
    const int64_t dims[2] = {rows, cols};
    add(m, name, 2, dims, 0);
}

/* Every tensor of the tower outside its encoder, in upstream's shapes. */
static void lay_out(tf__vision_model *m)
{
    const tf__vision_config *c = &m->cfg;
    const int64_t D = c->d_model, F = c->d_ff, p = c->patch_size;
    const int64_t grid = c->image_size / c->patch_size;
    const int64_t positions = grid * grid + (c->class_token ? 1 : 0);
    const int vit = c->family == TF_VISION_VIT;
    const int64_t patch_dims[4] = {D, c->channels, p, p};
    add(m, TF_VISION_PATCH_WEIGHT, 4, patch_dims, 1);
    if (c->patch_bias)
        add_vector(m, TF_VISION_PATCH_BIAS, D, 0);
    if (c->class_token)
        add_vector(m, TF_VISION_CLASS_TOKEN, D, vit);
    const int64_t position_dims[3] = {1, positions, D}; /* ViT's [1, T, D]; else [T, D] */
    add(m, TF_VISION_POSITION, vit ? 3 : 2, vit ? position_dims : position_dims + 1, 0);
    if (c->post_norm) {
        add_vector(m, TF_VISION_POST_NORM_WEIGHT, D, 0);
        add_vector(m, TF_VISION_POST_NORM_BIAS, D, 0);
    }
    if (c->n_labels) {
        add_matrix(m, TF_VISION_CLASSIFIER_WEIGHT, c->n_labels, D);
        add_vector(m, TF_VISION_CLASSIFIER_BIAS, c->n_labels, 0);
    }
    if (c->projection_dim)
        add_matrix(m, TF_VISION_PROJECTION_WEIGHT, c->projection_dim, D);
    if (c->attention_pool) {
        add_vector(m, TF_VISION_HEAD_PROBE, D, 1);
        add_matrix(m, TF_VISION_HEAD_IN_WEIGHT, 3 * D, D);
        add_vector(m, TF_VISION_HEAD_IN_BIAS, 3 * D, 0);
        add_matrix(m, TF_VISION_HEAD_OUT_WEIGHT, D, D);
        add_vector(m, TF_VISION_HEAD_OUT_BIAS, D, 0);
        add_vector(m, TF_VISION_HEAD_NORM_WEIGHT, D, 0);
        add_vector(m, TF_VISION_HEAD_NORM_BIAS, D, 0);
        add_matrix(m, TF_VISION_HEAD_FC1_WEIGHT, F, D);
        add_vector(m, TF_VISION_HEAD_FC1_BIAS, F, 0);
        add_matrix(m, TF_VISION_HEAD_FC2_WEIGHT, D, F);
        add_vector(m, TF_VISION_HEAD_FC2_BIAS, D, 0);
    }
}

const float *tf__vision_view(const tf__vision_model *m, const char *name)
{
    const tf__vision_tensor *t = tf__vision_tensor_find(m, name);
    return t ? m->block + t->offset : NULL;
}

tf_status tf__vision_model_new(const tf__vision_config *c, tf__vision_model **out)
{
    *out = NULL;
    tf_status s = tf__vision_config_validate(c);
    if (s)
        return s;
    tf__vision_model *m = tf__calloc(1, sizeof *m);
    if (!m)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "vision: cannot allocate the model");
    m->cfg = *c;
    lay_out(m);
    m->block = tf__malloc(m->n_floats * sizeof *m->block);
    tf_config e, valid;
    tf__vision_encoder_config(c, &e);
    if (!m->block)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "vision: cannot allocate %zu floats of weights",
                     m->n_floats);
    else if (!(s = tf__config_validate(&e, &valid)))
        s = tf__encoder_new(&valid, &m->encoder);
    if (s) {
        tf__vision_model_free(m);
        return s;
    }
    *out = m;
    return TF_OK;
}

void tf__vision_model_free(tf__vision_model *m)
{
    if (!m)
        return;
    tf_encoder_destroy(m->encoder);
    tf__free(m->block);
    tf__free(m);
}

const tf__vision_config *tf__vision_model_config(const tf__vision_model *m)
{
    return &m->cfg;
}

tf_encoder *tf__vision_model_encoder(tf__vision_model *m)
{
    return m->encoder;
}

const tf__vision_tensor *tf__vision_tensor_find(const tf__vision_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0)
            return &m->tensors[i];
    return NULL;
}

void tf__vision_tensor_put(tf__vision_model *m, const tf__vision_tensor *t, const float *src)
{
    float *dst = m->block + t->offset;
    if (!t->transposed) {
        memcpy(dst, src, t->count * sizeof *dst);
        return;
    }
    /* src (rows, cols) -> dst (cols, rows) */
    const size_t rows = (size_t)t->dims[0], cols = t->count / rows;
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < cols; k++)
            dst[k * rows + r] = src[r * cols + k];
}
