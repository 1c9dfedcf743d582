/* strip_normalizer.c — tokenizers' Strip (normalizers/strip.rs):
 * whitespace removed at the left (strip_left) and the right (strip_right). */
#include "normalizers.h"

typedef struct strip {
    int32_t left, right;
} strip;

static tf_status read(void *state, const tf__fields *f)
{
    strip *n = state;
    const tf_status s = f->boolean(f, "strip_left", 1, &n->left);
    return s ? s : f->boolean(f, "strip_right", 1, &n->right);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const strip *n = state;
    size_t first = 0, last = in->n;
    while (n->left && first < last && tf__is_whitespace(in->v[first].cp))
        first++;
    while (n->right && last > first && tf__is_whitespace(in->v[last - 1].cp))
        last--;
    for (size_t k = first; k < last; k++)
        if (!tf__chars_push(out, in->v[k].cp, in->v[k].begin, in->v[k].end))
            return tf__normalizer_no_memory(what);
    return TF_OK;
}

const tf__normalizer_type tf__strip_normalizer = {
    .stage = {"Strip", sizeof(strip), read, NULL},
    .apply = apply,
};
