/* nomic_bert.c — NomicBERT (nomic-embed-text-v1 / v1.5; nomic's
 * modeling_hf_nomic_bert.py: NomicBertEmbeddings, NomicBertModel (emb_ln),
 * NomicBertBlock, NomicBertAttention, NomciBertGatedMLP, NomicBertMLP;
 * configuration_hf_nomic_bert.py: NomicBertConfig's defaults), under "bert."
 * in NomicBertForPreTraining. Word and token-type embeddings, emb_ln, then
 * post-norm blocks (prenorm false): norm1(x + out_proj(attn(Wqkv x))),
 * norm2(x + fc2(...)); Wqkv [3D, D] stacked q | k | v; rotary positions on
 * the first head_dim * rotary_emb_fraction dimensions of each head (pairs
 * (i, i + r/2), or (2i, 2i + 1) with rotary_emb_interleaved), base
 * rotary_emb_base, and with rotary_scaling_factor the dynamic NTK scaling of
 * NomicBertDynamicNTKRotaryEmbedding past max_trained_positions, for any
 * length (NomicBertRotaryEmbedding grows its tables; n_positions is then the
 * trained length, not a bound); a rotary_emb_fraction of 0 uses learned
 * positions instead. NomicBertModel rounds vocab_size up to a multiple of
 * pad_vocab_size_multiple (1 by default) before it builds word_embeddings,
 * so a file holds that many rows, or vocab_size's (from_pretrained pads them
 * with zero rows, which no token of the vocabulary reaches). The gated MLP
 * (activation_function swiglu or geglu) is fc2(fc11(x) * act(fc12(x))), its
 * width n_inner rounded up to a multiple of 256. GPT-2's key names (n_embd,
 * n_head, n_layer, n_positions, layer_norm_epsilon). The pooler and the MLM
 * head are not loaded. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "hf_family.h"

static const char *const model_types[] = {"nomic_bert", NULL};
static const char *const class_prefixes[] = {"NomicBert", NULL};
/* auto_map values of nomic-embed-text-v1 / v1.5 (the code of nomic-bert-2048), or of
   that repository itself */
static const char *const remote_code[] = {"nomic-ai/nomic-bert-2048--", "modeling_hf_nomic_bert.",
                                          "configuration_hf_nomic_bert.", NULL};

static const tf__name_rule top[] = {
    {"embeddings.word_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.position_embeddings.weight", "embed.position.weight", 1},
    {"embeddings.token_type_embeddings.weight", "embed.token_type.weight", 1},
    {"emb_ln.weight", "embed.norm.weight", 1},
    {"emb_ln.bias", "embed.norm.bias", 1},
    {NULL, NULL, 0}};

static const tf__name_rule layer[] = {
    {"attn.Wqkv.weight", "attn.q.weight", 3},
    {"attn.Wqkv.bias", "attn.q.bias", 3},
    {"attn.out_proj.weight", "attn.out.weight", 1},
    {"attn.out_proj.bias", "attn.out.bias", 1},
    {"norm1.weight", "norm1.weight", 1},
    {"norm1.bias", "norm1.bias", 1},
    {"mlp.fc11.weight", "ffn.up.weight", 1}, /* NomciBertGatedMLP: fc11(x) * act(fc12(x)) */
    {"mlp.fc11.bias", "ffn.up.bias", 1},
    {"mlp.fc12.weight", "ffn.gate.weight", 1},
    {"mlp.fc12.bias", "ffn.gate.bias", 1},
    {"mlp.fc1.weight", "ffn.up.weight", 1}, /* NomicBertMLP: fc2(act(fc1(x))) */
    {"mlp.fc1.bias", "ffn.up.bias", 1},
    {"mlp.fc2.weight", "ffn.down.weight", 1},
    {"mlp.fc2.bias", "ffn.down.bias", 1},
    {"norm2.weight", "norm2.weight", 1},
    {"norm2.bias", "norm2.bias", 1},
    {NULL, NULL, 0}};

static const tf__hf_key keys[] = {{"hidden_size", "n_embd"},
                                  {"num_attention_heads", "n_head"},
                                  {"num_hidden_layers", "n_layer"},
                                  {"max_position_embeddings", "n_positions"},
                                  {"layer_norm_eps", "layer_norm_epsilon"},
                                  {"rope_theta", "rotary_emb_base"},
                                  {"attention_bias", "qkv_proj_bias"},
                                  {"mlp_bias", "mlp_fc1_bias"},
                                  {NULL, NULL}};

/* NomicBertConfig's (and GPT2Config's) defaults for keys config.json leaves out. */
#define DEFAULT_THETA 1000.0
#define DEFAULT_SCALING 1.0 /* rotary_scaling_factor: truthy, so dynamic NTK is on */
#define DEFAULT_TRAINED 2048
#define DEFAULT_NORM_EPS 1e-5f
#define DEFAULT_ACTIVATION "gelu_new"
#define GATED_MULTIPLE 256 /* NomciBertGatedMLP's multiple_of */

static const char *bool_name(int32_t v)
{
    return v ? "true" : "false";
}

/* activation_function as NomicBertBlock builds its MLP: swiglu and geglu
 * gated (SiLU, GELU), the GELU names plain with F.gelu (erf, whatever the
 * name says), glu (a sigmoid gate) not implemented. */
