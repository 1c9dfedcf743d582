/* hf_config.c — reading config.json: one table of the fields that change what
 * BertModel computes, each honoured, cross-checked or refused by name. The
 * table spells the keys as BERT does; model_type picks the family
 * (hf_family.h), which says how it spells the keys it renames. */
#define _POSIX_C_SOURCE 200809L
#include "hf_config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hf_family.h"
#include "json.h"

#define TF_HF_CONFIG_MAX_BYTES (16u << 20)
#define TF_HF_CONFIG_MAX_DEPTH 32

/* ---- The fields ----------------------------------------------------------- *
 * Every config.json field that could change what transformers' BertModel
 * computes, and what this library does with it. Absent is BertConfig's
 * default. null is Python's None, which BertConfig keeps as the value: it
 * is the default where the model takes None as "none" (null_is_default),
 * and refused elsewhere (a layer of None units cannot be built). A key not
 * in the table is ignored, as transformers keeps unknown keys as
 * attributes that BertModel never reads. */

typedef enum field_rule {
    SIZE,       /* an integer in lo..2^31-1, into the int64_t at offset */
    ID,         /* SIZE, or null: no such id */
    ACTIVATION, /* hidden_act: one of activations[] */
    EPS,        /* layer_norm_eps: a number in (0, 1] that float32 does not round to 0 */
    THETA,      /* a finite number > 1 (a rotary base), into the double at offset */
    FACTOR,     /* a number in [1, 1e6] (a scaling factor), into the double at offset;
                   null or 0 (Python's falsy "none") is 0, which absent (-1) is not */
    FRACTION,   /* a number in [0, 1], into the double at offset */
    NAME,       /* a string (shorter than TF_HF_NAME_MAX), into the char[] at offset;
                   the family says which values it supports */
    SCALING,    /* rope_scaling: {"type": NAME, "factor": FACTOR}, nothing else */
    POSITIONS,  /* position_embedding_type: the family's position_type, else "absolute" */
    UNSET,      /* must be null (anything else: refused, note says why) */
    BOOL,       /* true or false, into the int32_t at offset (1 or 0) */
    FALSE,      /* a boolean that must be false (true: refused, note says why) */
    EMPTY,      /* must be {} or [] (anything in it: refused, note says why) */
    NO_EFFECT,  /* an integer in 0..2^31-1 that cannot change the result (note: why) */
    IGNORED     /* cannot change what BertModel computes at inference (note: why) */
} field_rule;

typedef struct hf_field {
    const char *key;
    field_rule rule;
    size_t offset;    /* SIZE, THETA, FACTOR, FRACTION, NAME, BOOL: the field it fills */
    int64_t lo;       /* SIZE: its smallest value */
    const char *note; /* FALSE, EMPTY, UNSET: why the others are
                         refused; otherwise what it is or why it changes nothing */
} hf_field;

#define SIZE_FIELD(key, lo, note)                          \
    {                                                      \
#key, SIZE, offsetof(tf__hf_config, key), lo, note \
    }
#define FIELD(key, rule, note)                            \
    {                                                     \
#key, rule, offsetof(tf__hf_config, key), 0, note \
    }

