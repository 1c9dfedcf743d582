/* test_numerics.c — never a silent NaN: +inf and NaN in an additive mask are
 * refused; a float32 overflow from finite inputs or weights stops the pass
 * with TF_ERR_UNSUPPORTED naming the first tensor that holds it, and writes
 * no output; a NaN in the input still shows up in its own sequence's output
 * and nowhere else. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/expect.h"
#include "common/suite.h"
#include "tfenc.h"

enum { B = 2, T = 4, D = 16, H = 2, F = 32, V = 8 };

static tf_encoder *make_encoder(int32_t vocab_size, int32_t position)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = D, c.n_heads = H, c.d_ff = F, c.n_layers = 2;
    c.vocab_size = vocab_size, c.position = position;
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_create(&c, &enc) == TF_OK, "%s", tf_last_error());
    return enc;
}

static void set_tensor(tf_encoder *enc, const char *name, const float *src)
{
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    ck_assert_msg(tf_encoder_tensor_shape(enc, name, &rank, dims) == TF_OK, "%s", tf_last_error());
    ck_assert_msg(tf_encoder_set_tensor(enc, name, src, rank, dims) == TF_OK, "%s",
                  tf_last_error());
}

/* layers.0's queries and keys become the input itself: Q = K = x. */
static void identity_query_and_key(tf_encoder *enc)
{
    static float eye[D * D], zero[D];
    for (int i = 0; i < D; i++)
        eye[i * D + i] = 1.0f;
    set_tensor(enc, "layers.0.attn.q.weight", eye);
    set_tensor(enc, "layers.0.attn.k.weight", eye);
    set_tensor(enc, "layers.0.attn.q.bias", zero);
    set_tensor(enc, "layers.0.attn.k.bias", zero);
}

static float embeds[B * T * D], out[B * T * D], pooled[B * D];

static tf_forward_args embeds_args(void)
{
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = embeds, a.output = out;
    return a;
}

static void fill(float *x, size_t n, float value)
{
    for (size_t i = 0; i < n; i++)
        x[i] = value;
}

/* The call fails with this status and message, and output is untouched. */
#define expect_no_output(enc, args, status, text)                          \
    do {                                                                   \
        memset(out, 0x7f, sizeof out);                                     \
        expect_failure(tf_encoder_forward((enc), &(args)), status, text);  \
        for (size_t i_ = 0; i_ < sizeof out / sizeof out[0]; i_++)         \
            ck_assert_uint_eq(((uint32_t *)(void *)out)[i_], 0x7f7f7f7fu); \
    } while (0)

/* An overflow of the first layer's scores, at the first score. Which
 * non-finite value it is (inf, -inf or NaN) depends on the BLAS's order of
 * summation: OpenBLAS gives the infinities, BLIS sums inf - inf to NaN. */
#define SCORES_OVERFLOW_AT_0 \
    ") at [0, 0, 0, 0] (B,H,T,T) from finite inputs and weights (float32 overflow)"
static void expect_scores_overflow_named(void)
{
    ck_assert_msg(strncmp(tf_last_error(), "layers.0.attn.scores: a non-finite value (", 42) == 0,
                  "message: %s", tf_last_error());
}

/* ---- Additive masks -------------------------------------------------------- */

START_TEST(test_mask_plus_inf_and_nan_are_refused)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_SINUSOIDAL);
    fill(embeds, B * T * D, 0.5f);
    static float mask[B * T * T];
    tf_forward_args a = embeds_args();
    a.additive_mask = mask;
    mask[1 * T + 2] = INFINITY;
    expect_no_output(enc, a, TF_ERR_INVALID_ARGUMENT,
                     "additive_mask[1,2] = inf: expected a finite value, or -inf to block the key");
    mask[1 * T + 2] = 0.0f;
    mask[(1 * T + 0) * T + 2] = NAN; /* batched: sequence 1, query 0, key 2 */
    a.additive_mask_batched = 1;
    expect_no_output(enc, a, TF_ERR_INVALID_ARGUMENT,
                     "additive_mask[1,0,2] = nan: expected a finite value");
    tf_encoder_destroy(enc);
}
END_TEST

/* -inf still blocks; entries no real token reads are not looked at. */
START_TEST(test_mask_minus_inf_and_unread_entries_pass)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_SINUSOIDAL);
    fill(embeds, B * T * D, 0.5f);
    static float mask[T * T];
    mask[0 * T + 1] = -INFINITY;
    mask[3 * T + 3] = INFINITY; /* position 3 is padding in both sequences */
    const int32_t lengths[B] = {3, 2};
    tf_forward_args a = embeds_args();
    a.additive_mask = mask, a.lengths = lengths;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    for (size_t i = 0; i < B * T * D; i++)
        ck_assert_msg(isfinite(out[i]), "out[%zu] = %g", i, (double)out[i]);
    tf_encoder_destroy(enc);
}
END_TEST

