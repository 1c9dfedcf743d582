/* test_image.c — images in (lib/image/, lib/formats/image/) against PIL and
 * numpy as transformers computes with them (tests/data/gen_images.py):
 * every decoded RGB image equal to PIL's load_image (exif_transpose,
 * convert("RGB")); every pixel tensor of the CLIP, SigLIP and ViT configs
 * equal to the processors' preprocess(); every hostile file refused with
 * its status and message; preprocessor_config.json's refusals.
 *
 * Exactness: PIL here decodes JPEG with the same Debian libjpeg-turbo
 * (2.1.5) and WebP with the same libwebp (1.2.4) the library links, so the
 * RGB images are compared byte for byte. Against another libjpeg (IJG
 * libjpeg 9's DCT-domain chroma upsampling, a Pillow wheel's bundled
 * libjpeg-turbo 3 is still islow-exact) a JPEG's pixels may differ by a few
 * levels; PNG is lossless and exact anywhere. The resize is PIL's integer
 * algorithm and the rest IEEE float32 as numpy's, so tensors are compared
 * within 1e-6 (measured: 0). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json_fixture.h"
#include "common/suite.h"
#include "image.h"
#include "image/image_config.h"
#include "image/image_file.h"
#include "image_preprocess.h"

static char images_dir[1024];

/* The bytes of <images_dir>/<sub>/<name> (free them), their count in *n. */
static uint8_t *read_bytes(const char *sub, const char *name, size_t *n)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", images_dir, sub, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    ck_assert_ptr_nonnull(data);
    *n = fread(data, 1, (size_t)size, f);
    fclose(f);
    ck_assert_uint_eq(*n, (size_t)size);
    return data;
}

static cJSON *expected(void)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/expected.json", images_dir);
    return read_json(path);
}

static int json_int(const cJSON *o, const char *key)
{
    return (int)json_at(o, key)->valuedouble;
}

static tf__image decode_file(const char *name)
{
    size_t n;
    uint8_t *data = read_bytes("files", name, &n);
    tf__image img;
    const tf_status st = tf__image_decode(data, n, TF_IMAGE_MAX_PIXELS, name, &img);
    free(data);
    ck_assert_msg(st == TF_OK, "%s: %s", name, tf_last_error());
    return img;
}

static void read_config(const char *name, tf__image_preprocess *p)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/configs/%s.json", images_dir, name);
    tf__image_processor kind;
    ck_assert_msg(tf__image_config_read(path, &kind, p) == TF_OK, "%s", tf_last_error());
}

START_TEST(decoded_as_pil)
{
    cJSON *root = expected();
    const cJSON *entry;
    int count = 0;
    cJSON_ArrayForEach(entry, json_at(root, "images"))
    {
        const char *name = json_at(entry, "name")->valuestring;
        tf__image img = decode_file(name);
        ck_assert_msg(img.height == json_int(entry, "height") &&
                          img.width == json_int(entry, "width"),
                      "%s: %d x %d, PIL %d x %d", name, img.width, img.height,
                      json_int(entry, "width"), json_int(entry, "height"));
        char file[512];
        snprintf(file, sizeof file, "%s.rgb", name);
        size_t n;
        uint8_t *want = read_bytes("expected", file, &n);
        ck_assert_uint_eq(n, (size_t)img.height * img.width * 3);
        int worst = 0;
        size_t differ = 0;
        for (size_t i = 0; i < n; i++) {
            const int d = abs((int)img.rgb[i] - (int)want[i]);
            worst = d > worst ? d : worst;
            differ += d != 0;
        }
        ck_assert_msg(differ == 0, "%s: %zu of %zu values differ from PIL's, by up to %d", name,
                      differ, n, worst);
        free(want);
        tf__image_free(&img);
        count++;
    }
    ck_assert_int_ge(count, 30);
    cJSON_Delete(root);
}
END_TEST

