/* added_tokens.h — tokenizer.json's added tokens (special or not), found in
 * the text before anything else: those with normalized false in the text as
 * written, the others in the normalised text (their content normalised the
 * same way). The leftmost match wins, the longest of those starting there. */
#ifndef TF_ADDED_TOKENS_H
#define TF_ADDED_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"

typedef struct tf__added_token {
    char *content;   /* NUL-terminated, as written in the file */
    tf__chars chars; /* the content's characters (normalised when normalized) */
    int32_t id;
    int32_t special, single_word, lstrip, rstrip, normalized;
} tf__added_token;

/* A token's first code point, to find the tokens that may start at a
 * character. */
typedef struct tf__added_first {
    int32_t cp;
    size_t token; /* its index */
} tf__added_first;

typedef struct tf__added_tokens {
    tf__added_token *v; /* [n] */
    size_t n;
    tf__added_first *by_first; /* [n_first] by cp, then index (tf__added_index) */
    size_t n_first;
} tf__added_tokens;

/* Builds by_first once the tokens are in; 0 when out of memory. */
int tf__added_index(tf__added_tokens *a);

/* A part of some characters: [begin, end) of them, and the added token it
 * is (an index into the tokens), or -1 for text. */
typedef struct tf__text_part {
    size_t begin, end;
    int32_t token;
} tf__text_part;

typedef struct tf__text_parts {
    tf__text_part *v; /* [n] of [cap] */
    size_t n, cap;
} tf__text_parts;

/* Appends to parts the split of c[0..n) by the added tokens whose
 * normalized flag is `normalized`. 0 when out of memory. */
int tf__added_split(tf__text_parts *parts, const tf__added_tokens *a, int normalized,
                    const tf__char *c, size_t n);

/* The added token of id, or NULL. */
const tf__added_token *tf__added_find_id(const tf__added_tokens *a, int32_t id);
/* The added token whose content is token[0..len), or NULL. */
const tf__added_token *tf__added_find(const tf__added_tokens *a, const char *token, size_t len);

void tf__added_tokens_destroy(tf__added_tokens *a);

#endif
