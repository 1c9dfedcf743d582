/* decoders.h — tokens back to text, as tokenizers' decoders do it
 * (decoders/: each one maps the list of token strings to another list,
 * Sequence chains them, and the last list is joined): ByteLevel, WordPiece,
 * Metaspace, BPEDecoder, Replace, ByteFallback, Fuse, Strip. */
#ifndef TF_DECODERS_H
#define TF_DECODERS_H

#include <stddef.h>
#include <stdint.h>

#include "regex.h"
#include "stages.h"
#include "tfenc.h"

typedef enum tf_decoder_kind {
    TF_DEC_BYTE_LEVEL,    /* GPT-2's characters back to bytes, all tokens as one text */
    TF_DEC_WORDPIECE,     /* `prefix` removed from continuations, others after a space */
    TF_DEC_METASPACE,     /* `replacement` made ' ' (dropped in the first token) */
    TF_DEC_BPE,           /* `suffix` made ' ' ("" in the last token) */
    TF_DEC_REPLACE,       /* each match of `pattern` made `content` */
    TF_DEC_BYTE_FALLBACK, /* runs of <0xXX> tokens made the text of their bytes */
    TF_DEC_FUSE,          /* every token one text */
    TF_DEC_STRIP          /* `start` leading and `stop` trailing `content` characters off */
} tf_decoder_kind;

typedef struct tf_decoder {
    tf_decoder_kind kind;
    char *text;                       /* prefix, suffix, Replace's content, Strip's content */
    int32_t cleanup;                  /* WordPiece: tokenizers' cleanup of spaces */
    int32_t replacement;              /* Metaspace */
    tf_prepend_scheme prepend_scheme; /* Metaspace */
    tf_regex *pattern;                /* Replace */
    int32_t start, stop;              /* Strip */
} tf_decoder;

void tf_decoder_clear(tf_decoder *d);

/* The strings tokens[0..n) (NUL-terminated) through the decoders d[0..m),
 * joined (with ' ' between them when m is 0, as tokenizers does without a
 * decoder), into *out (tf_malloc'd, NUL-terminated) and *len. */
tf_status tf_decode_tokens(char **out, size_t *len, const char *const *tokens, size_t n,
                           const tf_decoder *d, size_t m);

#endif
