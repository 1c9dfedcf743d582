/* test_pipeline.c — model folders through tf_pipeline_*: sentence-
 * transformers pipelines (mean + Normalize with prompts, truncation and
 * Matryoshka dimensions; three pooling modes without the prompt and two
 * Dense), every pooling mode of tf_pool, BERT, RoBERTa and DistilBERT
 * cross-encoders and classifiers, each against the float64 references of
 * tests/data/gen_pipelines.py and gen_families.py (expected.json) within
 * 1e-5; a cross-encoder's activation as its config.json names it
 * (gen_ce_activation.py), an unknown one refused; messages naming an input
 * by its index in the caller's arrays whatever batch it ran in; the
 * inconsistencies of a folder, each refused by file and field; modules.json
 * paths that leave the folder refused, long ones named whole; and a folder
 * of symbolic links (a Hugging Face cache snapshot) loading, each link
 * whose target is missing named as such. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

#define TOL 1e-5

static const char *data_dir;

static path_buf folder(const char *name)
{
    return join(join(data_dir, "pipelines").s, name);
}

static cJSON *expected(const char *name)
{
    return read_json(join(folder(name).s, "expected.json").s);
}

/* got [rows, width] against the JSON list of rows want. */
static void expect_rows(const float *got, const cJSON *want, int width, const char *what)
{
    int r = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, want)
    {
        ck_assert_int_eq(cJSON_GetArraySize(row), width);
        for (int i = 0; i < width; i++) {
            const double w = cJSON_GetArrayItem(row, i)->valuedouble;
            const double e = fabs(got[r * width + i] - w);
            ck_assert_msg(e <= TOL, "%s [%d, %d]: got %.9g, want %.9g", what, r, i,
                          (double)got[r * width + i], w);
        }
        r++;
    }
}

/* The JSON list of strings as a C array (static, up to 8). */
static const char **strings(const cJSON *list, int column)
{
    static const char *out[2][8];
    int i = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, list)
    {
        const cJSON *s = cJSON_IsArray(item) ? cJSON_GetArrayItem(item, column) : item;
        out[column][i++] = cJSON_IsString(s) ? s->valuestring : NULL;
    }
    return out[column];
}

static tf_pipeline *load(const char *name)
{
    tf_pipeline *p;
    const tf_status s = tf_pipeline_load(folder(name).s, NULL, &p);
    ck_assert_msg(s == TF_OK, "%s: %s", name, tf_last_error());
    return p;
}

/* ---- sentence-transformers ------------------------------------------------------ */

START_TEST(test_mean_normalize_prompts_truncation)
{
    cJSON *exp = expected("st_mean_norm");
    tf_pipeline *p = load("st_mean_norm");
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_EMBEDDING);
    ck_assert_int_eq(tf_pipeline_dim(p), 16);
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 12);
    ck_assert_str_eq(tf_pipeline_similarity(p), "cosine");
    ck_assert_str_eq(tf_pipeline_pooling(p), "mean");
    ck_assert_ptr_null(tf_pipeline_pooling(NULL));
    ck_assert_uint_eq(tf_pipeline_prompt_count(p), 2);
    ck_assert_str_eq(tf_pipeline_prompt(p, "query"), "query: ");
    ck_assert_ptr_null(tf_pipeline_default_prompt_name(p));
    ck_assert_ptr_null(tf_pipeline_label(p, 0));
    const char **texts = strings(json_at(exp, "texts"), 0);
    float out[5 * 16];
    size_t truncated = 99;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 5, a.texts = texts, a.out = out, a.truncated = &truncated;
    a.out_len = sizeof out / sizeof *out;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(json_at(exp, "plain"), "embeddings"), 16, "plain");
    ck_assert_uint_eq(truncated, 1);
    a.prompt_name = "query", a.batch_size = 2; /* three batches */
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(json_at(exp, "query"), "embeddings"), 16, "query");
    ck_assert_uint_eq(truncated, 1);
    a.prompt_name = NULL, a.dimensions = 8;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(exp, "dims8"), 8, "dimensions 8");
    a.dimensions = 17;
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                   "args.dimensions 17: the model's vectors have 16 dimensions");
    a.dimensions = 0, a.prompt_name = "document";
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                   "args.prompt_name \"document\": the folder's prompts");
    expect_failure(tf_pipeline_score(p, &a), TF_ERR_INVALID_ARGUMENT, "args.pairs is NULL");
    tf_pipeline_destroy(p);

    /* truncation as an error, naming the input */
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.truncation_error = 1;
    ck_assert_int_eq(tf_pipeline_load(folder("st_mean_norm").s, &o, &p), TF_OK);
    a.prompt_name = NULL;
    memset(out, 0, sizeof out);
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                   "input 4 has more than 12 tokens (max_seq_length)");
    ck_assert_float_eq(out[0], 0.0f); /* nothing written */
    a.n = 4;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    tf_pipeline_destroy(p);
    cJSON_Delete(exp);
}
END_TEST

/* The ids are what the reference's WordPiece gave (folder's vocab.txt). */
START_TEST(test_token_ids_match_the_reference)
{
    cJSON *exp = expected("st_mean_norm");
    tf_tokenizer_options to;
    tf_tokenizer_options_init(&to);
    to.max_length = 12;
    tf_tokenizer *tok;
    ck_assert_int_eq(tf_tokenizer_load(join(folder("st_mean_norm").s, "vocab.txt").s, &to, &tok),
                     TF_OK);
    const char **texts = strings(json_at(exp, "texts"), 0);
    const cJSON *ids = json_at(json_at(exp, "plain"), "ids");
    for (int i = 0; i < 5; i++) {
        tf_encoding *e;
        ck_assert_int_eq(tf_tokenizer_encode(tok, texts[i], strlen(texts[i]), NULL, 0, &e), TF_OK);
        const cJSON *want = cJSON_GetArrayItem(ids, i);
        ck_assert_int_eq(tf_encoding_lengths(e)[0], cJSON_GetArraySize(want));
        for (int t = 0; t < cJSON_GetArraySize(want); t++)
            ck_assert_int_eq(tf_encoding_ids(e)[t], cJSON_GetArrayItem(want, t)->valueint);
        tf_encoding_destroy(e);
    }
    tf_tokenizer_destroy(tok);
    cJSON_Delete(exp);
}
END_TEST

/* tf_pool's six modes against Pooling.forward on the same hidden states. */
START_TEST(test_every_pooling_mode)
{
    cJSON *exp = expected("st_mean_norm");
    const cJSON *hidden = json_at(exp, "hidden");
    const int T = json_at(hidden, "T")->valueint, B = 5, D = 16;
    float *h = malloc(sizeof(float) * B * T * D), out[5 * 16];
    int32_t lengths[5];
    for (int i = 0; i < B * T * D; i++)
        h[i] = (float)cJSON_GetArrayItem(json_at(hidden, "values"), i)->valuedouble;
    for (int b = 0; b < B; b++)
        lengths[b] = cJSON_GetArrayItem(json_at(hidden, "lengths"), b)->valueint;
    for (int mode = TF_POOLING_CLS; mode <= TF_POOLING_LAST_TOKEN; mode++) {
        ck_assert_int_eq(tf_pool(h, lengths, B, T, D, mode, 0, out), TF_OK);
        expect_rows(out, json_at(json_at(exp, "modes"), tf_pooling_name(mode)), D,
                    tf_pooling_name(mode));
        ck_assert_int_eq(tf_pooling_from_name(tf_pooling_name(mode)), mode);
    }
    free(h);
    cJSON_Delete(exp);
}
END_TEST

START_TEST(test_dense_modules_and_default_prompt)
{
    cJSON *exp = expected("st_dense");
    tf_pipeline *p = load("st_dense");
    ck_assert_int_eq(tf_pipeline_dim(p), 6);
    ck_assert_str_eq(tf_pipeline_similarity(p), "dot");
    /* 1_Pooling: mean, max and lasttoken on, named in Pooling.py's order */
    ck_assert_str_eq(tf_pipeline_pooling(p), "max+mean+lasttoken");
    ck_assert_str_eq(tf_pipeline_default_prompt_name(p), "query");
    float out[4 * 6];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 4, a.texts = strings(json_at(exp, "texts"), 0), a.out = out;
    a.out_len = sizeof out / sizeof *out;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(exp, "default"), 6, "default prompt");
    a.prompt_name = "";
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(exp, "none"), 6, "no prompt");
    /* normalize 1: the same vectors at unit length */
    a.normalize = 1;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    double norm = 0;
    for (int i = 0; i < 6; i++)
        norm += (double)out[i] * out[i];
    ck_assert_double_eq_tol(norm, 1.0, 1e-6);
    tf_pipeline_destroy(p);
    cJSON_Delete(exp);
}
END_TEST

/* ---- Heads -------------------------------------------------------------------------- */

