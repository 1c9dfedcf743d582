/* vocab.h — a tokenizer's vocabulary: tokens by id, ids by token (hash),
 * and a byte trie of them for longest-prefix matches. */
#ifndef TF_VOCAB_H
#define TF_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

#define TF_VOCAB_MAX_TOKENS (1 << 24)

typedef struct tf__vocab {
    char *text;        /* every token, NUL-terminated, back to back */
    size_t *offset;    /* [size] start of token i in text */
    uint32_t *length;  /* [size] bytes of token i */
    size_t max_length; /* of the longest token */
    int32_t size;
    int32_t *slots; /* [n_slots] open addressing: id, or -1 when empty */
    size_t n_slots; /* a power of two, at least twice size */
    /* A byte trie of every token, for longest-prefix matches. Node 0 is the
     * root; node k's children are edges first_edge[k] .. first_edge[k+1]-1
     * (edge_byte, edge_child); the root and "##" also have direct tables. */
    int32_t *node_id;         /* [n_nodes] the token ending at the node, or -1 */
    uint32_t *first_edge;     /* [n_nodes + 1] */
    unsigned char *edge_byte; /* [n_nodes - 1] */
    int32_t *edge_child;      /* [n_nodes - 1] */
    size_t n_nodes;
    int32_t continuation; /* the node of "##", or -1 */
    int32_t root_child[256], continuation_child[256];
} tf__vocab;

/* A vocabulary of `count` tokens from text (tf__malloc'd; the vocabulary
 * owns it from here, on failure too): each NUL-terminated, back to back,
 * in id order. `what` names it in messages. */
tf_status tf__vocab_from_tokens(tf__vocab *v, char *text, size_t count, const char *what);

/* tf__vocab_from_tokens in steps, for tokens laid out otherwise: begin
 * takes text (as there) and makes room for count tokens; add makes
 * text[start..end) the next id (at most count of them); finish indexes
 * them, a token added twice keeping its last id. Begin and finish destroy
 * v when they fail. */
tf_status tf__vocab_begin(tf__vocab *v, char *text, size_t count, const char *what);
void tf__vocab_add(tf__vocab *v, size_t start, size_t end);
tf_status tf__vocab_finish(tf__vocab *v, const char *what);

void tf__vocab_destroy(tf__vocab *v);

/* The id of the len bytes at token, or -1. */
int32_t tf__vocab_find(const tf__vocab *v, const char *token, size_t len);

/* The longest token that is a prefix of s[0..len) (after "##" when
 * continuation): its id and byte length, or -1. */
int32_t tf__vocab_longest_prefix(const tf__vocab *v, int continuation, const char *s, size_t len,
                                 size_t *match);

/* The trie node the edge `byte` leads to from `node` (0: the root), or -1;
 * node_id[] of it is the token that ends there, or -1. */
int32_t tf__vocab_child(const tf__vocab *v, int32_t node, unsigned char byte);

/* The ids of the byte tokens "<0x00>" .. "<0xFF>" (byte_fallback's), -1
 * where v has none. */
void tf__vocab_byte_tokens(const tf__vocab *v, int32_t byte_id[256]);

static inline const char *tf__vocab_token(const tf__vocab *v, int32_t id)
{
    return v->text + v->offset[id];
}

#endif
