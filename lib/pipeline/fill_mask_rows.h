/* fill_mask_rows.h — the masked-LM head's top_k at chosen rows of one
 * text's run (pipeline_fill_mask.c), shared by tf_pipeline_fill_mask (the
 * mask rows) and tf_pipeline_predict_tokens (every row). */
#ifndef TF_PIPELINE_FILL_MASK_ROWS_H
#define TF_PIPELINE_FILL_MASK_ROWS_H

#include "pipeline.h"

/* *out = the predictions at rows at[0..M) of b's one text (b->hidden
 * [T, D]; each at[i] < T), top_k each, token_str and sequence decoded as
 * tf_pipeline_fill_mask decodes them; *out NULL on failure. */
tf_status tf__fill_mask_at(const tf_pipeline *p, const tf__pipeline_batch *b, const size_t *at,
                           size_t M, int32_t top_k, tf_fill_mask **out);

#endif