static const hf_field fields[] = {
    /* honoured (model_type, which picks the family, is read first) */
    SIZE_FIELD(num_attention_heads, 1, "the number of heads"),
    {"hidden_act", ACTIVATION, 0, 0, "the feed-forward block's activation"},
    {"layer_norm_eps", EPS, 0, 0, "every LayerNorm's epsilon"},
    {"position_embedding_type", POSITIONS, 0, 0, "how positions enter the model"},
    /* cross-checked against the tensors' shapes (checkpoint.c) */
    SIZE_FIELD(hidden_size, 0, "word_embeddings' width"),
    SIZE_FIELD(intermediate_size, 0, "intermediate.dense's height"),
    SIZE_FIELD(num_hidden_layers, 0, "the encoder.layer.{i} present"),
    SIZE_FIELD(vocab_size, 0, "word_embeddings' height"),
    SIZE_FIELD(max_position_embeddings, 0, "position_embeddings' height"),
    SIZE_FIELD(type_vocab_size, 0, "token_type_embeddings' height"),
    SIZE_FIELD(embedding_size, 0, "ELECTRA's embeddings' width (hidden_size's without it)"),
    /* honoured by families whose positions skip padding (RoBERTa's); for
       BERT's, word_embeddings' padding_idx only stops its gradient */
    {"pad_token_id", ID, offsetof(tf__hf_config, pad_token_id), 0, "the padding id"},
    /* ModernBERT's, honoured by its family (families/modernbert.c) */
    FIELD(global_rope_theta, THETA, "the rotary base of global layers"),
    FIELD(local_rope_theta, THETA, "the rotary base of local layers"),
    SIZE_FIELD(local_attention, 0, "a local layer's window"),
    SIZE_FIELD(global_attn_every_n_layers, 1, "which layers attend globally"),
    FIELD(attention_bias, BOOL, "biases in Wqkv and Wo"),
    FIELD(mlp_bias, BOOL, "biases in the feed-forward block"),
    FIELD(norm_bias, BOOL, "biases in the LayerNorms"),
    {"rope_parameters", EMPTY, 0, 0,
     "this library reads the rotary bases from global_rope_theta and local_rope_theta"},
    {"layer_types", EMPTY, 0, 0,
     "this library reads which layers are local from global_attn_every_n_layers"},
    /* NomicBERT's, GTE's and JinaBERT's, honoured by their families
       (families/nomic_bert.c, gte.c, jina_bert.c) */
    FIELD(rope_theta, THETA, "the rotary base"),
    FIELD(rotary_emb_fraction, FRACTION, "the rotated share of each head"),
    FIELD(rotary_scaling_factor, FACTOR, "dynamic NTK scaling past max_trained_positions"),
    SIZE_FIELD(max_trained_positions, 1, "the length dynamic NTK scaling starts after"),
    SIZE_FIELD(n_inner, 1, "the feed-forward width before rounding"),
    SIZE_FIELD(pad_vocab_size_multiple, 1, "vocab_size rounded up to a multiple of it"),
    FIELD(rotary_emb_interleaved, BOOL, "rotating pairs (2i, 2i + 1)"),
    FIELD(mlp_fc2_bias, BOOL, "fc2's bias"),
    FIELD(prenorm, BOOL, "LayerNorms before the blocks"),
    FIELD(activation_function, NAME, "the feed-forward block"),
    FIELD(feed_forward_type, NAME, "the feed-forward block"),
    FIELD(layer_norm_type, NAME, "the norm layers"),
    {"rope_scaling", SCALING, 0, 0, "the rotary scaling"},
    {"causal", FALSE, 0, 0, "a causal mask hides later tokens; this library is an encoder"},
    {"rotary_emb_scale_base", UNSET, 0, 0,
     "xPos scaling of the rotary embedding is not implemented"},
    {"rotary_head_dim", FALSE, 0, 0,
     "it rotates along the head axis instead of the positions (xformers' layout)"},
    {"num_heads_kv", UNSET, 0, 0, "grouped key/value heads are not implemented"},
    {"use_rms_norm", FALSE, 0, 0, "RMSNorm is not implemented"},
    {"parallel_block", FALSE, 0, 0, "attention and MLP side by side are not implemented"},
    {"logn_attention_scale", FALSE, 0, 0, "log-n scaling of the queries is not implemented"},
    {"unpad_inputs", IGNORED, 0, 0, "how padding is skipped, not what is computed"},
    {"use_memory_efficient_attention", IGNORED, 0, 0, "which kernel computes attention"},
    {"use_flash_attn", IGNORED, 0, 0, "which kernel computes attention"},
    {"fused_bias_fc", IGNORED, 0, 0, "which kernel computes the Linear layers"},
    {"fused_dropout_add_ln", IGNORED, 0, 0, "which kernel computes the LayerNorms"},
    /* MPNet's, checked by its family (families/mpnet.c) */
    SIZE_FIELD(relative_attention_num_buckets, 1, "the rows of relative_attention_bias"),
    /* honoured trivially */
    {"chunk_size_feed_forward", NO_EFFECT, 0, 0,
     "the feed-forward block is computed for each token alone, so computing it in chunks of "
     "the sequence gives the same values"},
    /* refused unless they leave BertModel the encoder this library computes */
    {"is_decoder", FALSE, 0, 0, "a decoder masks attention causally; this library is an encoder"},
    {"add_cross_attention", FALSE, 0, 0,
     "cross-attention layers attend to another model's states, which this library has no "
     "input for"},
    {"pruned_heads", EMPTY, 0, 0, "its layers have fewer heads than num_attention_heads"},
    {"quantization_config", EMPTY, 0, 0, "quantized weights are not float weights"},
    /* ignored knowingly */
    {"hidden_dropout_prob", IGNORED, 0, 0, "dropout is off at inference"},
    {"attention_probs_dropout_prob", IGNORED, 0, 0, "dropout is off at inference"},
    {"classifier_dropout", IGNORED, 0, 0, "a task head's, which is not loaded"},
    {"architectures", IGNORED, 0, 0, "the task heads around BertModel, which are not loaded"},
    {"initializer_range", IGNORED, 0, 0, "initialisation only"},
    {"tie_word_embeddings", IGNORED, 0, 0, "ties the MLM head, which is not loaded"},
    {"torchscript", IGNORED, 0, 0, "how weights are tied for export"},
    {"torch_dtype", IGNORED, 0, 0, "weights are converted to float32, which everything runs in"},
    {"dtype", IGNORED, 0, 0, "weights are converted to float32, which everything runs in"},
    {"use_cache", IGNORED, 0, 0, "a decoder's key/value cache"},
    {"is_encoder_decoder", IGNORED, 0, 0, "read by encoder-decoder wrappers, not by BertModel"},
    {"output_attentions", IGNORED, 0, 0, "which outputs are returned, not their values"},
    {"output_hidden_states", IGNORED, 0, 0, "which outputs are returned, not their values"},
    {"return_dict", IGNORED, 0, 0, "which outputs are returned, not their values"},
};

