/* tokens.h — what a tokenizer makes of a text: tokens, each an id, a token
 * type and the bytes of the text it came from, in a growing list. */
#ifndef TF_TOKENS_H
#define TF_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* One token: its id, its token type and the bytes [begin, end) of the text
 * it came from (at most TF_TEXT_MAX_BYTES: 16 bytes a token). */
typedef struct tf__token {
    int32_t id;
    int32_t type_id;
    uint32_t begin, end;
} tf__token;

typedef struct tf__token_vec {
    tf__token *v; /* [n] of [cap] */
    size_t n, cap;
} tf__token_vec;

/* Appends a token of type 0; 0 when out of memory. */
int tf__token_push(tf__token_vec *t, int32_t id, uint32_t begin, uint32_t end);

/* TF_ERR_OUT_OF_MEMORY "<what>: cannot allocate the tokens". */
tf_status tf__tokens_no_memory(const char *what);

#endif
