/* test_errors.c — every rejected input gives its status and a message that
 * names the argument and both values, and changes nothing: no handle is
 * returned, no weight is modified, no output is written. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/suite.h"
#include "tfenc.h"

/* ---- tf_encoder_create --------------------------------------------------- */

static tf_config base_config(void)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = 16, c.n_heads = 2, c.d_ff = 32;
    return c;
}

typedef struct config_case {
    const char *what;
    void (*edit)(tf_config *c);
    tf_status status;
    const char *message;
} config_case;

static void no_size(tf_config *c)
{
    c->struct_size = 8;
}
static void zero_d_model(tf_config *c)
{
    c->d_model = 0;
}
static void heads_do_not_divide(tf_config *c)
{
    c->d_model = 100, c->n_heads = 8;
}
static void negative_d_ff(tf_config *c)
{
    c->d_ff = -3;
}
static void zero_layers(tf_config *c)
{
    c->n_layers = 0;
}
static void negative_vocab(tf_config *c)
{
    c->vocab_size = -1;
}
static void bad_position(tf_config *c)
{
    c->position = 7;
}
static void learned_without_table(tf_config *c)
{
    c->position = TF_POSITION_LEARNED;
}
static void bad_activation(tf_config *c)
{
    c->activation = 9;
}
static void bad_placement(tf_config *c)
{
    c->norm_placement = 2;
}
static void bad_bias_flag(tf_config *c)
{
    c->bias = 2;
}
static void zero_eps(tf_config *c)
{
    c->layer_norm_eps = 0.0f;
}
static void nan_eps(tf_config *c)
{
    c->layer_norm_eps = NAN;
}
static void too_wide(tf_config *c)
{
    c->d_model = 70000;
}
/* 2^47 floats: more than a 64-bit process can address, on any allocator */
static void absurd_size(tf_config *c)
{
    c->d_model = 65536, c->d_ff = 1 << 20, c->n_layers = 1024;
}

static const config_case config_cases[] = {
    {"struct_size", no_size, TF_ERR_INVALID_ARGUMENT, "config.struct_size: expected " /* sizeof */},
    {"d_model 0", zero_d_model, TF_ERR_INVALID_ARGUMENT,
     "config.d_model: expected 1..65536, got 0"},
    {"heads", heads_do_not_divide, TF_ERR_INVALID_ARGUMENT,
     "config.n_heads: d_model 100 is not divisible by n_heads 8"},
    {"d_ff", negative_d_ff, TF_ERR_INVALID_ARGUMENT, "config.d_ff: expected 1..1048576, got -3"},
    {"layers", zero_layers, TF_ERR_INVALID_ARGUMENT, "config.n_layers: expected 1..1024, got 0"},
    {"vocab", negative_vocab, TF_ERR_INVALID_ARGUMENT,
     "config.vocab_size: expected 0..16777216, got -1"},
    {"position", bad_position, TF_ERR_INVALID_ARGUMENT, "config.position: expected 0..4, got 7"},
    {"learned", learned_without_table, TF_ERR_INVALID_ARGUMENT,
     "config.max_positions: learned positions need a table size > 0, got 0"},
    {"activation", bad_activation, TF_ERR_INVALID_ARGUMENT,
     "config.activation: expected 0..4, got 9"},
    {"placement", bad_placement, TF_ERR_INVALID_ARGUMENT,
     "config.norm_placement: expected 0..1, got 2"},
    {"bias", bad_bias_flag, TF_ERR_INVALID_ARGUMENT, "config.bias: expected 0..1, got 2"},
    {"eps 0", zero_eps, TF_ERR_INVALID_ARGUMENT,
     "config.layer_norm_eps: expected a finite value > 0, got 0"},
    {"eps nan", nan_eps, TF_ERR_INVALID_ARGUMENT,
     "config.layer_norm_eps: expected a finite value > 0, got nan"},
    {"too wide", too_wide, TF_ERR_INVALID_ARGUMENT, "config.d_model: expected 1..65536, got 70000"},
    {"512 TiB of weights", absurd_size, TF_ERR_OUT_OF_MEMORY, "weights: cannot allocate"},
};

START_TEST(test_create_rejects_bad_config)
{
    const config_case *k = &config_cases[_i];
    tf_config c = base_config();
    k->edit(&c);
    tf_encoder *enc = (tf_encoder *)&c; /* must be reset to NULL */
    expect_failure(tf_encoder_create(&c, &enc), k->status, k->message);
    ck_assert_ptr_null(enc);
}
END_TEST

