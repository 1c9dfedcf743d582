/* stages.h — the stages of a tokenizer between the added tokens and the
 * tokenizer model, as Hugging Face's tokenizers defines them: normalizers
 * (characters to characters) and pre-tokenizers (characters to pieces: a
 * piece starts at each character with word_start set). A Sequence is a list
 * of stages. */
#ifndef TF_STAGES_H
#define TF_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "precompiled.h"
#include "regex.h"
#include "tfenc.h"

typedef enum tf_normalizer_kind {
    TF_NORMALIZER_BERT,          /* BertNormalizer */
    TF_NORMALIZER_NFC,
    TF_NORMALIZER_NFD,
    TF_NORMALIZER_NFKC,
    TF_NORMALIZER_NFKD,
    TF_NORMALIZER_LOWERCASE,
    TF_NORMALIZER_STRIP_ACCENTS, /* marks (M*) removed */
    TF_NORMALIZER_STRIP,         /* whitespace removed at the left and/or right */
    TF_NORMALIZER_REPLACE,       /* each match of `pattern` becomes `content` */
    TF_NORMALIZER_PREPEND,       /* `content` before a non-empty text */
    TF_NORMALIZER_PRECOMPILED    /* SentencePiece's charsmap */
} tf_normalizer_kind;

typedef struct tf_normalizer {
    tf_normalizer_kind kind;
    /* BertNormalizer */
    int32_t clean_text, handle_chinese_chars, strip_accents, lowercase;
    int32_t left, right;   /* Strip */
    tf_regex *pattern;     /* Replace */
    tf_chars content;      /* Replace, Prepend: the text put in (empty spans) */
    tf_precompiled charsmap; /* Precompiled */
} tf_normalizer;

/* out = in normalised by n (out is appended to; in is not changed). */
tf_status tf_normalize(tf_chars *out, const tf_chars *in, const tf_normalizer *n,
                       const char *what);
void tf_normalizer_clear(tf_normalizer *n);

/* What happens to a delimiter a pre-tokenizer finds (tokenizers'
 * SplitDelimiterBehavior). */
typedef enum tf_split_behavior {
    TF_SPLIT_REMOVED,
    TF_SPLIT_ISOLATED,
    TF_SPLIT_MERGED_WITH_PREVIOUS,
    TF_SPLIT_MERGED_WITH_NEXT,
    TF_SPLIT_CONTIGUOUS
} tf_split_behavior;

typedef enum tf_pretokenizer_kind {
    TF_PRE_BERT,             /* whitespace removed, punctuation isolated */
    TF_PRE_BYTE_LEVEL,       /* GPT-2's: optional prefix space and regex, bytes as characters */
    TF_PRE_WHITESPACE,       /* \w+|[^\w\s]+ kept */
    TF_PRE_WHITESPACE_SPLIT, /* whitespace removed */
    TF_PRE_PUNCTUATION,      /* punctuation, as `behavior` says */
    TF_PRE_DIGITS,           /* ASCII digits isolated, each or in runs */
    TF_PRE_SPLIT,            /* `pattern`'s matches (or the rest, invert), as `behavior` says */
    TF_PRE_METASPACE         /* ' ' made `replacement`, put before pieces, split before */
} tf_pretokenizer_kind;

/* Where Metaspace puts its replacement before a piece that does not start
 * with it (tokenizers' PrependScheme). */
typedef enum tf_prepend_scheme {
    TF_PREPEND_ALWAYS, /* before every piece */
    TF_PREPEND_FIRST,  /* before the piece that starts the text (its byte 0) */
    TF_PREPEND_NEVER
} tf_prepend_scheme;

typedef struct tf_pretokenizer {
    tf_pretokenizer_kind kind;
    tf_split_behavior behavior;
    int32_t invert;           /* Split */
    int32_t individual;       /* Digits: individual_digits */
    int32_t add_prefix_space; /* ByteLevel */
    tf_regex *pattern;        /* Split, Whitespace, ByteLevel's regex (NULL: use_regex false) */
    int32_t replacement;      /* Metaspace: the character spaces become ("\u2581") */
    tf_prepend_scheme prepend_scheme; /* Metaspace */
    int32_t split;            /* Metaspace: each replacement starts a piece */
} tf_pretokenizer;

/* out = the pieces of in split further by p (out is appended to); in's
 * first character starts a piece whatever its word_start. */
tf_status tf_pre_tokenize(tf_chars *out, const tf_chars *in, const tf_pretokenizer *p,
                          const char *what);
void tf_pretokenizer_clear(tf_pretokenizer *p);

/* GPT-2's byte-to-character map: the character byte b becomes. */
int32_t tf_byte_level_char(unsigned char b);

#endif
