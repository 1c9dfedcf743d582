/* utf8.h — counting UTF-8 characters: every byte but a continuation byte
 * (10xxxxxx) starts one, so invalid UTF-8 is counted a byte at a time. */
#ifndef TF_UTF8_H
#define TF_UTF8_H

#include <stddef.h>

static inline int tf_utf8_is_continuation(unsigned char byte)
{
    return (byte & 0xC0) == 0x80;
}

/* Characters in the first `bytes` bytes of s. */
static inline size_t tf_utf8_count(const char *s, size_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
        n += !tf_utf8_is_continuation((unsigned char)s[i]);
    return n;
}

#endif
