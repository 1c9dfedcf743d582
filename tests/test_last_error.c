/* test_last_error.c — "Successful calls leave tf_last_error unchanged":
 * a known failure's message is set first, then every public call that can
 * succeed is made in the ways that take it through internal look-ups that
 * may miss (optional tokens, optional tensors and config keys, fallbacks),
 * and the message must still be the same, byte for byte. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/suite.h"
#include "tfenc.h"

static const char *data_dir, *golden_dir;
static char sentinel[512];

/* Makes a call fail so that tf_last_error holds a message no success may touch. */
static void arm(void)
{
    tf_encoder *enc = NULL;
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 3; /* not divisible by n_heads 8 */
    ck_assert_int_ne(tf_encoder_create(&cfg, &enc), TF_OK);
    snprintf(sentinel, sizeof sentinel, "%s", tf_last_error());
    ck_assert_int_gt((int)strlen(sentinel), 0);
}

#define KEEPS(call)                                                                                \
    do {                                                                                           \
        const tf_status keeps_status_ = (call);                                                    \
        ck_assert_msg(keeps_status_ == TF_OK, "%s: %s (%s)", #call, tf_status_name(keeps_status_), \
                      tf_last_error());                                                            \
        ck_assert_msg(strcmp(tf_last_error(), sentinel) == 0, "%s changed the message to: %s",     \
                      #call, tf_last_error());                                                     \
    } while (0)

#define KEEPS_VOID(stmt)                                                                       \
    do {                                                                                       \
        stmt;                                                                                  \
        ck_assert_msg(strcmp(tf_last_error(), sentinel) == 0, "%s changed the message to: %s", \
                      #stmt, tf_last_error());                                                 \
    } while (0)

static void path_in(char *buf, size_t size, const char *dir, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

START_TEST(test_create_tensors_workspace_forward)
{
    arm();
    tf_config cfg;
    KEEPS_VOID(tf_config_init(&cfg));
    cfg.d_model = 16, cfg.n_heads = 4, cfg.d_ff = 32, cfg.n_layers = 2, cfg.vocab_size = 30;
    cfg.position = TF_POSITION_LEARNED, cfg.max_positions = 8, cfg.n_token_types = 2;
    cfg.embedding_norm = 1, cfg.final_norm = 1, cfg.pooler = 1;
    tf_encoder *enc = NULL;
    KEEPS(tf_encoder_create(&cfg, &enc));
    tf_config got;
    tf_config_init(&got);
    KEEPS(tf_encoder_get_config(enc, &got));
    const size_t n = tf_encoder_tensor_count(enc);
    for (size_t i = 0; i < n; i++) {
        const char *name = tf_encoder_tensor_name(enc, i);
        int32_t rank;
        int64_t dims[TF_MAX_RANK];
        KEEPS(tf_encoder_tensor_shape(enc, name, &rank, dims));
        size_t count = 1;
        for (int32_t d = 0; d < rank; d++)
            count *= (size_t)dims[d];
        float *values = malloc(count * sizeof *values);
        KEEPS(tf_encoder_get_tensor(enc, name, values, rank, dims));
        KEEPS(tf_encoder_set_tensor(enc, name, values, rank, dims));
        free(values);
    }
    tf_workspace *ws = NULL;
    KEEPS(tf_workspace_create(&ws));
    KEEPS(tf_workspace_reserve(ws, enc, 2, 4));

    enum { B = 2, T = 4, D = 16, L = 2, H = 4 };
    const int32_t ids[B * T] = {1, 5, 7, 2, 1, 9, 0, 0};
    const int32_t types[B * T] = {0, 0, 1, 1, 0, 1, 0, 0};
    const int32_t lengths[B] = {4, 2}, mask[B * T] = {1, 1, 1, 1, 1, 1, 0, 0};
    float additive[T * T] = {0};
    additive[1] = -INFINITY; /* a blocked key */
    static float out[B * T * D], hidden[(L + 1) * B * T * D], attn[L * B * H * T * T];
    static float pooled[B * D];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.token_type_ids = types, a.output = out;
    a.lengths = lengths, a.hidden_states = hidden, a.attentions = attn, a.pooled_output = pooled;
    a.workspace = ws, a.additive_mask = additive;
    KEEPS(tf_encoder_forward(enc, &a));
    a.lengths = NULL, a.attention_mask = mask, a.causal = 1, a.workspace = NULL;
    KEEPS(tf_encoder_forward(enc, &a));
    KEEPS_VOID((void)tf_workspace_bytes(ws));

    float pool[B * D];
    KEEPS(tf_pool(out, lengths, B, T, D, TF_POOLING_MEAN, 1, pool));
    KEEPS(tf_pool(out, NULL, B, T, D, TF_POOLING_CLS, 0, pool));

    char path[4096];
    snprintf(path, sizeof path, "/tmp/tfenc_last_error_%d.safetensors", (int)getpid());
    KEEPS(tf_encoder_save(enc, path));
    tf_encoder *back = NULL;
    KEEPS(tf_encoder_load(path, NULL, &back));
    unlink(path);
    KEEPS_VOID(tf_encoder_destroy(back));
    KEEPS_VOID(tf_workspace_destroy(ws));
    KEEPS_VOID(tf_encoder_destroy(enc));
}
END_TEST

static void load_and_inspect(const char *path, const tf_load_options *opts)
{
    tf_encoder *enc = NULL;
    KEEPS(tf_encoder_load(path, opts, &enc));
    KEEPS_VOID(tf_encoder_destroy(enc));
    tf_model_info *info = NULL;
    KEEPS(tf_model_inspect(path, opts, &info));
    tf_config cfg;
    tf_config_init(&cfg);
    KEEPS(tf_model_info_config(info, &cfg));
    KEEPS_VOID((void)tf_model_info_format(info));
    for (size_t i = 0; i < tf_model_info_tensor_count(info); i++) {
        tf_file_tensor t;
        KEEPS(tf_model_info_tensor(info, i, &t));
    }
    KEEPS_VOID(tf_model_info_destroy(info));
}

START_TEST(test_load_every_format)
{
    arm();
    char path[4096];
    path_in(path, sizeof path, data_dir, "bert_tiny"); /* a directory with config.json */
    load_and_inspect(path, NULL);
    static const char *const variants[] = {"f32", "f16", "bf16", "prefixed_old_names_extras"};
    tf_load_options o;
    tf_load_options_init(&o);
    o.n_heads = 2;
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        char name[128];
        snprintf(name, sizeof name, "variants/%s.safetensors", variants[i]);
        path_in(path, sizeof path, data_dir, name);
        load_and_inspect(path, &o);
    }
    /* PyTorch state_dicts: options from __metadata__, or given */
    path_in(path, sizeof path, golden_dir, "pytorch_encoder_f16_metadata/model.safetensors");
    load_and_inspect(path, NULL);
    path_in(path, sizeof path, golden_dir, "pytorch_single_layer_bf16_metadata/model.safetensors");
    load_and_inspect(path, NULL);
    tf_load_options_init(&o);
    o.n_heads = 4, o.activation = TF_ACTIVATION_GELU, o.norm_placement = TF_NORM_POST;
    path_in(path, sizeof path, golden_dir, "pytorch_encoder_f32_options/model.safetensors");
    load_and_inspect(path, &o);
}
END_TEST

/* vocab.txt of the WordPiece fixture without its [MASK] line. */
static void vocab_without_mask(char *out, size_t size)
{
    char src[4096];
    path_in(src, sizeof src, data_dir, "wordpiece/vocab.txt");
    snprintf(out, size, "/tmp/tfenc_vocab_no_mask_%d.txt", (int)getpid());
    FILE *in = fopen(src, "r"), *o = fopen(out, "w");
    ck_assert(in && o);
    char line[1024];
    while (fgets(line, sizeof line, in))
        if (strcmp(line, "[MASK]\n") != 0)
            fputs(line, o);
    fclose(in);
    fclose(o);
}

START_TEST(test_tokenizer)
{
    arm();
    char path[4096];
    vocab_without_mask(path, sizeof path);
    tf_tokenizer_options o;
    KEEPS_VOID(tf_tokenizer_options_init(&o));
    o.max_length = 8;
    tf_tokenizer *tok = NULL;
    KEEPS(tf_tokenizer_load(path, &o, &tok)); /* [MASK] is optional */
    unlink(path);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "[MASK]"), -1);
    KEEPS_VOID((void)tf_tokenizer_token_to_id(tok, "no-such-token"));
    KEEPS_VOID((void)tf_tokenizer_id_to_token(tok, tf_tokenizer_vocab_size(tok)));
    KEEPS_VOID((void)tf_tokenizer_id_to_token(tok, 1));
    tf_encoding *e = NULL;
    const char *text = "Crème brûlée [MASK] with unknownwordsxyz and a very long sentence";
    KEEPS(tf_tokenizer_encode(tok, text, strlen(text), "and a pair", 10, &e)); /* truncated */
    KEEPS_VOID(tf_encoding_destroy(e));
    const char *texts[] = {"I love NLP", "", "\xe4\xb8\x8d\xe5\xa5\xbd"};
    KEEPS(tf_tokenizer_encode_batch(tok, 3, texts, NULL, NULL, NULL, &e));
    KEEPS_VOID((void)tf_encoding_offsets(e));
    KEEPS_VOID(tf_encoding_destroy(e));
    KEEPS_VOID(tf_tokenizer_destroy(tok));

    path_in(path, sizeof path, data_dir, "wordpiece/vocab.txt");
    KEEPS(tf_tokenizer_load(path, NULL, &tok));
    KEEPS_VOID(tf_tokenizer_destroy(tok));
}
END_TEST

START_TEST(test_names_and_versions)
{
    arm();
    KEEPS_VOID((void)tf_version());
    KEEPS_VOID((void)tf_version_string());
    KEEPS_VOID((void)tf_status_name((tf_status)99));
    KEEPS_VOID((void)tf_status_from_name("TF_ERR_NOPE"));
    KEEPS_VOID((void)tf_activation_name(42));
    KEEPS_VOID((void)tf_activation_from_name("swish"));
    KEEPS_VOID((void)tf_position_from_name("rope"));
    KEEPS_VOID((void)tf_norm_placement_from_name("sandwich"));
    KEEPS_VOID((void)tf_pooling_from_name("max"));
    KEEPS_VOID((void)tf_struct_size("tf_nothing"));
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    golden_dir = test_dir("TFENC_GOLDEN_DIR");
    Suite *s = suite_create("last_error");
    TCase *tc = tcase_create("successful calls");
    tcase_add_test(tc, test_create_tensors_workspace_forward);
    tcase_add_test(tc, test_load_every_format);
    tcase_add_test(tc, test_tokenizer);
    tcase_add_test(tc, test_names_and_versions);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
