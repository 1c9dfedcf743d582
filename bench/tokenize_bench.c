/* tokenize_bench.c — tfenc-bench --tokenize (tokenize_bench.h): MB/s of
 * one text through a tokenizer on one thread, for each algorithm's
 * committed fixture or for one tokenizer. bench/compare_tokenize.py runs
 * it beside Hugging Face's JS tokenizers (bench/tokenize_js.mjs). */
#include "tokenize_bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfenc.h"
#include "timing.h"

#ifndef TFENC_SOURCE_ROOT
#define TFENC_SOURCE_ROOT "."
#endif

/* The fixtures, one of each algorithm (paths from the source root); the
 * names are what compare_tokenize.py matches the JS runs by. */
static const struct {
    const char *name, *path;
} fixtures[] = {
    {"wordpiece-vocab.txt", "tests/data/wordpiece/vocab.txt"},
    {"wordpiece-json", "tests/data/tokenizer_json/bert_uncased/tokenizer.json"},
    {"bytelevel-bpe-qwen3", "tests/data/tokenizer_json/qwen3/tokenizer.json"},
    {"bytelevel-bpe-roberta", "tests/data/tokenizer_json/roberta/tokenizer.json"},
    {"unigram-precompiled", "tests/data/tokenizer_json/unigram/tokenizer.json"},
    {"spm-bpe-byte-fallback", "tests/data/tokenizer_json/spm_bpe/tokenizer.json"},
};

/* The texts: the seed article (Chinese) and the texts of bpe_chars'
 * cases, one a line (mixed scripts, emoji and ZWJ sequences, combining
 * marks, odd spaces, code, numbers). */
static const struct {
    const char *name, *path;
} texts[] = {
    {"seed-article", "bench/texts/seed_article.txt"},
    {"mixed-scripts", "bench/texts/mixed_scripts.txt"},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* About 4 MB of English-like text: the vocabulary's whole words (no "##",
 * no [..]), some capitalised, with commas and full stops. */
static char *make_text(const tf_tokenizer *tok, size_t *len)
{
    const size_t cap = 4u << 20;
    char *text = malloc(cap + 64);
    size_t n = 0, word = 0;
    const int32_t V = tf_tokenizer_vocab_size(tok);
    for (uint32_t r = 12345; text && n < cap; word++) {
        const char *w;
        do {
            r = r * 1103515245u + 12345u;
            w = tf_tokenizer_id_to_token(tok, (int32_t)((r >> 8) % (uint32_t)V));
        } while (!w || w[0] == '[' || w[0] == '#' || strlen(w) < 2 || strlen(w) > 30);
        n += (size_t)sprintf(text + n, " %s", w);
        char *first = text + n - strlen(w);
        if (word % 9 == 0 && *first >= 'a' && *first <= 'z')
            *first = (char)(*first - 'a' + 'A');
        if (word % 13 == 12)
            text[n++] = word % 2 ? ',' : '.';
    }
    if (text)
        *len = n;
    return text;
}

/* The bytes of the file at path (malloc'd, *len of them), NULL when it
 * cannot be read or is empty. */
static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size > 0 ? malloc((size_t)size) : NULL;
    if (text)
        *len = fread(text, 1, (size_t)size, f);
    fclose(f);
    return text;
}

/* One timed call: the text encoded whole (no truncation, whatever the
 * file says: the JS reference has none), its ids counted. */
typedef struct encode_call {
    const tf_tokenizer *tok;
    const char *text;
    size_t len;
    size_t ids;
} encode_call;

static int encode_once(void *ctx)
{
    encode_call *c = ctx;
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.truncation = TF_TRUNCATION_NONE;
    tf_encoding *e;
    const tf_status s = tf_tokenizer_encode_batch_with(c->tok, 1, &c->text, &c->len, NULL, NULL, &o,
                                                       &e);
    c->ids = s == TF_OK ? (size_t)tf_encoding_lengths(e)[0] : 0;
    tf_encoding_destroy(e);
    return (int)s;
}

/* One line: "tokenize NAME TEXT_NAME MB/s BYTES IDS ... PATH TEXT_PATH"
 * (the median). */
static int time_text(const char *name, const char *path, const tf_tokenizer *tok,
                     const char *text_name, const char *text_path, const char *text, size_t len,
                     double min_time)
{
    encode_call call = {tok, text, len, 0};
    double median = 0, best = 0;
    tf_status s = (tf_status)encode_once(&call); /* the warm-up */
    if (s == TF_OK)
        s = (tf_status)bench_time_runs(encode_once, &call, min_time, &median, &best);
    if (s) {
        fprintf(stderr, "tfenc-bench: %s on %s: %s: %s\n", name, text_name, tf_status_name(s),
                tf_last_error());
        return 1;
    }
    printf("tokenize %-22s %-14s %8.2f MB/s %9zu bytes %8zu ids (median; best %.2f MB/s) %s %s\n",
           name, text_name, (double)len / 1e6 / median, len, call.ids, (double)len / 1e6 / best,
           path, text_path ? text_path : "-");
    fflush(stdout);
    return 0;
}

/* The tokenizer at path on the text at text_path (NULL: English-like). */
static int time_file(const char *name, const char *path, const char *text_name,
                     const char *text_path, double min_time)
{
    tf_tokenizer *tok;
    const tf_status s = tf_tokenizer_load(path, NULL, &tok);
    if (s) {
        fprintf(stderr, "tfenc-bench: %s: %s\n", tf_status_name(s), tf_last_error());
        return 1;
    }
    size_t len = 0;
    char *text = text_path ? read_text(text_path, &len) : make_text(tok, &len);
    const int failed = text ? time_text(name, path, tok, text_name, text_path, text, len, min_time)
                            : 1;
    if (!text)
        fprintf(stderr, "tfenc-bench: cannot read the text %s\n", text_path ? text_path : "");
    free(text);
    tf_tokenizer_destroy(tok);
    return failed;
}

int bench_tokenize(const char *path, const char *text_file, double min_time)
{
    if (strcmp(path, "all") != 0)
        return time_file(path, path, text_file ? text_file : "english-like", text_file, min_time);
    int failed = 0;
    for (size_t f = 0; f < N_OF(fixtures); f++) {
        char file[4096], text[4096];
        snprintf(file, sizeof file, "%s/%s", TFENC_SOURCE_ROOT, fixtures[f].path);
        for (size_t t = 0; t < (text_file ? 1 : N_OF(texts)); t++) {
            snprintf(text, sizeof text, "%s/%s", TFENC_SOURCE_ROOT, texts[t].path);
            failed |= time_file(fixtures[f].name, file, text_file ? text_file : texts[t].name,
                                text_file ? text_file : text, min_time);
        }
    }
    return failed;
}
