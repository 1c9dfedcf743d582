/* post_processors.c — the one table of post-processors, and the fields
 * more than one of them reads.
 *
 * Adding a post-processor (say tokenizers' "Foo"):
 *  1. write post_processors/<type>.c, after tokenizers' processors/ (named
 *     at its top), defining `const tf__post_processor_type
 *     tf__<type>_processor` (post_processors.h says what each field is): a
 *     read that reads and checks every field tokenizers reads and makes the
 *     templates;
 *  2. add its line to TF_POST_PROCESSORS below and the file to
 *     tokenizer/meson.build;
 *  3. a fixture and the tests that read it (docs/adding.md).
 * Nothing else names a post-processor: tokenizer.json's "type" finds its
 * row here (a "Sequence" is a list of them), and encoding applies the
 * templates. */
#include "post_processors.h"

#include <string.h>

#define TF_POST_PROCESSORS(ROW) /* the table: a line per type, the row its file defines */ \
    ROW(tf__template_processor)                                                            \
    ROW(tf__bert_processor)                                                                \
    ROW(tf__roberta_processor)                                                             \
    ROW(tf__byte_level_processor)                                                          \
    /* (the table ends here) */

#define DECLARE_ROW(row) extern const tf__post_processor_type row;
TF_POST_PROCESSORS(DECLARE_ROW)
#define ROW_ADDRESS(row) &(row),
static const tf__post_processor_type *const processors[] = {TF_POST_PROCESSORS(ROW_ADDRESS)};
enum { N_PROCESSORS = sizeof processors / sizeof processors[0] };

const tf__post_processor_type *tf__post_processor_find(const char *name)
{
    for (int i = 0; i < N_PROCESSORS; i++)
        if (strcmp(processors[i]->name, name) == 0)
            return processors[i];
    return NULL;
}

tf_status tf__post_flag(const tf__fields *f, const char *key, int optional)
{
    const tf__field_kind kind = f->kind(f, key);
    if (kind == TF_FIELD_BOOL || (optional && kind == TF_FIELD_ABSENT))
        return TF_OK;
    return f->got(f, key, "true or false");
}

/* A [token, id] being read: the elements read, the id. */
typedef struct token_pair {
    int n;
    int32_t id;
} token_pair;

static tf_status token_pair_element(void *arg, const char *key, const tf__fields *element)
{
    (void)key;
    token_pair *p = arg;
    if (p->n++ == 0)
        return element->text(element, NULL) ? TF_OK : element->got(element, NULL, "a string");
    return element->id(element, NULL, &p->id);
}

tf_status tf__post_token_pair(const tf__fields *f, const char *key, int32_t *id)
{
    if (f->array_size(f, key) != 2)
        return f->got(f, key, "[token, id]");
    char name[TF_FIELD_NAME];
    tf__fields pair;
    f->field(f, key, name, &pair);
    token_pair read = {0, 0};
    const tf_status s = pair.each(&pair, token_pair_element, &read);
    *id = read.id;
    return s;
}
