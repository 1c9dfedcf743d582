/* weights.h — every parameter of a model in one contiguous block, with a
 * table of names, shapes and offsets (like llm.c's parameter block). */
#ifndef TF_WEIGHTS_H
#define TF_WEIGHTS_H

#include "tfenc.h"

#define TF_TENSOR_NAME_MAX 48

typedef enum tf__init_kind {
    TF_INIT_UNIFORM, /* U(-bound, bound): nn.Linear's weight and bias */
    TF_INIT_NORMAL,  /* N(0, 1): nn.Embedding */
    TF_INIT_ONES,    /* LayerNorm weight */
    TF_INIT_ZEROS    /* LayerNorm bias */
} tf__init_kind;

typedef struct tf__tensor {
    char name[TF_TENSOR_NAME_MAX];
    int32_t rank; /* 1 or 2 */
    int64_t dims[2];
    size_t offset; /* in floats, from the start of the block, of its first value */
    size_t count;  /* number of floats */
    /* 0: stored as its shape says. Otherwise a layer's projection weight
     * (out, in), stored transposed as columns of an (in, transposed_ld)
     * row-major matrix that q, k, v (or up, gate) share: value [r, c] at
     * offset + c * transposed_ld + r (tf__tensor_at). cblas_sgemm packs a
     * weight in that orientation by copying rows, which measured faster
     * than gathering PyTorch's (linear.h). */
    size_t transposed_ld;
    tf__init_kind init;
    double init_bound;
} tf__tensor;

/* Views into the block for one layer. Biases are NULL when cfg.bias is 0
 * (a LayerNorm's when cfg.norm_bias is 0 too); norm1 is NULL for layer 0
 * with cfg.skip_first_norm1; q_norm, k_norm and norm1b NULL without
 * cfg.qk_norm and cfg.add_norm1b. */
typedef struct tf__layer_weights {
    /* The four projections' weights are stored transposed (tf__tensor's
     * transposed_ld): (in, out) row-major. */
    const float *qkv_w;               /* (D, 3D): q, k, v weights side by side */
    const float *qkv_b;               /* (3D) */
    const float *q_norm_w, *q_norm_b; /* (D), with cfg.qk_norm: Q's LayerNorm */
    const float *k_norm_w, *k_norm_b; /* (D), with cfg.qk_norm: K's LayerNorm */
    const float *out_w;               /* (D, D), transposed */
    const float *out_b;               /* (D) */
    const float *norm1_w;             /* (D) */
    const float *norm1_b;             /* (D) */
    const float *norm1b_w, *norm1b_b; /* (D), with cfg.add_norm1b */
    const float *up_w;                /* (D, F); with cfg.ffn_gated (D, 2F): up, then gate */
    const float *up_b;                /* (F); with cfg.ffn_gated (2F) */
    const float *down_w;              /* (F, D) */
    const float *down_b;              /* (D) */
    const float *norm2_w;             /* (D) */
    const float *norm2_b;             /* (D) */
} tf__layer_weights;

typedef struct tf__weights {
    float *block; /* all parameters, n_floats of them */
    size_t n_floats;
    tf__tensor *tensors; /* in block order */
    size_t n_tensors;
    /* Views (NULL when the config has no such tensor). */
    const float *token;                       /* (V, E): E the embeddings' width, D unless
                                cfg.embedding_dim says otherwise */
    const float *position;                    /* (P, E) */
    const float *token_type;                  /* (n_token_types, E) */
    const float *embed_norm_w, *embed_norm_b; /* (E) */
    const float *embed_proj_w;                /* (D, E), when E != D */
    const float *embed_proj_b;                /* (D) */
    const float *final_norm_w, *final_norm_b; /* (D) */
    const float *relative_bias; /* (R, H): each relative-position bucket's bias per head */
    const float *pooler_w;      /* (D, D) */
    const float *pooler_b;      /* (D) */
    tf__layer_weights *layers;  /* [n_layers] */
    const float ***slots;       /* [n_tensors] view to point at each tensor, until
                                 the block exists */
} tf__weights;

/* The tensor table of a validated config (names, shapes, offsets), without
 * the block. On failure nothing is left allocated. */
tf_status tf__weights_layout(tf__weights *w, const tf_config *cfg);
/* Allocates the block of a laid-out table (values uninitialised) and points
 * the views into it. */
tf_status tf__weights_allocate(tf__weights *w);
/* Fills the block as PyTorch initialises the same modules, from seed. */
void tf__weights_init_random(tf__weights *w, uint64_t seed);
/* Frees whatever exists (table, block); w may be half-built. */
void tf__weights_destroy(tf__weights *w);

/* The tensor called `name`, or NULL. */
const tf__tensor *tf__weights_find(const tf__weights *w, const char *name);

/* Where in the block value i of t is, i counting row-major over t's shape
 * and, for a transposed projection, on past its end into the tensors that
 * share its matrix (k and v after q, gate after up), as a checkpoint's
 * fused tensor lays them out. */
static inline size_t tf__tensor_at(const tf__tensor *t, size_t i)
{
    if (!t->transposed_ld)
        return t->offset + i;
    const size_t cols = (size_t)t->dims[1];
    return t->offset + i % cols * t->transposed_ld + i / cols;
}

/* Writes values [first, first + n) of t (tf__tensor_at's counting) from src. */
void tf__weights_put(tf__weights *w, const tf__tensor *t, size_t first, const float *src, size_t n);
/* Reads values [first, first + n) of t into dst. */
void tf__weights_get(const tf__weights *w, const tf__tensor *t, size_t first, float *dst, size_t n);

#endif
