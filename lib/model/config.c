/* config.c — the tutorial's model as the default, and config validation. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "error.h"
#include "names.h"

static const tf_config defaults = {
    .struct_size = sizeof(tf_config),
    .d_model = 512,
    .n_heads = 8,
    .d_ff = 2048,
    .n_layers = 1,
    .vocab_size = 0,
    .max_positions = 0,
    .position = TF_POSITION_SINUSOIDAL,
    .n_token_types = 0,
    .embedding_norm = 0,
    .norm_placement = TF_NORM_POST,
    .final_norm = 0,
    .activation = TF_ACTIVATION_GELU,
    .bias = 1,
    .pooler = 0,
    .layer_norm_eps = 1e-5f,
    .seed = 0,
    .position_offset = 0,
};

void tf_config_init_sized(tf_config *cfg, size_t struct_size)
{
    tf__abi_init(cfg, struct_size, &defaults, sizeof defaults);
}

void(tf_config_init)(tf_config *cfg)
{
    tf_config_init_sized(cfg, TF_CONFIG_SIZE_0_1);
}

static tf_status check_range(const char *field, int32_t value, int32_t lo, int32_t hi)
{
    if (value < lo || value > hi)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "config.%s: expected %d..%d, got %d", field,
                        (int)lo, (int)hi, (int)value);
    return TF_OK;
}

/* A float field that is 0 (its default) or finite and above lo (at lo
 * too when `or_equal`). */
static tf_status check_float(const char *field, float value, float lo, int or_equal)
{
    if (value != 0.0f && !(isfinite(value) && (value > lo || (or_equal && value == lo))))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.%s: expected 0 or a finite value %s %g, "
                        "got %g",
                        field, or_equal ? ">=" : ">", (double)lo, (double)value);
    return TF_OK;
}

/* A field that only means something beside another one, set (to value)
 * where that one is not (`needs` says what is missing). */
static tf_status check_needs(const char *field, double value, int present, const char *needs)
{
    if (value != 0.0 && !present)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "config.%s: %g needs %s", field, value, needs);
    return TF_OK;
}

/* The relative position bias: R even in 4..TF_RELATIVE_MAX_BUCKETS (half
 * the buckets a direction), M past the exact buckets. */
static tf_status validate_relative(const tf_config *c)
{
    tf_status s;
    if ((s = check_range("relative_buckets", c->relative_buckets, 0, TF_RELATIVE_MAX_BUCKETS)) ||
        (s = check_range("relative_max_distance", c->relative_max_distance, 0, TF_MAX_POSITIONS)))
        return s;
    if (c->relative_buckets != 0 && (c->relative_buckets < 4 || c->relative_buckets % 2 != 0))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.relative_buckets: expected 0 or an even number in 4..%d (half "
                        "the buckets for each direction, exact and logarithmic ones in each), "
                        "got %d",
                        TF_RELATIVE_MAX_BUCKETS, (int)c->relative_buckets);
    if ((s = check_needs("relative_max_distance", c->relative_max_distance,
                         c->relative_buckets != 0, "relative_buckets")))
        return s;
    if (c->relative_max_distance != 0 && c->relative_max_distance <= tf__relative_exact_of(c))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.relative_max_distance: expected 0 or more than relative_buckets "
                        "/ 4 = %d (the distances with a bucket each), got %d",
                        (int)tf__relative_exact_of(c), (int)c->relative_max_distance);
    return TF_OK;
}

