/* weights.c — the parameter block: names, shapes, offsets, initialisation,
 * and the public get/set-by-name API. */
#include "weights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "config.h"
#include "encoder.h"
#include "error.h"
#include "rng.h"

#define TF_BLOCK_ALIGN 64

/* Collects tensors in block order; `slots[i]` is the view to point at
 * tensor i once the block exists (or NULL). */
typedef struct table_builder {
    tf__tensor *tensors;
    const float ***slots;
    size_t n, cap;
    size_t n_floats;
    int overflow;
} table_builder;

static void add_tensor(table_builder *b, const float **slot, const char *name, int32_t rank,
                       int64_t d0, int64_t d1, tf__init_kind init, double bound)
{
    tf__tensor *t = &b->tensors[b->n];
    if (snprintf(t->name, sizeof t->name, "%s", name) >= (int)sizeof t->name)
        b->overflow =
            1; /* unreachable: the longest name, "layers.1023.attn.q_norm.weight", has 30 bytes */
    t->rank = rank;
    t->dims[0] = d0;
    t->dims[1] = rank == 2 ? d1 : 0;
    t->init = init;
    t->init_bound = bound;
    t->offset = b->n_floats;
    if (!tf__mul_size((size_t)d0, rank == 2 ? (size_t)d1 : 1, &t->count) ||
        !tf__add_size(b->n_floats, t->count, &b->n_floats))
        b->overflow = 1;
    b->slots[b->n++] = slot;
}

/* Tensors first .. first + n - 1, a layer projection's (out, in) weights
 * laid out one after the other, stored transposed instead: one (in, sum of
 * outs) matrix, each tensor its columns. */
static void transpose_projection(table_builder *b, size_t first, size_t n)
{
    size_t ld = 0;
    for (size_t k = first; k < first + n; k++)
        ld += (size_t)b->tensors[k].dims[0];
    size_t column = b->tensors[first].offset;
    for (size_t k = first; k < first + n; k++) {
        b->tensors[k].offset = column;
        b->tensors[k].transposed_ld = ld;
        column += (size_t)b->tensors[k].dims[0];
    }
}

/* A LayerNorm over `width` features: its weight (ones) and, with biases
 * (cfg.bias or cfg.norm_bias), its bias (zeros). */
static void add_norm_of(table_builder *b, const tf_config *cfg, const char *prefix, int32_t width,
                        const float **w_slot, const float **b_slot)
{
    char name[TF_TENSOR_NAME_MAX + 8];
    snprintf(name, sizeof name, "%s.weight", prefix);
    add_tensor(b, w_slot, name, 1, width, 0, TF_INIT_ONES, 0);
    if (cfg->bias || cfg->norm_bias) {
        snprintf(name, sizeof name, "%s.bias", prefix);
        add_tensor(b, b_slot, name, 1, width, 0, TF_INIT_ZEROS, 0);
    }
}

/* A LayerNorm over D features. */
static void add_norm(table_builder *b, const tf_config *cfg, const char *prefix,
                     const float **w_slot, const float **b_slot)
{
    add_norm_of(b, cfg, prefix, cfg->d_model, w_slot, b_slot);
}

/* A Linear's weight [out, in] and, with biases, its bias [out]; both
 * U(-1/sqrt(in), 1/sqrt(in)) as nn.Linear initialises them. */
static void add_linear(table_builder *b, const tf_config *cfg, const char *prefix, int32_t out,
                       int32_t in, const float **w_slot, const float **b_slot)
{
    char name[TF_TENSOR_NAME_MAX + 8];
    double bound = 1.0 / sqrt((double)in);
    snprintf(name, sizeof name, "%s.weight", prefix);
    add_tensor(b, w_slot, name, 2, out, in, TF_INIT_UNIFORM, bound);
    if (cfg->bias) {
        snprintf(name, sizeof name, "%s.bias", prefix);
        add_tensor(b, b_slot, name, 1, out, 0, TF_INIT_UNIFORM, bound);
    }
}

/* The feed-forward block's D -> F projection: up (F, D), and for a gated
 * block gate (F, D) beside it, one (D, F) or (D, 2F) transposed matrix;
 * then their biases, (F) or (2F). */
