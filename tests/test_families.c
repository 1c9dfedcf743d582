/* test_families.c — the Hugging Face families beside BERT through
 * tf_encoder_load: RoBERTa (under "roberta.", positions from pad_token_id
 * + 1, a padding id inside a sequence), DistilBERT (its names and
 * config keys), ModernBERT (the Hub's names, Wi's halves swapped, its
 * config.json keys each checked), ELECTRA (a discriminator under
 * "electra.") and MPNet (under "mpnet.", positions after its padding_idx,
 * the relative position bias every layer shares), each padded batch's
 * real rows within 1e-5 of the float64 references of
 * tests/data/gen_families.py; what each folder is inferred
 * to be; and the family's inconsistencies, each refused by name. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/tensor.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

#define TOL 1e-5
#define MAX_B 8
#define MAX_T 64

static const char *data_dir;

static path_buf folder(const char *name)
{
    return join(join(data_dir, "families").s, name);
}

/* Runs expected.json's sequences as one right-padded batch and compares
 * every real row with its reference. */
static void expect_matches(const char *name)
{
    cJSON *exp = read_json(join(folder(name).s, "expected.json").s);
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_load(folder(name).s, NULL, &enc), TF_OK);
    const cJSON *seqs = json_at(exp, "ids"), *hidden = json_at(exp, "hidden");
    const int B = cJSON_GetArraySize(seqs), D = json_at(exp, "d_model")->valueint;
    int T = 0, lengths[MAX_B];
    ck_assert_int_le(B, MAX_B);
    for (int b = 0; b < B; b++) {
        lengths[b] = cJSON_GetArraySize(cJSON_GetArrayItem(seqs, b));
        T = lengths[b] > T ? lengths[b] : T;
    }
    ck_assert_int_le(T, MAX_T);
    static int32_t ids[MAX_B * MAX_T];
    static float out[MAX_B * MAX_T * 64];
    memset(ids, 0, sizeof ids);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < lengths[b]; t++)
            ids[b * T + t] = cJSON_GetArrayItem(cJSON_GetArrayItem(seqs, b), t)->valueint;
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.lengths = lengths, a.output = out;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    for (int b = 0; b < B; b++) {
        const cJSON *want = cJSON_GetArrayItem(hidden, b);
        ck_assert_int_eq(cJSON_GetArraySize(want), lengths[b] * D);
        for (int i = 0; i < lengths[b] * D; i++) {
            const double w = cJSON_GetArrayItem(want, i)->valuedouble;
            const double got = out[(size_t)b * (size_t)T * (size_t)D + (size_t)i];
            ck_assert_msg(fabs(got - w) <= TOL, "%s: sequence %d, [%d, %d]: got %.9g, want %.9g",
                          name, b, i / D, i % D, got, w);
        }
    }
    tf_encoder_destroy(enc);
    cJSON_Delete(exp);
}

/* The configuration the model at path loads with. */
static tf_config inspect_path(const char *path)
{
    tf_model_info *info;
    ck_assert_msg(tf_model_inspect(path, NULL, &info) == TF_OK, "%s", tf_last_error());
    tf_config c;
    tf_config_init(&c);
    ck_assert_int_eq(tf_model_info_config(info, &c), TF_OK);
    tf_model_info_destroy(info);
    return c;
}

static tf_config inspect(const char *name, const char *format)
{
    tf_model_info *info;
    ck_assert_int_eq(tf_model_inspect(folder(name).s, NULL, &info), TF_OK);
    ck_assert_str_eq(tf_model_info_format(info), format);
    tf_model_info_destroy(info);
    return inspect_path(folder(name).s);
}

START_TEST(test_roberta)
{
    expect_matches("roberta");
    const tf_config c = inspect("roberta", "huggingface-roberta");
    ck_assert_int_eq(c.position_offset, 2); /* pad_token_id 1 + 1 */
    ck_assert_int_eq(c.max_positions, 34);
    ck_assert_int_eq(c.n_token_types, 1);
    ck_assert_int_eq(c.pooler, 0); /* RobertaForMaskedLM has none */
    ck_assert_float_eq(c.layer_norm_eps, 1e-5f);
}
END_TEST

START_TEST(test_distilbert)
{
    expect_matches("distilbert");
    const tf_config c = inspect("distilbert", "huggingface-distilbert");
    ck_assert_int_eq(c.d_model, 16);
    ck_assert_int_eq(c.n_heads, 2);
    ck_assert_int_eq(c.d_ff, 32);
    ck_assert_int_eq(c.n_layers, 2);
    ck_assert_int_eq(c.n_token_types, 0);
    ck_assert_int_eq(c.pooler, 0);
    ck_assert_int_eq(c.position_offset, 0);
    ck_assert_float_eq(c.layer_norm_eps, 1e-12f);
}
END_TEST

START_TEST(test_encoder_piecesbert)
{
    expect_matches("modernbert");
    const tf_config c = inspect("modernbert", "huggingface-modernbert");
    ck_assert_int_eq(c.d_model, 16);
    ck_assert_int_eq(c.n_heads, 2);
    ck_assert_int_eq(c.d_ff, 32); /* Wi [64, 16] holds both halves */
    ck_assert_int_eq(c.n_layers, 4);
    ck_assert_int_eq(c.position, TF_POSITION_ROTARY);
    ck_assert_int_eq(c.max_positions, 64);
    ck_assert_int_eq(c.norm_placement, TF_NORM_PRE);
    ck_assert_int_eq(c.skip_first_norm1, 1);
    ck_assert_int_eq(c.final_norm, 1);
    ck_assert_int_eq(c.embedding_norm, 1);
    ck_assert_int_eq(c.ffn_gated, 1);
    ck_assert_int_eq(c.bias, 0);
    ck_assert_int_eq(c.norm_bias, 0);
    ck_assert_int_eq(c.n_token_types, 0);
    ck_assert_float_eq(c.rotary_base, 1000.0f);
    ck_assert_float_eq(c.rotary_base_local, 50.0f);
    ck_assert_int_eq(c.attn_window, 4);
    ck_assert_int_eq(c.global_every, 3);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_float_eq(c.layer_norm_eps, 1e-5f);
}
END_TEST

