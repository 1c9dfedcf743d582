/* hf_family.h — the checkpoint families the loader knows: the Hugging Face
 * architectures (what config.json calls each one: model_type,
 * architectures; where its tensors live: the base model's prefix inside a
 * task model, its layers' prefix, its tensor names mapped onto the
 * library's; the config.json keys it spells its own way), and the two that
 * no config.json names: PyTorch's nn.TransformerEncoder state_dict and
 * libtfenc's own files. One family a file (families/<name>.c); the one
 * table of them is families/registry.c, whose top comment says how to add
 * one. checkpoint.c reads a file through its family's fields alone. */
#ifndef TF_HF_FAMILY_H
#define TF_HF_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "dense.h"
#include "hf_config.h"
#include "json.h"
#include "safetensors.h"
#include "tfenc.h"

struct cJSON;
struct tf__checkpoint;

/* One tensor name of theirs and the library's name for it. */
typedef struct tf__name_rule {
    const char *theirs, *ours;
    int32_t parts; /* 1; 2: the gated block's two halves stacked along dim 0
                      (see tf__hf_family.gate_first); 3: q, k and v stacked */
} tf__name_rule;

/* A config.json key the family spells its own way: hf_config.c's field
 * `ours` (BERT's spelling) is read from key `theirs`. */
typedef struct tf__hf_key {
    const char *ours, *theirs;
} tf__hf_key;

/* A *ForSequenceClassification head (tensors outside the base prefix):
 * logits = out(norm(act(dense(pool(h))))), or out(BERT's pooler output). */
typedef struct tf__hf_seq_head {
    const char *dense;              /* "classifier.dense": [D, D] on the pooled state;
                                     NULL: the encoder's pooler */
    tf__dense_activation dense_act; /* after dense */
    const char *out;                /* "classifier.out_proj": [labels, D] + bias;
                                     NULL: a head the pipeline does not read */
    int32_t dense_bias;             /* 1: dense has a bias [D] */
    /* Since ModernBERT's head (ModernBertPredictionHead): */
    int32_t pooling;   /* what dense reads: a tf_pooling, TF_POOLING_CLS
                                     (h[:, 0]) or TF_POOLING_MEAN (over the mask) */
    const char *norm;  /* "head.norm": a LayerNorm [D] after act, with the
                                     encoder's layer_norm_eps; NULL: none */
    int32_t norm_bias; /* 1: norm has a bias [D] */
} tf__hf_seq_head;

typedef struct tf__hf_family {
    const char *format;                /* "huggingface-bert": tf_model_info_format's */
    const char *const *model_types;    /* config.json model_type values, NULL-ended;
                                         NULL: a family no config.json names (not
                                         Hugging Face's) */
    const char *const *class_prefixes; /* every name in architectures starts with one
                                         ("Bert": BertModel, BertForMaskedLM...), NULL-ended;
                                         NULL with model_types */
    const char *base_prefix;           /* "bert.": the encoder's tensors in a task model;
                                         "": none */
    const char *layer_prefix;          /* "encoder.layer.": before "{i}." of layer i */
    const tf__name_rule *top;          /* names outside the layers, {NULL}-ended; NULL: the
                                         file's names are the library's own, each mapped
                                         to itself (libtfenc's files) */
    const tf__name_rule *layer;        /* names after "<layer_prefix>{i}.", {NULL}-ended;
                                         NULL with top */
    const tf__hf_key *keys;            /* renamed config.json keys, {NULL}-ended, or NULL */
    int32_t padded_positions;          /* 1: positions start after config.json's
                                         pad_token_id (tf_config.position_offset,
                                         RoBERTa's) */
    int32_t default_pad_token_id;      /* its config class's pad_token_id default */
    tf__hf_seq_head seq_head;          /* its *ForSequenceClassification's head */
    int32_t gate_first;                /* 1: a parts-2 tensor stacks the activated half
                                         (the library's ffn.gate) before ffn.up; they
                                         are swapped when loaded */
    /* What the architecture fixes and its own config.json keys give, set on
       c after the BERT-like inference (checkpoint.c's infer_hf); NULL: nothing. */
    tf_status (*configure)(const tf__hf_config *json, tf_config *c);
    /* config.json's keys for a *ForSequenceClassification head, set on a copy
       of seq_head (root: config.json, label names it); NULL: none. */
    tf_status (*configure_head)(const struct cJSON *root, const char *label, tf__hf_seq_head *head);
    /* Remote-code families (trust_remote_code models: JinaBERT, NomicBERT, GTE): */
    const char *position_type;       /* config.json position_embedding_type that picks
                                         it among the families of one model_type
                                         (JinaBERT's "alibi" under "bert") and that it
                                         requires; NULL: "absolute" (or none) */
    const char *const *remote_code;  /* auto_map values it follows, as prefixes
                                         ("jinaai/jina-bert-implementation--"),
                                         NULL-ended; NULL: none */
    const char *const *zero_tensors; /* layer tensors (the library's names after
                                         "layers.{i}.") its checkpoints lack because
                                         they are zero (GTE's up_gate_proj has no bias
                                         while its other Linear layers have), filled
                                         with zeros, NULL-ended; NULL: none */
    int32_t pads_vocab;              /* 1: the model rounds config.json's vocab_size up
                                         to a multiple of pad_vocab_size_multiple
                                         (NomicBertModel), so word_embeddings may have
                                         that many rows */
    /* Families that no config.json names (model_types NULL): */
    const char *metadata_format;                /* the __metadata__ "format" that marks its files
                                         (libtfenc's "tfenc"), tested before any family's
                                         tensor names; NULL: none */
    int (*recognises)(const tf__st_file *file); /* whether file is the family's, tested
                                         when no family's names matched (PyTorch's
                                         self_attn.in_proj_weight); a family with one is
                                         not recognised by its names; NULL: by names */
    int32_t single_layer;                       /* 1: a file may hold one layer's names without
                                         "<layer_prefix>{i}." (one
                                         nn.TransformerEncoderLayer), mapped to layer 0 */
    /* The configuration from the file's mapped tensors (checkpoint.h's
       queries) and its __metadata__, in place of the BERT-like inference and
       configure; n_heads 0, activation or norm_placement -1 where the file
       does not say (the load options must); NULL: the BERT-like inference. */
    tf_status (*infer)(const struct tf__checkpoint *ck, tf_config *c);
    const char *unrecorded; /* why n_heads, activation or norm_first can be
                                         unknown, in the message asking for the load
                                         option ("a PyTorch state_dict does not record
                                         it"); NULL: "no config.json gives
                                         num_attention_heads" */
    const char *example;    /* how its files look, listed by the message on a
                                         file of no family ("PyTorch
                                         nn.TransformerEncoder (layers.N.self_attn.
                                         in_proj_weight)"); NULL: not listed */
} tf__hf_family;