START_TEST(test_create_null_arguments)
{
    tf_encoder *enc = NULL;
    tf_config c = base_config();
    expect_failure(tf_encoder_create(NULL, &enc), TF_ERR_INVALID_ARGUMENT, "config is NULL");
    expect_failure(tf_encoder_create(&c, NULL), TF_ERR_INVALID_ARGUMENT, "out is NULL");
    expect_failure(tf_encoder_get_config(NULL, &c), TF_ERR_INVALID_ARGUMENT, "encoder is NULL");
}
END_TEST

/* ---- tensors by name ------------------------------------------------------ */

START_TEST(test_tensor_errors_leave_the_weights_alone)
{
    tf_config c;
    tf_config_init(&c); /* the tutorial's 512-wide model */
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&c, &enc), TF_OK);
    const char *q = "layers.0.attn.q.weight";
    float *before = malloc(512 * 512 * sizeof(float)), *after = malloc(512 * 512 * sizeof(float));
    float *src = calloc(512 * 512, sizeof(float));
    const int64_t right[2] = {512, 512}, narrow[2] = {512, 64}, flat[1] = {512};
    ck_assert_int_eq(tf_encoder_get_tensor(enc, q, before, 2, right), TF_OK);

    expect_failure(tf_encoder_set_tensor(enc, q, src, 2, narrow), TF_ERR_SHAPE,
                   "layers.0.attn.q.weight: expected [512, 512], got [512, 64]");
    expect_failure(tf_encoder_set_tensor(enc, q, src, 1, flat), TF_ERR_SHAPE,
                   "layers.0.attn.q.weight: expected [512, 512], got [512]");
    expect_failure(tf_encoder_get_tensor(enc, q, after, 2, narrow), TF_ERR_SHAPE,
                   "expected [512, 512], got [512, 64]");
    expect_failure(tf_encoder_set_tensor(enc, q, src, 9, right), TF_ERR_INVALID_ARGUMENT, "rank 9");
    expect_failure(tf_encoder_set_tensor(enc, q, src, 2, NULL), TF_ERR_INVALID_ARGUMENT,
                   "NULL dims");
    expect_failure(tf_encoder_set_tensor(enc, q, NULL, 2, right), TF_ERR_INVALID_ARGUMENT,
                   "layers.0.attn.q.weight: source is NULL");
    expect_failure(tf_encoder_get_tensor(enc, q, NULL, 2, right), TF_ERR_INVALID_ARGUMENT,
                   "destination is NULL");
    expect_failure(tf_encoder_set_tensor(enc, "layers.1.attn.q.weight", src, 2, right),
                   TF_ERR_NOT_FOUND, "layers.1.attn.q.weight: no tensor of that name");
    expect_failure(tf_encoder_set_tensor(enc, NULL, src, 2, right), TF_ERR_INVALID_ARGUMENT,
                   "tensor name is NULL");
    expect_failure(tf_encoder_set_tensor(NULL, q, src, 2, right), TF_ERR_INVALID_ARGUMENT,
                   "encoder is NULL");
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    expect_failure(tf_encoder_tensor_shape(enc, "pooler.weight", &rank, dims), TF_ERR_NOT_FOUND,
                   "pooler.weight");
    expect_failure(tf_encoder_tensor_shape(enc, q, NULL, dims), TF_ERR_INVALID_ARGUMENT,
                   "rank or dims is NULL");
    src[3 * 512 + 17] = NAN; /* finite values first, then one NaN: nothing is written */
    expect_failure(tf_encoder_set_tensor(enc, q, src, 2, right), TF_ERR_INVALID_ARGUMENT,
                   "layers.0.attn.q.weight: element [3, 17] is nan; weights must be finite");
    src[3 * 512 + 17] = INFINITY;
    expect_failure(tf_encoder_set_tensor(enc, q, src, 2, right), TF_ERR_INVALID_ARGUMENT,
                   "element [3, 17] is inf");

    ck_assert_int_eq(tf_encoder_get_tensor(enc, q, after, 2, right), TF_OK);
    ck_assert_mem_eq(before, after, 512 * 512 * sizeof(float));
    free(before), free(after), free(src);
    tf_encoder_destroy(enc);
}
END_TEST

/* ---- tf_encoder_forward -------------------------------------------------- */

enum { B = 2, T = 37, D = 8, V = 30522 };
static tf_encoder *enc;
static int32_t ids[B * T], types[B * T], mask[B * T], lengths[B] = {37, 20};
static float embeds[B * T * D], out[B * T * D], pooled[B * D];

