/* fuzz_tokenizer_encode.c — encoding arbitrary bytes (invalid UTF-8
 * included) with loaded tokenizer.json files, one of each model and
 * pipeline (tests/data/tokenizer_json: qwen3's byte-level BPE with Split
 * regexes, bpe_chars' normalizers and pre-tokenizers, Unigram with
 * Precompiled and Metaspace, SentencePiece's BPE with byte fallback). The
 * input's first byte picks the file (modulo their count); the rest is a
 * text, or a text and a pair split at the first NUL; then the ids are
 * decoded. The files are loaded once, before the first input. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfenc.h"

#ifndef TFENC_FUZZ_DATA
#define TFENC_FUZZ_DATA "tests/data"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_FILES 5

static tf_tokenizer *toks[N_FILES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    static const char *const names[N_FILES] = {"qwen3", "bpe_chars", "unigram", "unigram_bytes",
                                               "spm_bpe"};
    for (int k = 0; k < N_FILES; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tokenizer_json/%s/tokenizer.json", TFENC_FUZZ_DATA,
                 names[k]);
        if (tf_tokenizer_load(path, NULL, &toks[k]) != TF_OK) {
            fprintf(stderr, "fuzz_tokenizer_encode: %s: %s\n", path, tf_last_error());
            abort(); /* the fixtures must load */
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const tf_tokenizer *tok = toks[data[0] % N_FILES];
    const char *text = (const char *)data + 1;
    const uint8_t *nul = memchr(text, 0, size - 1);
    const size_t len = nul ? (size_t)(nul - data) - 1 : size - 1;
    const char *pair = nul ? text + len + 1 : NULL;
    const size_t pair_len = nul ? size - 1 - len - 1 : 0;
    tf_encoding *e;
    if (tf_tokenizer_encode(tok, text, len, pair, pair_len, &e) != TF_OK)
        return 0;
    size_t n;
    tf_tokenizer_decode(tok, tf_encoding_ids(e), (size_t)tf_encoding_lengths(e)[0], 0, NULL, 0,
                        &n);
    tf_encoding_destroy(e);
    return 0;
}