/* hidden_act values, as transformers' ACT2FN computes them. */
static const struct {
    const char *name;
    tf_activation activation;
} activations[] = {
    {"gelu", TF_ACTIVATION_GELU},        /* torch's erf GELU */
    {"gelu_python", TF_ACTIVATION_GELU}, /* the same formula written in Python */
    {"gelu_new", TF_ACTIVATION_GELU_TANH},  {"gelu_pytorch_tanh", TF_ACTIVATION_GELU_TANH},
    {"gelu_fast", TF_ACTIVATION_GELU_TANH}, /* the same tanh formula, factored */
    {"relu", TF_ACTIVATION_RELU},
};
enum { N_ACTIVATIONS = sizeof activations / sizeof activations[0] };

static tf_status read_activation(const cJSON *item, const char *key, const char *value,
                                 int32_t *out, const char *path)
{
    if (!cJSON_IsString(item))
        return tf__fail(TF_ERR_FORMAT, "%s: %s must be a string, got %s", path, key, value);
    char names[160] = "";
    for (int i = 0; i < N_ACTIVATIONS; i++) {
        if (strcmp(item->valuestring, activations[i].name) == 0) {
            *out = activations[i].activation;
            return TF_OK;
        }
        const size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s",
                 i == 0                      ? ""
                     : i + 1 < N_ACTIVATIONS ? ", "
                                             : " and ",
                 activations[i].name);
    }
    return tf__fail(TF_ERR_UNSUPPORTED, "%s: %s %s is not supported (%s are)", path, key, value,
                    names);
}

static tf_status read_eps(const cJSON *item, const char *key, const char *value, double *out,
                          const char *path)
{
    if (!cJSON_IsNumber(item) || !(item->valuedouble > 0.0) || item->valuedouble > 1.0)
        return tf__fail(TF_ERR_FORMAT, "%s: %s must be a number in (0, 1], got %s", path, key,
                        value);
    if (!((float)item->valuedouble > 0.0f))
        return tf__fail(TF_ERR_FORMAT,
                        "%s: %s %s is 0 as a float32, the precision LayerNorm "
                        "runs in (its smallest value above 0 is 1.4e-45)",
                        path, key, value);
    *out = item->valuedouble;
    return TF_OK;
}

/* A string into out (TF_HF_NAME_MAX bytes). */
static tf_status read_name(const cJSON *item, const char *key, const char *value, char *out,
                           const char *path)
{
    if (!cJSON_IsString(item))
        return tf__fail(TF_ERR_FORMAT, "%s: %s must be a string, got %s", path, key, value);
    if (strlen(item->valuestring) >= TF_HF_NAME_MAX)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: %s %s is not supported (no value of %d "
                        "characters or more is)",
                        path, key, value, TF_HF_NAME_MAX);
    snprintf(out, TF_HF_NAME_MAX, "%s", item->valuestring);
    return TF_OK;
}

/* rope_scaling {"type": name, "factor": a >= 1}; any other key (GTE's
 * mixed_b, transformers' rope_type ...) is refused by name. */