/* BertLayer's attention names (BertSelfAttention, BertSelfOutput), which
 * families that change only the feed-forward block share (JinaBERT's). */
#define TF_BERT_ATTENTION_RULES                                   \
    {"attention.self.query.weight", "attn.q.weight", 1},          \
        {"attention.self.query.bias", "attn.q.bias", 1},          \
        {"attention.self.key.weight", "attn.k.weight", 1},        \
        {"attention.self.key.bias", "attn.k.bias", 1},            \
        {"attention.self.value.weight", "attn.v.weight", 1},      \
        {"attention.self.value.bias", "attn.v.bias", 1},          \
        {"attention.output.dense.weight", "attn.out.weight", 1},  \
        {"attention.output.dense.bias", "attn.out.bias", 1},      \
        {"attention.output.LayerNorm.weight", "norm1.weight", 1}, \
    {                                                             \
        "attention.output.LayerNorm.bias", "norm1.bias", 1        \
    }

/* BertIntermediate's and BertOutput's names, which MPNet's and JinaBERT's
 * "original" feed-forward block keep. */
#define TF_BERT_FFN_RULES                                                                         \
    {"intermediate.dense.weight", "ffn.up.weight", 1},                                            \
        {"intermediate.dense.bias", "ffn.up.bias", 1},                                            \
        {"output.dense.weight", "ffn.down.weight", 1}, {"output.dense.bias", "ffn.down.bias", 1}, \
        {"output.LayerNorm.weight", "norm2.weight", 1},                                           \
    {                                                                                             \
        "output.LayerNorm.bias", "norm2.bias", 1                                                  \
    }

/* BERT's names (families/bert.c), which RoBERTa's are too. */
extern const tf__name_rule tf__bert_top[], tf__bert_layer[];

/* The family whose model_types hold model_type and whose position_type is
 * position_type (config.json's position_embedding_type), the one among
 * those that follows a value of auto_map (config.json's, or NULL) first
 * (JinaBERT's code variant beside JinaBERT); else, with another
 * position_type, the first of model_type without one, and without a
 * position_type (or without such a family) the first of model_type; NULL if
 * no family has model_type. */
const tf__hf_family *tf__hf_family_find(const char *model_type, const char *position_type,
                                        const cJSON *auto_map);

/* Whether f follows the remote code an auto_map value ("repo--module.Class")
 * names. */
int tf__hf_family_runs(const tf__hf_family *f, const char *auto_map_value);

/* Whether the library's tensor `ours` ("layers.3.ffn.up.bias") is one of
 * f's zero_tensors. */
int tf__hf_family_is_zero(const tf__hf_family *f, const char *ours);

/* The family of a safetensors file (config.json aside): the family whose
 * metadata_format the file's __metadata__ "format" is; else, by tensor
 * names, the first family whose base_prefix starts one of them, else the
 * first with one of its layer names (after layer_prefix and an index), else
 * the first with one of its top names; else the first whose recognises hook
 * takes the file; NULL if none. */
const tf__hf_family *tf__hf_family_detect(const tf__st_file *file);

/* "a, b or c": every family's example, into buf. */
void tf__hf_family_examples(char *buf, size_t size);

/* Whether architecture (a class name) belongs to f. */
int tf__hf_family_has_class(const tf__hf_family *f, const char *architecture);

/* The key f spells hf_config.c's field `ours` with (ours itself if f does
 * not rename it). */
const char *tf__hf_family_key(const tf__hf_family *f, const char *ours);

/* TF_ERR_UNSUPPORTED "<label>: model_type "<model_type>" (architectures
 * <architectures>) is not supported; supported: ..." listing every family
 * (architectures NULL: without the parenthesis). */
tf_status tf__hf_family_unsupported(const char *label, const char *model_type,
                                    const char *architectures);

/* "supported: model_type ..." (every Hugging Face family's model types and
 * class prefixes), into buf. */
void tf__hf_family_list(char *buf, size_t size);

#endif
