/* test_sparse.c — SPLADE sparse vectors through tf_pipeline_embed_sparse on
 * the folders of tests/data/gen_sparse.py (laid out as naver/splade-v3,
 * prithivida/Splade_PP_en_v1 and opensearch-neural-sparse-encoding-doc-v2-
 * distill), against its float64 references within 1e-5: max and sum
 * pooling, relu and log1p_relu, a text cut at max_seq_length, the Router's
 * inference-free query route, max_active_dims (the k largest, as
 * select_max_active_dims), any batch size; bad arguments and the wrong
 * kind refused by name; each inconsistency of a folder refused naming the
 * file, the field and the value. */
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
#define MAX_TEXTS 8

static const char *data_dir;

static path_buf folder(const char *name)
{
    return join(join(data_dir, "sparse").s, name);
}

static cJSON *expected(const char *name)
{
    return read_json(join(folder(name).s, "expected.json").s);
}

/* A folder as SparseEncoder loads one: a bare *ForMaskedLM with its head
 * (options.kind fill-mask), a SparseEncoder folder as it says. */
static tf_pipeline_options sparse_options(void)
{
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.kind = TF_PIPELINE_FILL_MASK;
    return o;
}

static tf_pipeline *load_path(const char *path)
{
    const tf_pipeline_options o = sparse_options();
    tf_pipeline *p;
    const tf_status s = tf_pipeline_load(path, &o, &p);
    ck_assert_msg(s == TF_OK, "%s: %s", path, tf_last_error());
    return p;
}

/* The JSON list of strings as a C array (static, up to MAX_TEXTS). */
static const char **strings(const cJSON *list, size_t *n)
{
    static const char *out[MAX_TEXTS];
    *n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        ck_assert_uint_lt(*n, MAX_TEXTS);
        out[(*n)++] = item->valuestring;
    }
    return out;
}

/* v's vectors over args (texts from the JSON list), is_query, k, batch_size. */
static tf_sparse_vectors *embed(const tf_pipeline *p, const cJSON *texts, int32_t is_query,
                                int32_t k, int32_t batch_size, size_t *truncated)
{
    size_t n;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.texts = strings(texts, &n);
    a.n = n, a.is_query = is_query, a.max_active_dims = k, a.batch_size = batch_size;
    a.truncated = truncated;
    tf_sparse_vectors *v = NULL;
    const tf_status s = tf_pipeline_embed_sparse(p, &a, &v);
    ck_assert_msg(s == TF_OK, "%s", tf_last_error());
    ck_assert_uint_eq(tf_sparse_vectors_count(v), n);
    return v;
}

/* v's vectors against the dense rows want [n][V]: every index in range and
 * ascending, every value non-zero, every entry within TOL. */
static void expect_dense(const tf_sparse_vectors *v, const cJSON *want, const char *what)
{
    const int32_t V = tf_sparse_vectors_dim(v);
    float *dense = malloc((size_t)V * sizeof *dense);
    ck_assert_ptr_nonnull(dense);
    for (size_t i = 0; i < tf_sparse_vectors_count(v); i++) {
        const int32_t nnz = tf_sparse_vectors_nnz(v, i);
        const int32_t *idx = tf_sparse_vectors_indices(v, i);
        const float *val = tf_sparse_vectors_values(v, i);
        memset(dense, 0, (size_t)V * sizeof *dense);
        for (int32_t j = 0; j < nnz; j++) {
            ck_assert_msg(idx[j] >= 0 && idx[j] < V, "%s %zu: index %d", what, i, idx[j]);
            ck_assert_msg(j == 0 || idx[j] > idx[j - 1], "%s %zu: indices not ascending", what, i);
            ck_assert_msg(val[j] != 0, "%s %zu: a zero value kept", what, i);
            dense[idx[j]] = val[j];
        }
        const cJSON *row = cJSON_GetArrayItem(want, (int)i);
        ck_assert_int_eq(cJSON_GetArraySize(row), V);
        for (int32_t j = 0; j < V; j++) {
            const double w = cJSON_GetArrayItem(row, j)->valuedouble;
            ck_assert_msg(fabs(dense[j] - w) <= TOL, "%s %zu [%d]: got %.9g, want %.9g", what, i, j,
                          (double)dense[j], w);
        }
    }
    free(dense);
}

