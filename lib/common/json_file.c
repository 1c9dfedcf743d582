/* json_file.c — reading the small JSON files of a model folder. */
#include "json_file.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"

#define TF_JSON_FILE_MAX_BYTES (16u << 20)
#define TF_JSON_FILE_MAX_DEPTH 32

tf_status tf__json_read_file(const char *path, const char *label, int array, cJSON **root)
{
    *root = NULL;
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_JSON_FILE_MAX_BYTES, &text, &len);
    if (s == TF_OK)
        s = tf__json_parse(text, len, TF_JSON_FILE_MAX_DEPTH, label, root);
    tf__free(text);
    if (s == TF_OK && !(array ? cJSON_IsArray(*root) : cJSON_IsObject(*root)))
        s = tf__fail(TF_ERR_FORMAT, "%s: not a JSON %s", label, array ? "array" : "object");
    if (s) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return s;
}

tf_status tf__json_wrong(const cJSON *v, const char *key, const char *what, const char *label)
{
    char value[96];
    tf__json_describe(v, value, sizeof value);
    return tf__fail(TF_ERR_FORMAT, "%s: %s must be %s, got %s", label, key, what, value);
}

/* obj's key into *item, NULL when there is nothing to read: absent (missing
 * when required) or null (refused unless optional); `what` it must be. */
static tf_status field(const cJSON *obj, const char *key, tf__json_need need, const char *what,
                       const char *label, const cJSON **item)
{
    *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*item && need == TF_JSON_REQUIRED)
        return tf__fail(TF_ERR_FORMAT, "%s: %s is missing (it must be %s)", label, key, what);
    if (*item && cJSON_IsNull(*item)) {
        if (need != TF_JSON_OPTIONAL)
            return tf__json_wrong(*item, key, what, label);
        *item = NULL;
    }
    return TF_OK;
}

tf_status tf__json_read_bool(const cJSON *obj, const char *key, tf__json_need need,
                             const char *label, int32_t *out)
{
    const char *what = "true or false";
    const cJSON *item;
    tf_status s = field(obj, key, need, what, label, &item);
    if (s || !item)
        return s;
    if (!cJSON_IsBool(item))
        return tf__json_wrong(item, key, what, label);
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return TF_OK;
}

tf_status tf__json_read_int(const cJSON *obj, const char *key, tf__json_need need, int64_t lo,
                            int64_t hi, const char *label, int32_t *out)
{
    char what[64];
    snprintf(what, sizeof what, "an integer in %lld..%lld", (long long)lo, (long long)hi);
    const cJSON *item;
    tf_status s = field(obj, key, need, what, label, &item);
    if (s || !item)
        return s;
    uint64_t v;
    if (!tf__json_uint(item, (double)hi, &v) || (int64_t)v < lo)
        return tf__json_wrong(item, key, what, label);
    *out = (int32_t)v;
    return TF_OK;
}

tf_status tf__json_read_string(const cJSON *obj, const char *key, tf__json_need need,
                               const char *label, const char **out)
{
    const char *what = "a string";
    const cJSON *item;
    tf_status s = field(obj, key, need, what, label, &item);
    if (s || !item)
        return s;
    if (!cJSON_IsString(item))
        return tf__json_wrong(item, key, what, label);
    *out = item->valuestring;
    return TF_OK;
}
