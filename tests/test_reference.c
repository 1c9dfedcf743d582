/* test_reference.c — the library's forward pass against the float64
 * reference (tests/common/reference.c) over a table of configurations that
 * together use every option: embeddings from ids or vectors, sinusoidal and
 * learned positions, token types, embedding LayerNorm, post- and pre-norm,
 * final norm, each activation, biases off, the pooler, padding by lengths
 * and by mask, empty sequences, causal and additive masks, attention blocks
 * and FFN chunks. Checks output, hidden states, attention weights and the
 * pooled output, and that padded positions are 0. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/reference.h"
#include "common/util.h"
#include "common/suite.h"
#include "tfenc.h"

#define TOL 1e-5

enum { PAD_NONE, PAD_LENGTHS, PAD_MASK };
enum { ADD_NONE, ADD_2D, ADD_3D };

typedef struct ref_case {
    const char *name;
    int D, H, F, L, V, P, position, types, embed_norm, placement, final_norm, act, bias, pooler;
    int B, T;
    int32_t lengths[4];
    int padding, causal, additive;
} ref_case;

static const ref_case cases[] = {
    {"bert_like",
     64,
     4,
     128,
     2,
     50,
     40,
     TF_POSITION_LEARNED,
     2,
     1,
     TF_NORM_POST,
     0,
     TF_ACTIVATION_GELU,
     1,
     1,
     3,
     11,
     {11, 6, 0},
     PAD_MASK,
     0,
     ADD_NONE},
    {"pre_norm_final_gelu_tanh_causal",
     48,
     3,
     96,
     3,
     0,
     0,
     TF_POSITION_SINUSOIDAL,
     0,
     0,
     TF_NORM_PRE,
     1,
     TF_ACTIVATION_GELU_TANH,
     1,
     0,
     2,
     9,
     {9, 4},
     PAD_LENGTHS,
     1,
     ADD_NONE},
    {"no_bias_relu_additive_2d",
     32,
     8,
     40,
     2,
     30,
     0,
     TF_POSITION_NONE,
     0,
     0,
     TF_NORM_POST,
     0,
     TF_ACTIVATION_RELU,
     0,
     0,
     2,
     5,
     {5, 5},
     PAD_NONE,
     0,
     ADD_2D},
    {"additive_3d_fully_masked_row",
     32,
     2,
     64,
     1,
     0,
     0,
     TF_POSITION_SINUSOIDAL,
     0,
     0,
     TF_NORM_POST,
     0,
     TF_ACTIVATION_GELU,
     1,
     0,
     2,
     7,
     {7, 5},
     PAD_LENGTHS,
     0,
     ADD_3D},
    {"blocks_and_chunks_causal",
     16,
     2,
     24,
     1,
     0,
     0,
     TF_POSITION_SINUSOIDAL,
     0,
     0,
     TF_NORM_PRE,
     0,
     TF_ACTIVATION_GELU,
     1,
     0,
     4,
     300,
     {300, 257, 129, 1},
     PAD_LENGTHS,
     1,
     ADD_NONE},
    /* beyond 2048 tokens attention splits queries into blocks (16 MiB of scores each) */
    {"attention_blocks_causal_2100",
     8,
     2,
     8,
     1,
     0,
     0,
     TF_POSITION_SINUSOIDAL,
     0,
     0,
     TF_NORM_PRE,
     0,
     TF_ACTIVATION_GELU,
     1,
     0,
     1,
     2100,
     {2100},
     PAD_NONE,
     1,
     ADD_NONE},
    {"odd_sizes",
     30,
     5,
     7,
     2,
     13,
     9,
     TF_POSITION_LEARNED,
     3,
     1,
     TF_NORM_POST,
     1,
     TF_ACTIVATION_RELU,
     1,
     1,
     1,
     9,
     {9},
     PAD_NONE,
     0,
     ADD_NONE},
    {"pooler_with_empty_sequence",
     24,
     3,
     48,
     1,
     20,
     0,
     TF_POSITION_SINUSOIDAL,
     2,
     1,
     TF_NORM_POST,
     0,
     TF_ACTIVATION_GELU,
     1,
     1,
     3,
     6,
     {0, 6, 2},
     PAD_LENGTHS,
     1,
     ADD_NONE},
};

