/* tokenizer_models.h — tokenizer models: what makes tokens of one
 * pre-tokenized piece over a vocabulary, as tokenizers' models/ do
 * (WordPiece, BPE, Unigram). Each model is one file here defining one row of
 * the table in tokenizer_models.c: its name as tokenizer.json's model.type
 * writes it, how it is built from the fields of that "model" object, how it
 * encodes a piece and how its state is freed.
 *
 * A model never sees JSON or a file: it reads its fields through
 * tf_model_fields, which formats/tokenizer/json_model.c implements over the
 * parsed tokenizer.json. The vocabulary is the tokenizer's (tf_vocab): every
 * model has one and all look tokens up alike, so lookups are not a row's. */
#ifndef TF_TOKENIZER_MODELS_H
#define TF_TOKENIZER_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "tfenc.h"
#include "tokens.h"
#include "vocab.h"

typedef struct tf_model_fields tf_model_fields;

/* Called for merge k of a merges list: its first token left[0..left_len)
 * and its second, right (NUL-terminated). */
typedef tf_status (*tf_merge_fn)(void *arg, int32_t k, const char *left, size_t left_len,
                                 const char *right);

/* The fields of tokenizer.json's "model" object, each read by key and
 * checked: a field of the wrong type or out of range is TF_ERR_FORMAT
 * "<file>: model.<key>: expected <what>". A key may name an element
 * ("merges[3]") where only a message names it. */
struct tf_model_fields {
    const char *file;   /* the file, for a model's own messages */
    const void *object; /* the "model" object, as the reader holds it */
    /* TF_ERR_FORMAT "<file>: model.<key>: expected <what>". */
    tf_status (*expected)(const tf_model_fields *f, const char *key, const char *what);
    /* A number: 1 (into *out), 0 when absent or null, -1 when something else. */
    int (*number)(const tf_model_fields *f, const char *key, double *out);
    /* A string (pointing into the object); NULL when absent or null and
     * optional. */
    tf_status (*string)(const tf_model_fields *f, const char *key, int optional,
                        const char **out);
    /* The id in v of the token a string names: -1 when absent, null or "",
     * else a token of v or TF_ERR_FORMAT "<file>: model.<key>: "<token>"
     * is not in the vocabulary" (WordPiece's and BPE's unk_token). */
    tf_status (*token)(const tf_model_fields *f, const char *key, const tf_vocab *v, int32_t *id);
    /* A boolean; dflt when absent or null. */
    tf_status (*boolean)(const tf_model_fields *f, const char *key, int32_t dflt, int32_t *out);
    /* An integer in [lo, hi]; dflt when absent or null. */
    tf_status (*integer)(const tf_model_fields *f, const char *key, int32_t lo, int32_t hi,
                         int32_t dflt, int32_t *out);
    /* An object of token -> id, the ids 0..n-1 each once (WordPiece's and
     * BPE's vocab), into *v (zeroed; tf_vocab_destroy it, on failure too). */
    tf_status (*token_ids)(const tf_model_fields *f, const char *key, tf_vocab *v);
    /* An array of [piece, score] (Unigram's vocab): the pieces by id into *v
     * (as token_ids), their scores into *scores ([v->size], tf_free it, on
     * failure too). */
    tf_status (*scored_pieces)(const tf_model_fields *f, const char *key, tf_vocab *v,
                               double **scores);
    /* The elements of an array, or -1 when it is no array. */
    int (*array_size)(const tf_model_fields *f, const char *key);
    /* An array of merges, each "a b" or ["a", "b"] (BPE's merges), handed
     * to each in order; the first failure stops it. */
    tf_status (*merges)(const tf_model_fields *f, const char *key, tf_merge_fn each, void *arg);
};

/* A row of the table. */
typedef struct tf_tokenizer_model {
    const char *name;  /* model.type: "WordPiece", "BPE", "Unigram" */
    size_t state_size; /* bytes of the model's own state (its file's struct) */
    /* Reads the model's vocabulary into *vocab (zeroed) and its state into
     * state (state_size bytes, zeroed); both are left for tf_vocab_destroy
     * and destroy on failure too. */
    tf_status (*build)(void *state, tf_vocab *vocab, const tf_model_fields *f);
    /* Appends the tokens of the piece w[0..n) (n >= 1), each with the bytes
     * of the text it came from; `what` names the text in messages. */
    tf_status (*encode)(tf_token_vec *out, const void *state, const tf_vocab *vocab,
                        const tf_char *w, size_t n, const char *what);
    /* Frees what the state holds (not the state itself); NULL when it
     * holds nothing to free. */
    void (*destroy)(void *state);
} tf_tokenizer_model;

/* The row named name (model.type), or NULL. */
const tf_tokenizer_model *tf_tokenizer_model_find(const char *name);

#endif