static tf_status read_scaling(const cJSON *item, const char *key, const char *value,
                              tf__hf_config *c, const char *path)
{
    if (!cJSON_IsObject(item))
        return tf__fail(TF_ERR_FORMAT, "%s: %s must be an object, got %s", path, key, value);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, item)
    {
        char inner[96], name[64];
        tf__json_describe(entry, inner, sizeof inner);
        snprintf(name, sizeof name, "%s.%s", key, entry->string);
        tf_status s = TF_OK;
        if (strcmp(entry->string, "type") == 0)
            s = read_name(entry, name, inner, c->rope_scaling_type, path);
        else if (strcmp(entry->string, "factor") != 0)
            s = tf__fail(TF_ERR_UNSUPPORTED,
                         "%s: %s %s is not supported (rope_scaling holds "
                         "type and factor here)",
                         path, name, inner);
        else if (!cJSON_IsNumber(entry) ||
                 !(entry->valuedouble >= 1.0 && entry->valuedouble <= 1e6))
            s = tf__fail(TF_ERR_FORMAT, "%s: %s must be a number in [1, 1e+06], got %s", path, name,
                         inner);
        else
            c->rope_scaling_factor = entry->valuedouble;
        if (s)
            return s;
    }
    if (!c->rope_scaling_type[0] || c->rope_scaling_factor < 0)
        return tf__fail(TF_ERR_FORMAT, "%s: %s %s needs both type and factor", path, key, value);
    return TF_OK;
}

/* A value of f that changes the computation in a way this library does not. */
static tf_status refuse(const hf_field *f, const char *key, const char *value, const char *path)
{
    return tf__fail(TF_ERR_UNSUPPORTED, "%s: %s %s is not supported (%s)", path, key, value,
                    f->note);
}

static tf_status read_field(const hf_field *f, const char *key, const cJSON *item, tf__hf_config *c,
                            const char *path)
{
    char value[96];
    tf__json_describe(item, value, sizeof value);
    switch (f->rule) {
    case SIZE:
    case ID:
    case NO_EFFECT: {
        const int64_t lo = f->rule == NO_EFFECT ? 0 : f->lo;
        uint64_t v;
        if (!tf__json_uint(item, 2147483647.0, &v) || (int64_t)v < lo)
            return tf__fail(TF_ERR_FORMAT, "%s: %s must be an integer in %lld..2147483647, got %s",
                            path, key, (long long)lo, value);
        if (f->rule != NO_EFFECT)
            *(int64_t *)(void *)((char *)c + f->offset) = (int64_t)v;
        return TF_OK;
    }
    case ACTIVATION:
        return read_activation(item, key, value, &c->activation, path);
    case EPS:
        return read_eps(item, key, value, &c->layer_norm_eps, path);
    case THETA:
        if (!cJSON_IsNumber(item) || !(item->valuedouble > 1.0) ||
            !((float)item->valuedouble < INFINITY))
            return tf__fail(TF_ERR_FORMAT,
                            "%s: %s must be a number > 1 that float32 holds, "
                            "got %s",
                            path, key, value);
        *(double *)(void *)((char *)c + f->offset) = item->valuedouble;
        return TF_OK;
    case FACTOR:
    case FRACTION: {
        const int none = f->rule == FACTOR &&
            (cJSON_IsNull(item) || (cJSON_IsNumber(item) && item->valuedouble == 0));
        const double lo = f->rule == FACTOR ? 1.0 : 0.0, hi = f->rule == FACTOR ? 1e6 : 1.0;
        if (!none &&
            (!cJSON_IsNumber(item) || !(item->valuedouble >= lo && item->valuedouble <= hi)))
            return tf__fail(TF_ERR_FORMAT, "%s: %s must be %sa number in [%g, %g], got %s", path,
                            key, f->rule == FACTOR ? "null, 0 or " : "", lo, hi, value);
        *(double *)(void *)((char *)c + f->offset) = none ? 0.0 : item->valuedouble;
        return TF_OK;
    }
    case NAME:
        return read_name(item, key, value, (char *)c + f->offset, path);
    case SCALING:
        return read_scaling(item, key, value, c, path);
    case POSITIONS: {
        const char *want = c->family && c->family->position_type ? c->family->position_type
                                                                 : "absolute";
        if (!cJSON_IsString(item))
            return tf__fail(TF_ERR_FORMAT, "%s: %s must be a string, got %s", path, key, value);
        if (strcmp(item->valuestring, want) != 0)
            return tf__fail(TF_ERR_UNSUPPORTED, "%s: %s %s is not supported (\"%s\" is)", path, key,
                            value, want);
        return TF_OK;
    }
    case UNSET:
        return refuse(f, key, value, path);
    case BOOL:
        if (!cJSON_IsBool(item))
            return tf__fail(TF_ERR_FORMAT, "%s: %s must be true or false, got %s", path, key,
                            value);
        *(int32_t *)(void *)((char *)c + f->offset) = cJSON_IsTrue(item) ? 1 : 0;
        return TF_OK;
    case FALSE:
        if (!cJSON_IsBool(item))
            return tf__fail(TF_ERR_FORMAT, "%s: %s must be true or false, got %s", path, key,
                            value);
        return cJSON_IsTrue(item) ? refuse(f, key, value, path) : TF_OK;
    case EMPTY:
        return (cJSON_IsObject(item) || cJSON_IsArray(item)) && !item->child
            ? TF_OK
            : refuse(f, key, value, path);
    case IGNORED:
        return TF_OK;
    }
    return TF_OK;
}

