/* fuzz_tokenizer_encode.c — encoding arbitrary bytes (invalid UTF-8
 * included) with loaded tokenizer.json files, one of each model and
 * pipeline (tests/data/tokenizer_json: qwen3's byte-level BPE with Split
 * regexes, bpe_chars' normalizers and pre-tokenizers, Unigram with
 * Precompiled and Metaspace, SentencePiece's BPE with byte fallback): a
 * text, or a text and a pair split at the first NUL; then the ids decoded. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfenc.h"

#ifndef TFENC_FUZZ_DATA
#define TFENC_FUZZ_DATA "tests/data"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_FILES 5

static tf_tokenizer *load(int k)
{
    static const char *const names[N_FILES] = {"qwen3", "bpe_chars", "unigram", "unigram_bytes",
                                               "spm_bpe"};
    static tf_tokenizer *toks[N_FILES];
    if (!toks[k]) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tokenizer_json/%s/tokenizer.json", TFENC_FUZZ_DATA,
                 names[k]);
        if (tf_tokenizer_load(path, NULL, &toks[k]) != TF_OK)
            abort(); /* the fixtures must load */
    }
    return toks[k];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const uint8_t *nul = memchr(data, 0, size);
    const size_t len = nul ? (size_t)(nul - data) : size;
    const char *pair = nul ? text + len + 1 : NULL;
    const size_t pair_len = nul ? size - len - 1 : 0;
    for (int k = 0; k < N_FILES; k++) {
        tf_encoding *e;
        if (tf_tokenizer_encode(load(k), text, len, pair, pair_len, &e) != TF_OK)
            continue;
        size_t n;
        tf_tokenizer_decode(load(k), tf_encoding_ids(e), (size_t)tf_encoding_lengths(e)[0], 0,
                            NULL, 0, &n);
        tf_encoding_destroy(e);
    }
    return 0;
}
