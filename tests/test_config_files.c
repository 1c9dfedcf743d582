/* test_config_files.c — the JSON a checkpoint brings (config.json, the
 * safetensors header and its __metadata__) and the load options: a duplicate
 * key or a NUL anywhere is refused, every config.json field that changes
 * the computation is honoured or refused by name and value, a missing
 * tensor is named as it is missing, a refused value is quoted as written,
 * and an invalid option is refused. Every fixture is written at test time
 * into a temporary directory. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

static void write_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* ---- config.json ------------------------------------------------------------ */

/* tmp_dir as a BERT directory: bert_tiny's weights (D 128, 4 heads, 2
 * layers) and this config.json. */
static tf_status load_bert_tiny_with(const char *config_json, const tf_load_options *opts,
                                     tf_encoder **enc)
{
    const path_buf model = join(tmp_dir, "model.safetensors");
    if (access(model.s, F_OK) != 0)
        ck_assert_int_eq(symlink(join(join(data_dir, "bert_tiny").s, "model.safetensors").s,
                                 model.s), 0);
    write_bytes(join(tmp_dir, "config.json").s, config_json, strlen(config_json));
    *enc = (tf_encoder *)enc; /* must come back NULL on failure */
    return tf_encoder_load(tmp_dir, opts, enc);
}

typedef struct json_case {
    const char *json;
    tf_status status;
    const char *message;
} json_case;

#define HEADS "{\"num_attention_heads\": 4, "

static const json_case refused_configs[] = {
    /* duplicate keys, anywhere: Python's json takes the last, cJSON the first */
    {"{\"num_attention_heads\": 4, \"num_attention_heads\": 2}", TF_ERR_FORMAT,
     "config.json: key 'num_attention_heads' appears twice in the top-level object"},
    {HEADS "\"id2label\": {\"0\": \"A\", \"1\": \"B\", \"0\": \"C\"}}", TF_ERR_FORMAT,
     "config.json: key '0' appears twice in the object at 'id2label'"},
    {HEADS "\"a\": [{\"b\": {\"c\": 1, \"c\": 1}}]}", TF_ERR_FORMAT,
     "key 'c' appears twice in the object at 'a'[0]'b'"},
    /* a NUL in a key or a string: cJSON would end the C string there */
    {"{\"num_attention_heads\\u0000\": 2}", TF_ERR_FORMAT,
     "config.json: the string \"num_attention_heads\\u0000\" at byte 1 contains \\u0000"},
    {HEADS "\"hidden_act\": \"relu\\u0000gelu\"}", TF_ERR_FORMAT,
     "the string \"relu\\u0000gelu\" at byte 41 contains \\u0000 (NUL)"},
    /* fields that change the computation: refused, named with their value */
    {HEADS "\"model_type\": \"gpt2\"}", TF_ERR_UNSUPPORTED,
     "config.json: model_type \"gpt2\" (architectures none) is not supported; supported: "
     "model_type \"bert\""},
    {HEADS "\"model_type\": 5}", TF_ERR_FORMAT, "config.json: model_type must be a string, got 5"},
    {HEADS "\"is_decoder\": true}", TF_ERR_UNSUPPORTED,
     "config.json: is_decoder true is not supported (a decoder masks attention causally"},
    {HEADS "\"is_decoder\": \"yes\"}", TF_ERR_FORMAT,
     "config.json: is_decoder must be true or false, got \"yes\""},
    {HEADS "\"add_cross_attention\": true}", TF_ERR_UNSUPPORTED,
     "config.json: add_cross_attention true is not supported"},
    {HEADS "\"position_embedding_type\": \"relative_key\"}", TF_ERR_UNSUPPORTED,
     "config.json: position_embedding_type \"relative_key\" is not supported (\"absolute\" is)"},
    {HEADS "\"pruned_heads\": {\"0\": [1]}}", TF_ERR_UNSUPPORTED,
     "config.json: pruned_heads {\"0\":[1]} is not supported (its layers have fewer heads"},
    {HEADS "\"quantization_config\": {\"bits\": 8}}", TF_ERR_UNSUPPORTED,
     "config.json: quantization_config {\"bits\":8} is not supported"},
    {HEADS "\"chunk_size_feed_forward\": -1}", TF_ERR_FORMAT,
     "config.json: chunk_size_feed_forward must be an integer in 0..2147483647, got -1"},
    {HEADS "\"hidden_act\": \"quick_gelu\"}", TF_ERR_UNSUPPORTED,
     "config.json: hidden_act \"quick_gelu\" is not supported (gelu, gelu_python, gelu_new, "
     "gelu_pytorch_tanh, gelu_fast and relu are)"},
    /* values quoted as written */
    {"{\"num_attention_heads\": 0}", TF_ERR_FORMAT,
     "config.json: num_attention_heads must be an integer in 1..2147483647, got 0"},
    {HEADS "\"hidden_size\": 128.5}", TF_ERR_FORMAT,
     "config.json: hidden_size must be an integer in 0..2147483647, got 128.5"},
    {HEADS "\"layer_norm_eps\": 1e-50}", TF_ERR_FORMAT,
     "config.json: layer_norm_eps 1e-50 is 0 as a float32"},
    {HEADS "\"layer_norm_eps\": 2}", TF_ERR_FORMAT,
     "config.json: layer_norm_eps must be a number in (0, 1], got 2"},
};

