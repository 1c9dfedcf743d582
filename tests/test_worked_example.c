/* test_worked_example.c — the tutorial's section 3.3 worked example
 * (3 tokens, d_k = 2), reproduced twice: through the library's attention
 * module directly, and through the public API with weights chosen so that
 * the model's Q and K are the tutorial's:
 *   Q = [[0.1,0.2],[0.5,0.6],[0.9,1.0]]   K = [[0.3,0.4],[0.7,0.8],[1.1,1.2]]
 *   Q K^T          = [[0.11,0.23,0.35],[0.39,0.83,1.27],[0.67,1.43,2.19]]
 *   / sqrt 2       = [[0.078,0.163,0.248],[0.276,0.587,0.898],[0.474,1.011,1.549]]
 *   softmax rows  ~= [0.305,0.333,0.362], [0.237,0.323,0.440], [0.177,0.303,0.520]
 * The tutorial prints three decimals; the exact values are checked against
 * float64 too. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "common/suite.h"
#include "tfenc.h"

static const float Q[3][2] = {{0.1f, 0.2f}, {0.5f, 0.6f}, {0.9f, 1.0f}};
static const float K[3][2] = {{0.3f, 0.4f}, {0.7f, 0.8f}, {1.1f, 1.2f}};
static const double tutorial_scaled[3][3] = {
    {0.078, 0.163, 0.248}, {0.276, 0.587, 0.898}, {0.474, 1.011, 1.549}};
static const double tutorial_weights[3][3] = {
    {0.305, 0.333, 0.362}, {0.237, 0.323, 0.440}, {0.177, 0.303, 0.520}};

/* softmax(Q K^T / sqrt 2) in float64 from the same float inputs. */
static void exact_weights(double w[3][3], double scaled[3][3])
{
    for (int i = 0; i < 3; i++) {
        double sum = 0;
        for (int j = 0; j < 3; j++) {
            scaled[i][j] = ((double)Q[i][0] * K[j][0] + (double)Q[i][1] * K[j][1]) / sqrt(2.0);
            sum += w[i][j] = exp(scaled[i][j]);
        }
        for (int j = 0; j < 3; j++)
            w[i][j] /= sum;
    }
}

static void check_against_tutorial(const float *scores, const float *weights)
{
    double exact_w[3][3], exact_s[3][3];
    exact_weights(exact_w, exact_s);
    for (int i = 0; i < 3; i++) {
        float row_sum = 0;
        for (int j = 0; j < 3; j++) {
            ck_assert_double_eq_tol(scores[i * 3 + j], tutorial_scaled[i][j], 1e-3);
            ck_assert_double_eq_tol(scores[i * 3 + j], exact_s[i][j], 1e-6);
            ck_assert_double_eq_tol(weights[i * 3 + j], tutorial_weights[i][j], 1e-3);
            ck_assert_double_eq_tol(weights[i * 3 + j], exact_w[i][j], 1e-6);
            row_sum += weights[i * 3 + j];
        }
        ck_assert_float_eq_tol(row_sum, 1.0f, 1e-6f);
    }
}

START_TEST(test_attention_module)
{
    /* qkv (3, 3*2): [Q_i | K_i | V_i] with V = one-hot rows, so the
     * context rows show the weights too. */
    float qkv[3 * 6] = {0};
    for (int i = 0; i < 3; i++)
        for (int e = 0; e < 2; e++) {
            qkv[i * 6 + e] = Q[i][e];
            qkv[i * 6 + 2 + e] = K[i][e];
        }
    qkv[0 * 6 + 4] = 1.0f; /* V = [[1,0],[0,1],[0,0]] */
    qkv[1 * 6 + 5] = 1.0f;
    const int32_t lengths[1] = {3};
    const size_t row_start[1] = {0};
    const tf__batch batch = {
        .B = 1, .T = 3, .max_len = 3, .N = 3, .lengths = lengths, .row_start = row_start};
    const tf__attn_mask none = {0};
    float ctx[3 * 2], weights[9], scores[9], scratch[9];
    tf__attention(ctx, weights, scores, scratch, qkv, &batch, &none, 2, 1);
    check_against_tutorial(scores, weights);
    for (int i = 0; i < 3; i++) { /* ctx = weights . V */
        ck_assert_float_eq_tol(ctx[i * 2 + 0], weights[i * 3 + 0], 1e-7f);
        ck_assert_float_eq_tol(ctx[i * 2 + 1], weights[i * 3 + 1], 1e-7f);
    }
}
END_TEST

typedef struct captured {
    float scores[9];
} captured;

static void capture_scores(const tf_trace_event *ev, void *user)
{
    if (strcmp(ev->name, "layers.0.attn.scores") == 0)
        for (int i = 0; i < 9; i++)
            ((captured *)user)->scores[i] = ev->data[i];
}

/* d_model 2, one head, vectors in: x = Q; W_q = I, b_q = 0, so Q = x;
 * W_k = I, b_k = 0.2, so K = x + 0.2 = the tutorial's K. */
START_TEST(test_public_api)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 2, cfg.n_heads = 1, cfg.d_ff = 4, cfg.position = TF_POSITION_NONE;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    const int64_t mat[2] = {2, 2}, vec[1] = {2};
    const float eye[4] = {1, 0, 0, 1}, zero[2] = {0, 0}, shift[2] = {0.2f, 0.2f};
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.q.weight", eye, 2, mat), TF_OK);
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.q.bias", zero, 1, vec), TF_OK);
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.k.weight", eye, 2, mat), TF_OK);
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.k.bias", shift, 1, vec), TF_OK);

    float out[6], attn[9];
    captured cap;
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = 3, a.input_embeds = &Q[0][0], a.output = out, a.attentions = attn;
    a.trace = capture_scores, a.trace_user_data = &cap;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    check_against_tutorial(cap.scores, attn);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("worked_example");
    TCase *tc = tcase_create("tutorial 3.3");
    tcase_add_test(tc, test_attention_module);
    tcase_add_test(tc, test_public_api);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
