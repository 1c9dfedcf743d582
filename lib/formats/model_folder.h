/* model_folder.h — what tf_pipeline_load reads from a model folder besides
 * the encoder (load.c), the tokenizer (tokenizer/folder_config.h) and the
 * sentence-transformers modules (st_modules.h): config.json's architecture
 * and head, the head's tensors in model.safetensors, and whether
 * tokenizer.json's model marks subwords. pipeline/pipeline.c assembles
 * them. */
#ifndef TF_MODEL_FOLDER_H
#define TF_MODEL_FOLDER_H

#include <stdint.h>

#include "hf_arch.h"
#include "hf_family.h"
#include "tfenc.h"

/* A classification head's weights, owned. */
typedef struct tf_head_weights {
    float *dense_w, *dense_b; /* a sequence head's dense layer: (D, D), (D) or NULL */
    float *norm_w, *norm_b;   /* its LayerNorm after the dense: (D), (D) or NULL */
    float *cls_w, *cls_b;     /* the logits' Linear: (labels, D), (labels) */
} tf_head_weights;

/* dir's config.json (tf_hf_arch_read, its messages naming "config.json"). */
tf_status tf_model_folder_arch(const char *dir, tf_hf_arch *arch);

/* The head's tensors from dir's model.safetensors for an encoder of width
 * D and n_labels labels (config.json's id2label): a sequence head's (head:
 * the family's as config.json configures it, hf_family.h), or with head
 * NULL a token head's "classifier". A tensor missing or of another shape is
 * an error naming it and where its shape comes from. On failure nothing
 * stays allocated. */
tf_status tf_model_folder_head(const char *dir, const tf_hf_seq_head *head, int64_t n_labels,
                               int64_t D, tf_head_weights *w);
void tf_head_weights_free(tf_head_weights *w);

/* *has = 1 if the tokenizer.json at path has a model with a
 * continuing_subword_prefix (transformers' token-classification pipeline
 * then tells subwords by their length), else 0. */
tf_status tf_model_folder_subword_prefix(const char *path, int32_t *has);

#endif
