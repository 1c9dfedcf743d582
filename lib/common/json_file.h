/* json_file.h — a small JSON file of a model folder, read and checked
 * (json.h's rules), and its fields read with messages naming the file.
 *
 * One rule for every field: the type and range upstream (transformers,
 * sentence-transformers, tokenizers) takes, or TF_ERR_FORMAT
 * "<label>: <key> must be <what>, got <value>" with the value as written.
 * null is Python's None: where upstream takes None as the field's default
 * (TF_JSON_OPTIONAL) it is the field not said; where it has no None
 * (TF_JSON_NOT_NULL, TF_JSON_REQUIRED) it is refused as any other wrong
 * value. */
#ifndef TF_JSON_FILE_H
#define TF_JSON_FILE_H

#include <stdint.h>

#include "json.h"
#include "tfenc.h"

/* The JSON object (array: 1, a JSON array) in path (at most 16 MiB), into
 * *root (cJSON_Delete it); label names the file in messages. */
tf_status tf__json_read_file(const char *path, const char *label, int array, cJSON **root);

/* What a field's absence and null mean. */
typedef enum tf__json_need {
    TF_JSON_OPTIONAL, /* absent or null: *out keeps its value */
    TF_JSON_NOT_NULL, /* absent: *out keeps its value; null refused */
    TF_JSON_REQUIRED  /* absent: "<label>: <key> is missing (...)"; null refused */
} tf__json_need;

/* Field key of obj as need says: a boolean (*out 0 or 1), an integer in
 * lo..hi (0 <= lo), a string (*out points into obj, valid while it lives). */
tf_status tf__json_read_bool(const cJSON *obj, const char *key, tf__json_need need,
                             const char *label, int32_t *out);
tf_status tf__json_read_int(const cJSON *obj, const char *key, tf__json_need need, int64_t lo,
                            int64_t hi, const char *label, int32_t *out);
tf_status tf__json_read_string(const cJSON *obj, const char *key, tf__json_need need,
                               const char *label, const char **out);

/* The TF_JSON_OPTIONAL reads: absent or null keeps *out. */
static inline tf_status tf__json_get_bool(const cJSON *obj, const char *key, const char *label,
                                          int32_t *out)
{
    return tf__json_read_bool(obj, key, TF_JSON_OPTIONAL, label, out);
}
static inline tf_status tf__json_get_int(const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                                         const char *label, int32_t *out)
{
    return tf__json_read_int(obj, key, TF_JSON_OPTIONAL, lo, hi, label, out);
}
static inline tf_status tf__json_get_string(const cJSON *obj, const char *key, const char *label,
                                            const char **out)
{
    return tf__json_read_string(obj, key, TF_JSON_OPTIONAL, label, out);
}

/* TF_ERR_FORMAT "<label>: <key> must be <what>, got <v as written>". */
tf_status tf__json_wrong(const cJSON *v, const char *key, const char *what, const char *label);

#endif
