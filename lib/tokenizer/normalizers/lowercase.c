/* lowercase.c — tokenizers' Lowercase (normalizers/utils.rs): each
 * character lower-cased, as Rust's char::to_lowercase. */
#include "normalizers.h"

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    for (size_t k = 0; k < in->n; k++)
        if (!tf__chars_push_lower(out, in->v[k].cp, in->v[k].begin, in->v[k].end))
            return tf__normalizer_no_memory(what);
    return TF_OK;
}

const tf__normalizer_type tf__lowercase_normalizer = {
    .stage = {"Lowercase", 0, NULL, NULL},
    .apply = apply,
    .per_char = 1,
};