/* Whether null in a field of this rule is its default: None is "none" to
 * the model (an id, a scaling, the absolute positions), or the field must
 * be false, empty or unset anyway, or is ignored. FACTOR reads null itself. */
static int null_is_default(field_rule rule)
{
    return rule == ID || rule == SCALING || rule == POSITIONS || rule == UNSET || rule == FALSE ||
        rule == EMPTY || rule == IGNORED;
}

/* model_type: the family (absent or null: none, the tensor names decide). */
static tf_status read_family(const cJSON *root, tf__hf_config *c, const char *path)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!item || cJSON_IsNull(item))
        return TF_OK;
    char value[96];
    tf__json_describe(item, value, sizeof value);
    if (!cJSON_IsString(item))
        return tf__fail(TF_ERR_FORMAT, "%s: model_type must be a string, got %s", path, value);
    const cJSON *positions = cJSON_GetObjectItemCaseSensitive(root, "position_embedding_type");
    c->family = tf__hf_family_find(item->valuestring,
                                   cJSON_IsString(positions) ? positions->valuestring : NULL,
                                   cJSON_GetObjectItemCaseSensitive(root, "auto_map"));
    return c->family ? TF_OK : tf__hf_family_unsupported(path, item->valuestring, NULL);
}

void tf__hf_config_init(tf__hf_config *c)
{
    *c = (tf__hf_config){.hidden_size = -1,
                         .num_attention_heads = -1,
                         .intermediate_size = -1,
                         .num_hidden_layers = -1,
                         .vocab_size = -1,
                         .max_position_embeddings = -1,
                         .type_vocab_size = -1,
                         .embedding_size = -1,
                         .pad_token_id = -1,
                         .activation = -1,
                         .layer_norm_eps = -1.0,
                         .global_rope_theta = -1.0,
                         .local_rope_theta = -1.0,
                         .local_attention = -1,
                         .global_attn_every_n_layers = -1,
                         .attention_bias = -1,
                         .mlp_bias = -1,
                         .norm_bias = -1,
                         .rope_theta = -1.0,
                         .rotary_emb_fraction = -1.0,
                         .rotary_scaling_factor = -1.0,
                         .rope_scaling_factor = -1.0,
                         .max_trained_positions = -1,
                         .n_inner = -1,
                         .pad_vocab_size_multiple = -1,
                         .rotary_emb_interleaved = -1,
                         .mlp_fc2_bias = -1,
                         .prenorm = -1,
                         .relative_attention_num_buckets = -1,
                         .family = NULL};
}

tf_status tf__hf_config_parse(tf__hf_config *c, const char *text, size_t len, const char *path)
{
    tf__hf_config_init(c);
    cJSON *root = NULL;
    tf_status s = tf__json_parse(text, len, TF_HF_CONFIG_MAX_DEPTH, path, &root);
    if (s == TF_OK && !cJSON_IsObject(root))
        s = tf__fail(TF_ERR_FORMAT, "%s: not a JSON object", path);
    if (s == TF_OK)
        s = read_family(root, c, path);
    for (size_t i = 0; s == TF_OK && i < sizeof fields / sizeof fields[0]; i++) {
        const char *key = c->family ? tf__hf_family_key(c->family, fields[i].key) : fields[i].key;
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
        if (item && !(cJSON_IsNull(item) && null_is_default(fields[i].rule)))
            s = read_field(&fields[i], key, item, c, path);
    }
    cJSON_Delete(root);
    return s;
}

tf_status tf__hf_config_read(tf__hf_config *c, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_HF_CONFIG_MAX_BYTES, &text, &len);
    if (s == TF_OK)
        s = tf__hf_config_parse(c, text, len, path);
    tf__free(text);
    return s;
}