/* LayerNorm weights and biases away from 1 and 0, so ignoring them fails. */
static void perturb_norms(tf_encoder *enc, uint64_t seed)
{
    for (size_t i = 0; i < tf_encoder_tensor_count(enc); i++) {
        const char *name = tf_encoder_tensor_name(enc, i);
        if (!strstr(name, "norm"))
            continue;
        int32_t rank;
        int64_t dims[TF_MAX_RANK];
        ck_assert_int_eq(tf_encoder_tensor_shape(enc, name, &rank, dims), TF_OK);
        float *v = malloc(sizeof(float) * (size_t)dims[0]);
        const int is_weight = strstr(name, ".weight") != NULL;
        fill_uniform(v, (size_t)dims[0], seed + i, is_weight ? 0.8f : -0.2f,
                     is_weight ? 1.2f : 0.2f);
        ck_assert_int_eq(tf_encoder_set_tensor(enc, name, v, rank, dims), TF_OK);
        free(v);
    }
}

static double max_abs(const float *got, const double *want, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        const double e = fabs(got[i] - want[i]);
        worst = e > worst || isnan(e) ? e : worst;
    }
    return worst;
}

START_TEST(test_against_reference)
{
    const ref_case *c = &cases[_i];
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = c->D, cfg.n_heads = c->H, cfg.d_ff = c->F, cfg.n_layers = c->L;
    cfg.vocab_size = c->V, cfg.max_positions = c->P, cfg.position = c->position;
    cfg.n_token_types = c->types, cfg.embedding_norm = c->embed_norm;
    cfg.norm_placement = c->placement, cfg.final_norm = c->final_norm, cfg.activation = c->act;
    cfg.bias = c->bias, cfg.pooler = c->pooler, cfg.seed = 100 + (uint64_t)_i;
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_create(&cfg, &enc) == TF_OK, "%s", tf_last_error());
    perturb_norms(enc, 7 * (uint64_t)_i);

    const int B = c->B, T = c->T, D = c->D, H = c->H, L = c->L;
    const size_t BT = (size_t)B * T, BTD = BT * D, BHTT = (size_t)B * H * T * T;
    int32_t *ids = malloc(sizeof(int32_t) * BT), *types = malloc(sizeof(int32_t) * BT);
    int32_t *mask = malloc(sizeof(int32_t) * BT);
    float *embeds = malloc(sizeof(float) * BTD), *additive = malloc(sizeof(float) * B * T * T);
    for (size_t i = 0; i < BT; i++) {
        ids[i] = c->V ? (int32_t)((i * 7 + 3) % (size_t)c->V) : 0;
        types[i] = c->types ? (int32_t)(i % (size_t)c->types) : 0;
        mask[i] = (int32_t)(i % (size_t)T) < c->lengths[i / (size_t)T];
    }
    fill_uniform(embeds, BTD, 11 + (uint64_t)_i, -1.0f, 1.0f);
    fill_uniform(additive, (size_t)B * T * T, 13, -2.0f, 2.0f);
    additive[1] = -INFINITY;
    if (c->additive == ADD_3D) /* query 2 of sequence 0 sees no key at all */
        for (int j = 0; j < T; j++)
            additive[2 * T + j] = -INFINITY;

    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.causal = c->causal;
    if (c->V)
        a.input_ids = ids;
    else
        a.input_embeds = embeds;
    a.token_type_ids = c->types ? types : NULL;
    a.lengths = c->padding == PAD_LENGTHS ? c->lengths : NULL;
    a.attention_mask = c->padding == PAD_MASK ? mask : NULL;
    a.additive_mask = c->additive ? additive : NULL;
    a.additive_mask_batched = c->additive == ADD_3D;
    float *out = malloc(sizeof(float) * BTD), *hidden = malloc(sizeof(float) * (L + 1) * BTD);
    float *attn = malloc(sizeof(float) * L * BHTT), *pooled = malloc(sizeof(float) * B * D);
    a.output = out, a.hidden_states = hidden, a.attentions = attn;
    a.pooled_output = c->pooler ? pooled : NULL;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());

    double *r_out = malloc(sizeof(double) * BTD),
           *r_hidden = malloc(sizeof(double) * (L + 1) * BTD);
    double *r_attn = malloc(sizeof(double) * L * BHTT), *r_pooled = malloc(sizeof(double) * B * D);
    ck_assert_int_eq(ref_forward(enc, &a, r_out, r_hidden, r_attn, r_pooled), 0);

    const int32_t *lengths = c->lengths;
    const double e_out = max_abs(out, r_out, BTD);
    const double e_hidden = max_abs(hidden, r_hidden, (L + 1) * BTD);
    const double e_attn = max_abs(attn, r_attn, L * BHTT);
    const double e_pooled = c->pooler ? max_abs(pooled, r_pooled, (size_t)B * D) : 0.0;
    printf("%-34s max abs error: output %.2e hidden %.2e attention %.2e pooled %.2e\n", c->name,
           e_out, e_hidden, e_attn, e_pooled);
    /* The whole tensors are compared: the reference holds 0 where padded. */
    ck_assert_msg(e_out <= TOL, "%s: output error %g", c->name, e_out);
    ck_assert_msg(e_hidden <= TOL, "%s: hidden-state error %g", c->name, e_hidden);
    ck_assert_msg(e_attn <= TOL, "%s: attention error %g", c->name, e_attn);
    ck_assert_msg(e_pooled <= TOL, "%s: pooled error %g", c->name, e_pooled);
    ck_assert(padding_is_zero(out, B, T, D, lengths));

    free(ids), free(types), free(mask), free(embeds), free(additive);
    free(out), free(hidden), free(attn), free(pooled);
    free(r_out), free(r_hidden), free(r_attn), free(r_pooled);
    tf_encoder_destroy(enc);
}
END_TEST

