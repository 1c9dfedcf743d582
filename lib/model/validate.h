/* validate.h — checks every forward argument before any work is done. */
#ifndef TF_VALIDATE_H
#define TF_VALIDATE_H

#include "tfenc.h"

/* Reads the caller's arguments into *args (this library's struct, fields
 * the caller lacks at their defaults) and checks them. On success sets the
 * number of real tokens and the longest sequence. On failure the message
 * names the argument, its value and what was expected. */
/* The longest sequence the positions allow, 0 for any: a learned table's
 * rows less position_offset (RoBERTa's first rows are not for tokens), the
 * sinusoidal encodings' max_positions when > 0. Rotary and ALiBi positions
 * are computed for any length, as their upstream code does (ModernBERT's,
 * GTE's, NomicBERT's rotary tables and JinaBERT's ALiBi tensor are rebuilt
 * for a longer input): their max_positions is the trained length, which a
 * pipeline's token limit defaults to. */
int32_t tf__longest_sequence(const tf_config *cfg);

tf_status tf__forward_validate(const tf_encoder *enc, const tf_forward_args *caller,
                               tf_forward_args *args, size_t *n_tokens, int32_t *max_len);

#endif
