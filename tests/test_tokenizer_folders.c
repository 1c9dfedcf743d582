/* test_tokenizer_folders.c — a model folder's tokenizer_config.json and
 * special_tokens_map.json: the special and added tokens they name beyond
 * the tokenizer file's, which transformers adds (four folders of
 * tests/data/tokenizer_folders/cases.json, written by
 * tests/tokenizer_json/gen_folder_config.js: two vocab.txt, two
 * tokenizer.json; ids, type ids and code point offsets of every text and
 * pair as tokenizers gives them), model_max_length and the pad token; the
 * files' bad fields refused by name; and a tokenizer.json's
 * TemplateProcessing templates as tokenizers' builder checks them. */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

#define N_FOLDERS 4 /* cases.json's */

static const char *data_dir;

static cJSON *cases_json(void)
{
    return read_json(join(join(data_dir, "tokenizer_folders").s, "cases.json").s);
}

/* tmp_dir made into case c's folder: its base file (added_tokens dropped
 * when the case says) and its JSON files. */
static void make_folder(const cJSON *c)
{
    make_tmp_dir();
    const char *base = json_at(c, "base")->valuestring;
    const char *name = strrchr(base, '/') + 1;
    char *text = read_file(join(data_dir, base).s, NULL);
    if (cJSON_IsTrue(json_at(c, "drop_added"))) {
        cJSON *j = cJSON_Parse(text);
        cJSON_ReplaceItemInObject(j, "added_tokens", cJSON_CreateArray());
        free(text);
        text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
    }
    write_text(join(tmp_dir, name).s, text);
    free(text);
    const cJSON *file;
    cJSON_ArrayForEach(file, json_at(c, "files"))
    {
        char *body = cJSON_PrintUnformatted(file);
        write_text(join(tmp_dir, file->string).s, body);
        free(body);
    }
}

static tf_tokenizer *load(const char *path)
{
    tf_tokenizer *tok = NULL;
    ck_assert_msg(tf_tokenizer_load(path, NULL, &tok) == TF_OK, "%s: %s", path, tf_last_error());
    return tok;
}

/* Whether tok encodes e's text (and pair) to e's ids, type ids and offsets;
 * says the first difference on stderr. */
static int encoding_matches(const tf_tokenizer *tok, const cJSON *e, const char *folder)
{
    const char *text = json_at(e, "text")->valuestring;
    const cJSON *pair = json_at(e, "pair");
    tf_encoding *enc = NULL;
    const tf_status s = tf_tokenizer_encode(
        tok, text, strlen(text), cJSON_IsString(pair) ? pair->valuestring : NULL,
        cJSON_IsString(pair) ? strlen(pair->valuestring) : 0, &enc);
    ck_assert_msg(s == TF_OK, "%s: %s", text, tf_last_error());
    const cJSON *ids = json_at(e, "ids"), *types = json_at(e, "type_ids");
    const cJSON *offsets = json_at(e, "offsets");
    const int n = cJSON_GetArraySize(ids);
    int ok = tf_encoding_lengths(enc)[0] == n;
    for (int t = 0; ok && t < n; t++) {
        const cJSON *span = cJSON_GetArrayItem(offsets, t);
        ok = tf_encoding_ids(enc)[t] == cJSON_GetArrayItem(ids, t)->valueint &&
            tf_encoding_type_ids(enc)[t] == cJSON_GetArrayItem(types, t)->valueint &&
            tf_encoding_char_offsets(enc)[2 * t] == cJSON_GetArrayItem(span, 0)->valueint &&
            tf_encoding_char_offsets(enc)[2 * t + 1] == cJSON_GetArrayItem(span, 1)->valueint;
        if (!ok)
            fprintf(stderr,
                    "%s: \"%s\": token %d: id %d type %d [%lld, %lld], tokenizers %d "
                    "%d [%d, %d]\n",
                    folder, text, t, tf_encoding_ids(enc)[t], tf_encoding_type_ids(enc)[t],
                    (long long)tf_encoding_char_offsets(enc)[2 * t],
                    (long long)tf_encoding_char_offsets(enc)[2 * t + 1],
                    cJSON_GetArrayItem(ids, t)->valueint, cJSON_GetArrayItem(types, t)->valueint,
                    cJSON_GetArrayItem(span, 0)->valueint, cJSON_GetArrayItem(span, 1)->valueint);
    }
    if (tf_encoding_lengths(enc)[0] != n)
        fprintf(stderr, "%s: \"%s\": %d ids, tokenizers %d\n", folder, text,
                tf_encoding_lengths(enc)[0], n);
    tf_encoding_destroy(enc);
    return ok;
}

