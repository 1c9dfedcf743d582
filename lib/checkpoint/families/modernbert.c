/* modernbert.c — ModernBERT (transformers' models/modernbert/
 * modeling_modernbert.py: ModernBertEmbeddings, ModernBertAttention,
 * ModernBertMLP, ModernBertEncoderLayer, ModernBertModel), under "model."
 * in task models. Token embeddings then a LayerNorm (no positions, no token
 * types); pre-norm layers whose layer 0 has no attn_norm (Identity); Wqkv
 * [3D, D] stacked q | k | v; rotary positions of the whole head, pairs
 * (i, i + d_k/2) (rotate_half), theta global_rope_theta in global layers and
 * local_rope_theta in local ones; layer l global when l %
 * global_attn_every_n_layers == 0, a local one seeing keys |i - j| <=
 * local_attention // 2; ModernBertMLP: input, gate = Wi(h).chunk(2),
 * Wo(act(input) * gate), so Wi [2F, D] stacks the activated half first;
 * final_norm after the last layer. Linear biases by attention_bias and
 * mlp_bias, LayerNorm biases by norm_bias (all false by default). The
 * MaskedLM head (head.*, decoder.*) is not loaded. */
#include "error.h"
#include "hf_family.h"

static const char *const model_types[] = {"modernbert", NULL};
static const char *const class_prefixes[] = {"ModernBert", NULL};

static const tf_name_rule top[] = {
    {"embeddings.tok_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.norm.weight", "embed.norm.weight", 1},
    {"embeddings.norm.bias", "embed.norm.bias", 1},
    {"final_norm.weight", "final_norm.weight", 1},
    {"final_norm.bias", "final_norm.bias", 1},
    {NULL, NULL, 0}};

static const tf_name_rule layer[] = {
    {"attn_norm.weight", "norm1.weight", 1},
    {"attn_norm.bias", "norm1.bias", 1},
    {"attn.Wqkv.weight", "attn.q.weight", 3},
    {"attn.Wqkv.bias", "attn.q.bias", 3},
    {"attn.Wo.weight", "attn.out.weight", 1},
    {"attn.Wo.bias", "attn.out.bias", 1},
    {"mlp_norm.weight", "norm2.weight", 1},
    {"mlp_norm.bias", "norm2.bias", 1},
    {"mlp.Wi.weight", "ffn.up.weight", 2},
    {"mlp.Wi.bias", "ffn.up.bias", 2},
    {"mlp.Wo.weight", "ffn.down.weight", 1},
    {"mlp.Wo.bias", "ffn.down.bias", 1},
    {NULL, NULL, 0}};

static const tf_hf_key keys[] = {
    {"hidden_act", "hidden_activation"},
    {"layer_norm_eps", "norm_eps"},
    {NULL, NULL}};

/* ModernBertConfig's defaults for keys config.json leaves out. */
#define DEFAULT_GLOBAL_THETA 160000.0
#define DEFAULT_LOCAL_THETA 10000.0
#define DEFAULT_LOCAL_ATTENTION 128
#define DEFAULT_GLOBAL_EVERY 3
#define DEFAULT_MAX_POSITIONS 8192
#define DEFAULT_NORM_EPS 1e-5f

static const char *bool_name(int32_t v)
{
    return v ? "true" : "false";
}

/* The library has one switch for every Linear's bias and one more for
 * LayerNorms' (tf_config.bias, norm_bias). */
static tf_status configure_biases(const tf_hf_config *json, tf_config *c)
{
    const int32_t attention = json->attention_bias > 0, mlp = json->mlp_bias > 0,
                  norm = json->norm_bias > 0;
    if (attention != mlp)
        return tf_fail(TF_ERR_UNSUPPORTED, "config.json: attention_bias %s with mlp_bias %s is "
                       "not supported (this library's Linear layers have biases all or none)",
                       bool_name(attention), bool_name(mlp));
    if (attention && !norm)
        return tf_fail(TF_ERR_UNSUPPORTED, "config.json: attention_bias true with norm_bias "
                       "false is not supported (Linear biases come with LayerNorm biases "
                       "in this library)");
    c->bias = attention;
    c->norm_bias = !attention && norm;
    return TF_OK;
}

static tf_status configure(const tf_hf_config *json, tf_config *c)
{
    const int64_t window = json->local_attention >= 0 ? json->local_attention
                                                      : DEFAULT_LOCAL_ATTENTION;
    if (window < 2)
        return tf_fail(TF_ERR_UNSUPPORTED, "config.json: local_attention %lld is not supported "
                       "(a window of at least 2: local layers would see only their own token)",
                       (long long)window);
    c->norm_placement = TF_NORM_PRE;
    c->skip_first_norm1 = 1;
    c->final_norm = 1;
    c->ffn_gated = 1;
    c->position = TF_POSITION_ROTARY;
    c->max_positions = json->max_position_embeddings >= 0 ? (int32_t)json->max_position_embeddings
                                                          : DEFAULT_MAX_POSITIONS;
    c->rotary_base = (float)(json->global_rope_theta > 0 ? json->global_rope_theta
                                                         : DEFAULT_GLOBAL_THETA);
    c->rotary_base_local = (float)(json->local_rope_theta > 0 ? json->local_rope_theta
                                                              : DEFAULT_LOCAL_THETA);
    /* |i - j| <= local_attention // 2 is the even window's mask */
    c->attn_window = (int32_t)(window - window % 2);
    c->global_every = json->global_attn_every_n_layers > 0
                          ? (int32_t)json->global_attn_every_n_layers
                          : DEFAULT_GLOBAL_EVERY;
    if (json->layer_norm_eps <= 0)
        c->layer_norm_eps = DEFAULT_NORM_EPS;
    return configure_biases(json, c);
}

const tf_hf_family tf_family_modernbert = {
    .format = "huggingface-modernbert",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "model.",
    .layer_prefix = "layers.",
    .top = top,
    .layer = layer,
    .keys = keys,
    .padded_positions = 0,
    .seq_head = {.dense = NULL, .dense_act = TF_DENSE_IDENTITY, .out = NULL},
    .default_pad_token_id = 50283,
    .gate_first = 1,
    .configure = configure,
};
