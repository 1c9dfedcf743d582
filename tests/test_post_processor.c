/* test_post_processor.c — a tokenizer.json's post_processor read as
 * tokenizers reads it (tokenizers/src/processors/: template.rs, bert.rs,
 * roberta.rs, sequence.rs; ByteLevel's in pre_tokenizers/byte_level.rs):
 * each field's type and range, or TF_ERR_FORMAT naming the file, the field
 * and the value as written. The files are tests/data/tokenizer_json's, one
 * field changed; the ids they encode to are tokenizers' (the files'
 * cases.json, and BERT's template by hand: [CLS] = 12, [SEP] = 13, a = 79,
 * b = 80). */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

/* One change to a file of tests/data/tokenizer_json: the value at path
 * ("post_processor/single/0/SpecialToken/type_id": keys, or indexes of
 * arrays) becomes the JSON `value`, or is removed when value is NULL. */
typedef struct change {
    const char *base, *path, *value;
} change;

/* The item of root at path's components before the last, and that last one
 * into last[64]. */
static cJSON *parent_of(cJSON *root, const char *path, char last[64])
{
    cJSON *node = root;
    for (const char *p = path;;) {
        const char *slash = strchr(p, '/');
        const size_t n = slash ? (size_t)(slash - p) : strlen(p);
        ck_assert_uint_lt(n, 64);
        memcpy(last, p, n);
        last[n] = '\0';
        if (!slash)
            return node;
        node = cJSON_IsArray(node) ? cJSON_GetArrayItem(node, atoi(last))
                                   : cJSON_GetObjectItemCaseSensitive(node, last);
        ck_assert_msg(node != NULL, "%s: no %s", path, last);
        p = slash + 1;
    }
}

/* tmp_dir/tokenizer.json: c's base file with c's change; its path. */
static path_buf write_changed(const change *c)
{
    char *text = read_file(join(join(data_dir, "tokenizer_json").s, c->base).s, NULL);
    cJSON *root = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(root);
    if (c->path) {
        char last[64];
        cJSON *parent = parent_of(root, c->path, last);
        cJSON *v = c->value ? cJSON_Parse(c->value) : NULL;
        ck_assert_msg(v != NULL || !c->value, "%s is not JSON", c->value);
        if (cJSON_IsArray(parent))
            ck_assert(cJSON_ReplaceItemInArray(parent, atoi(last), v));
        else if (!v)
            cJSON_DeleteItemFromObjectCaseSensitive(parent, last);
        else if (!cJSON_ReplaceItemInObjectCaseSensitive(parent, last, v))
            cJSON_AddItemToObject(parent, last, v);
    }
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    const path_buf path = join(tmp_dir, "tokenizer.json");
    write_text(path.s, text);
    free(text);
    return path;
}

#define BERT "bert_uncased/tokenizer.json" /* TemplateProcessing */
#define BERT_PROCESSING "bert_cased/tokenizer.json"
#define ROBERTA "roberta/tokenizer.json"
#define BYTE_LEVEL "qwen3/tokenizer.json"
#define PP "post_processor"
#define INT_RANGE "expected an integer in 0..2147483647, got "

/* Each change refused: TF_ERR_FORMAT (TF_ERR_UNSUPPORTED where the value
 * is tokenizers' but not this library's), the message naming the file,
 * the field's path and its value; no handle. */
