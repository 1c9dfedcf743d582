/* validate.h — checks every forward argument before any work is done. */
#ifndef TF_VALIDATE_H
#define TF_VALIDATE_H

#include "tfenc.h"

/* Reads the caller's arguments into *args (this library's struct, fields
 * the caller lacks at their defaults) and checks them. On success sets the
 * number of real tokens and the longest sequence. On failure the message
 * names the argument, its value and what was expected. */
tf_status tf_forward_validate(const tf_encoder *enc, const tf_forward_args *caller,
                              tf_forward_args *args, size_t *n_tokens, int32_t *max_len);

#endif