static void setup(void)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = D, c.n_heads = 2, c.d_ff = 16, c.vocab_size = V, c.n_token_types = 2;
    c.position = TF_POSITION_LEARNED, c.max_positions = 512;
    ck_assert_int_eq(tf_encoder_create(&c, &enc), TF_OK);
    for (int i = 0; i < B * T; i++)
        ids[i] = i, types[i] = i % 2, mask[i] = 1;
    memset(embeds, 0, sizeof embeds);
}

static void teardown(void)
{
    tf_encoder_destroy(enc);
}

static tf_forward_args good_args(void)
{
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.output = out;
    return a;
}

/* The call fails as expected and the output buffer is untouched. */
#define expect_forward_failure(args, status, text)                         \
    do {                                                                   \
        memset(out, 0x7f, sizeof out);                                     \
        expect_failure(tf_encoder_forward(enc, &(args)), status, text);    \
        for (size_t i_ = 0; i_ < sizeof out / sizeof out[0]; i_++)         \
            ck_assert_uint_eq(((uint32_t *)(void *)out)[i_], 0x7f7f7f7fu); \
    } while (0)

START_TEST(test_forward_good_args_pass)
{
    tf_forward_args a = good_args();
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
}
END_TEST

START_TEST(test_forward_null_and_struct_size)
{
    tf_forward_args a = good_args();
    expect_failure(tf_encoder_forward(NULL, &a), TF_ERR_INVALID_ARGUMENT, "encoder is NULL");
    expect_failure(tf_encoder_forward(enc, NULL), TF_ERR_INVALID_ARGUMENT, "args is NULL");
    a.struct_size = 16;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "args.struct_size: expected");
    a = good_args();
    a.output = NULL;
    expect_failure(tf_encoder_forward(enc, &a), TF_ERR_INVALID_ARGUMENT, "output is NULL");
}
END_TEST

START_TEST(test_forward_sizes)
{
    tf_forward_args a = good_args();
    a.batch = 0;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "batch: expected >= 1, got 0");
    a = good_args();
    a.seq_len = -1;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "seq_len: expected >= 1, got -1");
    a = good_args();
    a.batch = INT_MAX, a.seq_len = 2;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "batch 2147483647 x seq_len 2 = 4294967294 tokens exceeds the limit");
    a = good_args();
    a.seq_len = 600;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "sequence length 600 exceeds max_positions 512");
}
END_TEST

START_TEST(test_forward_inputs)
{
    tf_forward_args a = good_args();
    a.input_embeds = embeds;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "input_ids and input_embeds are both set; pass exactly one");
    a.input_ids = NULL, a.input_embeds = NULL;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "input_ids and input_embeds are both NULL");
    a = good_args();
    ids[3] = V;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "token id 30522 at [0,3] is outside the vocabulary (30522)");
    ids[3] = 3, ids[T + 5] = -4;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "token id -4 at [1,5] is outside the vocabulary (30522)");
    ids[T + 5] = 5;
    a.token_type_ids = types;
    types[T + 1] = 2;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "token type id 2 at [1,1] is outside 0..1");
    types[T + 1] = 1;
    a.pooled_output = pooled;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "pooled_output given but the model has no pooler");
}
END_TEST

/* Ids at padded positions are never looked up, so they are not checked. */
START_TEST(test_forward_ignores_ids_in_padding)
{
    tf_forward_args a = good_args();
    a.lengths = lengths;
    ids[T + 30] = -1;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
}
END_TEST

START_TEST(test_forward_padding)
{
    tf_forward_args a = good_args();
    int32_t bad[B] = {37, 40};
    a.lengths = bad;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "lengths[1] = 40 is outside 0..seq_len 37");
    bad[1] = -1;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "lengths[1] = -1 is outside 0..seq_len 37");
    a.attention_mask = mask;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "lengths and attention_mask are both set; pass at most one");
    a.lengths = NULL;
    mask[T + 4] = 0; /* a hole: 1 1 1 1 0 1 ... */
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "attention_mask row 1 is not right-padded: 0 at position 4, then 1 at "
                           "position 5");
    mask[T + 4] = 2;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "attention_mask[1,4] = 2: expected 0 or 1");
}
END_TEST

START_TEST(test_forward_masks)
{
    tf_forward_args a = good_args();
    a.causal = 3;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT, "causal: expected 0 or 1, got 3");
    a = good_args();
    a.additive_mask_batched = 1;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "additive_mask_batched is 1 but additive_mask is NULL");
    a.additive_mask_batched = -1;
    expect_forward_failure(a, TF_ERR_INVALID_ARGUMENT,
                           "additive_mask_batched: expected 0 or 1, got -1");
}
END_TEST

