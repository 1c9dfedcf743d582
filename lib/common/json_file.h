/* json_file.h — a small JSON file of a model folder, read and checked
 * (json.h's rules), and its fields read with messages naming the file. */
#ifndef TF_JSON_FILE_H
#define TF_JSON_FILE_H

#include <stdint.h>

#include "json.h"
#include "tfenc.h"

/* The JSON object (array: 1, a JSON array) in path (at most 16 MiB), into
 * *root (cJSON_Delete it); label names the file in messages. */
tf_status tf_json_read_file(const char *path, const char *label, int array, cJSON **root);

/* Field key of obj, absent or null: *out keeps its value. Wrong type or
 * range: TF_ERR_FORMAT "<label>: <key> must be ..., got <value>". */
tf_status tf_json_get_bool(const cJSON *obj, const char *key, const char *label, int32_t *out);
tf_status tf_json_get_int(const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                          const char *label, int32_t *out);
/* *out points into obj (valid while it lives), or stays as it was. */
tf_status tf_json_get_string(const cJSON *obj, const char *key, const char *label,
                             const char **out);

/* "<dir>/<name>" in a new buffer (tf_free it), or NULL. */
char *tf_path_join(const char *dir, const char *name);

#endif