START_TEST(preprocessed_as_transformers)
{
    cJSON *root = expected();
    const cJSON *entry;
    int count = 0;
    cJSON_ArrayForEach(entry, json_at(root, "images"))
    {
        const char *name = json_at(entry, "name")->valuestring;
        const cJSON *t;
        cJSON_ArrayForEach(t, json_at(entry, "tensors"))
        {
            const char *config = json_at(t, "config")->valuestring;
            const cJSON *shape = json_at(t, "shape");
            const int H = cJSON_GetArrayItem(shape, 1)->valueint;
            const int W = cJSON_GetArrayItem(shape, 2)->valueint;
            tf__image_preprocess p;
            read_config(config, &p);
            tf__image img = decode_file(name);
            int32_t oh, ow;
            tf__image_output_size(&p, img.height, img.width, &oh, &ow);
            ck_assert_msg(oh == H && ow == W, "%s %s: [3, %d, %d], transformers [3, %d, %d]", name,
                          config, oh, ow, H, W);
            const size_t len = (size_t)3 * H * W;
            float *got = malloc(len * sizeof *got); /* [3, H, W] */
            ck_assert_int_eq(tf__image_preprocess_run(&p, &img, TF_IMAGE_MAX_PIXELS, got, len),
                             TF_OK);
            char file[512];
            snprintf(file, sizeof file, "%s.%s.f32", name, config);
            size_t n;
            float *want = (float *)read_bytes("expected", file, &n);
            ck_assert_uint_eq(n, len * sizeof(float));
            double worst = 0.0;
            for (size_t i = 0; i < len; i++)
                worst = fmax(worst, fabs((double)got[i] - want[i]));
            ck_assert_msg(worst <= 1e-6, "%s %s: max |error| %g", name, config, worst);
            free(want);
            free(got);
            tf__image_free(&img);
            count++;
        }
    }
    ck_assert_int_ge(count, 40);
    cJSON_Delete(root);
}
END_TEST

/* A photograph resized (downscaled, bicubic) and cropped to 112 as CLIP
 * does, rescale and normalise off: the tensor is PIL's uint8 crop. */
START_TEST(photo_resized_as_pil)
{
    cJSON *root = expected();
    const cJSON *spec = json_at(root, "clip_112");
    const char *name = json_at(spec, "image")->valuestring;
    tf__image_preprocess p;
    read_config("clip_112", &p);
    tf__image img = decode_file(name);
    const size_t len = 3 * 112 * 112;
    float *got = malloc(len * sizeof *got); /* [3, 112, 112] */
    ck_assert_int_eq(tf__image_preprocess_run(&p, &img, TF_IMAGE_MAX_PIXELS, got, len), TF_OK);
    char file[512];
    snprintf(file, sizeof file, "%s.clip_112.rgb", name);
    size_t n;
    uint8_t *want = read_bytes("expected", file, &n); /* [112, 112, 3] */
    ck_assert_uint_eq(n, len);
    size_t differ = 0;
    for (size_t c = 0; c < 3; c++)
        for (size_t i = 0; i < 112 * 112; i++)
            differ += got[c * 112 * 112 + i] != (float)want[3 * i + c];
    ck_assert_msg(differ == 0, "%zu of %zu values differ from PIL's resize", differ, len);
    free(want);
    free(got);
    tf__image_free(&img);
    cJSON_Delete(root);
}
END_TEST

/* Bytes written to file descriptor 2 (stderr) between stderr_capture and
 * stderr_release: libjpeg, libpng and libwebp must print nothing. */
static int saved_stderr = -1;
static FILE *captured;

static void stderr_capture(void)
{
    fflush(stderr);
    captured = tmpfile();
    ck_assert_ptr_nonnull(captured);
    saved_stderr = dup(2);
    ck_assert_int_eq(dup2(fileno(captured), 2), 2);
}

static long stderr_release(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    const long n = ftell(captured);
    fclose(captured);
    return n;
}

START_TEST(hostile_refused)
{
    cJSON *root = expected();
    const cJSON *entry;
    int count = 0;
    stderr_capture();
    cJSON_ArrayForEach(entry, json_at(root, "hostile"))
    {
        const char *name = json_at(entry, "name")->valuestring;
        const int max_pixels = json_int(entry, "max_pixels");
        size_t n;
        uint8_t *data = read_bytes("hostile", name, &n);
        tf__image img;
        const tf_status st = tf__image_decode(
            data, n, max_pixels ? max_pixels : TF_IMAGE_MAX_PIXELS, name, &img);
        ck_assert_msg((int32_t)st == tf_status_from_name(json_at(entry, "status")->valuestring),
                      "%s: %s (%s)", name, tf_status_name(st), tf_last_error());
        ck_assert_str_eq(tf_last_error(), json_at(entry, "message")->valuestring);
        ck_assert_ptr_null(img.rgb);
        free(data);
        count++;
    }
    ck_assert_int_eq(stderr_release(), 0);
    ck_assert_int_ge(count, 15);
    cJSON_Delete(root);
}
END_TEST

START_TEST(file_read_by_path)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/files/rgb_17x11.png", images_dir);
    tf__image img;
    ck_assert_int_eq(tf__image_read_file(path, TF_IMAGE_MAX_PIXELS, &img), TF_OK);
    ck_assert_int_eq(img.height, 11);
    ck_assert_int_eq(img.width, 17);
    tf__image_free(&img);
    snprintf(path, sizeof path, "%s/files", images_dir);
    ck_assert_int_eq(tf__image_read_file(path, TF_IMAGE_MAX_PIXELS, &img), TF_ERR_IO);
    ck_assert_ptr_null(img.rgb);
}
END_TEST