/* Head folders under tests/data: BERT's (gen_pipelines.py), RoBERTa's with
 * a byte-level BPE tokenizer.json, XLM-R's with a Unigram one, DistilBERT's
 * and ELECTRA's (gen_families.py). */
static const struct head_case {
    const char *dir; /* under TFENC_DATA_DIR */
    tf_pipeline_kind kind;
    int32_t labels;
    const char *last_label;
} head_cases[] = {
    {"pipelines/cross_encoder", TF_PIPELINE_CROSS_ENCODER, 1, "LABEL_0"},
    {"pipelines/classifier", TF_PIPELINE_CLASSIFIER, 3, "positive"},
    {"families/roberta_cross_encoder", TF_PIPELINE_CROSS_ENCODER, 1, "LABEL_0"},
    {"families/roberta_classifier", TF_PIPELINE_CLASSIFIER, 3, "positive"},
    {"families/distilbert_classifier", TF_PIPELINE_CLASSIFIER, 2, "positive"},
    {"families/xlmr_cross_encoder", TF_PIPELINE_CROSS_ENCODER, 1, "LABEL_0"},
    {"families/electra_classifier", TF_PIPELINE_CLASSIFIER, 2, "positive"},
    {"families/mpnet_classifier", TF_PIPELINE_CLASSIFIER, 3, "positive"},
    /* ModernBertForSequenceClassification: mean pooling, a bias-free head */
    {"families/modernbert_cross_encoder", TF_PIPELINE_CROSS_ENCODER, 1, "LABEL_0"},
    /* ... CLS pooling, tanh, the head's dense and LayerNorm with biases */
    {"families/modernbert_classifier", TF_PIPELINE_CLASSIFIER, 3, "positive"},
    /* pipelines/cross_encoder's weights, its config.json naming Identity
       (gen_ce_activation.py): the logits */
    {"ce_activation/identity", TF_PIPELINE_CROSS_ENCODER, 1, "LABEL_0"},
};

/* The folder's tokenizer gives expected.json's ids (pairs as pairs). */
static void expect_ids(const char *dir, const cJSON *exp, const char **texts, const char **pairs)
{
    tf_tokenizer *tok;
    ck_assert_int_eq(tf_tokenizer_load(dir, NULL, &tok), TF_OK);
    for (int i = 0; i < cJSON_GetArraySize(json_at(exp, "ids")); i++) {
        tf_encoding *e;
        const char *pair = pairs[i];
        ck_assert_int_eq(
            tf_tokenizer_encode(tok, texts[i], strlen(texts[i]), pair, pair ? strlen(pair) : 0, &e),
            TF_OK);
        const cJSON *want = cJSON_GetArrayItem(json_at(exp, "ids"), i);
        ck_assert_int_eq(tf_encoding_lengths(e)[0], cJSON_GetArraySize(want));
        for (int t = 0; t < cJSON_GetArraySize(want); t++)
            ck_assert_int_eq(tf_encoding_ids(e)[t], cJSON_GetArrayItem(want, t)->valueint);
        tf_encoding_destroy(e);
    }
    tf_tokenizer_destroy(tok);
}

/* As all-MiniLM-L6-v2: max_seq_length 256 below 512 positions; a text of
 * more than 256 tokens is cut to 256 and counted. */
START_TEST(test_minilm_max_seq_length_256)
{
    cJSON *exp = expected("st_minilm");
    tf_pipeline *p = load("st_minilm");
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 256);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetArrayItem(json_at(exp, "ids"), 1)), 256);
    float out[2 * 16];
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 2, a.texts = strings(json_at(exp, "texts"), 0), a.out = out, a.truncated = &truncated;
    a.out_len = sizeof out / sizeof *out;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    ck_assert_uint_eq(truncated, 1);
    expect_rows(out, json_at(exp, "embeddings"), 16, "st_minilm");
    tf_pipeline_destroy(p);
    cJSON_Delete(exp);
}
END_TEST

/* The sentence encoder of tests/data/families/<name> (width 8): the
 * tokenizer's ids and the vectors of expected.json, in batches of 4; the
 * pipeline is the caller's to destroy. */
static tf_pipeline *expect_sentence_encoder(const char *name, int max_seq_length)
{
    const path_buf dir = join(join(data_dir, "families").s, name);
    cJSON *exp = read_json(join(dir.s, "expected.json").s);
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(dir.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_dim(p), 8);
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), max_seq_length);
    const cJSON *texts = json_at(exp, "texts");
    const char **t = strings(texts, 0);
    const char *no_pairs[8] = {NULL};
    expect_ids(dir.s, exp, t, no_pairs);
    float out[8 * 8];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = (size_t)cJSON_GetArraySize(texts), a.texts = t, a.out = out, a.batch_size = 4;
    a.out_len = sizeof out / sizeof *out;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(exp, "embeddings"), 8, name);
    cJSON_Delete(exp);
    return p;
}

/* text with prompt `name` embeds (width 8) exactly as `written`, the
 * prompt's text before it, with no prompt. */
static void expect_prompt_as_written(const tf_pipeline *p, const char *name, const char *text,
                                     const char *written)
{
    float prompted[8], plain[8];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = &text, a.out = prompted, a.prompt_name = name;
    a.out_len = sizeof prompted / sizeof *prompted;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    a.texts = &written, a.out = plain, a.prompt_name = "";
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(prompted[i], plain[i]);
}

/* XLM-RoBERTa + mean pooling + Normalize (e5's prompts, max_seq_length 32)
 * with a SentencePiece Unigram tokenizer.json. */
START_TEST(test_xlmr_sentence_encoder)
{
    tf_pipeline *p = expect_sentence_encoder("xlmr_st", 32);
    ck_assert_str_eq(tf_pipeline_prompt(p, "query"), "query: ");
    tf_pipeline_destroy(p);
}
END_TEST

/* A folder laid out as nomic-embed-text-v1.5 (NomicBERT, mean pooling, a
 * WordPiece tokenizer.json); a prompt goes before each text as if written
 * there. */
START_TEST(test_nomic_sentence_encoder)
{
    tf_pipeline *p = expect_sentence_encoder("nomic_st", 64);
    ck_assert_uint_eq(tf_pipeline_prompt_count(p), 4);
    ck_assert_str_eq(tf_pipeline_prompt(p, "query"), "search_query: ");
    ck_assert_str_eq(tf_pipeline_prompt(p, "document"), "search_document: ");
    ck_assert_ptr_null(tf_pipeline_default_prompt_name(p));
    expect_prompt_as_written(p, "query", "what is a cat?", "search_query: what is a cat?");
    tf_pipeline_destroy(p);
}
END_TEST

/* nomic-embed-text-v1.5's Matryoshka recipe (dimensions_layer_norm) on the
 * nomic_st folder against expected_matryoshka.json (gen_families.py
 * matryoshka, float64): layer norm, the first 4, unit norm; and uncut (0: all
 * 8, layer-normed and normalised). Without the flag the cut is another
 * vector; a flag other than 0 or 1 is refused before anything is written. */
START_TEST(test_nomic_matryoshka_layer_norm)
{
    const path_buf dir = join(join(data_dir, "families").s, "nomic_st");
    cJSON *exp = read_json(join(dir.s, "expected.json").s);
    cJSON *mat = read_json(join(dir.s, "expected_matryoshka.json").s);
    ck_assert_int_eq(json_at(mat, "dimensions")->valueint, 4);
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(dir.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    const cJSON *texts = json_at(exp, "texts");
    const int n = cJSON_GetArraySize(texts);
    float out[8 * 8], plain[8 * 4];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = (size_t)n, a.texts = strings(texts, 0), a.out = out, a.batch_size = 4;
    a.out_len = sizeof out / sizeof *out;
    a.dimensions = 4, a.dimensions_layer_norm = 1;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(mat, "embeddings"), 4, "matryoshka 4");
    a.dimensions = 0;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    expect_rows(out, json_at(mat, "uncut"), 8, "matryoshka uncut");
    a.dimensions = 4, a.dimensions_layer_norm = 0;
    a.out = plain, a.out_len = sizeof plain / sizeof *plain;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    double differ = 0.0; /* the plain cut against nomic's */
    for (int i = 0; i < n * 4; i++) {
        const double want = cJSON_GetArrayItem(
                                cJSON_GetArrayItem(json_at(mat, "embeddings"), i / 4), i % 4)
                                ->valuedouble;
        differ = fmax(differ, fabs(plain[i] - want));
    }
    ck_assert_msg(differ > 1e-3, "the plain cut equals nomic's recipe (%g)", differ);
    memset(out, 0, sizeof out);
    a.out = out, a.dimensions_layer_norm = 2;
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                   "args.dimensions_layer_norm: expected 0 (the plain cut) or 1 (nomic's layer "
                   "norm before it), got 2");
    a.dimensions_layer_norm = -1;
    expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT, "got -1");
    for (int i = 0; i < 8 * 8; i++)
        ck_assert_float_eq(out[i], 0.0f); /* nothing written */
    tf_pipeline_destroy(p);
    cJSON_Delete(mat);
    cJSON_Delete(exp);
}
END_TEST

