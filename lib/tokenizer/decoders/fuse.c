/* fuse.c — tokenizers' Fuse decoder (decoders/fuse.rs): every token one
 * text. */
#include "decoders.h"

static tf_status apply(tf_texts *out, const tf_texts *in, const void *state,
                       const tf_decode_bound *bound)
{
    (void)state, (void)bound;
    tf_text *t = tf_texts_more(out);
    for (size_t k = 0; t && k < in->n; k++)
        if (!tf_text_append(t, in->v[k].s, in->v[k].n))
            return TF_ERR_OUT_OF_MEMORY;
    return t ? TF_OK : TF_ERR_OUT_OF_MEMORY;
}

const tf_decoder_type tf_fuse_decoder = {
    .stage = {"Fuse", 0, NULL, NULL},
    .apply = apply,
};
