/* test_fill_mask.c — *ForMaskedLM folders (tests/data/gen_mlm.py: laid out
 * as bert-base-uncased, roberta-base, xlm-roberta-base,
 * distilbert-base-uncased, ModernBERT-base and an ELECTRA generator; tied
 * and untied decoders): the masked-LM head's logits at each mask
 * (tf__mlm_weights_read, tf__mlm_head_logits) and tf_pipeline_fill_mask's
 * predictions (token, score, token_str, sequence) against the float64
 * references within 1e-5; the refusals of bad calls and folders, each with
 * its message. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/mlm_folders.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "mlm_head.h"
#include "mlm_weights.h"
#include "tfenc.h"

#define TOL 1e-5

static const char *data_dir;

static path_buf folder(const char *name)
{
    return mlm_folder(data_dir, name);
}

static cJSON *expected(const char *name)
{
    return read_json(join(folder(name).s, "expected.json").s);
}

/* ids (JSON list) into a tf__malloc-free array of their count. */
static int32_t *int_list(const cJSON *list, int *n)
{
    *n = cJSON_GetArraySize(list);
    int32_t *out = malloc((size_t)*n * sizeof *out);
    ck_assert_ptr_nonnull(out);
    for (int i = 0; i < *n; i++)
        out[i] = (int32_t)cJSON_GetArrayItem(list, i)->valueint;
    return out;
}

/* The encoder's last hidden state of one sequence (T, D), malloc'ed. */
static float *hidden_of(const tf_encoder *enc, const int32_t *ids, int T, int D)
{
    float *out = malloc((size_t)T * (size_t)D * sizeof *out);
    ck_assert_ptr_nonnull(out);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_ids = ids, a.output = out;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    return out;
}

/* The head's logits (T, V) at every token against the reference's at the masks. */
static void expect_case_logits(const tf_encoder *enc, const tf__mlm_head *h, const cJSON *c,
                               const char *name)
{
    int T, M;
    int32_t *ids = int_list(json_at(c, "ids"), &T);
    int32_t *at = int_list(json_at(c, "mask_positions"), &M);
    float *hidden = hidden_of(enc, ids, T, (int)h->D);
    float *scratch = malloc((size_t)T * h->E * sizeof *scratch);
    float *logits = malloc((size_t)T * h->V * sizeof *logits); /* (T, V) */
    ck_assert(scratch && logits);
    tf__mlm_head_logits(h, hidden, (size_t)T, scratch, logits);
    for (int m = 0; m < M; m++) {
        const cJSON *want = cJSON_GetArrayItem(json_at(c, "logits"), m);
        ck_assert_int_eq(cJSON_GetArraySize(want), (int)h->V);
        for (size_t v = 0; v < h->V; v++) {
            const double w = cJSON_GetArrayItem(want, (int)v)->valuedouble;
            const double got = logits[(size_t)at[m] * h->V + v];
            ck_assert_msg(fabs(got - w) <= TOL * fmax(1.0, fabs(w)),
                          "%s: logit [%d, %zu]: got %.9g, want %.9g", name, (int)at[m], v, got, w);
        }
    }
    free(ids), free(at), free(hidden), free(scratch), free(logits);
}

START_TEST(test_head_logits)
{
    const char *name = mlm_folders[_i];
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(folder(name).s, NULL, &enc) == TF_OK, "%s: %s", name,
                  tf_last_error());
    tf__mlm_weights w;
    ck_assert_msg(tf__mlm_weights_read(folder(name).s, enc, &w) == TF_OK, "%s: %s", name,
                  tf_last_error());
    ck_assert_int_eq(w.tied, strstr(name, "untied") == NULL);
    cJSON *exp = expected(name);
    ck_assert_int_eq((int)w.head.V, json_at(exp, "vocab_size")->valueint);
    const cJSON *c;
    cJSON_ArrayForEach(c, json_at(exp, "cases")) expect_case_logits(enc, &w.head, c, name);
    cJSON_Delete(exp);
    tf__mlm_weights_free(&w);
    tf_encoder_destroy(enc);
}
END_TEST

static tf_pipeline *load(const char *name)
{
    return load_fill_mask(folder(name).s);
}

/* Without options.kind a bare *ForMaskedLM folder is an embedding, mean
 * pooled; options.kind other than -1 and fill-mask is refused. */
START_TEST(test_kind_option)
{
    tf_pipeline *p;
    ck_assert_int_eq(tf_pipeline_load(folder("bert_base_uncased").s, NULL, &p), TF_OK);
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_EMBEDDING);
    ck_assert_str_eq(tf_pipeline_pooling(p), "mean");
    tf_pipeline_destroy(p);
    tf_pipeline_options o = fill_mask_options();
    o.kind = TF_PIPELINE_SPARSE;
    p = (tf_pipeline *)&o;
    expect_failure(tf_pipeline_load(folder("bert_base_uncased").s, &o, &p), TF_ERR_INVALID_ARGUMENT,
                   "options.kind: expected -1 (as the folder says) or 4 (fill-mask), got 5");
    ck_assert_ptr_null(p);
}
END_TEST