/* A folder laid out as gte-base-en-v1.5 (GTE "new", CLS pooling, rope_scaling
 * ntk). */
START_TEST(test_gte_sentence_encoder)
{
    tf_pipeline_destroy(expect_sentence_encoder("gte_st", 64));
}
END_TEST

/* A folder laid out as jina-embeddings-v2-base-en (JinaBERT v2: ALiBi, GeGLU,
 * mean pooling). */
START_TEST(test_jina_sentence_encoder)
{
    tf_pipeline_destroy(expect_sentence_encoder("jina_st", 64));
}
END_TEST

/* A folder laid out as jina-embeddings-v2-base-code (JinaBERT v2's code
 * variant: norms on Q and K, layer_norm_1; mean pooling). */
START_TEST(test_jina_code_sentence_encoder)
{
    tf_pipeline_destroy(expect_sentence_encoder("jina_code_st", 64));
}
END_TEST

/* A folder laid out as modernbert-embed-base (a ModernBertModel without
 * "model.", mean pooling, Normalize, search_query: / search_document:
 * prompts, a byte-level BPE tokenizer.json with [CLS] and [SEP]); a prompt
 * goes before each text as if written there. */
START_TEST(test_encoder_piecesbert_sentence_encoder)
{
    tf_pipeline *p = expect_sentence_encoder("modernbert_st", 64);
    ck_assert_uint_eq(tf_pipeline_prompt_count(p), 2);
    ck_assert_str_eq(tf_pipeline_prompt(p, "query"), "search_query: ");
    ck_assert_str_eq(tf_pipeline_prompt(p, "document"), "search_document: ");
    ck_assert_ptr_null(tf_pipeline_default_prompt_name(p));
    expect_prompt_as_written(p, "document", "a cat sat", "search_document: a cat sat");
    tf_pipeline_destroy(p);
}
END_TEST

/* A folder laid out as all-mpnet-base-v2 (MPNetModel, mean pooling,
 * Normalize, max_seq_length 384 of 514 positions, a WordPiece
 * tokenizer.json with <s> and </s>): the ids (the tokenizer alone does not
 * cut: all but the last text's), the last text's 422 ids cut to 384 and
 * counted, the vectors. */
START_TEST(test_mpnet_sentence_encoder)
{
    const path_buf dir = join(data_dir, "families/mpnet_st");
    cJSON *exp = read_json(join(dir.s, "expected.json").s);
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(dir.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_dim(p), 16);
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 384);
    const cJSON *texts = json_at(exp, "texts");
    const int n = cJSON_GetArraySize(texts);
    ck_assert_int_le(n, 8);
    const char **t = strings(texts, 0);
    const char *no_pairs[8] = {NULL};
    cJSON *ids = cJSON_GetObjectItemCaseSensitive(exp, "ids");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetArrayItem(ids, n - 1)), 384);
    cJSON_DeleteItemFromArray(ids, n - 1);
    expect_ids(dir.s, exp, t, no_pairs);
    float out[8 * 16];
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = (size_t)n, a.texts = t, a.out = out, a.batch_size = 3, a.truncated = &truncated;
    a.out_len = sizeof out / sizeof *out;
    ck_assert_msg(tf_pipeline_embed(p, &a) == TF_OK, "%s", tf_last_error());
    ck_assert_uint_eq(truncated, 1);
    expect_rows(out, json_at(exp, "embeddings"), 16, "mpnet_st");
    tf_pipeline_destroy(p);
    cJSON_Delete(exp);
}
END_TEST

/* The entities of each text of a token classifier's expected.json, by each
 * aggregation, as transformers' TokenClassificationPipeline gives them (the
 * word too); the pipeline, kept for the caller. */
static tf_pipeline *expect_entities(const char *folder)
{
    const path_buf dir = join(data_dir, folder);
    cJSON *exp = read_json(join(dir.s, "expected.json").s);
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(dir.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_TOKEN_CLASSIFIER);
    ck_assert_int_eq(tf_pipeline_dim(p), 5);
    const cJSON *item;
    cJSON_ArrayForEach(item, json_at(exp, "texts"))
    {
        const char *text = json_at(item, "text")->valuestring;
        for (int agg = TF_AGGREGATION_NONE; agg <= TF_AGGREGATION_MAX; agg++) {
            const cJSON *want = json_at(item, tf_aggregation_name(agg));
            tf_entities *e;
            ck_assert_int_eq(tf_pipeline_entities(p, text, agg, &e), TF_OK);
            ck_assert_uint_eq(tf_entities_count(e), (size_t)cJSON_GetArraySize(want));
            for (size_t i = 0; i < tf_entities_count(e); i++) {
                const cJSON *w = cJSON_GetArrayItem(want, (int)i);
                ck_assert_str_eq(tf_entities_label(e, i),
                                 json_at(w, agg ? "entity_group" : "entity")->valuestring);
                ck_assert_str_eq(tf_entities_word(e, i), json_at(w, "word")->valuestring);
                ck_assert_double_eq_tol(tf_entities_score(e, i), json_at(w, "score")->valuedouble,
                                        TOL);
                ck_assert_int_eq(tf_entities_start(e, i), json_at(w, "start")->valueint);
                ck_assert_int_eq(tf_entities_end(e, i), json_at(w, "end")->valueint);
                ck_assert_int_eq(tf_entities_index(e, i), agg ? -1 : json_at(w, "index")->valueint);
            }
            ck_assert_ptr_null(tf_entities_label(e, tf_entities_count(e)));
            ck_assert_ptr_null(tf_entities_word(e, tf_entities_count(e)));
            tf_entities_destroy(e);
        }
    }
    cJSON_Delete(exp);
    return p;
}

/* A BertForTokenClassification folder (WordPiece: "##" subwords); a call
 * of another aggregation or kind refused. */
START_TEST(test_token_classifier)
{
    tf_pipeline *p = expect_entities("families/bert_token_classifier");
    tf_entities *e = (tf_entities *)&e;
    expect_failure(tf_pipeline_entities(p, "hello", 5, &e), TF_ERR_INVALID_ARGUMENT,
                   "aggregation: expected 0 (none) to 4 (max), got 5");
    ck_assert_ptr_null(e);
    expect_failure(tf_pipeline_entities(p, "hello", -1, &e), TF_ERR_INVALID_ARGUMENT,
                   "aggregation: expected 0 (none) to 4 (max), got -1");
    ck_assert_ptr_null(e);
    float out[5];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    const char *texts[] = {"hello"};
    a.n = 1, a.texts = texts, a.out = out, a.out_len = sizeof out / sizeof *out;
    expect_failure(
        tf_pipeline_classify(p, &a), TF_ERR_INVALID_ARGUMENT,
        "tf_pipeline_classify: the pipeline is a token-classifier; use tf_pipeline_entities");
    expect_failure(
        tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
        "tf_pipeline_embed: the pipeline is a token-classifier; use tf_pipeline_entities");
    tf_pipeline_destroy(p);
    ck_assert_int_eq(tf_pipeline_load(join(data_dir, "pipelines/classifier").s, NULL, &p), TF_OK);
    expect_failure(tf_pipeline_entities(p, "hello", 0, &e), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_entities: the pipeline is a classifier; use tf_pipeline_classify");
    tf_pipeline_destroy(p);
    ck_assert_str_eq(tf_aggregation_name(TF_AGGREGATION_AVERAGE), "average");
    ck_assert_ptr_null(tf_aggregation_name(TF_AGGREGATION_MAX + 1));
}
END_TEST

/* A RobertaForTokenClassification folder: byte-level BPE, whose words are
 * found by the offsets (no space before a token: a subword) and decoded by
 * the ByteLevel decoder ("Ġ" a space). */
START_TEST(test_roberta_token_classifier)
{
    tf_pipeline_destroy(expect_entities("families/roberta_token_classifier"));
}
END_TEST

/* Scores or probabilities within 1e-5, in batches of 3 (a last one short). */
START_TEST(test_head)
{
    const struct head_case *c = &head_cases[_i];
    const path_buf dir = join(data_dir, c->dir);
    cJSON *exp = read_json(join(dir.s, "expected.json").s);
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(dir.s, NULL, &p) == TF_OK, "%s: %s", c->dir, tf_last_error());
    ck_assert_int_eq(tf_pipeline_kind_of(p), c->kind);
    ck_assert_int_eq(tf_pipeline_dim(p), c->labels);
    ck_assert_str_eq(tf_pipeline_label(p, c->labels - 1), c->last_label);
    ck_assert_ptr_null(tf_pipeline_label(p, c->labels));
    ck_assert_ptr_null(tf_pipeline_pooling(p)); /* a head pools as its architecture says */
    const cJSON *inputs = json_at(exp, "inputs");
    const int n = cJSON_GetArraySize(inputs);
    const char **texts = strings(inputs, 0), **pairs = strings(inputs, 1);
    expect_ids(dir.s, exp, texts, pairs);
    float out[8 * 3];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = (size_t)n, a.texts = texts, a.pairs = pairs[0] ? pairs : NULL, a.out = out;
    a.out_len = sizeof out / sizeof *out;
    a.batch_size = 3;
    if (c->kind == TF_PIPELINE_CROSS_ENCODER) {
        ck_assert_int_eq(tf_pipeline_score(p, &a), TF_OK);
        expect_failure(tf_pipeline_embed(p, &a), TF_ERR_INVALID_ARGUMENT,
                       "the pipeline is a cross-encoder; use tf_pipeline_score");
    } else {
        ck_assert_int_eq(tf_pipeline_classify(p, &a), TF_OK);
    }
    expect_rows(out, json_at(exp, "out"), c->labels, c->dir);
    tf_pipeline_destroy(p);
    cJSON_Delete(exp);
}
END_TEST

