/* json_post_processor.c — tokenizer.json's "post_processor": an object whose
 * "type" finds its row in tokenizer/post_processors/'s table, whose read
 * takes the object's fields through tf__fields (json_field_reads.c) and
 * makes the tokenizer's templates; or a "Sequence" of them ("processors"),
 * nested ones walked in order, of which at most one may add special
 * tokens. None: the templates stay $A and $A $B:1. */
#include <string.h>

#include "error.h"
#include "json.h"
#include "json_fields.h"
#include "post_processors/post_processors.h"

enum { POST_FIELD = 256 }; /* bytes of a processor's name: Sequences 8 deep */

/* TF_ERR_FORMAT: field holds v (NULL: is absent) where tokenizers reads `expected`. */
static tf_status bad_value(const tf__json_loader *l, const char *field, const char *expected,
                           const cJSON *v)
{
    char got[TF_FIELD_GOT] = "nothing";
    if (v)
        tf__json_describe(v, got, sizeof got);
    return tf__fail(TF_ERR_FORMAT, "%s: %s: expected %s, got %s", l->path, field, expected, got);
}

/* $A and $A $B:1, what a file without a template gives. */
static tf_status plain_template(const tf__json_loader *l)
{
    tf__template_destroy(&l->tok->single);
    tf__template_destroy(&l->tok->pair);
    return tf__template_add(&l->tok->single, 0, 0, NULL, 0) &&
            tf__template_add(&l->tok->pair, 0, 0, NULL, 0) &&
            tf__template_add(&l->tok->pair, 1, 1, NULL, 0)
        ? TF_OK
        : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", l->path);
}

/* The names of the first two processors of the loaded post-processor o (field) that add
 * special tokens, Sequences walked in order, into adders from *n on. */
static void find_adders(const cJSON *o, const char *field, char adders[2][POST_FIELD], int *n)
{
    const char *type = tf__field_item(o, "type")->valuestring;
    if (strcmp(type, "Sequence") == 0) {
        const cJSON *p;
        int k = 0;
        cJSON_ArrayForEach(p, tf__field_item(o, "processors"))
        {
            char f[POST_FIELD];
            tf__field_name(f, sizeof f, "%s.processors[%d]", field, k++);
            find_adders(p, f, adders, n);
        }
    } else if (tf__post_processor_find(type)->adds_tokens && *n < 2) {
        tf__field_name(adders[(*n)++], POST_FIELD, "%s", field);
    }
}

/* The post-processor o at field, inside depth Sequences. */
static tf_status load_post_processor(const tf__json_loader *l, const cJSON *o, const char *field,
                                     int depth, const void *arg)
{
    if (tf__field_absent(o) && depth == 0) /* none */
        return TF_OK;
    char f[POST_FIELD];
    tf__field_name(f, sizeof f, "%s.type", field);
    if (!cJSON_IsObject(o))
        return bad_value(l, field, "an object with a \"type\"", o);
    if (!cJSON_IsString(tf__field_item(o, "type")))
        return bad_value(l, f, "a string", tf__field_item(o, "type"));
    const char *type = tf__field_item(o, "type")->valuestring;
    if (strcmp(type, "Sequence") != 0) {
        const tf__post_processor_type *row = tf__post_processor_find(type);
        if (!row)
            return tf__field_unsupported(l, field, type);
        const tf__fields fields = tf__json_fields(l, o, field);
        return row->read(&l->tok->single, &l->tok->pair, &fields);
    }
    tf_status s = tf__json_sequence(l, o, field, "processors", depth, load_post_processor, arg);
    char adders[2][POST_FIELD];
    int n = 0;
    if (s == TF_OK && depth == 0)
        find_adders(o, field, adders, &n);
    if (n == 2) /* tokenizers runs each on the one before's output: [CLS] [CLS] a [SEP] [SEP] */
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: %s: a second processor that adds special tokens "
                        "(after %s) is not supported",
                        l->path, adders[1], adders[0]);
    return s;
}

tf_status tf__json_post_processor_load(const tf__json_loader *l, const cJSON *post_processor)
{
    const tf_status s = plain_template(l);
    return s ? s : load_post_processor(l, post_processor, "post_processor", 0, NULL);
}
