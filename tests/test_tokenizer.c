/* test_tokenizer.c — the WordPiece tokenizer against Hugging Face's
 * BertTokenizerFast (tests/data/wordpiece/cases.json, made upstream): every
 * text, cased and uncased, gives exactly its ids; plus byte offsets,
 * special tokens written in the text, pairs, padding, truncation, errors. */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/suite.h"
#include "tfenc.h"

static char vocab_path[1024];
static cJSON *cases;            /* wordpiece/cases.json */
static cJSON *normaliser_cases; /* wordpiece/normaliser_cases.json */

static tf_tokenizer *load_stripping(int lowercase, int strip_accents, int max_length)
{
    tf_tokenizer_options o;
    tf_tokenizer_options_init(&o);
    o.lowercase = lowercase;
    o.strip_accents = strip_accents;
    o.max_length = max_length;
    tf_tokenizer *tok;
    ck_assert_msg(tf_tokenizer_load(vocab_path, &o, &tok) == TF_OK, "%s", tf_last_error());
    return tok;
}

static tf_tokenizer *load(int lowercase, int max_length)
{
    return load_stripping(lowercase, -1, max_length);
}

static tf_encoding *encode(const tf_tokenizer *tok, const char *text, const char *pair)
{
    tf_encoding *e;
    ck_assert_msg(tf_tokenizer_encode(tok, text, strlen(text), pair, pair ? strlen(pair) : 0, &e) ==
                      TF_OK,
                  "%s", tf_last_error());
    return e;
}

/* Whether tok gives case c ({"text", "ids", "tokens"}) exactly its ids;
 * reports a mismatch with both token lists. */
static int matches_case(const tf_tokenizer *tok, const cJSON *c, const char *mode, int n)
{
    const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
    const cJSON *ids = cJSON_GetObjectItem(c, "ids");
    tf_encoding *e = encode(tok, text, NULL);
    const int32_t len = tf_encoding_lengths(e)[0];
    int same = len == cJSON_GetArraySize(ids) && tf_encoding_seq_len(e) == len;
    for (int i = 0; same && i < len; i++)
        same = tf_encoding_ids(e)[i] == cJSON_GetArrayItem(ids, i)->valueint;
    if (!same) {
        fprintf(stderr, "%s case %d \"%s\":\n  got ", mode, n, text);
        for (int i = 0; i < len; i++)
            fprintf(stderr, "%s ", tf_tokenizer_id_to_token(tok, tf_encoding_ids(e)[i]));
        fprintf(stderr, "\n  want ");
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(c, "tokens"))
            fprintf(stderr, "%s ", t->valuestring);
        fprintf(stderr, "\n");
    }
    tf_encoding_destroy(e);
    return same;
}

/* Every case of one mode. */
static void check_mode(const char *mode, int lowercase)
{
    tf_tokenizer *tok = load(lowercase, 0);
    const cJSON *c;
    int n = 0, failures = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, mode))
        failures += !matches_case(tok, c, mode, n++);
    printf("%s: %d of %d cases match Hugging Face exactly\n", mode, n - failures, n);
    ck_assert_int_gt(n, 70);
    ck_assert_int_eq(failures, 0);
    tf_tokenizer_destroy(tok);
}

START_TEST(test_uncased_cases_match_hugging_face)
{
    check_mode("uncased", 1);
}
END_TEST

START_TEST(test_cased_cases_match_hugging_face)
{
    check_mode("cased", 0);
}
END_TEST

/* Normaliser corner cases (compatibility ideographs, Turkish İ, final sigma,
 * combining marks, full-width forms, ß, ligatures, Unicode whitespace, the
 * CJK ranges' edges) under every lowercase / strip_accents combination, as
 * the tokenizers library behind BertTokenizerFast gives them
 * (wordpiece/gen_normaliser_cases.js). */
