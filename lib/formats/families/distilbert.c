/* distilbert.c — DistilBERT (transformers' models/distilbert/
 * modeling_distilbert.py: Embeddings, MultiHeadSelfAttention, FFN,
 * TransformerBlock), under "distilbert." in task models: word and position
 * embeddings then LayerNorm (no token types), post-norm blocks, no pooler;
 * its LayerNorms' eps is 1e-12 (not in its config); DistilBertConfig names
 * the sizes dim, hidden_dim, n_layers, n_heads and the activation
 * "activation". DistilBertForSequenceClassification's head:
 * classifier(ReLU(pre_classifier(h[:, 0]))), dropout being off. */
#include "hf_family.h"

static const char *const model_types[] = {"distilbert", NULL};
static const char *const class_prefixes[] = {"DistilBert", NULL};

static const tf__name_rule top[] = {
    {"embeddings.word_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.position_embeddings.weight", "embed.position.weight", 1},
    {"embeddings.LayerNorm.weight", "embed.norm.weight", 1},
    {"embeddings.LayerNorm.bias", "embed.norm.bias", 1},
    {NULL, NULL, 0}};

static const tf__name_rule layer[] = {{"attention.q_lin.weight", "attn.q.weight", 1},
                                      {"attention.q_lin.bias", "attn.q.bias", 1},
                                      {"attention.k_lin.weight", "attn.k.weight", 1},
                                      {"attention.k_lin.bias", "attn.k.bias", 1},
                                      {"attention.v_lin.weight", "attn.v.weight", 1},
                                      {"attention.v_lin.bias", "attn.v.bias", 1},
                                      {"attention.out_lin.weight", "attn.out.weight", 1},
                                      {"attention.out_lin.bias", "attn.out.bias", 1},
                                      {"sa_layer_norm.weight", "norm1.weight", 1},
                                      {"sa_layer_norm.bias", "norm1.bias", 1},
                                      {"ffn.lin1.weight", "ffn.up.weight", 1},
                                      {"ffn.lin1.bias", "ffn.up.bias", 1},
                                      {"ffn.lin2.weight", "ffn.down.weight", 1},
                                      {"ffn.lin2.bias", "ffn.down.bias", 1},
                                      {"output_layer_norm.weight", "norm2.weight", 1},
                                      {"output_layer_norm.bias", "norm2.bias", 1},
                                      {NULL, NULL, 0}};

static const tf__hf_key keys[] = {{"hidden_size", "dim"},
                                  {"intermediate_size", "hidden_dim"},
                                  {"num_hidden_layers", "n_layers"},
                                  {"num_attention_heads", "n_heads"},
                                  {"hidden_act", "activation"},
                                  {NULL, NULL}};

const tf__hf_family tf__family_distilbert = {
    .format = "huggingface-distilbert",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "distilbert.",
    .layer_prefix = "transformer.layer.",
    .top = top,
    .layer = layer,
    .keys = keys,
    .padded_positions = 0,
    .seq_head = {.dense = "pre_classifier",
                 .dense_act = TF_DENSE_RELU,
                 .out = "classifier",
                 .dense_bias = 1},
    .default_pad_token_id = 0,
};
