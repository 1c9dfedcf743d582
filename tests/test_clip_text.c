/* test_clip_text.c — whole CLIP and SigLIP folders through the public API: the
 * folders tests/data/gen_clip_text.py lays out (openai/clip-vit-base-patch32's
 * CLIPModel with the legacy eos_token_id 2, sentence-transformers/clip-ViT-B-32's
 * 0_CLIPModel/ naming its end-of-text id, google/siglip-base-patch16-224's
 * SiglipModel) load as one pipeline; tf_pipeline_embed gives the text tower's
 * vectors and tf_pipeline_zero_shot CLIP's softmax and SigLIP's sigmoid over
 * the labels, against the float64 references of upstream's code within 1e-5;
 * and each refusal with its message, nothing written. */
#define _XOPEN_SOURCE 700 /* mkdtemp (tmp_dir.h) */
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

#define TOLERANCE 1e-5
#define SENTINEL (-7.0f)
#define MAX_TEXTS 4
#define MAX_VALUES 8192

static const char *data_dir;

/* The folders: their width. */
static const struct {
    const char *name;
    int32_t dim;
} folders[] = {{"clip", 24}, {"st_clip", 24}, {"siglip", 32}};
#define N_FOLDERS ((int)(sizeof folders / sizeof *folders))

static path_buf folder(const char *name)
{
    return join(join(data_dir, "clip_text").s, name);
}

static tf_pipeline *load(const char *name)
{
    tf_pipeline *p = NULL;
    const tf_status s = tf_pipeline_load(folder(name).s, NULL, &p);
    ck_assert_msg(s == TF_OK, "%s: %s", name, tf_last_error());
    return p;
}

static cJSON *expected_of(const char *name)
{
    return read_json(join(folder(name).s, "expected.json").s);
}

/* The strings of array key into out (pointing into e); their count. */
static size_t strings(const cJSON *e, const char *key, const char **out)
{
    size_t n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, json_at(e, key))
    {
        ck_assert_uint_lt(n, MAX_TEXTS);
        out[n++] = item->valuestring;
    }
    return n;
}

/* The numbers of array key into out; their count. */
static size_t numbers(const cJSON *e, const char *key, float *out)
{
    size_t n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, json_at(e, key))
    {
        ck_assert_uint_lt(n, MAX_VALUES);
        out[n++] = (float)item->valuedouble;
    }
    return n;
}

static void expect_close(const float *got, const float *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(fabs((double)got[i] - (double)want[i]) <= TOLERANCE,
                      "%s[%zu]: got %.8f, expected %.8f", what, i, (double)got[i], (double)want[i]);
}

/* The pipeline's tokenizer gives the generator's ids (each row's real ones). */
START_TEST(test_token_ids)
{
    const char *name = folders[_i].name;
    tf_pipeline *p = load(name);
    cJSON *e = expected_of(name);
    const char *texts[MAX_TEXTS];
    const size_t n = strings(e, "texts", texts);
    tf_encoding *enc = NULL;
    ck_assert_int_eq(
        tf_tokenizer_encode_batch(tf_pipeline_tokenizer(p), n, texts, NULL, NULL, NULL, &enc),
        TF_OK);
    const cJSON *rows = json_at(e, "ids");
    for (int32_t r = 0; r < (int32_t)n; r++) {
        const cJSON *row = cJSON_GetArrayItem(rows, r);
        const int32_t len = tf_encoding_lengths(enc)[r];
        for (int32_t t = 0; t < len; t++)
            ck_assert_int_eq(tf_encoding_ids(enc)[r * tf_encoding_seq_len(enc) + t],
                             cJSON_GetArrayItem(row, t)->valueint);
        /* CLIP's rows end in the end-of-text token; SigLIP's are padded after it */
        ck_assert_int_le(len, cJSON_GetArraySize(row));
    }
    tf_encoding_destroy(enc);
    cJSON_Delete(e);
    tf_pipeline_destroy(p);
}
END_TEST

/* tf_pipeline_embed of texts: get_text_features; one text per batch (no
 * padding) the same; normalize 1 the unit vectors. */
START_TEST(test_text_embeds)
{
    const char *name = folders[_i].name;
    tf_pipeline *p = load(name);
    ck_assert_int_eq(tf_pipeline_kind_of(p), TF_PIPELINE_IMAGE_EMBEDDING);
    ck_assert_int_eq(tf_pipeline_dim(p), folders[_i].dim);
    cJSON *e = expected_of(name);
    const char *texts[MAX_TEXTS];
    const size_t n = strings(e, "texts", texts);
    static float want[MAX_VALUES], out[MAX_VALUES];
    const size_t W = (size_t)folders[_i].dim;
    ck_assert_uint_eq(numbers(e, "text_embeds", want), n * W);
    for (int32_t batch_size = 0; batch_size <= 1; batch_size++) {
        tf_pipeline_args a;
        tf_pipeline_args_init(&a);
        a.n = n, a.texts = texts, a.out = out, a.out_len = n * W + 1;
        a.batch_size = batch_size;
        size_t truncated = 99;
        a.truncated = &truncated;
        out[n * W] = SENTINEL;
        ck_assert_msg(tf_pipeline_embed(p, &a) == TF_OK, "%s: %s", name, tf_last_error());
        expect_close(out, want, n * W, name);
        ck_assert_float_eq(out[n * W], SENTINEL);
        ck_assert_uint_eq(truncated, 0);
        a.normalize = 1;
        ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
        for (size_t r = 0; r < n; r++) {
            double norm = 0.0;
            for (size_t k = 0; k < W; k++)
                norm += (double)want[r * W + k] * want[r * W + k];
            for (size_t k = 0; k < W; k++)
                ck_assert_double_eq_tol(out[r * W + k], want[r * W + k] / sqrt(norm), TOLERANCE);
        }
    }
    cJSON_Delete(e);
    tf_pipeline_destroy(p);
}
END_TEST