/* ---- Inconsistent folders -------------------------------------------------------------- */

/* tmp_dir as the folder `base` with its model, vocabulary and config linked
 * in (config.json written instead when config is not NULL). */
static void prepare(const char *base, const char *config)
{
    const char *files[] = {"model.safetensors", "vocab.txt", "config.json"};
    for (int i = 0; i < 3; i++) {
        unlink(join(tmp_dir, files[i]).s);
        if (i < 2 || !config)
            ck_assert_int_eq(symlink(join(folder(base).s, files[i]).s, join(tmp_dir, files[i]).s),
                             0);
    }
    if (config)
        write_text(join(tmp_dir, "config.json").s, config);
}

static void expect_load_failure(tf_status status, const char *text)
{
    tf_pipeline *p = (tf_pipeline *)&p;
    expect_failure(tf_pipeline_load(tmp_dir, NULL, &p), status, text);
    ck_assert_ptr_null(p);
}

#define MODULES_2                                                                            \
    "[{\"idx\": 0, \"path\": \"\", \"type\": \"sentence_transformers.models.Transformer\"}," \
    " {\"idx\": 1, \"path\": \"1_Pooling\", \"type\": \"sentence_transformers.models.Pooling\"}"

START_TEST(test_inconsistent_folders)
{
    make_tmp_dir();
    prepare("st_mean_norm", NULL);
    write_text(join(tmp_dir, "modules.json").s, MODULES_2 "]");
    expect_load_failure(TF_ERR_FORMAT,
                        "modules.json: module 1 (sentence_transformers.models."
                        "Pooling): path \"1_Pooling\" is not a folder of");

    mkdir(join(tmp_dir, "1_Pooling").s, 0700);
    write_text(join(tmp_dir, "1_Pooling/config.json").s,
               "{\"word_embedding_dimension\": 16, \"pooling_mode_median_tokens\": true}");
    expect_load_failure(TF_ERR_UNSUPPORTED,
                        "1_Pooling/config.json: unknown pooling mode pooling_mode_median_tokens");
    write_text(join(tmp_dir, "1_Pooling/config.json").s,
               "{\"word_embedding_dimension\": 32, \"pooling_mode_mean_tokens\": true}");
    expect_load_failure(TF_ERR_SHAPE,
                        "1_Pooling/config.json: word_embedding_dimension 32 "
                        "disagrees with the model's hidden_size 16");
    write_text(join(tmp_dir, "1_Pooling/config.json").s,
               "{\"word_embedding_dimension\": 16, \"pooling_mode_mean_tokens\": true}");

    write_text(join(tmp_dir, "modules.json").s,
               MODULES_2 ", {\"idx\": 2, \"path\": \"2_Dense\", "
                         "\"type\": \"sentence_transformers.models.Dense\"}]");
    mkdir(join(tmp_dir, "2_Dense").s, 0700);
    write_text(join(tmp_dir, "2_Dense/config.json").s,
               "{\"in_features\": 32, \"out_features\": 8}");
    expect_load_failure(TF_ERR_SHAPE,
                        "2_Dense/config.json: in_features 32 disagrees with the 16 "
                        "values the modules before it give (1_Pooling/config.json: 1 modes of 16)");
    write_text(join(tmp_dir, "2_Dense/config.json").s,
               "{\"in_features\": 16, \"out_features\": 8, \"activation_function\": "
               "\"torch.nn.modules.activation.Tanh\"}");
    expect_load_failure(TF_ERR_IO, "2_Dense/model.safetensors");

    write_text(join(tmp_dir, "modules.json").s,
               MODULES_2 ", {\"idx\": 2, \"path\": \"2_LN\", "
                         "\"type\": \"sentence_transformers.models.LayerNorm\"}]");
    expect_load_failure(TF_ERR_UNSUPPORTED,
                        "modules.json: module 2: type "
                        "sentence_transformers.models.LayerNorm is not supported");
    write_text(join(tmp_dir, "modules.json").s, MODULES_2 "]");
    write_text(join(tmp_dir, "config_sentence_transformers.json").s,
               "{\"prompts\": {\"query\": \"query: \"}, \"default_prompt_name\": \"doc\"}");
    expect_load_failure(TF_ERR_FORMAT,
                        "config_sentence_transformers.json: default_prompt_name "
                        "\"doc\" is not one of its 1 prompts");
    unlink(join(tmp_dir, "config_sentence_transformers.json").s);
    unlink(join(tmp_dir, "modules.json").s);

    /* id2label against the classifier's rows */
    prepare("classifier",
            "{\"model_type\": \"bert\", \"num_attention_heads\": 2, "
            "\"architectures\": [\"BertForSequenceClassification\"], "
            "\"id2label\": {\"0\": \"no\", \"1\": \"yes\"}}");
    expect_load_failure(TF_ERR_SHAPE,
                        "model.safetensors: classifier.weight: expected [2, 16] (2 "
                        "labels in config.json id2label, hidden_size 16), got [3, 16]");

    /* the head's fields of the wrong type, null included where transformers has no None */
    static const struct {
        const char *config, *message;
    } head_fields[] = {
        {"\"sentence_transformers\": 5",
         "config.json: sentence_transformers must be an object, "
         "got 5"},
        {"\"num_labels\": \"3\"",
         "config.json: num_labels must be an integer in 1..65536, got "
         "\"3\""},
        {"\"num_labels\": null",
         "config.json: num_labels must be an integer in 1..65536, got "
         "null"},
        {"\"id2label\": [\"a\"]",
         "config.json: id2label must be an object of id -> name, got "
         "[\"a\"]"},
    };
    for (size_t i = 0; i < sizeof head_fields / sizeof head_fields[0]; i++) {
        char config[256];
        snprintf(config, sizeof config,
                 "{\"model_type\": \"bert\", \"num_attention_heads\": 2, "
                 "\"architectures\": [\"BertForSequenceClassification\"], %s}",
                 head_fields[i].config);
        prepare("classifier", config);
        expect_load_failure(TF_ERR_FORMAT, head_fields[i].message);
    }

    /* architectures this library does not have */
    prepare("classifier",
            "{\"model_type\": \"gpt2\", \"num_attention_heads\": 2, "
            "\"architectures\": [\"GPT2ForSequenceClassification\"]}");
    expect_load_failure(TF_ERR_UNSUPPORTED,
                        "config.json: model_type \"gpt2\" (architectures "
                        "GPT2ForSequenceClassification) is not supported; supported: "
                        "model_type \"bert\" with architectures Bert*");
    prepare("classifier",
            "{\"model_type\": \"bert\", \"num_attention_heads\": 2, "
            "\"architectures\": [\"BertModel\", \"T5EncoderModel\"]}");
    expect_load_failure(TF_ERR_UNSUPPORTED,
                        "config.json: model_type \"bert\" (architectures "
                        "BertModel, T5EncoderModel) is not supported; supported: ");
    prepare("classifier",
            "{\"model_type\": \"bert\", \"num_attention_heads\": 2, "
            "\"auto_map\": {\"AutoModel\": \"x--modeling.JinaBert\"}}");
    expect_load_failure(TF_ERR_UNSUPPORTED,
                        "config.json: auto_map AutoModel "
                        "\"x--modeling.JinaBert\" points at remote code (architectures none) "
                        "that this library does not follow");

    /* ModernBERT's token head (head.dense, head.norm on every token) is not
       read: refused, not computed from the classifier alone */
    prepare("../families/modernbert",
            "{\"model_type\": \"modernbert\", \"hidden_size\": 16, "
            "\"intermediate_size\": 32, \"num_hidden_layers\": 4, \"num_attention_heads\": 2, "
            "\"vocab_size\": 60, \"max_position_embeddings\": 64, \"local_attention\": 4, "
            "\"architectures\": [\"ModernBertForTokenClassification\"]}");
    expect_load_failure(TF_ERR_UNSUPPORTED,
                        "config.json: a *ForTokenClassification of format "
                        "huggingface-modernbert is not supported");
    remove_tmp_dir();
}
END_TEST

