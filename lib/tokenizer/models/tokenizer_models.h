/* tokenizer_models.h — tokenizer models: what makes tokens of one
 * pre-tokenized piece over a vocabulary, as tokenizers' models/ do
 * (WordPiece, BPE, Unigram). Each model is one file here defining one row of
 * the table in tokenizer_models.c: its name as tokenizer.json's model.type
 * writes it, how it is built from the fields of that "model" object, how it
 * encodes a piece and how its state is freed.
 *
 * A model never sees JSON or a file: it reads its fields through
 * tf__fields (component_fields.h), which formats/tokenizer/json_field_reads.c
 * implements over the parsed tokenizer.json. The vocabulary is the tokenizer's (tf__vocab): every
 * model has one and all look tokens up alike, so lookups are not a row's. */
#ifndef TF_TOKENIZER_MODELS_H
#define TF_TOKENIZER_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "component_fields.h"
#include "tfenc.h"
#include "tokens.h"
#include "vocab.h"

/* A row of the table. */
typedef struct tf__tokenizer_model {
    const char *name;  /* model.type: "WordPiece", "BPE", "Unigram" */
    size_t state_size; /* bytes of the model's own state (its file's struct) */
    /* Reads the model's vocabulary into *vocab (zeroed) and its state into
     * state (state_size bytes, zeroed); both are left for tf__vocab_destroy
     * and destroy on failure too. */
    tf_status (*build)(void *state, tf__vocab *vocab, const tf__fields *f);
    /* Appends the tokens of the piece w[0..n) (n >= 1), each with the bytes
     * of the text it came from; `what` names the text in messages. */
    tf_status (*encode)(tf__token_vec *out, const void *state, const tf__vocab *vocab,
                        const tf__char *w, size_t n, const char *what);
    /* Frees what the state holds (not the state itself); NULL when it
     * holds nothing to free. */
    void (*destroy)(void *state);
} tf__tokenizer_model;

/* The row named name (model.type), or NULL. */
const tf__tokenizer_model *tf__tokenizer_model_find(const char *name);

#endif
