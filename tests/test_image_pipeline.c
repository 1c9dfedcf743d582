/* test_image_pipeline.c — images in, vectors and label probabilities out,
 * through the public API: tf_pipeline_load of the vision folders
 * tests/data/gen_image_pipeline.py lays out (CLIP, sentence-transformers'
 * CLIP, SigLIP, ViTModel, ViTForImageClassification, each with its Hub
 * processor), tf_pipeline_embed_images and tf_pipeline_classify_images from
 * encoded files, from RGB pixels and from pixel_values, against the float64
 * references of upstream's code within 1e-5; and every refusal with its
 * message, nothing written. */
#define _XOPEN_SOURCE 700 /* mkdtemp, realpath, symlink */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "npy.h"
#include "tfenc.h"

#define TOLERANCE 1e-5
#define SENTINEL -7.0f

static const char *data_dir;

static path_buf folder(const char *name)
{
    return join(join(data_dir, "image_pipeline").s, name);
}

static path_buf image_file(const char *name)
{
    return join(join(join(data_dir, "images").s, "files").s, name);
}

static tf_pipeline *load(const char *name)
{
    tf_pipeline *p = NULL;
    const tf_status s = tf_pipeline_load(folder(name).s, NULL, &p);
    ck_assert_msg(s == TF_OK, "%s: %s", name, tf_last_error());
    return p;
}

/* The folders: their kind and width. */
static const struct {
    const char *name;
    tf_pipeline_kind kind;
    int32_t dim;
} folders[] = {
    {"clip", TF_PIPELINE_IMAGE_EMBEDDING, 24},
    {"st_clip", TF_PIPELINE_IMAGE_EMBEDDING, 24},
    {"siglip", TF_PIPELINE_IMAGE_EMBEDDING, 32},
    {"vit_model", TF_PIPELINE_IMAGE_EMBEDDING, 32},
    {"vit_classifier", TF_PIPELINE_IMAGE_CLASSIFIER, 3},
};
#define N_FOLDERS (sizeof folders / sizeof *folders)

/* The call a folder's kind has. */
static tf_status run(const tf_pipeline *p, const tf_image_args *a)
{
    return tf_pipeline_kind_of(p) == TF_PIPELINE_IMAGE_CLASSIFIER
        ? tf_pipeline_classify_images(p, a)
        : tf_pipeline_embed_images(p, a);
}

/* got [rows, width] within TOLERANCE of values[first * width ...]. */
static void expect_close(const float *got, const cJSON *values, size_t first, size_t rows,
                         size_t width, const char *what)
{
    ck_assert_int_ge(cJSON_GetArraySize(values), (int)((first + rows) * width));
    double worst = 0.0;
    for (size_t i = 0; i < rows * width; i++) {
        const double want = cJSON_GetArrayItem(values, (int)(first * width + i))->valuedouble;
        ck_assert_msg(isfinite(got[i]), "%s[%zu] = %g", what, i, (double)got[i]);
        worst = fmax(worst, fabs((double)got[i] - want));
    }
    printf("%s: max abs error %.2e over %zu values\n", what, worst, rows * width);
    ck_assert_msg(worst <= TOLERANCE, "%s: max abs error %g > %g", what, worst, TOLERANCE);
}

/* The files expected.json names, read. */
typedef struct files {
    uint8_t *data[2];
    size_t sizes[2];
} files;

static files read_files(const cJSON *expected)
{
    files f;
    for (int i = 0; i < 2; i++) {
        const char *name = cJSON_GetArrayItem(json_at(expected, "files"), i)->valuestring;
        f.data[i] = (uint8_t *)read_file(image_file(name).s, &f.sizes[i]);
        ck_assert_msg(f.data[i] != NULL, "%s", name);
    }
    return f;
}

static void free_files(files *f)
{
    free(f->data[0]);
    free(f->data[1]);
}

/* 0 in a library built without image decoding (-Dimages=disabled): the
 * tests of encoded images then pass without running, said on stdout. */