START_TEST(test_config_json_refused)
{
    const json_case *c = &refused_configs[_i];
    make_tmp_dir();
    tf_encoder *enc;
    expect_failure(load_bert_tiny_with(c->json, NULL, &enc), c->status, c->message);
    ck_assert_ptr_null(enc);
    remove_tmp_dir();
}
END_TEST

static tf_config loaded_config(const char *json)
{
    tf_encoder *enc;
    ck_assert_msg(load_bert_tiny_with(json, NULL, &enc) == TF_OK, "%s: %s", json,
                  tf_last_error());
    tf_config c;
    tf_config_init(&c);
    ck_assert_int_eq(tf_encoder_get_config(enc, &c), TF_OK);
    tf_encoder_destroy(enc);
    return c;
}

/* The values that compute what this library computes are accepted. */
START_TEST(test_config_json_honoured)
{
    make_tmp_dir();
    tf_config c = loaded_config(
        HEADS "\"model_type\": \"bert\", \"is_decoder\": false, \"add_cross_attention\": false, "
        "\"position_embedding_type\": \"absolute\", \"pruned_heads\": {}, "
        "\"chunk_size_feed_forward\": 64, \"quantization_config\": null, "
        "\"hidden_act\": \"gelu_python\", \"layer_norm_eps\": 1e-7, \"torchscript\": true}");
    ck_assert_int_eq(c.n_heads, 4);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_float_eq(c.layer_norm_eps, 1e-7f);
    c = loaded_config(HEADS "\"hidden_act\": \"gelu_fast\"}");
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU_TANH);
    /* bert_tiny's own config.json, every field transformers wrote */
    FILE *f = fopen(join(join(data_dir, "bert_tiny").s, "config.json").s, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[8192];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    c = loaded_config(text);
    ck_assert_int_eq(c.n_heads, 4);
    ck_assert_float_eq(c.layer_norm_eps, 1e-12f);
    remove_tmp_dir();
}
END_TEST

/* ---- The safetensors header ---------------------------------------------- */

typedef struct tensor_spec {
    const char *name;
    int rank;
    int dims[2];
} tensor_spec;

/* A BERT of D 4, F 8, V 10, P 6, 2 token types, 1 layer. */
static const tensor_spec bert[] = {
    {"embeddings.word_embeddings.weight", 2, {10, 4}},
    {"embeddings.position_embeddings.weight", 2, {6, 4}},
    {"embeddings.token_type_embeddings.weight", 2, {2, 4}},
    {"embeddings.LayerNorm.weight", 1, {4}},
    {"embeddings.LayerNorm.bias", 1, {4}},
    {"encoder.layer.0.attention.self.query.weight", 2, {4, 4}},
    {"encoder.layer.0.attention.self.query.bias", 1, {4}},
    {"encoder.layer.0.attention.self.key.weight", 2, {4, 4}},
    {"encoder.layer.0.attention.self.key.bias", 1, {4}},
    {"encoder.layer.0.attention.self.value.weight", 2, {4, 4}},
    {"encoder.layer.0.attention.self.value.bias", 1, {4}},
    {"encoder.layer.0.attention.output.dense.weight", 2, {4, 4}},
    {"encoder.layer.0.attention.output.dense.bias", 1, {4}},
    {"encoder.layer.0.attention.output.LayerNorm.weight", 1, {4}},
    {"encoder.layer.0.attention.output.LayerNorm.bias", 1, {4}},
    {"encoder.layer.0.intermediate.dense.weight", 2, {8, 4}},
    {"encoder.layer.0.intermediate.dense.bias", 1, {8}},
    {"encoder.layer.0.output.dense.weight", 2, {4, 8}},
    {"encoder.layer.0.output.dense.bias", 1, {4}},
    {"encoder.layer.0.output.LayerNorm.weight", 1, {4}},
    {"encoder.layer.0.output.LayerNorm.bias", 1, {4}},
    {"pooler.dense.weight", 2, {4, 4}},
    {"pooler.dense.bias", 1, {4}},
    {NULL, 0, {0}}};

