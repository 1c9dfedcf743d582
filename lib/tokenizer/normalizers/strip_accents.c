/* strip_accents.c — tokenizers' StripAccents (normalizers/strip.rs): marks
 * (Mn, Mc, Me) removed. */
#include <utf8proc.h>

#include "normalizers.h"

static int is_mark(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    for (size_t k = 0; k < in->n; k++) {
        const tf__char *c = &in->v[k];
        if (!is_mark(c->cp) && !tf__chars_push(out, c->cp, c->begin, c->end))
            return tf__normalizer_no_memory(what);
    }
    return TF_OK;
}

const tf__normalizer_type tf__strip_accents_normalizer = {
    .stage = {"StripAccents", 0, NULL, NULL},
    .apply = apply,
    .per_char = 1,
};
