/* test_api.c — the public API apart from numerics: versions, runtime
 * info, status names, defaults, the tensor table and its initialisation,
 * get/set by name, workspaces. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(TFENC_BLAS_BLIS)
#include <blis.h>
#else
#include <cblas.h>
#endif

#include "common/tensor.h"
#include "common/util.h"
#include "common/suite.h"
#include "tfenc.h"

START_TEST(test_version)
{
    ck_assert_uint_eq(tf_version(), TFENC_VERSION_NUMBER);
    ck_assert_uint_eq(TFENC_VERSION_NUMBER,
                      TFENC_VERSION_MAJOR * 10000 + TFENC_VERSION_MINOR * 100 +
                          TFENC_VERSION_PATCH);
    char want[32]; /* "MAJOR.MINOR.PATCH" of the header this test was built against */
    snprintf(want, sizeof want, "%d.%d.%d", TFENC_VERSION_MAJOR, TFENC_VERSION_MINOR,
             TFENC_VERSION_PATCH);
    ck_assert_str_eq(tf_version_string(), want);
}
END_TEST

/* The vector loops this CPU should run: the widest build it can. */
static const char *expected_vector_loops(void)
{
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
        return "avx512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "avx2";
#endif
    return "base";
}

START_TEST(test_runtime_info)
{
    tf_runtime_info info;
    ck_assert_int_eq(tf_runtime_info_get(&info), TF_OK);
    ck_assert_uint_eq(info.struct_size, sizeof info);
    ck_assert_uint_eq(tf_struct_size("tf_runtime_info"), sizeof info);
#if defined(TFENC_BLAS_BLIS)
    ck_assert_str_eq(info.blas, "BLIS");
    ck_assert_str_eq(info.blas_build, bli_info_get_version_str());
    ck_assert_str_eq(info.blas_kernels, bli_arch_string(bli_arch_query_id()));
    ck_assert_int_eq(info.blas_threads,
                     bli_thread_get_num_threads() < 1 ? 1 : (int)bli_thread_get_num_threads());
#else
    ck_assert_str_eq(info.blas, "OpenBLAS");
    ck_assert_str_eq(info.blas_build, openblas_get_config());
    ck_assert_str_eq(info.blas_kernels, openblas_get_corename());
    const char *coretype = getenv("OPENBLAS_CORETYPE"); /* Haswell in this project's CI */
    if (coretype && strcmp(coretype, "Haswell") == 0)
        ck_assert_str_eq(info.blas_kernels, "Haswell");
    openblas_set_num_threads(3);
    ck_assert_int_eq(tf_runtime_info_get(&info), TF_OK);
    ck_assert_int_eq(info.blas_threads, 3);
#endif
    ck_assert_str_eq(info.vector_loops, expected_vector_loops());
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ck_assert_int_eq(info.max_threads, cores > 32 ? 32 : cores < 1 ? 1 : (int)cores);

    /* A smaller struct_size than 0.3.0's: refused, nothing written. */
    tf_runtime_info before;
    memset(&before, 0xab, sizeof before);
    info = before;
    ck_assert_int_eq(tf_runtime_info_get_sized(&info, 16), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(),
                     "info.struct_size: expected 48..4096 (the struct's size in "
                     "the caller's tfenc.h; set by its _init), got 16");
    ck_assert_mem_eq(&info, &before, sizeof info);
    ck_assert_int_eq(tf_runtime_info_get_sized(NULL, sizeof info), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "info is NULL");

    /* A newer caller's larger struct: the library's fields, then zeros. */
    unsigned char newer[sizeof info + 16];
    memset(newer, 0xab, sizeof newer);
    ck_assert_int_eq(tf_runtime_info_get_sized((tf_runtime_info *)(void *)newer, sizeof newer),
                     TF_OK);
    for (size_t i = sizeof info; i < sizeof newer; i++)
        ck_assert_uint_eq(newer[i], 0);
}
END_TEST

START_TEST(test_status_names)
{
    ck_assert_str_eq(tf_status_name(TF_OK), "TF_OK");
    ck_assert_str_eq(tf_status_name(TF_ERR_INVALID_ARGUMENT), "TF_ERR_INVALID_ARGUMENT");
    ck_assert_str_eq(tf_status_name(TF_ERR_SHAPE), "TF_ERR_SHAPE");
    ck_assert_str_eq(tf_status_name(TF_ERR_OUT_OF_MEMORY), "TF_ERR_OUT_OF_MEMORY");
    ck_assert_str_eq(tf_status_name(TF_ERR_IO), "TF_ERR_IO");
    ck_assert_str_eq(tf_status_name(TF_ERR_FORMAT), "TF_ERR_FORMAT");
    ck_assert_str_eq(tf_status_name(TF_ERR_UNSUPPORTED), "TF_ERR_UNSUPPORTED");
    ck_assert_str_eq(tf_status_name(TF_ERR_NOT_FOUND), "TF_ERR_NOT_FOUND");
    ck_assert_str_eq(tf_status_name((tf_status)99), "TF_ERR_UNKNOWN");
    /* The values are part of the ABI. */
    ck_assert_int_eq(TF_ERR_INVALID_ARGUMENT, 1);
    ck_assert_int_eq(TF_ERR_NOT_FOUND, 7);
}
END_TEST

