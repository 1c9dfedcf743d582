/* test_tokenizer_sizes.c — hostile sizes: a tokenizer.json
 * whose vocabulary is 100 MB, a vocab.txt of 100 MB, a file past the size a
 * tokenizer file may have, and a single word of 10 MB through WordPiece,
 * byte-level BPE and Unigram, and a folder naming 200,000 added tokens.
 * Each either works, with a result checked against what the small file
 * gives or against the text itself, or fails with a message naming the
 * file and both sizes. Large by design: left out
 * of the valgrind run (suite "large-inputs"). */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

enum {
    BIG_VOCAB_BYTES = 100 * 1000 * 1000, /* the vocabularies written here reach this size */
    BIG_WORD_BYTES = 10 * 1000 * 1000,   /* the single word */
    FILE_LIMIT_BYTES =
        256 << 20 /* a tokenizer file's limit (formats/tokenizer/tokenizer_files.h) */
};

static const char *data_dir;
static const char *sample = "Hello, world! The tokenizer's vocabulary grew.";

static path_buf fixture(const char *name)
{
    return join(join(join(data_dir, "tokenizer_json").s, name).s, "tokenizer.json");
}

static tf_tokenizer *load(const char *path)
{
    tf_tokenizer *tok = NULL;
    const tf_status s = tf_tokenizer_load(path, NULL, &tok);
    ck_assert_msg(s == TF_OK, "%s: %s", path, tf_last_error());
    return tok;
}

/* The ids of `sample` by tok, into ids (at most 64); returns their count. */
static int32_t sample_ids(const tf_tokenizer *tok, int32_t *ids)
{
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode(tok, sample, strlen(sample), NULL, 0, &e), TF_OK);
    const int32_t n = tf_encoding_lengths(e)[0];
    ck_assert_int_le(n, 64);
    memcpy(ids, tf_encoding_ids(e), (size_t)n * sizeof *ids);
    tf_encoding_destroy(e);
    return n;
}

/* big and small give `sample` the same ids. */
static void expect_same_sample_ids(const tf_tokenizer *big, const tf_tokenizer *small)
{
    int32_t a[64], b[64];
    const int32_t na = sample_ids(big, a), nb = sample_ids(small, b);
    ck_assert_int_eq(na, nb);
    for (int32_t i = 0; i < na; i++)
        ck_assert_int_eq(a[i], b[i]);
}

/* The extra token k of the big vocabularies, into buf[EXTRA_TOKEN_SIZE]:
 * 16 bytes for every k here, none of them in sample. */
enum { EXTRA_TOKEN_SIZE = 32 };

static void extra_token(char *buf, size_t k)
{
    snprintf(buf, EXTRA_TOKEN_SIZE, "##q%013zu", k);
}

/* bert_uncased's tokenizer.json with continuation pieces added to model.vocab
 * (ids from the file's count on) until the file passes 100 MB. */
START_TEST(test_vocabulary_of_100_mb_in_tokenizer_json)
{
    size_t len;
    char *text = read_file(fixture("bert_uncased").s, &len);
    cJSON *j = cJSON_Parse(text);
    ck_assert_ptr_nonnull(j);
    const int base = cJSON_GetArraySize(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "model"), "vocab"));
    cJSON_Delete(j);
    const char *key = "\"vocab\":{";
    char *at = strstr(text, key);
    ck_assert_msg(at != NULL, "the fixture writes no %s", key);
    const size_t head = (size_t)(at - text) + strlen(key);
    char *big = malloc(len + BIG_VOCAB_BYTES + 64); /* an entry is at most 27 bytes */
    ck_assert_ptr_nonnull(big);
    memcpy(big, text, head);
    size_t n = head, extra = 0;
    for (; n <= BIG_VOCAB_BYTES; extra++) {
        char token[EXTRA_TOKEN_SIZE];
        extra_token(token, extra);
        n += (size_t)sprintf(big + n, "\"%s\":%zu,", token, (size_t)base + extra);
    }
    memcpy(big + n, text + head, len - head);
    n += len - head;
    ck_assert_uint_gt(n, BIG_VOCAB_BYTES);
    make_tmp_dir();
    const path_buf path = join(tmp_dir, "tokenizer.json");
    FILE *f = fopen(path.s, "wb");
    ck_assert_int_eq(fwrite(big, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
    free(big);
    free(text);

    tf_tokenizer *tok = load(path.s), *small = load(fixture("bert_uncased").s);
    ck_assert_int_eq(tf_tokenizer_vocab_size(tok), base + (int32_t)extra);
    char last[EXTRA_TOKEN_SIZE];
    extra_token(last, extra - 1);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, last), base + (int32_t)extra - 1);
    ck_assert_str_eq(tf_tokenizer_id_to_token(tok, base), "##q0000000000000");
    expect_same_sample_ids(tok, small);
    tf_tokenizer_destroy(small);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
}
END_TEST