START_TEST(test_nomic_bert)
{
    expect_matches("nomic_bert");
    const tf_config c = inspect("nomic_bert", "huggingface-nomic-bert");
    ck_assert_int_eq(c.d_model, 16);
    ck_assert_int_eq(c.d_ff, 256); /* n_inner 200 rounded up to a multiple of 256 */
    ck_assert_int_eq(c.n_layers, 2);
    ck_assert_int_eq(c.n_token_types, 2);
    ck_assert_int_eq(c.position, TF_POSITION_ROTARY);
    ck_assert_int_eq(c.max_positions, 64);
    ck_assert_int_eq(c.rotary_dim, 4); /* half of each head of 8 */
    ck_assert_int_eq(c.rotary_interleaved, 1);
    ck_assert_float_eq(c.rotary_base, 500.0f);
    ck_assert_float_eq(c.rotary_ntk_factor, 0.0f); /* rotary_scaling_factor null */
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_int_eq(c.embedding_norm, 1);
    ck_assert_int_eq(c.ffn_gated, 1);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_SILU);
    ck_assert_int_eq(c.bias, 0);
    ck_assert_int_eq(c.norm_bias, 1);
    ck_assert_int_eq(c.pooler, 0);
    ck_assert_float_eq(c.layer_norm_eps, 1e-12f);
}
END_TEST

START_TEST(test_gte)
{
    expect_matches("gte");
    const tf_config c = inspect("gte", "huggingface-gte");
    ck_assert_int_eq(c.d_ff, 32); /* up_gate_proj [64, 16] holds both halves */
    ck_assert_int_eq(c.n_token_types, 0);
    ck_assert_int_eq(c.position, TF_POSITION_ROTARY);
    ck_assert_int_eq(c.max_positions, 64);
    ck_assert_int_eq(c.rotary_dim, 0);
    ck_assert_int_eq(c.rotary_interleaved, 0);
    ck_assert_float_eq(c.rotary_base, 1000.0f);              /* rope_theta 500 x factor 2 */
    ck_assert_float_eq(c.rotary_linear_factor, 1.18920712f); /* 2^(2/8) */
    ck_assert_float_eq(c.rotary_ntk_factor, 0.0f);
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_int_eq(c.embedding_norm, 1);
    ck_assert_int_eq(c.ffn_gated, 1);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_int_eq(c.bias, 1); /* up_gate_proj's, which it lacks, are zeros */
    ck_assert_float_eq(c.layer_norm_eps, 1e-12f);
}
END_TEST

START_TEST(test_jina_bert)
{
    expect_matches("jina_bert");
    const tf_config c = inspect("jina_bert", "huggingface-jina-bert");
    ck_assert_int_eq(c.d_ff, 32); /* gated_layers [64, 16] holds both halves */
    ck_assert_int_eq(c.n_token_types, 2);
    ck_assert_int_eq(c.position, TF_POSITION_ALIBI);
    ck_assert_int_eq(c.max_positions, 64);
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_int_eq(c.ffn_gated, 1);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_int_eq(c.bias, 1); /* gated_layers' biases, which it lacks, are zeros */
    ck_assert_int_eq(c.pooler, 0);
}
END_TEST

/* JinaBERT v2's code variant (jina-bert-v2-qk-post-norm): its norms on Q
 * and K and layer_norm_1 read, the multiplied half of up_gated_layer first;
 * saved in libtfenc's format and loaded back tensor for tensor. */
START_TEST(test_jina_code)
{
    expect_matches("jina_code");
    const tf_config c = inspect("jina_code", "huggingface-jina-bert-code");
    ck_assert_int_eq(c.qk_norm, 1);
    ck_assert_int_eq(c.add_norm1b, 1);
    ck_assert_int_eq(c.position, TF_POSITION_ALIBI);
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_int_eq(c.ffn_gated, 1);
    ck_assert_int_eq(c.d_ff, 32); /* up_gated_layer [64, 16] */
    ck_assert_int_eq(c.bias, 1);  /* its up_gated_layer's biases, which it lacks, are zeros */
    tf_encoder *enc, *back;
    ck_assert_int_eq(tf_encoder_load(folder("jina_code").s, NULL, &enc), TF_OK);
    make_tmp_dir();
    const path_buf saved = join(tmp_dir, "saved.safetensors");
    ck_assert_msg(tf_encoder_save(enc, saved.s) == TF_OK, "%s", tf_last_error());
    ck_assert_msg(tf_encoder_load(saved.s, NULL, &back) == TF_OK, "%s", tf_last_error());
    ck_assert_uint_eq(tf_encoder_tensor_count(back), tf_encoder_tensor_count(enc));
    const char *norms[] = {"layers.1.attn.q_norm.bias", "layers.1.attn.k_norm.weight",
                           "layers.0.norm1b.weight", "layers.1.norm1b.bias"};
    for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++) {
        size_t n, m;
        float *want = tensor_copy(enc, norms[i], &n), *got = tensor_copy(back, norms[i], &m);
        ck_assert_msg(want && got, "%s", norms[i]);
        ck_assert_uint_eq(n, 16);
        ck_assert_uint_eq(m, n);
        ck_assert_mem_eq(got, want, n * sizeof *got);
        free(want);
        free(got);
    }
    tf_encoder_destroy(back);
    tf_encoder_destroy(enc);
    remove_tmp_dir();
}
END_TEST

/* A code-variant folder with a norm tensor left out, or of the wrong
 * shape, is refused naming the tensor (and both shapes). */