/* The ModernBERT head folder `name` (tests/data/families) with config.json's
 * head and label keys as `keys` (modernbert_classifier's: classifier_pooling
 * "cls", classifier_activation "tanh", classifier_bias and norm_bias true, 3
 * labels; modernbert_cross_encoder's: "mean", "gelu", no biases, 1 label). */
static void prepare_modernbert_head(const char *name, const char *keys)
{
    char config[1024];
    snprintf(config, sizeof config,
             "{\"model_type\": \"modernbert\", \"vocab_size\": 3747, "
             "\"hidden_size\": 8, \"intermediate_size\": 16, \"num_hidden_layers\": 4, "
             "\"num_attention_heads\": 2, \"max_position_embeddings\": 64, "
             "\"global_rope_theta\": 1000.0, \"local_rope_theta\": 50.0, "
             "\"local_attention\": 4, \"pad_token_id\": 3745, "
             "\"architectures\": [\"ModernBertForSequenceClassification\"], %s}",
             keys);
    prepare(join("../families", name).s, config);
}

/* ModernBertForSequenceClassification's head keys: values it does not have
 * are refused naming the key and the value; tensors the keys ask for must be
 * there, with their shapes. */
START_TEST(test_encoder_piecesbert_head_config)
{
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } cases[] = {
        {"\"norm_bias\": true, \"classifier_bias\": true, \"classifier_pooling\": \"max\"",
         TF_ERR_UNSUPPORTED,
         "config.json: classifier_pooling \"max\" is not supported "
         "(\"cls\" and \"mean\" are, as ModernBertForSequenceClassification's)"},
        {"\"norm_bias\": true, \"classifier_bias\": true, \"classifier_activation\": \"swish\"",
         TF_ERR_UNSUPPORTED,
         "config.json: classifier_activation \"swish\" is not supported "
         "(gelu, gelu_python, relu, tanh, sigmoid and linear are)"},
        {"\"norm_bias\": true, \"classifier_bias\": true, \"classifier_pooling\": 1", TF_ERR_FORMAT,
         "config.json: classifier_pooling must be a string, got 1"},
        {"\"norm_bias\": true, \"classifier_bias\": \"yes\"", TF_ERR_FORMAT,
         "config.json: classifier_bias must be true or false, got \"yes\""},
    };
    make_tmp_dir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        prepare_modernbert_head("modernbert_classifier", cases[i].keys);
        expect_load_failure(cases[i].status, cases[i].message);
    }
    /* the head's tensors by their names and shapes */
    prepare_modernbert_head("modernbert_cross_encoder", "\"classifier_bias\": true");
    expect_load_failure(TF_ERR_FORMAT,
                        "model.safetensors: missing tensor 'head.dense.bias' [8] "
                        "(hidden_size 8)");
    prepare_modernbert_head("modernbert_classifier",
                            "\"norm_bias\": true, "
                            "\"classifier_bias\": true, \"num_labels\": 2");
    expect_load_failure(TF_ERR_SHAPE,
                        "model.safetensors: classifier.weight: expected [2, 8] (2 "
                        "labels in config.json id2label, hidden_size 8), got [3, 8]");
    remove_tmp_dir();
}
END_TEST

/* ---- A cross-encoder's activation ----------------------------------------------------- */

/* tmp_dir as prepare() makes it, config.json the folder's with the keys of
 * the JSON object `keys` set over it (a null one removed). */
static void prepare_keys(const char *base, const char *keys)
{
    cJSON *config = read_json(join(folder(base).s, "config.json").s), *more = cJSON_Parse(keys);
    ck_assert_msg(more != NULL, "not JSON: %s", keys);
    while (more->child) {
        cJSON *key = cJSON_DetachItemViaPointer(more, more->child);
        cJSON_DeleteItemFromObjectCaseSensitive(config, key->string);
        if (cJSON_IsNull(key))
            cJSON_Delete(key);
        else
            cJSON_AddItemToObject(config, key->string, key);
    }
    char *text = cJSON_Print(config);
    prepare(base, text);
    free(text);
    cJSON_Delete(more);
    cJSON_Delete(config);
}

#define ST_ACTIVATION(name) "{\"sentence_transformers\": {\"activation_fn\": \"" name "\"}"
#define LEGACY_ACTIVATION "\"sbert_ce_default_activation_function\": "

/* tf_pipeline_score as CrossEncoder.predict's activation_fn: the class
 * config.json names (sentence_transformers.activation_fn, else
 * sbert_ce_default_activation_function), else Sigmoid for one label and
 * Identity for more; on pipelines/cross_encoder's weights (one label) and
 * pipelines/classifier's (three), against gen_ce_activation.py's float64
 * torch.nn modules on its float64 logits. */
static const struct activation_case {
    const char *base; /* under pipelines/: cross_encoder (1 label) or classifier (3) */
    const char *keys; /* config.json's keys set (prepare_keys) */
    const char *want; /* the torch.nn class of expected.json's activations */
} activation_cases[] = {
    {"cross_encoder", ST_ACTIVATION("torch.nn.modules.activation.Tanh") "}", "activation.Tanh"},
    {"cross_encoder", ST_ACTIVATION("torch.nn.Tanh") "}", "activation.Tanh"},
    {"cross_encoder", ST_ACTIVATION("torch.nn.modules.Identity") "}", "linear.Identity"},
    {"cross_encoder", "{\"sentence_transformers\": {}}", "activation.Sigmoid"},
    {"cross_encoder",
     "{\"sentence_transformers\": {}, " LEGACY_ACTIVATION "\"torch.nn.modules.linear.Identity\"}",
     "linear.Identity"},
    /* the key said, null: upstream's default, the older key unread */
    {"cross_encoder",
     "{\"sentence_transformers\": {\"activation_fn\": null}, " LEGACY_ACTIVATION
     "\"torch.nn.modules.linear.Identity\"}",
     "activation.Sigmoid"},
    {"cross_encoder", ST_ACTIVATION("torch.nn.modules.activation.Softmax") "}",
     "activation.Softmax"},
    {"classifier", "{}", "linear.Identity"},
    {"classifier", "{" LEGACY_ACTIVATION "\"torch.nn.modules.activation.Softmax\"}",
     "activation.Softmax"},
    {"classifier", ST_ACTIVATION("torch.nn.modules.activation.ReLU") "}", "activation.ReLU"},
    {"classifier", ST_ACTIVATION("torch.nn.Sigmoid") "}", "activation.Sigmoid"},
    {"classifier", ST_ACTIVATION("torch.nn.modules.activation.Tanh") "}", "activation.Tanh"},
};

START_TEST(test_cross_encoder_activation)
{
    const struct activation_case *c = &activation_cases[_i];
    cJSON *exp = read_json(join(join(data_dir, "ce_activation/identity").s, "expected.json").s);
    const int labels = strcmp(c->base, "classifier") == 0 ? 3 : 1;
    const cJSON *sets = labels == 3 ? json_at(exp, "classifier") : exp;
    char name[96];
    snprintf(name, sizeof name, "torch.nn.modules.%s", c->want);
    const cJSON *want = json_at(json_at(sets, "activations"), name);
    make_tmp_dir();
    prepare_keys(c->base, c->keys);
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(tmp_dir, NULL, &p) == TF_OK, "%s: %s", c->keys, tf_last_error());
    const cJSON *inputs = json_at(exp, "inputs");
    float out[4 * 3];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 4, a.texts = strings(inputs, 0), a.pairs = strings(inputs, 1), a.out = out;
    a.out_len = 4 * (size_t)labels, a.batch_size = 3;
    ck_assert_msg(tf_pipeline_score(p, &a) == TF_OK, "%s", tf_last_error());
    expect_rows(out, want, labels, c->keys);
    ck_assert_int_eq(tf_pipeline_logits(p, &a), TF_OK); /* the logits, whatever the config says */
    expect_rows(out, json_at(json_at(sets, "activations"), "torch.nn.modules.linear.Identity"),
                labels, "logits");
    tf_pipeline_destroy(p);
    remove_tmp_dir();
    cJSON_Delete(exp);
}
END_TEST

/* An activation the head does not compute is refused at load, naming the
 * field and the value: another torch.nn class, a path outside torch (Python
 * code, which upstream runs only with trust_remote_code), a value not a
 * string. */
