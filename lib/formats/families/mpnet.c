/* mpnet.c — MPNet (transformers' models/mpnet/modeling_mpnet.py:
 * MPNetEmbeddings, MPNetSelfAttention, MPNetAttention, MPNetIntermediate,
 * MPNetOutput, MPNetEncoder, MPNetPooler), under "mpnet." in task models
 * (sentence-transformers' all-mpnet-base-v2 stores MPNetModel without it).
 * Word and learned position embeddings, no token types, then a LayerNorm;
 * positions start at padding_idx + 1 = 2 (create_position_ids_from_input_ids)
 * with padding_idx fixed at 1 by MPNetEmbeddings whatever pad_token_id
 * says; BERT's post-norm layers under other names (attention.attn.q / k /
 * v / o, attention.LayerNorm); one relative_attention_bias (buckets, H)
 * that every layer adds to its scaled scores, bucketed by
 * compute_position_bias with num_buckets 32 and relative_position_bucket's
 * max_distance 128 whatever config.json says: a relative_attention_num_buckets
 * other than 32 (a table whose rows MPNet does not all use, or one too
 * short for its buckets) is refused. MPNetForSequenceClassification's head
 * is MPNetClassificationHead: out_proj(tanh(dense(h[:, 0]))), dropout being
 * off; MPNetForMaskedLM's lm_head is not loaded. */
#include "error.h"
#include "hf_family.h"

static const char *const model_types[] = {"mpnet", NULL};
static const char *const class_prefixes[] = {"MPNet", NULL};

static const tf__name_rule top[] = {
    {"embeddings.word_embeddings.weight", "embed.token.weight", 1},
    {"embeddings.position_embeddings.weight", "embed.position.weight", 1},
    {"embeddings.LayerNorm.weight", "embed.norm.weight", 1},
    {"embeddings.LayerNorm.bias", "embed.norm.bias", 1},
    {"encoder.relative_attention_bias.weight", "relative_bias.weight", 1},
    {"pooler.dense.weight", "pooler.weight", 1},
    {"pooler.dense.bias", "pooler.bias", 1},
    {NULL, NULL, 0}};

static const tf__name_rule layer[] = {{"attention.attn.q.weight", "attn.q.weight", 1},
                                      {"attention.attn.q.bias", "attn.q.bias", 1},
                                      {"attention.attn.k.weight", "attn.k.weight", 1},
                                      {"attention.attn.k.bias", "attn.k.bias", 1},
                                      {"attention.attn.v.weight", "attn.v.weight", 1},
                                      {"attention.attn.v.bias", "attn.v.bias", 1},
                                      {"attention.attn.o.weight", "attn.out.weight", 1},
                                      {"attention.attn.o.bias", "attn.out.bias", 1},
                                      {"attention.LayerNorm.weight", "norm1.weight", 1},
                                      {"attention.LayerNorm.bias", "norm1.bias", 1},
                                      TF_BERT_FFN_RULES,
                                      {NULL, NULL, 0}};

/* MPNetEmbeddings.padding_idx, and the buckets MPNetEncoder.forward asks
 * compute_position_bias for (its num_buckets default). */
#define MPNET_PADDING_IDX 1
#define MPNET_BUCKETS 32

static tf_status configure(const tf__hf_config *json, tf_config *c)
{
    if (json->relative_attention_num_buckets >= 0 &&
        json->relative_attention_num_buckets != MPNET_BUCKETS)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: relative_attention_num_buckets %lld is "
                        "not supported (MPNetEncoder buckets relative positions into %d whatever "
                        "it says, so only a table of %d rows is)",
                        (long long)json->relative_attention_num_buckets, MPNET_BUCKETS,
                        MPNET_BUCKETS);
    if (c->position != TF_POSITION_LEARNED)
        return tf__fail(TF_ERR_FORMAT,
                        "missing tensor 'embeddings.position_embeddings.weight' "
                        "(MPNetEmbeddings' positions)");
    if (c->max_positions <= MPNET_PADDING_IDX + 1)
        return tf__fail(TF_ERR_FORMAT,
                        "embeddings.position_embeddings.weight: %d positions leave "
                        "none for tokens (they start at padding_idx + 1 = %d)",
                        (int)c->max_positions, MPNET_PADDING_IDX + 1);
    c->position_offset = MPNET_PADDING_IDX + 1;
    c->relative_buckets = MPNET_BUCKETS;
    c->relative_max_distance = 0; /* relative_position_bucket's 128 */
    return TF_OK;
}

const tf__hf_family tf__family_mpnet = {
    .format = "huggingface-mpnet",
    .model_types = model_types,
    .class_prefixes = class_prefixes,
    .base_prefix = "mpnet.",
    .layer_prefix = "encoder.layer.",
    .top = top,
    .layer = layer,
    .keys = NULL,
    .padded_positions = 0, /* padding_idx is MPNet's own 1: configure */
    .seq_head = {.dense = "classifier.dense",
                 .dense_act = TF_DENSE_TANH,
                 .out = "classifier.out_proj",
                 .dense_bias = 1},
    .default_pad_token_id = 1,
    .configure = configure,
};