/* v's indices against want's lists (the k largest, ascending). */
static void expect_indices(const tf_sparse_vectors *v, const cJSON *want, const char *what)
{
    for (size_t i = 0; i < tf_sparse_vectors_count(v); i++) {
        const cJSON *row = cJSON_GetArrayItem(want, (int)i);
        ck_assert_int_eq(tf_sparse_vectors_nnz(v, i), cJSON_GetArraySize(row));
        for (int j = 0; j < cJSON_GetArraySize(row); j++)
            ck_assert_msg(tf_sparse_vectors_indices(v, i)[j] ==
                              cJSON_GetArrayItem(row, j)->valueint,
                          "%s %zu: index %d is %d, want %d", what, i, j,
                          tf_sparse_vectors_indices(v, i)[j], cJSON_GetArrayItem(row, j)->valueint);
    }
}

/* ---- References ------------------------------------------------------------------ */

/* A folder's documents: all values, then the top k, then in batches of 2. */
static void check_documents(const char *name, int32_t kind, size_t want_truncated)
{
    cJSON *e = expected(name);
    tf_pipeline *p = load_path(folder(name).s);
    ck_assert_int_eq(tf_pipeline_kind_of(p), kind);
    ck_assert_int_eq(tf_pipeline_dim(p), json_at(e, "vocab_size")->valueint);
    size_t truncated = 99;
    tf_sparse_vectors *v = embed(p, json_at(e, "texts"), 0, 0, 0, &truncated);
    ck_assert_int_eq(tf_sparse_vectors_dim(v), json_at(e, "vocab_size")->valueint);
    expect_dense(v, json_at(e, "dense"), name);
    ck_assert_uint_eq(truncated, want_truncated);
    tf_sparse_vectors_destroy(v);
    v = embed(p, json_at(e, "texts"), 0, json_at(e, "top_k")->valueint, 0, NULL);
    expect_indices(v, json_at(e, "top_k_indices"), name);
    tf_sparse_vectors_destroy(v);
    v = embed(p, json_at(e, "texts"), 0, 0, 2, NULL);
    expect_dense(v, json_at(e, "dense"), name);
    tf_sparse_vectors_destroy(v);
    tf_pipeline_destroy(p);
    cJSON_Delete(e);
}

