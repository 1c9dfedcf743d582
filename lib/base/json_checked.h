/* json_checked.h — JSON text checked before and after cJSON parses it:
 * valid UTF-8, bounded nesting, nothing after the value but whitespace, no
 * NUL (\u0000) and no raw control byte in any key or string, none between
 * tokens but JSON's whitespace, and no key twice in any object (cJSON's
 * lookup would find the first, Python's json keeps the last: readers that
 * disagree). The library's files and the server's request bodies are read
 * with it. */
#ifndef TF_JSON_CHECKED_H
#define TF_JSON_CHECKED_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tf__json_result {
    TF__JSON_OK = 0,
    TF__JSON_INVALID = -1,  /* the text is not JSON this reader accepts */
    TF__JSON_NO_MEMORY = -2 /* an allocation failed on the way */
} tf__json_result;

/* Parses len bytes of text (not NUL-terminated) into *out (cJSON_Delete
 * it): TF__JSON_OK, or a failure with *out NULL and a message in err
 * (err_size bytes, cut to fit) that starts with label and says what is
 * wrong and where: the byte, or for a duplicate key the key and the path
 * of its object ('a'[2]'b'). */
int tf__json_checked_parse(const char *text, size_t len, int max_depth, const char *label,
                           cJSON **out, char *err, size_t err_size);

/* 2^53: up to here every integer is exactly a double, so a JSON number
 * (which cJSON holds as one) names exactly one integer. */
#define TF_JSON_MAX_EXACT_INT 9007199254740992.0

/* 1 when item is a JSON number that is an integer in 0..max (at most
 * TF_JSON_MAX_EXACT_INT), into *out; else 0. */
int tf__json_uint(const cJSON *item, double max, uint64_t *out);

/* item as JSON text for a message (numbers as cJSON prints them: 1e-50,
 * 128.5), or, when that does not fit in size bytes, what it is ("an object
 * of 3 keys"). */
void tf__json_describe(const cJSON *item, char *buf, size_t size);

#endif