START_TEST(test_config_defaults_are_the_tutorial_model)
{
    tf_config c;
    memset(&c, 0xab, sizeof c);
    tf_config_init(&c);
    ck_assert_uint_eq(c.struct_size, sizeof c);
    ck_assert_int_eq(c.d_model, 512);
    ck_assert_int_eq(c.n_heads, 8);
    ck_assert_int_eq(c.d_ff, 2048);
    ck_assert_int_eq(c.n_layers, 1);
    ck_assert_int_eq(c.vocab_size, 0);
    ck_assert_int_eq(c.max_positions, 0);
    ck_assert_int_eq(c.position, TF_POSITION_SINUSOIDAL);
    ck_assert_int_eq(c.n_token_types, 0);
    ck_assert_int_eq(c.embedding_norm, 0);
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_int_eq(c.final_norm, 0);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_int_eq(c.bias, 1);
    ck_assert_int_eq(c.pooler, 0);
    ck_assert_float_eq(c.layer_norm_eps, 1e-5f);
    ck_assert_uint_eq(c.seed, 0);
    tf_config_init_sized(NULL, sizeof(tf_config)); /* no crash */
    (tf_config_init)(NULL);
}
END_TEST

START_TEST(test_tutorial_model_tensors)
{
    tf_config cfg;
    tf_config_init(&cfg);
    tf_encoder *enc = NULL;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    static const char *const names[] = {
        "layers.0.attn.q.weight",   "layers.0.attn.k.weight", "layers.0.attn.v.weight",
        "layers.0.attn.q.bias",     "layers.0.attn.k.bias",   "layers.0.attn.v.bias",
        "layers.0.attn.out.weight", "layers.0.attn.out.bias", "layers.0.norm1.weight",
        "layers.0.norm1.bias",      "layers.0.ffn.up.weight", "layers.0.ffn.up.bias",
        "layers.0.ffn.down.weight", "layers.0.ffn.down.bias", "layers.0.norm2.weight",
        "layers.0.norm2.bias"};
    const size_t n = sizeof names / sizeof names[0];
    ck_assert_uint_eq(tf_encoder_tensor_count(enc), n);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(tf_encoder_tensor_name(enc, i), names[i]);
    ck_assert_ptr_null(tf_encoder_tensor_name(enc, n));
    ck_assert_ptr_null(tf_encoder_tensor_name(NULL, 0));
    ck_assert_uint_eq(tf_encoder_tensor_count(NULL), 0);

    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    ck_assert_int_eq(tf_encoder_tensor_shape(enc, "layers.0.ffn.up.weight", &rank, dims), TF_OK);
    ck_assert_int_eq(rank, 2);
    ck_assert_int_eq(dims[0], 2048);
    ck_assert_int_eq(dims[1], 512);
    ck_assert_int_eq(tf_encoder_tensor_shape(enc, "layers.0.norm2.bias", &rank, dims), TF_OK);
    ck_assert_int_eq(rank, 1);
    ck_assert_int_eq(dims[0], 512);

    tf_config back;
    tf_config_init(&back);
    back.d_model = 7;
    ck_assert_int_eq(tf_encoder_get_config(enc, &back), TF_OK);
    ck_assert_mem_eq(&back, &cfg, sizeof cfg);
    tf_encoder_destroy(enc);
    tf_encoder_destroy(NULL);
}
END_TEST

START_TEST(test_bert_like_tensors_and_no_bias)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 16, cfg.n_heads = 2, cfg.d_ff = 32, cfg.n_layers = 2, cfg.vocab_size = 50;
    cfg.max_positions = 20, cfg.position = TF_POSITION_LEARNED, cfg.n_token_types = 2;
    cfg.embedding_norm = 1, cfg.final_norm = 1, cfg.pooler = 1;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    ck_assert_uint_eq(tf_encoder_tensor_count(enc), 4 + 1 + 2 * 16 + 2 + 2);
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 0), "embed.token.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 1), "embed.position.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 2), "embed.token_type.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 3), "embed.norm.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 4), "embed.norm.bias");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 5 + 16), "layers.1.attn.q.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 37), "final_norm.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 39), "pooler.weight");
    ck_assert_str_eq(tf_encoder_tensor_name(enc, 40), "pooler.bias");
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    ck_assert_int_eq(tf_encoder_tensor_shape(enc, "embed.position.weight", &rank, dims), TF_OK);
    ck_assert_int_eq(dims[0], 20);
    ck_assert_int_eq(dims[1], 16);
    tf_encoder_destroy(enc);

    cfg.bias = 0;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    for (size_t i = 0; i < tf_encoder_tensor_count(enc); i++)
        ck_assert_ptr_null(strstr(tf_encoder_tensor_name(enc, i), "bias"));
    ck_assert_uint_eq(tf_encoder_tensor_count(enc), 3 + 1 + 2 * 8 + 1 + 1);
    tf_encoder_destroy(enc);
}
END_TEST

