/* base64.h — RFC 4648 base64 (section 4: the standard alphabet, '='
 * padding): a precompiled charsmap in tokenizer.json, the server's
 * encoding_format "base64" and image data URIs, a page's PNG images. */
#ifndef TF_BASE64_H
#define TF_BASE64_H

#include <stddef.h>

/* The characters n bytes encode to: 4 for every 3 bytes or part of 3. */
static inline size_t tf__base64_length(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* out[0..tf__base64_length(n)) = the base64 of in[0..n), '=' padded; no
 * NUL is written. */
void tf__base64_encode(const unsigned char *in, size_t n, char *out);

typedef enum tf__base64_result {
    TF__BASE64_OK = 0,
    TF__BASE64_LENGTH = -1,    /* a length no bytes encode (padding required: not 4k) */
    TF__BASE64_CHARACTER = -2, /* *bad_at is the first byte outside the alphabet */
    TF__BASE64_NO_MEMORY = -3
} tf__base64_result;

/* The bytes of text[0..len) into *out (tf__malloc'ed; tf__free it) and
 * *size: '=' padding (at most two, at the end) required when padded, else
 * optional. On failure *out is NULL. */
int tf__base64_decode(const char *text, size_t len, int padded, unsigned char **out, size_t *size,
                      size_t *bad_at);

#endif
