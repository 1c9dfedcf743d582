/* bert.c — BERT (transformers' models/bert/modeling_bert.py: BertModel,
 * its embeddings, BertLayer and BertPooler), under "bert." in task models.
 * Older checkpoints call LayerNorm's weight and bias gamma and beta.
 * BertForSequenceClassification's head: classifier(pooler_output). */
#include "hf_family.h"

static const char *const model_types[] = {"bert", NULL};
static const char *const class_prefixes[] = {"Bert", NULL};

const tf__name_rule tf__bert_top[] = {
    {"embeddings.word_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.position_embeddings.weight", "embed.position.weight", 1},
    {"embeddings.token_type_embeddings.weight", "embed.token_type.weight", 1},
    {"embeddings.LayerNorm.weight", "embed.norm.weight", 1},
    {"embeddings.LayerNorm.bias", "embed.norm.bias", 1},
    {"embeddings.LayerNorm.gamma", "embed.norm.weight", 1},
    {"embeddings.LayerNorm.beta", "embed.norm.bias", 1},
    {"pooler.dense.weight", "pooler.weight", 1},
    {"pooler.dense.bias", "pooler.bias", 1},
    {NULL, NULL, 0}};

const tf__name_rule tf__bert_layer[] = {TF_BERT_ATTENTION_RULES,
                                        {"attention.output.LayerNorm.gamma", "norm1.weight", 1},
                                        {"attention.output.LayerNorm.beta", "norm1.bias", 1},
                                        TF_BERT_FFN_RULES,
                                        {"output.LayerNorm.gamma", "norm2.weight", 1},
                                        {"output.LayerNorm.beta", "norm2.bias", 1},
                                        {NULL, NULL, 0}};

const tf__hf_family tf__family_bert = {
    .format = "huggingface-bert",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "bert.",
    .layer_prefix = "encoder.layer.",
    .top = tf__bert_top,
    .layer = tf__bert_layer,
    .keys = NULL,
    .padded_positions = 0,
    .seq_head = {.dense = NULL, .dense_act = TF_DENSE_IDENTITY, .out = "classifier"},
    .default_pad_token_id = 0,
    .example = "Hugging Face BERT (embeddings.word_embeddings.weight, encoder.layer.N...)",
};