/* ---- Overflow from finite values ----------------------------------------- */

/* Inputs of 1e20 with Q = K = x: every score is 16 * 1e40 / 2^1.5 > FLT_MAX. */
START_TEST(test_huge_input_names_the_scores)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_NONE);
    identity_query_and_key(enc);
    fill(embeds, B * T * D, 1e20f);
    tf_forward_args a = embeds_args();
    expect_no_output(enc, a, TF_ERR_UNSUPPORTED,
                     "layers.0.attn.scores: a non-finite value (inf) at [0, 0, 0, 0] (B,H,T,T) "
                     "from finite inputs and weights (float32 overflow)");
    tf_encoder_destroy(enc);
}
END_TEST

/* The case: the tutorial's model as initialised (d_model 512),
 * every input 1e20; the same first tensor. */
START_TEST(test_huge_input_tutorial_model)
{
    tf_config c;
    tf_config_init(&c);
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_create(&c, &enc) == TF_OK, "%s", tf_last_error());
    static float wide_in[T * 512], wide_out[T * 512];
    fill(wide_in, T * 512, 1e20f);
    memset(wide_out, 0x7f, sizeof wide_out);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_embeds = wide_in, a.output = wide_out;
    expect_failure(tf_encoder_forward(enc, &a), TF_ERR_UNSUPPORTED, SCORES_OVERFLOW_AT_0);
    expect_scores_overflow_named();
    for (size_t i = 0; i < T * 512; i++)
        ck_assert_uint_eq(((uint32_t *)(void *)wide_out)[i], 0x7f7f7f7fu);
    tf_encoder_destroy(enc);
}
END_TEST

/* The same inputs through the default initialisation at d_model 16: the
 * scores overflow to -inf, which would act as masked keys (context 0, a
 * finite and silently wrong output); reported as the overflow it is. */
START_TEST(test_huge_input_scores_overflow_to_minus_inf)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_SINUSOIDAL);
    fill(embeds, B * T * D, 1e20f);
    tf_forward_args a = embeds_args();
    expect_no_output(enc, a, TF_ERR_UNSUPPORTED, SCORES_OVERFLOW_AT_0);
    expect_scores_overflow_named();
    tf_encoder_destroy(enc);
}
END_TEST

/* A finite weight of 3e38 is accepted by set_tensor; the pass it overflows
 * names the first tensor: token id 3's row is 3e38 everywhere, and each of
 * its queries sums the row (W_q all 1): 16 * 3e38 = inf, at token 2. */
START_TEST(test_huge_weight_names_the_queries)
{
    tf_encoder *enc = make_encoder(V, TF_POSITION_NONE);
    static float table[V * D];
    for (int i = 0; i < V * D; i++)
        table[i] = 0.25f * (float)(i % 5) - 0.5f;
    fill(table + 3 * D, D, 3e38f);
    set_tensor(enc, "embed.token.weight", table);
    static float ones[D * D];
    fill(ones, D * D, 1.0f);
    set_tensor(enc, "layers.0.attn.q.weight", ones);
    const int32_t ids[B * T] = {1, 2, 3, 4, 5, 6, 7, 0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.output = out;
    expect_no_output(enc, a, TF_ERR_UNSUPPORTED,
                     "layers.0.attn.q: a non-finite value (inf) at [0, 0, 2, 0] (B,H,T,d_k) "
                     "from finite inputs and weights (float32 overflow)");
    tf_encoder_destroy(enc);
}
END_TEST

/* The same weights at 2048 tokens, where the trace that would name the
 * sub-layer takes more than 256 MiB: the layer's own check names the
 * scores, which the overflowing queries make non-finite; nothing is
 * written. */
START_TEST(test_huge_weight_long_sequence)
{
    enum { LONG = 2048 };
    tf_config c;
    tf_config_init(&c);
    c.d_model = D, c.n_heads = 8, c.d_ff = F, c.vocab_size = V, c.position = TF_POSITION_NONE;
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_create(&c, &enc) == TF_OK, "%s", tf_last_error());
    static float table[V * D], ones[D * D], long_out[LONG * D];
    fill(table, V * D, 0.25f);
    fill(table + 3 * D, D, 3e38f);
    set_tensor(enc, "embed.token.weight", table);
    fill(ones, D * D, 1.0f);
    set_tensor(enc, "layers.0.attn.q.weight", ones);
    static int32_t ids[LONG];
    for (int t = 0; t < LONG; t++)
        ids[t] = t == 2 ? 3 : 1;
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = LONG, a.input_ids = ids, a.output = long_out;
    memset(long_out, 0x7f, sizeof long_out);
    expect_failure(tf_encoder_forward(enc, &a), TF_ERR_UNSUPPORTED,
                   "layers.0.attn.scores: a non-finite value (");
    for (size_t i = 0; i < LONG * D; i++)
        ck_assert_uint_eq(((uint32_t *)(void *)long_out)[i], 0x7f7f7f7fu);
    tf_encoder_destroy(enc);
}
END_TEST