START_TEST(test_jina_code_inconsistent)
{
    tf_encoder *enc = (tf_encoder *)&enc;
    expect_failure(tf_encoder_load(folder("jina_code_missing_norm").s, NULL, &enc), TF_ERR_FORMAT,
                   "missing tensor 'encoder.layer.1.attention.self.layer_norm_k.weight' (for "
                   "layers.1.attn.k_norm.weight [16])");
    ck_assert_ptr_null(enc);
    enc = (tf_encoder *)&enc;
    expect_failure(tf_encoder_load(folder("jina_code_norm_shape").s, NULL, &enc), TF_ERR_SHAPE,
                   "encoder.layer.0.attention.self.layer_norm_q.weight: expected [16] (for "
                   "layers.0.attn.q_norm.weight), got [8]");
    ck_assert_ptr_null(enc);
}
END_TEST

START_TEST(test_mpnet)
{
    expect_matches("mpnet");
    const tf_config c = inspect("mpnet", "huggingface-mpnet");
    ck_assert_int_eq(c.position, TF_POSITION_LEARNED);
    ck_assert_int_eq(c.position_offset, 2); /* MPNetEmbeddings' padding_idx 1 + 1 */
    ck_assert_int_eq(c.max_positions, 34);
    ck_assert_int_eq(c.relative_buckets, 32);
    ck_assert_int_eq(c.relative_max_distance, 0); /* 128 */
    ck_assert_int_eq(c.n_token_types, 0);
    ck_assert_int_eq(c.pooler, 0); /* MPNetForMaskedLM has none */
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_float_eq(c.layer_norm_eps, 1e-5f);
}
END_TEST

/* The model at path (D 16) runs one sequence of `longest` tokens and
 * refuses one more with message. */
static void expect_longest(const char *path, int longest, const char *message)
{
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_load(path, NULL, &enc), TF_OK);
    static int32_t ids[MAX_T];
    static float out[MAX_T * 16];
    ck_assert_int_lt(longest, MAX_T);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = longest + 1, a.input_ids = ids, a.output = out;
    expect_failure(tf_encoder_forward(enc, &a), TF_ERR_INVALID_ARGUMENT, message);
    a.seq_len = longest;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    tf_encoder_destroy(enc);
}

START_TEST(test_electra)
{
    expect_matches("electra");
    const tf_config c = inspect("electra", "huggingface-electra");
    ck_assert_int_eq(c.n_token_types, 2);
    ck_assert_int_eq(c.pooler, 0);
    ck_assert_int_eq(c.position_offset, 0);
}
END_TEST

/* ELECTRA with embedding_size 8 != hidden_size 16 (electra-small's layout):
 * embeddings 8 wide, embeddings_project [16, 8] before layer 0; the same
 * after tf_encoder_save and tf_encoder_load in libtfenc's format. */
START_TEST(test_electra_embeddings_project)
{
    expect_matches("electra_small");
    const tf_config c = inspect("electra_small", "huggingface-electra");
    ck_assert_int_eq(c.d_model, 16);
    ck_assert_int_eq(c.embedding_dim, 8);
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_load(folder("electra_small").s, NULL, &enc), TF_OK);
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    ck_assert_int_eq(tf_encoder_tensor_shape(enc, "embed.project.weight", &rank, dims), TF_OK);
    ck_assert_int_eq(rank, 2);
    ck_assert_int_eq(dims[0], 16);
    ck_assert_int_eq(dims[1], 8);
    ck_assert_int_eq(tf_encoder_tensor_shape(enc, "embed.norm.weight", &rank, dims), TF_OK);
    ck_assert_int_eq(dims[0], 8);
    make_tmp_dir();
    const path_buf saved = join(tmp_dir, "model.safetensors");
    ck_assert_int_eq(tf_encoder_save(enc, saved.s), TF_OK);
    tf_encoder_destroy(enc);
    ck_assert_int_eq(tf_encoder_load(saved.s, NULL, &enc), TF_OK);
    tf_config back;
    tf_config_init(&back);
    ck_assert_int_eq(tf_encoder_get_config(enc, &back), TF_OK);
    ck_assert_int_eq(back.embedding_dim, 8);
    const int32_t ids[5] = {0, 5, 17, 33, 2};
    float out[5 * 16];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = 5, a.input_ids = ids, a.output = out;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    cJSON *exp = read_json(join(folder("electra_small").s, "expected.json").s);
    const cJSON *want = cJSON_GetArrayItem(json_at(exp, "hidden"),
                                           0); /* [5 x 16] of ids 0, 5, 17, 33, 2 */
    for (int k = 0; k < 5 * 16; k++)
        ck_assert_double_eq_tol(out[k], cJSON_GetArrayItem(want, k)->valuedouble, TOL);
    cJSON_Delete(exp);
    tf_encoder_destroy(enc);
    remove_tmp_dir();

    tf_config bad;
    tf_config_init(&bad);
    bad.embedding_dim = -1;
    enc = (tf_encoder *)&enc;
    expect_failure(tf_encoder_create(&bad, &enc), TF_ERR_INVALID_ARGUMENT,
                   "config.embedding_dim: expected 0..65536, got -1");
    ck_assert_ptr_null(enc);
}
END_TEST

/* RoBERTa's last positions: T + position_offset <= max_positions. */
START_TEST(test_offset_positions_bound_the_length)
{
    expect_longest(folder("roberta").s, 32,
                   "sequence length 33 exceeds max_positions 34 less position_offset");
    tf_encoder *enc;

    tf_config c;
    tf_config_init(&c);
    c.d_model = 8, c.n_heads = 2, c.d_ff = 8, c.vocab_size = 10;
    c.position_offset = 2; /* sinusoidal positions have no offset */
    expect_failure(tf_encoder_create(&c, &enc), TF_ERR_INVALID_ARGUMENT,
                   "config.position_offset: expected 0, or with learned positions");
    c.position = TF_POSITION_LEARNED, c.max_positions = 2;
    expect_failure(tf_encoder_create(&c, &enc), TF_ERR_INVALID_ARGUMENT,
                   "config.position_offset: expected 0, or with learned positions 1..1 "
                   "(max_positions - 1), got 2");
    ck_assert_ptr_null(enc);
}
END_TEST

/* tmp_dir: the folder's weights (and tokenizer.json, when it has one) with
 * config.json as given. */
