/* config_view.h — what a validated tf_config's fields imply, as
 * include/tfenc.h says it (each 0 that stands for a default, the local
 * layers), for the tools that describe a model (tfenc info, tfenc explain). */
#ifndef TFENC_CONFIG_VIEW_H
#define TFENC_CONFIG_VIEW_H

#include <stdint.h>

#include "tfenc.h"

/* Whether layer l attends locally: attn_window W > 0, and l not one of the
 * global layers (l % global_every == 0; none when global_every is 0). */
static inline int config_layer_is_local(const tf_config *cfg, int32_t l)
{
    return cfg->attn_window > 0 && (cfg->global_every == 0 || l % cfg->global_every != 0);
}

/* r, the rotated dimensions of each head of a rotary config: rotary_dim,
 * or d_k when it is 0. */
static inline int32_t config_rotary_dim(const tf_config *cfg)
{
    return cfg->rotary_dim ? cfg->rotary_dim : cfg->d_model / cfg->n_heads;
}

/* theta of a rotary config's global layers: rotary_base, or
 * TF_ROTARY_DEFAULT_THETA when it is 0. */
static inline double config_rotary_theta(const tf_config *cfg)
{
    return cfg->rotary_base ? (double)cfg->rotary_base : TF_ROTARY_DEFAULT_THETA;
}

/* E of a relative config, the distances with a bucket each: floor(R / 4). */
static inline int32_t config_relative_exact(const tf_config *cfg)
{
    return cfg->relative_buckets / 4;
}

/* M of a relative config: relative_max_distance, or
 * TF_RELATIVE_DEFAULT_MAX_DISTANCE when it is 0. */
static inline int32_t config_relative_max_distance(const tf_config *cfg)
{
    return cfg->relative_max_distance ? cfg->relative_max_distance
                                      : TF_RELATIVE_DEFAULT_MAX_DISTANCE;
}

/* E, the width of the embeddings: embedding_dim, or D when it is 0. */
static inline int32_t config_embed_width(const tf_config *cfg)
{
    return cfg->embedding_dim ? cfg->embedding_dim : cfg->d_model;
}

/* Whether the embeddings are projected from E to D (embed.project). */
static inline int config_embed_projects(const tf_config *cfg)
{
    return config_embed_width(cfg) != cfg->d_model;
}

#endif