/* tests/data/wordpiece/vocab.txt with continuation pieces appended until
 * the file passes 100 MB. */
START_TEST(test_vocab_txt_of_100_mb)
{
    size_t len;
    const path_buf small_path = join(join(data_dir, "wordpiece").s, "vocab.txt");
    char *text = read_file(small_path.s, &len);
    int32_t base = 0;
    for (size_t i = 0; i < len; i++)
        base += text[i] == '\n';
    make_tmp_dir();
    const path_buf path = join(tmp_dir, "vocab.txt");
    FILE *f = fopen(path.s, "wb");
    ck_assert_int_eq(fwrite(text, 1, len, f), len);
    const size_t extra = (BIG_VOCAB_BYTES - len) / 17 + 1;
    for (size_t k = 0; k < extra; k++) {
        char token[EXTRA_TOKEN_SIZE];
        extra_token(token, k);
        fprintf(f, "%s\n", token);
    }
    ck_assert_int_eq(fclose(f), 0);
    free(text);

    tf_tokenizer *tok = load(path.s), *small = load(small_path.s);
    ck_assert_int_eq(tf_tokenizer_vocab_size(tok), base + (int32_t)extra);
    char last[EXTRA_TOKEN_SIZE];
    extra_token(last, extra - 1);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, last), base + (int32_t)extra - 1);
    expect_same_sample_ids(tok, small);
    tf_tokenizer_destroy(small);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
}
END_TEST

/* A folder whose tokenizer_config.json names 100,000 added tokens in
 * added_tokens_decoder and 100,000 more (and one of those again) in
 * additional_special_tokens: each added once, at the next ids, and the
 * sample as without them. (Finding each token once took a scan of the
 * others, quadratic: this took minutes before.) */
START_TEST(test_folder_of_200000_added_tokens)
{
    enum { N = 100000 };
    const path_buf small_path = join(join(data_dir, "wordpiece").s, "vocab.txt");
    size_t len;
    char *vocab = read_file(small_path.s, &len);
    make_tmp_dir();
    write_text(join(tmp_dir, "vocab.txt").s, vocab);
    free(vocab);
    FILE *f = fopen(join(tmp_dir, "tokenizer_config.json").s, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("{\"added_tokens_decoder\": {", f);
    for (int k = 0; k < N; k++) /* written in reverse: taken by id */
        fprintf(f, "%s\"%d\": {\"content\": \"<t%d>\", \"special\": true}", k ? ", " : "",
                9000000 + N - 1 - k, N - 1 - k);
    fputs("}, \"additional_special_tokens\": [", f);
    for (int k = 0; k < N; k++)
        fprintf(f, "\"<x%d>\", ", k);
    fputs("\"<t7>\"]}", f);
    ck_assert_int_eq(fclose(f), 0);

    tf_tokenizer *tok = load(tmp_dir), *small = load(small_path.s);
    const int32_t base = tf_tokenizer_vocab_size(small);
    ck_assert_int_eq(tf_tokenizer_vocab_size(tok), base + 2 * N);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "<t0>"), base);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "<t7>"), base + 7);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "<x0>"), base + N);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "<x99999>"), base + 2 * N - 1);
    expect_same_sample_ids(tok, small);
    tf_tokenizer_destroy(small);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
}
END_TEST

/* A file one byte past the limit (sparse: nothing is written) is refused
 * before it is read, naming the file and both sizes. */
START_TEST(test_file_past_the_limit)
{
    make_tmp_dir();
    static const char *const names[2] = {"tokenizer.json", "vocab.txt"};
    for (int k = 0; k < 2; k++) {
        const path_buf path = join(tmp_dir, names[k]);
        const int fd = open(path.s, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, (off_t)FILE_LIMIT_BYTES + 1), 0);
        ck_assert_int_eq(close(fd), 0);
        tf_tokenizer *tok = NULL;
        expect_failure(tf_tokenizer_load(path.s, NULL, &tok), TF_ERR_FORMAT,
                       "268435457 bytes, more than the 268435456 a file may have here");
        ck_assert_ptr_null(tok);
        ck_assert_ptr_nonnull(strstr(tf_last_error(), names[k]));
    }
    remove_tmp_dir();
}
END_TEST