static void add_ffn_in(table_builder *b, const tf_config *cfg, int32_t l, tf__layer_weights *lw)
{
    static const char *const parts[2] = {"up", "gate"};
    const int n = cfg->ffn_gated ? 2 : 1;
    const double bound = 1.0 / sqrt((double)cfg->d_model);
    char name[TF_TENSOR_NAME_MAX];
    const size_t first = b->n;
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "layers.%d.ffn.%s.weight", (int)l, parts[i]);
        add_tensor(b, i == 0 ? &lw->up_w : NULL, name, 2, cfg->d_ff, cfg->d_model, TF_INIT_UNIFORM,
                   bound);
    }
    transpose_projection(b, first, (size_t)n);
    for (int i = 0; cfg->bias && i < n; i++) {
        snprintf(name, sizeof name, "layers.%d.ffn.%s.bias", (int)l, parts[i]);
        add_tensor(b, i == 0 ? &lw->up_b : NULL, name, 1, cfg->d_ff, 0, TF_INIT_UNIFORM, bound);
    }
}

static void add_layer(table_builder *b, const tf_config *cfg, int32_t l, tf__layer_weights *lw)
{
    const int32_t D = cfg->d_model, F = cfg->d_ff;
    const double bound = 1.0 / sqrt((double)D);
    static const char *const qkv[3] = {"q", "k", "v"};
    char name[TF_TENSOR_NAME_MAX], prefix[TF_TENSOR_NAME_MAX];

    /* q, k, v weights adjacent: one (D, 3D) transposed matrix; then their
     * biases: (3D). */
    const size_t first = b->n;
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "layers.%d.attn.%s.weight", (int)l, qkv[i]);
        add_tensor(b, i == 0 ? &lw->qkv_w : NULL, name, 2, D, D, TF_INIT_UNIFORM, bound);
    }
    transpose_projection(b, first, 3);
    for (int i = 0; cfg->bias && i < 3; i++) {
        snprintf(name, sizeof name, "layers.%d.attn.%s.bias", (int)l, qkv[i]);
        add_tensor(b, i == 0 ? &lw->qkv_b : NULL, name, 1, D, 0, TF_INIT_UNIFORM, bound);
    }
    if (cfg->qk_norm) { /* over each row's D features of Q, then of K */
        snprintf(prefix, sizeof prefix, "layers.%d.attn.q_norm", (int)l);
        add_norm(b, cfg, prefix, &lw->q_norm_w, &lw->q_norm_b);
        snprintf(prefix, sizeof prefix, "layers.%d.attn.k_norm", (int)l);
        add_norm(b, cfg, prefix, &lw->k_norm_w, &lw->k_norm_b);
    }
    snprintf(prefix, sizeof prefix, "layers.%d.attn.out", (int)l);
    const size_t out = b->n;
    add_linear(b, cfg, prefix, D, D, &lw->out_w, &lw->out_b);
    transpose_projection(b, out, 1);
    snprintf(prefix, sizeof prefix, "layers.%d.norm1", (int)l);
    if (!(l == 0 && cfg->skip_first_norm1))
        add_norm(b, cfg, prefix, &lw->norm1_w, &lw->norm1_b);
    if (cfg->add_norm1b) {
        snprintf(prefix, sizeof prefix, "layers.%d.norm1b", (int)l);
        add_norm(b, cfg, prefix, &lw->norm1b_w, &lw->norm1b_b);
    }
    add_ffn_in(b, cfg, l, lw);
    snprintf(prefix, sizeof prefix, "layers.%d.ffn.down", (int)l);
    const size_t down = b->n;
    add_linear(b, cfg, prefix, D, F, &lw->down_w, &lw->down_b);
    transpose_projection(b, down, 1);
    snprintf(prefix, sizeof prefix, "layers.%d.norm2", (int)l);
    add_norm(b, cfg, prefix, &lw->norm2_w, &lw->norm2_b);
}

/* The embeddings, E wide (tf__embed_width), and their projection to D. */
static void add_embeddings(table_builder *b, const tf_config *cfg, tf__weights *w)
{
    const int32_t E = tf__embed_width(cfg);
    if (cfg->vocab_size > 0)
        add_tensor(b, &w->token, "embed.token.weight", 2, cfg->vocab_size, E, TF_INIT_NORMAL, 0);
    if (cfg->position == TF_POSITION_LEARNED)
        add_tensor(b, &w->position, "embed.position.weight", 2, cfg->max_positions, E,
                   TF_INIT_NORMAL, 0);
    if (cfg->n_token_types > 0)
        add_tensor(b, &w->token_type, "embed.token_type.weight", 2, cfg->n_token_types, E,
                   TF_INIT_NORMAL, 0);
    if (cfg->embedding_norm)
        add_norm_of(b, cfg, "embed.norm", E, &w->embed_norm_w, &w->embed_norm_b);
    if (tf__embed_projects(cfg))
        add_linear(b, cfg, "embed.project", cfg->d_model, E, &w->embed_proj_w, &w->embed_proj_b);
}

