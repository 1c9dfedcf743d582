/* test_image_trace.c — tf_image_args.trace (tfenc.h's "Tracing an image")
 * and tf_model_is_image through the public API, on the folders of
 * tests/data/image_pipeline/: the events of each family in their order with
 * their shapes; the encoder's input is the class token and the patches
 * with their positions added; every attention row sums to 1; tracing
 * changes no output; a batch of two images decodes twice, then runs once;
 * pixel_values in has no decoding to show. */
#define _XOPEN_SOURCE 700 /* mkdtemp, in tmp_dir.h */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

/* Every event of a call: its name and shape, a copy of its data. */
#define MAX_EVENTS 64
typedef struct event_log {
    int n;
    char names[MAX_EVENTS][64];
    int32_t ranks[MAX_EVENTS];
    int64_t dims[MAX_EVENTS][TF_MAX_RANK];
    float *data[MAX_EVENTS];
} event_log;

static void record(const tf_trace_event *e, void *user)
{
    event_log *log = user;
    ck_assert_int_lt(log->n, MAX_EVENTS);
    const int i = log->n++;
    snprintf(log->names[i], sizeof log->names[i], "%s", e->name);
    log->ranks[i] = e->rank;
    size_t count = 1;
    for (int32_t k = 0; k < e->rank; k++)
        count *= (size_t)(log->dims[i][k] = e->dims[k]);
    log->data[i] = malloc(count * sizeof(float));
    ck_assert_ptr_nonnull(log->data[i]);
    memcpy(log->data[i], e->data, count * sizeof(float));
}

static void log_free(event_log *log)
{
    for (int i = 0; i < log->n; i++)
        free(log->data[i]);
}

/* The index of the event called name, or -1. */
static int find(const event_log *log, const char *name)
{
    for (int i = 0; i < log->n; i++)
        if (!strcmp(log->names[i], name))
            return i;
    return -1;
}

/* Event name is there with the shape dims (rank n). */
static int expect_shape(const event_log *log, const char *name, int n, const int64_t *dims)
{
    const int i = find(log, name);
    ck_assert_msg(i >= 0, "no event %s", name);
    ck_assert_int_eq(log->ranks[i], n);
    for (int k = 0; k < n; k++)
        ck_assert_msg(log->dims[i][k] == dims[k], "%s: dimension %d is %lld, expected %lld", name,
                      k, (long long)log->dims[i][k], (long long)dims[k]);
    return i;
}

static tf_pipeline *load(const char *name)
{
    tf_pipeline *p = NULL;
    const tf_status s = tf_pipeline_load(join(join(data_dir, "image_pipeline").s, name).s, NULL,
                                         &p);
    ck_assert_msg(s == TF_OK, "%s: %s", name, tf_last_error());
    return p;
}

static const struct {
    const char *name;
    int cls; /* a class token */
} families[] = {{"clip", 1}, {"siglip", 0}, {"vit_classifier", 1}};

/* n copies of one photograph (90 x 60) through p, traced into log (or not,
 * log NULL), the outputs into out [n, dim]. */
static void run_photo(const tf_pipeline *p, event_log *log, float *out, size_t out_len, int n)
{
    size_t size;
    char *bytes = read_file(
        join(join(join(data_dir, "images").s, "files").s, "photo_chelsea_90x60.png").s, &size);
    const uint8_t *const data[2] = {(const uint8_t *)bytes, (const uint8_t *)bytes};
    const size_t sizes[2] = {size, size};
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = (size_t)n, a.data = data, a.sizes = sizes, a.out = out, a.out_len = out_len;
    a.trace = log ? record : NULL, a.trace_user_data = log;
    const tf_status s = tf_pipeline_kind_of(p) == TF_PIPELINE_IMAGE_CLASSIFIER
        ? tf_pipeline_classify_images(p, &a)
        : tf_pipeline_embed_images(p, &a);
    ck_assert_msg(s == TF_OK, "%s", tf_last_error());
    free(bytes);
}

/* Each row of the last dimension of event i sums to 1. */
static void expect_rows_sum_to_one(const event_log *log, int i)
{
    const int64_t width = log->dims[i][log->ranks[i] - 1];
    int64_t count = 1;
    for (int32_t k = 0; k < log->ranks[i]; k++)
        count *= log->dims[i][k];
    for (int64_t r = 0; r < count / width; r++) {
        double sum = 0;
        for (int64_t j = 0; j < width; j++)
            sum += log->data[i][r * width + j];
        ck_assert_msg(fabs(sum - 1.0) < 1e-5, "%s row %lld sums to %g", log->names[i], (long long)r,
                      sum);
    }
}