/* A word of 10 MB: "the" repeated, one piece for every pre-tokenizer. */
static char *big_word(void)
{
    char *word = malloc(BIG_WORD_BYTES + 1);
    ck_assert_ptr_nonnull(word);
    for (size_t i = 0; i < BIG_WORD_BYTES; i++)
        word[i] = "the"[i % 3];
    word[BIG_WORD_BYTES] = '\0';
    return word;
}

/* The first of the n tokens (off[2 * n]: begin, end of each) that does not
 * begin where the one before ended and end past it, or n when they tile
 * [0, *end) in order; specials (0, 0) left out. (One assertion after the
 * loop: Check writes each assertion's place to a file, which for millions
 * of tokens takes half a minute.) */
static int32_t first_gap(const int64_t *off, int32_t n, int64_t *end)
{
    *end = 0;
    for (int32_t t = 0; t < n; t++) {
        if (off[2 * t] == 0 && off[2 * t + 1] == 0)
            continue; /* a special token */
        if (off[2 * t] != *end || off[2 * t + 1] <= *end)
            return t;
        *end = off[2 * t + 1];
    }
    return n;
}

/* The encoding's real tokens, specials left out, decoded: the word again;
 * their offsets tile it, in order. */
static void expect_word_back(const tf_tokenizer *tok, const tf_encoding *e, const char *word)
{
    const int32_t n = tf_encoding_lengths(e)[0];
    const int64_t *off = tf_encoding_offsets(e);
    int64_t at;
    const int32_t gap = first_gap(off, n, &at);
    ck_assert_msg(gap == n, "token %d of %d: offsets [%lld, %lld), the one before ending at %lld",
                  (int)gap, (int)n, gap < n ? (long long)off[2 * gap] : 0LL,
                  gap < n ? (long long)off[2 * gap + 1] : 0LL, (long long)at);
    ck_assert_int_eq(at, BIG_WORD_BYTES);
    size_t len = 0;
    char *text = malloc(BIG_WORD_BYTES + 64);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(
        tf_tokenizer_decode(tok, tf_encoding_ids(e), (size_t)n, 1, text, BIG_WORD_BYTES + 64, &len),
        TF_OK);
    ck_assert_uint_eq(len, BIG_WORD_BYTES);
    ck_assert(memcmp(text, word, len) == 0);
    free(text);
}

static const char *const word_files[3] = {"bert_uncased", "qwen3", "unigram"};

START_TEST(test_word_of_10_mb)
{
    char *word = big_word();
    tf_tokenizer *tok = load(fixture(word_files[_i]).s);
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode(tok, word, BIG_WORD_BYTES, NULL, 0, &e), TF_OK);
    if (_i == 0) { /* WordPiece: longer than max_input_chars_per_word, [UNK] */
        ck_assert_int_eq(tf_encoding_lengths(e)[0], 3);
        ck_assert_int_eq(tf_encoding_ids(e)[1], tf_tokenizer_token_to_id(tok, "[UNK]"));
        ck_assert_int_eq(tf_encoding_offsets(e)[2], 0);
        ck_assert_int_eq(tf_encoding_offsets(e)[3], BIG_WORD_BYTES);
    } else { /* BPE and Unigram: pieces of the word, "th" at least merged */
        ck_assert_int_lt(tf_encoding_lengths(e)[0], BIG_WORD_BYTES * 3 / 4);
        expect_word_back(tok, e, word);
    }
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
    free(word);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("tokenizer_sizes");
    TCase *tc = tcase_create("tokenizer_sizes");
    tcase_set_timeout(tc, 600); /* about a minute under ASan in a debug build */
    tcase_add_test(tc, test_vocabulary_of_100_mb_in_tokenizer_json);
    tcase_add_test(tc, test_vocab_txt_of_100_mb);
    tcase_add_test(tc, test_file_past_the_limit);
    tcase_add_test(tc, test_folder_of_200000_added_tokens);
    tcase_add_loop_test(tc, test_word_of_10_mb, 0, 3);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
