/* prepend.c — tokenizers' Prepend (normalizers/prepend.rs): `prepend`
 * put before a non-empty text, spanning its first character, as tokenizers
 * aligns it. */
#include "alloc.h"
#include "normalizers.h"

typedef struct prepend {
    tf__chars content; /* the text put in (empty spans) */
} prepend;

static tf_status read(void *state, const tf__fields *f)
{
    prepend *n = state;
    return f->chars(f, "prepend", &n->content);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const prepend *n = state;
    if (in->n == 0)
        return TF_OK;
    if (!tf__chars_push_content(out, &n->content, in->v[0].begin, in->v[0].end))
        return tf__normalizer_no_memory(what);
    for (size_t k = 0; k < in->n; k++)
        if (!tf__chars_push(out, in->v[k].cp, in->v[k].begin, in->v[k].end))
            return tf__normalizer_no_memory(what);
    return TF_OK;
}

static void destroy(void *state)
{
    prepend *n = state;
    tf__free(n->content.v);
}

const tf__normalizer_type tf__prepend_normalizer = {
    .stage = {"Prepend", sizeof(prepend), read, destroy},
    .apply = apply,
};