/* An image whose shortest_edge resize would be enormous, and an output
 * buffer too small: refused before anything is computed. */
START_TEST(preprocess_bounds)
{
    tf__image thin;
    ck_assert_int_eq(tf__image_alloc(1, 1000, &thin), TF_OK);
    memset(thin.rgb, 7, 3000);
    tf__image_preprocess p;
    tf__image_processor_defaults(TF_IMAGE_PROCESSOR_CLIP, &p);
    float out[3 * 224 * 224];
    ck_assert_int_eq(tf__image_preprocess_run(&p, &thin, 1000000, out, 3 * 224 * 224),
                     TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(),
                     "image preprocessing: a 1000 x 1 image resized to 224000 x 224 = "
                     "50176000 pixels, outside 1..1000000");
    ck_assert_int_eq(tf__image_preprocess_run(&p, &thin, TF_IMAGE_MAX_PIXELS, out, 100),
                     TF_ERR_SHAPE);
    ck_assert_str_eq(tf_last_error(),
                     "image preprocessing: out holds 100 floats, pixel_values "
                     "[3, 224, 224] needs 150528");
    p.resample = TF_RESAMPLE_NEAREST;
    ck_assert_int_eq(tf__image_preprocess_run(&p, &thin, TF_IMAGE_MAX_PIXELS, out, sizeof out),
                     TF_ERR_INVALID_ARGUMENT);
    tf__image_free(&thin);
}
END_TEST

/* preprocessor_config.json's refusals: [json, status, message]. */
static const char *const config_cases[][3] = {
    {"{\"image_processor_type\": \"CLIPImageProcessorFast\"}", "TF_ERR_UNSUPPORTED",
     "pc.json: image_processor_type \"CLIPImageProcessorFast\" is not supported; "
     "CLIPImageProcessor, SiglipImageProcessor and ViTImageProcessor are"},
    {"{\"size\": 224}", "TF_ERR_FORMAT",
     "pc.json: names no image processor (image_processor_type or feature_extractor_type)"},
    {"{\"image_processor_type\": \"SiglipImageProcessor\", \"size\": 224}", "TF_ERR_UNSUPPORTED",
     "pc.json: size 224: SiglipImageProcessor reads size as {\"height\", \"width\"}"},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"size\": {\"shortest_edge\": 224}}",
     "TF_ERR_UNSUPPORTED",
     "pc.json: size {\"shortest_edge\":224} is not supported; {\"height\", \"width\"} is"},
    {"{\"image_processor_type\": \"CLIPImageProcessor\", \"size\": {\"longest_edge\": 224}}",
     "TF_ERR_UNSUPPORTED",
     "pc.json: size {\"longest_edge\":224} is not supported; {\"shortest_edge\"} or "
     "{\"height\", \"width\"} is"},
    {"{\"image_processor_type\": \"CLIPImageProcessor\", \"size\": 0}", "TF_ERR_FORMAT",
     "pc.json: size must be an integer in 1..16384, got 0"},
    {"{\"image_processor_type\": \"CLIPImageProcessor\", \"crop_size\": [224, 2.5]}",
     "TF_ERR_FORMAT", "pc.json: crop_size must be an integer in 1..16384, got 2.5"},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"resample\": 0}", "TF_ERR_UNSUPPORTED",
     "pc.json: resample 0 (NEAREST) is not supported; 1 LANCZOS, 2 BILINEAR, 3 BICUBIC, 4 BOX "
     "and 5 HAMMING are"},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"resample\": 6}", "TF_ERR_FORMAT",
     "pc.json: resample must be an integer in 0..5, got 6"},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"image_std\": [0.5, 0, 0.5]}",
     "TF_ERR_FORMAT",
     "pc.json: image_std must be a non-zero finite number or 3 of them, got [0.5,0,0.5]"},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"image_mean\": [0.5, 0.5]}",
     "TF_ERR_FORMAT", "pc.json: image_mean must be a finite number or 3 of them, got [0.5,0.5]"},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"do_resize\": \"yes\"}", "TF_ERR_FORMAT",
     "pc.json: do_resize must be true or false, got \"yes\""},
    {"{\"image_processor_type\": \"ViTImageProcessor\", \"rescale_factor\": \"1/255\"}",
     "TF_ERR_FORMAT", "pc.json: rescale_factor must be a finite number, got \"1/255\""},
    {"[1, 2]", "TF_ERR_FORMAT", "pc.json: not a JSON object"},
};

