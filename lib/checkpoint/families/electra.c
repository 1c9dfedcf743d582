/* electra.c — ELECTRA discriminators (transformers' models/electra/
 * modeling_electra.py: ElectraEmbeddings, ElectraLayer = BertLayer, no
 * pooler), under "electra." in task models: BERT's names. An
 * embedding_size other than hidden_size (ElectraModel's embeddings_project,
 * electra-small's) is refused (configure). ElectraForSequenceClassification's
 * head is ElectraClassificationHead: out_proj(gelu(dense(h[:, 0]))), dropout
 * being off; ElectraForPreTraining's discriminator_predictions are ignored. */
#include "error.h"
#include "hf_family.h"

static const char *const model_types[] = {"electra", NULL};

static tf_status configure(const tf_hf_config *json, tf_config *c)
{
    (void)c;
    if (json->embedding_size >= 0 && json->hidden_size >= 0 &&
        json->embedding_size != json->hidden_size)
        return tf_fail(TF_ERR_UNSUPPORTED, "config.json: embedding_size %lld differs from "
                       "hidden_size %lld: ELECTRA's embeddings_project between them is not "
                       "supported", (long long)json->embedding_size, (long long)json->hidden_size);
    return TF_OK;
}
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
    .configure = configure,
};
