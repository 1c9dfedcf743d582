/* bert_stages.h — the stages BertTokenizerFast sets up, which BERT's
 * vocab.txt implies without a tokenizer.json to name them: the rows of
 * BertNormalizer (normalizers/bert_normalizer.c), BertPreTokenizer
 * (pretokenizers/bert_pretokenizer.c) and the WordPiece decoder
 * (decoders/wordpiece_decoder.c), and how their states are filled. */
#ifndef TF_BERT_STAGES_H
#define TF_BERT_STAGES_H

#include <stdint.h>

#include "decoders/decoders.h"
#include "normalizers/normalizers.h"
#include "pretokenizers/pretokenizers.h"

extern const tf__normalizer_type tf__bert_normalizer;
extern const tf__pretokenizer_type tf__bert_pretokenizer;
extern const tf__decoder_type tf__wordpiece_decoder;

/* Fills BertNormalizer's state (tf__bert_normalizer.stage.state_size bytes). */
void tf__bert_normalizer_init(void *state, int32_t clean_text, int32_t handle_chinese_chars,
                              int32_t strip_accents, int32_t lowercase);

/* Fills the WordPiece decoder's state: continuations start with prefix
 * (copied); cleanup as tokenizers' wordpiece::cleanup. A bare
 * TF_ERR_OUT_OF_MEMORY when out of memory (the state left for its
 * destroy). */
tf_status tf__wordpiece_decoder_init(void *state, const char *prefix, int32_t cleanup);

#endif