START_TEST(test_normaliser_cases_match_hugging_face)
{
    const cJSON *c;
    int n = 0, failures = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(normaliser_cases, "cases"))
    {
        const int lowercase = cJSON_GetObjectItem(c, "lowercase")->valueint;
        const int strip_accents = cJSON_GetObjectItem(c, "strip_accents")->valueint;
        char mode[64];
        snprintf(mode, sizeof mode, "lowercase %d strip_accents %d", lowercase, strip_accents);
        tf_tokenizer *tok = load_stripping(lowercase, strip_accents, 0);
        failures += !matches_case(tok, c, mode, n++);
        tf_tokenizer_destroy(tok);
    }
    printf("normaliser: %d of %d cases match Hugging Face exactly\n", n - failures, n);
    ck_assert_int_gt(n, 80);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* Offsets are in range and ordered; for cased ASCII text each token's bytes
 * are the token itself (without "##"). */
START_TEST(test_offsets)
{
    tf_tokenizer *cased = load(0, 0);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, "cased"))
    {
        const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
        const int64_t n = (int64_t)strlen(text);
        int ascii = 1;
        for (const char *p = text; *p; p++)
            ascii &= (unsigned char)*p < 0x80;
        tf_encoding *e = encode(cased, text, NULL);
        const int64_t *off = tf_encoding_offsets(e);
        int64_t last = 0;
        for (int32_t t = 1; t + 1 < tf_encoding_lengths(e)[0]; t++) {
            const int64_t b = off[2 * t], end = off[2 * t + 1];
            ck_assert_msg(b >= last && b < end && end <= n, "\"%s\" token %d: [%lld, %lld)", text,
                          t, (long long)b, (long long)end);
            last = b;
            const char *tok = tf_tokenizer_id_to_token(cased, tf_encoding_ids(e)[t]);
            if (ascii && strcmp(tok, "[UNK]") != 0) {
                const char *bare = strncmp(tok, "##", 2) == 0 ? tok + 2 : tok;
                ck_assert_msg((int64_t)strlen(bare) == end - b &&
                                  memcmp(text + b, bare, (size_t)(end - b)) == 0,
                              "\"%s\": token %s at [%lld, %lld)", text, tok, (long long)b,
                              (long long)end);
            }
        }
        ck_assert_int_eq(off[0], 0); /* [CLS] */
        tf_encoding_destroy(e);
    }
    tf_tokenizer_destroy(cased);

    /* Uncased: a token made from an accented character spans its bytes. */
    tf_tokenizer *uncased = load(1, 0);
    const char *text = "Crème brûlée"; /* è, û and é are 2 bytes each */
    tf_encoding *e = encode(uncased, text, NULL);
    const int64_t *off = tf_encoding_offsets(e);
    const int32_t n = tf_encoding_lengths(e)[0];
    ck_assert_int_eq(off[2 * 1], 0); /* first piece of "creme" starts at C */
    ck_assert_int_eq(off[2 * (n - 2) + 1], (int64_t)strlen(text)); /* last piece ends at é's end */
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(uncased);
}
END_TEST

/* The same ids for two texts. */
static void same_ids(const tf_tokenizer *tok, const char *a, const char *b)
{
    tf_encoding *x = encode(tok, a, NULL), *y = encode(tok, b, NULL);
    const int32_t n = tf_encoding_lengths(x)[0];
    ck_assert_msg(n == tf_encoding_lengths(y)[0] &&
                      memcmp(tf_encoding_ids(x), tf_encoding_ids(y), n * sizeof(int32_t)) == 0,
                  "\"%s\" and \"%s\" tokenise differently", a, b);
    tf_encoding_destroy(x), tf_encoding_destroy(y);
}

