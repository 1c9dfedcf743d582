/* model.h — the models that make ids of a pre-tokenized piece: WordPiece
 * (wordpiece.c), BPE (bpe.c) and Unigram (unigram.c). */
#ifndef TF_MODEL_H
#define TF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "tfenc.h"
#include "vocab.h"

/* One token: its id, its token type and the bytes [begin, end) of the text
 * it came from (at most TF_TEXT_MAX_BYTES: 16 bytes a token). */
typedef struct tf_token {
    int32_t id;
    int32_t type_id;
    uint32_t begin, end;
} tf_token;

typedef struct tf_token_vec {
    tf_token *v; /* [n] of [cap] */
    size_t n, cap;
} tf_token_vec;

/* Appends a token of type 0; 0 when out of memory. */
int tf_token_push(tf_token_vec *t, int32_t id, uint32_t begin, uint32_t end);

/* Greedy longest-match-first WordPiece pieces of the word w[0..n) ("##"
 * marks a continuation); the whole word is unk_id when longer than
 * max_chars characters or when some part matches nothing. 0 when out of
 * memory. */
int tf_wordpiece(tf_token_vec *out, const tf_vocab *v, int32_t unk_id, int32_t max_chars,
                 const tf_char *w, size_t n);

/* BPE (tokenizers' models::bpe): merges by rank over a vocabulary. */
typedef struct tf_bpe {
    uint64_t *keys;     /* [n_slots] left id << 32 | right id, UINT64_MAX: empty */
    int32_t *rank;      /* [n_slots] the merge's place in the list */
    int32_t *merged;    /* [n_slots] the id of left + right */
    size_t n_slots;     /* a power of two, at least twice the merges */
    int32_t unk_id;     /* -1: unknown characters are dropped, as tokenizers does */
    int32_t fuse_unk, byte_fallback, ignore_merges;
    char prefix[64];    /* continuing_subword_prefix, "" for none */
    char suffix[64];    /* end_of_word_suffix, "" for none */
    int32_t byte_id[256]; /* the ids of "<0x00>" .. "<0xFF>" (byte_fallback), -1 */
} tf_bpe;

/* Room for n merges; 0 when out of memory. */
int tf_bpe_reserve(tf_bpe *b, size_t n);
/* Adds merge `rank` (left + right = merged); a pair listed again takes
 * the later rank, as tokenizers' map does. */
void tf_bpe_add_merge(tf_bpe *b, int32_t left, int32_t right, int32_t rank, int32_t merged);
void tf_bpe_destroy(tf_bpe *b);

/* The BPE tokens of the word w[0..n); 0 when out of memory. */
int tf_bpe_word(tf_token_vec *out, const tf_bpe *b, const tf_vocab *v, const tf_char *w,
                size_t n);

/* Unigram (tokenizers' models::unigram): scored pieces, the best path. */
typedef struct tf_unigram {
    double *score;        /* [vocabulary size] each piece's log probability */
    double unk_score;     /* the lowest score less 10 (tokenizers' K_UNK_PENALTY) */
    int32_t unk_id;       /* -1: none (a character no piece has is an error) */
    int32_t byte_fallback;
    int32_t byte_id[256]; /* the ids of "<0x00>" .. "<0xFF>" (byte_fallback), -1 */
} tf_unigram;

/* The Unigram tokens of the word w[0..n) (v's trie holds every piece, each
 * once): 1, 0 when out of memory, -1 when a character is no piece and
 * unk_id is -1. */
int tf_unigram_word(tf_token_vec *out, const tf_unigram *u, const tf_vocab *v, const tf_char *w,
                    size_t n);
void tf_unigram_destroy(tf_unigram *u);

#endif
