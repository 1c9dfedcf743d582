/* json_file.c — reading the small JSON files of a model folder. */
#include "json_file.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"

#define TF_JSON_FILE_MAX_BYTES (16u << 20)
#define TF_JSON_FILE_MAX_DEPTH 32

tf_status tf_json_read_file(const char *path, const char *label, int array, cJSON **root)
{
    *root = NULL;
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf_file_read_all(path, TF_JSON_FILE_MAX_BYTES, &text, &len);
    if (s == TF_OK)
        s = tf_json_parse(text, len, TF_JSON_FILE_MAX_DEPTH, label, root);
    tf_free(text);
    if (s == TF_OK && !(array ? cJSON_IsArray(*root) : cJSON_IsObject(*root)))
        s = tf_fail(TF_ERR_FORMAT, "%s: not a JSON %s", label, array ? "array" : "object");
    if (s) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return s;
}

/* obj's key, or NULL when absent or null. */
static const cJSON *field(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return item && !cJSON_IsNull(item) ? item : NULL;
}

tf_status tf_json_get_bool(const cJSON *obj, const char *key, const char *label, int32_t *out)
{
    const cJSON *item = field(obj, key);
    if (!item)
        return TF_OK;
    char value[96];
    tf_json_describe(item, value, sizeof value);
    if (!cJSON_IsBool(item))
        return tf_fail(TF_ERR_FORMAT, "%s: %s must be true or false, got %s", label, key, value);
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return TF_OK;
}

tf_status tf_json_get_int(const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                          const char *label, int32_t *out)
{
    const cJSON *item = field(obj, key);
    if (!item)
        return TF_OK;
    char value[96];
    tf_json_describe(item, value, sizeof value);
    uint64_t v;
    if (!tf_json_uint(item, (double)hi, &v) || (int64_t)v < lo)
        return tf_fail(TF_ERR_FORMAT, "%s: %s must be an integer in %lld..%lld, got %s", label,
                       key, (long long)lo, (long long)hi, value);
    *out = (int32_t)v;
    return TF_OK;
}

tf_status tf_json_get_string(const cJSON *obj, const char *key, const char *label,
                             const char **out)
{
    const cJSON *item = field(obj, key);
    if (!item)
        return TF_OK;
    char value[96];
    tf_json_describe(item, value, sizeof value);
    if (!cJSON_IsString(item))
        return tf_fail(TF_ERR_FORMAT, "%s: %s must be a string, got %s", label, key, value);
    *out = item->valuestring;
    return TF_OK;
}

char *tf_path_join(const char *dir, const char *name)
{
    const size_t n = strlen(dir) + strlen(name) + 2;
    char *path = tf_malloc(n);
    if (path)
        snprintf(path, n, "%s%s%s", dir, name[0] ? "/" : "", name);
    return path;
}