/* [L, B, H, T, T] attention weights that cannot be addressed are refused
 * before anything is read (a 1024-layer model of width 1 is tiny). */
START_TEST(test_forward_attention_size_overflow)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = 1, c.n_heads = 1, c.d_ff = 1, c.n_layers = 1024, c.position = TF_POSITION_NONE;
    tf_encoder *deep;
    ck_assert_int_eq(tf_encoder_create(&c, &deep), TF_OK);
    static float dummy[1];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = INT_MAX, a.input_embeds = dummy, a.output = dummy;
    a.attentions = dummy;
    expect_failure(tf_encoder_forward(deep, &a), TF_ERR_INVALID_ARGUMENT,
                   "attentions: [1024, 1, 1, 2147483647, 2147483647] floats overflow size_t");
    tf_encoder_destroy(deep);
}
END_TEST

START_TEST(test_forward_vectors_model_rejects_ids_and_types)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = D, c.n_heads = 2, c.d_ff = 16;
    tf_encoder *vectors;
    ck_assert_int_eq(tf_encoder_create(&c, &vectors), TF_OK);
    tf_forward_args a = good_args();
    expect_failure(tf_encoder_forward(vectors, &a), TF_ERR_INVALID_ARGUMENT,
                   "input_ids given but the model has no token embedding (vocab_size 0)");
    a.input_ids = NULL, a.input_embeds = embeds, a.token_type_ids = types;
    expect_failure(tf_encoder_forward(vectors, &a), TF_ERR_INVALID_ARGUMENT,
                   "token_type_ids given but the model has no token-type embedding");
    tf_encoder_destroy(vectors);
}
END_TEST

/* A successful call leaves the last message as it was. */
START_TEST(test_last_error_survives_success)
{
    tf_forward_args a = good_args();
    a.batch = 0;
    expect_failure(tf_encoder_forward(enc, &a), TF_ERR_INVALID_ARGUMENT, "batch");
    a = good_args();
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    ck_assert_str_eq(tf_last_error(), "batch: expected >= 1, got 0");
}
END_TEST

START_TEST(test_workspace_errors)
{
    tf_workspace *ws;
    expect_failure(tf_workspace_create(NULL), TF_ERR_INVALID_ARGUMENT, "out is NULL");
    ck_assert_int_eq(tf_workspace_create(&ws), TF_OK);
    expect_failure(tf_workspace_reserve(ws, NULL, 1, 1), TF_ERR_INVALID_ARGUMENT,
                   "encoder is NULL");
    expect_failure(tf_workspace_reserve(NULL, enc, 1, 1), TF_ERR_INVALID_ARGUMENT,
                   "workspace is NULL");
    expect_failure(tf_workspace_reserve(ws, enc, 0, 1), TF_ERR_INVALID_ARGUMENT,
                   "batch: expected >= 1, got 0");
    expect_failure(tf_workspace_reserve(ws, enc, 2, INT_MAX), TF_ERR_INVALID_ARGUMENT,
                   "batch 2 x seq_len 2147483647 = 4294967294 tokens exceeds the limit");
    ck_assert_uint_eq(tf_workspace_bytes(ws), 0);
    tf_workspace_destroy(ws);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("errors");
    TCase *create = tcase_create("create");
    tcase_add_loop_test(create, test_create_rejects_bad_config, 0,
                        (int)(sizeof config_cases / sizeof config_cases[0]));
    tcase_add_test(create, test_create_null_arguments);
    tcase_add_test(create, test_tensor_errors_leave_the_weights_alone);
    suite_add_tcase(s, create);
    TCase *forward = tcase_create("forward");
    tcase_add_checked_fixture(forward, setup, teardown);
    tcase_add_test(forward, test_forward_good_args_pass);
    tcase_add_test(forward, test_forward_null_and_struct_size);
    tcase_add_test(forward, test_forward_sizes);
    tcase_add_test(forward, test_forward_inputs);
    tcase_add_test(forward, test_forward_ignores_ids_in_padding);
    tcase_add_test(forward, test_forward_padding);
    tcase_add_test(forward, test_forward_masks);
    tcase_add_test(forward, test_forward_attention_size_overflow);
    tcase_add_test(forward, test_forward_vectors_model_rejects_ids_and_types);
    tcase_add_test(forward, test_last_error_survives_success);
    tcase_add_test(forward, test_workspace_errors);
    suite_add_tcase(s, forward);
    return run_suite(s);
}
