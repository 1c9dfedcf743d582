/* predict_tokens.c — tf_pipeline_predict_tokens: the masked-LM head's top_k
 * at every token of one text, each ranked as FillMaskPipeline ranks a
 * mask's (pipeline_fill_mask.c computes them, a block of rows at a time);
 * a fill-mask pipeline's head, or a sparse one's (its MLMTransformer's).
 *
 * Dimensions: T tokens, V the vocabulary. */
#include "alloc.h"
#include "error.h"
#include "fill_mask_rows.h"
#include "pipeline.h"

static tf_status check_call(const tf_pipeline *p, const char *text, int32_t top_k)
{
    if (!p || !text)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", p ? "text" : "pipeline");
    if (p->kind != TF_PIPELINE_FILL_MASK && p->kind != TF_PIPELINE_SPARSE)
        return tf__pipeline_wrong_kind(p, "tf_pipeline_predict_tokens");
    if (top_k < 1 || top_k > p->cfg.vocab_size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "top_k: expected 1..%d (the vocabulary's size), got %d",
                        (int)p->cfg.vocab_size, (int)top_k);
    return TF_OK;
}

/* The predictions at rows 0..T of b's one text. */
static tf_status predict_every_row(const tf_pipeline *p, const tf__pipeline_batch *b, int32_t top_k,
                                   tf_fill_mask **out)
{
    const size_t T = (size_t)tf_encoding_lengths(b->enc)[0];
    size_t *rows = tf__malloc(T * sizeof *rows); /* (T) 0..T */
    if (!rows)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu positions", T);
    for (size_t t = 0; t < T; t++)
        rows[t] = t;
    const tf_status s = tf__fill_mask_at(p, b, rows, T, top_k, out);
    tf__free(rows);
    return s;
}

tf_status tf_pipeline_predict_tokens(const tf_pipeline *p, const char *text, int32_t top_k,
                                     tf_fill_mask **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_status s = check_call(p, text, top_k);
    tf__pipeline_batch b;
    if (s || (s = tf__pipeline_batch_run(p, &text, NULL, 1, 0, 0, &b)))
        return s;
    if (b.truncated)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                     "text: more than %d tokens (the pipeline's max_seq_length); "
                     "tf_pipeline_predict_tokens takes the whole text",
                     (int)p->max_len);
    if (s == TF_OK)
        s = predict_every_row(p, &b, top_k, out);
    tf__pipeline_batch_free(&b);
    return s;
}