START_TEST(test_cross_encoder_activation_refused)
{
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } refused[] = {
        {ST_ACTIVATION("torch.nn.modules.activation.GELU") "}", TF_ERR_UNSUPPORTED,
         "config.json: sentence_transformers.activation_fn \"torch.nn.modules.activation.GELU\" "
         "is not supported; supported: torch.nn's Sigmoid, Identity, Tanh, ReLU, Softmax"},
        {"{\"sentence_transformers\": {}, " LEGACY_ACTIVATION "\"my_module.Scaled\"}",
         TF_ERR_UNSUPPORTED,
         "config.json: sbert_ce_default_activation_function "
         "\"my_module.Scaled\" is not supported; supported: torch.nn's Sigmoid, Identity, Tanh"},
        {ST_ACTIVATION("torch.nn.Sigmoidal") "}", TF_ERR_UNSUPPORTED,
         "sentence_transformers.activation_fn \"torch.nn.Sigmoidal\" is not supported"},
        {"{\"sentence_transformers\": {\"activation_fn\": 5}}", TF_ERR_FORMAT,
         "config.json: sentence_transformers.activation_fn must be a string (a torch.nn "
         "class's path), got 5"},
        {"{\"sentence_transformers\": {}, " LEGACY_ACTIVATION "[\"torch.nn.Tanh\"]}", TF_ERR_FORMAT,
         "config.json: sbert_ce_default_activation_function must be a string (a torch.nn "
         "class's path), got [\"torch.nn.Tanh\"]"},
    };
    make_tmp_dir();
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        prepare_keys("cross_encoder", refused[i].keys);
        expect_load_failure(refused[i].status, refused[i].message);
    }
    remove_tmp_dir();
}
END_TEST

/* ---- Messages name the caller's index ------------------------------------------------- */

/* A call runs its inputs in batches of batch_size; what it says of one
 * (the tokenizer's "text i" or "pair i", its own "input i") counts from
 * the first of args.texts, not of the batch. */
START_TEST(test_messages_name_the_callers_index)
{
    tf_pipeline *ce = load("cross_encoder"), *cl = load("classifier"), *st = load("st_mean_norm");
    const char *texts[5] = {"a dog", "a cat", "the sky", "the mat", "red"};
    const char *pairs[5] = {"four legs", "sat", "is blue", "a cat sat", "green"};
    float out[5 * 16];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 5, a.texts = texts, a.pairs = pairs, a.out = out, a.out_len = 5 * 16;
    a.batch_size = 2; /* inputs 3 and 4 in the second and third batch */
    pairs[3] = "bad \xff";
    expect_failure(tf_pipeline_score(ce, &a), TF_ERR_INVALID_ARGUMENT,
                   "pair 3: invalid UTF-8 at byte 4 (0xff)");
    pairs[3] = "a cat sat", texts[4] = "\xc3 bad";
    expect_failure(tf_pipeline_score(ce, &a), TF_ERR_INVALID_ARGUMENT,
                   "text 4: invalid UTF-8 at byte 0");
    expect_failure(tf_pipeline_logits(ce, &a), TF_ERR_INVALID_ARGUMENT, "text 4: invalid UTF-8");
    expect_failure(tf_pipeline_classify(cl, &a), TF_ERR_INVALID_ARGUMENT, "text 4: invalid UTF-8");
    a.pairs = NULL;
    expect_failure(tf_pipeline_embed(st, &a), TF_ERR_INVALID_ARGUMENT, "text 4: invalid UTF-8");
    a.prompt_name = "query";
    expect_failure(tf_pipeline_embed(st, &a), TF_ERR_INVALID_ARGUMENT, "text 4: invalid UTF-8");
    tf_pipeline_destroy(st);

    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.truncation_error = 1;
    ck_assert_int_eq(tf_pipeline_load(folder("st_mean_norm").s, &o, &st), TF_OK);
    texts[4] = "red", texts[3] = "the quick brown fox jumps over the lazy dog and the cat sat";
    a.prompt_name = NULL;
    expect_failure(tf_pipeline_embed(st, &a), TF_ERR_INVALID_ARGUMENT,
                   "input 3 has more than 12 tokens (max_seq_length)");
    /* a caller running a job as several calls: first_index is where this call starts */
    a.first_index = 64;
    expect_failure(tf_pipeline_embed(st, &a), TF_ERR_INVALID_ARGUMENT,
                   "input 67 has more than 12 tokens (max_seq_length)");
    texts[3] = "\xff";
    expect_failure(tf_pipeline_embed(st, &a), TF_ERR_INVALID_ARGUMENT,
                   "text 67: invalid UTF-8 at byte 0");
    a.pairs = pairs;
    expect_failure(tf_pipeline_score(ce, &a), TF_ERR_INVALID_ARGUMENT,
                   "text 67: invalid UTF-8 at byte 0");
    tf_pipeline_destroy(st);
    tf_pipeline_destroy(cl);
    tf_pipeline_destroy(ce);
}
END_TEST

/* ---- Module paths ----------------------------------------------------------------------- */

#define POOLING_16 "{\"word_embedding_dimension\": 16, \"pooling_mode_mean_tokens\": true}"

/* modules.json of st_mean_norm's Transformer and a Pooling at `pooling`. */
static void write_modules(const char *dir, const char *pooling, const char *more)
{
    char text[2048];
    ck_assert_int_lt(snprintf(text, sizeof text,
                              "[{\"idx\": 0, \"path\": \"\", \"type\": "
                              "\"sentence_transformers.models.Transformer\"}, {\"idx\": 1, "
                              "\"path\": \"%s\", \"type\": \"sentence_transformers.models."
                              "Pooling\"}%s]",
                              pooling, more),
                     (int)sizeof text);
    write_text(join(dir, "modules.json").s, text);
}

/* A module path leaves the folder only by a ".." or by being absolute:
 * both refused as written, even where a Pooling folder is there to read;
 * symbolic links inside the folder (a cache snapshot's) are followed. */
