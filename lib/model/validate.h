/* validate.h — checks every forward argument before any work is done. */
#ifndef TF_VALIDATE_H
#define TF_VALIDATE_H

#include "tfenc.h"

/* On success sets the number of real tokens and the longest sequence. On
 * failure the message names the argument, its value and what was expected. */
tf_status tf_forward_validate(const tf_encoder *enc, const tf_forward_args *a, size_t *n_tokens,
                              int32_t *max_len);

#endif
