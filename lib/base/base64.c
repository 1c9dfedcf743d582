/* base64.c — RFC 4648 base64; see base64.h. */
#include "base64.h"

#include <stdint.h>

#include "alloc.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void tf__base64_encode(const unsigned char *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i += 3) {
        const size_t left = n - i;
        const uint32_t v = (uint32_t)in[i] << 16 | (left > 1 ? (uint32_t)in[i + 1] << 8 : 0) |
            (left > 2 ? in[i + 2] : 0);
        *out++ = alphabet[v >> 18 & 63];
        *out++ = alphabet[v >> 12 & 63];
        *out++ = left > 1 ? alphabet[v >> 6 & 63] : '=';
        *out++ = left > 2 ? alphabet[v & 63] : '=';
    }
}

/* The value of character c, or -1. */
static int value_of(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int tf__base64_decode(const char *text, size_t len, int padded, unsigned char **out, size_t *size,
                      size_t *bad_at)
{
    *out = NULL;
    size_t chars = len; /* without the padding */
    while (chars > 0 && len - chars < 2 && text[chars - 1] == '=')
        chars--;
    if (chars % 4 == 1 || (chars < len || padded ? len % 4 != 0 : 0))
        return TF__BASE64_LENGTH;
    unsigned char *bytes = tf__malloc(chars / 4 * 3 + 2); /* [size] */
    if (!bytes)
        return TF__BASE64_NO_MEMORY;
    uint32_t bits = 0;
    size_t n = 0;
    for (size_t k = 0; k < chars; k++) {
        const int v = value_of((unsigned char)text[k]);
        if (v < 0) {
            tf__free(bytes);
            *bad_at = k;
            return TF__BASE64_CHARACTER;
        }
        bits = bits << 6 | (uint32_t)v;
        if (k % 4 == 3)
            for (int shift = 16; shift >= 0; shift -= 8)
                bytes[n++] = (unsigned char)(bits >> shift);
    }
    if (chars % 4 == 2) /* 12 bits: one byte */
        bytes[n++] = (unsigned char)(bits >> 4);
    if (chars % 4 == 3) { /* 18 bits: two bytes */
        bytes[n++] = (unsigned char)(bits >> 10);
        bytes[n++] = (unsigned char)(bits >> 2);
    }
    *out = bytes;
    *size = n;
    return TF__BASE64_OK;
}
