/* json_out.c — JSON text for response bodies, written into a growing buffer. */
#include "json_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "float_text.h"
#include "utf8.h"

/* Room for n more bytes and the NUL; marks o failed when there is none. */
static int reserve(json_out *o, size_t n)
{
    if (o->failed)
        return 0;
    if (o->cap - o->len > n)
        return 1;
    size_t cap = o->cap ? o->cap : 256;
    while (cap - o->len <= n) {
        if (cap > SIZE_MAX / 2)
            goto fail;
        cap *= 2;
    }
    char *data = realloc(o->data, cap);
    if (!data)
        goto fail;
    o->data = data, o->cap = cap;
    return 1;
fail:
    json_out_free(o);
    o->failed = 1;
    return 0;
}

void json_out_raw(json_out *o, const char *s, size_t n)
{
    if (!reserve(o, n))
        return;
    memcpy(o->data + o->len, s, n);
    o->len += n;
    o->data[o->len] = '\0';
}

void json_out_str(json_out *o, const char *s)
{
    json_out_raw(o, s, strlen(s));
}

void json_out_printf(json_out *o, const char *format, ...)
{
    char piece[128];
    va_list ap;
    va_start(ap, format);
    const int n = vsnprintf(piece, sizeof piece, format, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof piece) { /* a longer piece: written in place */
        if (n < 0 || !reserve(o, (size_t)n))
            return;
        va_start(ap, format);
        vsnprintf(o->data + o->len, (size_t)n + 1, format, ap);
        va_end(ap);
        o->len += (size_t)n;
        return;
    }
    json_out_raw(o, piece, (size_t)n);
}

/* How s[i..n) starts, for a JSON string: 0 when its first character goes as it is, else the
 * escape it takes (at most 6 bytes, in esc) and, in *skip, the bytes that escape stands for. */
static size_t escape_at(const char *s, size_t i, size_t n, char esc[8], size_t *skip)
{
    const unsigned char c = (unsigned char)s[i];
    const size_t valid = tf__utf8_valid_char((const unsigned char *)s + i, n - i);
    *skip = 1;
    if (valid == 0) /* not UTF-8: U+FFFD, the replacement character, for the byte */
        return (size_t)snprintf(esc, 8, "\\ufffd");
    *skip = valid;
    if (c == '"' || c == '\\')
        return (size_t)snprintf(esc, 8, "\\%c", c);
    if (c < 0x20)
        return (size_t)snprintf(esc, 8, "\\u%04x", c);
    return 0;
}

void json_out_string_n(json_out *o, const char *s, size_t n)
{
    json_out_raw(o, "\"", 1);
    size_t run = 0; /* bytes s[run..i) written as they are */
    for (size_t i = 0; i < n;) {
        char esc[8];
        size_t skip;
        const size_t len = escape_at(s, i, n, esc, &skip);
        if (len) {
            json_out_raw(o, s + run, i - run);
            json_out_raw(o, esc, len);
            run = i + skip;
        }
        i += skip;
    }
    json_out_raw(o, s + run, n - run);
    json_out_raw(o, "\"", 1);
}

void json_out_string(json_out *o, const char *s)
{
    json_out_string_n(o, s, strlen(s));
}

void json_out_float(json_out *o, float v)
{
    char text[TF_FLOAT_TEXT_MAX];
    if (isfinite(v))
        json_out_raw(o, text, tf__float_text(text, v));
    else
        json_out_str(o, "null");
}

void json_out_floats(json_out *o, const float *v, size_t n)
{
    json_out_raw(o, "[", 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            json_out_raw(o, ",", 1);
        json_out_float(o, v[i]);
    }
    json_out_raw(o, "]", 1);
}

void json_out_base64(json_out *o, const unsigned char *raw, size_t bytes)
{
    char quad[4]; /* 3 bytes' base64 at a time */
    json_out_raw(o, "\"", 1);
    for (size_t i = 0; i < bytes; i += 3) {
        tf__base64_encode(raw + i, bytes - i < 3 ? bytes - i : 3, quad);
        json_out_raw(o, quad, 4);
    }
    json_out_raw(o, "\"", 1);
}

void json_out_base64_floats(json_out *o, const float *v, size_t n)
{
    const size_t bytes = n * sizeof *v;
    unsigned char *raw = malloc(bytes ? bytes : 1); /* [bytes] little-endian float32 */
    if (!raw) {
        json_out_free(o);
        o->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        for (int k = 0; k < 4; k++)
            raw[4 * i + (size_t)k] = (unsigned char)(u >> (8 * k));
    }
    json_out_base64(o, raw, bytes);
    free(raw);
}

char *json_out_take(json_out *o, size_t *len)
{
    char *data = o->failed ? NULL : o->data;
    *len = o->failed ? 0 : o->len;
    *o = (json_out){0};
    return data;
}

void json_out_free(json_out *o)
{
    free(o->data);
    *o = (json_out){0};
}
