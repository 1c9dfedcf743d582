/* test_vision.c — vision towers loaded from Hugging Face folders
 * (tests/data/gen_vision.py writes them, laid out as google/vit-base-patch16-224,
 * a ViTModel, openai/clip-vit-base-patch32, sentence-transformers/clip-ViT-B-32
 * and google/siglip-base-patch16-224) against the float64 references of
 * upstream's code: every output within 1e-5, at the trained 32 x 32 and
 * interpolated to 40 x 56; and the refusals, message by message; a CLIP
 * text tower's pooled row (text_tower.h; its values are test_clip_text's).
 * The internal API (vision.h, vision_folder.h, text_tower_folder.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp (tmp_dir.h) */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "npy.h"
#include "common/suite.h"
#include "tfenc.h"
#include "common/tmp_dir.h"
#include "text_tower_folder.h"
#include "vision.h"
#include "vision_folder.h"

#define TOLERANCE 1e-5

static path_buf vision_dir(const char *name)
{
    return join(join(test_dir("TFENC_DATA_DIR"), "vision").s, name);
}

static tf__vision_model *load(const char *folder)
{
    tf__vision_model *m = NULL;
    const tf_status s = tf__vision_folder_load(vision_dir(folder).s, &m);
    ck_assert_msg(s == TF_OK, "%s: %s", folder, tf_last_error());
    return m;
}

/* pixels_<size>.npy: [2, 3, H, W] */
static npy_array read_pixels(const char *size)
{
    char name[64], err[256];
    snprintf(name, sizeof name, "pixels_%s.npy", size);
    npy_array a;
    ck_assert_msg(npy_read(vision_dir(name).s, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.rank, 4);
    return a;
}

/* got (n) within TOLERANCE of expected.json's case[key], which has n values. */
static void expect_close(const float *got, const cJSON *c, const char *key, size_t n,
                         const char *what)
{
    const cJSON *want = json_at(c, key);
    ck_assert_int_eq(cJSON_GetArraySize(want), (int)n);
    double worst = 0.0;
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, want)
    {
        worst = fmax(worst, fabs((double)got[i] - v->valuedouble));
        ck_assert_msg(isfinite(got[i]), "%s %s[%zu] = %g", what, key, i, (double)got[i]);
        i++;
    }
    printf("%s %s: max abs error %.2e over %zu values\n", what, key, worst, n);
    ck_assert_msg(worst <= TOLERANCE, "%s %s: max abs error %g > %g", what, key, worst, TOLERANCE);
}

static const struct {
    const char *folder;
    int32_t family, n_labels, projection_dim, pooled;
} folders[] = {
    {"vit_classifier", TF_VISION_VIT, 3, 0, 0}, {"vit_model", TF_VISION_VIT, 0, 0, 1},
    {"clip", TF_VISION_CLIP, 0, 24, 1},         {"st_clip", TF_VISION_CLIP, 0, 24, 1},
    {"siglip", TF_VISION_SIGLIP, 0, 0, 1},
};
#define N_FOLDERS (int)(sizeof folders / sizeof *folders)
static const char *const sizes[] = {"32x32", "40x56"};