static void prepare(const char *name, const char *config)
{
    const char *files[] = {"model.safetensors", "tokenizer.json"};
    for (int i = 0; i < 2; i++) {
        unlink(join(tmp_dir, files[i]).s);
        if (access(join(folder(name).s, files[i]).s, F_OK) == 0)
            ck_assert_int_eq(symlink(join(folder(name).s, files[i]).s, join(tmp_dir, files[i]).s),
                             0);
    }
    write_text(join(tmp_dir, "config.json").s, config);
}

static tf_status load_with_config(const char *name, const char *config)
{
    prepare(name, config);
    tf_encoder *enc = (tf_encoder *)&enc;
    const tf_status s = tf_encoder_load(tmp_dir, NULL, &enc);
    ck_assert_ptr_null(enc);
    return s;
}

/* The modernbert folder's weights with config.json's keys as given (after
 * model_type and num_attention_heads). */
static tf_status load_modernbert(const char *keys)
{
    char config[512];
    snprintf(config, sizeof config,
             "{\"model_type\": \"modernbert\", "
             "\"num_attention_heads\": 2%s%s}",
             keys[0] ? ", " : "", keys);
    return load_with_config("modernbert", config);
}

static tf_status pipeline_with_config(const char *name, const char *config)
{
    prepare(name, config);
    tf_pipeline *p = (tf_pipeline *)&p;
    const tf_status s = tf_pipeline_load(tmp_dir, NULL, &p);
    ck_assert_ptr_null(p);
    return s;
}

START_TEST(test_inconsistencies)
{
    make_tmp_dir();
    expect_failure(load_with_config("roberta",
                                    "{\"model_type\": \"roberta\", "
                                    "\"num_attention_heads\": 2, \"pad_token_id\": 33}"),
                   TF_ERR_FORMAT,
                   "config.json: pad_token_id 33 leaves no positions of the 34 "
                   "that roberta.embeddings.position_embeddings.weight has");
    expect_failure(load_with_config("distilbert",
                                    "{\"model_type\": \"distilbert\", "
                                    "\"n_heads\": 2, \"dim\": 32}"),
                   TF_ERR_SHAPE,
                   "config.json: dim 32 disagrees with "
                   "embeddings.word_embeddings.weight [60, 16]");
    expect_failure(load_with_config("distilbert",
                                    "{\"model_type\": \"distilbert\", "
                                    "\"n_heads\": 2, \"n_layers\": 3}"),
                   TF_ERR_FORMAT, "config.json: n_layers 3, but the file has layers 0..1");
    expect_failure(load_with_config("distilbert",
                                    "{\"model_type\": \"distilbert\", "
                                    "\"n_heads\": 2, \"activation\": \"swish\"}"),
                   TF_ERR_UNSUPPORTED, "config.json: activation \"swish\" is not supported");
    expect_failure(load_with_config("electra",
                                    "{\"model_type\": \"electra\", "
                                    "\"num_attention_heads\": 2, \"hidden_size\": 16, "
                                    "\"embedding_size\": 8}"),
                   TF_ERR_SHAPE,
                   "config.json: embedding_size 8 disagrees with "
                   "electra.embeddings.word_embeddings.weight [58, 16]");
    expect_failure(load_with_config("electra_small",
                                    "{\"model_type\": \"electra\", "
                                    "\"num_attention_heads\": 2, \"hidden_size\": 8}"),
                   TF_ERR_SHAPE,
                   "config.json: hidden_size 8 disagrees with "
                   "electra.embeddings_project.weight [16, 8]");
    /* DistilBERT's names under another family's model_type */
    expect_failure(load_with_config("distilbert",
                                    "{\"model_type\": \"bert\", "
                                    "\"num_attention_heads\": 2}"),
                   TF_ERR_FORMAT, "no encoder layers (encoder.layer.N.*) in the file");
    expect_failure(load_with_config("roberta",
                                    "{\"model_type\": \"roberta\", "
                                    "\"architectures\": [\"BertModel\"]}"),
                   TF_ERR_UNSUPPORTED,
                   "config.json: model_type \"roberta\" (architectures "
                   "BertModel) is not supported; supported: model_type \"bert\" with "
                   "architectures Bert*; model_type \"roberta\", \"xlm-roberta\" or "
                   "\"camembert\" with architectures Roberta*, XLMRoberta* or Camembert*; "
                   "model_type \"distilbert\" with architectures DistilBert*; "
                   "model_type \"modernbert\" with architectures ModernBert*; "
                   "model_type \"electra\" with architectures Electra*");
    /* without tokenizer_config.json: the positions RoBERTa has for tokens, 40 - 2 */
    prepare("roberta_classifier",
            "{\"model_type\": \"roberta\", \"num_attention_heads\": 2, "
            "\"architectures\": [\"RobertaForSequenceClassification\"], \"id2label\": "
            "{\"0\": \"a\", \"1\": \"b\", \"2\": \"c\"}}");
    tf_pipeline *p;
    ck_assert_int_eq(tf_pipeline_load(tmp_dir, NULL, &p), TF_OK);
    ck_assert_int_eq(tf_pipeline_max_seq_length(p), 38);
    tf_pipeline_destroy(p);
    /* a head's labels against its rows */
    expect_failure(pipeline_with_config("roberta_classifier",
                                        "{\"model_type\": \"roberta\", "
                                        "\"num_attention_heads\": 2, \"architectures\": "
                                        "[\"RobertaForSequenceClassification\"], \"id2label\": "
                                        "{\"0\": \"no\", \"1\": \"yes\"}}"),
                   TF_ERR_SHAPE,
                   "model.safetensors: classifier.out_proj.weight: expected [2, 8] "
                   "(2 labels in config.json id2label, hidden_size 8), got [3, 8]");
    expect_failure(pipeline_with_config("roberta",
                                        "{\"model_type\": \"roberta\", "
                                        "\"num_attention_heads\": 2, \"architectures\": "
                                        "[\"XLMRobertaForSequenceClassification\"]}"),
                   TF_ERR_FORMAT,
                   "model.safetensors: missing tensor 'classifier.dense.weight' "
                   "[16, 16] (hidden_size 16)");
    remove_tmp_dir();
}
END_TEST