START_TEST(splade_v3_max_relu)
{
    check_documents("splade_v3", TF_PIPELINE_SPARSE, 0);
    tf_pipeline *p = load_path(folder("splade_v3").s);
    ck_assert_str_eq(tf_pipeline_similarity(p), "dot");
    ck_assert_str_eq(tf_pipeline_pooling(p), "splade");
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(splade_sum_cut)
{
    check_documents("splade_sum", TF_PIPELINE_SPARSE, 3); /* 3 texts past max_seq_length 8 */
}
END_TEST

START_TEST(splade_pp_bare_masked_lm)
{
    check_documents("splade_pp", TF_PIPELINE_FILL_MASK, 0);
}
END_TEST

START_TEST(opensearch_router)
{
    check_documents("opensearch_doc_v2", TF_PIPELINE_SPARSE, 0);
    cJSON *e = expected("opensearch_doc_v2");
    tf_pipeline *p = load_path(folder("opensearch_doc_v2").s);
    tf_sparse_vectors *q = embed(p, json_at(e, "queries"), 1, 0, 0, NULL);
    expect_dense(q, json_at(e, "query_dense"), "query");
    tf_sparse_vectors_destroy(q);
    q = embed(p, json_at(e, "queries"), 1, json_at(e, "top_k")->valueint, 0, NULL);
    expect_indices(q, json_at(e, "query_top_k_indices"), "query");
    tf_sparse_vectors_destroy(q);
    tf_pipeline_destroy(p);
    cJSON_Delete(e);
}
END_TEST

/* ---- Bad arguments --------------------------------------------------------------- */

START_TEST(bad_arguments)
{
    tf_pipeline *p = load_path(folder("splade_v3").s);
    const char *texts[] = {"the cat"}, *pairs[] = {"a dog"};
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.texts = texts, a.n = 1;
    tf_sparse_vectors *v = (tf_sparse_vectors *)&a; /* must come back NULL */
    expect_failure(tf_pipeline_embed_sparse(p, &a, NULL), TF_ERR_INVALID_ARGUMENT, "out is NULL");
    a.is_query = 2;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.is_query: expected 0 (documents) or 1 (queries), got 2");
    ck_assert_ptr_null(v);
    a.is_query = 0, a.max_active_dims = -1;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.max_active_dims: expected 0 (every non-zero value) or >= 1, got -1");
    a.max_active_dims = 0, a.pairs = pairs;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.pairs: tf_pipeline_embed_sparse takes texts alone");
    a.pairs = NULL, a.dimensions = 8;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.dimensions: sparse vectors are neither normalised nor cut");
    float out[4];
    a.dimensions = 0, a.out = out, a.out_len = 4;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.out and args.out_len: expected NULL and 0");
    a.out = NULL, a.out_len = 0, a.prompt_name = "passage";
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.prompt_name \"passage\"");
    ck_assert_ptr_null(v);
    /* the embedding call on a sparse pipeline, and the sparse call on an embedding one */
    float vec[64];
    a.prompt_name = NULL, a.out = vec, a.out_len = 64;
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed: the pipeline is a sparse-embedding; use "
                   "tf_pipeline_embed_sparse");
    tf_pipeline_destroy(p);
    p = load_path(join(join(data_dir, "pipelines").s, "st_mean_norm").s);
    a.out = NULL, a.out_len = 0;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed_sparse: the pipeline is an embedding; use tf_pipeline_embed");
    ck_assert_ptr_null(v);
    tf_pipeline_destroy(p);
    ck_assert_uint_eq(tf_sparse_vectors_count(NULL), 0);
    ck_assert_int_eq(tf_sparse_vectors_nnz(NULL, 0), 0);
    ck_assert_ptr_null(tf_sparse_vectors_indices(NULL, 0));
    tf_sparse_vectors_destroy(NULL);
}
END_TEST

/* ---- Folders refused ---------------------------------------------------------------- */

/* A copy of folder `name` in the scratch directory with `file` replaced by
 * text (NULL: removed); loading it fails with status and message. */
static void expect_folder_refused(const char *name, const char *file, const char *text,
                                  tf_status status, const char *message)
{
    make_tmp_dir();
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/m'", folder(name).s, tmp_dir);
    ck_assert_int_eq(system(cmd), 0);
    const path_buf dir = join(tmp_dir, "m");
    if (text)
        write_text(join(dir.s, file).s, text);
    else
        ck_assert_int_eq(remove(join(dir.s, file).s), 0);
    tf_pipeline *p = (tf_pipeline *)&cmd;
    const tf_pipeline_options o = sparse_options();
    expect_failure(tf_pipeline_load(dir.s, &o, &p), status, message);
    ck_assert_ptr_null(p);
    remove_tmp_dir();
}

static const char router_doc_only[] =
    "{\"types\": {\"\": \"sentence_transformers.sparse_encoder.models.MLMTransformer\","
    " \"document_1_SpladePooling\": "
    "\"sentence_transformers.sparse_encoder.models.SpladePooling\"},"
    " \"structure\": {\"document\": [\"\", \"document_1_SpladePooling\"]},"
    " \"parameters\": {\"default_route\": \"document\", \"allow_empty_key\": true}}";