/* One nn.TransformerEncoderLayer(d_model 4, nhead ?, dim_feedforward 8). */
static const tensor_spec pytorch_layer[] = {
    {"self_attn.in_proj_weight", 2, {12, 4}},
    {"self_attn.in_proj_bias", 1, {12}},
    {"self_attn.out_proj.weight", 2, {4, 4}},
    {"self_attn.out_proj.bias", 1, {4}},
    {"linear1.weight", 2, {8, 4}},
    {"linear1.bias", 1, {8}},
    {"linear2.weight", 2, {4, 8}},
    {"linear2.bias", 1, {4}},
    {"norm1.weight", 1, {4}},
    {"norm1.bias", 1, {4}},
    {"norm2.weight", 1, {4}},
    {"norm2.bias", 1, {4}},
    {NULL, 0, {0}}};

/* Writes tmp_dir/model.safetensors: the tensors of spec but `drop` (F32,
 * zeros), the header opening with `first` (JSON members and a comma, or
 * ""); returns its path. */
static path_buf write_checkpoint(const tensor_spec *spec, const char *drop, const char *first)
{
    static char header[16384];
    size_t len = (size_t)snprintf(header, sizeof header, "{%s", first), offset = 0;
    for (; spec->name; spec++) {
        if (drop && strcmp(spec->name, drop) == 0)
            continue;
        const size_t bytes = 4u * (size_t)spec->dims[0] * (size_t)(spec->rank == 2 ? spec->dims[1] : 1);
        char shape[32];
        if (spec->rank == 2)
            snprintf(shape, sizeof shape, "%d,%d", spec->dims[0], spec->dims[1]);
        else
            snprintf(shape, sizeof shape, "%d", spec->dims[0]);
        len += (size_t)snprintf(header + len, sizeof header - len,
                                "\"%s\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[%zu,%zu]},",
                                spec->name, shape, offset, offset + bytes);
        offset += bytes;
        ck_assert_uint_lt(len, sizeof header);
    }
    header[len - 1] = '}'; /* the last comma */
    const size_t total = 8 + len + offset;
    unsigned char *file = calloc(1, total);
    for (int i = 0; i < 8; i++)
        file[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(file + 8, header, len);
    const path_buf path = join(tmp_dir, "model.safetensors");
    write_bytes(path.s, file, total);
    free(file);
    return path;
}

typedef struct header_case {
    const tensor_spec *spec;
    const char *drop, *first;
    tf_status status;
    const char *message;
} header_case;

#define META(m) "\"__metadata__\":{\"activation\":\"relu\",\"norm_first\":\"false\"," m "},"

static const header_case refused_headers[] = {
    /* a missing tensor is named, not the one its absence made unexpected */
    {bert, "encoder.layer.0.attention.self.query.bias", "", TF_ERR_FORMAT,
     "missing tensor 'encoder.layer.0.attention.self.query.bias' (for layers.0.attn.q.bias [4])"},
    {bert, "embeddings.LayerNorm.weight", "", TF_ERR_FORMAT,
     "missing tensor 'embeddings.LayerNorm.weight' (for embed.norm.weight [4])"},
    {bert, "pooler.dense.weight", "", TF_ERR_FORMAT,
     "missing tensor 'pooler.dense.weight' (for pooler.weight [4, 4])"},
    {bert, "encoder.layer.0.intermediate.dense.weight", "", TF_ERR_FORMAT,
     "missing tensor 'encoder.layer.0.intermediate.dense.weight' (for layers.0.ffn.up.weight, "
     "which gives d_ff)"},
    {pytorch_layer, "self_attn.in_proj_bias", META("\"n_heads\":\"2\""), TF_ERR_FORMAT,
     "missing tensor 'self_attn.in_proj_bias' (for layers.0.attn.q.bias [4])"},
    /* duplicates and NULs in the header and its metadata */
    {pytorch_layer, NULL, META("\"n_heads\":\"2\",\"n_heads\":\"4\""), TF_ERR_FORMAT,
     "model.safetensors: header: key 'n_heads' appears twice in the object at '__metadata__'"},
    {pytorch_layer, NULL, "\"norm1.weight\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},",
     TF_ERR_FORMAT, "header: key 'norm1.weight' appears twice in the top-level object"},
    {pytorch_layer, NULL, META("\"n_heads\\u0000\":\"2\""), TF_ERR_FORMAT,
     "header: the string \"n_heads\\u0000\" at byte 58 contains \\u0000 (NUL)"},
    {pytorch_layer, NULL, "\"x\\u0000\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]},",
     TF_ERR_FORMAT, "header: the string \"x\\u0000\" at byte 1 contains \\u0000"},
    /* values quoted as written */
    {pytorch_layer, NULL, "\"x\":{\"dtype\":\"F32\",\"shape\":[2.5],\"data_offsets\":[0,0]},",
     TF_ERR_FORMAT, "tensor 'x': shape[0] is not an integer in 0..2^53, got 2.5"},
    {pytorch_layer, NULL, META("\"n_heads\":2"), TF_ERR_FORMAT,
     "__metadata__['n_heads'] is not a string, got 2"},
    {pytorch_layer, NULL, META("\"n_heads\":\"0\""), TF_ERR_FORMAT,
     "__metadata__ \"n_heads\": cannot read '0' as an integer in 1..2147483647"},
    {pytorch_layer, NULL, META("\"n_heads\":\"2\",\"layer_norm_eps\":\"1e-50\""), TF_ERR_FORMAT,
     "__metadata__ \"layer_norm_eps\": '1e-50' is 0 as a float32"},
};

START_TEST(test_header_refused)
{
    const header_case *c = &refused_headers[_i];
    make_tmp_dir();
    const path_buf file = write_checkpoint(c->spec, c->drop, c->first);
    tf_load_options o;
    tf_load_options_init(&o);
    o.n_heads = c->spec == bert ? 2 : 0;
    tf_encoder *enc = (tf_encoder *)&enc;
    expect_failure(tf_encoder_load(file.s, &o, &enc), c->status, c->message);
    ck_assert_ptr_null(enc);
    remove_tmp_dir();
}
END_TEST

/* The builder's files load whole: the refusals above are each one change. */
START_TEST(test_header_builder_files_load)
{
    make_tmp_dir();
    tf_load_options o;
    tf_load_options_init(&o);
    o.n_heads = 2;
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(write_checkpoint(bert, NULL, "").s, &o, &enc) == TF_OK, "%s",
                  tf_last_error());
    tf_encoder_destroy(enc);
    tf_load_options_init(&o);
    const path_buf file = write_checkpoint(pytorch_layer, NULL,
                                           META("\"n_heads\":\"2\",\"layer_norm_eps\":\"1e-6\""));
    ck_assert_msg(tf_encoder_load(file.s, &o, &enc) == TF_OK, "%s", tf_last_error());
    tf_config c;
    tf_config_init(&c);
    ck_assert_int_eq(tf_encoder_get_config(enc, &c), TF_OK);
    ck_assert_int_eq(c.n_heads, 2);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_RELU);
    ck_assert_float_eq(c.layer_norm_eps, 1e-6f);
    tf_encoder_destroy(enc);
    remove_tmp_dir();
}
END_TEST

