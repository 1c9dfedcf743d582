/* test_multi_vector.c — per-token vectors: PyLate (ColBERT) folders'
 * queries and documents, their MaxSim scores, an embedding pipeline's last
 * hidden state, and the refusals, against tests/data/gen_colbert.py's
 * float64 references (pylate/models/colbert.py, scores/scores.py). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

#define TOL 1e-5
/* a score sums query_length products of unit vectors */
#define SCORE_TOL 1e-4

static const char *data_dir;

static path_buf folder(const char *name)
{
    return join(join(data_dir, "colbert").s, name);
}

/* The texts of the JSON list texts, as a C array (free it). */
static const char **texts_of(const cJSON *texts, size_t *n)
{
    *n = (size_t)cJSON_GetArraySize(texts);
    const char **t = calloc(*n, sizeof *t);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < *n; i++)
        t[i] = cJSON_GetArrayItem(texts, (int)i)->valuestring;
    return t;
}

/* v's input i against the JSON rows of ids and vectors. */
static void expect_input(const tf_token_vectors *v, size_t i, const cJSON *ids, const cJSON *rows,
                         const char *what)
{
    const int32_t n = tf_token_vectors_rows(v, i), dim = tf_token_vectors_dim(v);
    ck_assert_msg(n == cJSON_GetArraySize(ids), "%s %zu: %d rows, want %d", what, i, (int)n,
                  cJSON_GetArraySize(ids));
    const float *data = tf_token_vectors_data(v, i);
    const int32_t *got_ids = tf_token_vectors_ids(v, i);
    for (int32_t r = 0; r < n; r++) {
        ck_assert_int_eq(got_ids[r], cJSON_GetArrayItem(ids, r)->valueint);
        const cJSON *row = cJSON_GetArrayItem(rows, r);
        ck_assert_int_eq(cJSON_GetArraySize(row), dim);
        for (int32_t c = 0; c < dim; c++) {
            const double want = cJSON_GetArrayItem(row, c)->valuedouble;
            ck_assert_msg(fabs(data[(size_t)r * (size_t)dim + (size_t)c] - want) <= TOL,
                          "%s %zu [%d, %d]: got %.9g, want %.9g", what, i, (int)r, (int)c,
                          (double)data[(size_t)r * (size_t)dim + (size_t)c], want);
        }
    }
}

/* One side (queries or documents) of case `name` encoded and compared. */
static tf_token_vectors *encode_side(tf_pipeline *p, const cJSON *side, int is_query,
                                     int32_t batch_size)
{
    size_t n, truncated = 99;
    const char **texts = texts_of(json_at(side, "texts"), &n);
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = texts, a.is_query = is_query, a.batch_size = batch_size;
    a.truncated = &truncated;
    tf_token_vectors *v = NULL;
    ck_assert_msg(tf_pipeline_embed_tokens(p, &a, &v) == TF_OK, "%s", tf_last_error());
    ck_assert_uint_eq(tf_token_vectors_count(v), n);
    ck_assert_uint_eq(truncated, (size_t)json_at(side, "truncated")->valueint);
    for (size_t i = 0; i < n; i++)
        expect_input(v, i, cJSON_GetArrayItem(json_at(side, "ids"), (int)i),
                     cJSON_GetArrayItem(json_at(side, "vectors"), (int)i),
                     is_query ? "query" : "document");
    free(texts);
    return v;
}

static const char *const cases[] = {"answerai_like", "attend_residual", "no_expansion",
                                    "modernbert_like"};

/* Every query and document of each case, in batches of 2 and of 32, as
 * ColBERT.encode gives them; tf_maxsim of them as colbert_scores. */
