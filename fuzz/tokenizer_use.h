/* tokenizer_use.h — what the tokenizer-loading fuzz targets do with a
 * tokenizer that loaded: encode a text and a pair, and decode the ids
 * (skipping the special tokens). Fuzz-only. */
#ifndef TF_FUZZ_TOKENIZER_USE_H
#define TF_FUZZ_TOKENIZER_USE_H

#include <stddef.h>

#include "tfenc.h"

static void use_tokenizer(const tf_tokenizer *tok, const char *text, size_t len, const char *pair,
                          size_t pair_len)
{
    tf_encoding *e;
    if (tf_tokenizer_encode(tok, text, len, pair, pair_len, &e) != TF_OK)
        return;
    char buf[4096];
    size_t n;
    tf_tokenizer_decode(tok, tf_encoding_ids(e), (size_t)tf_encoding_lengths(e)[0], 1, buf,
                        sizeof buf, &n);
    tf_encoding_destroy(e);
}

#endif
