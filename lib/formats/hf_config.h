/* hf_config.h — the fields of a Hugging Face config.json the loader
 * uses (absent ones are -1); hf_config.c's table lists every field it reads,
 * refuses or ignores. */
#ifndef TF_HF_CONFIG_H
#define TF_HF_CONFIG_H

#include <stdint.h>

#include "tfenc.h"

/* The longest string field value kept (a longer one is refused). */
#define TF_HF_NAME_MAX 32

typedef struct tf__hf_config {
    int64_t hidden_size, num_attention_heads, intermediate_size, num_hidden_layers;
    int64_t vocab_size, max_position_embeddings, type_vocab_size, embedding_size, pad_token_id;
    int32_t activation; /* tf_activation from hidden_act */
    double layer_norm_eps;
    /* ModernBERT's (families/modernbert.c): absent -1 */
    double global_rope_theta, local_rope_theta;
    int64_t local_attention, global_attn_every_n_layers;
    int32_t attention_bias, mlp_bias, norm_bias; /* 0 or 1 */
    /* NomicBERT's, GTE's and JinaBERT's (families/nomic_bert.c, gte.c,
       jina_bert.c): absent -1 or "" */
    double rope_theta;            /* GTE's rope_theta, nomic's rotary_emb_base */
    double rotary_emb_fraction;   /* nomic: the rotated share of each head, [0, 1] */
    double rotary_scaling_factor; /* nomic: dynamic NTK factor, >= 1 */
    double rope_scaling_factor;   /* GTE: rope_scaling's factor, >= 1 */
    int64_t max_trained_positions, n_inner;
    int64_t pad_vocab_size_multiple; /* nomic: vocab_size is rounded up to a multiple */
    int32_t rotary_emb_interleaved, mlp_fc2_bias, prenorm; /* 0 or 1 */
    char activation_function[TF_HF_NAME_MAX];              /* nomic's */
    char feed_forward_type[TF_HF_NAME_MAX];                /* JinaBERT's */
    char layer_norm_type[TF_HF_NAME_MAX];                  /* GTE's */
    char rope_scaling_type[TF_HF_NAME_MAX];                /* GTE: rope_scaling's type */
    /* MPNet's (families/mpnet.c): absent -1 */
    int64_t relative_attention_num_buckets;
    const struct tf__hf_family *family; /* model_type's, or NULL without one */
} tf__hf_config;

/* Marks every field absent. */
void tf__hf_config_init(tf__hf_config *c);

/* Reads path (at most 16 MiB of JSON). */
tf_status tf__hf_config_read(tf__hf_config *c, const char *path);

/* Parses len bytes of config.json text; label prefixes messages. A field
 * that changes the computation in a way this library does not is
 * TF_ERR_UNSUPPORTED naming it and its value; a malformed one TF_ERR_FORMAT. */
tf_status tf__hf_config_parse(tf__hf_config *c, const char *text, size_t len, const char *label);

#endif
