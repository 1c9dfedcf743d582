/* json_reader.h — JSON text from a client (a request body) checked before
 * and after cJSON parses it: valid UTF-8, bounded nesting, nothing after
 * the value but whitespace, no NUL (\u0000) and no raw control byte in any
 * key or string, none between tokens but JSON's whitespace, and no key
 * twice in any object (cJSON's lookup would find the first, Python's json
 * keeps the last: readers that disagree). */
#ifndef TFENC_JSON_READER_H
#define TFENC_JSON_READER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Parses len bytes of text (not NUL-terminated) into *out (cJSON_Delete
 * it): 0, or -1 with *out NULL and a message in err that starts with label
 * and says what is wrong and where: the byte, or for a duplicate key the
 * key and the path of its object ('a'[2]'b'). */
int json_reader_parse(const char *text, size_t len, int max_depth, const char *label, cJSON **out,
                      char *err, size_t err_size);

/* 2^53: up to here every integer is exactly a double, so a JSON number
 * (which cJSON holds as one) names exactly one integer. */
#define JSON_READER_MAX_EXACT_INT 9007199254740992.0

/* 1 when item is a JSON number that is an integer in 0..max (at most
 * JSON_READER_MAX_EXACT_INT), into *out; else 0. */
int json_reader_uint(const cJSON *item, double max, uint64_t *out);

/* item as JSON text for a message (numbers as cJSON prints them: 1e-50,
 * 128.5), or, when that does not fit in size bytes, what it is ("an object
 * of 3 keys"). */
void json_reader_describe(const cJSON *item, char *buf, size_t size);

#endif
