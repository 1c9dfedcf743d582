/* test_abi_new.c — the struct_size protocol from today's header: every
 * 0.1.0 field where 0.1.0 put it, the sizes the bindings check, callers
 * whose structs are smaller (0.1.0) or larger (a newer header) than the
 * library's, and struct sizes that are garbage. */
#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/suite.h"
#include "fields.h"
#include "tfenc.h"

/* A struct as a newer header would declare it: one field more. */
#define NEWER(type)     \
    struct {            \
        type s;         \
        int64_t future; \
    }

static const char *data_dir;

START_TEST(test_0_1_0_fields_stay_where_they_were)
{
    static const abi_field now[] = {TF_ABI_FIELDS_0_1_0(TF_ABI_FIELD)};
    ck_assert_uint_eq(abi_n_fields_0_1_0, sizeof now / sizeof *now);
    for (size_t i = 0; i < abi_n_fields_0_1_0; i++) {
        ck_assert_str_eq(now[i].name, abi_fields_0_1_0[i].name);
        ck_assert_msg(
            now[i].offset == abi_fields_0_1_0[i].offset && now[i].size == abi_fields_0_1_0[i].size,
            "%s: at %zu (%zu bytes) in 0.1.0, at %zu (%zu bytes) now", now[i].name,
            abi_fields_0_1_0[i].offset, abi_fields_0_1_0[i].size, now[i].offset, now[i].size);
    }
}
END_TEST

START_TEST(test_struct_sizes_are_the_headers)
{
    ck_assert_uint_eq(tf_struct_size("tf_config"), sizeof(tf_config));
    ck_assert_uint_eq(tf_struct_size("tf_forward_args"), sizeof(tf_forward_args));
    ck_assert_uint_eq(tf_struct_size("tf_load_options"), sizeof(tf_load_options));
    ck_assert_uint_eq(tf_struct_size("tf_tokenizer_options"), sizeof(tf_tokenizer_options));
    ck_assert_uint_eq(tf_struct_size("tf_file_tensor"), sizeof(tf_file_tensor));
    ck_assert_uint_eq(tf_struct_size("tf_trace_event"), sizeof(tf_trace_event));
    ck_assert_uint_eq(tf_struct_size("tf_encoder"), 0);
    ck_assert_uint_eq(tf_struct_size(NULL), 0);
}
END_TEST

static tf_encoder *small_encoder(void)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 16;
    tf_encoder *enc = NULL;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    return enc;
}

static void assert_unsupported(tf_status s, const char *what)
{
    ck_assert_int_eq(s, TF_ERR_UNSUPPORTED);
    char want[128];
    snprintf(want, sizeof want, "%s: the caller's struct is", what);
    ck_assert_msg(strstr(tf_last_error(), want) && strstr(tf_last_error(), "newer tfenc.h"),
                  "message: %s", tf_last_error());
}

START_TEST(test_newer_config_extra_field_zero_or_refused)
{
    NEWER(tf_config) big;
    memset(&big, 0xFF, sizeof big);
    tf_config_init_sized(&big.s, sizeof big);
    ck_assert_uint_eq(big.s.struct_size, sizeof big);
    ck_assert_int_eq(big.future, 0); /* zeroed: the default of any later field */
    ck_assert_int_eq(big.s.d_model, 512);
    big.s.d_model = 8, big.s.n_heads = 2, big.s.d_ff = 16;
    tf_encoder *enc = NULL;
    ck_assert_msg(tf_encoder_create(&big.s, &enc) == TF_OK, "%s", tf_last_error());

    NEWER(tf_config) got;
    memset(&got, 0xFF, sizeof got);
    got.s.struct_size = sizeof got;
    ck_assert_int_eq(tf_encoder_get_config(enc, &got.s), TF_OK);
    ck_assert_uint_eq(got.s.struct_size, sizeof got); /* the caller's, kept */
    ck_assert_int_eq(got.future, 0);
    ck_assert_int_eq(got.s.d_model, 8);
    tf_encoder_destroy(enc);

    big.future = 7; /* a field this library does not know, set */
    enc = (tf_encoder *)&big;
    assert_unsupported(tf_encoder_create(&big.s, &enc), "config");
    ck_assert_ptr_null(enc);
}
END_TEST

START_TEST(test_newer_forward_args)
{
    tf_encoder *enc = small_encoder();
    float in[2 * 8] = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1}, out[2 * 8], ref[2 * 8];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = 2, a.input_embeds = in, a.output = ref;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);

    NEWER(tf_forward_args) big;
    tf_forward_args_init_sized(&big.s, sizeof big);
    ck_assert_int_eq(big.future, 0);
    big.s.batch = 1, big.s.seq_len = 2, big.s.input_embeds = in, big.s.output = out;
    ck_assert_int_eq(tf_encoder_forward(enc, &big.s), TF_OK);
    ck_assert_int_eq(memcmp(out, ref, sizeof out), 0);
    big.future = 1;
    assert_unsupported(tf_encoder_forward(enc, &big.s), "args");
    tf_encoder_destroy(enc);
}
END_TEST

START_TEST(test_older_forward_args_fields_past_its_size_unread)
{
    tf_encoder *enc = small_encoder();
    float in[8] = {1, 0, -1, 2, 0, 1, 3, -2}, out[8];
    tf_forward_args a;
    memset(&a, 0x7F, sizeof a); /* garbage where a 0.1.0 caller's struct ends */
    tf_forward_args_init_sized(&a, offsetof(tf_forward_args, trace_user_data) + sizeof(void *));
    ck_assert_int_ne(a.n_threads, 0); /* not written: past the caller's struct */
    a.batch = 1, a.seq_len = 1, a.input_embeds = in, a.output = out;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    tf_encoder_destroy(enc);
}
END_TEST