static int decoders_built(void)
{
    tf_pipeline *p = load("clip");
    size_t len;
    uint8_t *png = (uint8_t *)read_file(image_file("rgb_17x11.png").s, &len);
    const uint8_t *data[] = {png};
    float out[24];
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 1, a.data = data, a.sizes = &len, a.out = out, a.out_len = 24;
    const tf_status s = tf_pipeline_embed_images(p, &a);
    free(png);
    tf_pipeline_destroy(p);
    if (s == TF_ERR_UNSUPPORTED)
        printf("skipped: %s\n", tf_last_error());
    return s != TF_ERR_UNSUPPORTED;
}

/* ---- Loading ------------------------------------------------------------------------------ */

START_TEST(test_load_kinds)
{
    tf_pipeline *p = load(folders[_i].name);
    ck_assert_int_eq(tf_pipeline_kind_of(p), folders[_i].kind);
    ck_assert_int_eq(tf_pipeline_dim(p), folders[_i].dim);
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 0);
    ck_assert_ptr_null(tf_pipeline_pooling(p));
    if (folders[_i].kind == TF_PIPELINE_IMAGE_CLASSIFIER) {
        ck_assert_str_eq(tf_pipeline_label(p, 0), "tabby cat");
        ck_assert_str_eq(tf_pipeline_label(p, 2), "teapot");
        ck_assert_ptr_null(tf_pipeline_label(p, 3));
    } else {
        ck_assert_ptr_null(tf_pipeline_label(p, 0));
    }
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_kind_names)
{
    ck_assert_str_eq(tf_pipeline_kind_name(TF_PIPELINE_IMAGE_EMBEDDING), "image-embedding");
    ck_assert_str_eq(tf_pipeline_kind_name(TF_PIPELINE_IMAGE_CLASSIFIER), "image-classifier");
    ck_assert_ptr_null(tf_pipeline_kind_name(TF_PIPELINE_IMAGE_CLASSIFIER + 1));
    ck_assert_uint_eq(tf_struct_size("tf_image_args"), sizeof(tf_image_args));
}
END_TEST

/* ---- End to end ------------------------------------------------------------------------------ */

/* From the two files' bytes, in one batch and one image a batch. */
START_TEST(test_from_bytes)
{
    if (!decoders_built())
        return;
    tf_pipeline *p = load(folders[_i].name);
    cJSON *expected = read_json(join(folder(folders[_i].name).s, "expected.json").s);
    files f = read_files(expected);
    const size_t W = (size_t)tf_pipeline_dim(p);
    float out[2 * 32];
    for (int32_t batch_size = 0; batch_size <= 1; batch_size++) {
        tf_image_args a;
        tf_image_args_init(&a);
        a.n = 2;
        a.data = (const uint8_t *const *)f.data;
        a.sizes = f.sizes;
        a.batch_size = batch_size;
        a.out = out;
        a.out_len = 2 * W;
        ck_assert_msg(run(p, &a) == TF_OK, "%s", tf_last_error());
        expect_close(out, json_at(expected, "values"), 0, 2, W, folders[_i].name);
    }
    free_files(&f);
    cJSON_Delete(expected);
    tf_pipeline_destroy(p);
}
END_TEST

/* From the files as PIL decodes them (gen_images.py's <name>.rgb), one
 * call each (their sizes differ). */
START_TEST(test_from_pixels)
{
    static const struct {
        const char *rgb;
        int32_t height, width;
    } decoded[] = {{"photo_astronaut_200x160.jpg.rgb", 160, 200},
                   {"photo_coffee_150x100.webp.rgb", 100, 150}};
    tf_pipeline *p = load(folders[_i].name);
    cJSON *expected = read_json(join(folder(folders[_i].name).s, "expected.json").s);
    const size_t W = (size_t)tf_pipeline_dim(p);
    for (size_t i = 0; i < 2; i++) {
        size_t len;
        uint8_t *rgb = (uint8_t *)read_file(
            join(join(join(data_dir, "images").s, "expected").s, decoded[i].rgb).s, &len);
        ck_assert_uint_eq(len, (size_t)decoded[i].height * decoded[i].width * 3);
        float out[32];
        tf_image_args a;
        tf_image_args_init(&a);
        a.n = 1;
        a.pixels = rgb;
        a.height = decoded[i].height;
        a.width = decoded[i].width;
        a.out = out;
        a.out_len = W;
        ck_assert_msg(run(p, &a) == TF_OK, "%s", tf_last_error());
        expect_close(out, json_at(expected, "values"), i, 1, W, decoded[i].rgb);
        free(rgb);
    }
    cJSON_Delete(expected);
    tf_pipeline_destroy(p);
}
END_TEST

