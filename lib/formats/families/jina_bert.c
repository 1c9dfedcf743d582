/* jina_bert.c — JinaBERT v2 (jina-embeddings-v2-base-en / small-en:
 * model_type "bert" with position_embedding_type "alibi", auto_map to
 * jinaai/jina-bert-implementation modeling_bert.py: JinaBertEmbeddings (word
 * and token-type embeddings, LayerNorm, no positions), JinaBertSelfAttention
 * (BERT's, plus the ALiBi bias of JinaBertModel.rebuild_alibi_tensor, which
 * JinaBertEncoder rebuilds for a longer input: max_position_embeddings is
 * the trained length, not a bound), JinaBertGLUMLP: layernorm(x +
 * wo(act(h[:F]) * h[F:])), h = gated_layers(x) without a bias
 * (zero_tensors), act GELU (geglu) or ReLU (reglu)), under
 * "bert." in task models. feed_forward_type "original" is BERT's plain MLP
 * (intermediate / output names).
 *
 * And its code variant (jina-embeddings-v2-base-code: the same keys, auto_map
 * to jinaai/jina-bert-v2-qk-post-norm modeling_bert.py): JinaBertSelfAttention
 * adds layer_norm_q and layer_norm_k (nn.LayerNorm(hidden_size,
 * layer_norm_eps), on query(x) and key(x) before the split into heads:
 * tf_config.qk_norm); JinaBertLayer computes a = attention(x) (BERT's
 * LayerNorm(x + dense(ctx))), then h = layer_norm_1(x + a) (tf_config.add_norm1b),
 * layer_norm_2(h + mlp(h)); JinaBertGLUMLP there is down_layer(up * act(gated)),
 * up, gated = up_gated_layer(h) split in halves, the multiplied half first
 * (no bias), with no LayerNorm of its own. */
#include <string.h>

#include "error.h"
#include "hf_family.h"

static const char *const model_types[] = {"bert", NULL};
static const char *const class_prefixes[] = {"JinaBert", NULL};
static const char *const remote_code[] = {"jinaai/jina-bert-implementation--", NULL};
static const char *const code_remote_code[] = {"jinaai/jina-bert-v2-qk-post-norm--", NULL};
static const char *const zero_tensors[] = {"ffn.up.bias", "ffn.gate.bias", NULL};

static const tf__name_rule layer[] = {
    TF_BERT_ATTENTION_RULES,
    {"mlp.gated_layers.weight", "ffn.up.weight", 2}, /* the activated half first */
    {"mlp.wo.weight", "ffn.down.weight", 1},
    {"mlp.wo.bias", "ffn.down.bias", 1},
    {"mlp.layernorm.weight", "norm2.weight", 1},
    {"mlp.layernorm.bias", "norm2.bias", 1},
    TF_BERT_FFN_RULES, /* feed_forward_type "original" */
    {NULL, NULL, 0}};

/* The code variant's layer (jina-bert-v2-qk-post-norm's JinaBertLayer). */
static const tf__name_rule code_layer[] = {
    TF_BERT_ATTENTION_RULES,
    {"attention.self.layer_norm_q.weight", "attn.q_norm.weight", 1},
    {"attention.self.layer_norm_q.bias", "attn.q_norm.bias", 1},
    {"attention.self.layer_norm_k.weight", "attn.k_norm.weight", 1},
    {"attention.self.layer_norm_k.bias", "attn.k_norm.bias", 1},
    {"layer_norm_1.weight", "norm1b.weight", 1},
    {"layer_norm_1.bias", "norm1b.bias", 1},
    {"mlp.up_gated_layer.weight", "ffn.up.weight", 2}, /* the multiplied half first */
    {"mlp.up_layer.weight", "ffn.up.weight", 1},       /* feed_forward_type "original" */
    {"mlp.down_layer.weight", "ffn.down.weight", 1},
    {"mlp.down_layer.bias", "ffn.down.bias", 1},
    {"layer_norm_2.weight", "norm2.weight", 1},
    {"layer_norm_2.bias", "norm2.bias", 1},
    {NULL, NULL, 0}};

/* JinaBertConfig's (BertConfig's) defaults for keys config.json leaves out. */
#define DEFAULT_FEED_FORWARD "original"
#define DEFAULT_MAX_POSITIONS 512

static tf_status configure(const tf__hf_config *json, tf_config *c)
{
    const char *ff = json->feed_forward_type[0] ? json->feed_forward_type : DEFAULT_FEED_FORWARD;
    if (strcmp(ff, "geglu") == 0 || strcmp(ff, "reglu") == 0) {
        c->ffn_gated = 1; /* JinaBertGLUMLP: nn.GELU() or nn.ReLU(), whatever hidden_act says */
        c->activation = ff[0] == 'g' ? TF_ACTIVATION_GELU : TF_ACTIVATION_RELU;
    } else if (strcmp(ff, "original") != 0) {
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: feed_forward_type \"%s\" is not "
                        "supported (geglu, reglu and original are)",
                        ff);
    }
    if (c->position == TF_POSITION_LEARNED)
        return tf__fail(TF_ERR_FORMAT,
                        "config.json: position_embedding_type \"alibi\", but the "
                        "file has embeddings.position_embeddings.weight");
    c->position = TF_POSITION_ALIBI;
    c->max_positions = json->max_position_embeddings >= 0 ? (int32_t)json->max_position_embeddings
                                                          : DEFAULT_MAX_POSITIONS;
    return TF_OK;
}

/* The code variant: JinaBERT's, with the norms on Q and K and layer_norm_1. */
static tf_status configure_code(const tf__hf_config *json, tf_config *c)
{
    tf_status s = configure(json, c);
    c->qk_norm = 1;
    c->add_norm1b = 1;
    return s;
}

const tf__hf_family tf__family_jina_bert = {
    .format = "huggingface-jina-bert",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "bert.",
    .layer_prefix = "encoder.layer.",
    .top = tf__bert_top,
    .layer = layer,
    .keys = NULL,
    .padded_positions = 0,
    .seq_head = {.dense = NULL, .dense_act = TF_DENSE_IDENTITY, .out = "classifier"},
    .default_pad_token_id = 0,
    .gate_first = 1,
    .configure = configure,
    .position_type = "alibi",
    .remote_code = remote_code,
    .zero_tensors = zero_tensors,
};

const tf__hf_family tf__family_jina_bert_code = {
    .format = "huggingface-jina-bert-code",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "bert.",
    .layer_prefix = "encoder.layer.",
    .top = tf__bert_top,
    .layer = code_layer,
    .keys = NULL,
    .padded_positions = 0,
    .seq_head = {.dense = NULL, .dense_act = TF_DENSE_IDENTITY, .out = "classifier"},
    .default_pad_token_id = 0,
    .gate_first = 0,
    .configure = configure_code,
    .position_type = "alibi",
    .remote_code = code_remote_code,
    .zero_tensors = zero_tensors,
};
