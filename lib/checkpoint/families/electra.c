/* electra.c — ELECTRA discriminators (transformers' models/electra/
 * modeling_electra.py: ElectraEmbeddings, ElectraLayer = BertLayer, no
 * pooler), under "electra." in task models: BERT's names. An
 * embedding_size other than hidden_size (ElectraModel's embeddings_project,
 * electra-small's) is refused by hf_config.c. ElectraForSequenceClassification's
 * head is ElectraClassificationHead: out_proj(gelu(dense(h[:, 0]))), dropout
 * being off; ElectraForPreTraining's discriminator_predictions are ignored. */
#include "hf_family.h"

static const char *const model_types[] = {"electra", NULL};
static const char *const class_prefixes[] = {"Electra", NULL};

const tf_hf_family tf_family_electra = {
    .format = "huggingface-electra",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "electra.",
    .layer_prefix = "encoder.layer.",
    .top = tf_bert_top,
    .layer = tf_bert_layer,
    .keys = NULL,
    .padded_positions = 0,
    .seq_head = {.dense = "classifier.dense", .dense_act = TF_DENSE_GELU,
                 .out = "classifier.out_proj"},
    .default_pad_token_id = 0,
};
