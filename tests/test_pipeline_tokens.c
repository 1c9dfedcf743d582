/* test_pipeline_tokens.c — what a server asks of a pipeline before running
 * inputs (since 0.4.0): tf_pipeline_count_tokens against the token ids of
 * tests/data/gen_pipelines.py's references (expected.json), uncut and with
 * prompts; tf_pipeline_tokenizer, which cuts as the calls do; and
 * tf_pipeline_logits, whose sigmoid and softmax are tf_pipeline_score's and
 * _classify's results. Bad arguments name what is wrong. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/suite.h"
#include "tfenc.h"

#define TOL 1e-6

static const char *data_dir;

static tf_pipeline *load(const char *name)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/pipelines/%s", data_dir, name);
    tf_pipeline *p = NULL;
    ck_assert_int_eq(tf_pipeline_load(dir, NULL, &p), TF_OK);
    return p;
}

static cJSON *expected(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/pipelines/%s/expected.json", data_dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 20];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    return root;
}

static int32_t count(const tf_pipeline *p, const char *text, const char *pair, const char *prompt)
{
    int32_t n = -1;
    ck_assert_int_eq(tf_pipeline_count_tokens(p, text, pair, prompt, &n), TF_OK);
    return n;
}

START_TEST(test_counts_match_the_reference_ids)
{
    tf_pipeline *p = load("st_mean_norm");
    cJSON *e = expected("st_mean_norm");
    const cJSON *texts = cJSON_GetObjectItem(e, "texts");
    const int32_t limit = tf_pipeline_max_seq_length(p);
    ck_assert_int_eq(limit, 12);
    for (const char *key = "plain"; key; key = strcmp(key, "plain") ? NULL : "query") {
        const cJSON *ids = cJSON_GetObjectItem(cJSON_GetObjectItem(e, key), "ids");
        const char *prompt = strcmp(key, "plain") ? "query" : NULL;
        for (int i = 0; i < cJSON_GetArraySize(texts); i++) {
            const char *text = cJSON_GetArrayItem(texts, i)->valuestring;
            const int32_t want = cJSON_GetArraySize(cJSON_GetArrayItem(ids, i));
            const int32_t n = count(p, text, NULL, prompt);
            if (want < limit) /* not cut: the reference's own count */
                ck_assert_msg(n == want, "%s[%d]: %d tokens, the reference has %d", key, i, (int)n,
                              (int)want);
            else /* the reference cut it to the limit; the count is uncut */
                ck_assert_int_gt(n, limit);
        }
    }
    /* the long text: its 16 words (all in the vocabulary) and [CLS] [SEP] */
    ck_assert_int_eq(count(p, cJSON_GetArrayItem(texts, 4)->valuestring, NULL, ""), 18);
    ck_assert_int_eq(count(p, "hello world", NULL, "query"), 6); /* query : hello world */
    /* the tokenizer the calls use cuts to the limit */
    tf_encoding *enc;
    const char *text = cJSON_GetArrayItem(texts, 4)->valuestring;
    ck_assert_int_eq(
        tf_tokenizer_encode(tf_pipeline_tokenizer(p), text, strlen(text), NULL, 0, &enc), TF_OK);
    ck_assert_int_eq(tf_encoding_lengths(enc)[0], 12);
    tf_encoding_destroy(enc);
    cJSON_Delete(e);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_count_errors)
{
    tf_pipeline *p = load("st_mean_norm");
    int32_t n = 7;
    ck_assert_int_eq(tf_pipeline_count_tokens(p, "a", NULL, "nope", &n), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(),
                     "prompt_name \"nope\": the folder has no such prompt "
                     "(config_sentence_transformers.json has 2)");
    ck_assert_int_eq(tf_pipeline_count_tokens(p, "\xff", NULL, NULL, &n), TF_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(tf_pipeline_count_tokens(NULL, "a", NULL, NULL, &n), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "pipeline is NULL");
    ck_assert_int_eq(tf_pipeline_count_tokens(p, NULL, NULL, NULL, &n), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "text is NULL");
    ck_assert_int_eq(tf_pipeline_count_tokens(p, "a", NULL, NULL, NULL), TF_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(n, 7); /* untouched by every failure */
    ck_assert_ptr_null(tf_pipeline_tokenizer(NULL));
    tf_pipeline_destroy(p);
}
END_TEST

/* out [n, labels] of tf_pipeline_score (score 1) or _classify, and of _logits. */
static void head_outputs(const tf_pipeline *p, const char *const *texts, const char *const *pairs,
                         size_t n, int score, float *out, float *logits)
{
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = texts, a.pairs = pairs, a.out = out;
    a.out_len = n * (size_t)tf_pipeline_dim(p); /* the callers' out and logits hold as much */
    ck_assert_int_eq(score ? tf_pipeline_score(p, &a) : tf_pipeline_classify(p, &a), TF_OK);
    a.out = logits;
    ck_assert_int_eq(tf_pipeline_logits(p, &a), TF_OK);
}

START_TEST(test_logits_before_the_activation)
{
    tf_pipeline *ce = load("cross_encoder");
    const char *q[] = {"how many legs does a dog have?", "how many legs does a dog have?"};
    const char *docs[] = {"a dog has four legs.", "the sky is blue."};
    float scores[2], logits[2];
    head_outputs(ce, q, docs, 2, 1, scores, logits);
    for (int i = 0; i < 2; i++)
        ck_assert_double_eq_tol(1 / (1 + exp(-(double)logits[i])), scores[i], TOL);
    cJSON *e = expected("cross_encoder"); /* inputs [[query, passage]], ids */
    for (int i = 0; i < cJSON_GetArraySize(cJSON_GetObjectItem(e, "inputs")); i++) {
        const cJSON *pair = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "inputs"), i);
        ck_assert_int_eq(count(ce, cJSON_GetArrayItem(pair, 0)->valuestring,
                               cJSON_GetArrayItem(pair, 1)->valuestring, "ignored by heads"),
                         cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItem(e, "ids"), i)));
    }
    cJSON_Delete(e);
    tf_pipeline_destroy(ce);

    tf_pipeline *cl = load("classifier");
    const char *texts[] = {"i liked the movie.", "the movie was bad."};
    const int32_t labels = tf_pipeline_dim(cl);
    float probs[2 * 8], raw[2 * 8];
    ck_assert_int_le(labels, 8);
    head_outputs(cl, texts, NULL, 2, 0, probs, raw);
    for (int i = 0; i < 2; i++) {
        double z = 0;
        for (int k = 0; k < labels; k++)
            z += exp((double)raw[i * labels + k]);
        for (int k = 0; k < labels; k++)
            ck_assert_double_eq_tol(exp((double)raw[i * labels + k]) / z, probs[i * labels + k],
                                    TOL);
    }
    tf_pipeline *st = load("st_mean_norm");
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = texts, a.out = raw, a.out_len = sizeof raw / sizeof *raw;
    ck_assert_int_eq(tf_pipeline_logits(st, &a), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(),
                     "tf_pipeline_logits: the pipeline is an embedding; use tf_pipeline_embed");
    tf_pipeline_destroy(st);
    tf_pipeline_destroy(cl);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("pipeline_tokens");
    TCase *tc = tcase_create("pipeline_tokens");
    tcase_add_test(tc, test_counts_match_the_reference_ids);
    tcase_add_test(tc, test_count_errors);
    tcase_add_test(tc, test_logits_before_the_activation);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
