/* json_fields.h — a tokenizer.json's fields, read and checked as every part
 * of its loader (json_tokenizer.c, json_model.c) reads them: a wrong type
 * or an absurd size is TF_ERR_FORMAT "<file>: <field>: expected <what>", a
 * component this library does not have TF_ERR_UNSUPPORTED "<file>:
 * <field>: type "<type>" is not supported". */
#ifndef TF_JSON_FIELDS_H
#define TF_JSON_FIELDS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"
#include "tokenizer.h"

/* A tokenizer.json being loaded: its path for messages, and the tokenizer
 * it fills. */
typedef struct tf__json_loader {
    const char *path;
    tf_tokenizer *tok;
} tf__json_loader;

/* A field's name for messages (cut at size - 1 bytes). */
void tf__field_name(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* TF_ERR_FORMAT "<file>: <field>: expected <expected>". */
tf_status tf__field_bad(const tf__json_loader *l, const char *field, const char *expected);
/* TF_ERR_UNSUPPORTED "<file>: <field>: type "<type>" is not supported". */
tf_status tf__field_unsupported(const tf__json_loader *l, const char *field, const char *type);

static inline const cJSON *tf__field_item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Whether a field is absent or null. */
static inline int tf__field_absent(const cJSON *v)
{
    return !v || cJSON_IsNull(v);
}

/* Whether v is a number that is an integer in [lo, hi]. */
int tf__field_int_in(const cJSON *v, double lo, double hi);

/* A string field ("" when absent or null and optional). */
tf_status tf__field_string(const tf__json_loader *l, const cJSON *o, const char *key,
                           const char *field, int optional, const char **out);
/* A boolean field (dflt when absent or null). */
tf_status tf__field_bool(const tf__json_loader *l, const cJSON *o, const char *key,
                         const char *field, int32_t dflt, int32_t *out);
/* An integer field v in [lo, hi] (dflt when absent or null). */
tf_status tf__field_int(const tf__json_loader *l, const cJSON *v, const char *field, double lo,
                        double hi, int32_t dflt, int32_t *out);
/* The "type" of a component object o at field. */
tf_status tf__field_type(const tf__json_loader *l, const cJSON *o, const char *field,
                         const char **type);

/* The reads of tokenizer/component_fields.h over object, named `name` in
 * messages ("model", "normalizer.normalizers[2]"; json_field_reads.c). */
tf__fields tf__json_fields(const tf__json_loader *l, const cJSON *object, const char *name);

/* The "model" object (json_model.c): its "type" names the tokenizer model
 * (tokenizer/models/), whose build reads the vocabulary and the rest. */
tf_status tf__json_model_load(const tf__json_loader *l, const cJSON *model);

/* The root's "normalizer", "pre_tokenizer" and "decoder" (json_stages.c):
 * each "type" names a row of tokenizer/'s normalizers/, pretokenizers/ or
 * decoders/, whose read reads the rest. */
tf_status tf__json_stages_load(const tf__json_loader *l, const cJSON *root);

/* The root's "post_processor" (json_post_processor.c): its "type" names a
 * row of tokenizer/post_processors/, whose read reads the rest and makes
 * the tokenizer's templates. */
tf_status tf__json_post_processor_load(const tf__json_loader *l, const cJSON *post_processor);

/* Loads into tok the tokenizer.json already parsed into root, named `what`
 * in messages: how the readers of files that carry no tokenizer.json
 * (clip_files.c, siglip_files.c) assemble what transformers' converter
 * (convert_slow_tokenizer.py) would write. */
tf_status tf__tokenizer_json_load_root(tf_tokenizer *tok, const cJSON *root, const char *what,
                                       const tf_tokenizer_options *o);

/* A component (a stage, a post-processor) o at field, inside depth
 * Sequences; arg is the caller's. */
typedef tf_status (*tf__json_component_fn)(const tf__json_loader *l, const cJSON *o,
                                           const char *field, int depth, const void *arg);

/* The components of a {"type": "Sequence", key: [...]} o at field, each
 * loaded by load in order (so nested Sequences are flattened); nested at
 * most 8 deep. */
tf_status tf__json_sequence(const tf__json_loader *l, const cJSON *o, const char *field,
                            const char *key, int depth, tf__json_component_fn load,
                            const void *arg);

#endif