/* Every text and pair of folder _i as tokenizers encodes it with the
 * tokens transformers adds; each added token found by its content, as
 * special when decoding skips specials; model_max_length; padding with
 * the folder's pad token. */
START_TEST(test_folder_matches_transformers)
{
    cJSON *root = cases_json();
    const cJSON *c = cJSON_GetArrayItem(json_at(root, "cases"), _i);
    const char *name = json_at(c, "name")->valuestring;
    make_folder(c);
    tf_tokenizer *tok = load(tmp_dir);
    const cJSON *e;
    int n = 0, failures = 0;
    cJSON_ArrayForEach(e, json_at(c, "encodings"))
    {
        n++;
        failures += !encoding_matches(tok, e, name);
    }
    printf("%s: %d of %d texts and pairs match tokenizers with the folder's tokens\n", name,
           n - failures, n);
    ck_assert_int_ge(n, 10);
    ck_assert_int_eq(failures, 0);
    const cJSON *added;
    cJSON_ArrayForEach(added, json_at(c, "added"))
    {
        const int32_t id = tf_tokenizer_token_to_id(tok, added->valuestring);
        ck_assert_msg(id >= 0, "%s: %s is no token", name, added->valuestring);
        ck_assert_str_eq(tf_tokenizer_id_to_token(tok, id), added->valuestring);
    }
    ck_assert_int_eq(tf_tokenizer_model_max_length(tok), json_at(c, "model_max_length")->valueint);
    const cJSON *pad = json_at(c, "pad_token");
    if (cJSON_IsString(pad)) { /* "hi" padded to the longer text with it */
        const char *texts[2] = {"hello there world", "hi"};
        tf_encoding *enc;
        ck_assert_int_eq(tf_tokenizer_encode_batch(tok, 2, texts, NULL, NULL, NULL, &enc), TF_OK);
        const int32_t T = tf_encoding_seq_len(enc);
        ck_assert_int_gt(T, tf_encoding_lengths(enc)[1]);
        ck_assert_int_eq(tf_encoding_ids(enc)[2 * T - 1],
                         tf_tokenizer_token_to_id(tok, pad->valuestring));
        tf_encoding_destroy(enc);
    }
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
    cJSON_Delete(root);
}
END_TEST

/* The folder's new special tokens are special: decoding with
 * skip_special_tokens leaves them out, as their ids are past the file's. */
START_TEST(test_new_specials_are_special)
{
    cJSON *root = cases_json();
    make_folder(cJSON_GetArrayItem(json_at(root, "cases"), 0)); /* vocab_legacy */
    tf_tokenizer *tok = load(tmp_dir);
    const char text[] = "tag [E1]Paris[/E1] <ent> done";
    tf_encoding *enc;
    ck_assert_int_eq(tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &enc), TF_OK);
    char out[256];
    size_t len;
    ck_assert_int_eq(tf_tokenizer_decode(tok, tf_encoding_ids(enc),
                                         (size_t)tf_encoding_lengths(enc)[0], 1, out, sizeof out,
                                         &len),
                     TF_OK);
    ck_assert_str_eq(out, "tag Paris done"); /* the folder's cls_token [unused1] left out too */
    ck_assert_int_eq(tf_tokenizer_vocab_size(tok), 6841 + 3); /* [E1] [/E1] <ent> are new */
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
    cJSON_Delete(root);
}
END_TEST

/* A vocab.txt folder's tokenizer_config.json casing, and the caller's
 * options over it where they differ from the defaults. */
START_TEST(test_vocab_txt_casing_from_the_folder)
{
    make_tmp_dir();
    char *vocab = read_file(join(data_dir, "wordpiece/vocab.txt").s, NULL);
    write_text(join(tmp_dir, "vocab.txt").s, vocab);
    free(vocab);
    write_text(join(tmp_dir, "tokenizer_config.json").s, "{\"do_lower_case\": false}");
    tf_tokenizer *tok = load(tmp_dir);
    const char text[] = "Hello";
    tf_encoding *enc;
    ck_assert_int_eq(tf_tokenizer_encode(tok, text, 5, NULL, 0, &enc), TF_OK);
    ck_assert_int_ne(tf_encoding_ids(enc)[1], tf_tokenizer_token_to_id(tok, "hello"));
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    write_text(join(tmp_dir, "tokenizer_config.json").s, "{}");
    tok = load(tmp_dir); /* BertTokenizer's default: lowercase */
    ck_assert_int_eq(tf_tokenizer_encode(tok, text, 5, NULL, 0, &enc), TF_OK);
    ck_assert_int_eq(tf_encoding_ids(enc)[1], tf_tokenizer_token_to_id(tok, "hello"));
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
}
END_TEST

