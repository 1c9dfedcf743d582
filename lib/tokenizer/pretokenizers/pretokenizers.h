/* pretokenizers.h — tokenizers' pre-tokenizers: characters to pieces (a
 * piece starts at each character with word_start set), each piece of the
 * input split further. Each type is one file here defining one row of the
 * table in pretokenizers.c (stages.h says what a row is); split_pieces.c
 * is the split most of them are (tokenizers' NormalizedString::split). */
#ifndef TF_PRETOKENIZERS_H
#define TF_PRETOKENIZERS_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "regex.h"
#include "stages.h"
#include "tfenc.h"

/* A row of the table. */
typedef struct tf__pretokenizer_type {
    tf__stage_type stage; /* name, state, read, destroy */
    /* Appends the pieces of in split further to out (in's first character
     * starts a piece whatever its word_start); `what` names the text in
     * messages. */
    tf_status (*apply)(tf__chars *out, const tf__chars *in, const void *state, const char *what);
    /* Ends a piece at each whitespace character and drops it: a text may
     * be cut after any whitespace character and each cut pre-tokenized on
     * its own (tokenizer_run.c). */
    int whitespace_cuts;
} tf__pretokenizer_type;

/* The row named name (tokenizer.json's pre_tokenizer "type"), or NULL. */
const tf__stage_type *tf__pretokenizer_find(const char *name);

/* out = the pieces of in split further by the stage p (out is appended
 * to). */
tf_status tf__pre_tokenize(tf__chars *out, const tf__chars *in, const tf__stage *p,
                           const char *what);

/* Whether the stage p ends pieces at whitespace (tf__pretokenizer_type). */
int tf__pretokenizer_whitespace_cuts(const tf__stage *p);

/* TF_ERR_OUT_OF_MEMORY "<what>: cannot allocate". */
tf_status tf__pretokenizer_no_memory(const char *what);

/* ---- Splitting (split_pieces.c) --------------------------------------------------- */

/* What happens to a delimiter a pre-tokenizer finds (tokenizers'
 * SplitDelimiterBehavior). */
typedef enum tf__split_behavior {
    TF_SPLIT_REMOVED,
    TF_SPLIT_ISOLATED,
    TF_SPLIT_MERGED_WITH_PREVIOUS,
    TF_SPLIT_MERGED_WITH_NEXT,
    TF_SPLIT_CONTIGUOUS
} tf__split_behavior;

/* Where a split's delimiters are: the matches of pattern, or (pattern
 * NULL) each character of the class is_delimiter says. */
typedef struct tf__delimiters {
    const tf__regex *pattern;
    int (*is_delimiter)(int32_t cp);
} tf__delimiters;

/* Splits every piece of in once at its delimiters (with invert, the text
 * between them is the delimiters), as behavior says, into out. */
tf_status tf__split_pieces(tf__chars *out, const tf__chars *in, tf__delimiters d,
                           tf__split_behavior behavior, int invert, const char *what);

/* The field "behavior" (Removed, Isolated, MergedWithPrevious,
 * MergedWithNext, Contiguous; dflt when absent, null or ""). */
tf_status tf__split_behavior_read(const tf__fields *f, tf__split_behavior dflt,
                                  tf__split_behavior *out);

/* ---- What decoders share ---------------------------------------------------------- */

/* GPT-2's byte-to-character map (byte_level.c): the character byte b
 * becomes. */
int32_t tf__byte_level_char(unsigned char b);

/* Where Metaspace puts its replacement before a piece that does not start
 * with it (tokenizers' PrependScheme). */
typedef enum tf__prepend_scheme {
    TF_PREPEND_ALWAYS, /* before every piece */
    TF_PREPEND_FIRST,  /* before the piece that starts the text (its byte 0) */
    TF_PREPEND_NEVER
} tf__prepend_scheme;

/* Metaspace's fields (metaspace.c; its decoder's too): replacement (one
 * character), split, prepend_scheme ("always", "first", "never"; older
 * files: add_prefix_space true or false). */
typedef struct tf__metaspace {
    int32_t replacement; /* the character spaces become ("\u2581") */
    tf__prepend_scheme prepend_scheme;
    int32_t split; /* each replacement starts a piece */
} tf__metaspace;

tf_status tf__metaspace_read(tf__metaspace *m, const tf__fields *f);

#endif
