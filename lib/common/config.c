/* config.c — the tutorial's model as the default, and config validation. */
#include "config.h"

#include <math.h>
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
    tf_abi_init(cfg, struct_size, &defaults, sizeof defaults);
}

void (tf_config_init)(tf_config *cfg)
{
    tf_config_init_sized(cfg, TF_CONFIG_SIZE_0_1);
}

static tf_status check_range(const char *field, int32_t value, int32_t lo, int32_t hi)
{
    if (value < lo || value > hi)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "config.%s: expected %d..%d, got %d", field,
                       (int)lo, (int)hi, (int)value);
    return TF_OK;
}

tf_status tf_config_validate(const tf_config *cfg, tf_config *out)
{
    if (!cfg)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "config is NULL");
    tf_config c = defaults;
    tf_status s = tf_abi_read(&c, sizeof c, cfg, TF_CONFIG_SIZE_0_1, "config");
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
        return tf_fail(TF_ERR_INVALID_ARGUMENT,
                       "config.n_heads: d_model %d is not divisible by n_heads %d", (int)cfg->d_model,
                       (int)cfg->n_heads);
    if (cfg->position == TF_POSITION_LEARNED && cfg->max_positions == 0)
        return tf_fail(TF_ERR_INVALID_ARGUMENT,
                       "config.max_positions: learned positions need a table size > 0, got 0");
    if (cfg->position_offset != 0 && (cfg->position != TF_POSITION_LEARNED ||
                                      cfg->position_offset < 0 ||
                                      cfg->position_offset >= cfg->max_positions))
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "config.position_offset: expected 0, or with "
                       "learned positions 1..%d (max_positions - 1), got %d",
                       (int)cfg->max_positions - 1, (int)cfg->position_offset);
    if (!(cfg->layer_norm_eps > 0.0f) || !isfinite(cfg->layer_norm_eps))
        return tf_fail(TF_ERR_INVALID_ARGUMENT,
                       "config.layer_norm_eps: expected a finite value > 0, got %g",
                       (double)cfg->layer_norm_eps);
    *out = *cfg;
    return TF_OK;
}