/* Each bad field: TF_ERR_FORMAT naming the file, the field and what it
 * holds; no handle. */
START_TEST(test_bad_fields_refused_by_name)
{
    static const struct {
        const char *file, *json, *message;
    } bad[] = {
        {"tokenizer_config.json", "[1]", "tokenizer_config.json: not a JSON object"},
        {"tokenizer_config.json", "{\"cls_token\": 5}",
         "tokenizer_config.json: cls_token: expected a non-empty string or an object with a "
         "non-empty \"content\", got 5"},
        {"tokenizer_config.json", "{\"mask_token\": {\"content\": \"\"}}", "mask_token: expected"},
        {"tokenizer_config.json", "{\"mask_token\": {\"content\": \"<m>\", \"lstrip\": 1}}",
         "tokenizer_config.json: mask_token: lstrip must be true or false, got 1"},
        {"tokenizer_config.json", "{\"do_lower_case\": \"yes\"}",
         "tokenizer_config.json: do_lower_case must be true or false, got \"yes\""},
        {"tokenizer_config.json", "{\"additional_special_tokens\": \"<a>\"}",
         "additional_special_tokens: expected an array of tokens, got \"<a>\""},
        {"tokenizer_config.json", "{\"additional_special_tokens\": [\"<a>\", null]}",
         "additional_special_tokens[1]: expected"},
        {"tokenizer_config.json", "{\"added_tokens_decoder\": []}",
         "added_tokens_decoder: expected an object of ids to tokens, got []"},
        {"tokenizer_config.json", "{\"added_tokens_decoder\": {\"x1\": {\"content\": \"a\"}}}",
         "added_tokens_decoder: key \"x1\": expected an id 0..2147483646"},
        {"tokenizer_config.json",
         "{\"added_tokens_decoder\": {\"7\": {\"content\": \"a\", \"normalized\": null, "
         "\"special\": \"no\"}}}",
         "added_tokens_decoder[\"7\"]: special must be true or false, got \"no\""},
        {"special_tokens_map.json", "{\"pad_token\": [\"<p>\"]}",
         "special_tokens_map.json: pad_token: expected"},
        {"special_tokens_map.json", "{\"pad_token\": ", "special_tokens_map.json"},
    };
    make_tmp_dir();
    char *vocab = read_file(join(data_dir, "wordpiece/vocab.txt").s, NULL);
    write_text(join(tmp_dir, "vocab.txt").s, vocab);
    free(vocab);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        remove(join(tmp_dir, "tokenizer_config.json").s);
        remove(join(tmp_dir, "special_tokens_map.json").s);
        write_text(join(tmp_dir, bad[k].file).s, bad[k].json);
        tf_tokenizer *tok = (tf_tokenizer *)&tok;
        expect_failure(tf_tokenizer_load(tmp_dir, NULL, &tok), TF_ERR_FORMAT, bad[k].message);
        ck_assert_ptr_null(tok);
    }
    remove_tmp_dir();
}
END_TEST

/* tmp_dir/tokenizer.json: a WordPiece of [UNK] [CLS] [SEP] a b with a
 * TemplateProcessing of these single and pair templates; its path. */
static path_buf write_template_tokenizer(const char *single, const char *pair)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, "
             "\"added_tokens\": [], \"normalizer\": null, \"pre_tokenizer\": "
             "{\"type\": \"WhitespaceSplit\"}, \"post_processor\": {\"type\": "
             "\"TemplateProcessing\", \"single\": %s, \"pair\": %s, \"special_tokens\": "
             "{\"[CLS]\": {\"id\": \"[CLS]\", \"ids\": [1], \"tokens\": [\"[CLS]\"]}, "
             "\"[SEP]\": {\"id\": \"[SEP]\", \"ids\": [2], \"tokens\": [\"[SEP]\"]}}}, "
             "\"decoder\": null, \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", "
             "\"continuing_subword_prefix\": \"##\", \"max_input_chars_per_word\": 100, "
             "\"vocab\": {\"[UNK]\": 0, \"[CLS]\": 1, \"[SEP]\": 2, \"a\": 3, \"b\": 4}}}",
             single, pair);
    const path_buf path = join(tmp_dir, "tokenizer.json");
    write_text(path.s, text);
    return path;
}