static tf_status configure_activation(const char *name, tf_config *c)
{
    static const struct {
        const char *name;
        int32_t gated, activation;
    } known[] = {
        {"swiglu", 1, TF_ACTIVATION_SILU},    {"geglu", 1, TF_ACTIVATION_GELU},
        {"gelu", 0, TF_ACTIVATION_GELU},      {"gelu_new", 0, TF_ACTIVATION_GELU},
        {"gelu_fast", 0, TF_ACTIVATION_GELU}, {"gelu_pytorch_tanh", 0, TF_ACTIVATION_GELU},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i].name) == 0) {
            c->ffn_gated = known[i].gated;
            c->activation = known[i].activation;
            return TF_OK;
        }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "config.json: activation_function \"%s\" is not "
                    "supported (swiglu, geglu, gelu, gelu_new, gelu_fast and gelu_pytorch_tanh "
                    "are)",
                    name);
}

/* n_inner against the file's width: NomciBertGatedMLP rounds it up to a
 * multiple of 256 (and defaults to 8 D / 3), NomicBertMLP takes it as it is
 * (4 D by default). */
static tf_status check_width(const tf__hf_config *json, const tf_config *c)
{
    const int64_t D = c->d_model;
    int64_t width = json->n_inner > 0 ? json->n_inner : c->ffn_gated ? 8 * D / 3 : 4 * D;
    if (c->ffn_gated)
        width = (width + GATED_MULTIPLE - 1) / GATED_MULTIPLE * GATED_MULTIPLE;
    if (width == c->d_ff)
        return TF_OK;
    char given[48];
    if (json->n_inner > 0)
        snprintf(given, sizeof given, "n_inner %lld", (long long)json->n_inner);
    else
        snprintf(given, sizeof given, "n_inner absent (%s n_embd)", c->ffn_gated ? "8/3" : "4");
    return tf__fail(TF_ERR_SHAPE,
                    "config.json: %s gives a feed-forward width of %lld%s, but the "
                    "file's is %d",
                    given, (long long)width,
                    c->ffn_gated ? " (rounded up to a multiple of 256)" : "", (int)c->d_ff);
}

/* One switch for every Linear's bias in this library; LayerNorms always
 * have theirs (nn.LayerNorm). */
static tf_status configure_biases(const tf__hf_config *json, tf_config *c)
{
    const int32_t qkv = json->attention_bias != 0, fc1 = json->mlp_bias != 0,
                  fc2 = json->mlp_fc2_bias != 0; /* absent (-1): NomicBertConfig's true */
    if (qkv != fc1 || fc1 != fc2)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: qkv_proj_bias %s, mlp_fc1_bias %s and "
                        "mlp_fc2_bias %s are not supported together (this library's Linear "
                        "layers have biases all or none)",
                        bool_name(qkv), bool_name(fc1), bool_name(fc2));
    c->bias = qkv;
    c->norm_bias = !qkv;
    return TF_OK;
}

/* rotary_emb_fraction > 0: rotary positions on head_dim * fraction
 * dimensions, which must be an even count. */
static tf_status configure_rotary(const tf__hf_config *json, tf_config *c, double fraction)
{
    const int32_t dk = c->d_model / (c->n_heads > 0 ? c->n_heads : 1);
    const double r = (double)dk * fraction;
    const int32_t rotary = (int32_t)r;
    if ((double)rotary != r || rotary < 2 || rotary % 2)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: rotary_emb_fraction %g of a head of %d "
                        "gives %g rotated dimensions; an even count of at least 2 is supported",
                        fraction, (int)dk, r);
    c->position = TF_POSITION_ROTARY;
    c->max_positions = json->max_position_embeddings >= 0 ? (int32_t)json->max_position_embeddings
                                                          : 0;
    c->rotary_dim = rotary == dk ? 0 : rotary;
    c->rotary_interleaved = json->rotary_emb_interleaved > 0;
    c->rotary_base = (float)(json->rope_theta > 0 ? json->rope_theta : DEFAULT_THETA);
    const double a = json->rotary_scaling_factor >= 0 ? json->rotary_scaling_factor
                                                      : DEFAULT_SCALING;
    if (a > 0) {
        c->rotary_ntk_factor = (float)a;
        c->rotary_ntk_positions = json->max_trained_positions > 0
            ? (int32_t)json->max_trained_positions
            : DEFAULT_TRAINED;
    }
    return TF_OK;
}

static tf_status configure(const tf__hf_config *json, tf_config *c)
{
    if (json->prenorm > 0)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: prenorm true is not supported "
                        "(NomicBertEncoder then returns the last block's MLP output without "
                        "its residual)");
    tf_status s = configure_activation(
        json->activation_function[0] ? json->activation_function : DEFAULT_ACTIVATION, c);
    if (s || (s = check_width(json, c)) || (s = configure_biases(json, c)))
        return s;
    if (json->layer_norm_eps <= 0)
        c->layer_norm_eps = DEFAULT_NORM_EPS;
    const double fraction = json->rotary_emb_fraction >= 0 ? json->rotary_emb_fraction : 0.0;
    if (fraction > 0)
        return configure_rotary(json, c, fraction);
    if (c->position != TF_POSITION_LEARNED)
        return tf__fail(TF_ERR_FORMAT,
                        "config.json: rotary_emb_fraction 0 means learned "
                        "positions, but the file has no embeddings.position_embeddings.weight");
    return TF_OK;
}

const tf__hf_family tf__family_nomic_bert = {
    .format = "huggingface-nomic-bert",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "bert.",
    .layer_prefix = "encoder.layers.",
    .top = top,
    .layer = layer,
    .keys = keys,
    .padded_positions = 0,
    .seq_head = {.dense = NULL, .dense_act = TF_DENSE_IDENTITY, .out = NULL},
    .default_pad_token_id = 0,
    .gate_first = 0,
    .configure = configure,
    .remote_code = remote_code,
    .pads_vocab = 1,
};
