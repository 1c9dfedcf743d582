/* component_fields.h — how a component of a tokenizer (a tokenizer model,
 * a normalizer, a pre-tokenizer, a decoder, a post-processor) reads the
 * fields of the object
 * that configures it, without seeing the file: formats/tokenizer/
 * json_field_reads.c implements these reads over a parsed tokenizer.json. Each
 * read checks its field's type and range as tokenizers' serde does; a
 * field of the wrong type or out of range is TF_ERR_FORMAT "<file>:
 * <name>.<key>: expected <what>", name being the object's place in the file
 * ("model", "normalizer.normalizers[2]"). A key may name an element
 * ("merges[3]") where only a message names it. */
#ifndef TF_COMPONENT_FIELDS_H
#define TF_COMPONENT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "regex.h"
#include "tfenc.h"
#include "vocab.h"

/* Bytes of what a component names in messages about what a field makes (a
 * regex, a charsmap): "<file>: <name>.<key>". */
#define TF_FIELD_WHERE 512
/* Bytes of the name of a field inside an object, for messages: "<name>.<key>",
 * "<name>[k]" (an array's element k), "<name>["<key>"]" (an object's entry,
 * its key cut to 48 bytes). */
#define TF_FIELD_NAME 320
/* Bytes of what a field holds, told in a message (field's got). */
#define TF_FIELD_GOT 96

typedef struct tf__fields tf__fields;

/* What a field is. */
typedef enum tf__field_kind {
    TF_FIELD_ABSENT,
    TF_FIELD_NULL,
    TF_FIELD_BOOL,
    TF_FIELD_NUMBER,
    TF_FIELD_STRING,
    TF_FIELD_ARRAY,
    TF_FIELD_OBJECT,
} tf__field_kind;

/* Called for each element of an array (key NULL) or entry of an object (its
 * key), the element read as fields of its own (key NULL reads it). */
typedef tf_status (*tf__field_fn)(void *arg, const char *key, const tf__fields *element);

/* Called for merge k of a merges list: its first token left[0..left_len)
 * and its second, right (NUL-terminated). */
typedef tf_status (*tf__merge_fn)(void *arg, int32_t k, const char *left, size_t left_len,
                                  const char *right);

struct tf__fields {
    const char *file;   /* the file, for a component's own messages */
    const char *name;   /* the object's place in the file, for messages */
    const void *object; /* the object, as the reader holds it */
    /* TF_ERR_FORMAT "<file>: <name>.<key>: expected <what>". */
    tf_status (*expected)(const tf__fields *f, const char *key, const char *what);
    /* "<file>: <name>.<key>" (key NULL: "<file>: <name>") into where
     * [TF_FIELD_WHERE]: the name of what the field makes, for messages. */
    void (*where)(const tf__fields *f, const char *key, char *where);
    /* A number: 1 (into *out), 0 when absent or null, -1 when something else. */
    int (*number)(const tf__fields *f, const char *key, double *out);
    /* A string (pointing into the object); NULL when absent or null and
     * optional. */
    tf_status (*string)(const tf__fields *f, const char *key, int optional, const char **out);
    /* A string as characters into *out (zeroed; tf__free its v, on failure
     * too), each spanning no bytes of a text (tf__chars_decode's). */
    tf_status (*chars)(const tf__fields *f, const char *key, tf__chars *out);
    /* The id in v of the token a string names: -1 when absent, null or "",
     * else a token of v or TF_ERR_FORMAT "<file>: <name>.<key>: "<token>"
     * is not in the vocabulary" (WordPiece's and BPE's unk_token). */
    tf_status (*token)(const tf__fields *f, const char *key, const tf__vocab *v, int32_t *id);
    /* A boolean; dflt when absent or null. */
    tf_status (*boolean)(const tf__fields *f, const char *key, int32_t dflt, int32_t *out);
    /* An integer in [lo, hi]; dflt when absent or null. */
    tf_status (*integer)(const tf__fields *f, const char *key, int32_t lo, int32_t hi, int32_t dflt,
                         int32_t *out);
    /* A pattern, {"String": s} (s as it is) or {"Regex": r}, compiled into
     * *re (tf__regex_free it, on failure too), named "<file>: <name>.<key>". */
    tf_status (*pattern)(const tf__fields *f, const char *key, tf__regex **re);
    /* An object of token -> id, the ids 0..n-1 each once (WordPiece's and
     * BPE's vocab), into *v (zeroed; tf__vocab_destroy it, on failure too). */
    tf_status (*token_ids)(const tf__fields *f, const char *key, tf__vocab *v);
    /* An array of [piece, score] (Unigram's vocab): the pieces by id into *v
     * (as token_ids), their scores into *scores ([v->size], tf__free it, on
     * failure too). */
    tf_status (*scored_pieces)(const tf__fields *f, const char *key, tf__vocab *v, double **scores);
    /* The elements of an array, or -1 when it is no array. */
    int (*array_size)(const tf__fields *f, const char *key);
    /* An array of merges, each "a b" or ["a", "b"] (BPE's merges), handed
     * to each in order; the first failure stops it. */
    tf_status (*merges)(const tf__fields *f, const char *key, tf__merge_fn each, void *arg);

    /* The reads below take key NULL for the object itself (a field read as
     * fields of its own: an element, a nested object), named "<name>". */

    /* What field key is. */
    tf__field_kind (*kind)(const tf__fields *f, const char *key);
    /* A string (pointing into the object), or NULL when it is not one. */
    const char *(*text)(const tf__fields *f, const char *key);
    /* An id or a type id (tokenizers' u32, held in an int32_t): an integer
     * in 0..INT32_MAX, or got's TF_ERR_FORMAT. */
    tf_status (*id)(const tf__fields *f, const char *key, int32_t *out);
    /* TF_ERR_FORMAT "<file>: <name>.<key>: expected <what>, got <value>",
     * the value as JSON text (or what it is, when that is long), "nothing"
     * when absent: what tokenizers' serde says of a field it cannot read. */
    tf_status (*got)(const tf__fields *f, const char *key, const char *what);
    /* What got says of field key into got[TF_FIELD_GOT]. */
    void (*describe)(const tf__fields *f, const char *key, char *got);
    /* "<name>.<key>" into name[TF_FIELD_NAME]. */
    void (*place)(const tf__fields *f, const char *key, char *name);
    /* Field key (absent or not) as fields of its own into *sub, named
     * "<name>.<key>" in name[TF_FIELD_NAME]. */
    void (*field)(const tf__fields *f, const char *key, char *name, tf__fields *sub);
    /* An object's entry key as fields of its own, named "<name>["<key>"]". */
    void (*entry)(const tf__fields *f, const char *key, char *name, tf__fields *sub);
    /* The elements of an array or entries of an object (none when it is
     * neither), each handed to each in order, named as field and entry name
     * them; the first failure stops it. */
    tf_status (*each)(const tf__fields *f, tf__field_fn each, void *arg);
};

#endif
