/* spiece_model.h — SentencePiece's model file (spiece.model: a serialised
 * ModelProto of sentencepiece_model.proto), the fields a tokenizer needs of
 * it, read by a bounded reader of protobuf's wire format (spiece_model.c):
 *   ModelProto      pieces = 1 (repeated SentencePiece), trainer_spec = 2,
 *                   normalizer_spec = 3
 *   SentencePiece   piece = 1 (string), score = 2 (float), type = 3 (enum,
 *                   NORMAL 1 by default)
 *   TrainerSpec     model_type = 3 (UNIGRAM 1 by default), byte_fallback = 35,
 *                   treat_whitespace_as_suffix = 24, unk_id = 40 (0),
 *                   bos_id = 41 (1), eos_id = 42 (2), pad_id = 43 (-1)
 *   NormalizerSpec  name = 1, precompiled_charsmap = 2 (bytes),
 *                   add_dummy_prefix = 3, remove_extra_whitespaces = 4,
 *                   escape_whitespaces = 5 (each true by default)
 * Other fields are skipped. */
#ifndef TF_SPIECE_MODEL_H
#define TF_SPIECE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

#define TF_SPIECE_NAME 64 /* bytes kept of normalizer_spec.name, NUL included */

/* SentencePiece.Type. */
typedef enum tf__spiece_type {
    TF_SPIECE_NORMAL = 1,
    TF_SPIECE_UNKNOWN = 2,
    TF_SPIECE_CONTROL = 3,
    TF_SPIECE_USER_DEFINED = 4,
    TF_SPIECE_UNUSED = 5,
    TF_SPIECE_BYTE = 6,
} tf__spiece_type;

/* TrainerSpec.ModelType. */
typedef enum tf__spiece_model_type {
    TF_SPIECE_UNIGRAM = 1,
    TF_SPIECE_BPE = 2,
    TF_SPIECE_WORD = 3,
    TF_SPIECE_CHAR = 4,
} tf__spiece_model_type;

typedef struct tf__spiece_model {
    char *text;                             /* the pieces by id, each ended by a NUL */
    size_t *piece_at;                       /* [n_pieces] where each piece starts in text */
    float *score;                           /* [n_pieces] */
    int32_t *type;                          /* [n_pieces] tf__spiece_type */
    int32_t n_pieces;                       /* 1 .. TF_VOCAB_MAX_TOKENS */
    int32_t model_type;                     /* tf__spiece_model_type */
    int32_t unk_id, bos_id, eos_id, pad_id; /* -1 .. n_pieces - 1; -1: none */
    int32_t byte_fallback, treat_whitespace_as_suffix;
    char normalizer_name[TF_SPIECE_NAME];
    unsigned char *charsmap; /* [charsmap_len] precompiled_charsmap; NULL when empty */
    size_t charsmap_len;
    int32_t add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces;
} tf__spiece_model;

/* Reads the ModelProto of data[0..len) into *m (zeroed first;
 * tf__spiece_clear it, on failure too); `what` names the file in messages.
 * Every length is checked against its message: a malformed or hostile file
 * is TF_ERR_FORMAT "<what>: <field>: <why>" naming the field
 * ("pieces[12].piece", "trainer_spec.unk_id") and the byte offset; no
 * pieces, a piece that is empty, not UTF-8 or holds a NUL, a score that is
 * not finite, a type outside 1..6, an id outside the pieces are refused. */
tf_status tf__spiece_parse(tf__spiece_model *m, const unsigned char *data, size_t len,
                           const char *what);

void tf__spiece_clear(tf__spiece_model *m);

/* Piece k's text (NUL-terminated). */
static inline const char *tf__spiece_piece(const tf__spiece_model *m, int32_t k)
{
    return m->text + m->piece_at[k];
}

#endif