/* args for the generator's pixel_values (2 images of 32 x 32), out [n, L]. */
static tf_image_args pixel_args(const cJSON *e, float *pixels, float *out, size_t out_len)
{
    const size_t n = numbers(e, "pixel_values", pixels);
    ck_assert_uint_eq(n, 2 * 3 * 32 * 32);
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 2, a.pixel_values = pixels, a.height = 32, a.width = 32;
    a.out = out, a.out_len = out_len;
    return a;
}

/* tf_pipeline_zero_shot: probabilities of each label per image. */
START_TEST(test_zero_shot)
{
    const char *name = folders[_i].name;
    tf_pipeline *p = load(name);
    cJSON *e = expected_of(name);
    const char *labels[MAX_TEXTS];
    const size_t L = strings(e, "labels", labels);
    static float pixels[MAX_VALUES], want[MAX_VALUES], out[MAX_VALUES];
    ck_assert_uint_eq(numbers(e, "probs", want), 2 * L);
    tf_image_args a = pixel_args(e, pixels, out, 2 * L + 1);
    out[2 * L] = SENTINEL;
    ck_assert_msg(tf_pipeline_zero_shot(p, &a, labels, L) == TF_OK, "%s: %s", name,
                  tf_last_error());
    expect_close(out, want, 2 * L, name);
    ck_assert_float_eq(out[2 * L], SENTINEL);
    if (strcmp(name, "siglip") != 0) /* softmax: each image's sum to 1 */
        for (size_t i = 0; i < 2; i++)
            ck_assert_double_eq_tol(out[i * L] + out[i * L + 1] + out[i * L + 2], 1.0, 1e-6);
    cJSON_Delete(e);
    tf_pipeline_destroy(p);
}
END_TEST

/* Each refusal names what is wrong and writes nothing. */
START_TEST(test_refusals)
{
    tf_pipeline *p = load("clip");
    cJSON *e = expected_of("clip");
    static float pixels[MAX_VALUES], out[16];
    for (size_t i = 0; i < 16; i++)
        out[i] = SENTINEL;
    const char *labels[] = {"a cat", NULL};
    tf_image_args a = pixel_args(e, pixels, out, 16);
    expect_message(tf_pipeline_zero_shot(NULL, &a, labels, 1), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_zero_shot: p is NULL");
    expect_message(tf_pipeline_zero_shot(p, &a, NULL, 1), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_zero_shot: labels is NULL");
    expect_message(tf_pipeline_zero_shot(p, &a, labels, 0), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_zero_shot: n_labels: expected at least 1, got 0");
    expect_message(tf_pipeline_zero_shot(p, &a, labels, 2), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_zero_shot: labels[1] is NULL");
    a.normalize = 1;
    expect_message(tf_pipeline_zero_shot(p, &a, labels, 1), TF_ERR_INVALID_ARGUMENT,
                   "args.normalize: expected 0, got 1");
    a.normalize = 0;
    a.out_len = 1;
    expect_message(tf_pipeline_zero_shot(p, &a, labels, 1), TF_ERR_INVALID_ARGUMENT,
                   "args.out_len 1: 2 images of 1 values need 2 floats");
    /* a text the tower cannot take: the error names it */
    const char *texts[] = {"a cat", "a dog"};
    tf_pipeline_args t;
    tf_pipeline_args_init(&t);
    t.n = 2, t.texts = texts, t.out = out, t.out_len = 16;
    t.pairs = texts;
    expect_message(tf_pipeline_embed(p, &t), TF_ERR_INVALID_ARGUMENT,
                   "args.pairs: a text tower embeds single texts (expected NULL)");
    t.pairs = NULL;
    t.dimensions = 4;
    expect_message(tf_pipeline_embed(p, &t), TF_ERR_INVALID_ARGUMENT,
                   "args.dimensions 4, dimensions_layer_norm 0: a text tower's vectors are "
                   "compared whole (expected 0 and 0)");
    t.dimensions = 0;
    expect_message(tf_pipeline_embed(p, &t), TF_ERR_INVALID_ARGUMENT,
                   "args.out_len: out holds 16 floats, but 2 inputs of 24 values need 48");
    for (size_t i = 0; i < 16; i++)
        ck_assert_float_eq(out[i], SENTINEL);
    /* a CLIPModel folder without a tokenizer is the image pipeline it was, and
       loading it leaves the last message as it was */
    tf_pipeline *vision = NULL;
    ck_assert_int_eq(
        tf_pipeline_load(join(join(data_dir, "image_pipeline").s, "clip").s, NULL, &vision), TF_OK);
    ck_assert_str_eq(tf_last_error(),
                     "args.out_len: out holds 16 floats, but 2 inputs of 24 values need 48");
    a.out_len = 16;
    expect_message(tf_pipeline_zero_shot(vision, &a, labels, 1), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_zero_shot: the pipeline has no text tower (a CLIPModel or "
                   "SiglipModel folder with its tokenizer has one)");
    ck_assert_ptr_null(tf_pipeline_tokenizer(vision));
    tf_pipeline_destroy(vision);
    cJSON_Delete(e);
    tf_pipeline_destroy(p);
}
END_TEST

static Suite *clip_text_suite(void)
{
    Suite *s = suite_create("clip_text");
    TCase *tc = tcase_create("clip_text");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_token_ids, 0, N_FOLDERS);
    tcase_add_loop_test(tc, test_text_embeds, 0, N_FOLDERS);
    tcase_add_loop_test(tc, test_zero_shot, 0, N_FOLDERS);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    return run_suite(clip_text_suite());
}