/* MPNet's config.json: the buckets other than compute_position_bias's 32
 * refused by name and value; pad_token_id does not move its positions
 * (MPNetEmbeddings fixes padding_idx at 1); its length bound. */
START_TEST(test_mpnet_config)
{
    make_tmp_dir();
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } cases[] = {
        {"\"relative_attention_num_buckets\": 64", TF_ERR_UNSUPPORTED,
         "config.json: relative_attention_num_buckets 64 is not supported (MPNetEncoder buckets "
         "relative positions into 32 whatever it says, so only a table of 32 rows is)"},
        {"\"relative_attention_num_buckets\": 0", TF_ERR_FORMAT,
         "config.json: relative_attention_num_buckets must be an integer in 1..2147483647, got 0"},
        {"\"relative_attention_num_buckets\": \"32\"", TF_ERR_FORMAT,
         "config.json: relative_attention_num_buckets must be an integer in 1..2147483647, got "
         "\"32\""},
        {"\"num_attention_heads\": 4", TF_ERR_SHAPE,
         "mpnet.encoder.relative_attention_bias.weight: expected [32, 4] (for "
         "relative_bias.weight), got [32, 2]"},
        {"\"hidden_act\": \"swish\"", TF_ERR_UNSUPPORTED,
         "config.json: hidden_act \"swish\" is not supported"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char config[256];
        snprintf(config, sizeof config, "{\"model_type\": \"mpnet\", %s%s}",
                 strstr(cases[i].keys, "heads") ? "" : "\"num_attention_heads\": 2, ",
                 cases[i].keys);
        expect_failure(load_with_config("mpnet", config), cases[i].status, cases[i].message);
    }
    prepare("mpnet",
            "{\"model_type\": \"mpnet\", \"num_attention_heads\": 2, "
            "\"pad_token_id\": 7, \"relative_attention_num_buckets\": 32}");
    tf_model_info *info;
    ck_assert_int_eq(tf_model_inspect(tmp_dir, NULL, &info), TF_OK);
    tf_config c;
    tf_config_init(&c);
    ck_assert_int_eq(tf_model_info_config(info, &c), TF_OK);
    ck_assert_int_eq(c.position_offset, 2);
    tf_model_info_destroy(info);
    expect_longest(tmp_dir, 32, "sequence length 33 exceeds max_positions 34 less position_offset");
    remove_tmp_dir();
}
END_TEST

/* Each ModernBERT key the loader reads, out of range or beyond the library,
 * refused by name and value; the file's names against the config. */
START_TEST(test_encoder_piecesbert_config)
{
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } cases[] = {
        {"\"global_rope_theta\": 1", TF_ERR_FORMAT,
         "config.json: global_rope_theta must be a number > 1 that float32 holds, got 1"},
        {"\"local_rope_theta\": \"10000\"", TF_ERR_FORMAT,
         "config.json: local_rope_theta must be a number > 1 that float32 holds, got \"10000\""},
        {"\"local_rope_theta\": 1e300", TF_ERR_FORMAT,
         "config.json: local_rope_theta must be a number > 1 that float32 holds, got 1e+300"},
        {"\"local_attention\": 1", TF_ERR_UNSUPPORTED,
         "config.json: local_attention 1 is not supported (a window of at least 2"},
        {"\"local_attention\": -4", TF_ERR_FORMAT,
         "config.json: local_attention must be an integer in 0..2147483647, got -4"},
        {"\"global_attn_every_n_layers\": 0", TF_ERR_FORMAT,
         "config.json: global_attn_every_n_layers must be an integer in 1..2147483647, got 0"},
        {"\"hidden_activation\": \"swish\"", TF_ERR_UNSUPPORTED,
         "config.json: hidden_activation \"swish\" is not supported"},
        {"\"norm_eps\": 0", TF_ERR_FORMAT,
         "config.json: norm_eps must be a number in (0, 1], got 0"},
        {"\"attention_bias\": true", TF_ERR_UNSUPPORTED,
         "config.json: attention_bias true with mlp_bias false is not supported"},
        {"\"mlp_bias\": 1", TF_ERR_FORMAT, "config.json: mlp_bias must be true or false, got 1"},
        {"\"attention_bias\": true, \"mlp_bias\": true", TF_ERR_UNSUPPORTED,
         "config.json: attention_bias true with norm_bias false is not supported"},
        {"\"norm_bias\": true", TF_ERR_FORMAT,
         "missing tensor 'model.embeddings.norm.bias' (for embed.norm.bias [16])"},
        {"\"norm_bias\": \"no\"", TF_ERR_FORMAT,
         "config.json: norm_bias must be true or false, got \"no\""},
        {"\"max_position_embeddings\": 1.5", TF_ERR_FORMAT,
         "config.json: max_position_embeddings must be an integer in 0..2147483647, got 1.5"},
        {"\"hidden_size\": 32", TF_ERR_SHAPE,
         "config.json: hidden_size 32 disagrees with model.embeddings.tok_embeddings.weight "
         "[60, 16]"},
        {"\"intermediate_size\": 64", TF_ERR_SHAPE,
         "config.json: intermediate_size 64 disagrees with model.layers.0.mlp.Wi.weight "
         "[64, 16]"},
        {"\"num_hidden_layers\": 3", TF_ERR_FORMAT,
         "config.json: num_hidden_layers 3, but the file has layers 0..3"},
        {"\"rope_parameters\": {\"full_attention\": {\"rope_theta\": 5}}", TF_ERR_UNSUPPORTED,
         "config.json: rope_parameters {\"full_attention\""},
        {"\"layer_types\": [\"full_attention\"]", TF_ERR_UNSUPPORTED,
         "config.json: layer_types [\"full_attention\"] is not supported (this library reads "
         "which layers are local from global_attn_every_n_layers)"},
        {"\"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}", TF_ERR_UNSUPPORTED,
         "config.json: rope_scaling type \"dynamic\" is not supported for ModernBERT"},
    };
    make_tmp_dir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_failure(load_modernbert(cases[i].keys), cases[i].status, cases[i].message);
    remove_tmp_dir();
}
END_TEST