/* From pixel_values (gen_vision.py's pixels_32x32.npy) against
 * tests/data/vision's references of the towers alone. */
START_TEST(test_from_pixel_values)
{
    static const struct {
        const char *name, *key;
    } towers[] = {
        {"clip", "image_embeds"}, {"siglip", "pooled_output"}, {"vit_model", "pooled_output"}};
    const path_buf vision = join(data_dir, "vision");
    npy_array px;
    char err[256];
    ck_assert_msg(npy_read(join(vision.s, "pixels_32x32.npy").s, &px, err, sizeof err) == 0, "%s",
                  err);
    tf_pipeline *p = load(towers[_i].name);
    cJSON *expected = read_json(join(join(vision.s, towers[_i].name).s, "expected.json").s);
    const size_t W = (size_t)tf_pipeline_dim(p);
    float out[2 * 32];
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 2;
    a.pixel_values = px.data;
    a.height = a.width = 32;
    a.out = out;
    a.out_len = 2 * W;
    ck_assert_msg(tf_pipeline_embed_images(p, &a) == TF_OK, "%s", tf_last_error());
    expect_close(out, json_at(json_at(expected, "32x32"), towers[_i].key), 0, 2, W,
                 towers[_i].name);
    npy_free(&px);
    cJSON_Delete(expected);
    tf_pipeline_destroy(p);
}
END_TEST

/* normalize 1: the reference vectors scaled to unit length. */
START_TEST(test_normalize)
{
    if (!decoders_built())
        return;
    tf_pipeline *p = load("clip");
    cJSON *expected = read_json(join(folder("clip").s, "expected.json").s);
    files f = read_files(expected);
    float out[2 * 24];
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 2;
    a.data = (const uint8_t *const *)f.data;
    a.sizes = f.sizes;
    a.normalize = 1;
    a.out = out;
    a.out_len = 2 * 24;
    ck_assert_msg(tf_pipeline_embed_images(p, &a) == TF_OK, "%s", tf_last_error());
    const cJSON *values = json_at(expected, "values");
    for (int r = 0; r < 2; r++) {
        double norm = 0.0;
        for (int i = 0; i < 24; i++)
            norm += pow(cJSON_GetArrayItem(values, r * 24 + i)->valuedouble, 2);
        for (int i = 0; i < 24; i++)
            ck_assert_double_eq_tol(
                out[r * 24 + i], cJSON_GetArrayItem(values, r * 24 + i)->valuedouble / sqrt(norm),
                TOLERANCE);
    }
    free_files(&f);
    cJSON_Delete(expected);
    tf_pipeline_destroy(p);
}
END_TEST

/* ---- Refusals ------------------------------------------------------------------------------- */

/* A call on clip with args a (n images) refused with status and text,
 * out untouched. */
static void expect_refused(const tf_pipeline *p, tf_image_args *a, tf_status status,
                           const char *text)
{
    float out[4 * 24];
    for (size_t i = 0; i < sizeof out / sizeof *out; i++)
        out[i] = SENTINEL;
    if (a->out)
        a->out = out;
    expect_message(run(p, a), status, text);
    for (size_t i = 0; i < sizeof out / sizeof *out; i++)
        ck_assert_float_eq(out[i], SENTINEL);
}