START_TEST(test_module_paths_stay_in_the_folder)
{
    make_tmp_dir();
    const path_buf model = join(tmp_dir, "model");
    ck_assert_int_eq(mkdir(model.s, 0700), 0);
    const char *files[] = {"model.safetensors", "vocab.txt", "config.json"};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(
            symlink(join(folder("st_mean_norm").s, files[i]).s, join(model.s, files[i]).s), 0);
    /* a Pooling folder beside the model's, which ../ would reach */
    ck_assert_int_eq(mkdir(join(tmp_dir, "1_Pooling").s, 0700), 0);
    write_text(join(tmp_dir, "1_Pooling/config.json").s, POOLING_16);
    static const struct {
        const char *path, *message;
    } escaping[] = {
        {"../1_Pooling",
         "modules.json: module 1 (sentence_transformers.models.Pooling): path "
         "\"../1_Pooling\" leaves the folder (a \"..\" in it)"},
        {"2_Dense/../../1_Pooling",
         "path \"2_Dense/../../1_Pooling\" leaves the folder (a "
         "\"..\" in it)"},
        {"..", "path \"..\" leaves the folder (a \"..\" in it)"},
        {"./..", "path \"./..\" leaves the folder"},
        {"/tmp", "path \"/tmp\" leaves the folder (an absolute path)"},
    };
    tf_pipeline *p;
    for (size_t i = 0; i < sizeof escaping / sizeof escaping[0]; i++) {
        write_modules(model.s, escaping[i].path, "");
        p = (tf_pipeline *)&p;
        expect_failure(tf_pipeline_load(model.s, NULL, &p), TF_ERR_FORMAT, escaping[i].message);
        ck_assert_ptr_null(p);
    }
    /* inside, through links whose targets are outside (a snapshot's blobs) */
    ck_assert_int_eq(symlink(join(tmp_dir, "1_Pooling").s, join(model.s, "pool").s), 0);
    write_modules(model.s, "pool", "");
    ck_assert_msg(tf_pipeline_load(model.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    tf_pipeline_destroy(p);
    ck_assert_int_eq(mkdir(join(model.s, "1_Pooling").s, 0700), 0);
    ck_assert_int_eq(
        symlink(join(tmp_dir, "1_Pooling/config.json").s, join(model.s, "1_Pooling/config.json").s),
        0);
    write_modules(model.s, "./1_Pooling/", "");
    ck_assert_msg(tf_pipeline_load(model.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_dim(p), 16);
    tf_pipeline_destroy(p);
    remove_tmp_dir();
}
END_TEST

/* A module path of 330 characters is named whole in every message. */
START_TEST(test_long_module_paths_named_whole)
{
    char path[340];
    memset(path, 'a', 200);
    path[200] = '/';
    memset(path + 201, 'b', 130);
    path[331] = '\0';
    make_tmp_dir();
    prepare("st_mean_norm", NULL);
    path[200] = '\0';
    ck_assert_int_eq(mkdir(join(tmp_dir, path).s, 0700), 0);
    path[200] = '/';
    ck_assert_int_eq(mkdir(join(tmp_dir, path).s, 0700), 0);
    const path_buf pooling = join(join(tmp_dir, path).s, "config.json");
    write_text(pooling.s, "{\"word_embedding_dimension\": 32, \"pooling_mode_mean_tokens\": true}");
    write_modules(tmp_dir, path, "");
    char want[512];
    snprintf(want, sizeof want, "%s/config.json: word_embedding_dimension 32 disagrees", path);
    expect_load_failure(TF_ERR_SHAPE, want);
    /* and as the width a Dense module after it is given */
    write_text(pooling.s, POOLING_16);
    write_modules(tmp_dir, path,
                  ", {\"idx\": 2, \"path\": \"2_Dense\", \"type\": "
                  "\"sentence_transformers.models.Dense\"}");
    ck_assert_int_eq(mkdir(join(tmp_dir, "2_Dense").s, 0700), 0);
    write_text(join(tmp_dir, "2_Dense/config.json").s,
               "{\"in_features\": 8, \"out_features\": "
               "4, \"activation_function\": \"torch.nn.modules.linear.Identity\"}");
    snprintf(want, sizeof want, "the modules before it give (%s/config.json: 1 modes of 16)", path);
    expect_load_failure(TF_ERR_SHAPE, want);
    remove_tmp_dir();
}
END_TEST

/* ---- A folder of symbolic links ---------------------------------------------------------- */

/* st_dense's files, each a link into tmp_dir/blobs as a Hugging Face cache
 * snapshot has them. */
static const char *const snapshot_files[] = {"config.json",
                                             "model.safetensors",
                                             "vocab.txt",
                                             "tokenizer_config.json",
                                             "modules.json",
                                             "config_sentence_transformers.json",
                                             "1_Pooling/config.json",
                                             "2_Dense/config.json",
                                             "2_Dense/model.safetensors",
                                             "3_Dense/config.json",
                                             "3_Dense/model.safetensors"};
enum { N_SNAPSHOT_FILES = sizeof snapshot_files / sizeof snapshot_files[0] };

/* tmp_dir/snapshot: st_dense as links to the blobs tmp_dir/blobs/<i> (each
 * a link to st_dense's file). */
static path_buf make_snapshot(void)
{
    const path_buf snapshot = join(tmp_dir, "snapshot"), blobs = join(tmp_dir, "blobs");
    ck_assert_int_eq(mkdir(snapshot.s, 0700), 0);
    ck_assert_int_eq(mkdir(blobs.s, 0700), 0);
    const char *dirs[] = {"1_Pooling", "2_Dense", "3_Dense"};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(mkdir(join(snapshot.s, dirs[i]).s, 0700), 0);
    for (int i = 0; i < N_SNAPSHOT_FILES; i++) {
        char blob[16];
        snprintf(blob, sizeof blob, "%d", i);
        ck_assert_int_eq(
            symlink(join(folder("st_dense").s, snapshot_files[i]).s, join(blobs.s, blob).s), 0);
        ck_assert_int_eq(symlink(join(blobs.s, blob).s, join(snapshot.s, snapshot_files[i]).s), 0);
    }
    return snapshot;
}

/* Each file of the snapshot whose blob is missing: TF_ERR_IO naming the
 * file, the link and its target, wherever the file is looked for (the
 * optional ones too: a missing blob is not a missing file). */
START_TEST(test_snapshot_without_blobs)
{
    make_tmp_dir();
    const path_buf snapshot = make_snapshot(), blobs = join(tmp_dir, "blobs");
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(snapshot.s, NULL, &p) == TF_OK, "%s", tf_last_error());
    tf_pipeline_destroy(p);
    char want[2 * sizeof(path_buf) + 128];
    for (int i = 0; i < N_SNAPSHOT_FILES; i++) {
        char blob[16], gone[24];
        snprintf(blob, sizeof blob, "%d", i);
        snprintf(gone, sizeof gone, "%d.gone", i);
        ck_assert_int_eq(rename(join(blobs.s, blob).s, join(blobs.s, gone).s), 0);
        snprintf(want, sizeof want,
                 "%s: a symbolic link to %s that does not exist (a cache "
                 "snapshot without its blobs?)",
                 join(snapshot.s, snapshot_files[i]).s, join(blobs.s, blob).s);
        p = (tf_pipeline *)&p;
        expect_failure(tf_pipeline_load(snapshot.s, NULL, &p), TF_ERR_IO, want);
        ck_assert_ptr_null(p);
        ck_assert_int_eq(rename(join(blobs.s, gone).s, join(blobs.s, blob).s), 0);
    }
    /* files the folder may lack, present as links to missing blobs */
    const char *optional[] = {"tokenizer.json", "special_tokens_map.json",
                              "sentence_bert_config.json"};
    for (int i = 0; i < 3; i++) {
        const path_buf link_path = join(snapshot.s, optional[i]);
        ck_assert_int_eq(symlink("../blobs/missing", link_path.s), 0);
        snprintf(want, sizeof want,
                 "%s: a symbolic link to ../blobs/missing that does not "
                 "exist",
                 link_path.s);
        expect_failure(tf_pipeline_load(snapshot.s, NULL, &p), TF_ERR_IO, want);
        tf_tokenizer *tok = (tf_tokenizer *)&tok;
        if (i < 2) /* the tokenizer's files */
            expect_failure(tf_tokenizer_load(snapshot.s, NULL, &tok), TF_ERR_IO, want);
        ck_assert_int_eq(unlink(link_path.s), 0);
    }
    /* a module's folder a link to a missing one */
    ck_assert_int_eq(rename(join(snapshot.s, "3_Dense").s, join(tmp_dir, "3_Dense").s), 0);
    ck_assert_int_eq(symlink("../3_Dense.gone", join(snapshot.s, "3_Dense").s), 0);
    snprintf(want, sizeof want, "%s: a symbolic link to ../3_Dense.gone that does not exist",
             join(snapshot.s, "3_Dense").s);
    expect_failure(tf_pipeline_load(snapshot.s, NULL, &p), TF_ERR_IO, want);
    remove_tmp_dir();
}
END_TEST

/* A folder with neither tokenizer.json nor vocab.txt is named as such. */
START_TEST(test_folder_without_tokenizer)
{
    make_tmp_dir();
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    char want[512];
    snprintf(want, sizeof want,
             "%s: not a regular file: it is a directory, with neither "
             "tokenizer.json nor vocab.txt",
             tmp_dir);
    expect_failure(tf_tokenizer_load(tmp_dir, NULL, &tok), TF_ERR_IO, want);
    ck_assert_ptr_null(tok);
    prepare("st_mean_norm", NULL);
    unlink(join(tmp_dir, "vocab.txt").s);
    expect_load_failure(TF_ERR_IO, want);
    remove_tmp_dir();
}
END_TEST

/* out [n, 16] = st_mean_norm's vectors of texts[0..n) in calls of batch_size. */
static void embed_batched(tf_pipeline *p, const char *const *texts, size_t n, int32_t batch_size,
                          float *out)
{
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = texts, a.out = out, a.out_len = n * 16, a.batch_size = batch_size;
    ck_assert_msg(tf_pipeline_embed(p, &a) == TF_OK, "%s", tf_last_error());
}

/* Batch invariance (issue 31; docs/server.md, "Batch invariance"): a
 * text's vector does not depend on the texts it shares a forward call with
 * beyond the last bits (OpenBLAS's small-matrix kernels): within 1e-6 of its
 * vector alone, whatever the batch. */
START_TEST(test_batch_invariance)
{
    static const char *const mixed[] = {"the cat sat on the mat",
                                        "a dog",
                                        "where is the big red house and the quick brown fox",
                                        "hello world",
                                        "it was not good",
                                        "the sky is blue",
                                        "grass",
                                        "what colour is the grass"};
    enum { N = sizeof mixed / sizeof *mixed };
    tf_pipeline *p = load("st_mean_norm");
    float alone[N * 16], got[N * 16];
    embed_batched(p, mixed, N, 1, alone);
    const int32_t sizes[] = {2, 3, N};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        embed_batched(p, mixed, N, sizes[k], got);
        for (size_t i = 0; i < N * 16; i++)
            ck_assert_msg(fabsf(got[i] - alone[i]) <= 1e-6f, "batch %d, value %zu: %g vs %g",
                          (int)sizes[k], i, (double)got[i], (double)alone[i]);
    }
    tf_pipeline_destroy(p);
}
END_TEST

/* vectors [2, 16] of two texts from the pipeline at path, normalize 0. */
static void embed_two(const char *path, float *vectors)
{
    static const char *const texts[] = {"the cat sat on the mat", "where is the red house"};
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(path, NULL, &p) == TF_OK, "%s: %s", path, tf_last_error());
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_EMBEDDING);
    ck_assert_str_eq(tf_pipeline_pooling(p), "mean");
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 2, a.texts = texts, a.out = vectors, a.out_len = 2 * 16, a.normalize = 0;
    ck_assert_msg(tf_pipeline_embed(p, &a) == TF_OK, "%s", tf_last_error());
    tf_pipeline_destroy(p);
}

/* Every source tf_encoder_load reads is a pipeline too (issue 31: `tfenc
 * serve` refused what `tfenc embed` ran): libtfenc's own folder (the file
 * tf_encoder_save writes and a vocab.txt), and that weights file alone (its
 * folder's vocab.txt), pooled as sentence-transformers pools a plain model
 * (the mean), give st_mean_norm's vectors before its Normalize, bitwise. */
