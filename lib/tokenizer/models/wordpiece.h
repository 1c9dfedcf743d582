/* wordpiece.h — WordPiece without a tokenizer.json: BERT's vocab.txt names
 * no model, and is WordPiece with "##" continuations. */
#ifndef TF_WORDPIECE_H
#define TF_WORDPIECE_H

#include <stdint.h>

#include "tokenizer_models.h"

extern const tf__tokenizer_model tf__wordpiece_model;

/* Fills WordPiece's state (tf__wordpiece_model.state_size bytes): unk_id for
 * a word the vocabulary cannot spell, and for a word of more than max_chars
 * characters. */
void tf__wordpiece_init(void *state, int32_t unk_id, int32_t max_chars);

#endif