/* Folder _i / N_SIZES at size _i % N_SIZES: every output it has against the reference. */
START_TEST(test_matches_reference)
{
    const int f = _i / 2;
    const char *size = sizes[_i % 2];
    tf__vision_model *m = load(folders[f].folder);
    const tf__vision_config *c = tf__vision_model_config(m);
    ck_assert_int_eq(c->family, folders[f].family);
    ck_assert_int_eq(c->n_labels, folders[f].n_labels);
    ck_assert_int_eq(c->projection_dim, folders[f].projection_dim);
    npy_array px = read_pixels(size);
    const int32_t B = (int32_t)px.dims[0], H = (int32_t)px.dims[2], W = (int32_t)px.dims[3];
    const int32_t T = tf__vision_tokens(c, H, W);
    const size_t D = (size_t)c->d_model;
    float *hidden = malloc((size_t)B * (size_t)T * D * sizeof(float));
    float *pooled = malloc((size_t)B * D * sizeof(float));
    float *logits = malloc((size_t)B * 3 * sizeof(float));
    float *embeds = malloc((size_t)B * 24 * sizeof(float));
    tf__vision_args a = {.batch = B,
                         .channels = (int32_t)px.dims[1],
                         .height = H,
                         .width = W,
                         .pixel_values = px.data,
                         .interpolate_pos_encoding = H != c->image_size || W != c->image_size,
                         .last_hidden_state = hidden,
                         .pooled_output = folders[f].pooled ? pooled : NULL,
                         .logits = folders[f].n_labels ? logits : NULL,
                         .image_embeds = folders[f].projection_dim ? embeds : NULL};
    ck_assert_msg(tf__vision_forward(m, &a) == TF_OK, "%s", tf_last_error());

    cJSON *root = read_json(join(vision_dir(folders[f].folder).s, "expected.json").s);
    const cJSON *want = json_at(root, size);
    char what[96];
    snprintf(what, sizeof what, "%s %s", folders[f].folder, size);
    expect_close(hidden, want, "last_hidden_state", (size_t)B * (size_t)T * D, what);
    if (a.pooled_output)
        expect_close(pooled, want, "pooled_output", (size_t)B * D, what);
    if (a.logits)
        expect_close(logits, want, "logits", (size_t)B * 3, what);
    if (a.image_embeds)
        expect_close(embeds, want, "image_embeds", (size_t)B * 24, what);
    cJSON_Delete(root);
    free(hidden), free(pooled), free(logits), free(embeds);
    npy_free(&px);
    tf__vision_model_free(m);
}
END_TEST

/* Trace events seen, and whether one was (B, T, D) rows of the call's T. */
typedef struct trace_count {
    int events, saw_tokens;
    int64_t T;
} trace_count;

static void count_event(const tf_trace_event *e, void *user_data)
{
    trace_count *c = user_data;
    c->events++;
    for (int32_t i = 0; i < e->rank; i++)
        c->saw_tokens |= e->dims[i] == c->T;
}

/* hidden_states, attentions and the trace pass through to the encoder: a
 * CLIP tower's last hidden state is its last layer's output (no final
 * norm), each attention row sums to 1, the trace sees the call's tokens. */
