/* template_processing.c — tokenizers' TemplateProcessing
 * (processors/template.rs): a template for a text ("single") and one for a
 * pair, each a list of pieces, and the special tokens they name. */
#include <string.h>

#include "error.h"
#include "post_processors.h"
#include "utf8.h"

#define TF_MAX_TEMPLATE 64 /* items of a template, ids of a special token */

/* A SpecialToken e of special_tokens: {"id": string, "ids": [u32], "tokens": [string]}, ids
 * and tokens as long (tokenizers' SpecialToken::new); its ids into ids[TF_MAX_TEMPLATE] and
 * *n. */
typedef struct special_ids {
    int32_t *ids; /* [TF_MAX_TEMPLATE] */
    int n;
} special_ids;

static tf_status read_id(void *arg, const char *key, const tf__fields *element)
{
    (void)key;
    special_ids *l = arg;
    const tf_status s = element->id(element, NULL, &l->ids[l->n]);
    l->n += s == TF_OK;
    return s;
}

static tf_status check_token(void *arg, const char *key, const tf__fields *element)
{
    (void)key;
    ++*(int *)arg;
    return element->text(element, NULL) ? TF_OK : element->got(element, NULL, "a string");
}

static tf_status special_token(const tf__fields *e, int32_t *ids, int *n)
{
    if (e->kind(e, NULL) != TF_FIELD_OBJECT)
        return e->got(e, NULL, "an object {\"id\", \"ids\", \"tokens\"}");
    if (!e->text(e, "id"))
        return e->got(e, "id", "a string");
    const int n_ids = e->array_size(e, "ids");
    if (n_ids < 0 || n_ids > TF_MAX_TEMPLATE)
        return e->got(e, "ids", "an array of at most 64 ids");
    char name[TF_FIELD_NAME];
    tf__fields list;
    e->field(e, "ids", name, &list);
    special_ids read = {ids, 0};
    tf_status s = list.each(&list, read_id, &read);
    *n = read.n;
    if (s)
        return s;
    if (e->kind(e, "tokens") != TF_FIELD_ARRAY)
        return e->got(e, "tokens", "an array of strings");
    int n_tokens = 0;
    e->field(e, "tokens", name, &list);
    if ((s = list.each(&list, check_token, &n_tokens)) != TF_OK)
        return s;
    if (n_tokens != *n)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: %s: ids and tokens must be of the same length, got "
                        "%d id%s and %d token%s",
                        e->file, e->name, *n, *n == 1 ? "" : "s", n_tokens,
                        n_tokens == 1 ? "" : "s");
    return TF_OK;
}

static tf_status check_special_token(void *arg, const char *key, const tf__fields *entry)
{
    (void)arg, (void)key;
    int32_t ids[TF_MAX_TEMPLATE];
    int n;
    return special_token(entry, ids, &n);
}

/* The one entry of a piece: its key and how many the piece has. */
typedef struct piece_body {
    const char *key;
    int n;
} piece_body;

static tf_status count_entry(void *arg, const char *key, const tf__fields *entry)
{
    (void)entry;
    piece_body *b = arg;
    b->key = b->n++ ? b->key : key;
    return TF_OK;
}

/* A template being read: special_tokens and the template the pieces go to. */
typedef struct template_reading {
    const tf__fields *specials;
    tf__template *t;
} template_reading;

/* A piece of single or pair, as serde writes tokenizers' Piece: {"Sequence": {"id": "A" or
 * "B", "type_id": u32}} or {"SpecialToken": {"id": a key of special_tokens, "type_id": u32}}
 * (the strings "$A", "[CLS]:0" are its builder's, not a file's); appended to the template. */
static tf_status read_piece(void *arg, const char *key, const tf__fields *item)
{
    (void)key;
    const template_reading *r = arg;
    piece_body body = {NULL, 0};
    if (item->kind(item, NULL) == TF_FIELD_OBJECT)
        (void)item->each(item, count_entry, &body); /* count_entry cannot fail */
    const int is_seq = body.n == 1 && strcmp(body.key, "Sequence") == 0;
    if (body.n != 1 || (!is_seq && strcmp(body.key, "SpecialToken") != 0))
        return item->got(item, NULL, "{\"Sequence\": {...}} or {\"SpecialToken\": {...}}");
    char name[TF_FIELD_NAME], entry_name[TF_FIELD_NAME];
    tf__fields b, entry;
    item->field(item, body.key, name, &b);
    if (b.kind(&b, NULL) != TF_FIELD_OBJECT)
        return b.got(&b, NULL, "an object {\"id\", \"type_id\"}");
    const char *id = b.text(&b, "id");
    if (is_seq && !(id && (strcmp(id, "A") == 0 || strcmp(id, "B") == 0)))
        return b.got(&b, "id", "\"A\" or \"B\"");
    if (!id)
        return b.got(&b, "id", "a string");
    if (!is_seq) {
        r->specials->entry(r->specials, id, entry_name, &entry);
        if (entry.kind(&entry, NULL) == TF_FIELD_ABSENT) {
            char g[TF_FIELD_NAME];
            b.place(&b, "id", g);
            return tf__fail(TF_ERR_FORMAT,
                            "%s: %s: \"%.*s\" is not in %s (tokenizers: Missing "
                            "SpecialToken(s) with id(s))",
                            b.file, g, tf__utf8_prefix(id, 48), id, r->specials->name);
        }
    }
    int32_t type_id = 0, ids[TF_MAX_TEMPLATE];
    int n = 0;
    tf_status s = b.id(&b, "type_id", &type_id);
    if (s == TF_OK && !is_seq) /* checked with special_tokens */
        s = special_token(&entry, ids, &n);
    if (s)
        return s;
    if (r->t->n >= TF_MAX_TEMPLATE)
        return tf__fail(TF_ERR_FORMAT, "%s: %s: expected at most 64 items", item->file, item->name);
    return tf__template_add(r->t, is_seq ? id[0] - 'A' : -1, type_id, ids, (size_t)n)
        ? TF_OK
        : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", item->file);
}

static tf_status read(tf__template *single, tf__template *pair, const tf__fields *f)
{
    const char *keys[2] = {"single", "pair"};
    tf__template *dst[2] = {single, pair};
    char specials_name[TF_FIELD_NAME];
    tf__fields specials;
    f->field(f, "special_tokens", specials_name, &specials);
    /* every SpecialToken checked, as tokenizers reads them all */
    tf_status s = specials.kind(&specials, NULL) == TF_FIELD_OBJECT
        ? specials.each(&specials, check_special_token, NULL)
        : specials.got(&specials, NULL, "an object");
    for (int k = 0; s == TF_OK && k < 2; k++) {
        char name[TF_FIELD_NAME];
        tf__fields list;
        f->field(f, keys[k], name, &list);
        if (list.kind(&list, NULL) != TF_FIELD_ARRAY)
            return list.got(&list, NULL, "an array");
        tf__template_destroy(dst[k]);
        dst[k]->window_types = 1;
        const template_reading r = {&specials, dst[k]};
        if ((s = list.each(&list, read_piece, (void *)&r)) != TF_OK)
            return s;
        const char *fault = tf__template_fault(dst[k], k);
        if (fault) {
            char got[TF_FIELD_GOT];
            list.describe(&list, NULL, got);
            return tf__fail(TF_ERR_FORMAT, "%s: %s: %s, got %s", f->file, name, fault, got);
        }
    }
    return s;
}

const tf__post_processor_type tf__template_processor = {"TemplateProcessing", 1, read};
