/* json_stages.c — tokenizer.json's "normalizer", "pre_tokenizer" and
 * "decoder": each an object whose "type" finds its row in tokenizer/'s
 * table of that kind (normalizers/, pretokenizers/, decoders/), whose read
 * takes the object's fields through tf__fields (json_field_reads.c); or a
 * "Sequence" of them, nested ones flattened into the tokenizer's list. */
#include <string.h>

#include "error.h"
#include "json_fields.h"

#define TF_MAX_STAGES 64 /* of a kind, Sequences flattened */

/* A kind of stage list: the key of its Sequence's list, its table, the
 * tokenizer's list of it, and where a type this library lacks is kept
 * (refused when the stages run, not when loading; NULL: refused here). */
typedef struct stage_kind {
    const char *field;        /* its field of the file: "normalizer" */
    const char *sequence_key; /* "normalizers" */
    const tf__stage_type *(*find)(const char *type);
    tf__stages *(*list)(tf_tokenizer *tok);
    char *(*unsupported)(tf_tokenizer *tok); /* [TF_UNSUPPORTED_TYPE] */
} stage_kind;

static tf__stages *normalizers(tf_tokenizer *tok)
{
    return &tok->normalizers;
}
static tf__stages *pretokenizers(tf_tokenizer *tok)
{
    return &tok->pretokenizers;
}
static tf__stages *decoders(tf_tokenizer *tok)
{
    return &tok->decoders;
}
static char *unsupported_decoder(tf_tokenizer *tok)
{
    return tok->unsupported_decoder;
}

static const stage_kind kinds[] = {
    {"normalizer", "normalizers", tf__normalizer_find, normalizers, NULL},
    {"pre_tokenizer", "pretokenizers", tf__pretokenizer_find, pretokenizers, NULL},
    {"decoder", "decoders", tf__decoder_find, decoders, unsupported_decoder},
};

tf_status tf__json_sequence(const tf__json_loader *l, const cJSON *o, const char *field,
                            const char *key, int depth, tf__json_component_fn load, const void *arg)
{
    const cJSON *list = tf__field_item(o, key), *stage;
    char f[160];
    tf__field_name(f, sizeof f, "%s.%s", field, key);
    if (!cJSON_IsArray(list) || depth > 8)
        return tf__field_bad(l, f, "an array (Sequences nested at most 8 deep)");
    int k = 0;
    cJSON_ArrayForEach(stage, list)
    {
        tf__field_name(f, sizeof f, "%s.%s[%d]", field, key, k++);
        const tf_status s = load(l, stage, f, depth + 1, arg);
        if (s)
            return s;
    }
    return TF_OK;
}

/* The stage of kind `arg` at field (a Sequence's, inside depth of them). */
static tf_status load_stage(const tf__json_loader *l, const cJSON *o, const char *field, int depth,
                            const void *arg)
{
    const stage_kind *kind = arg;
    const char *type;
    tf_status s = tf__field_type(l, o, field, &type);
    if (s)
        return s;
    if (strcmp(type, "Sequence") == 0)
        return tf__json_sequence(l, o, field, kind->sequence_key, depth, load_stage, kind);
    const tf__stage_type *row = kind->find(type);
    if (!row && !kind->unsupported)
        return tf__field_unsupported(l, field, type);
    if (!row) { /* the first one is named when the stages run */
        char *unsupported = kind->unsupported(l->tok);
        if (!unsupported[0])
            tf__field_name(unsupported, TF_UNSUPPORTED_TYPE, "%s", type);
        return TF_OK;
    }
    tf__stages *list = kind->list(l->tok);
    if (list->n >= TF_MAX_STAGES)
        return tf__field_bad(l, field, "at most 64 stages");
    tf__stage *stage = tf__stages_add(list, row);
    if (!stage)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the stages", l->path);
    const tf__fields fields = tf__json_fields(l, o, field);
    return row->read ? row->read(stage->state, &fields) : TF_OK;
}

tf_status tf__json_stages_load(const tf__json_loader *l, const cJSON *root)
{
    tf_status s = TF_OK;
    for (size_t k = 0; s == TF_OK && k < sizeof kinds / sizeof kinds[0]; k++) {
        const cJSON *o = tf__field_item(root, kinds[k].field);
        if (!tf__field_absent(o))
            s = load_stage(l, o, kinds[k].field, 0, &kinds[k]);
    }
    return s;
}
