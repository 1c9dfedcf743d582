/* tokenizer.h — the tokenizer behind tf_tokenizer: added tokens, then
 * normalizers, pre-tokenizers, a model (WordPiece, BPE, Unigram) and the post
 * processing, as Hugging Face's tokenizers runs them. A vocab.txt is the
 * pipeline BertTokenizerFast builds; a tokenizer.json says its own. */
#ifndef TF_TOKENIZER_H
#define TF_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "added_tokens.h"
#include "decoders.h"
#include "model.h"
#include "post_process.h"
#include "stages.h"
#include "tfenc.h"
#include "vocab.h"

typedef enum tf_model_kind { TF_MODEL_WORDPIECE, TF_MODEL_BPE, TF_MODEL_UNIGRAM } tf_model_kind;

struct tf_tokenizer {
    tf_vocab vocab;                /* the model's */
    tf_model_kind model;
    int32_t unk_id;                /* WordPiece's; -1: none */
    int32_t max_chars_per_word;    /* WordPiece's */
    tf_bpe bpe;
    tf_unigram unigram;
    tf_added_tokens added;
    int32_t has_normalized_added;  /* some added token is matched after normalising */
    tf_normalizer *normalizers;    /* [n_normalizers], in order */
    size_t n_normalizers;
    tf_pretokenizer *pretokenizers; /* [n_pretokenizers], in order */
    size_t n_pretokenizers;
    tf_decoder *decoders;          /* [n_decoders], in order */
    size_t n_decoders;
    char unsupported_decoder[64];  /* the "type" of a decoder this library lacks, or "" */
    tf_template single, pair;
    tf_truncation truncation;
    int32_t model_max_length;      /* what truncation without a max_length cuts to; 0: none */
    int32_t pad_id, pad_type_id;
    int32_t pad_fixed;             /* > 0: every row padded to this many */
    int32_t pad_multiple;          /* > 0: rows padded to a multiple of this */
    int32_t pad_left;              /* padding.direction Left */
};

/* Appends the tokens of text[0..len) (no template specials) to out; `what`
 * names the text in messages. */
tf_status tf_tokenize(tf_token_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                      const char *what);

/* Loads a tokenizer.json into tok (zeroed); tok is left for
 * tf_tokenizer_destroy on failure too. */
tf_status tf_tokenizer_json_load(tf_tokenizer *tok, const char *path,
                                 const tf_tokenizer_options *o);

/* Runs c through the tokenizer's normalizers in place (an added token's
 * content with normalized true); `what` names it in messages. */
tf_status tf_tokenizer_normalize_chars(const tf_tokenizer *tok, tf_chars *c, const char *what);


#endif