START_TEST(folders_refused)
{
    expect_folder_refused("splade_v3", "1_SpladePooling/config.json",
                          "{\"pooling_strategy\": \"mean\"}", TF_ERR_UNSUPPORTED,
                          "1_SpladePooling/config.json: pooling_strategy \"mean\" is not one of "
                          "\"max\", \"sum\"");
    expect_folder_refused("splade_v3", "1_SpladePooling/config.json",
                          "{\"activation_function\": \"gelu\"}", TF_ERR_UNSUPPORTED,
                          "1_SpladePooling/config.json: activation_function \"gelu\" is not one "
                          "of \"relu\", \"log1p_relu\"");
    expect_folder_refused("splade_v3", "1_SpladePooling/config.json",
                          "{\"word_embedding_dimension\": 30522}", TF_ERR_SHAPE,
                          "1_SpladePooling/config.json: word_embedding_dimension 30522 disagrees "
                          "with the masked-LM head's 58 vocabulary rows");
    expect_folder_refused(
        "splade_v3", "modules.json",
        "[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": "
        "\"sentence_transformers.sparse_encoder.models.MLMTransformer\"},"
        " {\"idx\": 1, \"name\": \"1\", \"path\": \"1_SpladePooling\", \"type\": "
        "\"sentence_transformers.sparse_encoder.models.CSRSparsity\"}]",
        TF_ERR_UNSUPPORTED,
        "modules.json: 2 modules (sentence_transformers.sparse_encoder.models.MLMTransformer, "
        "sentence_transformers.sparse_encoder.models.CSRSparsity)");
    expect_folder_refused("splade_v3", "modules.json",
                          "[{\"idx\": 0, \"name\": \"0\", \"path\": \"../x\", \"type\": "
                          "\"sentence_transformers.sparse_encoder.models.MLMTransformer\"}]",
                          TF_ERR_FORMAT, "modules.json: module 0: path \"../x\" leaves the folder");
    expect_folder_refused("opensearch_doc_v2", "router_config.json",
                          "{\"types\": {}, \"structure\": {\"document\": [], \"passage\": []}}",
                          TF_ERR_UNSUPPORTED,
                          "router_config.json: structure: route \"passage\" is not supported");
    expect_folder_refused("opensearch_doc_v2", "router_config.json",
                          "{\"types\": {}, \"structure\": {\"document\": [\"x\"]}}", TF_ERR_FORMAT,
                          "router_config.json: structure.document names \"x\", which types "
                          "does not have");
    expect_folder_refused("opensearch_doc_v2", "query_0_SparseStaticEmbedding/config.json",
                          "{\"frozen\": true, \"path\": \"idf.json\"}", TF_ERR_UNSUPPORTED,
                          "query_0_SparseStaticEmbedding/config.json: path: a "
                          "SparseStaticEmbedding read from an idf JSON file is not supported");
    expect_folder_refused("opensearch_doc_v2", "query_0_SparseStaticEmbedding/model.safetensors",
                          NULL, TF_ERR_IO, "query_0_SparseStaticEmbedding/model.safetensors");
}
END_TEST

/* A Router without a query route: documents run, queries are refused by name. */
START_TEST(router_without_query_route)
{
    make_tmp_dir();
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/m'", folder("opensearch_doc_v2").s, tmp_dir);
    ck_assert_int_eq(system(cmd), 0);
    const path_buf dir = join(tmp_dir, "m");
    write_text(join(dir.s, "router_config.json").s, router_doc_only);
    tf_pipeline *p = load_path(dir.s);
    const char *texts[] = {"the cat"};
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.texts = texts, a.n = 1, a.is_query = 1;
    tf_sparse_vectors *v = NULL;
    expect_failure(tf_pipeline_embed_sparse(p, &a, &v), TF_ERR_INVALID_ARGUMENT,
                   "args.is_query 1: the folder's Router (router_config.json) has no \"query\" "
                   "route");
    a.is_query = 0;
    ck_assert_int_eq(tf_pipeline_embed_sparse(p, &a, &v), TF_OK);
    ck_assert_int_gt(tf_sparse_vectors_nnz(v, 0), 0);
    tf_sparse_vectors_destroy(v);
    tf_pipeline_destroy(p);
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("sparse");
    TCase *tc = tcase_create("sparse");
    tcase_add_test(tc, splade_v3_max_relu);
    tcase_add_test(tc, splade_sum_cut);
    tcase_add_test(tc, splade_pp_bare_masked_lm);
    tcase_add_test(tc, opensearch_router);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, folders_refused);
    tcase_add_test(tc, router_without_query_route);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
