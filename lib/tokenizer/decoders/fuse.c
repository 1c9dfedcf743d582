/* fuse.c — tokenizers' Fuse decoder (decoders/fuse.rs): every token one
 * text. */
#include "decoders.h"

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)state, (void)bound;
    tf__text *t = tf__texts_more(out);
    for (size_t k = 0; t && k < in->n; k++)
        if (!tf__text_append(t, in->v[k].s, in->v[k].n))
            return TF_ERR_OUT_OF_MEMORY;
    return t ? TF_OK : TF_ERR_OUT_OF_MEMORY;
}

const tf__decoder_type tf__fuse_decoder = {
    .stage = {"Fuse", 0, NULL, NULL},
    .apply = apply,
};