/* One text's predictions against the reference's, mask by mask. */
static void expect_predictions(const tf_fill_mask *m, const cJSON *c, int top_k, const char *name)
{
    const cJSON *masks = json_at(c, "predictions");
    ck_assert_int_eq((int)tf_fill_mask_count(m), cJSON_GetArraySize(masks));
    ck_assert_int_eq(tf_fill_mask_top_k(m), top_k);
    for (size_t i = 0; i < tf_fill_mask_count(m); i++)
        for (int k = 0; k < top_k; k++) {
            const cJSON *want = cJSON_GetArrayItem(cJSON_GetArrayItem(masks, (int)i), k);
            const double score = json_at(want, "score")->valuedouble;
            ck_assert_int_eq(tf_fill_mask_token(m, i, k), json_at(want, "token")->valueint);
            ck_assert_msg(fabs(tf_fill_mask_score(m, i, k) - score) <= TOL,
                          "%s: mask %zu, k %d: score %.9g, want %.9g", name, i, k,
                          (double)tf_fill_mask_score(m, i, k), score);
            ck_assert_str_eq(tf_fill_mask_token_str(m, i, k),
                             json_at(want, "token_str")->valuestring);
            ck_assert_str_eq(tf_fill_mask_sequence(m, i, k),
                             json_at(want, "sequence")->valuestring);
        }
}

START_TEST(test_fill_mask_predictions)
{
    const char *name = mlm_folders[_i];
    tf_pipeline *p = load(name);
    cJSON *exp = expected(name);
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_FILL_MASK);
    ck_assert_str_eq(tf_pipeline_kind_name(tf_pipeline_kind_of(p)), "fill-mask");
    ck_assert_int_eq(tf_pipeline_dim(p), json_at(exp, "vocab_size")->valueint);
    const int top_k = json_at(exp, "top_k")->valueint;
    const cJSON *c;
    cJSON_ArrayForEach(c, json_at(exp, "cases"))
    {
        tf_fill_mask *m;
        const char *text = json_at(c, "text")->valuestring;
        ck_assert_msg(tf_pipeline_fill_mask(p, text, top_k, &m) == TF_OK, "%s: %s", name,
                      tf_last_error());
        expect_predictions(m, c, top_k, name);
        /* out of range: the documented nothing */
        ck_assert_int_eq(tf_fill_mask_token(m, tf_fill_mask_count(m), 0), -1);
        ck_assert_int_eq(tf_fill_mask_token(m, 0, top_k), -1);
        ck_assert_ptr_null(tf_fill_mask_token_str(m, 0, -1));
        ck_assert_ptr_null(tf_fill_mask_sequence(m, tf_fill_mask_count(m), 0));
        ck_assert(tf_fill_mask_score(m, 0, top_k) == 0.0f);
        tf_fill_mask_destroy(m);
    }
    cJSON_Delete(exp);
    tf_pipeline_destroy(p);
}
END_TEST