/* The nomic_bert folder's weights with config.json's keys as given (after
 * model_type and n_head); NOMIC_OK: the keys its weights need. */
#define NOMIC_OK                                                          \
    "\"activation_function\": \"swiglu\", \"rotary_emb_fraction\": 0.5, " \
    "\"qkv_proj_bias\": false, \"mlp_fc1_bias\": false, \"mlp_fc2_bias\": false"

static const char *nomic_config(const char *keys)
{
    static char config[768];
    snprintf(config, sizeof config, "{\"model_type\": \"nomic_bert\", \"n_head\": 2, %s}", keys);
    return config;
}

/* Each NomicBERT key the loader reads, out of range or beyond the library,
 * refused by name and value; rotary_scaling_factor absent (NomicBertConfig's
 * 1.0), null and 2. */
START_TEST(test_nomic_bert_config)
{
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } cases[] = {
        {NOMIC_OK ", \"prenorm\": true", TF_ERR_UNSUPPORTED,
         "config.json: prenorm true is not supported (NomicBertEncoder then returns the last "
         "block's MLP output without its residual)"},
        {"\"activation_function\": \"glu\"", TF_ERR_UNSUPPORTED,
         "config.json: activation_function \"glu\" is not supported (swiglu, geglu, gelu,"},
        {"\"activation_function\": 5", TF_ERR_FORMAT,
         "config.json: activation_function must be a string, got 5"},
        {"\"activation_function\": \"gelu\", \"rotary_emb_fraction\": 0.5, \"qkv_proj_bias\": "
         "false, \"mlp_fc1_bias\": false, \"mlp_fc2_bias\": false",
         TF_ERR_SHAPE,
         "config.json: n_inner absent (4 n_embd) gives a feed-forward width of 64, but the "
         "file's is 256"},
        {"\"activation_function\": \"gelu\", \"rotary_emb_fraction\": 0.5, \"qkv_proj_bias\": "
         "false, \"mlp_fc1_bias\": false, \"mlp_fc2_bias\": false, \"n_inner\": 256",
         TF_ERR_FORMAT,
         "encoder.layers.0.mlp.fc12.weight: maps to layers.0.ffn.gate.weight, which a model of "
         "this configuration does not have"},
        {"\"activation_function\": \"swiglu\", \"rotary_emb_fraction\": 0.3, \"qkv_proj_bias\": "
         "false, \"mlp_fc1_bias\": false, \"mlp_fc2_bias\": false",
         TF_ERR_UNSUPPORTED,
         "config.json: rotary_emb_fraction 0.3 of a head of 8 gives 2.4 rotated dimensions; an "
         "even count of at least 2 is supported"},
        {"\"activation_function\": \"swiglu\", \"rotary_emb_fraction\": 1.5", TF_ERR_FORMAT,
         "config.json: rotary_emb_fraction must be a number in [0, 1], got 1.5"},
        {"\"activation_function\": \"swiglu\", \"qkv_proj_bias\": false, \"mlp_fc1_bias\": false, "
         "\"mlp_fc2_bias\": false",
         TF_ERR_FORMAT,
         "config.json: rotary_emb_fraction 0 means learned positions, but the file has no "
         "embeddings.position_embeddings.weight"},
        {"\"activation_function\": \"swiglu\", \"rotary_emb_fraction\": 0.5, \"qkv_proj_bias\": "
         "true, \"mlp_fc1_bias\": false, \"mlp_fc2_bias\": false",
         TF_ERR_UNSUPPORTED,
         "config.json: qkv_proj_bias true, mlp_fc1_bias false and mlp_fc2_bias false are not "
         "supported together"},
        {"\"activation_function\": \"swiglu\", \"rotary_emb_fraction\": 0.5", TF_ERR_FORMAT,
         "missing tensor 'encoder.layers.0.attn.Wqkv.bias'"},
        {NOMIC_OK ", \"n_inner\": 300", TF_ERR_SHAPE,
         "config.json: n_inner 300 gives a feed-forward width of 512 (rounded up to a multiple "
         "of 256), but the file's is 256"},
        {NOMIC_OK ", \"rotary_scaling_factor\": 0.5", TF_ERR_FORMAT,
         "config.json: rotary_scaling_factor must be null, 0 or a number in [1, 1e+06], got 0.5"},
        {NOMIC_OK ", \"max_trained_positions\": 0", TF_ERR_FORMAT,
         "config.json: max_trained_positions must be an integer in 1..2147483647, got 0"},
        {NOMIC_OK ", \"rotary_emb_base\": 1", TF_ERR_FORMAT,
         "config.json: rotary_emb_base must be a number > 1 that float32 holds, got 1"},
        {NOMIC_OK ", \"rotary_emb_interleaved\": \"yes\"", TF_ERR_FORMAT,
         "config.json: rotary_emb_interleaved must be true or false, got \"yes\""},
        {NOMIC_OK ", \"rotary_emb_scale_base\": 512", TF_ERR_UNSUPPORTED,
         "config.json: rotary_emb_scale_base 512 is not supported (xPos scaling"},
        {NOMIC_OK ", \"rotary_head_dim\": true", TF_ERR_UNSUPPORTED,
         "config.json: rotary_head_dim true is not supported"},
        {NOMIC_OK ", \"num_heads_kv\": 1", TF_ERR_UNSUPPORTED,
         "config.json: num_heads_kv 1 is not supported (grouped key/value heads"},
        {NOMIC_OK ", \"causal\": true", TF_ERR_UNSUPPORTED,
         "config.json: causal true is not supported"},
        {NOMIC_OK ", \"use_rms_norm\": true", TF_ERR_UNSUPPORTED,
         "config.json: use_rms_norm true is not supported (RMSNorm"},
        {NOMIC_OK ", \"parallel_block\": true", TF_ERR_UNSUPPORTED,
         "config.json: parallel_block true is not supported"},
        {NOMIC_OK ", \"layer_norm_epsilon\": 0", TF_ERR_FORMAT,
         "config.json: layer_norm_epsilon must be a number in (0, 1], got 0"},
        {NOMIC_OK ", \"n_embd\": 32", TF_ERR_SHAPE,
         "config.json: n_embd 32 disagrees with embeddings.word_embeddings.weight [60, 16]"},
        {NOMIC_OK ", \"n_layer\": 3", TF_ERR_FORMAT,
         "config.json: n_layer 3, but the file has layers 0..1"},
        {NOMIC_OK ", \"vocab_size\": 59, \"pad_vocab_size_multiple\": 8", TF_ERR_SHAPE,
         "config.json: vocab_size 59 (64 once rounded up to a multiple of "
         "pad_vocab_size_multiple 8) disagrees with embeddings.word_embeddings.weight [60, 16]"},
        {NOMIC_OK ", \"vocab_size\": 59", TF_ERR_SHAPE,
         "config.json: vocab_size 59 disagrees with embeddings.word_embeddings.weight [60, 16]"},
        {NOMIC_OK ", \"pad_vocab_size_multiple\": 0", TF_ERR_FORMAT,
         "config.json: pad_vocab_size_multiple must be an integer in 1..2147483647, got 0"},
        {NOMIC_OK ", \"auto_map\": {\"AutoModel\": \"someone/else--modeling.NomicBertModel\"}",
         TF_ERR_UNSUPPORTED,
         "config.json: auto_map AutoModel "
         "\"someone/else--modeling.NomicBertModel\" points at remote code (architectures none) "
         "that this library does not follow"},
    };
    make_tmp_dir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_failure(load_with_config("nomic_bert", nomic_config(cases[i].keys)), cases[i].status,
                       cases[i].message);
    prepare("nomic_bert", nomic_config(NOMIC_OK)); /* NomicBertConfig's 1.0 from 2048 on */
    tf_config c = inspect_path(tmp_dir);
    ck_assert_float_eq(c.rotary_ntk_factor, 1.0f);
    ck_assert_int_eq(c.rotary_ntk_positions, 2048);
    ck_assert_float_eq(c.rotary_base, 1000.0f);
    ck_assert_int_eq(c.rotary_interleaved, 0);
    prepare("nomic_bert",
            nomic_config(NOMIC_OK ", \"rotary_scaling_factor\": 2, "
                                  "\"max_trained_positions\": 8"));
    c = inspect_path(tmp_dir);
    ck_assert_float_eq(c.rotary_ntk_factor, 2.0f);
    ck_assert_int_eq(c.rotary_ntk_positions, 8);
    prepare("nomic_bert", nomic_config(NOMIC_OK ", \"rotary_scaling_factor\": null"));
    ck_assert_float_eq(inspect_path(tmp_dir).rotary_ntk_factor, 0.0f);
    /* NomicBertModel rounds vocab_size up to pad_vocab_size_multiple: 57 to the file's 60 */
    prepare("nomic_bert",
            nomic_config(NOMIC_OK ", \"vocab_size\": 57, "
                                  "\"pad_vocab_size_multiple\": 4"));
    ck_assert_int_eq(inspect_path(tmp_dir).vocab_size, 60);
    remove_tmp_dir();
}
END_TEST

