/* fuzz_tokenizer_encode.c — encoding arbitrary bytes (invalid UTF-8
 * included) with loaded tokenizer.json files, one of each model and
 * pipeline (tests/data/tokenizer_json: qwen3's byte-level BPE with Split
 * regexes, bpe_chars' normalizers and pre-tokenizers, Unigram with
 * Precompiled and Metaspace, SentencePiece's BPE with byte fallback). The
 * input's first byte b picks the file (b modulo their count); the rest is a
 * text, or a text and a pair split at the first NUL; then the ids are
 * decoded. Where b / the count is odd, two more bytes first pick
 * truncation with overflowing windows: s0 the max_length (s0 % 40), s1 the
 * stride (s1 % 16) and the strategy (longest_first, only_first,
 * only_second: s1 / 16 % 3); the text and pair are then cut to 128 bytes
 * each (a pair's rows are its windows' product), and every row is checked:
 * input 0, at most max_length ids. The files are loaded once, before the
 * first input. */
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

/* Options from s[0..2): truncation with overflowing windows (see above). */
static tf_encode_options overflow_options(const uint8_t *s)
{
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.truncation = TF_TRUNCATION_LONGEST_FIRST + s[1] / 16 % 3;
    o.max_length = s[0] % 40;
    o.stride = s[1] % 16;
    o.return_overflowing = 1;
    return o;
}

/* Aborts unless every row of e is input 0 and within max_length. */
static void check_rows(const tf_encoding *e, const tf_encode_options *o)
{
    for (int32_t r = 0; r < tf_encoding_batch(e); r++)
        if (tf_encoding_overflow_to_sample(e)[r] != 0 ||
            (o->max_length > 0 && tf_encoding_lengths(e)[r] > o->max_length))
            abort();
}

#define OVERFLOW_TEXT_MAX 128

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const tf_tokenizer *tok = toks[data[0] % N_FILES];
    const int overflow = data[0] / N_FILES % 2;
    if (overflow && size < 3)
        return 0;
    const tf_encode_options o = overflow ? overflow_options(data + 1) : (tf_encode_options){0};
    const size_t skip = overflow ? 3 : 1;
    const char *text = (const char *)data + skip;
    const uint8_t *nul = memchr(text, 0, size - skip);
    size_t len = nul ? (size_t)(nul - data) - skip : size - skip;
    const char *pair = nul ? text + len + 1 : NULL;
    size_t pair_len = nul ? size - skip - len - 1 : 0;
    if (overflow) {
        len = len < OVERFLOW_TEXT_MAX ? len : OVERFLOW_TEXT_MAX;
        pair_len = pair_len < OVERFLOW_TEXT_MAX ? pair_len : OVERFLOW_TEXT_MAX;
    }
    tf_encoding *e;
    if (tf_tokenizer_encode_batch_with(tok, 1, &text, &len, pair ? &pair : NULL, &pair_len,
                                       overflow ? &o : NULL, &e) != TF_OK)
        return 0;
    if (overflow)
        check_rows(e, &o);
    size_t n;
    tf_tokenizer_decode(tok, tf_encoding_ids(e), (size_t)tf_encoding_lengths(e)[0], 0, NULL, 0, &n);
    tf_encoding_destroy(e);
    return 0;
}
