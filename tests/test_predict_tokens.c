/* test_predict_tokens.c — tf_pipeline_predict_tokens on the *ForMaskedLM
 * folders of tests/data/gen_mlm.py: the top_k at every token against the
 * float64 reference's every_position (scores within 1e-5; a token where its
 * score stands clear of the next), and at the mask tokens the same
 * predictions as tf_pipeline_fill_mask's reference; its refusals. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/mlm_folders.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

#define TOL 1e-5

static const char *data_dir;

static path_buf folder(const char *name)
{
    return mlm_folder(data_dir, name);
}

static tf_pipeline *load(const char *name)
{
    return load_fill_mask(folder(name).s);
}

/* Token t's top_k against want (top_k + 1 entries, best first). */
static void expect_position(const tf_fill_mask *m, size_t t, const cJSON *want, int top_k,
                            const char *name)
{
    for (int k = 0; k < top_k; k++) {
        const double score = json_at(cJSON_GetArrayItem(want, k), "score")->valuedouble;
        const double next = json_at(cJSON_GetArrayItem(want, k + 1), "score")->valuedouble;
        const double before = k ? json_at(cJSON_GetArrayItem(want, k - 1), "score")->valuedouble
                                : INFINITY;
        ck_assert_msg(fabs(tf_fill_mask_score(m, t, k) - score) <= TOL,
                      "%s: token %zu, k %d: score %.9g, want %.9g", name, t, k,
                      (double)tf_fill_mask_score(m, t, k), score);
        if (score - next > TOL && before - score > TOL)
            ck_assert_msg(tf_fill_mask_token(m, t, k) ==
                              json_at(cJSON_GetArrayItem(want, k), "token")->valueint,
                          "%s: token %zu, k %d: id %d", name, t, k,
                          (int)tf_fill_mask_token(m, t, k));
    }
}

/* At mask position t: the fill-mask reference's predictions (token,
 * token_str; the sequence too where the text has several masks, whose
 * sequences keep the special tokens as every position's do). */
static void expect_mask(const tf_fill_mask *m, size_t t, const cJSON *predictions, int several,
                        int top_k)
{
    for (int k = 0; k < top_k; k++) {
        const cJSON *want = cJSON_GetArrayItem(predictions, k);
        ck_assert_int_eq(tf_fill_mask_token(m, t, k), json_at(want, "token")->valueint);
        ck_assert_str_eq(tf_fill_mask_token_str(m, t, k), json_at(want, "token_str")->valuestring);
        if (several)
            ck_assert_str_eq(tf_fill_mask_sequence(m, t, k),
                             json_at(want, "sequence")->valuestring);
    }
}

static void expect_case(const tf_pipeline *p, const cJSON *c, int top_k, const char *name)
{
    tf_fill_mask *m;
    ck_assert_msg(tf_pipeline_predict_tokens(p, json_at(c, "text")->valuestring, top_k, &m) ==
                      TF_OK,
                  "%s: %s", name, tf_last_error());
    const cJSON *rows = json_at(c, "every_position");
    ck_assert_int_eq((int)tf_fill_mask_count(m), cJSON_GetArraySize(json_at(c, "ids")));
    ck_assert_int_eq((int)tf_fill_mask_count(m), cJSON_GetArraySize(rows));
    ck_assert_int_eq(tf_fill_mask_top_k(m), top_k);
    for (size_t t = 0; t < tf_fill_mask_count(m); t++)
        expect_position(m, t, cJSON_GetArrayItem(rows, (int)t), top_k, name);
    const cJSON *at = json_at(c, "mask_positions");
    const int n_masks = cJSON_GetArraySize(at);
    for (int i = 0; i < n_masks; i++)
        expect_mask(m, (size_t)cJSON_GetArrayItem(at, i)->valueint,
                    cJSON_GetArrayItem(json_at(c, "predictions"), i), n_masks > 1, top_k);
    ck_assert_int_eq(tf_fill_mask_token(m, tf_fill_mask_count(m), 0), -1);
    tf_fill_mask_destroy(m);
}

START_TEST(test_every_position)
{
    const char *name = mlm_folders[_i];
    tf_pipeline *p = load(name);
    cJSON *exp = read_json(join(folder(name).s, "expected.json").s);
    const int top_k = json_at(exp, "top_k")->valueint;
    const cJSON *c;
    cJSON_ArrayForEach(c, json_at(exp, "cases")) expect_case(p, c, top_k, name);
    cJSON_Delete(exp);
    tf_pipeline_destroy(p);
}
END_TEST

/* With more tokens than a block of logits (16), each block's rows land at
 * their own positions: at masks in the first and the second block, the
 * predictions of tf_pipeline_fill_mask (which runs both masks as one
 * block). */