/* The gte folder's weights under config.json's keys: each GTE key out of
 * range or beyond the library refused by name and value; rope_scaling's
 * factor 1, absent, or without heads. */
START_TEST(test_gte_config)
{
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } cases[] = {
        {"\"layer_norm_type\": \"rms_norm\"", TF_ERR_UNSUPPORTED,
         "config.json: layer_norm_type \"rms_norm\" is not supported (\"layer_norm\" is)"},
        {"\"position_embedding_type\": \"absolute\"", TF_ERR_UNSUPPORTED,
         "config.json: position_embedding_type \"absolute\" is not supported (\"rope\" is)"},
        {"\"rope_scaling\": {\"type\": \"linear\", \"factor\": 2}", TF_ERR_UNSUPPORTED,
         "config.json: rope_scaling.type \"linear\" is not supported (\"ntk\" is)"},
        {"\"rope_scaling\": {\"type\": \"ntk\", \"factor\": 2, \"mixed_b\": 0.9}",
         TF_ERR_UNSUPPORTED, "config.json: rope_scaling.mixed_b 0.9 is not supported"},
        {"\"rope_scaling\": {\"type\": \"ntk\", \"factor\": 0.5}", TF_ERR_FORMAT,
         "config.json: rope_scaling.factor must be a number in [1, 1e+06], got 0.5"},
        {"\"rope_scaling\": {\"type\": \"ntk\"}", TF_ERR_FORMAT,
         "config.json: rope_scaling {\"type\":\"ntk\"} needs both type and factor"},
        {"\"rope_scaling\": \"ntk\"", TF_ERR_FORMAT,
         "config.json: rope_scaling must be an object, got \"ntk\""},
        {"\"rope_theta\": 0.5", TF_ERR_FORMAT,
         "config.json: rope_theta must be a number > 1 that float32 holds, got 0.5"},
        {"\"logn_attention_scale\": true", TF_ERR_UNSUPPORTED,
         "config.json: logn_attention_scale true is not supported"},
        {"\"hidden_act\": \"swish\"", TF_ERR_UNSUPPORTED,
         "config.json: hidden_act \"swish\" is not supported"},
        {"\"intermediate_size\": 64", TF_ERR_SHAPE,
         "config.json: intermediate_size 64 disagrees with encoder.layer.0.mlp.up_gate_proj.weight "
         "[64, 16]"},
        {"\"auto_map\": {\"AutoModel\": \"Alibaba-NLP/other-impl--modeling.NewModel\"}",
         TF_ERR_UNSUPPORTED,
         "config.json: auto_map AutoModel "
         "\"Alibaba-NLP/other-impl--modeling.NewModel\" points at remote code"},
    };
    make_tmp_dir();
    char config[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(config, sizeof config,
                 "{\"model_type\": \"new\", \"num_attention_heads\": 2, "
                 "%s}",
                 cases[i].keys);
        expect_failure(load_with_config("gte", config), cases[i].status, cases[i].message);
    }
    expect_failure(load_with_config("gte",
                                    "{\"model_type\": \"new\", \"rope_scaling\": "
                                    "{\"type\": \"ntk\", \"factor\": 2}}"),
                   TF_ERR_FORMAT, "config.json: rope_scaling needs num_attention_heads");
    prepare("gte",
            "{\"model_type\": \"new\", \"num_attention_heads\": 2, \"rope_scaling\": "
            "{\"type\": \"ntk\", \"factor\": 1}}");
    tf_config c = inspect_path(tmp_dir);
    ck_assert_float_eq(c.rotary_base, 10000.0f); /* NewConfig's rope_theta */
    ck_assert_float_eq(c.rotary_linear_factor, 0.0f);
    ck_assert_int_eq(c.max_positions, 512); /* NewConfig's max_position_embeddings */
    prepare("gte", "{\"model_type\": \"new\", \"num_attention_heads\": 2, \"rope_theta\": 50}");
    c = inspect_path(tmp_dir);
    ck_assert_float_eq(c.rotary_base, 50.0f);
    ck_assert_float_eq(c.rotary_linear_factor, 0.0f);
    remove_tmp_dir();
}
END_TEST