START_TEST(test_own_format_sources)
{
    make_tmp_dir();
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_load(folder("st_mean_norm").s, NULL, &enc), TF_OK);
    ck_assert_int_eq(tf_encoder_save(enc, join(tmp_dir, "model.safetensors").s), TF_OK);
    tf_encoder_destroy(enc);
    ck_assert_int_eq(
        symlink(join(folder("st_mean_norm").s, "vocab.txt").s, join(tmp_dir, "vocab.txt").s), 0);
    float want[2 * 16], got[2 * 16];
    embed_two(folder("st_mean_norm").s, want);
    embed_two(tmp_dir, got);
    ck_assert_mem_eq(got, want, sizeof want);
    memset(got, 0, sizeof got);
    embed_two(join(tmp_dir, "model.safetensors").s, got);
    ck_assert_mem_eq(got, want, sizeof want);
    tf_pipeline *p = (tf_pipeline *)&p;
    expect_failure(tf_pipeline_load(join(tmp_dir, "none").s, NULL, &p), TF_ERR_IO,
                   "none: cannot open: no such file or folder");
    ck_assert_ptr_null(p);
    remove_tmp_dir();
}
END_TEST

/* out's size travels with it: an out_len short of n x the call's width
 * (0 included) is refused naming both, and out is not written; for embed
 * the width is `dimensions` (0: dim), for the heads the labels. */
START_TEST(test_out_len_checked)
{
    const char *texts[2] = {"first text", "second"}, *pairs[2] = {"a", "b"};
    float out[2 * 16 + 1];
    tf_pipeline *st = load("st_mean_norm"), *ce = load("cross_encoder");
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 2, a.texts = texts, a.out = out;
    const struct {
        tf_pipeline *p;
        int32_t dimensions;
        size_t out_len;
        const char *message;
    } refused[] = {
        {st, 0, 0, "args.out_len: out holds 0 floats, but 2 inputs of 16 values need 32"},
        {st, 0, 31, "args.out_len: out holds 31 floats, but 2 inputs of 16 values need 32"},
        {st, 4, 7, "args.out_len: out holds 7 floats, but 2 inputs of 4 values need 8"},
        {ce, 0, 1, "args.out_len: out holds 1 floats, but 2 inputs of 1 values need 2"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        for (size_t i = 0; i < sizeof out / sizeof *out; i++)
            out[i] = -7.0f;
        a.dimensions = refused[k].dimensions, a.out_len = refused[k].out_len;
        a.pairs = refused[k].p == ce ? pairs : NULL;
        expect_failure(refused[k].p == ce ? tf_pipeline_score(ce, &a) : tf_pipeline_embed(st, &a),
                       TF_ERR_INVALID_ARGUMENT, refused[k].message);
        for (size_t i = 0; i < sizeof out / sizeof *out; i++)
            ck_assert_float_eq(out[i], -7.0f);
    }
    a.pairs = NULL, a.dimensions = 4, a.out_len = 8; /* exactly enough: the last float untouched */
    ck_assert_msg(tf_pipeline_embed(st, &a) == TF_OK, "%s", tf_last_error());
    ck_assert_float_eq(out[8], -7.0f);
    tf_pipeline_destroy(st);
    tf_pipeline_destroy(ce);
}
END_TEST

/* A rotary model computes past its trained length, as upstream does: a
 * sentence_bert_config.json max_seq_length (or options.max_seq_length)
 * above max_position_embeddings 64 is taken, and the pipeline's vector of
 * an 80-token text is the mean of the encoder's 80 outputs (the encoder
 * past 64 positions is checked against float64 in test_encoder_pieces), then unit
 * length; a learned table still bounds both. */
START_TEST(test_rotary_pipeline_past_trained_length)
{
    const path_buf base = join(join(data_dir, "families").s, "modernbert_st");
    make_tmp_dir();
    const char *files[] = {"config.json",           "model.safetensors", "tokenizer.json",
                           "tokenizer_config.json", "modules.json",      "1_Pooling"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        ck_assert_int_eq(symlink(join(base.s, files[i]).s, join(tmp_dir, files[i]).s), 0);
    ck_assert_int_eq(mkdir(join(tmp_dir, "2_Normalize").s, 0700), 0);
    write_text(join(tmp_dir, "sentence_bert_config.json").s, "{\"max_seq_length\": 100}");
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(tmp_dir, NULL, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 100);
    char text[400] = ""; /* words until the tokens pass the trained 64 */
    int32_t n = 0;
    for (int w = 0; n <= 64; w++) {
        strcat(text, w % 2 ? "alpha beta " : "gamma ");
        ck_assert_int_eq(tf_pipeline_count_tokens(p, text, NULL, "", &n), TF_OK);
    }
    ck_assert_int_le(n, 100);
    float vec[8];
    size_t truncated = 9;
    const char *texts[1] = {text};
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = texts, a.out = vec, a.out_len = 8, a.truncated = &truncated;
    ck_assert_msg(tf_pipeline_embed(p, &a) == TF_OK, "%s", tf_last_error());
    ck_assert_uint_eq(truncated, 0);

    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode(tf_pipeline_tokenizer(p), text, strlen(text), NULL, 0, &e),
                     TF_OK);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], n);
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_load(base.s, NULL, &enc), TF_OK);
    float *hidden = malloc((size_t)n * 8 * sizeof *hidden); /* [1, n, 8] */
    ck_assert_ptr_nonnull(hidden);
    tf_forward_args f;
    tf_forward_args_init(&f);
    f.batch = 1, f.seq_len = n, f.input_ids = tf_encoding_ids(e), f.output = hidden;
    ck_assert_msg(tf_encoder_forward(enc, &f) == TF_OK, "%s", tf_last_error());
    double mean[8] = {0}, norm = 0.0;
    for (int32_t t = 0; t < n; t++)
        for (int k = 0; k < 8; k++)
            mean[k] += hidden[t * 8 + k] / (double)n;
    for (int k = 0; k < 8; k++)
        norm += mean[k] * mean[k];
    for (int k = 0; k < 8; k++)
        ck_assert_double_eq_tol(vec[k], mean[k] / sqrt(norm), TOL);
    free(hidden);
    tf_encoder_destroy(enc);
    tf_encoding_destroy(e);
    tf_pipeline_destroy(p);

    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.max_seq_length = 5000;
    ck_assert_msg(tf_pipeline_load(tmp_dir, &o, &p) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 5000);
    tf_pipeline_destroy(p);
    remove_tmp_dir();

    o.max_seq_length = 33; /* st_mean_norm's learned table: 32 positions */
    p = (tf_pipeline *)&p;
    expect_failure(tf_pipeline_load(folder("st_mean_norm").s, &o, &p), TF_ERR_INVALID_ARGUMENT,
                   "options.max_seq_length: expected 0 (the folder's) or 3..");
    ck_assert_ptr_null(p);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("pipeline");
    tcase_add_test(tc, test_mean_normalize_prompts_truncation);
    tcase_add_test(tc, test_out_len_checked);
    tcase_add_test(tc, test_rotary_pipeline_past_trained_length);
    tcase_add_test(tc, test_token_ids_match_the_reference);
    tcase_add_test(tc, test_every_pooling_mode);
    tcase_add_test(tc, test_dense_modules_and_default_prompt);
    tcase_add_test(tc, test_minilm_max_seq_length_256);
    tcase_add_test(tc, test_xlmr_sentence_encoder);
    tcase_add_test(tc, test_nomic_sentence_encoder);
    tcase_add_test(tc, test_nomic_matryoshka_layer_norm);
    tcase_add_test(tc, test_gte_sentence_encoder);
    tcase_add_test(tc, test_jina_sentence_encoder);
    tcase_add_test(tc, test_jina_code_sentence_encoder);
    tcase_add_test(tc, test_mpnet_sentence_encoder);
    tcase_add_test(tc, test_encoder_piecesbert_sentence_encoder);
    tcase_add_test(tc, test_token_classifier);
    tcase_add_test(tc, test_roberta_token_classifier);
    tcase_add_loop_test(tc, test_head, 0, sizeof head_cases / sizeof head_cases[0]);
    tcase_add_loop_test(tc, test_cross_encoder_activation, 0,
                        sizeof activation_cases / sizeof activation_cases[0]);
    tcase_add_test(tc, test_cross_encoder_activation_refused);
    tcase_add_test(tc, test_messages_name_the_callers_index);
    tcase_add_test(tc, test_inconsistent_folders);
    tcase_add_test(tc, test_encoder_piecesbert_head_config);
    tcase_add_test(tc, test_module_paths_stay_in_the_folder);
    tcase_add_test(tc, test_long_module_paths_named_whole);
    tcase_add_test(tc, test_snapshot_without_blobs);
    tcase_add_test(tc, test_folder_without_tokenizer);
    tcase_add_test(tc, test_own_format_sources);
    tcase_add_test(tc, test_batch_invariance);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