/* BERT's rules the upstream cases do not reach, as equivalences. */
START_TEST(test_bert_rules_beyond_the_fixture)
{
    tf_tokenizer *tok = load(1, 0);
    same_ids(tok, "a$b+c=d^e`f",
             "a $ b + c = d ^ e ` f"); /* ASCII symbols split like punctuation */
    same_ids(tok,
             "a\x01"
             "b\x7f",
             "ab"); /* control characters vanish */
    same_ids(tok,
             "a\xe2\x80\x8b"
             "b\xc2\xad",
             "ab"); /* so do format ones (ZWSP, soft hyphen) */
    same_ids(tok,
             "a\xef\xbf\xbd"
             "b",
             "ab"); /* and U+FFFD */
    same_ids(tok,
             "a\rb\nc\td\xe3\x80\x80"
             "e",
             "a b c d e");           /* whitespace, incl. U+3000 */
    same_ids(tok, "A\xcc\x81", "a"); /* a combining accent is stripped */
    char word[102];
    memset(word, 'x', 101), word[101] = '\0';
    tf_encoding *e = encode(tok, word, NULL); /* 101 characters: [UNK] */
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 3);
    ck_assert_int_eq(tf_encoding_ids(e)[1], tf_tokenizer_token_to_id(tok, "[UNK]"));
    tf_encoding_destroy(e);
    word[100] = '\0';
    e = encode(tok, word, NULL); /* 100 characters: still split into pieces */
    ck_assert_int_gt(tf_encoding_lengths(e)[0], 3);
    ck_assert_int_ne(tf_encoding_ids(e)[1], tf_tokenizer_token_to_id(tok, "[UNK]"));
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
    tok = load(0, 0); /* cased keeps case and accents */
    tf_encoding *a = encode(tok, "\xc3\xa9", NULL), *b = encode(tok, "e", NULL);
    ck_assert_int_ne(tf_encoding_ids(a)[1], tf_encoding_ids(b)[1]);
    tf_encoding_destroy(a), tf_encoding_destroy(b);
    tf_tokenizer_destroy(tok);
}
END_TEST

START_TEST(test_special_tokens_in_text_stay_whole)
{
    tf_tokenizer *tok = load(1, 0);
    tf_encoding *e = encode(tok, "[CLS] I love NLP [SEP]", NULL);
    const int32_t cls = tf_tokenizer_token_to_id(tok, "[CLS]");
    const int32_t sep = tf_tokenizer_token_to_id(tok, "[SEP]");
    const int32_t *ids = tf_encoding_ids(e);
    const int32_t n = tf_encoding_lengths(e)[0];
    ck_assert_int_eq(ids[0], cls); /* added */
    ck_assert_int_eq(ids[1], cls); /* written */
    ck_assert_int_eq(ids[n - 2], sep);
    ck_assert_int_eq(ids[n - 1], sep);
    ck_assert_int_eq(tf_encoding_offsets(e)[2], 0);
    ck_assert_int_eq(tf_encoding_offsets(e)[3], 5);
    tf_encoding_destroy(e);
    e = encode(tok, "a[MASK]b", NULL);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 5);
    ck_assert_str_eq(tf_tokenizer_id_to_token(tok, tf_encoding_ids(e)[2]), "[MASK]");
    tf_encoding_destroy(e);
    e = encode(tok, "[mask] [CLS", NULL); /* neither is a special token */
    ck_assert_int_ne(tf_encoding_ids(e)[2], tf_tokenizer_token_to_id(tok, "[MASK]"));
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
}
END_TEST

