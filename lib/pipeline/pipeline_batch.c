/* pipeline_batch.c — one batch of a pipeline call: tokens (cut to
 * max_seq_length, the cuts counted), the encoder's forward pass. */
#include <string.h>

#include "alloc.h"
#include "classifier_head.h"
#include "error.h"
#include "pipeline.h"
#include "tokenizer.h"

/* Counts the rows cut: a row of exactly max_len tokens was when the probe
 * gives it more. Refuses them when p->truncation_error. */
tf_status tf__pipeline_count_cut(const tf_pipeline *p, const char *const *texts,
                                 const char *const *pairs, size_t first, tf__pipeline_batch *b)
{
    for (int32_t r = 0; r < b->B; r++) {
        if (tf_encoding_lengths(b->enc)[r] < p->max_len)
            continue;
        const char *pair = pairs ? pairs[r] : NULL;
        tf_encoding *longer;
        tf_status s = tf__tokenizer_encode_from(p->probe, 1, texts + r, NULL,
                                                pair ? pairs + r : NULL, NULL, NULL,
                                                first + (size_t)r, &longer);
        if (s)
            return s;
        const int cut = tf_encoding_lengths(longer)[0] > p->max_len;
        tf_encoding_destroy(longer);
        if (cut && p->truncation_error)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "input %zu has more than %d tokens "
                            "(max_seq_length), and options.truncation_error is 1",
                            first + (size_t)r, (int)p->max_len);
        b->truncated += (size_t)cut;
    }
    return TF_OK;
}

/* b->pooled (B, D) = norm(act(dense(pool(hidden)))): the head's input where
 * it is not BERT's pooler; scratch (B, D). */
static void head_transform(const tf_pipeline *p, tf__pipeline_batch *b, float *scratch)
{
    const tf__head_transform h = {.pooling = p->head->pooling,
                                  .dense_w = p->dense_w,
                                  .dense_b = p->dense_b,
                                  .act = p->head->dense_act,
                                  .norm_w = p->norm_w,
                                  .norm_b = p->norm_b,
                                  .norm_eps = p->cfg.layer_norm_eps};
    tf__head_transform_forward(b->pooled, scratch, b->hidden, tf_encoding_lengths(b->enc),
                               (size_t)b->B, (size_t)b->T, (size_t)p->cfg.d_model, &h);
}

static tf_status forward(const tf_pipeline *p, int32_t n_threads, tf__pipeline_batch *b)
{
    const size_t D = (size_t)p->cfg.d_model;
    const int head = p->kind == TF_PIPELINE_CROSS_ENCODER || p->kind == TF_PIPELINE_CLASSIFIER;
    const int dense = head && p->head->dense;
    b->hidden = tf__malloc((size_t)b->B * (size_t)b->T * D * sizeof *b->hidden); /* [B, T, D] */
    if (head)
        b->pooled = tf__malloc((size_t)b->B * D * sizeof *b->pooled);               /* [B, D] */
    float *scratch = dense ? tf__malloc((size_t)b->B * D * sizeof *scratch) : NULL; /* [B, D] */
    tf_status s = TF_OK;
    if (!b->hidden || (head && !b->pooled) || (dense && !scratch))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY,
                     "cannot allocate the hidden states of %d x %d "
                     "tokens",
                     (int)b->B, (int)b->T);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = b->B, a.seq_len = b->T, a.input_ids = tf_encoding_ids(b->enc);
    a.attention_mask = tf_encoding_attention_mask(b->enc);
    /* one token type (RoBERTa's): its tokenizer's type ids are not the model's input */
    a.token_type_ids = p->cfg.n_token_types > 1 ? tf_encoding_type_ids(b->enc) : NULL;
    a.output = b->hidden, a.pooled_output = head && !dense ? b->pooled : NULL;
    a.n_threads = n_threads;
    if (s == TF_OK && (s = tf_encoder_forward(p->enc, &a)) == TF_OK && dense)
        head_transform(p, b, scratch);
    tf__free(scratch);
    return s;
}

tf_status tf__pipeline_batch_run(const tf_pipeline *p, const char *const *texts,
                                 const char *const *pairs, size_t n, size_t first,
                                 int32_t n_threads, tf__pipeline_batch *b)
{
    *b = (tf__pipeline_batch){0};
    tf_status s = tf__tokenizer_encode_from(p->tok, n, texts, NULL, pairs, NULL, NULL, first,
                                            &b->enc);
    if (s)
        return s;
    b->B = tf_encoding_batch(b->enc), b->T = tf_encoding_seq_len(b->enc);
    if ((s = tf__pipeline_count_cut(p, texts, pairs, first, b)) == TF_OK)
        s = forward(p, n_threads, b);
    if (s)
        tf__pipeline_batch_free(b);
    return s;
}

void tf__pipeline_batch_free(tf__pipeline_batch *b)
{
    tf_encoding_destroy(b->enc);
    tf__free(b->hidden);
    tf__free(b->pooled);
    *b = (tf__pipeline_batch){0};
}