static void build_table(table_builder *b, const tf_config *cfg, tf__weights *w)
{
    const int32_t D = cfg->d_model;
    add_embeddings(b, cfg, w);
    if (cfg->relative_buckets > 0) /* nn.Embedding (R, H), shared by every layer */
        add_tensor(b, &w->relative_bias, "relative_bias.weight", 2, cfg->relative_buckets,
                   cfg->n_heads, TF_INIT_NORMAL, 0);
    for (int32_t l = 0; l < cfg->n_layers; l++)
        add_layer(b, cfg, l, &w->layers[l]);
    if (cfg->final_norm)
        add_norm(b, cfg, "final_norm", &w->final_norm_w, &w->final_norm_b);
    if (cfg->pooler)
        add_linear(b, cfg, "pooler", D, D, &w->pooler_w, &w->pooler_b);
}

void tf__weights_init_random(tf__weights *w, uint64_t seed)
{
    tf__rng rng = {seed};
    for (size_t i = 0; i < w->n_tensors; i++) {
        const tf__tensor *t = &w->tensors[i];
        for (size_t j = 0; j < t->count; j++) {
            float *p = w->block + tf__tensor_at(t, j);
            switch (t->init) {
            case TF_INIT_UNIFORM:
                *p = (float)(t->init_bound * (2.0 * tf__rng_uniform(&rng) - 1.0));
                break;
            case TF_INIT_NORMAL:
                *p = (float)tf__rng_normal(&rng);
                break;
            case TF_INIT_ONES:
                *p = 1.0f;
                break;
            case TF_INIT_ZEROS:
                *p = 0.0f;
                break;
            }
        }
    }
}

tf_status tf__weights_layout(tf__weights *w, const tf_config *cfg)
{
    memset(w, 0, sizeof *w);
    /* Upper bound on the tensor count: 12 outside the layers, 24 per layer. */
    table_builder b = {.cap = 12 + 24 * (size_t)cfg->n_layers};
    b.tensors = tf__calloc(b.cap, sizeof *b.tensors);
    b.slots = tf__calloc(b.cap, sizeof *b.slots);
    w->layers = tf__calloc((size_t)cfg->n_layers, sizeof *w->layers);
    size_t bytes;
    if (!b.tensors || !b.slots || !w->layers) {
        tf__free(b.tensors);
        tf__free(b.slots);
        tf__free(w->layers);
        memset(w, 0, sizeof *w);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "weights: cannot allocate the tensor table");
    }
    build_table(&b, cfg, w);
    w->tensors = b.tensors;
    w->slots = b.slots;
    w->n_tensors = b.n;
    w->n_floats = b.n_floats;
    if (b.overflow || !tf__mul_size(b.n_floats, sizeof(float), &bytes)) {
        tf__weights_destroy(w);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "weights: the parameter count overflows size_t");
    }
    return TF_OK;
}

tf_status tf__weights_allocate(tf__weights *w)
{
    /* aligned_alloc wants a multiple of the alignment (no overflow: the
     * layout checked n_floats * 4, and SIZE_MAX is far above it) */
    size_t bytes = w->n_floats * sizeof(float) + TF_BLOCK_ALIGN - 1;
    bytes -= bytes % TF_BLOCK_ALIGN;
    w->block = tf__aligned_alloc(TF_BLOCK_ALIGN, bytes ? bytes : TF_BLOCK_ALIGN);
    if (!w->block)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "weights: cannot allocate %zu floats (%zu bytes)",
                        w->n_floats, bytes);
    for (size_t i = 0; i < w->n_tensors; i++)
        if (w->slots[i])
            *w->slots[i] = w->block + w->tensors[i].offset;
    tf__free(w->slots);
    w->slots = NULL;
    return TF_OK;
}

void tf__weights_destroy(tf__weights *w)
{
    tf__free(w->block);
    tf__free(w->tensors);
    tf__free(w->layers);
    tf__free(w->slots);
    memset(w, 0, sizeof *w);
}

void tf__weights_put(tf__weights *w, const tf__tensor *t, size_t first, const float *src, size_t n)
{
    if (!t->transposed_ld) {
        memcpy(w->block + t->offset + first, src, n * sizeof *src);
        return;
    }
    for (size_t i = 0; i < n; i++)
        w->block[tf__tensor_at(t, first + i)] = src[i];
}

