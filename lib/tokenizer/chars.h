/* chars.h — text as the tokenizer's stages see it: code points, each with
 * the bytes [begin, end) of the original text it came from (empty for a
 * character a stage inserted), and the Unicode classes the stages ask about. */
#ifndef TF_CHARS_H
#define TF_CHARS_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* The most bytes a text (or a pair's second text) may have: a character's
 * source bytes are 32-bit offsets, which keeps a character at 16 bytes (a
 * stage's array holds one per character of the whole text). */
#define TF_TEXT_MAX_BYTES ((size_t)UINT32_MAX)

typedef struct tf__char {
    int32_t cp;
    int32_t word_start;  /* 1: the first character of a pre-tokenized piece */
    uint32_t begin, end; /* bytes [begin, end) of the text, begin <= end <= TF_TEXT_MAX_BYTES */
} tf__char;

typedef struct tf__chars {
    tf__char *v; /* [n] of [cap] */
    size_t n, cap;
} tf__chars;

/* The array v of n elements of `size` bytes (capacity *cap) with room for
 * one more: v itself, or v moved to 1.5 times the capacity (first `initial`);
 * NULL when out of memory, with v and *cap unchanged. */
void *tf__reserve_one(void *v, size_t *cap, size_t n, size_t size, size_t initial);

/* Room for at least `n` characters in c (its contents kept); 0 when out of
 * memory, with c unchanged. */
int tf__chars_reserve(tf__chars *c, size_t n);

/* Room in out for what a stage makes of in: in's characters and a
 * sixteenth more (what normalizers and pre-tokenizers make, a few
 * inserted ones included; more grows the array), so that a stage's
 * output of a long text is not twice its size. 0 when out of memory. */
int tf__chars_reserve_output(tf__chars *out, const tf__chars *in);

/* Appends a character (word_start 0); 0 when out of memory. Inline: the
 * stages call it once per character. */
static inline int tf__chars_push(tf__chars *c, int32_t cp, int64_t begin, int64_t end)
{
    if (c->n == c->cap && !tf__chars_reserve(c, c->n + 1))
        return 0;
    c->v[c->n++] = (tf__char){cp, 0, begin, end};
    return 1;
}

/* The bytes of code point cp (a Unicode scalar value) in UTF-8. */
static inline size_t tf__utf8_length(int32_t cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* text[0..len) (at byte `base` of the original) as characters; invalid
 * UTF-8 is TF_ERR_INVALID_ARGUMENT naming `what` and the byte. */
tf_status tf__chars_decode(tf__chars *out, const char *text, size_t len, int64_t base,
                           const char *what);

/* c[0..n) as UTF-8 into *buf (grown with tf__realloc, capacity *cap), and
 * at[k] the byte offset of character k (at[n] the length) when at is not
 * NULL (room for n + 1). Returns the byte length, or SIZE_MAX when out of
 * memory. */
size_t tf__chars_utf8(const tf__char *c, size_t n, char **buf, size_t *cap, size_t *at);

/* The character whose UTF-8 starts at byte b of tf__chars_utf8's text, by
 * binary search of its at[] ([n + 1], ascending). */
size_t tf__char_at_byte(const size_t *at, size_t n, size_t b);

/* Unicode's White_Space (Rust's char::is_whitespace). */
int tf__is_whitespace(int32_t cp);
/* BERT's control characters: Cc, Cf, Cs, Co but tab, newline, return. */
int tf__is_control(int32_t cp);
/* ASCII symbols and Unicode P* (as tokenizers' tables have them). */
int tf__is_punctuation(int32_t cp);
/* A nonspacing mark Mn (tokenizers' tables). */
int tf__is_nonspacing_mark(int32_t cp);
/* The CJK ideograph ranges BertNormalizer splits off. */
int tf__is_cjk(int32_t cp);
/* Appends the lower case of cp as Rust's char::to_lowercase gives it. */
int tf__chars_push_lower(tf__chars *out, int32_t cp, int64_t begin, int64_t end);

#endif