/* args for n images of clip's, encoded (data, sizes) or none yet. */
static tf_image_args args_of(size_t n, const uint8_t *const *data, const size_t *sizes)
{
    static float placeholder;
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = n;
    a.data = data;
    a.sizes = sizes;
    a.out = &placeholder;
    a.out_len = n * 24;
    return a;
}

START_TEST(test_refused_bytes)
{
    if (!decoders_built())
        return;
    tf_pipeline *p = load("clip");
    size_t png_len;
    uint8_t *png = (uint8_t *)read_file(image_file("rgb_17x11.png").s, &png_len);
    static const uint8_t junk[] = "not an image";
    const uint8_t *data[3] = {png, junk, png};
    size_t sizes[3] = {png_len, sizeof junk - 1, 60};
    tf_image_args a = args_of(3, data, sizes);
    a.first_index = 5;
    expect_refused(
        p, &a, TF_ERR_FORMAT,
        "image 6: not a JPEG, PNG or WebP image: it starts with 6e 6f 74 20 61 6e 20 69");
    data[1] = png;
    sizes[1] = png_len;
    a.first_index = 0;
    expect_refused(p, &a, TF_ERR_FORMAT, "image 2: truncated PNG: the data ends before the image");
    sizes[2] = 0;
    expect_refused(p, &a, TF_ERR_FORMAT, "image 2: empty: no image");
    sizes[2] = png_len;
    a.max_pixels = 100;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "image 0: a PNG image of 17 x 11 = 187 pixels, above the limit of 100");
    a.max_pixels = -1;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "args.batch_size 0, max_pixels -1: expected 0 (default) or more");
    a.max_pixels = 0;
    data[1] = NULL;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT, "args.data[1] is NULL");
    data[1] = png;
    a.sizes = NULL;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT, "args.sizes is NULL beside args.data");
    free(png);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_refused_arguments)
{
    tf_pipeline *p = load("clip");
    static const uint8_t rgb[2 * 4 * 5 * 3];
    static const float values[2 * 3 * 40 * 56];
    tf_image_args a = args_of(2, NULL, NULL);
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "args: give the images as one of data, pixels or pixel_values, got 0");
    a.pixels = rgb;
    a.pixel_values = values;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "args: give the images as one of data, pixels or pixel_values, got 2");
    a.pixel_values = NULL;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "args.height x width: expected 1..16384 each, got 0 x 0");
    a.height = 4, a.width = 5;
    a.n = 0;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT, "args.n: expected at least 1 image, got 0");
    a.n = 2;
    a.out_len = 47;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "args.out_len 47: 2 images of 24 values need 48 floats");
    a.out_len = 48;
    a.normalize = 2;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT, "args.normalize: expected 0 or 1, got 2");
    a.normalize = 0;
    a.pixels = NULL;
    a.pixel_values = values;
    a.height = 40, a.width = 56;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT,
                   "args.pixel_values: 40 x 56 images, the model's are 32 x 32 (config.json's "
                   "image_size)");
    a.out = NULL;
    expect_refused(p, &a, TF_ERR_INVALID_ARGUMENT, "args.out is NULL");
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_refused_kinds)
{
    tf_pipeline *clip = load("clip"), *vit = load("vit_classifier");
    static const uint8_t rgb[4 * 5 * 3];
    tf_image_args a = args_of(1, NULL, NULL);
    a.pixels = rgb;
    a.height = 4, a.width = 5;
    float out[24];
    a.out = out;
    expect_message(tf_pipeline_classify_images(clip, &a), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_classify_images: the pipeline is an image-embedding; use "
                   "tf_pipeline_embed_images");
    expect_message(tf_pipeline_embed_images(vit, &a), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed_images: the pipeline is an image-classifier; use "
                   "tf_pipeline_classify_images");
    a.normalize = 1;
    expect_message(tf_pipeline_classify_images(vit, &a), TF_ERR_INVALID_ARGUMENT,
                   "args.normalize: expected 0, got 1");
    /* the text calls refuse an image pipeline by its kind */
    const char *texts[] = {"a photo"};
    tf_pipeline_args t;
    tf_pipeline_args_init(&t);
    t.n = 1;
    t.texts = texts;
    t.pairs = texts;
    t.out = out;
    t.out_len = 24;
    expect_message(tf_pipeline_embed(clip, &t), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed: the pipeline is an image-embedding; use "
                   "tf_pipeline_embed_images");
    expect_message(tf_pipeline_classify(vit, &t), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_classify: the pipeline is an image-classifier; use "
                   "tf_pipeline_classify_images");
    ck_assert_int_ne(tf_pipeline_score(clip, &t), TF_OK);
    ck_assert_int_ne(tf_pipeline_logits(vit, &t), TF_OK);
    ck_assert_ptr_null(tf_pipeline_tokenizer(clip));
    int32_t tokens = -1;
    expect_message(tf_pipeline_count_tokens(clip, "a photo", NULL, NULL, &tokens),
                   TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_count_tokens: the pipeline is an image-embedding; use "
                   "tf_pipeline_embed_images");
    ck_assert_int_eq(tokens, -1);
    /* and a text pipeline the image calls */
    tf_pipeline *text = NULL;
    ck_assert_int_eq(
        tf_pipeline_load(join(join(data_dir, "pipelines").s, "st_mean_norm").s, NULL, &text),
        TF_OK);
    expect_message(tf_pipeline_embed_images(text, &a), TF_ERR_INVALID_ARGUMENT,
                   "tf_pipeline_embed_images: the pipeline is an embedding; use tf_pipeline_embed");
    tf_pipeline_destroy(text);
    tf_pipeline_destroy(clip);
    tf_pipeline_destroy(vit);
}
END_TEST

