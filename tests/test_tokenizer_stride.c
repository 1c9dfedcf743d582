/* test_tokenizer_stride.c — truncation with a stride and the overflowing
 * windows (tf_encode_options' stride and return_overflowing) against
 * Hugging Face's tokenizers: the stride.json of five tokenizer.json files
 * (tests/tokenizer_json/gen_stride.js: every strategy, Left and Right,
 * four (max_length, stride), singles and pairs), row for row: ids, type
 * ids, code point offsets, each row's input; the settings tokenizers
 * refuses or asserts on refused here; the options' bad values. */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;
static const char *const files[] = {"bert_uncased", "bert_cased", "qwen3", "roberta", "unigram"};
static const char *const strategies[] = {"LongestFirst", "OnlyFirst", "OnlySecond"};

static path_buf fixture(const char *name, const char *file)
{
    return join(join(join(data_dir, "tokenizer_json").s, name).s, file);
}

static int num(const cJSON *c, const char *key)
{
    return json_at(c, key)->valueint;
}
static const char *str(const cJSON *c, const char *key)
{
    return json_at(c, key)->valuestring;
}

/* File `name` with its truncation set to case c's {max_length, strategy,
 * direction, stride}. */
static tf_tokenizer *load_setting(const char *name, const cJSON *c)
{
    cJSON *j = read_json(fixture(name, "tokenizer.json").s);
    cJSON *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(t, "max_length", num(c, "max_length"));
    cJSON_AddStringToObject(t, "strategy", str(c, "strategy"));
    cJSON_AddNumberToObject(t, "stride", num(c, "stride"));
    cJSON_AddStringToObject(t, "direction", str(c, "direction"));
    cJSON_ReplaceItemInObject(j, "truncation", t);
    char *text = cJSON_PrintUnformatted(j);
    make_tmp_dir();
    const path_buf p = join(tmp_dir, "tokenizer.json");
    write_text(p.s, text);
    tf_tokenizer *tok;
    ck_assert_msg(tf_tokenizer_load(p.s, NULL, &tok) == TF_OK, "%s", tf_last_error());
    remove_tmp_dir();
    free(text);
    cJSON_Delete(j);
    return tok;
}

static int same_setting(const cJSON *a, const cJSON *b)
{
    return a && num(a, "max_length") == num(b, "max_length") &&
        num(a, "stride") == num(b, "stride") && !strcmp(str(a, "strategy"), str(b, "strategy")) &&
        !strcmp(str(a, "direction"), str(b, "direction"));
}

/* The options of case c: the file's own truncation (explicit 0), or the
 * strategy, max_length and stride given as options. */
static tf_encode_options options_of(const cJSON *c, int explicit)
{
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.return_overflowing = 1;
    if (explicit) {
        for (int k = 0; k < 3; k++)
            if (!strcmp(str(c, "strategy"), strategies[k]))
                o.truncation = TF_TRUNCATION_LONGEST_FIRST + k;
        o.max_length = num(c, "max_length");
        o.stride = num(c, "stride");
    }
    return o;
}

/* Whether rows first.. of e are case c's reference rows, from input `input`. */
static int rows_match(const tf_encoding *e, int32_t first, const cJSON *c, int32_t input)
{
    const int32_t T = tf_encoding_seq_len(e);
    int32_t r = first;
    const cJSON *row;
    cJSON_ArrayForEach(row, json_at(c, "rows"))
    {
        const int32_t n = cJSON_GetArraySize(json_at(row, "ids"));
        if (r >= tf_encoding_batch(e) || tf_encoding_lengths(e)[r] != n ||
            tf_encoding_overflow_to_sample(e)[r] != input)
            return 0;
        for (int32_t t = 0; t < n; t++) {
            const cJSON *off = cJSON_GetArrayItem(json_at(row, "offsets"), t);
            const int64_t *chars = tf_encoding_char_offsets(e) + 2 * ((size_t)r * T + t);
            if (tf_encoding_ids(e)[(size_t)r * T + t] !=
                    cJSON_GetArrayItem(json_at(row, "ids"), t)->valueint ||
                tf_encoding_type_ids(e)[(size_t)r * T + t] !=
                    cJSON_GetArrayItem(json_at(row, "type_ids"), t)->valueint ||
                chars[0] != cJSON_GetArrayItem(off, 0)->valueint ||
                chars[1] != cJSON_GetArrayItem(off, 1)->valueint)
                return 0;
        }
        r++;
    }
    return 1;
}