static const struct {
    change change;
    tf_status status;
    const char *message;
} bad[] = {
    /* TemplateProcessing's special_tokens: {key: {id, ids: [u32], tokens: [string]}},
     * ids and tokens as long (SpecialToken::new), every entry read */
    {{BERT, PP "/special_tokens/[CLS]/tokens", "[\"a\", \"b\"]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.special_tokens[\"[CLS]\"]: ids and tokens must be of the "
     "same length, got 1 id and 2 tokens"},
    {{BERT, PP "/special_tokens/[CLS]/ids", "[]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.special_tokens[\"[CLS]\"]: ids and tokens must be of the "
     "same length, got 0 ids and 1 token"},
    {{BERT, PP "/special_tokens/[CLS]/ids", "[\"x\"]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.special_tokens[\"[CLS]\"].ids[0]: " INT_RANGE "\"x\""},
    {{BERT, PP "/special_tokens/[SEP]/ids", "[-13]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.special_tokens[\"[SEP]\"].ids[0]: " INT_RANGE "-13"},
    {{BERT, PP "/special_tokens/[SEP]/ids", "[13.5]"},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].ids[0]: " INT_RANGE "13.5"},
    {{BERT, PP "/special_tokens/[SEP]/ids", "13"},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].ids: expected an array of at most 64 ids, got 13"},
    {{BERT, PP "/special_tokens/[SEP]/ids", NULL},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].ids: expected an array of at most 64 ids, "
     "got nothing"},
    {{BERT, PP "/special_tokens/[SEP]/tokens", "[13]"},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].tokens[0]: expected a string, got 13"},
    {{BERT, PP "/special_tokens/[SEP]/tokens", NULL},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].tokens: expected an array of strings, "
     "got nothing"},
    {{BERT, PP "/special_tokens/[SEP]/id", "13"},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].id: expected a string, got 13"},
    {{BERT, PP "/special_tokens/[SEP]/id", NULL},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"].id: expected a string, got nothing"},
    {{BERT, PP "/special_tokens/[SEP]", "13"},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[SEP]\"]: expected an object {\"id\", \"ids\", "
     "\"tokens\"}, got 13"},
    {{BERT, PP "/special_tokens/[MASK]", "{\"id\": \"[MASK]\", \"ids\": [14], \"tokens\": []}"},
     TF_ERR_FORMAT,
     "post_processor.special_tokens[\"[MASK]\"]: ids and tokens must be of the same length"},
    {{BERT, PP "/special_tokens", "[]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.special_tokens: expected an object, got []"},
    {{BERT, PP "/special_tokens", NULL},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.special_tokens: expected an object, got nothing"},
    /* single and pair: [{"Sequence": {id: "A" | "B", type_id: u32}} |
     * {"SpecialToken": {id: a key of special_tokens, type_id: u32}}] */
    {{BERT, PP "/single/0/SpecialToken/type_id", "-1"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.single[0].SpecialToken.type_id: " INT_RANGE "-1"},
    {{BERT, PP "/single/0/SpecialToken/type_id", "\"0\""},
     TF_ERR_FORMAT,
     "post_processor.single[0].SpecialToken.type_id: " INT_RANGE "\"0\""},
    {{BERT, PP "/single/0/SpecialToken/type_id", NULL},
     TF_ERR_FORMAT,
     "post_processor.single[0].SpecialToken.type_id: " INT_RANGE "nothing"},
    {{BERT, PP "/pair/3/Sequence/type_id", "4294967296"},
     TF_ERR_FORMAT,
     "post_processor.pair[3].Sequence.type_id: " INT_RANGE "4294967296"},
    {{BERT, PP "/pair/4/SpecialToken/type_id", "0.5"},
     TF_ERR_FORMAT,
     "post_processor.pair[4].SpecialToken.type_id: " INT_RANGE "0.5"},
    {{BERT, PP "/pair/1/Sequence/id", "\"C\""},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.pair[1].Sequence.id: expected \"A\" or \"B\", got \"C\""},
    {{BERT, PP "/pair/1/Sequence/id", "\"a\""},
     TF_ERR_FORMAT,
     "post_processor.pair[1].Sequence.id: expected \"A\" or \"B\", got \"a\""},
    {{BERT, PP "/pair/1/Sequence/id", NULL},
     TF_ERR_FORMAT,
     "post_processor.pair[1].Sequence.id: expected \"A\" or \"B\", got nothing"},
    {{BERT, PP "/single/0/SpecialToken/id", "\"[XX]\""},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.single[0].SpecialToken.id: \"[XX]\" is not in "
     "post_processor.special_tokens (tokenizers: Missing SpecialToken(s) with id(s))"},
    {{BERT, PP "/single/0/SpecialToken/id", "12"},
     TF_ERR_FORMAT,
     "post_processor.single[0].SpecialToken.id: expected a string, got 12"},
    {{BERT, PP "/single/0/SpecialToken", "[\"[CLS]\", 0]"},
     TF_ERR_FORMAT,
     "post_processor.single[0].SpecialToken: expected an object {\"id\", \"type_id\"}, "
     "got [\"[CLS]\",0]"},
    {{BERT, PP "/single/0", "\"[CLS]\""},
     TF_ERR_FORMAT, /* tokenizers' builder's form only */
     "tokenizer.json: post_processor.single[0]: expected {\"Sequence\": {...}} or "
     "{\"SpecialToken\": {...}}, got \"[CLS]\""},
    {{BERT, PP "/pair/3", "\"$B:1\""},
     TF_ERR_FORMAT,
     "post_processor.pair[3]: expected {\"Sequence\": {...}} or {\"SpecialToken\": {...}}, "
     "got \"$B:1\""},
    {{BERT, PP "/single/1",
      "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}, \"SpecialToken\": {\"id\": \"[CLS]\", "
      "\"type_id\": 0}}"},
     TF_ERR_FORMAT,
     "post_processor.single[1]: expected {\"Sequence\": {...}} or {\"SpecialToken\": {...}}, "
     "got {\"Sequence\":"},
    {{BERT, PP "/single/1", "{\"Seq\": {\"id\": \"A\", \"type_id\": 0}}"},
     TF_ERR_FORMAT,
     "post_processor.single[1]: expected {\"Sequence\": {...}} or {\"SpecialToken\": {...}}, "
     "got {\"Seq\":"},
    {{BERT, PP "/single", "{}"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.single: expected an array, got {}"},
    /* BertProcessing: sep and cls [string, u32] */
    {{BERT_PROCESSING, PP "/cls", "[\"[CLS]\", -1]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.cls[1]: " INT_RANGE "-1"},
    {{BERT_PROCESSING, PP "/cls", "[12, \"[CLS]\"]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.cls[0]: expected a string, got 12"},
    {{BERT_PROCESSING, PP "/sep", "[\"[SEP]\"]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.sep: expected [token, id], got [\"[SEP]\"]"},
    {{BERT_PROCESSING, PP "/sep", NULL},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.sep: expected [token, id], got nothing"},
    /* RobertaProcessing: those and trim_offsets, add_prefix_space: bool */
    {{ROBERTA, PP "/sep", "[\"</s>\", \"3667\"]"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.sep[1]: " INT_RANGE "\"3667\""},
    {{ROBERTA, PP "/trim_offsets", "\"yes\""},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.trim_offsets: expected true or false, got \"yes\""},
    {{ROBERTA, PP "/add_prefix_space", NULL},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.add_prefix_space: expected true or false, got nothing"},
    /* ByteLevel: add_prefix_space, trim_offsets: bool; use_regex: bool, true when absent */
    {{BYTE_LEVEL, PP "/trim_offsets", NULL},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.trim_offsets: expected true or false, got nothing"},
    {{BYTE_LEVEL, PP "/add_prefix_space", "null"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.add_prefix_space: expected true or false, got null"},
    {{BYTE_LEVEL, PP "/use_regex", "1"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.use_regex: expected true or false, got 1"},
    /* Sequence: processors, each one of these */
    {{BYTE_LEVEL, PP, "5"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor: expected an object with a \"type\", got 5"},
    {{BYTE_LEVEL, PP "/type", "5"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.type: expected a string, got 5"},
    {{BYTE_LEVEL, PP, "{\"type\": \"Sequence\", \"processors\": [null]}"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.processors[0]: expected an object with a \"type\", got null"},
    {{BYTE_LEVEL, PP, "{\"type\": \"Sequence\", \"processors\": {}}"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.processors: expected an array"},
    {{BYTE_LEVEL, PP,
      "{\"type\": \"Sequence\", \"processors\": [{\"type\": \"ByteLevel\", \"add_prefix_space\": "
      "false, \"trim_offsets\": \"no\"}]}"},
     TF_ERR_FORMAT,
     "tokenizer.json: post_processor.processors[0].trim_offsets: expected true or false, "
     "got \"no\""},
    {{BYTE_LEVEL, PP,
      "{\"type\": \"Sequence\", \"processors\": [{\"type\": \"BertProcessing\", \"sep\": "
      "[\"</s>\", 3667], \"cls\": [\"<s>\", 3665]}, {\"type\": \"Sequence\", \"processors\": "
      "[{\"type\": \"BertProcessing\", \"sep\": [\"</s>\", 3667], \"cls\": [\"<s>\", 3665]}]}]}"},
     TF_ERR_UNSUPPORTED, /* tokenizers adds the second's to the first's output pieces */
     "tokenizer.json: post_processor.processors[1].processors[0]: a second processor that "
     "adds special tokens (after post_processor.processors[0]) is not supported"},
};

START_TEST(test_bad_value_refused_by_field)
{
    make_tmp_dir();
    const path_buf path = write_changed(&bad[_i].change);
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    expect_failure(tf_tokenizer_load(path.s, NULL, &tok), bad[_i].status, bad[_i].message);
    ck_assert_ptr_null(tok);
    remove_tmp_dir();
}
END_TEST

/* Each change accepted, as tokenizers accepts it: the text and pair encode
 * to tokenizers' ids and type ids. */
#define MAX_IDS 8

static const struct {
    change change;
    const char *text, *pair;
    int n;
    int32_t ids[MAX_IDS], types[MAX_IDS];
} good[] = {
    {{BERT, NULL, NULL}, "a", "b", 5, {12, 79, 13, 80, 13}, {0, 0, 0, 1, 1}},
    /* several ids; none (SpecialToken::new takes both empty) */
    {{BERT, PP "/special_tokens/[CLS]",
      "{\"id\": \"[CLS]\", \"ids\": [12, 14], \"tokens\": [\"[CLS]\", \"[MASK]\"]}"},
     "a",
     "b",
     6,
     {12, 14, 79, 13, 80, 13},
     {0, 0, 0, 0, 1, 1}},
    {{BERT, PP "/special_tokens/[CLS]", "{\"id\": \"[CLS]\", \"ids\": [], \"tokens\": []}"},
     "a",
     "b",
     4,
     {79, 13, 80, 13},
     {0, 0, 1, 1}},
    /* tokenizers finds an entry by its key, not its id */
    {{BERT, PP "/special_tokens/[CLS]/id", "\"other\""},
     "a",
     "b",
     5,
     {12, 79, 13, 80, 13},
     {0, 0, 0, 1, 1}},
    {{BERT, PP "/pair/4/SpecialToken/type_id", "2"},
     "a",
     "b",
     5,
     {12, 79, 13, 80, 13},
     {0, 0, 0, 1, 2}},
    {{BERT_PROCESSING, NULL, NULL}, "a", "b", 5, {12, 79, 13, 80, 13}, {0, 0, 0, 1, 1}},
    {{ROBERTA, NULL, NULL},
     "~",
     "= \u2764\ufe0f",
     8,
     {3665, 1090, 3667, 3667, 283, 2434, 1881, 3667},
     {0, 0, 0, 0, 0, 0, 0, 0}},
    {{BYTE_LEVEL, NULL, NULL}, "~", "= \u2764\ufe0f", 4, {93, 28, 2434, 1881}, {0, 1, 1, 1}},
    {{BYTE_LEVEL, PP "/use_regex", NULL},
     "~",
     "= \u2764\ufe0f",
     4,
     {93, 28, 2434, 1881},
     {0, 1, 1, 1}},
    {{BYTE_LEVEL, PP,
      "{\"type\": \"Sequence\", \"processors\": [{\"type\": \"ByteLevel\", \"add_prefix_space\": "
      "false, \"trim_offsets\": false}, {\"type\": \"Sequence\", \"processors\": []}]}"},
     "~",
     "= \u2764\ufe0f",
     4,
     {93, 28, 2434, 1881},
     {0, 1, 1, 1}},
};

START_TEST(test_good_value_encodes_as_tokenizers)
{
    make_tmp_dir();
    const path_buf path = write_changed(&good[_i].change);
    tf_tokenizer *tok = NULL;
    ck_assert_msg(tf_tokenizer_load(path.s, NULL, &tok) == TF_OK, "%s", tf_last_error());
    tf_encoding *enc;
    ck_assert_int_eq(tf_tokenizer_encode(tok, good[_i].text, strlen(good[_i].text), good[_i].pair,
                                         strlen(good[_i].pair), &enc),
                     TF_OK);
    ck_assert_int_eq(tf_encoding_lengths(enc)[0], good[_i].n);
    for (int t = 0; t < good[_i].n; t++) {
        ck_assert_int_eq(tf_encoding_ids(enc)[t], good[_i].ids[t]);
        ck_assert_int_eq(tf_encoding_type_ids(enc)[t], good[_i].types[t]);
    }
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("post_processor");
    TCase *tc = tcase_create("fields");
    tcase_add_loop_test(tc, test_bad_value_refused_by_field, 0, sizeof bad / sizeof bad[0]);
    tcase_add_loop_test(tc, test_good_value_encodes_as_tokenizers, 0, sizeof good / sizeof good[0]);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
