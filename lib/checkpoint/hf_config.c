/* hf_config.c — reading config.json with type checks on every field used. */
#define _POSIX_C_SOURCE 200809L
#include "hf_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "json.h"

#define TF_HF_CONFIG_MAX_BYTES (16u << 20)
#define TF_HF_CONFIG_MAX_DEPTH 32

static tf_status get_int(const cJSON *root, const char *key, int64_t *out, const char *path)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    uint64_t v;
    *out = -1;
    if (!item || cJSON_IsNull(item))
        return TF_OK;
    if (!tf_json_uint(item, 2147483647.0, &v))
        return tf_fail(TF_ERR_FORMAT, "%s: %s must be an integer in 0..2147483647", path, key);
    *out = (int64_t)v;
    return TF_OK;
}

static tf_status get_activation(const cJSON *root, int32_t *out, const char *path)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "hidden_act");
    *out = -1;
    if (!item)
        return TF_OK;
    if (!cJSON_IsString(item))
        return tf_fail(TF_ERR_FORMAT, "%s: hidden_act must be a string", path);
    const char *act = item->valuestring;
    if (!strcmp(act, "gelu"))
        *out = TF_ACTIVATION_GELU;
    else if (!strcmp(act, "gelu_new") || !strcmp(act, "gelu_pytorch_tanh"))
        *out = TF_ACTIVATION_GELU_TANH;
    else if (!strcmp(act, "relu"))
        *out = TF_ACTIVATION_RELU;
    else
        return tf_fail(TF_ERR_UNSUPPORTED, "%s: hidden_act '%.40s' is not supported (gelu, "
                       "gelu_new, gelu_pytorch_tanh and relu are)", path, act);
    return TF_OK;
}

static tf_status check_position_type(const cJSON *root, const char *path)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "position_embedding_type");
    if (!item || cJSON_IsNull(item))
        return TF_OK;
    if (!cJSON_IsString(item) || strcmp(item->valuestring, "absolute") != 0)
        return tf_fail(TF_ERR_UNSUPPORTED, "%s: position_embedding_type must be \"absolute\"",
                       path);
    return TF_OK;
}

void tf_hf_config_init(tf_hf_config *c)
{
    *c = (tf_hf_config){-1, -1, -1, -1, -1, -1, -1, -1, -1.0};
}

tf_status tf_hf_config_parse(tf_hf_config *c, const char *text, size_t len, const char *path)
{
    tf_hf_config_init(c);
    cJSON *root = NULL;
    tf_status s = tf_json_parse(text, len, TF_HF_CONFIG_MAX_DEPTH, path, &root);
    if (s == TF_OK && !cJSON_IsObject(root))
        s = tf_fail(TF_ERR_FORMAT, "%s: not a JSON object", path);
    const cJSON *eps = root ? cJSON_GetObjectItemCaseSensitive(root, "layer_norm_eps") : NULL;
    if (s == TF_OK && eps) {
        if (!cJSON_IsNumber(eps) || !(eps->valuedouble > 0.0) || eps->valuedouble > 1.0)
            s = tf_fail(TF_ERR_FORMAT, "%s: layer_norm_eps must be a number in (0, 1]", path);
        else
            c->layer_norm_eps = eps->valuedouble;
    }
    const struct {
        const char *key;
        int64_t *field;
    } ints[] = {{"hidden_size", &c->hidden_size},
                {"num_attention_heads", &c->num_attention_heads},
                {"intermediate_size", &c->intermediate_size},
                {"num_hidden_layers", &c->num_hidden_layers},
                {"vocab_size", &c->vocab_size},
                {"max_position_embeddings", &c->max_position_embeddings},
                {"type_vocab_size", &c->type_vocab_size}};
    for (size_t i = 0; s == TF_OK && i < sizeof ints / sizeof ints[0]; i++)
        s = get_int(root, ints[i].key, ints[i].field, path);
    if (s == TF_OK)
        s = get_activation(root, &c->activation, path);
    if (s == TF_OK)
        s = check_position_type(root, path);
    cJSON_Delete(root);
    return s;
}

tf_status tf_hf_config_read(tf_hf_config *c, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf_file_read_all(path, TF_HF_CONFIG_MAX_BYTES, &text, &len);
    if (s == TF_OK)
        s = tf_hf_config_parse(c, text, len, path);
    tf_free(text);
    return s;
}