/* Case c alone, through the options o: its rows, or its refusal. */
static int case_matches(const tf_tokenizer *tok, const char *name, const cJSON *c,
                        const tf_encode_options *o)
{
    const char *text = str(c, "text");
    const cJSON *pair = cJSON_GetObjectItem(c, "pair");
    const char *p = pair ? pair->valuestring : NULL;
    tf_encoding *e;
    const tf_status s = tf_tokenizer_encode_batch_with(tok, 1, &text, NULL, pair ? &p : NULL, NULL,
                                                       o, &e);
    const cJSON *error = cJSON_GetObjectItem(c, "error");
    int same;
    if (error)
        same = s == TF_ERR_INVALID_ARGUMENT &&
            (strcmp(error->valuestring, "panic") != 0 || strstr(tf_last_error(), "stride"));
    else
        same = s == TF_OK && tf_encoding_batch(e) == cJSON_GetArraySize(json_at(c, "rows")) &&
            rows_match(e, 0, c, 0);
    if (!same)
        fprintf(stderr, "%s: %s %s max_length %d stride %d: \"%s\"%s%s%s: %s\n", name,
                str(c, "strategy"), str(c, "direction"), num(c, "max_length"), num(c, "stride"),
                text, p ? " + \"" : "", p ? p : "", p ? "\"" : "",
                s ? tf_last_error() : "rows differ");
    if (s == TF_OK)
        tf_encoding_destroy(e);
    return same;
}

/* Every case of each file, alone, through the file's truncation and
 * through the options. */
START_TEST(test_windows_match_hugging_face)
{
    const char *name = files[_i];
    cJSON *j = read_json(fixture(name, "stride.json").s);
    tf_tokenizer *tok = NULL;
    const cJSON *c, *last = NULL;
    int n = 0, rows = 0, refused = 0, failures = 0;
    cJSON_ArrayForEach(c, json_at(j, "cases"))
    {
        if (!same_setting(last, c)) {
            tf_tokenizer_destroy(tok);
            tok = load_setting(name, c);
            last = c;
        }
        for (int explicit = 0; explicit < 2; explicit ++) {
            const tf_encode_options o = options_of(c, explicit);
            failures += !case_matches(tok, name, c, &o);
        }
        n++;
        refused += cJSON_GetObjectItem(c, "error") != NULL;
        rows += cJSON_GetObjectItem(c, "rows") ? cJSON_GetArraySize(json_at(c, "rows")) : 0;
    }
    printf("%s: %d cases (%d rows, %d refused), %d differ from Hugging Face\n", name, n, rows,
           refused, failures);
    ck_assert_int_ge(n, 200);
    ck_assert_int_ge(rows, 400);
    ck_assert_int_ge(refused, 20);
    ck_assert_int_eq(failures, 0);
    tf_tokenizer_destroy(tok);
    cJSON_Delete(j);
}
END_TEST

/* The accepted single texts of each setting as one batch, and its pairs
 * as another: the rows of each input in turn, mapped to it. */
START_TEST(test_batches_map_rows_to_inputs)
{
    const char *name = files[_i];
    cJSON *j = read_json(fixture(name, "stride.json").s);
    const cJSON *c, *first = NULL;
    int batches = 0;
    cJSON_ArrayForEach(c, json_at(j, "cases"))
    {
        if (same_setting(first, c))
            continue;
        first = c;
        tf_tokenizer *tok = load_setting(name, c);
        for (int pairs = 0; pairs < 2; pairs++) {
            const cJSON *members[64], *d;
            const char *texts[64], *seconds[64];
            int32_t n = 0, want_rows = 0;
            for (d = c; d && same_setting(c, d) && n < 64; d = d->next)
                if (!cJSON_GetObjectItem(d, "error") &&
                    (cJSON_GetObjectItem(d, "pair") != NULL) == pairs) {
                    members[n] = d;
                    texts[n] = str(d, "text");
                    seconds[n] = pairs ? str(d, "pair") : NULL;
                    want_rows += cJSON_GetArraySize(json_at(d, "rows"));
                    n++;
                }
            if (n < 2)
                continue;
            const tf_encode_options o = options_of(c, 0);
            tf_encoding *e;
            ck_assert_msg(tf_tokenizer_encode_batch_with(tok, (size_t)n, texts, NULL,
                                                         pairs ? seconds : NULL, NULL, &o,
                                                         &e) == TF_OK,
                          "%s", tf_last_error());
            ck_assert_int_eq(tf_encoding_batch(e), want_rows);
            for (int32_t i = 0, r = 0; i < n; i++) {
                ck_assert_msg(rows_match(e, r, members[i], i), "%s: input %d of a batch", name, i);
                r += cJSON_GetArraySize(json_at(members[i], "rows"));
            }
            tf_encoding_destroy(e);
            batches++;
        }
        tf_tokenizer_destroy(tok);
    }
    ck_assert_int_ge(batches, 24);
    cJSON_Delete(j);
}
END_TEST