START_TEST(config_refused)
{
    const char *const *c = config_cases[_i];
    tf__image_processor kind = TF_IMAGE_PROCESSOR_VIT;
    tf__image_preprocess p;
    memset(&p, 0xab, sizeof p);
    const tf__image_preprocess before = p;
    const tf_status st = tf__image_config_parse(c[0], strlen(c[0]), "pc.json", &kind, &p);
    ck_assert_msg((int32_t)st == tf_status_from_name(c[1]), "%s: %s (%s)", c[0], tf_status_name(st),
                  tf_last_error());
    ck_assert_str_eq(tf_last_error(), c[2]);
    ck_assert_int_eq(kind, TF_IMAGE_PROCESSOR_VIT);
    ck_assert_int_eq(memcmp(&p, &before, sizeof p), 0);
}
END_TEST

/* The Hub's own files as they are written: the defaults and the fields. */
START_TEST(config_read_as_upstream)
{
    static const char clip[] =
        "{\"crop_size\": 224, \"do_center_crop\": true, \"do_normalize\": true, \"do_resize\": "
        "true, \"feature_extractor_type\": \"CLIPFeatureExtractor\", \"image_mean\": "
        "[0.48145466, 0.4578275, 0.40821073], \"image_std\": [0.26862954, 0.26130258, "
        "0.27577711], \"resample\": 3, \"size\": 224}";
    tf__image_processor kind;
    tf__image_preprocess p;
    ck_assert_int_eq(tf__image_config_parse(clip, strlen(clip), "clip", &kind, &p), TF_OK);
    ck_assert_int_eq(kind, TF_IMAGE_PROCESSOR_CLIP);
    ck_assert_int_eq(p.shortest_edge, 224);
    ck_assert_int_eq(p.crop_height, 224);
    ck_assert_int_eq(p.crop_width, 224);
    ck_assert_int_eq(p.resample, TF_RESAMPLE_BICUBIC);
    ck_assert(p.do_rescale && p.rescale_factor == 1.0 / 255);
    ck_assert(p.std[2] == 0.27577711f);
    static const char vit[] = "{\"image_processor_type\": \"ViTImageProcessor\"}";
    ck_assert_int_eq(tf__image_config_parse(vit, strlen(vit), "vit", &kind, &p), TF_OK);
    ck_assert_int_eq(kind, TF_IMAGE_PROCESSOR_VIT);
    ck_assert_int_eq(p.shortest_edge, 0);
    ck_assert_int_eq(p.resize_height, 224);
    ck_assert_int_eq(p.resample, TF_RESAMPLE_BILINEAR);
    ck_assert_int_eq(p.do_center_crop, 0);
    ck_assert(p.mean[0] == 0.5f && p.std[1] == 0.5f);
}
END_TEST

/* A library built without libjpeg, libpng and libwebp refuses each format
 * by name, pointing at the build option. */
START_TEST(decoders_absent)
{
    static const char *const files[] = {"rgb_q90_23x17.jpg", "rgb_17x11.png", "lossy_19x11.webp"};
    static const char *const formats[] = {"JPEG", "PNG", "WebP"};
    for (int i = 0; i < 3; i++) {
        size_t n;
        uint8_t *data = read_bytes("files", files[i], &n);
        tf__image img;
        ck_assert_int_eq(tf__image_decode(data, n, TF_IMAGE_MAX_PIXELS, "x", &img),
                         TF_ERR_UNSUPPORTED);
        char want[256];
        snprintf(want, sizeof want,
                 "x: a %s image, and this libtfenc was built without image decoding (meson "
                 "-Dimages=enabled needs libjpeg, libpng and libwebp)",
                 formats[i]);
        ck_assert_str_eq(tf_last_error(), want);
        free(data);
    }
}
END_TEST

int main(void)
{
    const char *data = getenv("TFENC_DATA_DIR");
    if (!data)
        return 77;
    snprintf(images_dir, sizeof images_dir, "%s/images", data);
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/expected.json", images_dir);
    FILE *f = fopen(probe, "rb");
    if (!f) {
        fprintf(stderr, "%s: missing (run tests/data/gen_images.py)\n", probe);
        return 77;
    }
    fclose(f);
    Suite *s = suite_create("image");
    TCase *tc = tcase_create("image");
    if (TFENC_TEST_DECODERS) {
        tcase_add_test(tc, decoded_as_pil);
        tcase_add_test(tc, preprocessed_as_transformers);
        tcase_add_test(tc, photo_resized_as_pil);
        tcase_add_test(tc, hostile_refused);
        tcase_add_test(tc, file_read_by_path);
    } else {
        tcase_add_test(tc, decoders_absent);
    }
    tcase_add_test(tc, preprocess_bounds);
    tcase_add_loop_test(tc, config_refused, 0, sizeof config_cases / sizeof config_cases[0]);
    tcase_add_test(tc, config_read_as_upstream);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
