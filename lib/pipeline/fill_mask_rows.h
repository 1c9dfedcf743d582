/* fill_mask_rows.h — the masked-LM head's top_k at chosen rows of one
 * whole text's run (pipeline_fill_mask.c), shared by tf_pipeline_fill_mask
 * (the mask rows) and tf_pipeline_predict_tokens (every row). */
#ifndef TF_PIPELINE_FILL_MASK_ROWS_H
#define TF_PIPELINE_FILL_MASK_ROWS_H

#include "pipeline.h"

/* The rows to predict at among one text's ids[0..T): at[0..*M) (at has T
 * slots); an error when the text has none the call can use. */
typedef tf_status (*tf__pick_rows)(const tf_pipeline *p, const int32_t *ids, size_t T, size_t *at,
                                   size_t *M);

/* *out = the predictions, top_k each, at the rows pick chooses of text,
 * run whole: a text over the pipeline's max_seq_length is refused, naming
 * call ("fill-mask takes the whole text"). p and text not NULL, p's kind
 * checked by the caller; *out NULL on failure. */
tf_status tf__fill_mask_text(const tf_pipeline *p, const char *text, int32_t top_k,
                             tf__pick_rows pick, const char *call, tf_fill_mask **out);

#endif
