/* tokenizer.h — the tokenizer behind tf_tokenizer: added tokens, then
 * normalizers (normalizers/), pre-tokenizers (pretokenizers/), a tokenizer
 * model (models/: WordPiece, BPE, Unigram) and the post-processing, as
 * Hugging Face's tokenizers runs them; decoders (decoders/) back.
 * Filled by formats/tokenizer/ from a tokenizer.json (which says every
 * stage) or BERT's vocab.txt (the stages BertTokenizerFast sets up); this
 * folder never reads a file. */
#ifndef TF_TOKENIZER_H
#define TF_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "added_tokens.h"
#include "decoders/decoders.h"
#include "models/tokenizer_models.h"
#include "normalizers/normalizers.h"
#include "post_process.h"
#include "pretokenizers/pretokenizers.h"
#include "stages.h"
#include "tfenc.h"
#include "tokens.h"
#include "vocab.h"

/* Bytes kept of the "type" of a decoder this library lacks (refused when
 * decoding, not loading, as tokenizers' Python side can load such a file
 * and encode with it). */
#define TF_UNSUPPORTED_TYPE 64

struct tf_tokenizer {
    tf__vocab vocab;                  /* the tokenizer model's */
    const tf__tokenizer_model *model; /* its row of models/tokenizer_models.c */
    void *model_state;                /* [model->state_size] what model->build made */
    tf__added_tokens added;
    int32_t has_normalized_added; /* some added token is matched after normalising */
    tf__stages normalizers;       /* rows of normalizers/normalizers.c, in order */
    tf__stages pretokenizers;     /* rows of pretokenizers/pretokenizers.c, in order */
    tf__stages decoders;          /* rows of decoders/decoders.c, in order */
    char unsupported_decoder[TF_UNSUPPORTED_TYPE]; /* the "type" of a decoder this library
                                                      lacks, or "" */
    tf__template single, pair;
    tf__truncation truncation;
    int32_t model_max_length; /* what truncation without a max_length cuts to; 0: none */
    int32_t pad_id, pad_type_id;
    int32_t pad_fixed;    /* > 0: every row padded to this many */
    int32_t pad_multiple; /* > 0: rows padded to a multiple of this */
    int32_t pad_left;     /* padding.direction Left */
};

/* What tf_tokenizer_options_init gives. */
extern const tf_tokenizer_options tf__tokenizer_defaults;

/* The caller's options (NULL: the defaults) into *o, read as their
 * struct_size says and checked: TF_ERR_INVALID_ARGUMENT naming the option. */
tf_status tf__tokenizer_options_read(tf_tokenizer_options *o, const tf_tokenizer_options *opts);

/* Appends the tokens of text[0..len) (no template specials) to out; `what`
 * names the text in messages. */
tf_status tf__tokenize(tf__token_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                       const char *what);

/* tf_tokenizer_encode_batch_with, its messages naming texts[i] "text
 * <first + i>" (and "pair <first + i>"): the index of texts[0] in the
 * caller's job (a pipeline call's batch, a caller's call of a long job). */
tf_status tf__tokenizer_encode_from(const tf_tokenizer *tok, size_t n, const char *const *texts,
                                    const size_t *lens, const char *const *pairs,
                                    const size_t *pair_lens, const tf_encode_options *opts,
                                    size_t first, tf_encoding **out);

/* Makes model tok's tokenizer model, with its state allocated (zeroed) for
 * model->build to fill; TF_ERR_OUT_OF_MEMORY naming `what`. */
tf_status tf__tokenizer_set_model(tf_tokenizer *tok, const tf__tokenizer_model *model,
                                  const char *what);

/* Runs c through the tokenizer's normalizers in place (an added token's
 * content with normalized true); `what` names it in messages. */
tf_status tf__tokenizer_normalize_chars(const tf_tokenizer *tok, tf__chars *c, const char *what);

#endif