/* Callers built against the header before 0.4.0's last additions
 * (6895d33: tf_encode_options without stride and return_overflowing,
 * tf_pipeline_args without dimensions_layer_norm): the fields past their
 * struct_size are neither written by init nor read, whatever the bytes
 * there hold. */
START_TEST(test_previous_header_callers)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/wordpiece/vocab.txt", data_dir);
    tf_tokenizer *tok = NULL;
    ck_assert_int_eq(tf_tokenizer_load(path, NULL, &tok), TF_OK);
    tf_encode_options o;
    memset(&o, 0x7F, sizeof o);
    tf_encode_options_init_sized(&o, offsetof(tf_encode_options, stride));
    ck_assert_int_ne(o.return_overflowing, 0); /* past the caller's struct: untouched */
    o.truncation = TF_TRUNCATION_LONGEST_FIRST, o.max_length = 6;
    const char *texts[1] = {"a text much longer than six tokens, cut once"};
    tf_encoding *e = NULL;
    ck_assert_msg(tf_tokenizer_encode_batch_with(tok, 1, texts, NULL, NULL, NULL, &o, &e) == TF_OK,
                  "%s", tf_last_error());
    ck_assert_int_eq(tf_encoding_batch(e), 1); /* no overflowing rows */
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 6);
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);

    snprintf(path, sizeof path, "%s/pipelines/st_mean_norm", data_dir);
    tf_pipeline *p = NULL;
    ck_assert_msg(tf_pipeline_load(path, NULL, &p) == TF_OK, "%s", tf_last_error());
    const int32_t dim = tf_pipeline_dim(p);
    float now[64], before[64];
    ck_assert_int_le(dim, 64);
    tf_pipeline_args a, old;
    tf_pipeline_args_init(&a);
    memset(&old, 0x7F, sizeof old);
    tf_pipeline_args_init_sized(&old, offsetof(tf_pipeline_args, dimensions_layer_norm));
    a.n = old.n = 1, a.texts = old.texts = texts;
    a.dimensions = old.dimensions = dim / 2;
    a.out = now, a.out_len = sizeof now / sizeof *now, old.out = before;
    ck_assert_int_eq(tf_pipeline_embed(p, &a), TF_OK);
    ck_assert_msg(tf_pipeline_embed(p, &old) == TF_OK, "%s", tf_last_error());
    ck_assert_int_eq(memcmp(now, before, (size_t)(dim / 2) * sizeof *now), 0);
    tf_pipeline_destroy(p);
}
END_TEST

START_TEST(test_newer_options_and_file_tensor)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bert_tiny", data_dir);
    NEWER(tf_load_options) lo;
    tf_load_options_init_sized(&lo.s, sizeof lo);
    tf_model_info *info = NULL;
    ck_assert_int_eq(tf_model_inspect(path, &lo.s, &info), TF_OK);
    NEWER(tf_file_tensor) t;
    memset(&t, 0xFF, sizeof t);
    ck_assert_int_eq(tf_model_info_tensor_sized(info, 0, &t.s, sizeof t), TF_OK);
    ck_assert_uint_eq(t.s.struct_size, sizeof t);
    ck_assert_int_eq(t.future, 0);
    ck_assert_ptr_nonnull(t.s.name);
    tf_model_info_destroy(info);
    lo.future = -1;
    tf_encoder *enc = NULL;
    assert_unsupported(tf_encoder_load(path, &lo.s, &enc), "options");

    snprintf(path, sizeof path, "%s/wordpiece/vocab.txt", data_dir);
    NEWER(tf_tokenizer_options) to;
    tf_tokenizer_options_init_sized(&to.s, sizeof to);
    tf_tokenizer *tok = NULL;
    ck_assert_int_eq(tf_tokenizer_load(path, &to.s, &tok), TF_OK);
    tf_tokenizer_destroy(tok);
    to.future = 3;
    assert_unsupported(tf_tokenizer_load(path, &to.s, &tok), "options");
    ck_assert_ptr_null(tok);
}
END_TEST

START_TEST(test_garbage_struct_size)
{
    static const size_t sizes[] = {0, 7, sizeof(size_t), 79, 4097, (size_t)1 << 40};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        tf_config cfg;
        tf_config_init(&cfg);
        cfg.struct_size = sizes[i];
        tf_encoder *enc = NULL;
        ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_ERR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(tf_last_error(), "config.struct_size: expected 80..4096 ("),
                      "message: %s", tf_last_error());
        char want[48];
        snprintf(want, sizeof want, "got %zu", sizes[i]);
        ck_assert_msg(strstr(tf_last_error(), want), "message: %s", tf_last_error());
    }
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("abi_new");
    TCase *tc = tcase_create("struct_size protocol");
    tcase_add_test(tc, test_0_1_0_fields_stay_where_they_were);
    tcase_add_test(tc, test_struct_sizes_are_the_headers);
    tcase_add_test(tc, test_newer_config_extra_field_zero_or_refused);
    tcase_add_test(tc, test_newer_forward_args);
    tcase_add_test(tc, test_older_forward_args_fields_past_its_size_unread);
    tcase_add_test(tc, test_newer_options_and_file_tensor);
    tcase_add_test(tc, test_previous_header_callers);
    tcase_add_test(tc, test_garbage_struct_size);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
