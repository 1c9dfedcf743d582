/* utf8.h — UTF-8 at the byte level: counting characters (every byte but a
 * continuation byte, 10xxxxxx, starts one, so invalid UTF-8 is counted a
 * byte at a time), checking them, and cutting strings between them. */
#ifndef TF_UTF8_H
#define TF_UTF8_H

#include <stddef.h>
#include <string.h>

static inline int tf__utf8_is_continuation(unsigned char byte)
{
    return (byte & 0xC0) == 0x80;
}

/* Characters in the first `bytes` bytes of s. */
static inline size_t tf__utf8_count(const char *s, size_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
        n += !tf__utf8_is_continuation((unsigned char)s[i]);
    return n;
}

/* Bytes (1..4) of the valid UTF-8 character at the start of s[0..len):
 * shortest form, no surrogates, at most U+10FFFF; 0 when len is 0 or the
 * bytes there are not one. */
static inline size_t tf__utf8_valid_char(const unsigned char *s, size_t len)
{
    if (len == 0)
        return 0;
    const unsigned char c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (len < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (!tf__utf8_is_continuation(s[k]))
            return 0;
    return n;
}

/* Offset of the first byte of s[0..len) that does not start a valid UTF-8
 * character (tf__utf8_valid_char), or len. */
static inline size_t tf__utf8_invalid_at(const char *s, size_t len)
{
    size_t i = 0, n;
    while (i < len && (n = tf__utf8_valid_char((const unsigned char *)s + i, len - i)) > 0)
        i += n;
    return i;
}

/* How many bytes of the NUL-terminated s a message quotes when it quotes at
 * most max: all of s when shorter, else max less the bytes of a character
 * the cut would split. For "%.*s", so that a cut quote ends between two
 * characters: printf("%.*s", tf__utf8_prefix(s, 64), s). */
static inline int tf__utf8_prefix(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    if (n == max)
        while (n > 0 && tf__utf8_is_continuation((unsigned char)s[n]))
            n--;
    return (int)n;
}

#endif