static void expect_refused(const tf_tokenizer *tok, const char *text, const char *pair,
                           const tf_encode_options *o, const char *message)
{
    tf_encoding *e = (tf_encoding *)&e;
    ck_assert_int_eq(
        tf_tokenizer_encode_batch_with(tok, 1, &text, NULL, pair ? &pair : NULL, NULL, o, &e),
        TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(e);
    ck_assert_msg(strstr(tf_last_error(), message), "\"%s\" lacks \"%s\"", tf_last_error(),
                  message);
}

/* The options' values out of range, named with both values; without
 * return_overflowing one row per input, mapped to itself. */
START_TEST(test_options_refused_by_name)
{
    tf_tokenizer *tok;
    ck_assert_int_eq(tf_tokenizer_load(fixture("bert_uncased", "tokenizer.json").s, NULL, &tok),
                     TF_OK);
    const char *long_text = "the quick brown fox jumps over the lazy dog and runs away";
    tf_encode_options o;
    tf_encode_options_init(&o);
    ck_assert_int_eq(o.stride, 0);
    ck_assert_int_eq(o.return_overflowing, 0);
    o.truncation = TF_TRUNCATION_LONGEST_FIRST, o.max_length = 8;
    o.stride = -1;
    expect_refused(tok, long_text, NULL, &o, "options.stride: expected >= 0, got -1");
    o.stride = 0, o.return_overflowing = 2;
    expect_refused(tok, long_text, NULL, &o, "options.return_overflowing: expected 0 or 1, got 2");
    o.return_overflowing = 1, o.stride = 6; /* 8 - [CLS] [SEP] leaves 6 */
    expect_refused(tok, "short", NULL, &o,
                   "options.stride: expected below 6 (max_length 8 less the 2 special tokens "
                   "of a text), got 6");
    o.stride = 3; /* a pair of 8 keeps 2 + 3 of each: a window of 2 <= 3 */
    expect_refused(tok, long_text, long_text, &o,
                   "text 0: stride 3 must be below the 2 tokens truncation keeps of the text's 38");
    o.return_overflowing = 0, o.stride = 1;
    const char *texts[2] = {long_text, "short"};
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode_batch_with(tok, 2, texts, NULL, NULL, NULL, &o, &e),
                     TF_OK);
    ck_assert_int_eq(tf_encoding_batch(e), 2);
    ck_assert_int_eq(tf_encoding_overflow_to_sample(e)[0], 0);
    ck_assert_int_eq(tf_encoding_overflow_to_sample(e)[1], 1);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 8);
    tf_encoding_destroy(e);
    ck_assert_ptr_null(tf_encoding_overflow_to_sample(NULL));
    tf_tokenizer_destroy(tok);
}
END_TEST

/* A file's truncation.stride must be a count. */
START_TEST(test_file_stride_is_checked)
{
    cJSON *j = read_json(fixture("bert_uncased", "tokenizer.json").s);
    cJSON *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(t, "max_length", 8);
    cJSON_AddStringToObject(t, "strategy", "LongestFirst");
    cJSON_AddNumberToObject(t, "stride", -2);
    cJSON_AddStringToObject(t, "direction", "Right");
    cJSON_ReplaceItemInObject(j, "truncation", t);
    char *text = cJSON_PrintUnformatted(j);
    make_tmp_dir();
    const path_buf p = join(tmp_dir, "tokenizer.json");
    write_text(p.s, text);
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    ck_assert_int_eq(tf_tokenizer_load(p.s, NULL, &tok), TF_ERR_FORMAT);
    ck_assert_ptr_null(tok);
    ck_assert_msg(strstr(tf_last_error(), "truncation.stride"), "%s", tf_last_error());
    remove_tmp_dir();
    free(text);
    cJSON_Delete(j);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("tokenizer_stride");
    TCase *tc = tcase_create("tokenizer_stride");
    const int n = (int)(sizeof files / sizeof files[0]);
    tcase_add_loop_test(tc, test_windows_match_hugging_face, 0, n);
    tcase_add_loop_test(tc, test_batches_map_rows_to_inputs, 0, n);
    tcase_add_test(tc, test_options_refused_by_name);
    tcase_add_test(tc, test_file_stride_is_checked);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