START_TEST(test_batch_pairs_padding)
{
    tf_tokenizer *tok = load(1, 0);
    const char *texts[3] = {"hello world", "a", "the quick brown fox"};
    const char *pairs[3] = {"yes", "no no no", "ok"};
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode_batch(tok, 3, texts, NULL, pairs, NULL, &e), TF_OK);
    const int32_t B = tf_encoding_batch(e), T = tf_encoding_seq_len(e);
    ck_assert_int_eq(B, 3);
    int32_t longest = 0;
    for (int b = 0; b < B; b++) {
        tf_encoding *one = encode(tok, texts[b], pairs[b]); /* the same row, unpadded */
        const int32_t len = tf_encoding_lengths(e)[b];
        ck_assert_int_eq(len, tf_encoding_lengths(one)[0]);
        ck_assert_mem_eq(tf_encoding_ids(e) + b * T, tf_encoding_ids(one), len * sizeof(int32_t));
        ck_assert_mem_eq(tf_encoding_type_ids(e) + b * T, tf_encoding_type_ids(one),
                         len * sizeof(int32_t));
        int seps = 0;
        for (int t = 0; t < T; t++) {
            const int32_t id = tf_encoding_ids(e)[b * T + t];
            ck_assert_int_eq(tf_encoding_attention_mask(e)[b * T + t], t < len);
            if (t >= len)
                ck_assert_int_eq(id, tf_tokenizer_token_to_id(tok, "[PAD]"));
            /* type 0 through the first [SEP], 1 after it, 0 in padding */
            ck_assert_int_eq(tf_encoding_type_ids(e)[b * T + t], t < len && seps == 1);
            seps += id == tf_tokenizer_token_to_id(tok, "[SEP]");
        }
        longest = len > longest ? len : longest;
        tf_encoding_destroy(one);
    }
    ck_assert_int_eq(T, longest);
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* max_length keeps [CLS]/[SEP] and drops tokens from the longer part. */
START_TEST(test_truncation)
{
    tf_tokenizer *tok = load(1, 6), *full = load(1, 0);
    tf_encoding *e = encode(tok, "one two three four five six seven", NULL);
    tf_encoding *f = encode(full, "one two three four five six seven", NULL);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 6);
    ck_assert_mem_eq(tf_encoding_ids(e), tf_encoding_ids(f), 5 * sizeof(int32_t));
    ck_assert_int_eq(tf_encoding_ids(e)[5], tf_tokenizer_token_to_id(tok, "[SEP]"));
    tf_encoding_destroy(e), tf_encoding_destroy(f);
    e = encode(tok, "one two three four", "five"); /* 4 + 1 -> 2 + 1 */
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 6);
    ck_assert_int_eq(tf_encoding_type_ids(e)[4], 1);
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok), tf_tokenizer_destroy(full);
}
END_TEST

START_TEST(test_vocabulary_lookups)
{
    tf_tokenizer *tok = load(1, 0);
    ck_assert_int_eq(tf_tokenizer_vocab_size(tok), 6841);
    ck_assert_str_eq(tf_tokenizer_id_to_token(tok, 0), "[PAD]");
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "[CLS]"), 12);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "no such token"), -1);
    ck_assert_ptr_null(tf_tokenizer_id_to_token(tok, 6841));
    ck_assert_ptr_null(tf_tokenizer_id_to_token(tok, -1));
    tf_tokenizer_destroy(tok);
    tf_tokenizer_destroy(NULL);
}
END_TEST