/* The same sequences padded by lengths or by mask give bitwise the same
 * rows; each alone in a batch of its exact length gives the same rows up to
 * the BLAS's rounding (its kernels depend on the matrix sizes). */
START_TEST(test_padding_forms_agree)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 32, cfg.n_heads = 4, cfg.d_ff = 64, cfg.n_layers = 2;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    enum { B = 3, T = 8, D = 32 };
    const int32_t lengths[B] = {8, 3, 5};
    int32_t mask[B * T];
    float x[B * T * D], by_len[B * T * D], by_mask[B * T * D], alone[T * D];
    fill_uniform(x, B * T * D, 5, -1, 1);
    for (int i = 0; i < B * T; i++)
        mask[i] = i % T < lengths[i / T];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.lengths = lengths, a.output = by_len;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    a.lengths = NULL, a.attention_mask = mask, a.output = by_mask;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    ck_assert_mem_eq(by_len, by_mask, sizeof by_len);
    for (int b = 0; b < B; b++) {
        tf_forward_args one;
        tf_forward_args_init(&one);
        one.batch = 1, one.seq_len = lengths[b], one.input_embeds = x + b * T * D,
        one.output = alone;
        ck_assert_int_eq(tf_encoder_forward(enc, &one), TF_OK);
        for (int i = 0; i < lengths[b] * D; i++)
            ck_assert_float_eq_tol(alone[i], by_len[b * T * D + i], 2e-6f);
    }
    tf_encoder_destroy(enc);
}
END_TEST

/* A NaN in one sequence's input shows up in that sequence's output (never
 * hidden) and nowhere else; a NaN at a padded position is never read. */
START_TEST(test_nan_propagates_within_its_sequence)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 16, cfg.n_heads = 2, cfg.d_ff = 32;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    enum { B = 2, T = 4, D = 16 };
    const int32_t lengths[B] = {4, 3};
    float x[B * T * D], out[B * T * D];
    fill_uniform(x, B * T * D, 9, -1, 1);
    x[2 * D + 5] = NAN;       /* sequence 0, token 2 */
    x[(T + 3) * D + 1] = NAN; /* sequence 1, padded token 3 */
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.lengths = lengths, a.output = out;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    for (int i = 0; i < T * D; i++)
        ck_assert(isnan(out[i])); /* every token attends to token 2 */
    for (int i = 0; i < 3 * D; i++)
        ck_assert(isfinite(out[T * D + i]));
    tf_encoder_destroy(enc);
}
END_TEST

/* Logits of +-1e30 (an additive mask) stay finite: +1e30 takes all the
 * weight, -1e30 none; nothing overflows into inf or NaN. */
START_TEST(test_huge_logits_stay_finite)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 16, cfg.n_heads = 2, cfg.d_ff = 16;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    enum { T = 4, D = 16, H = 2 };
    float x[T * D], out[T * D], attn[H * T * T], add[T * T] = {0};
    fill_uniform(x, T * D, 3, -1, 1);
    for (int i = 0; i < T; i++) {
        add[i * T + (i + 1) % T] = 1e30f;
        add[i * T + (i + 2) % T] = -1e30f;
    }
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = out, a.attentions = attn;
    a.additive_mask = add;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    for (int i = 0; i < T * D; i++)
        ck_assert(isfinite(out[i]));
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++)
                ck_assert_float_eq(attn[(h * T + i) * T + j], j == (i + 1) % T ? 1.0f : 0.0f);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reference");
    TCase *tc = tcase_create("float64 reference");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_against_reference, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_padding_forms_agree);
    tcase_add_test(tc, test_nan_propagates_within_its_sequence);
    tcase_add_test(tc, test_huge_logits_stay_finite);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