/* A folder whose processor does not give the tower's image size, and one
 * without preprocessor_config.json. */
START_TEST(test_refused_folders)
{
    make_tmp_dir();
    const path_buf src = folder("vit_model");
    const char *names[] = {"config.json", "model.safetensors"};
    for (int i = 0; i < 2; i++) {
        char *abs = realpath(join(src.s, names[i]).s, NULL);
        ck_assert_int_eq(symlink(abs, join(tmp_dir, names[i]).s), 0);
        free(abs);
    }
    tf_pipeline *p = NULL;
    char want[2048];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory",
             join(tmp_dir, "preprocessor_config.json").s);
    expect_message(tf_pipeline_load(tmp_dir, NULL, &p), TF_ERR_IO, want);
    ck_assert_ptr_null(p);
    write_text(join(tmp_dir, "preprocessor_config.json").s,
               "{\"feature_extractor_type\": \"ViTFeatureExtractor\", \"size\": 24}");
    expect_message(tf_pipeline_load(tmp_dir, NULL, &p), TF_ERR_FORMAT,
                   "preprocessor_config.json: ViTImageProcessor gives 24 x 24 pixel_values, "
                   "config.json's image_size is 32");
    ck_assert_ptr_null(p);
    remove_tmp_dir();
    /* an option of texts */
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.max_seq_length = 16;
    expect_message(tf_pipeline_load(src.s, &o, &p), TF_ERR_INVALID_ARGUMENT,
                   "options.max_seq_length 16: an image pipeline has no tokens (expected 0)");
    ck_assert_ptr_null(p);
}
END_TEST

static Suite *image_pipeline_suite(void)
{
    Suite *s = suite_create("image_pipeline");
    TCase *tc = tcase_create("image_pipeline");
    tcase_add_test(tc, test_kind_names);
    tcase_add_loop_test(tc, test_load_kinds, 0, N_FOLDERS);
    tcase_add_loop_test(tc, test_from_bytes, 0, N_FOLDERS);
    tcase_add_loop_test(tc, test_from_pixels, 0, N_FOLDERS);
    tcase_add_loop_test(tc, test_from_pixel_values, 0, 3);
    tcase_add_test(tc, test_normalize);
    tcase_add_test(tc, test_refused_bytes);
    tcase_add_test(tc, test_refused_arguments);
    tcase_add_test(tc, test_refused_kinds);
    tcase_add_test(tc, test_refused_folders);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    return run_suite(image_pipeline_suite());
}
