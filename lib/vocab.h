/* vocab.h — a WordPiece vocabulary: tokens by id, ids by token (hash). */
#ifndef TF_VOCAB_H
#define TF_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

typedef struct tf_vocab {
    char *text;          /* every token, NUL-terminated, back to back */
    size_t *offset;      /* [size] start of token i in text */
    uint32_t *length;    /* [size] bytes of token i */
    size_t max_length;   /* of the longest token */
    int32_t size;
    int32_t *slots;      /* [n_slots] open addressing: id, or -1 when empty */
    size_t n_slots;      /* a power of two, at least twice size */
} tf_vocab;

/* Reads vocab.txt: one token per line ("\n" or "\r\n"), id = line number;
 * a token listed twice keeps its last id, as BERT's loader does. */
tf_status tf_vocab_load(tf_vocab *v, const char *path);
void tf_vocab_destroy(tf_vocab *v);

/* The id of the len bytes at token, or -1. */
int32_t tf_vocab_find(const tf_vocab *v, const char *token, size_t len);

static inline const char *tf_vocab_token(const tf_vocab *v, int32_t id)
{
    return v->text + v->offset[id];
}

#endif
