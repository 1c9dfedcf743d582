/* metaspace_decoder.c — tokenizers' Metaspace decoder
 * (pre_tokenizers/metaspace.rs): `replacement` made ' ', and dropped in
 * the first token unless the prepend scheme is "never"; its fields are the
 * pre-tokenizer's (pretokenizers/metaspace.c). */
#include <utf8proc.h>

#include "decoders.h"
#include "pretokenizers/pretokenizers.h"

static tf_status read(void *state, const tf__fields *f)
{
    return tf__metaspace_read(state, f);
}

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)bound;
    const tf__metaspace *d = state;
    for (size_t k = 0; k < in->n; k++) {
        tf__text *t = tf__texts_more(out);
        if (!t)
            return TF_ERR_OUT_OF_MEMORY;
        const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)in->v[k].s;
        for (utf8proc_int32_t cp; *p;) {
            p += utf8proc_iterate(p, -1, &cp);
            const int drop = cp == d->replacement && k == 0 &&
                d->prepend_scheme != TF_PREPEND_NEVER;
            if (!drop && !tf__text_append_cp(t, cp == d->replacement ? ' ' : cp))
                return TF_ERR_OUT_OF_MEMORY;
        }
    }
    return TF_OK;
}

const tf__decoder_type tf__metaspace_decoder = {
    .stage = {"Metaspace", sizeof(tf__metaspace), read, NULL},
    .apply = apply,
};
