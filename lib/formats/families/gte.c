/* gte.c — GTE v1.5 (model_type "new": Alibaba-NLP/new-impl modeling.py:
 * NewEmbeddings, NewAttention, NewGatedMLP, NewLayer, NewModel;
 * configuration.py: NewConfig's defaults), under "new." in task models.
 * Word (and token-type) embeddings then embeddings.LayerNorm; post-norm
 * layers attn_ln(x + o_proj(attn(qkv_proj x))), mlp_ln(x + down_proj(...));
 * qkv_proj [3D, D] stacked q | k | v (or q_proj, k_proj, v_proj without
 * pack_qkv); rotary positions of the whole head, pairs (i, i + d_k/2), base
 * rope_theta; NewGatedMLP: up, gate = up_gate_proj(x).split(F), so the
 * multiplied half comes first, down_proj(act(gate) * up); up_gate_proj has
 * no bias while every other Linear has one (zero_tensors). rope_scaling
 * {"type": "ntk", "factor": a}: NTKScalingRotaryEmbedding's fixed NTK
 * scaling, inv_freq = (theta a)^(-2i/r) / a^(2/r), which is base theta a with
 * positions divided by a^(2/r) (tf_config.rotary_linear_factor). Positions
 * of any length: RotaryEmbedding.forward rebuilds the cache past
 * max_seq_len_cached (max_position_embeddings a) with the same inv_freq
 * (NTKScalingRotaryEmbedding._set_cos_sin_cache rescales past
 * max_position_embeddings, which it never moves), so max_position_embeddings
 * is the trained length, not a bound. */
#include <math.h>
#include <string.h>

#include "error.h"
#include "hf_family.h"

static const char *const model_types[] = {"new", NULL};
static const char *const class_prefixes[] = {"New", NULL};
static const char *const remote_code[] = {"Alibaba-NLP/new-impl--", NULL};
static const char *const zero_tensors[] = {"ffn.up.bias", "ffn.gate.bias", NULL};

static const tf__name_rule top[] = {
    {"embeddings.word_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.token_type_embeddings.weight", "embed.token_type.weight", 1},
    {"embeddings.LayerNorm.weight", "embed.norm.weight", 1},
    {"embeddings.LayerNorm.bias", "embed.norm.bias", 1},
    {NULL, NULL, 0}};

static const tf__name_rule layer[] = {
    {"attention.qkv_proj.weight", "attn.q.weight", 3},
    {"attention.qkv_proj.bias", "attn.q.bias", 3},
    {"attention.q_proj.weight", "attn.q.weight", 1}, /* pack_qkv false */
    {"attention.q_proj.bias", "attn.q.bias", 1},
    {"attention.k_proj.weight", "attn.k.weight", 1},
    {"attention.k_proj.bias", "attn.k.bias", 1},
    {"attention.v_proj.weight", "attn.v.weight", 1},
    {"attention.v_proj.bias", "attn.v.bias", 1},
    {"attention.o_proj.weight", "attn.out.weight", 1},
    {"attention.o_proj.bias", "attn.out.bias", 1},
    {"attn_ln.weight", "norm1.weight", 1},
    {"attn_ln.bias", "norm1.bias", 1},
    {"mlp.up_gate_proj.weight", "ffn.up.weight", 2},
    {"mlp.down_proj.weight", "ffn.down.weight", 1},
    {"mlp.down_proj.bias", "ffn.down.bias", 1},
    {"mlp_ln.weight", "norm2.weight", 1},
    {"mlp_ln.bias", "norm2.bias", 1},
    {NULL, NULL, 0}};

/* NewConfig's defaults for keys config.json leaves out. */
#define DEFAULT_THETA 10000.0
#define DEFAULT_MAX_POSITIONS 512

/* rope_scaling: only NTKScalingRotaryEmbedding's "ntk" (without mixed_b,
 * which hf_config.c refuses) is in new-impl's code. */
static tf_status configure_scaling(const tf__hf_config *json, tf_config *c, double theta)
{
    c->rotary_base = (float)theta;
    if (!json->rope_scaling_type[0])
        return TF_OK;
    if (strcmp(json->rope_scaling_type, "ntk") != 0)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: rope_scaling.type \"%s\" is not "
                        "supported (\"ntk\" is)",
                        json->rope_scaling_type);
    if (c->n_heads <= 0)
        return tf__fail(TF_ERR_FORMAT,
                        "config.json: rope_scaling needs num_attention_heads (its "
                        "scaling depends on the head size)");
    const int32_t head_size = c->d_model / c->n_heads;
    const double a = json->rope_scaling_factor, r = (double)head_size;
    c->rotary_base = (float)(theta * a);
    c->rotary_linear_factor = a > 1.0 ? (float)pow(a, 2.0 / r) : 0.0f;
    return TF_OK;
}

static tf_status configure(const tf__hf_config *json, tf_config *c)
{
    if (json->layer_norm_type[0] && strcmp(json->layer_norm_type, "layer_norm") != 0)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: layer_norm_type \"%s\" is not "
                        "supported (\"layer_norm\" is)",
                        json->layer_norm_type);
    c->ffn_gated = 1;
    c->position = TF_POSITION_ROTARY;
    c->max_positions = json->max_position_embeddings >= 0 ? (int32_t)json->max_position_embeddings
                                                          : DEFAULT_MAX_POSITIONS;
    return configure_scaling(json, c, json->rope_theta > 0 ? json->rope_theta : DEFAULT_THETA);
}

const tf__hf_family tf__family_gte = {
    .format = "huggingface-gte",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "new.",
    .layer_prefix = "encoder.layer.",
    .top = top,
    .layer = layer,
    .keys = NULL,
    .padded_positions = 0,
    .seq_head = {.dense = NULL, .dense_act = TF_DENSE_IDENTITY, .out = NULL},
    .default_pad_token_id = 0,
    .gate_first = 0,
    .configure = configure,
    .position_type = "rope",
    .remote_code = remote_code,
    .zero_tensors = zero_tensors,
};
