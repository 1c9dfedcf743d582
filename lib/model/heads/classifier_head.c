/* classifier_head.c — logits and their softmax, sigmoid, tanh or ReLU, as
 * transformers' text-classification pipeline (pipelines/
 * text_classification.py, postprocess) and sentence-transformers'
 * CrossEncoder (its activation_fn) compute them. */
#include "classifier_head.h"

#include <math.h>

#include "kernels.h"
#include "linear.h"
#include "sentence_pool.h"

void tf__head_transform_forward(float *pooled, float *scratch, const float *hidden,
                                const int32_t *lengths, size_t B, size_t T, size_t D,
                                const tf__head_transform *h)
{
    tf__pool_mode(scratch, D, hidden, lengths, NULL, B, T, D, h->pooling);       /* (B, D) */
    tf__dense_forward(pooled, scratch, h->dense_w, h->dense_b, B, D, D, h->act); /* (B, D) */
    if (h->norm_w)
        tf__layernorm_rows(pooled, pooled, h->norm_w, h->norm_b, B, D, h->norm_eps);
}

void tf__head_logits(float *logits, const float *pooled, const float *w, const float *b, size_t n,
                     size_t labels, size_t D)
{
    tf__linear(logits, pooled, w, b, n, labels, D); /* (n, labels) */
}

/* row (labels) = exp(row - max) / sum, in double. */
static void softmax_row(float *row, size_t labels)
{
    double max = row[0], sum = 0.0;
    for (size_t j = 1; j < labels; j++)
        max = row[j] > max ? row[j] : max;
    for (size_t j = 0; j < labels; j++)
        sum += exp(row[j] - max);
    for (size_t j = 0; j < labels; j++)
        row[j] = (float)(exp(row[j] - max) / sum);
}

/* x through an activation of one value at a time (as it is for the others). */
static float activate_value(float x, tf__head_activation act)
{
    switch (act) {
    case TF_HEAD_SIGMOID:
        return (float)(1.0 / (1.0 + exp(-(double)x)));
    case TF_HEAD_TANH:
        return (float)tanh((double)x);
    case TF_HEAD_RELU:
        return x < 0.0f ? 0.0f : x; /* NaN stays, as torch.relu's */
    case TF_HEAD_LOGITS:
    case TF_HEAD_SOFTMAX:
        break;
    }
    return x;
}

void tf__head_activate(float *x, size_t n, size_t labels, tf__head_activation act)
{
    for (size_t r = 0; r < n; r++) {
        float *row = x + r * labels; /* (labels) */
        if (act == TF_HEAD_SOFTMAX)
            softmax_row(row, labels);
        else
            for (size_t j = 0; j < labels; j++)
                row[j] = activate_value(row[j], act);
    }
}
