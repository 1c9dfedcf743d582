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

static tf_status check_call(const tf_pipeline *p, const char *text)
{
    if (!p || !text)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", p ? "text" : "pipeline");
    if (p->kind != TF_PIPELINE_FILL_MASK && p->kind != TF_PIPELINE_SPARSE)
        return tf__pipeline_wrong_kind(p, "tf_pipeline_predict_tokens");
    return TF_OK;
}

/* Every row of a text's T: at[t] = t. */
static tf_status every_row(const tf_pipeline *p, const int32_t *ids, size_t T, size_t *at,
                           size_t *M)
{
    (void)p;
    (void)ids;
    for (size_t t = 0; t < T; t++)
        at[t] = t;
    *M = T;
    return TF_OK;
}

tf_status tf_pipeline_predict_tokens(const tf_pipeline *p, const char *text, int32_t top_k,
                                     tf_fill_mask **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    const tf_status s = check_call(p, text);
    return s ? s : tf__fill_mask_text(p, text, top_k, every_row, "tf_pipeline_predict_tokens", out);
}