START_TEST(test_events_of_each_family)
{
    const int cls = families[_i].cls, P = 16, T = P + cls, D = 32, H = 2;
    tf_pipeline *p = load(families[_i].name);
    const size_t dim = (size_t)tf_pipeline_dim(p);
    float *traced = calloc(dim, sizeof *traced), *plain = calloc(dim, sizeof *plain);
    event_log log = {0};
    run_photo(p, &log, traced, dim, 1);
    run_photo(p, NULL, plain, dim, 1);
    ck_assert_mem_eq(traced, plain, dim * sizeof *plain); /* tracing changes nothing */

    const int64_t decoded[] = {60, 90, 3}, pixels[] = {1, 3, 32, 32}, patches[] = {1, P, D};
    const int64_t position[] = {T, D}, token[] = {1, T, D}, d[] = {D};
    const int64_t weights[] = {1, H, T, T}, probe[] = {1, H, 1, T};
    ck_assert_int_eq(expect_shape(&log, "image.decoded", 3, decoded), 0);
    ck_assert_int_eq(find(&log, "image.resized"), 1);
    const int at_pixels = expect_shape(&log, "pixel_values", 4, pixels);
    const int at_patches = expect_shape(&log, "embed.patches", 3, patches);
    const int at_position = expect_shape(&log, "embed.position", 2, position);
    const int at_token = expect_shape(&log, "embed.token", 3, token);
    ck_assert_int_lt(at_pixels, at_patches);
    ck_assert_int_lt(at_position, at_token);
    ck_assert_int_eq(find(&log, "embed.class_token") >= 0, cls);
    ck_assert_int_eq(find(&log, "head.attn.weights") >= 0, !cls);
    /* embed.token = [class token + position 0 |] patches + their positions */
    const float *x = log.data[at_token], *pos = log.data[at_position];
    const float *cls_token = cls ? log.data[expect_shape(&log, "embed.class_token", 1, d)] : NULL;
    for (int t = 0; t < T; t++)
        for (int k = 0; k < D; k++) {
            const float in = t < cls ? cls_token[k] : log.data[at_patches][(t - cls) * D + k];
            ck_assert_float_eq_tol(x[t * D + k], in + pos[t * D + k], 1e-6f);
        }
    expect_rows_sum_to_one(&log, expect_shape(&log, "layers.0.attn.weights", 4, weights));
    expect_rows_sum_to_one(&log, expect_shape(&log, "layers.1.attn.weights", 4, weights));
    if (!cls) {
        const int at_probe = expect_shape(&log, "head.attn.weights", 4, probe);
        ck_assert_int_eq(at_probe, log.n - 1); /* after the layers and final_norm */
        expect_rows_sum_to_one(&log, at_probe);
    }
    log_free(&log);
    free(traced);
    free(plain);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_batch_decodes_each_image_then_runs_once)
{
    tf_pipeline *p = load("siglip");
    float out[2 * 32];
    event_log log = {0};
    run_photo(p, &log, out, 2 * 32, 2);
    /* SigLIP resizes to 32 x 32 itself: decoded, resized; decoded, resized; the batch */
    ck_assert_str_eq(log.names[0], "image.decoded");
    ck_assert_str_eq(log.names[1], "image.resized");
    ck_assert_str_eq(log.names[2], "image.decoded");
    ck_assert_str_eq(log.names[3], "image.resized");
    ck_assert_str_eq(log.names[4], "pixel_values");
    ck_assert_int_eq(log.dims[4][0], 2);
    ck_assert_int_eq(find(&log, "pixel_values"), 4);
    log_free(&log);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_pixel_values_have_no_decoding)
{
    tf_pipeline *p = load("vit_model");
    float *px = calloc(3 * 32 * 32, sizeof *px), out[32];
    event_log log = {0};
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 1, a.pixel_values = px, a.height = a.width = 32, a.out = out, a.out_len = 32;
    a.trace = record, a.trace_user_data = &log;
    ck_assert_msg(tf_pipeline_embed_images(p, &a) == TF_OK, "%s", tf_last_error());
    ck_assert_str_eq(log.names[0], "pixel_values");
    ck_assert_int_eq(find(&log, "image.decoded"), -1);
    log_free(&log);
    free(px);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_model_is_image)
{
    static const char *const images[] = {"vision/clip", "vision/st_clip", "vision/siglip",
                                         "vision/vit_model", "image_pipeline/vit_classifier"};
    static const char *const others[] = {"bert_tiny", "no-such-folder", "vision/malformed"};
    int32_t is_image = -1;
    for (size_t i = 0; i < sizeof images / sizeof *images; i++) {
        ck_assert_int_eq(tf_model_is_image(join(data_dir, images[i]).s, &is_image), TF_OK);
        ck_assert_msg(is_image == 1, "%s", images[i]);
    }
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        is_image = -1;
        ck_assert_msg(tf_model_is_image(join(data_dir, others[i]).s, &is_image) == TF_OK, "%s: %s",
                      others[i], tf_last_error());
        ck_assert_msg(is_image == 0, "%s", others[i]);
    }
    ck_assert_int_eq(tf_model_is_image(NULL, &is_image), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "path is NULL");
    ck_assert_int_eq(tf_model_is_image(data_dir, NULL), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "is_image is NULL");
}
END_TEST

static Suite *image_trace_suite(void)
{
    Suite *s = suite_create("image_trace");
    TCase *tc = tcase_create("image_trace");
    tcase_add_loop_test(tc, test_events_of_each_family, 0,
                        (int)(sizeof families / sizeof *families));
    tcase_add_test(tc, test_batch_decodes_each_image_then_runs_once);
    tcase_add_test(tc, test_pixel_values_have_no_decoding);
    tcase_add_test(tc, test_model_is_image);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    return run_suite(image_trace_suite());
}
