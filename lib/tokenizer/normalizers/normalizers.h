/* normalizers.h — tokenizers' normalizers: characters to characters, each
 * made character spanning the source bytes of what it was made from. Each
 * type is one file here defining one row of the table in normalizers.c
 * (stages.h says what a row is). */
#ifndef TF_NORMALIZERS_H
#define TF_NORMALIZERS_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "stages.h"
#include "tfenc.h"

/* A row of the table. */
typedef struct tf__normalizer_type {
    tf__stage_type stage; /* name, state, read, destroy */
    /* Appends in normalised to out (in is not changed); `what` names the
     * text in messages. Out of memory is TF_ERR_OUT_OF_MEMORY from
     * tf__normalizer_no_memory. */
    tf_status (*apply)(tf__chars *out, const tf__chars *in, const void *state, const char *what);
    /* Works a character at a time and keeps whitespace whitespace: a text
     * may be cut after any whitespace character and each cut normalised on
     * its own (tokenizer_run.c). */
    int per_char;
} tf__normalizer_type;

/* The row named name (tokenizer.json's normalizer "type"), or NULL. */
const tf__stage_type *tf__normalizer_find(const char *name);

/* out = in normalised by the stage n (out is appended to; in is not
 * changed); what a normalizer makes past its growth bound is refused. */
tf_status tf__normalize(tf__chars *out, const tf__chars *in, const tf__stage *n, const char *what);

/* Whether the stage n works a character at a time (tf__normalizer_type). */
int tf__normalizer_per_char(const tf__stage *n);

/* TF_ERR_OUT_OF_MEMORY "<what>: cannot allocate while normalising". */
tf_status tf__normalizer_no_memory(const char *what);

/* The most characters a normalizer may make of its input `in`:
 * TF_GROWTH_PER_BYTE per byte of the text they come from, or in's own
 * count if more (a normalizer that adds none is never refused); found the
 * first time a normalizer makes more than in's count. */
typedef struct tf__growth {
    const tf__chars *in;
    size_t most; /* 0 until found */
} tf__growth;

/* Whether `made` characters of g->in pass its bound. */
int tf__grows_past(tf__growth *g, size_t made);
/* The bytes of the text in's characters come from: from the first byte
 * any of them starts at to the last any ends at. */
size_t tf__source_bytes(const tf__chars *in);

/* Appends content's characters, each spanning [begin, end); 0 when out of
 * memory. */
int tf__chars_push_content(tf__chars *out, const tf__chars *content, int64_t begin, int64_t end);

#endif
