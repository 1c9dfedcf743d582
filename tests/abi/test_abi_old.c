/* test_abi_old.c — a program built against an earlier release's tfenc.h
 * (TF_ABI_CALLER: the copy in tests/abi/0.1.0 or tests/abi/0.2.0, the only
 * include directory) running on today's library: every struct it passes is
 * followed by canary bytes, which no call may touch, and every call still
 * works. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/suite.h"
#include "tfenc.h"

#define CANARY 0xA5
#define CANARY_BYTES 64

/* A struct of the old header with canary bytes after it. */
#define BOXED(type)                         \
    struct {                                \
        type s;                             \
        unsigned char canary[CANARY_BYTES]; \
    }

static const char *data_dir;

static void arm(unsigned char *canary)
{
    memset(canary, CANARY, CANARY_BYTES);
}

static void assert_intact(const unsigned char *canary, const char *what)
{
    for (int i = 0; i < CANARY_BYTES; i++)
        ck_assert_msg(canary[i] == CANARY, "%s: canary byte %d overwritten (0x%02x)", what, i,
                      canary[i]);
}

START_TEST(test_inits_write_only_the_old_structs)
{
    BOXED(tf_config) cfg;
    BOXED(tf_forward_args) args;
    BOXED(tf_load_options) load;
    BOXED(tf_tokenizer_options) tok;
    arm(cfg.canary), arm(args.canary), arm(load.canary), arm(tok.canary);
    tf_config_init(&cfg.s);
    tf_forward_args_init(&args.s);
    tf_load_options_init(&load.s);
    tf_tokenizer_options_init(&tok.s);
    assert_intact(cfg.canary, "tf_config_init");
    assert_intact(args.canary, "tf_forward_args_init");
    assert_intact(load.canary, "tf_load_options_init");
    assert_intact(tok.canary, "tf_tokenizer_options_init");
    ck_assert_uint_eq(cfg.s.struct_size, sizeof cfg.s);
    ck_assert_uint_eq(args.s.struct_size, sizeof args.s);
    ck_assert_uint_eq(load.s.struct_size, sizeof load.s);
    ck_assert_uint_eq(tok.s.struct_size, sizeof tok.s);
    ck_assert_int_eq(cfg.s.d_model, 512); /* the defaults, as both releases documented them */
    ck_assert_int_eq(cfg.s.n_heads, 8);
    ck_assert_float_eq(cfg.s.layer_norm_eps, 1e-5f);
    ck_assert_int_eq(load.s.activation, -1);
    ck_assert_int_eq(tok.s.max_chars_per_word, 100);
}
END_TEST

static void count_events(const tf_trace_event *e, void *user)
{
    ck_assert_uint_ge(e->struct_size, sizeof *e); /* every field of the old header is there */
    ++*(int *)user;
}

START_TEST(test_create_forward_get_config)
{
    BOXED(tf_config) cfg;
    arm(cfg.canary);
    tf_config_init(&cfg.s);
    cfg.s.d_model = 16, cfg.s.n_heads = 2, cfg.s.d_ff = 32, cfg.s.n_layers = 2;
    tf_encoder *enc = NULL;
    ck_assert_int_eq(tf_encoder_create(&cfg.s, &enc), TF_OK);

    enum { T = 3 };
    float in[T * 16], out[T * 16];
    for (int i = 0; i < T * 16; i++)
        in[i] = (float)(i % 7) * 0.25f - 0.5f;
    int events = 0;
    /* The bytes after the old header's args are not the caller's: a library that
     * read a later field (n_threads) from them would get 0xA5A5A5A5. */
    BOXED(tf_forward_args) args;
    arm(args.canary);
    tf_forward_args_init(&args.s);
    args.s.batch = 1, args.s.seq_len = T, args.s.input_embeds = in, args.s.output = out;
    args.s.trace = count_events, args.s.trace_user_data = &events;
    ck_assert_msg(tf_encoder_forward(enc, &args.s) == TF_OK, "%s", tf_last_error());
    assert_intact(args.canary, "tf_encoder_forward");
    ck_assert_int_gt(events, 10);
    for (int i = 0; i < T * 16; i++)
        ck_assert(out[i] == out[i]); /* written, not NaN */

    BOXED(tf_config) got;
    arm(got.canary);
    memset(&got.s, 0, sizeof got.s);
    got.s.struct_size = sizeof got.s;
    ck_assert_int_eq(tf_encoder_get_config(enc, &got.s), TF_OK);
    assert_intact(got.canary, "tf_encoder_get_config");
    ck_assert_uint_eq(got.s.struct_size, sizeof got.s);
    ck_assert_int_eq(got.s.d_model, 16);
    ck_assert_int_eq(got.s.n_layers, 2);
    ck_assert_int_eq(memcmp(&got.s, &cfg.s, sizeof got.s), 0);
    tf_encoder_destroy(enc);
}
END_TEST

START_TEST(test_load_inspect_tokenize)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bert_tiny", data_dir);
    BOXED(tf_load_options) opts;
    arm(opts.canary);
    tf_load_options_init(&opts.s);
    tf_encoder *enc = NULL;
    ck_assert_msg(tf_encoder_load(path, &opts.s, &enc) == TF_OK, "%s", tf_last_error());
    tf_encoder_destroy(enc);

    tf_model_info *info = NULL;
    ck_assert_int_eq(tf_model_inspect(path, &opts.s, &info), TF_OK);
    BOXED(tf_config) cfg;
    arm(cfg.canary);
    tf_config_init(&cfg.s);
    ck_assert_int_eq(tf_model_info_config(info, &cfg.s), TF_OK);
    assert_intact(cfg.canary, "tf_model_info_config");
    ck_assert_int_gt(cfg.s.vocab_size, 0);
    BOXED(tf_file_tensor) t;
    arm(t.canary);
    ck_assert_int_eq(tf_model_info_tensor(info, 0, &t.s), TF_OK);
    assert_intact(t.canary, "tf_model_info_tensor");
    ck_assert_uint_eq(t.s.struct_size, sizeof t.s);
    ck_assert_ptr_nonnull(t.s.name);
    tf_model_info_destroy(info);
    assert_intact(opts.canary, "tf_encoder_load");

    snprintf(path, sizeof path, "%s/wordpiece/vocab.txt", data_dir);
    BOXED(tf_tokenizer_options) to;
    arm(to.canary);
    tf_tokenizer_options_init(&to.s);
    tf_tokenizer *tok = NULL;
    ck_assert_msg(tf_tokenizer_load(path, &to.s, &tok) == TF_OK, "%s", tf_last_error());
    tf_encoding *e = NULL;
    ck_assert_int_eq(tf_tokenizer_encode(tok, "I love NLP", 10, NULL, 0, &e), TF_OK);
    ck_assert_int_ge(tf_encoding_seq_len(e), 3);
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
    assert_intact(to.canary, "tf_tokenizer_load");
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("abi_old");
    TCase *tc = tcase_create(TF_ABI_CALLER " caller");
    tcase_add_test(tc, test_inits_write_only_the_old_structs);
    tcase_add_test(tc, test_create_forward_get_config);
    tcase_add_test(tc, test_load_inspect_tokenize);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