/* ---- Load options ---------------------------------------------------------- */

typedef struct options_case {
    int32_t n_heads, activation, norm_placement;
    float layer_norm_eps;
    const char *message;
} options_case;

static const options_case refused_options[] = {
    {-4, -1, -1, 0.0f, "options.n_heads: expected 0 (from the file) or 1..128 (d_model), got -4"},
    {500, -1, -1, 0.0f, "options.n_heads: expected 0 (from the file) or 1..128 (d_model), got 500"},
    {0, -5, -1, 0.0f, "options.activation: expected -1 (from the file) or 0..3, got -5"},
    {0, 4, -1, 0.0f, "options.activation: expected -1 (from the file) or 0..3, got 4"},
    {0, -1, -3, 0.0f, "options.norm_placement: expected -1 (from the file) or 0..1, got -3"},
    {0, -1, 2, 0.0f, "options.norm_placement: expected -1 (from the file) or 0..1, got 2"},
    {0, -1, -1, NAN, "options.layer_norm_eps: expected 0 (from the file) or a finite value > 0, "
                     "got nan"},
    {0, -1, -1, -1.0f, "options.layer_norm_eps: expected 0 (from the file) or a finite value > 0, "
                       "got -1"},
    {0, -1, -1, INFINITY, "options.layer_norm_eps: expected 0 (from the file) or a finite value "
                          "> 0, got inf"},
};

