/* json.h — JSON text checked before and after it is parsed: valid UTF-8,
 * bounded nesting, nothing after the value but whitespace, no NUL (\u0000)
 * in any key or string, and no key twice in any object. Parsing is cJSON's. */
#ifndef TF_JSON_H
#define TF_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "tfenc.h"

/* Parses len bytes of text (not NUL-terminated) into *out. On failure the
 * message starts with label and says what is wrong and where: the byte, or
 * for a duplicate key the key and the path of its object ('a'[2]'b'). */
tf_status tf__json_parse(const char *text, size_t len, int max_depth, const char *label,
                         cJSON **out);

/* 2^53: up to here every integer is exactly a double, so a JSON number
 * (which cJSON holds as one) names exactly one integer. */
#define TF_JSON_MAX_EXACT_INT 9007199254740992.0

/* A JSON number that is an integer in 0..max (at most TF_JSON_MAX_EXACT_INT),
 * into *out. */
int tf__json_uint(const cJSON *item, double max, uint64_t *out);

/* item as JSON text for a message (numbers as cJSON prints them: 1e-50,
 * 128.5), or, when that does not fit in size bytes, what it is ("an object
 * of 3 keys"). */
void tf__json_describe(const cJSON *item, char *buf, size_t size);

#endif
