/* json_out.h — a response body being written: a growing buffer with JSON's
 * pieces (escaped strings, float32 numbers, base64 of float32 arrays). An
 * allocation that fails marks the buffer failed and later writes do
 * nothing: the caller checks once, at the end. */
#ifndef SERVE_JSON_OUT_H
#define SERVE_JSON_OUT_H

#include <stddef.h>

typedef struct json_out {
    char *data; /* [len] bytes, NUL-terminated while not failed (malloc'ed) */
    size_t len, cap;
    int failed; /* an allocation failed: data is NULL */
} json_out;

void json_out_raw(json_out *o, const char *s, size_t n);
/* A NUL-terminated piece as it is ("{", "\"index\":"). */
void json_out_str(json_out *o, const char *s);
void json_out_printf(json_out *o, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string: quotes, escapes for '"', '\\' and control characters, and \ufffd
 * (U+FFFD, the replacement character) for each byte that does not start a valid UTF-8
 * character (utf8_valid_char): every string a response holds goes through here, so
 * every body is UTF-8 whatever bytes a request, a folder's name or a message held. */
void json_out_string(json_out *o, const char *s);
/* The first n bytes of s as a JSON string (as json_out_string). */
void json_out_string_n(json_out *o, const char *s, size_t n);
/* A float32 as its shortest text that reads back as the same float
 * (float_text.h: numpy's float32 repr's digits); a non-finite one,
 * which JSON cannot say, as null. */
void json_out_float(json_out *o, float v);
/* [v0,v1,...] of n floats. */
void json_out_floats(json_out *o, const float *v, size_t n);
/* The n floats' bytes, little-endian float32, in base64 as a JSON string
 * (OpenAI's encoding_format "base64"). */
void json_out_base64_floats(json_out *o, const float *v, size_t n);
/* raw [bytes] in base64 as a JSON string. */
void json_out_base64(json_out *o, const unsigned char *raw, size_t bytes);
/* Takes the text (NULL when failed); the buffer is empty after. */
char *json_out_take(json_out *o, size_t *len);
void json_out_free(json_out *o);

#endif
