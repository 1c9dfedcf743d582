/* fuzz_tokenizer.c — the WordPiece tokenizer on arbitrary bytes (invalid
 * UTF-8 included): a text, or a text and a pair split at the first NUL;
 * encode, and encode again as a batch with truncation. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tfenc.h"

#ifndef TFENC_FUZZ_VOCAB
#define TFENC_FUZZ_VOCAB "tests/data/wordpiece/vocab.txt"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tf_tokenizer *load(int truncating)
{
    static tf_tokenizer *toks[2];
    if (!toks[truncating]) {
        tf_tokenizer_options o;
        tf_tokenizer_options_init(&o);
        o.max_length = truncating ? 7 : 0;
        o.max_chars_per_word = truncating ? 5 : 100;
        tf_tokenizer_load(TFENC_FUZZ_VOCAB, &o, &toks[truncating]);
    }
    return toks[truncating];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const uint8_t *nul = memchr(data, 0, size);
    const size_t len = nul ? (size_t)(nul - data) : size;
    const char *pair = nul ? text + len + 1 : NULL;
    const size_t pair_len = nul ? size - len - 1 : 0;
    for (int truncating = 0; truncating < 2; truncating++) {
        tf_tokenizer *tok = load(truncating);
        tf_encoding *e;
        if (tok && tf_tokenizer_encode(tok, text, len, pair, pair_len, &e) == TF_OK)
            tf_encoding_destroy(e);
    }
    return 0;
}