static float *get(const tf_encoder *enc, const char *name, size_t *count)
{
    float *v = tensor_copy(enc, name, count);
    ck_assert_msg(v != NULL, "no tensor %s", name);
    return v;
}

/* nn.Linear: U(+-1/sqrt(in)); nn.Embedding: N(0, 1); LayerNorm: 1 and 0;
 * the same seed gives the same weights, another seed others. */
START_TEST(test_initialisation_is_pytorch_like_and_deterministic)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 64, cfg.n_heads = 4, cfg.d_ff = 256, cfg.vocab_size = 500, cfg.seed = 42;
    tf_encoder *a, *b, *c;
    ck_assert_int_eq(tf_encoder_create(&cfg, &a), TF_OK);
    ck_assert_int_eq(tf_encoder_create(&cfg, &b), TF_OK);
    cfg.seed = 43;
    ck_assert_int_eq(tf_encoder_create(&cfg, &c), TF_OK);
    size_t n, n2;
    float *down = get(a, "layers.0.ffn.down.weight", &n); /* in = d_ff = 256 */
    float max_abs = 0;
    for (size_t i = 0; i < n; i++)
        max_abs = fmaxf(max_abs, fabsf(down[i]));
    ck_assert_float_le(max_abs, 1.0f / 16.0f);
    ck_assert_float_ge(max_abs, 0.99f / 16.0f);
    float *tok = get(a, "embed.token.weight", &n);
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += tok[i] / (double)n;
    for (size_t i = 0; i < n; i++)
        var += (tok[i] - mean) * (tok[i] - mean) / (double)n;
    ck_assert_double_eq_tol(mean, 0.0, 0.03); /* 5 sigma of 32000 samples */
    ck_assert_double_eq_tol(var, 1.0, 0.04);
    float *norm_w = get(a, "layers.0.norm1.weight", &n),
          *norm_b = get(a, "layers.0.norm1.bias", &n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_float_eq(norm_w[i], 1.0f);
        ck_assert_float_eq(norm_b[i], 0.0f);
    }
    float *same = get(b, "embed.token.weight", &n2), *other = get(c, "embed.token.weight", &n2);
    ck_assert_mem_eq(tok, same, n2 * sizeof(float));
    ck_assert_int_ne(memcmp(tok, other, n2 * sizeof(float)), 0);
    free(down), free(tok), free(norm_w), free(norm_b), free(same), free(other);
    tf_encoder_destroy(a), tf_encoder_destroy(b), tf_encoder_destroy(c);
}
END_TEST

START_TEST(test_set_then_get_round_trips)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 12;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    float w[12 * 8], back[12 * 8];
    fill_uniform(w, 12 * 8, 1, -3, 3);
    const int64_t dims[2] = {12, 8};
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.ffn.up.weight", w, 2, dims), TF_OK);
    ck_assert_int_eq(tf_encoder_get_tensor(enc, "layers.0.ffn.up.weight", back, 2, dims), TF_OK);
    ck_assert_mem_eq(w, back, sizeof w);
    tf_encoder_destroy(enc);
}
END_TEST

/* A workspace gives bitwise the output of a call without one, grows only
 * when a call needs more, and tf_workspace_reserve sizes it up front. */
START_TEST(test_workspace_reuse)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 32, cfg.n_heads = 4, cfg.d_ff = 64, cfg.n_layers = 2;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    enum { B = 2, T = 10, D = 32 };
    float x[B * T * D], plain[B * T * D], with_ws[B * T * D];
    fill_uniform(x, B * T * D, 3, -1, 1);
    tf_workspace *ws;
    ck_assert_int_eq(tf_workspace_create(&ws), TF_OK);
    ck_assert_uint_eq(tf_workspace_bytes(ws), 0);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.output = plain;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    a.output = with_ws, a.workspace = ws;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    ck_assert_mem_eq(plain, with_ws, sizeof plain);
    const size_t grown = tf_workspace_bytes(ws);
    ck_assert_uint_gt(grown, 0);
    a.seq_len = 4; /* smaller: reused as is */
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    ck_assert_uint_eq(tf_workspace_bytes(ws), grown);
    ck_assert_int_eq(tf_workspace_reserve(ws, enc, 8, 64), TF_OK);
    const size_t reserved = tf_workspace_bytes(ws);
    ck_assert_uint_gt(reserved, grown);
    a.seq_len = T;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    ck_assert_uint_eq(tf_workspace_bytes(ws), reserved);
    ck_assert_mem_eq(plain, with_ws, sizeof plain);
    tf_workspace_destroy(ws);
    tf_workspace_destroy(NULL);
    ck_assert_uint_eq(tf_workspace_bytes(NULL), 0);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_runtime_info);
    tcase_add_test(tc, test_status_names);
    tcase_add_test(tc, test_config_defaults_are_the_tutorial_model);
    tcase_add_test(tc, test_tutorial_model_tensors);
    tcase_add_test(tc, test_bert_like_tensors_and_no_bias);
    tcase_add_test(tc, test_initialisation_is_pytorch_like_and_deterministic);
    tcase_add_test(tc, test_set_then_get_round_trips);
    tcase_add_test(tc, test_workspace_reuse);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
