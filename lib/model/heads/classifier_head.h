/* classifier_head.h — a sequence-classification head: logits from the
 * pooled vectors, then the activation its problem type asks for. */
#ifndef TF_CLASSIFIER_HEAD_H
#define TF_CLASSIFIER_HEAD_H

#include <stddef.h>
#include <stdint.h>

#include "dense.h"

typedef enum tf__head_activation {
    TF_HEAD_LOGITS,  /* as they are (regression; a CrossEncoder with several labels) */
    TF_HEAD_SIGMOID, /* each one alone (multi-label; one label) */
    TF_HEAD_SOFTMAX, /* over each row (single-label) */
    TF_HEAD_TANH,    /* each one alone (a CrossEncoder whose config.json names Tanh) */
    TF_HEAD_RELU     /* max(x, 0) (... names ReLU) */
} tf__head_activation;

/* What a sequence head computes from the hidden states before its logits
 * (RoBERTa's classifier.dense and tanh, ModernBertPredictionHead's dense,
 * activation and LayerNorm), with its weights. */
typedef struct tf__head_transform {
    int pooling;                    /* TF_POOLING_CLS (h[:, 0]) or TF_POOLING_MEAN */
    const float *dense_w, *dense_b; /* (D, D), (D) or NULL */
    tf__dense_activation act;       /* after dense */
    const float *norm_w, *norm_b;   /* LayerNorm (D), (D) or NULL; norm_w NULL: none */
    float norm_eps;
} tf__head_transform;

/* pooled (B, D) = norm(act(dense(pool(hidden)))): hidden [B, T, D] pooled
 * over each row's first lengths[b] tokens (as ModernBertForSequenceClassification
 * pools by classifier_pooling: h[:, 0], or the mean over the attention mask);
 * scratch (B, D). */
void tf__head_transform_forward(float *pooled, float *scratch, const float *hidden,
                                const int32_t *lengths, size_t B, size_t T, size_t D,
                                const tf__head_transform *h);

/* logits (n, labels) = pooled (n, D) . w (labels, D)^T + b (labels):
 * BertForSequenceClassification's classifier (transformers'
 * modeling_bert.py), dropout being off at inference. */
void tf__head_logits(float *logits, const float *pooled, const float *w, const float *b, size_t n,
                     size_t labels, size_t D);

/* x (n, labels) through act, in place, each row alone. */
void tf__head_activate(float *x, size_t n, size_t labels, tf__head_activation act);

#endif