/* A weight that overflows only at the final norm: named there; neither
 * output nor pooled_output is written. */
START_TEST(test_huge_final_norm_weight)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = D, c.n_heads = H, c.d_ff = F, c.final_norm = 1, c.pooler = 1;
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_create(&c, &enc) == TF_OK, "%s", tf_last_error());
    static float w[D];
    fill(w, D, 3e38f);
    set_tensor(enc, "final_norm.weight", w);
    fill(embeds, B * T * D, 0.5f);
    embeds[3] = 2.0f;
    tf_forward_args a = embeds_args();
    a.pooled_output = pooled;
    memset(pooled, 0x7f, sizeof pooled);
    expect_no_output(enc, a, TF_ERR_UNSUPPORTED, "final_norm: a non-finite value (");
    for (size_t i = 0; i < B * D; i++)
        ck_assert_uint_eq(((uint32_t *)(void *)pooled)[i], 0x7f7f7f7fu);
    tf_encoder_destroy(enc);
}
END_TEST

/* ---- NaN in the input ------------------------------------------------------ */

/* A NaN in sequence 0's input shows up in sequence 0's output, not in
 * sequence 1's, and is not an error. */
START_TEST(test_input_nan_propagates_in_its_sequence)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_SINUSOIDAL);
    fill(embeds, B * T * D, 0.5f);
    embeds[1 * D + 5] = NAN; /* sequence 0, token 1 */
    tf_forward_args a = embeds_args();
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    for (size_t i = 0; i < T * D; i++)
        ck_assert_msg(isnan(out[i]), "sequence 0: out[%zu] = %g", i, (double)out[i]);
    for (size_t i = T * D; i < B * T * D; i++)
        ck_assert_msg(isfinite(out[i]), "sequence 1: out[%zu] = %g", i, (double)out[i]);
    tf_encoder_destroy(enc);
}
END_TEST

/* With a NaN in sequence 0 and an overflow in sequence 1, the overflow is
 * still reported, at sequence 1. */
START_TEST(test_overflow_beside_an_input_nan)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_NONE);
    identity_query_and_key(enc);
    fill(embeds, T * D, 0.5f);
    embeds[5] = NAN;
    fill(embeds + T * D, T * D, 1e20f);
    tf_forward_args a = embeds_args();
    expect_no_output(enc, a, TF_ERR_UNSUPPORTED,
                     "layers.0.attn.scores: a non-finite value (inf) at [1, 0, 0, 0] (B,H,T,T)");
    tf_encoder_destroy(enc);
}
END_TEST

/* An overflow with a trace callback: the caller's callback still sees the
 * events up to the failure, and only once each. */
static int events_seen;
static void count_events(const tf_trace_event *ev, void *user_data)
{
    (void)ev, (void)user_data;
    events_seen++;
}

START_TEST(test_overflow_while_tracing)
{
    tf_encoder *enc = make_encoder(0, TF_POSITION_NONE);
    identity_query_and_key(enc);
    fill(embeds, B * T * D, 1e20f);
    tf_forward_args a = embeds_args();
    a.trace = count_events;
    events_seen = 0;
    expect_no_output(enc, a, TF_ERR_UNSUPPORTED, "layers.0.attn.scores: a non-finite value");
    /* embed.token, embed.sum, then layer 0's 11 events (q, k, v, scores,
     * weights, context, out, add_norm1, ffn.hidden, ffn.out, add_norm2) */
    ck_assert_int_eq(events_seen, 13);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numerics");
    TCase *tc = tcase_create("never a silent NaN");
    tcase_add_test(tc, test_mask_plus_inf_and_nan_are_refused);
    tcase_add_test(tc, test_mask_minus_inf_and_unread_entries_pass);
    tcase_add_test(tc, test_huge_input_names_the_scores);
    tcase_add_test(tc, test_huge_input_tutorial_model);
    tcase_add_test(tc, test_huge_input_scores_overflow_to_minus_inf);
    tcase_add_test(tc, test_huge_weight_names_the_queries);
    tcase_add_test(tc, test_huge_weight_long_sequence);
    tcase_add_test(tc, test_huge_final_norm_weight);
    tcase_add_test(tc, test_input_nan_propagates_in_its_sequence);
    tcase_add_test(tc, test_overflow_beside_an_input_nan);
    tcase_add_test(tc, test_overflow_while_tracing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
