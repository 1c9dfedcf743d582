/* decoders.h — tokens back to text, as tokenizers' decoders do it
 * (decoders/: each one maps the list of token strings to another list, a
 * Sequence chains them, and the last list is joined). Each type is one file
 * here defining one row of the table in decoders.c (stages.h says what a
 * row is); decoder_texts.c holds the lists of strings they map. */
#ifndef TF_DECODERS_H
#define TF_DECODERS_H

#include <stddef.h>
#include <stdint.h>

#include "stages.h"
#include "tfenc.h"

/* ---- Lists of strings (decoder_texts.c) ------------------------------------------ */

/* A growing NUL-terminated string. */
typedef struct tf__text {
    char *s; /* [cap], s[n] = '\0' */
    size_t n, cap;
} tf__text;

/* A list of token strings. */
typedef struct tf__texts {
    tf__text *v; /* [n] of [cap] */
    size_t n, cap;
} tf__texts;

/* Appends s[0..n) (a code point, s[0..n) with each invalid part of its
 * UTF-8 as U+FFFD as Rust's String::from_utf8_lossy); 0 when out of
 * memory. */
int tf__text_append(tf__text *t, const char *s, size_t n);
int tf__text_append_cp(tf__text *t, int32_t cp);
int tf__text_append_lossy(tf__text *t, const unsigned char *s, size_t n);
/* Appends s with every `from` made `to` (left to right, not overlapping);
 * 0 when out of memory. */
int tf__text_append_replaced(tf__text *t, const char *s, const char *from, const char *to);
/* The bytes of the longest prefix of s[0..n) that starts a valid UTF-8
 * sequence (the "maximal subpart" Rust's from_utf8_lossy replaces by one
 * U+FFFD), at least 1; *valid whether it is a whole character. */
size_t tf__utf8_prefix_bytes(const unsigned char *s, size_t n, int *valid);
/* A new empty string at the end of l, or NULL when out of memory. */
tf__text *tf__texts_more(tf__texts *l);
void tf__texts_free(tf__texts *l);

/* ---- The table ------------------------------------------------------------------- */

/* What a decoder may make: `most` bytes in all, of the tokens' `source`
 * bytes (TF_GROWTH_PER_BYTE per byte, and room for a few tokens). */
typedef struct tf__decode_bound {
    size_t most, source;
} tf__decode_bound;

/* A row of the table. */
typedef struct tf__decoder_type {
    tf__stage_type stage; /* name, state, read, destroy */
    /* out = the strings of in through the decoder: TF_OK, a bare
     * TF_ERR_OUT_OF_MEMORY (tf__decode_tokens names it), or a failure with
     * its message. */
    tf_status (*apply)(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound);
} tf__decoder_type;

/* The row named name (tokenizer.json's decoder "type"), or NULL. */
const tf__stage_type *tf__decoder_find(const char *name);

/* A string field of a decoder copied into *out (tf__malloc'd; tf__free it):
 * dflt when absent or null, required when dflt is NULL. */
tf_status tf__decoder_text(const tf__fields *f, const char *key, const char *dflt, char **out);

/* The strings tokens[0..n) (NUL-terminated) through the decoders d, joined
 * (with ' ' between them when d has none, as tokenizers does without a
 * decoder), into *out (tf__malloc'd, NUL-terminated) and *len. */
tf_status tf__decode_tokens(char **out, size_t *len, const char *const *tokens, size_t n,
                            const tf__stages *d);

#endif