/* top_k = V: every score, their sum 1, best first. */
START_TEST(test_whole_vocabulary)
{
    tf_pipeline *p = load("bert_base_uncased");
    const int32_t V = tf_pipeline_dim(p);
    tf_fill_mask *m;
    ck_assert_int_eq(tf_pipeline_fill_mask(p, "the [MASK] sat", V, &m), TF_OK);
    double sum = 0.0;
    for (int32_t k = 0; k < V; k++) {
        sum += tf_fill_mask_score(m, 0, k);
        ck_assert(k == 0 || tf_fill_mask_score(m, 0, k) <= tf_fill_mask_score(m, 0, k - 1));
    }
    ck_assert_double_eq_tol(sum, 1.0, 1e-5);
    tf_fill_mask_destroy(m);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_bad_calls)
{
    tf_pipeline *p = load("bert_base_uncased");
    tf_fill_mask *m = (tf_fill_mask *)p; /* any pointer: set to NULL on failure */
    char want[160];
    expect_failure(tf_pipeline_fill_mask(p, "the cat sat", 5, &m), TF_ERR_INVALID_ARGUMENT,
                   "text: no mask_token ([MASK]) found on the input");
    ck_assert_ptr_null(m);
    snprintf(want, sizeof want, "top_k: expected 1..%d (the vocabulary's size), got 0",
             (int)tf_pipeline_dim(p));
    expect_failure(tf_pipeline_fill_mask(p, "the [MASK]", 0, &m), TF_ERR_INVALID_ARGUMENT, want);
    snprintf(want, sizeof want, "top_k: expected 1..%d (the vocabulary's size), got %d",
             (int)tf_pipeline_dim(p), (int)tf_pipeline_dim(p) + 1);
    expect_failure(tf_pipeline_fill_mask(p, "the [MASK]", tf_pipeline_dim(p) + 1, &m),
                   TF_ERR_INVALID_ARGUMENT, want);
    expect_failure(tf_pipeline_fill_mask(p, NULL, 5, &m), TF_ERR_INVALID_ARGUMENT, "text is NULL");
    expect_failure(tf_pipeline_fill_mask(NULL, "the [MASK]", 5, &m), TF_ERR_INVALID_ARGUMENT,
                   "pipeline is NULL");
    expect_failure(tf_pipeline_fill_mask(p, "the [MASK]", 5, NULL), TF_ERR_INVALID_ARGUMENT,
                   "out is NULL");
    /* the other kinds' calls name this kind's */
    float out[16];
    const char *texts[] = {"the cat"};
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = texts, a.out = out, a.out_len = 16;
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed: the pipeline is a fill-mask; use tf_pipeline_fill_mask");
    tf_pipeline_destroy(p);
    /* and this call names theirs */
    ck_assert_int_eq(
        tf_pipeline_load(join(join(data_dir, "pipelines").s, "cross_encoder").s, NULL, &p), TF_OK);
    expect_failure(tf_pipeline_fill_mask(p, "the [MASK]", 5, &m), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_fill_mask: the pipeline is a cross-encoder; use tf_pipeline_score");
    tf_pipeline_destroy(p);
}
END_TEST

/* A text longer than the model takes is refused whole, not cut. */
START_TEST(test_long_text_refused)
{
    tf_pipeline_options o = fill_mask_options();
    o.max_seq_length = 8;
    tf_pipeline *p;
    ck_assert_int_eq(tf_pipeline_load(folder("bert_base_uncased").s, &o, &p), TF_OK);
    tf_fill_mask *m;
    expect_failure(tf_pipeline_fill_mask(p, "the [MASK] sat on the mat and the dog", 5, &m),
                   TF_ERR_INVALID_ARGUMENT,
                   "text: more than 8 tokens (the pipeline's max_seq_length); fill-mask takes "
                   "the whole text");
    ck_assert_ptr_null(m);
    tf_pipeline_destroy(p);
}
END_TEST

/* A copy of bert_base_uncased whose config.json is text. */
static path_buf bert_with_config(const char *config)
{
    make_tmp_dir();
    static const char *const files[] = {"model.safetensors", "vocab.txt", "tokenizer_config.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char cmd[3000];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", join(folder("bert_base_uncased").s, files[i]).s,
                 tmp_dir);
        ck_assert_int_eq(system(cmd), 0);
    }
    write_text(join(tmp_dir, "config.json").s, config);
    return join(tmp_dir, "");
}

#define BERT_CONFIG(extra)                                                                      \
    "{\"model_type\": \"bert\", \"architectures\": [\"BertForMaskedLM\"], \"vocab_size\": 58, " \
    "\"hidden_size\": 16, \"num_attention_heads\": 2, \"intermediate_size\": 32, "              \
    "\"num_hidden_layers\": 2, \"max_position_embeddings\": 32, \"type_vocab_size\": 2, "       \
    "\"layer_norm_eps\": 1e-12, \"pad_token_id\": 0" extra "}"

START_TEST(test_bad_folders)
{
    const tf_pipeline_options o = fill_mask_options();
    tf_pipeline *p = NULL;
    /* tie_word_embeddings false without the decoder's own weight */
    path_buf dir = bert_with_config(BERT_CONFIG(", \"tie_word_embeddings\": false"));
    expect_failure(tf_pipeline_load(dir.s, &o, &p), TF_ERR_FORMAT,
                   "model.safetensors: missing tensor 'cls.predictions.decoder.weight' [58, 16]");
    ck_assert_ptr_null(p);
    remove_tmp_dir();
    /* an activation the head does not compute */
    dir = bert_with_config(BERT_CONFIG(", \"hidden_act\": \"gelu_new\""));
    expect_failure(tf_pipeline_load(dir.s, &o, &p), TF_ERR_UNSUPPORTED,
                   "config.json: hidden_act \"gelu_new\" is not supported for the masked-LM head "
                   "(gelu, gelu_python, relu, tanh, sigmoid and linear are)");
    ck_assert_ptr_null(p);
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("fill_mask");
    TCase *tc = tcase_create("fill_mask");
    tcase_add_loop_test(tc, test_head_logits, 0, N_MLM_FOLDERS);
    tcase_add_loop_test(tc, test_fill_mask_predictions, 0, N_MLM_FOLDERS);
    tcase_add_test(tc, test_whole_vocabulary);
    tcase_add_test(tc, test_bad_calls);
    tcase_add_test(tc, test_long_text_refused);
    tcase_add_test(tc, test_kind_option);
    tcase_add_test(tc, test_bad_folders);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