void tf__weights_get(const tf__weights *w, const tf__tensor *t, size_t first, float *dst, size_t n)
{
    if (!t->transposed_ld) {
        memcpy(dst, w->block + t->offset + first, n * sizeof *dst);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = w->block[tf__tensor_at(t, first + i)];
}

const tf__tensor *tf__weights_find(const tf__weights *w, const char *name)
{
    for (size_t i = 0; i < w->n_tensors; i++)
        if (strcmp(w->tensors[i].name, name) == 0)
            return &w->tensors[i];
    return NULL;
}

/* ---- Public API: tensors by name ---------------------------------------- */

size_t tf_encoder_tensor_count(const tf_encoder *enc)
{
    return enc ? enc->weights.n_tensors : 0;
}

const char *tf_encoder_tensor_name(const tf_encoder *enc, size_t index)
{
    if (!enc || index >= enc->weights.n_tensors)
        return NULL;
    return enc->weights.tensors[index].name;
}

static tf_status lookup(const tf_encoder *enc, const char *name, const tf__tensor **out)
{
    if (!enc)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "encoder is NULL");
    if (!name)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "tensor name is NULL");
    *out = tf__weights_find(&enc->weights, name);
    if (!*out)
        return tf__fail(TF_ERR_NOT_FOUND, "%s: no tensor of that name in this model", name);
    return TF_OK;
}

/* The caller's (rank, dims) must be exactly the tensor's shape. */
static tf_status check_shape(const tf__tensor *t, int32_t rank, const int64_t *dims)
{
    if (rank < 0 || rank > TF_MAX_RANK || (rank > 0 && !dims))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: rank %d with %s dims is not a shape (rank 0..%d, dims non-NULL)",
                        t->name, (int)rank, dims ? "non-NULL" : "NULL", TF_MAX_RANK);
    int same = rank == t->rank;
    for (int32_t i = 0; same && i < rank; i++)
        same = dims[i] == t->dims[i];
    if (!same) {
        char want[64], got[256];
        tf__format_shape(want, sizeof want, t->rank, t->dims);
        tf__format_shape(got, sizeof got, rank, dims);
        return tf__fail(TF_ERR_SHAPE, "%s: expected %s, got %s", t->name, want, got);
    }
    return TF_OK;
}

tf_status tf_encoder_tensor_shape(const tf_encoder *enc, const char *name, int32_t *rank,
                                  int64_t *dims)
{
    const tf__tensor *t;
    tf_status s = lookup(enc, name, &t);
    if (s)
        return s;
    if (!rank || !dims)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: rank or dims is NULL", name);
    *rank = t->rank;
    for (int i = 0; i < TF_MAX_RANK; i++)
        dims[i] = i < t->rank ? t->dims[i] : 0;
    return TF_OK;
}

/* The tensor `name`, when (rank, dims) is its shape and the caller's
 * buffer (`role`: "source", "destination") is there. */
static tf_status lookup_for_copy(const tf_encoder *enc, const char *name, int32_t rank,
                                 const int64_t *dims, const float *buffer, const char *role,
                                 const tf__tensor **t)
{
    tf_status s = lookup(enc, name, t);
    if (s || (s = check_shape(*t, rank, dims)))
        return s;
    if (!buffer)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name, role);
    return TF_OK;
}

tf_status tf_encoder_get_tensor(const tf_encoder *enc, const char *name, float *dst, int32_t rank,
                                const int64_t *dims)
{
    const tf__tensor *t;
    tf_status s = lookup_for_copy(enc, name, rank, dims, dst, "destination", &t);
    if (s)
        return s;
    tf__weights_get(&enc->weights, t, 0, dst, t->count);
    return TF_OK;
}

tf_status tf_encoder_set_tensor(tf_encoder *enc, const char *name, const float *src, int32_t rank,
                                const int64_t *dims)
{
    const tf__tensor *t;
    tf_status s = lookup_for_copy(enc, name, rank, dims, src, "source", &t);
    if (s)
        return s;
    const size_t cols = t->rank == 2 ? (size_t)t->dims[1] : t->count;
    for (size_t i = 0; i < t->count; i++) {
        if (!isfinite(src[i])) {
            if (t->rank == 2)
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "%s: element [%zu, %zu] is %g; weights must be finite", name,
                                i / cols, i % cols, (double)src[i]);
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "%s: element [%zu] is %g; weights must be finite", name, i,
                            (double)src[i]);
        }
    }
    tf__weights_put(&enc->weights, t, 0, src, t->count);
    return TF_OK;
}