START_TEST(test_encode_and_maxsim)
{
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(folder(cases[_i]).s, NULL, &p) == TF_OK, "%s", tf_last_error());
    cJSON *exp = read_json(join(folder(cases[_i]).s, "expected.json").s);
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_MULTI_VECTOR);
    ck_assert_str_eq(tf_pipeline_kind_name(tf_pipeline_kind_of(p)), "multi-vector");
    ck_assert_int_eq(tf_pipeline_dim(p), json_at(exp, "dim")->valueint);
    ck_assert_str_eq(tf_pipeline_similarity(p), "MaxSim");
    /* a document's text tokens as tf_pipeline_count_tokens counts them: the prefix left out */
    ck_assert_int_eq(tf_pipeline_max_seq_length(p),
                     json_at(json_at(exp, "settings"), "document_length")->valueint - 1);
    for (int32_t batch_size = 2; batch_size <= 32; batch_size += 30) {
        tf_token_vectors *q = encode_side(p, json_at(exp, "queries"), 1, batch_size);
        tf_token_vectors *d = encode_side(p, json_at(exp, "documents"), 0, batch_size);
        const cJSON *scores = json_at(exp, "scores");
        for (size_t i = 0; i < tf_token_vectors_count(q); i++)
            for (size_t j = 0; j < tf_token_vectors_count(d); j++) {
                float got;
                ck_assert_int_eq(tf_maxsim(tf_token_vectors_data(q, i), tf_token_vectors_rows(q, i),
                                           tf_token_vectors_data(d, j), tf_token_vectors_rows(d, j),
                                           tf_token_vectors_dim(q), &got),
                                 TF_OK);
                const double want =
                    cJSON_GetArrayItem(cJSON_GetArrayItem(scores, (int)i), (int)j)->valuedouble;
                ck_assert_msg(fabs(got - want) <= SCORE_TOL,
                              "score [%zu, %zu]: got %.7g, want %.7g", i, j, (double)got, want);
            }
        tf_token_vectors_destroy(q);
        tf_token_vectors_destroy(d);
    }
    cJSON_Delete(exp);
    tf_pipeline_destroy(p);
}
END_TEST

/* tf_pipeline_score on a multi-vector pipeline: MaxSim of (texts[i] as a
 * query, pairs[i] as a document), every query with every document. */
START_TEST(test_score)
{
    tf_pipeline *p;
    ck_assert_int_eq(tf_pipeline_load(folder(cases[_i]).s, NULL, &p), TF_OK);
    cJSON *exp = read_json(join(folder(cases[_i]).s, "expected.json").s);
    size_t nq, nd;
    const char **queries = texts_of(json_at(json_at(exp, "queries"), "texts"), &nq);
    const char **docs = texts_of(json_at(json_at(exp, "documents"), "texts"), &nd);
    const size_t n = nq * nd;
    const char **texts = calloc(n, sizeof *texts), **pairs = calloc(n, sizeof *pairs);
    float *out = calloc(n, sizeof *out);
    for (size_t k = 0; k < n; k++)
        texts[k] = queries[k / nd], pairs[k] = docs[k % nd];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = texts, a.pairs = pairs, a.out = out, a.out_len = n, a.batch_size = 3;
    a.normalize = 0; /* ignored, as a head's score does: MaxSim of PyLate's unit vectors */
    ck_assert_msg(tf_pipeline_score(p, &a) == TF_OK, "%s", tf_last_error());
    for (size_t k = 0; k < n; k++) {
        const cJSON *row = cJSON_GetArrayItem(json_at(exp, "scores"), (int)(k / nd));
        const double want = cJSON_GetArrayItem(row, (int)(k % nd))->valuedouble;
        ck_assert_msg(fabs(out[k] - want) <= SCORE_TOL, "score %zu: got %.7g, want %.7g", k,
                      (double)out[k], want);
    }
    a.out_len = n - 1;
    expect_failure(tf_pipeline_score(p, &a), TF_ERR_INVALID_ARGUMENT, "args.out_len");
    free(texts), free(pairs), free(out), free(queries), free(docs);
    cJSON_Delete(exp);
    tf_pipeline_destroy(p);
}
END_TEST

/* An embedding pipeline's last hidden state of every real token
 * (output_value="token_embeddings"), and normalize 1 at unit norm. */
START_TEST(test_embedding_tokens)
{
    tf_pipeline *p;
    ck_assert_int_eq(
        tf_pipeline_load(join(join(data_dir, "pipelines").s, "st_mean_norm").s, NULL, &p), TF_OK);
    cJSON *exp = read_json(join(join(data_dir, "colbert").s, "st_mean_norm_tokens.json").s);
    size_t n, truncated = 99;
    const char **texts = texts_of(json_at(exp, "texts"), &n);
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = texts, a.truncated = &truncated, a.batch_size = 2;
    tf_token_vectors *v;
    ck_assert_msg(tf_pipeline_embed_tokens(p, &a, &v) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_token_vectors_dim(v), 16);
    ck_assert_uint_eq(truncated, 1); /* the long text, at max_seq_length 12 */
    for (size_t i = 0; i < n; i++)
        expect_input(v, i, cJSON_GetArrayItem(json_at(exp, "ids"), (int)i),
                     cJSON_GetArrayItem(json_at(exp, "vectors"), (int)i), "text");
    tf_token_vectors *unit;
    a.normalize = 1;
    ck_assert_int_eq(tf_pipeline_embed_tokens(p, &a, &unit), TF_OK);
    const float *row = tf_token_vectors_data(unit, 1);
    double norm = 0;
    for (int c = 0; c < 16; c++)
        norm += (double)row[c] * row[c];
    ck_assert_double_eq_tol(norm, 1.0, 1e-6);
    ck_assert_int_eq(tf_token_vectors_rows(unit, n), 0); /* out of range */
    ck_assert_ptr_null(tf_token_vectors_data(unit, n));
    ck_assert_ptr_null(tf_token_vectors_ids(NULL, 0));
    tf_token_vectors_destroy(unit);
    tf_token_vectors_destroy(v);
    tf_token_vectors_destroy(NULL);
    free(texts);
    cJSON_Delete(exp);
    tf_pipeline_destroy(p);
}
END_TEST

