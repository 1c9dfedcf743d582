/* config.h — what a tf_config means for the model (its limits are tfenc.h's TF_MAX_*): its
 * validation (config.c, with its defaults), and what its fields imply
 * (local layers, rotary and relative positions, the embeddings' width). */
#ifndef TF_CONFIG_H
#define TF_CONFIG_H

#include "tfenc.h" /* the limits TF_MAX_*, TF_ROTARY_DEFAULT_THETA, TF_RELATIVE_DEFAULT_... */

/* Whether layer l of a validated config attends locally (attn_window). */
static inline int tf__layer_is_local(const tf_config *cfg, int32_t l)
{
    return cfg->attn_window > 0 && (cfg->global_every == 0 || l % cfg->global_every != 0);
}

/* r, the rotated dimensions of each head of a rotary config: rotary_dim,
 * or d_k when it is 0. */
static inline int32_t tf__rotary_dim_of(const tf_config *cfg)
{
    return cfg->rotary_dim ? cfg->rotary_dim : cfg->d_model / cfg->n_heads;
}

/* Relative position bias (tf_config.relative_buckets): the most buckets
 * (M when relative_max_distance is 0 is tfenc.h's TF_RELATIVE_DEFAULT_MAX_DISTANCE,
 * MPNet's relative_position_bucket and T5's default). */
#define TF_RELATIVE_MAX_BUCKETS 1024

/* E of a relative config, the distances with a bucket each: floor(R / 4). */
static inline int32_t tf__relative_exact_of(const tf_config *cfg)
{
    return cfg->relative_buckets / 4;
}

/* M of a relative config: relative_max_distance, or the default when 0. */
static inline int32_t tf__relative_max_distance_of(const tf_config *cfg)
{
    return cfg->relative_max_distance ? cfg->relative_max_distance
                                      : TF_RELATIVE_DEFAULT_MAX_DISTANCE;
}

/* E, the width of a validated config's embeddings: embedding_dim, or D
 * when it is 0. */
static inline int32_t tf__embed_width(const tf_config *cfg)
{
    return cfg->embedding_dim ? cfg->embedding_dim : cfg->d_model;
}

/* Whether the embeddings are projected from E to D (embed.project). */
static inline int tf__embed_projects(const tf_config *cfg)
{
    return tf__embed_width(cfg) != cfg->d_model;
}

/* Checks a caller's config and copies it into *out (with this library's
 * struct_size). On failure *out is untouched and the message names the
 * field and its value. */
tf_status tf__config_validate(const tf_config *cfg, tf_config *out);

#endif