static tf_load_options make_options(const options_case *c)
{
    tf_load_options o;
    tf_load_options_init(&o);
    o.n_heads = c->n_heads, o.activation = c->activation, o.norm_placement = c->norm_placement;
    o.layer_norm_eps = c->layer_norm_eps;
    return o;
}

START_TEST(test_options_refused)
{
    make_tmp_dir();
    const tf_load_options o = make_options(&refused_options[_i]);
    tf_encoder *enc;
    expect_failure(load_bert_tiny_with(HEADS "\"hidden_act\": \"gelu\"}", &o, &enc),
                   TF_ERR_INVALID_ARGUMENT, refused_options[_i].message);
    ck_assert_ptr_null(enc);
    tf_model_info *info = (tf_model_info *)&info;
    ck_assert_int_eq(tf_model_inspect(tmp_dir, &o, &info), TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(info);
    remove_tmp_dir();
}
END_TEST

/* "From the file" (0, -1, -1, 0) and real values both still work. */
START_TEST(test_options_accepted)
{
    make_tmp_dir();
    const options_case from_file = {0, -1, -1, 0.0f, ""}, given = {2, 2, 1, 1e-3f, ""};
    tf_load_options o = make_options(&from_file);
    tf_encoder *enc;
    ck_assert_int_eq(load_bert_tiny_with(HEADS "\"hidden_act\": \"gelu\"}", &o, &enc), TF_OK);
    tf_config c;
    tf_config_init(&c);
    tf_encoder_get_config(enc, &c);
    ck_assert_int_eq(c.n_heads, 4);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_int_eq(c.norm_placement, TF_NORM_POST);
    ck_assert_float_eq(c.layer_norm_eps, 1e-12f);
    tf_encoder_destroy(enc);
    o = make_options(&given);
    ck_assert_int_eq(load_bert_tiny_with(HEADS "\"hidden_act\": \"gelu\"}", &o, &enc), TF_OK);
    tf_encoder_get_config(enc, &c);
    ck_assert_int_eq(c.n_heads, 2);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_RELU);
    ck_assert_int_eq(c.norm_placement, TF_NORM_PRE);
    ck_assert_float_eq(c.layer_norm_eps, 1e-3f);
    tf_encoder_destroy(enc);
    remove_tmp_dir();
}
END_TEST

#define N_CASES(a) ((int)(sizeof a / sizeof a[0]))

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("config_files");
    TCase *json = tcase_create("config.json");
    tcase_add_loop_test(json, test_config_json_refused, 0, N_CASES(refused_configs));
    tcase_add_test(json, test_config_json_honoured);
    suite_add_tcase(s, json);
    TCase *header = tcase_create("header");
    tcase_add_loop_test(header, test_header_refused, 0, N_CASES(refused_headers));
    tcase_add_test(header, test_header_builder_files_load);
    suite_add_tcase(s, header);
    TCase *options = tcase_create("options");
    tcase_add_loop_test(options, test_options_refused, 0, N_CASES(refused_options));
    tcase_add_test(options, test_options_accepted);
    suite_add_tcase(s, options);
    return run_suite(s);
}
