/* config.c — the tutorial's model as the default, and config validation. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "error.h"

void tf_config_init(tf_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->struct_size = sizeof *cfg;
    cfg->d_model = 512;
    cfg->n_heads = 8;
    cfg->d_ff = 2048;
    cfg->n_layers = 1;
    cfg->vocab_size = 0;
    cfg->max_positions = 0;
    cfg->position = TF_POSITION_SINUSOIDAL;
    cfg->n_token_types = 0;
    cfg->embedding_norm = 0;
    cfg->norm_placement = TF_NORM_POST;
    cfg->final_norm = 0;
    cfg->activation = TF_ACTIVATION_GELU;
    cfg->bias = 1;
    cfg->pooler = 0;
    cfg->layer_norm_eps = 1e-5f;
    cfg->seed = 0;
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
    if (cfg->struct_size != sizeof(tf_config))
        return tf_fail(TF_ERR_INVALID_ARGUMENT,
                       "config.struct_size: expected %zu (this library's tf_config), got %zu; "
                       "initialise it with tf_config_init()",
                       sizeof(tf_config), cfg->struct_size);
    tf_status s;
    if ((s = check_range("d_model", cfg->d_model, 1, TF_MAX_D_MODEL)) ||
        (s = check_range("n_heads", cfg->n_heads, 1, cfg->d_model)) ||
        (s = check_range("d_ff", cfg->d_ff, 1, TF_MAX_D_FF)) ||
        (s = check_range("n_layers", cfg->n_layers, 1, TF_MAX_LAYERS)) ||
        (s = check_range("vocab_size", cfg->vocab_size, 0, TF_MAX_VOCAB)) ||
        (s = check_range("max_positions", cfg->max_positions, 0, TF_MAX_POSITIONS)) ||
        (s = check_range("position", cfg->position, TF_POSITION_NONE, TF_POSITION_LEARNED)) ||
        (s = check_range("n_token_types", cfg->n_token_types, 0, TF_MAX_TOKEN_TYPES)) ||
        (s = check_range("embedding_norm", cfg->embedding_norm, 0, 1)) ||
        (s = check_range("norm_placement", cfg->norm_placement, TF_NORM_POST, TF_NORM_PRE)) ||
        (s = check_range("final_norm", cfg->final_norm, 0, 1)) ||
        (s = check_range("activation", cfg->activation, TF_ACTIVATION_GELU, TF_ACTIVATION_RELU)) ||
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
    if (!(cfg->layer_norm_eps > 0.0f) || !isfinite(cfg->layer_norm_eps))
        return tf_fail(TF_ERR_INVALID_ARGUMENT,
                       "config.layer_norm_eps: expected a finite value > 0, got %g",
                       (double)cfg->layer_norm_eps);
    *out = *cfg;
    return TF_OK;
}
