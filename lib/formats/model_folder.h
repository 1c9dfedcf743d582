/* model_folder.h — which file of a folder holds its weights (for the
 * encoder, the head and a Dense module alike), and what tf_pipeline_load
 * reads from a model folder besides
 * the encoder (load.c), the tokenizer (tokenizer/folder_config.h) and the
 * sentence-transformers modules (st_modules.h): config.json's architecture,
 * head and a cross-encoder's activation, the head's tensors in
 * model.safetensors, and whether tokenizer.json's model marks subwords.
 * pipeline/pipeline.c assembles them. */
#ifndef TF_MODEL_FOLDER_H
#define TF_MODEL_FOLDER_H

#include <stdint.h>

#include "classifier_head.h"
#include "hf_arch.h"
#include "hf_family.h"
#include "safetensors.h"
#include "tfenc.h"

/* A classification head's weights, owned. */
typedef struct tf__head_weights {
    float *dense_w, *dense_b; /* a sequence head's dense layer: (D, D), (D) or NULL */
    float *norm_w, *norm_b;   /* its LayerNorm after the dense: (D), (D) or NULL */
    float *cls_w, *cls_b;     /* the logits' Linear: (labels, D), (labels) */
} tf__head_weights;

/* dir's weights file, "<dir>/model.safetensors", allocated into *path. A
 * folder without it that has PyTorch's pickle (pytorch_model.bin, or its
 * shards' pytorch_model.bin.index.json) is TF_ERR_UNSUPPORTED "<dir>:
 * <file> but no model.safetensors: " and how to convert it
 * (weights_files.h), *path NULL. */
tf_status tf__model_folder_weights(const char *dir, char **path);

/* *f = dir's weights file opened (tf__model_folder_weights' file; close it
 * with tf__st_close), refused as that function and tf__st_open refuse. */
tf_status tf__model_folder_open(const char *dir, tf__st_file *f);

/* What a pipeline's source path is, for tf_pipeline_load: a Hugging Face
 * folder (its config.json: *kind TF__SOURCE_HF_FOLDER), libtfenc's own
 * folder (tf_encoder_save's model.safetensors and no config.json:
 * TF__SOURCE_OWN_FOLDER), or one weights file (TF__SOURCE_FILE). *folder
 * (allocated) is where the tokenizer's files are: path itself, or the
 * folder holding the file. Nothing at path is TF_ERR_IO naming it
 * (tf__file_probe's messages). */
typedef enum tf__source_kind {
    TF__SOURCE_HF_FOLDER,
    TF__SOURCE_OWN_FOLDER,
    TF__SOURCE_FILE
} tf__source_kind;
tf_status tf__model_source(const char *path, tf__source_kind *kind, char **folder);

/* dir's config.json (tf__hf_arch_read, its messages naming "config.json"). */
tf_status tf__model_folder_arch(const char *dir, tf__hf_arch *arch);

/* The head's tensors from dir's model.safetensors for an encoder of width
 * D and n_labels labels (config.json's id2label): a sequence head's (head:
 * the family's as config.json configures it, hf_family.h), or with head
 * NULL a token head's "classifier". A tensor missing or of another shape is
 * an error naming it and where its shape comes from. On failure nothing
 * stays allocated. */
tf_status tf__model_folder_head(const char *dir, const tf__hf_seq_head *head, int64_t n_labels,
                                int64_t D, tf__head_weights *w);
void tf__head_weights_free(tf__head_weights *w);

/* The activation sentence-transformers' CrossEncoder applies to the head's
 * logits as dir's config.json names it (CrossEncoder.get_default_activation_fn):
 * sentence_transformers.activation_fn where that key is there (null: none),
 * else sbert_ce_default_activation_function (v2 and v3 folders). *named 0:
 * the config names none (upstream's default then: Sigmoid for one label,
 * else Identity); 1: *act is the one it names. The head computes torch.nn's
 * Sigmoid, Identity, Tanh, ReLU and Softmax (nn.Softmax() takes dim 1 of
 * the [n, labels] logits: over each row), named by the path fullname()
 * writes (torch.nn.modules.activation.Sigmoid, torch.nn.modules.linear.Identity)
 * or by torch.nn.modules.<class> or torch.nn.<class>; another path (another
 * class, or Python code outside torch, which upstream runs only with
 * trust_remote_code) is TF_ERR_UNSUPPORTED naming the field and the value,
 * a value not a string TF_ERR_FORMAT. */
tf_status tf__model_folder_ce_activation(const char *dir, int32_t *named, tf__head_activation *act);

/* *has = 1 if the tokenizer.json at path has a model with a
 * continuing_subword_prefix (transformers' token-classification pipeline
 * then tells subwords by their length), else 0. */
tf_status tf__model_folder_subword_prefix(const char *path, int32_t *has);

#endif