START_TEST(test_passes_encoder_outputs)
{
    tf__vision_model *m = load("clip");
    const tf__vision_config *c = tf__vision_model_config(m);
    npy_array px = read_pixels("32x32");
    const size_t B = 2, T = 17, D = (size_t)c->d_model, L = (size_t)c->n_layers,
                 H = (size_t)c->n_heads;
    float *hidden = malloc(B * T * D * sizeof(float));
    float *states = malloc((L + 1) * B * T * D * sizeof(float));
    float *attn = malloc(L * B * H * T * T * sizeof(float));
    trace_count count = {.T = (int64_t)T};
    const tf__vision_args a = {.batch = 2,
                               .channels = 3,
                               .height = 32,
                               .width = 32,
                               .pixel_values = px.data,
                               .last_hidden_state = hidden,
                               .hidden_states = states,
                               .attentions = attn,
                               .trace = count_event,
                               .trace_user_data = &count};
    ck_assert_msg(tf__vision_forward(m, &a) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(memcmp(states + L * B * T * D, hidden, B * T * D * sizeof(float)), 0);
    for (size_t row = 0; row < L * B * H * T; row++) {
        double sum = 0.0;
        for (size_t k = 0; k < T; k++)
            sum += attn[row * T + k];
        ck_assert_double_eq_tol(sum, 1.0, 1e-5);
    }
    ck_assert_int_gt(count.events, 0);
    ck_assert_int_eq(count.saw_tokens, 1);
    free(hidden), free(states), free(attn);
    npy_free(&px);
    tf__vision_model_free(m);
}
END_TEST

/* A refused call writes nothing: the output keeps its sentinel. */
static void expect_untouched(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_float_eq(x[i], 7.0f);
}

START_TEST(test_refuses_pixels)
{
    tf__vision_model *m = load("vit_classifier");
    npy_array px = read_pixels("40x56");
    enum { OUT = 2 * 36 * 32 };
    float out[OUT];
    for (size_t i = 0; i < OUT; i++)
        out[i] = 7.0f;
    tf__vision_args a = {.batch = 2,
                         .channels = 3,
                         .height = 40,
                         .width = 56,
                         .pixel_values = px.data,
                         .last_hidden_state = out};
    expect_message(tf__vision_forward(m, &a), TF_ERR_SHAPE,
                   "pixel_values: input image size (40*56) doesn't match model (32*32); "
                   "interpolate_pos_encoding resizes the positions to it");
    a.interpolate_pos_encoding = 1;
    a.height = 36;
    expect_message(tf__vision_forward(m, &a), TF_ERR_SHAPE,
                   "pixel_values: height 36 is not a positive multiple of patch_size 8");
    a.height = 40, a.width = 0;
    expect_message(tf__vision_forward(m, &a), TF_ERR_SHAPE,
                   "pixel_values: width 0 is not a positive multiple of patch_size 8");
    a.width = 56, a.channels = 1;
    expect_message(tf__vision_forward(m, &a), TF_ERR_SHAPE,
                   "pixel_values: 1 channels, the model's num_channels is 3");
    a.channels = 3, a.batch = 0;
    expect_message(tf__vision_forward(m, &a), TF_ERR_INVALID_ARGUMENT,
                   "vision: batch must be >= 1, got 0");
    a.batch = 2;
    float *pixels = px.data;
    pixels[((1 * 3 + 2) * 40 + 5) * 56 + 7] = NAN; /* [1, 2, 5, 7] */
    expect_message(tf__vision_forward(m, &a), TF_ERR_INVALID_ARGUMENT,
                   "pixel_values[1, 2, 5, 7] is nan; pixels must be finite");
    expect_untouched(out, OUT);
    npy_free(&px);
    tf__vision_model_free(m);
}
END_TEST

/* Each output asked of a tower that has no head for it. */
START_TEST(test_refuses_outputs)
{
    float px[2 * 3 * 32 * 32] = {0}, out[2 * 32];
    tf__vision_args a = {.batch = 2, .channels = 3, .height = 32, .width = 32, .pixel_values = px};
    tf__vision_model *vit = load("vit_classifier"), *clip = load("clip");
    a.pooled_output = out;
    expect_message(tf__vision_forward(vit, &a), TF_ERR_INVALID_ARGUMENT,
                   "pooled_output: this vit tower has no pooler (nor pooling head)");
    a.pooled_output = NULL, a.image_embeds = out;
    expect_message(tf__vision_forward(vit, &a), TF_ERR_INVALID_ARGUMENT,
                   "image_embeds: this vit tower has no visual_projection");
    a.image_embeds = NULL, a.logits = out;
    expect_message(tf__vision_forward(clip, &a), TF_ERR_INVALID_ARGUMENT,
                   "logits: this clip tower has no classifier");
    tf__vision_model_free(vit);
    tf__vision_model_free(clip);
}
END_TEST

static const struct {
    const char *folder;
    tf_status status;
    const char *message;
} malformed[] = {
    {"missing", TF_ERR_FORMAT,
     "model.safetensors: missing tensor 'vision_model.post_layernorm.bias' [32] (from "
     "config.json)"},
    {"misshapen", TF_ERR_SHAPE,
     "model.safetensors: vision_model.encoder.layers.1.mlp.fc1.weight: expected [64, 32] (from "
     "config.json), got [64, 31]"},
    {"extra", TF_ERR_FORMAT,
     "model.safetensors: tensor 'vision_model.encoder.layers.2.mlp.fc1.weight' is not one of a "
     "clip tower with this config.json"},
    {"hidden_act", TF_ERR_UNSUPPORTED,
     "config.json: hidden_act \"gelu_fast\" is not supported (gelu, gelu_pytorch_tanh, gelu_new, "
     "quick_gelu, relu, silu, swish are)"},
    {"model_type", TF_ERR_UNSUPPORTED,
     "config.json: model_type \"blip\" is not a vision model this library computes (vit, clip, "
     "clip_vision_model, siglip, siglip_vision_model are)"},
};

START_TEST(test_refuses_folder)
{
    char name[64];
    snprintf(name, sizeof name, "malformed/%s", malformed[_i].folder);
    tf__vision_model *m = (tf__vision_model *)&m; /* a value the failure must clear */
    expect_message(tf__vision_folder_load(vision_dir(name).s, &m), malformed[_i].status,
                   malformed[_i].message);
    ck_assert_ptr_null(m);
}
END_TEST

/* Configs that cannot be a tower, refused by field. */
START_TEST(test_refuses_config)
{
    tf__vision_config c;
    tf__vision_model *m = NULL;
    tf__vision_config_defaults(&c, TF_VISION_VIT);
    c.image_size = 30, c.patch_size = 8;
    expect_message(tf__vision_model_new(&c, &m), TF_ERR_INVALID_ARGUMENT,
                   "vision config: image_size 30 is not a multiple of patch_size 8");
    tf__vision_config_defaults(&c, TF_VISION_VIT);
    c.projection_dim = 24;
    expect_message(tf__vision_model_new(&c, &m), TF_ERR_INVALID_ARGUMENT,
                   "vision config: projection_dim 24 is a clip head; this tower is vit");
    tf__vision_config_defaults(&c, TF_VISION_SIGLIP);
    c.layer_norm_eps = 0.0f;
    expect_message(tf__vision_model_new(&c, &m), TF_ERR_INVALID_ARGUMENT,
                   "vision config: layer_norm_eps must be positive and finite, got 0");
    ck_assert_ptr_null(m);
}
END_TEST

/* The positions resized as torch's bicubic resize does: to the same grid
 * they are unchanged; a constant table stays constant (the weights of
 * each axis sum to 1). */
START_TEST(test_interpolation_identities)
{
    enum { G = 4, DIM = 3 };
    float table[G * G * DIM], out[7 * 5 * DIM];
    for (int i = 0; i < G * G * DIM; i++)
        table[i] = (float)(i % 11) - 5.0f;
    tf__vision_interpolate_positions(out, table, G, G, G, DIM);
    for (int i = 0; i < G * G * DIM; i++)
        ck_assert_float_eq(out[i], table[i]);
    for (int i = 0; i < G * G * DIM; i++)
        table[i] = 2.5f;
    tf__vision_interpolate_positions(out, table, G, 7, 5, DIM);
    for (int i = 0; i < 7 * 5 * DIM; i++)
        ck_assert_float_eq_tol(out[i], 2.5f, 1e-6f);
}
END_TEST

/* A text tower pools the row upstream picks: with CLIP's legacy eos_token_id 2
 * the largest id; one that falls in the padding is refused, naming the text. */
START_TEST(test_text_tower_refuses_a_padding_row)
{
    path_buf dir = join(join(test_dir("TFENC_DATA_DIR"), "clip_text").s, "clip");
    tf__text_folder t;
    ck_assert_msg(tf__text_folder_load(dir.s, &t) == TF_OK, "%s", tf_last_error());
    const tf__text_config *c = tf__text_tower_config(t.tower);
    ck_assert_int_eq(tf__text_pooling_of(c), TF_TEXT_POOL_EOS_ARGMAX);
    ck_assert_int_eq(tf__text_causal(c), 1);
    const int32_t top = c->vocab_size - 1; /* <|endoftext|>, the largest id */
    /* [2, 4]: the second row's largest id is its padding */
    const int32_t ids[] = {top - 1, 3, top, top, top - 1, 3, 4, top};
    const int32_t mask[] = {1, 1, 1, 0, 1, 1, 1, 0};
    float out[2 * 24] = {0};
    expect_message(tf__text_tower_forward(t.tower, ids, mask, 2, 4, 7, 1, out),
                   TF_ERR_INVALID_ARGUMENT,
                   "text 8: the pooled position 3 (its largest id) is padding: the text has 3 "
                   "tokens");
    for (size_t i = 0; i < 2 * 24; i++)
        ck_assert_float_eq(out[i], 0.0f);
    ck_assert_int_eq(tf__text_tower_forward(t.tower, ids, mask, 1, 4, 0, 1, out), TF_OK);
    tf__text_folder_free(&t);
}
END_TEST

static Suite *vision_suite(void)
{
    Suite *s = suite_create("vision");
    TCase *tc = tcase_create("vision");
    tcase_add_loop_test(tc, test_matches_reference, 0, 2 * N_FOLDERS);
    tcase_add_test(tc, test_passes_encoder_outputs);
    tcase_add_test(tc, test_refuses_pixels);
    tcase_add_test(tc, test_refuses_outputs);
    tcase_add_loop_test(tc, test_refuses_folder, 0, (int)(sizeof malformed / sizeof *malformed));
    tcase_add_test(tc, test_refuses_config);
    tcase_add_test(tc, test_interpolation_identities);
    tcase_add_test(tc, test_text_tower_refuses_a_padding_row);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(vision_suite());
}
