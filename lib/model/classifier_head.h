/* classifier_head.h — a sequence-classification head: logits from the
 * pooled vectors, then the activation its problem type asks for. */
#ifndef TF_CLASSIFIER_HEAD_H
#define TF_CLASSIFIER_HEAD_H

#include <stddef.h>

typedef enum tf_head_activation {
    TF_HEAD_LOGITS,  /* as they are (regression; a CrossEncoder with several labels) */
    TF_HEAD_SIGMOID, /* each one alone (multi-label; one label) */
    TF_HEAD_SOFTMAX  /* over each row (single-label) */
} tf_head_activation;

/* logits (n, labels) = pooled (n, D) . w (labels, D)^T + b (labels):
 * BertForSequenceClassification's classifier (transformers'
 * modeling_bert.py), dropout being off at inference. */
void tf_head_logits(float *logits, const float *pooled, const float *w, const float *b, size_t n,
                    size_t labels, size_t D);

/* x (n, labels) through act, in place, each row alone. */
void tf_head_activate(float *x, size_t n, size_t labels, tf_head_activation act);

#endif
