/* modernbert.c — ModernBERT (transformers' models/modernbert/
 * modeling_modernbert.py: ModernBertEmbeddings, ModernBertAttention,
 * ModernBertMLP, ModernBertEncoderLayer, ModernBertModel), under "model."
 * in task models. Token embeddings then a LayerNorm (no positions, no token
 * types); pre-norm layers whose layer 0 has no attn_norm (Identity); Wqkv
 * [3D, D] stacked q | k | v; rotary positions of the whole head, pairs
 * (i, i + d_k/2) (rotate_half), theta global_rope_theta in global layers and
 * local_rope_theta in local ones, computed for any length
 * (ModernBertRotaryEmbedding has no table: max_position_embeddings is the
 * trained length, not a bound), unscaled (a rope_scaling, which
 * ModernBertConfig merges into both layer types' rope_parameters, is
 * refused); layer l global when l %
 * global_attn_every_n_layers == 0, a local one seeing keys |i - j| <=
 * local_attention // 2; ModernBertMLP: input, gate = Wi(h).chunk(2),
 * Wo(act(input) * gate), so Wi [2F, D] stacks the activated half first;
 * final_norm after the last layer. Linear biases by attention_bias and
 * mlp_bias, LayerNorm biases by norm_bias (all false by default). The
 * MaskedLM head (head.*, decoder.*) is not loaded.
 * ModernBertForSequenceClassification: classifier(head(pool(h))), pool by
 * classifier_pooling ("cls": h[:, 0]; "mean": the mean over the attention
 * mask), ModernBertPredictionHead: norm(act(dense(x))), dense [D, D] with a
 * bias by classifier_bias, act ACT2FN[classifier_activation], norm a
 * LayerNorm with norm_eps and a bias by norm_bias; classifier [labels, D]
 * with a bias; dropout off. */
#include <string.h>

#include "error.h"
#include "hf_family.h"
#include "json_file.h"

static const char *const model_types[] = {"modernbert", NULL};
static const char *const class_prefixes[] = {"ModernBert", NULL};

static const tf__name_rule top[] = {{"embeddings.tok_embeddings.weight", "embed.token.weight", 1},
                                    {"embeddings.norm.weight", "embed.norm.weight", 1},
                                    {"embeddings.norm.bias", "embed.norm.bias", 1},
                                    {"final_norm.weight", "final_norm.weight", 1},
                                    {"final_norm.bias", "final_norm.bias", 1},
                                    {NULL, NULL, 0}};

static const tf__name_rule layer[] = {{"attn_norm.weight", "norm1.weight", 1},
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

static const tf__hf_key keys[] = {
    {"hidden_act", "hidden_activation"}, {"layer_norm_eps", "norm_eps"}, {NULL, NULL}};

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
static tf_status configure_biases(const tf__hf_config *json, tf_config *c)
{
    const int32_t attention = json->attention_bias > 0, mlp = json->mlp_bias > 0,
                  norm = json->norm_bias > 0;
    if (attention != mlp)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: attention_bias %s with mlp_bias %s is "
                        "not supported (this library's Linear layers have biases all or none)",
                        bool_name(attention), bool_name(mlp));
    if (attention && !norm)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: attention_bias true with norm_bias "
                        "false is not supported (Linear biases come with LayerNorm biases "
                        "in this library)");
    c->bias = attention;
    c->norm_bias = !attention && norm;
    return TF_OK;
}

static tf_status configure(const tf__hf_config *json, tf_config *c)
{
    if (json->rope_scaling_type[0])
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: rope_scaling type \"%s\" is not "
                        "supported for ModernBERT (its rotary bases are global_rope_theta and "
                        "local_rope_theta, unscaled)",
                        json->rope_scaling_type);
    const int64_t window = json->local_attention >= 0 ? json->local_attention
                                                      : DEFAULT_LOCAL_ATTENTION;
    if (window < 2)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: local_attention %lld is not supported "
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

/* classifier_activation values, as transformers' ACT2FN computes them. */
static const struct {
    const char *name;
    tf__dense_activation act;
} head_activations[] = {
    {"gelu", TF_DENSE_GELU},        /* torch's erf GELU */
    {"gelu_python", TF_DENSE_GELU}, /* the same formula written in Python */
    {"relu", TF_DENSE_RELU},        {"tanh", TF_DENSE_TANH},
    {"sigmoid", TF_DENSE_SIGMOID},  {"linear", TF_DENSE_IDENTITY}, /* LinearActivation */
};
enum { N_HEAD_ACTIVATIONS = sizeof head_activations / sizeof head_activations[0] };

static tf_status head_activation(const char *name, const char *label, tf__dense_activation *act)
{
    for (int i = 0; i < N_HEAD_ACTIVATIONS; i++)
        if (strcmp(name, head_activations[i].name) == 0) {
            *act = head_activations[i].act;
            return TF_OK;
        }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: classifier_activation \"%s\" is not supported "
                    "(gelu, gelu_python, relu, tanh, sigmoid and linear are)",
                    label, name);
}

/* ModernBertConfig's defaults: classifier_pooling "cls", classifier_activation
 * "gelu", classifier_bias and norm_bias false. */
static tf_status configure_head(const cJSON *root, const char *label, tf__hf_seq_head *head)
{
    const char *pooling = "cls", *activation = "gelu";
    head->dense_bias = 0, head->norm_bias = 0;
    tf_status s = tf__json_get_string(root, "classifier_pooling", label, &pooling);
    if (s == TF_OK)
        s = tf__json_get_string(root, "classifier_activation", label, &activation);
    if (s == TF_OK)
        s = tf__json_get_bool(root, "classifier_bias", label, &head->dense_bias);
    if (s == TF_OK)
        s = tf__json_get_bool(root, "norm_bias", label, &head->norm_bias);
    if (s)
        return s;
    if (strcmp(pooling, "cls") != 0 && strcmp(pooling, "mean") != 0)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: classifier_pooling \"%s\" is not supported "
                        "(\"cls\" and \"mean\" are, as ModernBertForSequenceClassification's)",
                        label, pooling);
    head->pooling = pooling[0] == 'c' ? TF_POOLING_CLS : TF_POOLING_MEAN;
    return head_activation(activation, label, &head->dense_act);
}

const tf__hf_family tf__family_modernbert = {
    .format = "huggingface-modernbert",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "model.",
    .layer_prefix = "layers.",
    .top = top,
    .layer = layer,
    .keys = keys,
    .padded_positions = 0,
    .seq_head = {.dense = "head.dense",
                 .dense_act = TF_DENSE_GELU,
                 .out = "classifier",
                 .norm = "head.norm"},
    .default_pad_token_id = 50283,
    .gate_first = 1,
    .configure = configure,
    .configure_head = configure_head,
};
