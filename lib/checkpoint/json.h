/* json.h — JSON text checked before it is parsed: valid UTF-8, bounded
 * nesting, nothing after the value but whitespace. Parsing is cJSON's. */
#ifndef TF_JSON_H
#define TF_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "tfenc.h"

/* Parses len bytes of text (not NUL-terminated) into *out. On failure the
 * message starts with label and says what is wrong and at which byte. */
tf_status tf_json_parse(const char *text, size_t len, int max_depth, const char *label,
                        cJSON **out);

/* A JSON number that is an integer in 0..max (at most 2^53), into *out. */
int tf_json_uint(const cJSON *item, double max, uint64_t *out);

#endif
