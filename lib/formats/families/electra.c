/* electra.c — ELECTRA discriminators (transformers' models/electra/
 * modeling_electra.py: ElectraEmbeddings, ElectraLayer = BertLayer, no
 * pooler), under "electra." in task models: BERT's names, and
 * embeddings_project (ElectraModel's nn.Linear(embedding_size, hidden_size),
 * electra-small's 128 -> 256) when embedding_size differs from hidden_size:
 * the library's embed.project (tf_config.embedding_dim; checkpoint.c infers
 * it from the tensor). ElectraForSequenceClassification's head is
 * ElectraClassificationHead: out_proj(gelu(dense(h[:, 0]))), dropout being
 * off; ElectraForPreTraining's discriminator_predictions are ignored. */
#include "hf_family.h"

static const char *const model_types[] = {"electra", NULL};
static const char *const class_prefixes[] = {"Electra", NULL};

static const tf__name_rule top[] = {
    {"embeddings.word_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.position_embeddings.weight", "embed.position.weight", 1},
    {"embeddings.token_type_embeddings.weight", "embed.token_type.weight", 1},
    {"embeddings.LayerNorm.weight", "embed.norm.weight", 1},
    {"embeddings.LayerNorm.bias", "embed.norm.bias", 1},
    {"embeddings_project.weight", "embed.project.weight", 1},
    {"embeddings_project.bias", "embed.project.bias", 1},
    {NULL, NULL, 0}};

const tf__hf_family tf__family_electra = {
    .format = "huggingface-electra",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "electra.",
    .layer_prefix = "encoder.layer.",
    .top = top,
    .layer = tf__bert_layer,
    .keys = NULL,
    .padded_positions = 0,
    .seq_head = {.dense = "classifier.dense",
                 .dense_act = TF_DENSE_GELU,
                 .out = "classifier.out_proj",
                 .dense_bias = 1},
    .default_pad_token_id = 0,
    .configure = NULL,
};