/* The fields 0.4.0 added: each alone, then how they fit the others. */
static tf_status validate_0_4(const tf_config *c)
{
    const int32_t d_k = c->d_model / c->n_heads;
    const int rotary = c->position == TF_POSITION_ROTARY;
    char no_rotary[64];
    snprintf(no_rotary, sizeof no_rotary, "position \"rotary\" (it is \"%s\")",
             tf_position_name(c->position));
    tf_status s;
    if ((s = check_range("ffn_gated", c->ffn_gated, 0, 1)) ||
        (s = check_range("norm_bias", c->norm_bias, 0, 1)) ||
        (s = check_range("skip_first_norm1", c->skip_first_norm1, 0, 1)) ||
        (s = check_range("rotary_dim", c->rotary_dim, 0, d_k)) ||
        (s = check_range("rotary_interleaved", c->rotary_interleaved, 0, 1)) ||
        (s = check_float("rotary_base", c->rotary_base, 1.0f, 0)) ||
        (s = check_float("rotary_base_local", c->rotary_base_local, 1.0f, 0)) ||
        (s = check_float("rotary_ntk_factor", c->rotary_ntk_factor, 1.0f, 1)) ||
        (s = check_float("rotary_linear_factor", c->rotary_linear_factor, 1.0f, 1)) ||
        (s = check_range("rotary_ntk_positions", c->rotary_ntk_positions, 0, TF_MAX_POSITIONS)) ||
        (s = check_range("attn_window", c->attn_window, 0, TF_MAX_POSITIONS)) ||
        (s = check_range("global_every", c->global_every, 0, TF_MAX_LAYERS)) ||
        (s = check_range("embedding_dim", c->embedding_dim, 0, TF_MAX_D_MODEL)) ||
        (s = check_range("qk_norm", c->qk_norm, 0, 1)) ||
        (s = check_range("add_norm1b", c->add_norm1b, 0, 1)))
        return s;
    if (c->rotary_dim % 2 != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.rotary_dim: expected an even number (dimensions rotate in pairs), "
                        "got %d",
                        (int)c->rotary_dim);
    if (rotary && c->rotary_dim == 0 && d_k % 2 != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.rotary_dim: 0 rotates all d_k = %d dimensions, which is odd; set "
                        "an even rotary_dim",
                        (int)d_k);
    if (rotary && c->rotary_ntk_factor != 0.0f && tf__rotary_dim_of(c) <= 2)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.rotary_ntk_factor: %g needs a rotary_dim > 2 (it is %d): NTK "
                        "scaling raises theta to the power r / (r - 2)",
                        (double)c->rotary_ntk_factor, (int)tf__rotary_dim_of(c));
    if (c->attn_window % 2 != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.attn_window: expected an even number (W/2 keys each side), got %d",
                        (int)c->attn_window);
    if ((s = validate_relative(c)))
        return s;
    if ((s = check_needs("skip_first_norm1", c->skip_first_norm1, c->norm_placement == TF_NORM_PRE,
                         "norm_placement \"pre\" (it is \"post\")")) ||
        (s = check_needs("add_norm1b", c->add_norm1b, c->norm_placement == TF_NORM_POST,
                         "norm_placement \"post\" (it is \"pre\")")) ||
        (s = check_needs("rotary_dim", c->rotary_dim, rotary, no_rotary)) ||
        (s = check_needs("rotary_interleaved", c->rotary_interleaved, rotary, no_rotary)) ||
        (s = check_needs("rotary_base", c->rotary_base, rotary, no_rotary)) ||
        (s = check_needs("rotary_base_local", c->rotary_base_local, rotary, no_rotary)) ||
        (s = check_needs("rotary_ntk_factor", c->rotary_ntk_factor, rotary, no_rotary)) ||
        (s = check_needs("rotary_linear_factor", c->rotary_linear_factor, rotary, no_rotary)) ||
        (s = check_needs("rotary_ntk_positions", c->rotary_ntk_positions,
                         c->rotary_ntk_factor != 0.0f, "a rotary_ntk_factor")) ||
        (s = check_needs("global_every", c->global_every, c->attn_window != 0, "an attn_window")))
        return s;
    return TF_OK;
}

tf_status tf__config_validate(const tf_config *cfg, tf_config *out)
{
    if (!cfg)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "config is NULL");
    tf_config c = defaults;
    tf_status s = tf__abi_read(&c, sizeof c, cfg, TF_CONFIG_SIZE_0_1, "config");
    if (s)
        return s;
    cfg = &c;
    if ((s = check_range("d_model", cfg->d_model, 1, TF_MAX_D_MODEL)) ||
        (s = check_range("n_heads", cfg->n_heads, 1, cfg->d_model)) ||
        (s = check_range("d_ff", cfg->d_ff, 1, TF_MAX_D_FF)) ||
        (s = check_range("n_layers", cfg->n_layers, 1, TF_MAX_LAYERS)) ||
        (s = check_range("vocab_size", cfg->vocab_size, 0, TF_MAX_VOCAB)) ||
        (s = check_range("max_positions", cfg->max_positions, 0, TF_MAX_POSITIONS)) ||
        (s = check_range("position", cfg->position, 0, TF_POSITION_COUNT - 1)) ||
        (s = check_range("n_token_types", cfg->n_token_types, 0, TF_MAX_TOKEN_TYPES)) ||
        (s = check_range("embedding_norm", cfg->embedding_norm, 0, 1)) ||
        (s = check_range("norm_placement", cfg->norm_placement, 0, TF_NORM_COUNT - 1)) ||
        (s = check_range("final_norm", cfg->final_norm, 0, 1)) ||
        (s = check_range("activation", cfg->activation, 0, TF_ACTIVATION_COUNT - 1)) ||
        (s = check_range("bias", cfg->bias, 0, 1)) ||
        (s = check_range("pooler", cfg->pooler, 0, 1)))
        return s;
    if (cfg->d_model % cfg->n_heads != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.n_heads: d_model %d is not divisible by n_heads %d",
                        (int)cfg->d_model, (int)cfg->n_heads);
    if (cfg->position == TF_POSITION_LEARNED && cfg->max_positions == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.max_positions: learned positions need a table size > 0, got 0");
    if (cfg->position_offset != 0 &&
        (cfg->position != TF_POSITION_LEARNED || cfg->position_offset < 0 ||
         cfg->position_offset >= cfg->max_positions))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.position_offset: expected 0, or with "
                        "learned positions 1..%d (max_positions - 1), got %d",
                        (int)cfg->max_positions - 1, (int)cfg->position_offset);
    if (!(cfg->layer_norm_eps > 0.0f) || !isfinite(cfg->layer_norm_eps))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "config.layer_norm_eps: expected a finite value > 0, got %g",
                        (double)cfg->layer_norm_eps);
    if ((s = validate_0_4(cfg)))
        return s;
    *out = *cfg;
    return TF_OK;
}