/* Bad arguments: refused by name, *out NULL. */
START_TEST(test_bad_arguments)
{
    tf_pipeline *p;
    ck_assert_int_eq(tf_pipeline_load(folder("answerai_like").s, NULL, &p), TF_OK);
    const char *texts[] = {"a dog"};
    float out[4];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = texts;
    tf_token_vectors *v = (tf_token_vectors *)out;
    a.is_query = 2;
    expect_failure(tf_pipeline_embed_tokens(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.is_query: expected 0 (documents) or 1 (queries), got 2");
    ck_assert_ptr_null(v);
    a.is_query = 0, a.out = out, a.out_len = 4;
    expect_failure(tf_pipeline_embed_tokens(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.out and args.out_len: expected NULL and 0 (the call allocates its "
                   "results), got a pointer and 4");
    a.out = NULL, a.out_len = 0, a.pairs = texts;
    expect_failure(tf_pipeline_embed_tokens(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.pairs: tf_pipeline_embed_tokens takes single texts (NULL)");
    a.pairs = NULL, a.prompt_name = "query";
    expect_failure(tf_pipeline_embed_tokens(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.prompt_name \"query\": a multi-vector pipeline has no prompts");
    a.prompt_name = NULL, a.dimensions = 4;
    expect_failure(tf_pipeline_embed_tokens(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.dimensions 4, dimensions_layer_norm 0: token vectors keep every "
                   "dimension (0 and 0)");
    a.dimensions = 0;
    expect_failure(tf_pipeline_embed_tokens(p, &a, NULL), TF_ERR_INVALID_ARGUMENT, "out is NULL");
    a.out = out, a.out_len = 4;
    expect_failure(
        tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
        "tf_pipeline_embed: the pipeline is a multi-vector; use tf_pipeline_embed_tokens");
    tf_pipeline_destroy(p);
    ck_assert_int_eq(
        tf_pipeline_load(join(join(data_dir, "pipelines").s, "classifier").s, NULL, &p), TF_OK);
    a.out = NULL, a.out_len = 0;
    expect_failure(tf_pipeline_embed_tokens(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed_tokens: the pipeline is a classifier; use "
                   "tf_pipeline_classify");
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_maxsim_refusals)
{
    const float q[4] = {1, 0, 0, 1}, d[2] = {0.5f, 0.5f};
    float score = 7;
    ck_assert_int_eq(tf_maxsim(q, 2, d, 1, 2, &score), TF_OK);
    ck_assert_float_eq(score, 1.0f);
    expect_failure(tf_maxsim(NULL, 2, d, 1, 2, &score), TF_ERR_INVALID_ARGUMENT, "query is NULL");
    expect_failure(tf_maxsim(q, 2, d, 1, 2, NULL), TF_ERR_INVALID_ARGUMENT, "score is NULL");
    expect_failure(tf_maxsim(q, 0, d, 1, 2, &score), TF_ERR_INVALID_ARGUMENT,
                   "q_rows: expected >= 1, got 0");
    expect_failure(tf_maxsim(q, 2, d, 1, -1, &score), TF_ERR_INVALID_ARGUMENT,
                   "dim: expected >= 1, got -1");
    const float bad[2] = {0.5f, NAN};
    expect_failure(tf_maxsim(q, 2, bad, 1, 2, &score), TF_ERR_INVALID_ARGUMENT,
                   "doc[0, 1]: a non-finite value (nan)");
    ck_assert_float_eq(score, 1.0f); /* untouched */
}
END_TEST

/* ---- Folders refused by name ----------------------------------------------------------- */

/* A copy of answerai_like in the scratch directory with file `rel`
 * replaced by text; the load's failure. */
static void expect_folder_refused(const char *rel, const char *text, tf_status status,
                                  const char *message)
{
    char cmd[3200];
    path_buf dir = join(tmp_dir, "colbert");
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", dir.s, folder("answerai_like").s,
             dir.s);
    ck_assert_int_eq(system(cmd), 0);
    write_text(join(dir.s, rel).s, text);
    tf_pipeline *p = (tf_pipeline *)dir.s;
    expect_failure(tf_pipeline_load(dir.s, NULL, &p), status, message);
    ck_assert_ptr_null(p);
}

#define ST_CONFIG "config_sentence_transformers.json"

START_TEST(test_folder_refusals)
{
    make_tmp_dir();
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 14, \"query_length\": \"32\"}",
                          TF_ERR_FORMAT, ST_CONFIG ": query_length must be");
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 3}", TF_ERR_FORMAT,
                          ST_CONFIG ": document_length must be");
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 41}", TF_ERR_FORMAT,
                          ST_CONFIG ": document_length 41 exceeds the 40 positions");
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 14, \"skiplist_words\": \".\"}",
                          TF_ERR_FORMAT,
                          ST_CONFIG ": skiplist_words must be an array of strings, got \".\"");
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 14, \"skiplist_words\": [\".\", 4]}",
                          TF_ERR_FORMAT, ST_CONFIG ": skiplist_words[1] must be a string, got 4");
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 14, \"attend_to_expansion_tokens\": 1}",
                          TF_ERR_FORMAT, ST_CONFIG ": attend_to_expansion_tokens must be");
    expect_folder_refused(ST_CONFIG,
                          "{\"document_length\": 14, \"similarity_fn_name\": \"cosine\"}",
                          TF_ERR_UNSUPPORTED,
                          ST_CONFIG ": similarity_fn_name \"cosine\": a PyLate folder's is MaxSim");
    expect_folder_refused(ST_CONFIG, "{\"document_length\": 14, \"query_prefix\": \"[QQ] \"}",
                          TF_ERR_FORMAT,
                          ST_CONFIG ": query_prefix \"[QQ] \" is not a token of the folder's "
                                    "tokenizer");
    expect_folder_refused(ST_CONFIG,
                          "{\"document_length\": 14, \"default_prompt_name\": \"query\"}",
                          TF_ERR_UNSUPPORTED, ST_CONFIG ": default_prompt_name \"query\"");
    expect_folder_refused("1_Dense/config.json",
                          "{\"in_features\": 16, \"out_features\": 8, \"bias\": false, "
                          "\"activation_function\": \"my.Swish\"}",
                          TF_ERR_UNSUPPORTED,
                          "1_Dense/config.json: activation_function \"my.Swish\" is not supported");
    expect_folder_refused(
        "1_Dense/config.json", "{\"in_features\": 12, \"out_features\": 8, \"bias\": false}",
        TF_ERR_SHAPE, "1_Dense/config.json: in_features 12 disagrees with the 16");
    expect_folder_refused("1_Dense/config.json",
                          "{\"in_features\": 16, \"out_features\": 8, \"bias\": true}",
                          TF_ERR_FORMAT, "1_Dense/model.safetensors");
    expect_folder_refused("1_Dense/config.json",
                          "{\"in_features\": 16, \"out_features\": 8, \"bias\": false, "
                          "\"module_input_name\": \"sentence_embedding\"}",
                          TF_ERR_UNSUPPORTED,
                          "1_Dense/config.json: module_input_name \"sentence_embedding\" is not "
                          "supported (\"token_embeddings\" is)");
    expect_folder_refused("modules.json",
                          "[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": "
                          "\"sentence_transformers.models.Transformer\"}, {\"idx\": 1, \"name\": "
                          "\"1\", \"path\": \"1_Dense\", \"type\": \"pylate.models.Other\"}]",
                          TF_ERR_UNSUPPORTED,
                          "modules.json: module 1: type pylate.models.Other is not supported");
    expect_folder_refused("modules.json",
                          "[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": "
                          "\"sentence_transformers.models.Transformer\"}, {\"idx\": 1, \"name\": "
                          "\"1\", \"path\": \"../x\", \"type\": \"pylate.models.Dense.Dense\"}]",
                          TF_ERR_FORMAT, "path \"../x\" leaves the folder");
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("multi_vector");
    TCase *tc = tcase_create("multi_vector");
    const int n = (int)(sizeof cases / sizeof *cases);
    tcase_add_loop_test(tc, test_encode_and_maxsim, 0, n);
    tcase_add_loop_test(tc, test_score, 0, n);
    tcase_add_test(tc, test_embedding_tokens);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_maxsim_refusals);
    tcase_add_test(tc, test_folder_refusals);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
