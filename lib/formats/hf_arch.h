/* hf_arch.h — which architecture and head a Hugging Face config.json
 * names (model_type, architectures, auto_map), with the labels and
 * problem_type of a sequence-classification head. */
#ifndef TF_HF_ARCH_H
#define TF_HF_ARCH_H

#include <stdint.h>

#include "hf_family.h"
#include "tfenc.h"

typedef enum tf__problem {
    TF_PROBLEM_UNSET,        /* transformers: one label regression-like, else single-label */
    TF_PROBLEM_SINGLE_LABEL, /* single_label_classification: softmax */
    TF_PROBLEM_MULTI_LABEL,  /* multi_label_classification: sigmoid */
    TF_PROBLEM_REGRESSION    /* regression: the logits */
} tf__problem;

typedef struct tf__hf_arch {
    const struct tf__hf_family *family; /* model_type's (hf_family.h) */
    int32_t seq_cls;                    /* architectures names a *ForSequenceClassification */
    int32_t token_cls;                  /* ... or a *ForTokenClassification */
    int32_t mlm;                        /* ... or a *ForMaskedLM (since 0.5.0) */
    int32_t cross_encoder;              /* config.json holds the "sentence_transformers" object */
    int32_t n_labels;                   /* id2label's size (num_labels, else 2, without it) */
    char **labels;                      /* [n_labels], owned */
    tf__problem problem;
    tf__hf_seq_head head; /* seq_cls: the family's head as config.json configures it */
} tf__hf_arch;

/* Reads the config.json at path; label names it in messages. A model_type
 * of no family, an architecture that is not its family's, or an auto_map
 * (remote code) is TF_ERR_UNSUPPORTED naming them and the supported ones. A
 * *ForSequenceClassification's head is its family's seq_head as the
 * family's configure_head sets it from config.json (a value it cannot run:
 * TF_ERR_UNSUPPORTED naming the key and the value). */
tf_status tf__hf_arch_read(tf__hf_arch *a, const char *path, const char *label);
/* Only the labels (id2label, else num_labels' LABEL_i) and problem_type of
 * the config.json at path, read as tf__hf_arch_read reads a head's: for a
 * head outside the text families (ViTForImageClassification); a->family
 * stays NULL. */
tf_status tf__hf_arch_read_labels(tf__hf_arch *a, const char *path, const char *label);
void tf__hf_arch_free(tf__hf_arch *a);

#endif