START_TEST(test_blocks_join)
{
    tf_pipeline *p = load("bert_base_uncased");
    const char *text = "the [MASK] sat on the mat and the dog sat on the cat and the big red "
                       "house is the dog on the [MASK] cat";
    tf_fill_mask *every, *masks;
    ck_assert_msg(tf_pipeline_predict_tokens(p, text, 3, &every) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_fill_mask(p, text, 3, &masks), TF_OK);
    const size_t T = tf_fill_mask_count(every);
    ck_assert_msg(T > 16 && T <= 32, "T %zu", T);
    const size_t at[2] = {2, T - 3}; /* the masks: after [CLS] "the", before "cat" [SEP] */
    for (size_t i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            ck_assert_int_eq(tf_fill_mask_token(every, at[i], k), tf_fill_mask_token(masks, i, k));
            ck_assert_float_eq_tol(tf_fill_mask_score(every, at[i], k),
                                   tf_fill_mask_score(masks, i, k), 1e-6f);
            ck_assert_str_eq(tf_fill_mask_sequence(every, at[i], k),
                             tf_fill_mask_sequence(masks, i, k));
        }
    tf_fill_mask_destroy(every);
    tf_fill_mask_destroy(masks);
    tf_pipeline_destroy(p);
}
END_TEST

/* A SparseEncoder folder's MLMTransformer head: every token, ranked. */
START_TEST(test_sparse_folder)
{
    tf_pipeline *p;
    const char *dir = join(join(data_dir, "sparse").s, "splade_v3").s;
    ck_assert_msg(tf_pipeline_load(dir, NULL, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_SPARSE);
    tf_fill_mask *m;
    ck_assert_msg(tf_pipeline_predict_tokens(p, "the cat sat", 4, &m) == TF_OK, "%s",
                  tf_last_error());
    ck_assert_int_eq((int)tf_fill_mask_count(m), 5); /* [CLS] the cat sat [SEP] */
    for (size_t t = 0; t < 5; t++)
        for (int32_t k = 1; k < 4; k++)
            ck_assert(tf_fill_mask_score(m, t, k) <= tf_fill_mask_score(m, t, k - 1));
    tf_fill_mask_destroy(m);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_bad_calls)
{
    tf_pipeline *p = load("bert_base_uncased");
    tf_fill_mask *m = (tf_fill_mask *)p; /* any pointer: set to NULL on failure */
    char want[160];
    snprintf(want, sizeof want, "top_k: expected 1..%d (the vocabulary's size), got 0",
             (int)tf_pipeline_dim(p));
    expect_failure(tf_pipeline_predict_tokens(p, "the cat", 0, &m), TF_ERR_INVALID_ARGUMENT, want);
    ck_assert_ptr_null(m);
    expect_failure(tf_pipeline_predict_tokens(p, NULL, 5, &m), TF_ERR_INVALID_ARGUMENT,
                   "text is NULL");
    expect_failure(tf_pipeline_predict_tokens(NULL, "the", 5, &m), TF_ERR_INVALID_ARGUMENT,
                   "pipeline is NULL");
    expect_failure(tf_pipeline_predict_tokens(p, "the", 5, NULL), TF_ERR_INVALID_ARGUMENT,
                   "out is NULL");
    tf_pipeline_destroy(p);
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.kind = TF_PIPELINE_FILL_MASK;
    o.max_seq_length = 8;
    ck_assert_int_eq(tf_pipeline_load(folder("bert_base_uncased").s, &o, &p), TF_OK);
    expect_failure(tf_pipeline_predict_tokens(p, "the cat sat on the mat and the dog", 5, &m),
                   TF_ERR_INVALID_ARGUMENT,
                   "text: more than 8 tokens (the pipeline's max_seq_length); "
                   "tf_pipeline_predict_tokens takes the whole text");
    ck_assert_ptr_null(m);
    tf_pipeline_destroy(p);
    ck_assert_int_eq(
        tf_pipeline_load(join(join(data_dir, "pipelines").s, "cross_encoder").s, NULL, &p), TF_OK);
    expect_failure(tf_pipeline_predict_tokens(p, "the", 5, &m), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_predict_tokens: the pipeline is a cross-encoder; use "
                   "tf_pipeline_score");
    tf_pipeline_destroy(p);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("predict_tokens");
    TCase *tc = tcase_create("predict_tokens");
    tcase_add_loop_test(tc, test_every_position, 0, N_MLM_FOLDERS);
    tcase_add_test(tc, test_blocks_join);
    tcase_add_test(tc, test_sparse_folder);
    tcase_add_test(tc, test_bad_calls);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