/* The jina_bert folder's weights under config.json's keys: model_type
 * "bert" alone is BERT; feed_forward_type and the code variant's auto_map
 * refused by name and value. */
START_TEST(test_jina_bert_config)
{
    static const struct {
        const char *keys;
        tf_status status;
        const char *message;
    } cases[] = {
        {"\"position_embedding_type\": \"alibi\", \"feed_forward_type\": \"swiglu\"",
         TF_ERR_UNSUPPORTED,
         "config.json: feed_forward_type \"swiglu\" is not supported "
         "(geglu, reglu and original are)"},
        {"\"position_embedding_type\": \"alibi\"", TF_ERR_FORMAT, /* "original" */
         "encoder.layer.0.mlp.gated_layers.weight: holds a gated feed-forward block's two halves "
         "(for layers.0.ffn.up.weight and ffn.gate), but this configuration's block is not "
         "gated"},
        {"\"feed_forward_type\": \"geglu\"", TF_ERR_FORMAT, /* BERT's names */
         "missing tensor 'encoder.layer.0.intermediate.dense.weight'"},
        {"\"position_embedding_type\": \"relative_key\"", TF_ERR_UNSUPPORTED,
         "config.json: position_embedding_type \"relative_key\" is not supported "
         "(\"absolute\" is)"},
        {"\"position_embedding_type\": \"alibi\", \"feed_forward_type\": \"geglu\", "
         "\"architectures\": [\"JinaBertForMaskedLM\"], \"auto_map\": {\"AutoModel\": "
         "\"jinaai/jina-bert-v2-qk-post-norm--modeling_bert.JinaBertModel\"}",
         TF_ERR_FORMAT, /* the code variant's auto_map on the plain v2's tensors */
         "missing tensor 'encoder.layer.0.mlp.up_gated_layer.weight'"},
        {"\"position_embedding_type\": \"alibi\", \"feed_forward_type\": \"geglu\", "
         "\"architectures\": [\"JinaBertForMaskedLM\"], \"auto_map\": {\"AutoModel\": "
         "\"jinaai/jina-bert-v3-qk-norm--modeling_bert.JinaBertModel\"}",
         TF_ERR_UNSUPPORTED,
         "config.json: auto_map AutoModel "
         "\"jinaai/jina-bert-v3-qk-norm--modeling_bert.JinaBertModel\" points at remote "
         "code (architectures JinaBertForMaskedLM) that this library does not follow"},
        {"\"architectures\": [\"JinaBertForMaskedLM\"]", TF_ERR_UNSUPPORTED,
         "config.json: model_type \"bert\" (architectures JinaBertForMaskedLM) is not supported"},
    };
    make_tmp_dir();
    char config[768];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(config, sizeof config,
                 "{\"model_type\": \"bert\", \"num_attention_heads\": 2, "
                 "%s}",
                 cases[i].keys);
        expect_failure(load_with_config("jina_bert", config), cases[i].status, cases[i].message);
    }
    prepare("jina_bert",
            "{\"model_type\": \"bert\", \"num_attention_heads\": 2, "
            "\"position_embedding_type\": \"alibi\", \"feed_forward_type\": \"reglu\"}");
    const tf_config c = inspect_path(tmp_dir);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_RELU);
    ck_assert_int_eq(c.max_positions, 512); /* BertConfig's max_position_embeddings */
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("families");
    TCase *tc = tcase_create("families");
    tcase_add_test(tc, test_roberta);
    tcase_add_test(tc, test_distilbert);
    tcase_add_test(tc, test_encoder_piecesbert);
    tcase_add_test(tc, test_encoder_piecesbert_config);
    tcase_add_test(tc, test_electra);
    tcase_add_test(tc, test_nomic_bert);
    tcase_add_test(tc, test_nomic_bert_config);
    tcase_add_test(tc, test_gte);
    tcase_add_test(tc, test_gte_config);
    tcase_add_test(tc, test_jina_bert);
    tcase_add_test(tc, test_jina_bert_config);
    tcase_add_test(tc, test_jina_code);
    tcase_add_test(tc, test_jina_code_inconsistent);
    tcase_add_test(tc, test_mpnet);
    tcase_add_test(tc, test_mpnet_config);
    tcase_add_test(tc, test_electra_embeddings_project);
    tcase_add_test(tc, test_offset_positions_bound_the_length);
    tcase_add_test(tc, test_inconsistencies);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
