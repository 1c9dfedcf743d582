/* test_config_files.c — the JSON a checkpoint brings (config.json, the
 * safetensors header and its __metadata__) and the load options: a duplicate
 * key or a NUL anywhere is refused, every config.json field that changes
 * the computation is honoured or refused by name and value, a missing
 * tensor is named as it is missing, a refused value is quoted as written,
 * and an invalid option is refused. Every JSON file of a model folder
 * (tokenizer_config.json, special_tokens_map.json, the sentence-transformers
 * files, config.json): each field fed a value of each wrong type (a string
 * for a number, a float for an integer, negative, zero, null, a boolean, an
 * array, an object) is TF_ERR_FORMAT naming the file, the field and the
 * value; the values upstream takes are taken. Every fixture is written at
 * test time into a temporary directory. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

/* The start of a pickle (protocol 2): what a pytorch_model.bin begins with. */
static const char pickle_bytes[] = "\x80\x02 a pickle";

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
        ck_assert_int_eq(
            symlink(join(join(data_dir, "bert_tiny").s, "model.safetensors").s, model.s), 0);
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
    ck_assert_msg(load_bert_tiny_with(json, NULL, &enc) == TF_OK, "%s: %s", json, tf_last_error());
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
static const tensor_spec bert[] = {{"embeddings.word_embeddings.weight", 2, {10, 4}},
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
static const tensor_spec pytorch_layer[] = {{"self_attn.in_proj_weight", 2, {12, 4}},
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
        const size_t bytes = 4u * (size_t)spec->dims[0] *
            (size_t)(spec->rank == 2 ? spec->dims[1] : 1);
        char shape[32];
        if (spec->rank == 2)
            snprintf(shape, sizeof shape, "%d,%d", spec->dims[0], spec->dims[1]);
        else
            snprintf(shape, sizeof shape, "%d", spec->dims[0]);
        len += (size_t)snprintf(
            header + len, sizeof header - len,
            "\"%s\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[%zu,%zu]},", spec->name,
            shape, offset, offset + bytes);
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
    {pytorch_layer, NULL,
     "\"norm1.weight\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},", TF_ERR_FORMAT,
     "header: key 'norm1.weight' appears twice in the top-level object"},
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
    {0, -5, -1, 0.0f, "options.activation: expected -1 (from the file) or 0..4, got -5"},
    {0, 5, -1, 0.0f, "options.activation: expected -1 (from the file) or 0..4, got 5"},
    {0, -1, -3, 0.0f, "options.norm_placement: expected -1 (from the file) or 0..1, got -3"},
    {0, -1, 2, 0.0f, "options.norm_placement: expected -1 (from the file) or 0..1, got 2"},
    {0, -1, -1, NAN,
     "options.layer_norm_eps: expected 0 (from the file) or a finite value > 0, "
     "got nan"},
    {0, -1, -1, -1.0f,
     "options.layer_norm_eps: expected 0 (from the file) or a finite value > 0, "
     "got -1"},
    {0, -1, -1, INFINITY,
     "options.layer_norm_eps: expected 0 (from the file) or a finite value "
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

/* ---- A model folder's JSON files -------------------------------------------- */

/* What a field holds, as upstream reads it; "or null": null is upstream's
 * None, which it takes as the default. */
typedef enum field_kind {
    BOOL, /* true or false */
    BOOL_OR_NULL,
    COUNT, /* an integer >= 1 */
    COUNT_OR_NULL,
    SIZE,       /* an integer >= 0 */
    ID_OR_NULL, /* an integer >= 0, or null */
    TEXT,       /* a string (which strings: the field's own rule) */
    TEXT_OR_NULL,
    TOKEN_OR_NULL, /* an AddedToken: a non-empty string or {"content": ...}, or null */
    LIST_OR_NULL,  /* a list (what it holds: the field's own rule), or null */
    OBJECT,        /* an object (what it holds: the field's own rule) */
    OBJECT_OR_NULL
} field_kind;

typedef struct folder_field {
    const char *file;
    int module; /* modules.json: the module whose key it is; -1: a key of the file's object */
    const char *key;
    field_kind kind;
} folder_field;

/* Every field the library reads of every file of a sentence-transformers
 * folder (st_dense's: Transformer, Pooling, two Dense), and of config.json a
 * sample of each of hf_config.c's rules. */
static const folder_field folder_fields[] = {
    {"tokenizer_config.json", -1, "model_max_length", COUNT_OR_NULL},
    {"tokenizer_config.json", -1, "do_lower_case", BOOL},
    {"tokenizer_config.json", -1, "strip_accents", BOOL_OR_NULL},
    {"tokenizer_config.json", -1, "tokenize_chinese_chars", BOOL},
    {"tokenizer_config.json", -1, "unk_token", TOKEN_OR_NULL},
    {"tokenizer_config.json", -1, "cls_token", TOKEN_OR_NULL},
    {"tokenizer_config.json", -1, "additional_special_tokens", LIST_OR_NULL},
    {"tokenizer_config.json", -1, "added_tokens_decoder", OBJECT},
    {"special_tokens_map.json", -1, "sep_token", TOKEN_OR_NULL},
    {"special_tokens_map.json", -1, "mask_token", TOKEN_OR_NULL},
    {"special_tokens_map.json", -1, "additional_special_tokens", LIST_OR_NULL},
    {"sentence_bert_config.json", -1, "max_seq_length", COUNT_OR_NULL},
    {"sentence_bert_config.json", -1, "do_lower_case", BOOL},
    {"config_sentence_transformers.json", -1, "prompts", OBJECT_OR_NULL},
    {"config_sentence_transformers.json", -1, "default_prompt_name", TEXT_OR_NULL},
    {"config_sentence_transformers.json", -1, "similarity_fn_name", TEXT_OR_NULL},
    {"modules.json", 1, "type", TEXT},
    {"modules.json", 1, "path", TEXT},
    {"modules.json", 2, "path", TEXT},
    {"1_Pooling/config.json", -1, "word_embedding_dimension", COUNT},
    {"1_Pooling/config.json", -1, "pooling_mode", TEXT_OR_NULL},
    {"1_Pooling/config.json", -1, "pooling_mode_mean_tokens", BOOL},
    {"1_Pooling/config.json", -1, "pooling_mode_cls_token", BOOL},
    {"1_Pooling/config.json", -1, "pooling_mode_lasttoken", BOOL},
    {"1_Pooling/config.json", -1, "include_prompt", BOOL},
    {"2_Dense/config.json", -1, "in_features", COUNT},
    {"2_Dense/config.json", -1, "out_features", COUNT},
    {"2_Dense/config.json", -1, "bias", BOOL},
    {"2_Dense/config.json", -1, "activation_function", TEXT},
    {"2_Dense/config.json", -1, "module_input_name", TEXT_OR_NULL},
    {"3_Dense/config.json", -1, "bias", BOOL},
    {"config.json", -1, "model_type", TEXT_OR_NULL},
    {"config.json", -1, "architectures", LIST_OR_NULL},
    {"config.json", -1, "num_attention_heads", COUNT},
    {"config.json", -1, "hidden_size", SIZE},
    {"config.json", -1, "vocab_size", SIZE},
    {"config.json", -1, "pad_token_id", ID_OR_NULL},
    {"config.json", -1, "hidden_act", TEXT},
    {"config.json", -1, "position_embedding_type", TEXT_OR_NULL},
};

/* The values every field is fed, one of each JSON type (and for numbers
 * the cases an integer field must refuse). */
static const char *const probes[] = {"\"512\"", "2.5", "-1", "0", "null", "true", "[1]", "{}"};
enum { N_PROBES = sizeof probes / sizeof probes[0] };

/* Whether a field of kind k takes probe p as its type and range (what it
 * then does with the value is the field's own rule, not this test's). */
static int takes(field_kind k, const char *p)
{
    const int null = strcmp(p, "null") == 0, string = p[0] == '"', zero = strcmp(p, "0") == 0;
    switch (k) {
    case BOOL:
        return strcmp(p, "true") == 0;
    case BOOL_OR_NULL:
        return strcmp(p, "true") == 0 || null;
    case COUNT:
        return 0;
    case COUNT_OR_NULL:
        return null;
    case SIZE:
        return zero;
    case ID_OR_NULL:
        return zero || null;
    case TEXT:
        return string;
    case TEXT_OR_NULL:
    case TOKEN_OR_NULL:
        return string || null;
    case LIST_OR_NULL:
        return p[0] == '[' || null;
    case OBJECT:
        return p[0] == '{';
    case OBJECT_OR_NULL:
        return p[0] == '{' || null;
    }
    return 0;
}

/* st_dense's files, from which each case changes one field. */
static const char *const st_dense_files[] = {
    "config.json",           "modules.json",        "config_sentence_transformers.json",
    "1_Pooling/config.json", "2_Dense/config.json", "3_Dense/config.json"};
enum { N_ST_DENSE_FILES = sizeof st_dense_files / sizeof st_dense_files[0] };

/* The files st_dense lacks, each naming every field this test changes. */
static const struct {
    const char *file, *json;
} written_files[] = {
    {"tokenizer_config.json",
     "{\"do_lower_case\": true, \"model_max_length\": 512, \"strip_accents\": null, "
     "\"tokenize_chinese_chars\": true, \"unk_token\": \"[UNK]\", \"cls_token\": "
     "{\"content\": \"[CLS]\", \"special\": true}, \"additional_special_tokens\": []}"},
    {"special_tokens_map.json",
     "{\"sep_token\": \"[SEP]\", \"mask_token\": \"[MASK]\", \"additional_special_tokens\": "
     "[\"[MASK]\"]}"},
    {"sentence_bert_config.json", "{\"do_lower_case\": false}"},
};
enum { N_WRITTEN = sizeof written_files / sizeof written_files[0] };

/* tmp_dir as st_dense: its weights and vocabulary linked in, its JSON
 * files and the written ones copied, `file`'s `key` (module's, unless -1)
 * set to the JSON `value` (NULL: removed). */
static void make_st_folder(const char *file, int module, const char *key, const char *value)
{
    const path_buf st = join(join(data_dir, "pipelines").s, "st_dense");
    const char *linked[] = {"model.safetensors", "vocab.txt", "2_Dense/model.safetensors",
                            "3_Dense/model.safetensors"};
    mkdir(join(tmp_dir, "1_Pooling").s, 0700);
    mkdir(join(tmp_dir, "2_Dense").s, 0700);
    mkdir(join(tmp_dir, "3_Dense").s, 0700);
    for (size_t i = 0; i < sizeof linked / sizeof linked[0]; i++) {
        unlink(join(tmp_dir, linked[i]).s);
        ck_assert_int_eq(symlink(join(st.s, linked[i]).s, join(tmp_dir, linked[i]).s), 0);
    }
    for (int i = 0; i < N_ST_DENSE_FILES + N_WRITTEN; i++) {
        const char *name = i < N_ST_DENSE_FILES ? st_dense_files[i]
                                                : written_files[i - N_ST_DENSE_FILES].file;
        cJSON *root = i < N_ST_DENSE_FILES ? read_json(join(st.s, name).s)
                                           : cJSON_Parse(written_files[i - N_ST_DENSE_FILES].json);
        ck_assert_ptr_nonnull(root);
        if (file && strcmp(file, name) == 0) {
            cJSON *obj = module < 0 ? root : cJSON_GetArrayItem(root, module);
            cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
            if (value) {
                cJSON *v = cJSON_Parse(value);
                ck_assert_msg(v != NULL, "%s is not JSON", value);
                cJSON_AddItemToObject(obj, key, v);
            }
        }
        char *text = cJSON_PrintUnformatted(root);
        write_text(join(tmp_dir, name).s, text);
        free(text);
        cJSON_Delete(root);
    }
}

/* Field _i fed each probe of a type it does not take: TF_ERR_FORMAT naming
 * the file, the field and the value as written; no pipeline. */
START_TEST(test_folder_field_wrong_types)
{
    const folder_field *f = &folder_fields[_i];
    make_tmp_dir();
    for (int k = 0; k < N_PROBES; k++) {
        if (takes(f->kind, probes[k]))
            continue;
        make_st_folder(f->file, f->module, f->key, probes[k]);
        tf_pipeline *p = (tf_pipeline *)&p;
        const tf_status s = tf_pipeline_load(tmp_dir, NULL, &p);
        const char *m = tf_last_error();
        ck_assert_msg(s == TF_ERR_FORMAT && strstr(m, f->file) && strstr(m, f->key) &&
                          strstr(m, probes[k]),
                      "%s %s %s: got %s \"%s\"", f->file, f->key, probes[k], tf_status_name(s), m);
        ck_assert_ptr_null(p);
    }
    remove_tmp_dir();
}
END_TEST

/* A required field absent: TF_ERR_FORMAT naming the file and the field. */
START_TEST(test_folder_required_fields)
{
    static const folder_field required[] = {
        {"modules.json", 1, "type", TEXT},
        {"modules.json", 1, "path", TEXT},
        {"1_Pooling/config.json", -1, "word_embedding_dimension", COUNT},
        {"2_Dense/config.json", -1, "in_features", COUNT},
        {"2_Dense/config.json", -1, "out_features", COUNT},
        {"2_Dense/config.json", -1, "activation_function", TEXT},
    };
    make_tmp_dir();
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        make_st_folder(required[i].file, required[i].module, required[i].key, NULL);
        tf_pipeline *p = (tf_pipeline *)&p;
        const tf_status s = tf_pipeline_load(tmp_dir, NULL, &p);
        const char *m = tf_last_error();
        ck_assert_msg(s == TF_ERR_FORMAT && strstr(m, required[i].file) &&
                          strstr(m, required[i].key) && strstr(m, "is missing"),
                      "%s without %s: got %s \"%s\"", required[i].file, required[i].key,
                      tf_status_name(s), m);
        ck_assert_ptr_null(p);
    }
    remove_tmp_dir();
}
END_TEST

/* Values of the right type: taken as upstream takes them (the limit a
 * pipeline cuts at shows model_max_length and max_seq_length), or refused
 * by the field's own rule, naming it. */
START_TEST(test_folder_field_values)
{
    static const struct {
        const char *file, *key, *value;
        tf_status status;
        int32_t max_seq_length; /* TF_OK: the pipeline's */
        const char *message;    /* otherwise: in the message */
    } cases[] = {
        /* st_dense has 32 positions */
        {"tokenizer_config.json", "model_max_length", "8", TF_OK, 8, NULL},
        {"tokenizer_config.json", "model_max_length", "3", TF_OK, 3, NULL},
        {"tokenizer_config.json", "model_max_length", "512", TF_OK, 32, NULL},
        {"tokenizer_config.json", "model_max_length", "null", TF_OK, 32, NULL},
        /* transformers' VERY_LARGE_INTEGER, int(1e30), as it writes it: no limit */
        {"tokenizer_config.json", "model_max_length", "1000000000000000019884624838656", TF_OK, 32,
         NULL},
        {"tokenizer_config.json", "model_max_length", "1e30", TF_OK, 32, NULL},
        {"tokenizer_config.json", "model_max_length", "2147483648", TF_OK, 32, NULL},
        {"tokenizer_config.json", "model_max_length", "2", TF_ERR_FORMAT, 0,
         "tokenizer_config.json: model_max_length 2 leaves no room for a token beside the "
         "special tokens (the pipeline needs 3 or more)"},
        {"tokenizer_config.json", "model_max_length", "1e300", TF_OK, 32, NULL},
        {"tokenizer_config.json", "strip_accents", "false", TF_OK, 32, NULL},
        {"sentence_bert_config.json", "max_seq_length", "10", TF_OK, 10, NULL},
        {"sentence_bert_config.json", "max_seq_length", "null", TF_OK, 32, NULL},
        {"sentence_bert_config.json", "max_seq_length", "2", TF_ERR_FORMAT, 0,
         "sentence_bert_config.json: max_seq_length 2 leaves no room for a token beside the "
         "special tokens (the pipeline needs 3 or more)"},
        {"config_sentence_transformers.json", "similarity_fn_name", "null", TF_OK, 32, NULL},
        {"config_sentence_transformers.json", "similarity_fn_name", "\"cos\"", TF_ERR_FORMAT, 0,
         "config_sentence_transformers.json: similarity_fn_name \"cos\" is not one of cosine"},
        {"config_sentence_transformers.json", "prompts", "{\"q\": 5}", TF_ERR_FORMAT, 0,
         "config_sentence_transformers.json: prompts.q must be a string, got 5"},
        /* null: no prompts, so st_dense's default_prompt_name names none */
        {"config_sentence_transformers.json", "prompts", "null", TF_ERR_FORMAT, 0,
         "config_sentence_transformers.json: default_prompt_name \"query\" is not one of its 0 "
         "prompts"},
        /* Pooling(pooling_mode=...) overrides the pooling_mode_* keys: one mode of 16 */
        {"1_Pooling/config.json", "pooling_mode", "\"MEAN\"", TF_ERR_SHAPE, 0,
         "2_Dense/config.json: in_features 48 disagrees with the 16 values the modules before "
         "it give (1_Pooling/config.json: 1 modes of 16)"},
        {"1_Pooling/config.json", "pooling_mode", "\"median\"", TF_ERR_FORMAT, 0,
         "1_Pooling/config.json: pooling_mode \"median\" is not one of cls, max, mean, "
         "mean_sqrt_len_tokens, weightedmean, lasttoken"},
        /* Pooling's default for pooling_mode_mean_tokens is true: still 3 modes of 16 */
        {"1_Pooling/config.json", "pooling_mode_mean_tokens", NULL, TF_OK, 32, NULL},
        {"1_Pooling/config.json", "pooling_mode_mean_tokens", "false", TF_ERR_SHAPE, 0,
         "(1_Pooling/config.json: 2 modes of 16)"},
        {"2_Dense/config.json", "activation_function", "\"torch.nn.modules.activation.ELU\"",
         TF_ERR_UNSUPPORTED, 0,
         "2_Dense/config.json: activation_function "
         "\"torch.nn.modules.activation.ELU\" is not supported"},
        {"2_Dense/config.json", "module_input_name", "\"token_embeddings\"", TF_ERR_UNSUPPORTED, 0,
         "2_Dense/config.json: module_input_name \"token_embeddings\" is not supported "
         "(\"sentence_embedding\" is)"},
        {"2_Dense/config.json", "module_input_name", "\"sentence_embedding\"", TF_OK, 32, NULL},
        {"config.json", "pad_token_id", "null", TF_OK, 32, NULL},
        {"config.json", "position_embedding_type", "null", TF_OK, 32, NULL},
    };
    make_tmp_dir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        make_st_folder(cases[i].file, -1, cases[i].key, cases[i].value);
        tf_pipeline *p = NULL;
        const tf_status s = tf_pipeline_load(tmp_dir, NULL, &p);
        ck_assert_msg(s == cases[i].status, "%s %s %s: got %s \"%s\"", cases[i].file, cases[i].key,
                      cases[i].value, tf_status_name(s), tf_last_error());
        if (s == TF_OK)
            ck_assert_msg(tf_pipeline_max_seq_length(p) == cases[i].max_seq_length,
                          "%s %s %s: max_seq_length %d", cases[i].file, cases[i].key,
                          cases[i].value, (int)tf_pipeline_max_seq_length(p));
        else
            expect_failure(s, cases[i].status, cases[i].message);
        tf_pipeline_destroy(p);
    }
    remove_tmp_dir();
}
END_TEST

/* ---- PyTorch's pickles instead of safetensors ------------------------------------ */

/* A folder (or a Dense module's folder) with pytorch_model.bin or its
 * shards' index and no model.safetensors: TF_ERR_UNSUPPORTED naming the
 * folder and the file, and saying how to convert it; no handle. */
static void expect_torch_refused(tf_status s, const char *folder, const char *file)
{
    char named[1200];
    snprintf(named, sizeof named,
             "%s: %s but no model.safetensors: libtfenc reads safetensors "
             "only",
             folder, file);
    const char *m = tf_last_error();
    ck_assert_msg(s == TF_ERR_UNSUPPORTED && strstr(m, named) && strstr(m, "save_file(") &&
                      strstr(m, "safe_serialization=True"),
                  "%s in %s: got %s \"%s\"", file, folder, tf_status_name(s), m);
}

START_TEST(test_torch_weights_refused)
{
    static const char *const pickles[] = {"pytorch_model.bin", "pytorch_model.bin.index.json"};
    const path_buf tiny = join(data_dir, "bert_tiny");
    make_tmp_dir();
    ck_assert_int_eq(symlink(join(tiny.s, "config.json").s, join(tmp_dir, "config.json").s), 0);
    for (size_t i = 0; i < sizeof pickles / sizeof pickles[0]; i++) {
        const path_buf pickle = join(tmp_dir, pickles[i]);
        write_bytes(pickle.s, pickle_bytes, sizeof pickle_bytes);
        tf_encoder *enc = (tf_encoder *)&enc;
        expect_torch_refused(tf_encoder_load(tmp_dir, NULL, &enc), tmp_dir, pickles[i]);
        ck_assert_ptr_null(enc);
        tf_pipeline *p = (tf_pipeline *)&p;
        expect_torch_refused(tf_pipeline_load(tmp_dir, NULL, &p), tmp_dir, pickles[i]);
        ck_assert_ptr_null(p);
        tf_model_info *info = (tf_model_info *)&info;
        expect_torch_refused(tf_model_inspect(tmp_dir, NULL, &info), tmp_dir, pickles[i]);
        ck_assert_ptr_null(info);
        ck_assert_int_eq(unlink(pickle.s), 0);
    }
    /* neither file: the missing safetensors named as before */
    tf_encoder *enc = NULL;
    const tf_status s = tf_encoder_load(tmp_dir, NULL, &enc);
    ck_assert_msg(s == TF_ERR_IO && strstr(tf_last_error(), "model.safetensors: cannot open"),
                  "got %s \"%s\"", tf_status_name(s), tf_last_error());
    remove_tmp_dir();
}
END_TEST

START_TEST(test_torch_dense_refused)
{
    make_tmp_dir();
    make_st_folder(NULL, -1, NULL, NULL);
    const path_buf dense = join(tmp_dir, "2_Dense");
    ck_assert_int_eq(unlink(join(dense.s, "model.safetensors").s), 0);
    write_bytes(join(dense.s, "pytorch_model.bin").s, pickle_bytes, sizeof pickle_bytes);
    tf_pipeline *p = (tf_pipeline *)&p;
    expect_torch_refused(tf_pipeline_load(tmp_dir, NULL, &p), dense.s, "pytorch_model.bin");
    ck_assert_ptr_null(p);
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
    TCase *folder = tcase_create("folder files");
    tcase_add_loop_test(folder, test_folder_field_wrong_types, 0, N_CASES(folder_fields));
    tcase_add_test(folder, test_folder_required_fields);
    tcase_add_test(folder, test_folder_field_values);
    suite_add_tcase(s, folder);
    TCase *torch = tcase_create("pytorch weights");
    tcase_add_test(torch, test_torch_weights_refused);
    tcase_add_test(torch, test_torch_dense_refused);
    suite_add_tcase(s, torch);
    return run_suite(s);
}
