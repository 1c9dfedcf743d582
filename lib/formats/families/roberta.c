/* roberta.c — RoBERTa, XLM-RoBERTa and CamemBERT (transformers'
 * models/roberta/modeling_roberta.py, xlm_roberta/, camembert/: the same
 * RobertaModel), under "roberta." in task models. BERT's tensor names; its
 * positions start at padding_idx + 1 (RobertaEmbeddings,
 * create_position_ids_from_input_ids), padding_idx being config.json's
 * pad_token_id (RobertaConfig's default 1); one token type.
 * RobertaForSequenceClassification's head is RobertaClassificationHead:
 * out_proj(tanh(dense(h[:, 0]))), dropout being off. */
#include "hf_family.h"

static const char *const model_types[] = {"roberta", "xlm-roberta", "camembert", NULL};
static const char *const class_prefixes[] = {"Roberta", "XLMRoberta", "Camembert", NULL};

const tf__hf_family tf__family_roberta = {
    .format = "huggingface-roberta",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "roberta.",
    .layer_prefix = "encoder.layer.",
    .top = tf__bert_top,
    .layer = tf__bert_layer,
    .keys = NULL,
    .padded_positions = 1,
    .seq_head = {.dense = "classifier.dense",
                 .dense_act = TF_DENSE_TANH,
                 .out = "classifier.out_proj",
                 .dense_bias = 1},
    .default_pad_token_id = 1,
};