START_TEST(test_errors)
{
    tf_tokenizer *tok = load(1, 0), *none = (tf_tokenizer *)&none;
    tf_encoding *e = (tf_encoding *)&e;
    expect_failure(tf_tokenizer_encode(tok, "ok \xff no", 7, NULL, 0, &e), TF_ERR_INVALID_ARGUMENT,
                   "text 0: invalid UTF-8 at byte 3 (0xff)");
    ck_assert_ptr_null(e);
    expect_failure(tf_tokenizer_encode(tok, "fine", 4, "bad \xc0\xaf", 6, &e),
                   TF_ERR_INVALID_ARGUMENT, "pair 0: invalid UTF-8 at byte 4 (0xc0)");
    const char *texts[2] = {"ok", "\xed\xa0\x80"}; /* a UTF-16 surrogate */
    expect_failure(tf_tokenizer_encode_batch(tok, 2, texts, NULL, NULL, NULL, &e),
                   TF_ERR_INVALID_ARGUMENT, "text 1: invalid UTF-8 at byte 0");
    expect_failure(tf_tokenizer_encode_batch(tok, 0, texts, NULL, NULL, NULL, &e),
                   TF_ERR_INVALID_ARGUMENT, "n: expected");
    expect_failure(tf_tokenizer_encode(NULL, "x", 1, NULL, 0, &e), TF_ERR_INVALID_ARGUMENT,
                   "tokenizer is NULL");
    /* Past 4 GiB - 1 bytes (32-bit source offsets): refused before a byte is read. */
    const size_t too_long = (size_t)UINT32_MAX + 1;
    expect_failure(tf_tokenizer_encode(tok, "x", too_long, NULL, 0, &e), TF_ERR_INVALID_ARGUMENT,
                   "text 0: expected at most 4294967295 bytes, got 4294967296");
    expect_failure(tf_tokenizer_encode(tok, "x", 1, "y", too_long, &e), TF_ERR_INVALID_ARGUMENT,
                   "pair 0: expected at most 4294967295 bytes, got 4294967296");
    ck_assert_ptr_null(e);
    expect_failure(tf_tokenizer_load("/nonexistent/vocab.txt", NULL, &none), TF_ERR_IO,
                   "/nonexistent/vocab.txt: cannot open: No such file or directory");
    ck_assert_ptr_null(none);
    tf_tokenizer_options o;
    tf_tokenizer_options_init(&o);
    o.unk_token = "<unk>";
    expect_failure(tf_tokenizer_load(vocab_path, &o, &none), TF_ERR_FORMAT,
                   "the vocabulary has no <unk> token");
    tf_tokenizer_options_init(&o);
    o.max_length = 2;
    expect_failure(tf_tokenizer_load(vocab_path, &o, &none), TF_ERR_INVALID_ARGUMENT,
                   "options.max_length: expected 0 (no limit) or >= 3, got 2");
    o.struct_size = 1;
    expect_failure(tf_tokenizer_load(vocab_path, &o, &none), TF_ERR_INVALID_ARGUMENT,
                   "options.struct_size");
    tf_tokenizer_destroy(tok);
}
END_TEST

/* The parsed JSON file dir/wordpiece/name, or NULL (said on stderr). */
static cJSON *read_json(const char *dir, const char *name)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/wordpiece/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: missing\n", path);
        return NULL;
    }
    static char json[1 << 20];
    const size_t n = fread(json, 1, sizeof json - 1, f);
    fclose(f);
    cJSON *parsed = cJSON_ParseWithLength(json, n);
    if (!parsed)
        fprintf(stderr, "%s: not JSON\n", path);
    return parsed;
}

int main(void)
{
    const char *dir = getenv("TFENC_DATA_DIR");
    if (!dir)
        return 77;
    snprintf(vocab_path, sizeof vocab_path, "%s/wordpiece/vocab.txt", dir);
    cases = read_json(dir, "cases.json");
    normaliser_cases = read_json(dir, "normaliser_cases.json");
    if (!cases || !normaliser_cases)
        return EXIT_FAILURE;

    Suite *s = suite_create("tokenizer");
    TCase *tc = tcase_create("wordpiece");
    tcase_add_test(tc, test_uncased_cases_match_hugging_face);
    tcase_add_test(tc, test_cased_cases_match_hugging_face);
    tcase_add_test(tc, test_normaliser_cases_match_hugging_face);
    tcase_add_test(tc, test_offsets);
    tcase_add_test(tc, test_bert_rules_beyond_the_fixture);
    tcase_add_test(tc, test_special_tokens_in_text_stay_whole);
    tcase_add_test(tc, test_batch_pairs_padding);
    tcase_add_test(tc, test_truncation);
    tcase_add_test(tc, test_vocabulary_lookups);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    const int rc = run_suite(s);
    cJSON_Delete(cases);
    cJSON_Delete(normaliser_cases);
    return rc;
}