#define SEQ_A "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}"
#define SEQ_B "{\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}"
#define CLS "{\"SpecialToken\": {\"id\": \"[CLS]\", \"type_id\": 0}}"
#define SEP "{\"SpecialToken\": {\"id\": \"[SEP]\", \"type_id\": 0}}"

/* TemplateProcessing's pair must use both $A and $B (tokenizers' builder
 * refuses one that does not; its deserializer skips the check, and encodes
 * an empty pair template to nothing), and single only $A (tokenizers panics
 * on a $B there, as a single text has no second sequence): refused by
 * field and value. BERT's templates encode as tokenizers does. */
START_TEST(test_template_processing_checked)
{
    static const struct {
        const char *single, *pair, *message;
    } bad[] = {
        {"[" CLS ", " SEQ_A ", " SEP "]", "[]",
         "post_processor.pair: a pair template must use both $A and $B, got []"},
        {"[" CLS ", " SEQ_A ", " SEP "]", "[" SEQ_A ", " SEP "]",
         "post_processor.pair: a pair template must use both $A and $B, got "},
        {"[" CLS ", " SEQ_A ", " SEP "]", "[" SEQ_B ", " SEQ_B "]",
         "post_processor.pair: a pair template must use both $A and $B"},
        {"[" SEQ_B "]", "[" SEQ_A ", " SEQ_B "]",
         "post_processor.single: a single template must use $A and not $B, got "
         "[{\"Sequence\":{\"id\":\"B\",\"type_id\":1}}]"},
        {"[" SEQ_A ", " SEQ_B "]", "[" SEQ_A ", " SEQ_B "]",
         "post_processor.single: a single template must use $A and not $B"},
        {"[" CLS ", " SEP "]", "[" SEQ_A ", " SEQ_B "]",
         "post_processor.single: a single template must use $A and not $B"},
        {"[]", "[" SEQ_A ", " SEQ_B "]",
         "post_processor.single: a single template must use $A and not $B, got []"},
    };
    make_tmp_dir();
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const path_buf path = write_template_tokenizer(bad[k].single, bad[k].pair);
        tf_tokenizer *tok = (tf_tokenizer *)&tok;
        expect_failure(tf_tokenizer_load(path.s, NULL, &tok), TF_ERR_FORMAT, bad[k].message);
        ck_assert_ptr_null(tok);
    }
    const path_buf path = write_template_tokenizer("[" CLS ", " SEQ_A ", " SEP "]",
                                                   "[" CLS ", " SEQ_A ", " SEP ", " SEQ_B
                                                   ", {\"SpecialToken\": {\"id\": \"[SEP]\", "
                                                   "\"type_id\": 1}}]");
    tf_tokenizer *tok = load(path.s);
    tf_encoding *enc;
    ck_assert_int_eq(tf_tokenizer_encode(tok, "a", 1, "b a", 3, &enc), TF_OK);
    const int32_t ids[] = {1, 3, 2, 4, 3, 2}, types[] = {0, 0, 0, 1, 1, 1};
    ck_assert_int_eq(tf_encoding_lengths(enc)[0], 6);
    for (int t = 0; t < 6; t++) {
        ck_assert_int_eq(tf_encoding_ids(enc)[t], ids[t]);
        ck_assert_int_eq(tf_encoding_type_ids(enc)[t], types[t]);
    }
    tf_encoding_destroy(enc);
    ck_assert_int_eq(tf_tokenizer_encode(tok, "b", 1, NULL, 0, &enc), TF_OK);
    ck_assert_int_eq(tf_encoding_lengths(enc)[0], 3);
    ck_assert_int_eq(tf_encoding_ids(enc)[1], 4);
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("tokenizer_folders");
    TCase *tc = tcase_create("tokenizer_folders");
    tcase_add_loop_test(tc, test_folder_matches_transformers, 0, N_FOLDERS);
    tcase_add_test(tc, test_new_specials_are_special);
    tcase_add_test(tc, test_vocab_txt_casing_from_the_folder);
    tcase_add_test(tc, test_bad_fields_refused_by_name);
    tcase_add_test(tc, test_template_processing_checked);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
