/* bpe_decoder.c — tokenizers' BPEDecoder (decoders/bpe.rs): `suffix`
 * made ' ' ("" in the last token). */
#include "alloc.h"
#include "decoders.h"

typedef struct bpe_decoder {
    char *suffix;
} bpe_decoder;

static tf_status read(void *state, const tf__fields *f)
{
    bpe_decoder *d = state;
    return tf__decoder_text(f, "suffix", "</w>", &d->suffix);
}

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)bound;
    const bpe_decoder *d = state;
    for (size_t k = 0; k < in->n; k++) {
        tf__text *t = tf__texts_more(out);
        if (!t || !tf__text_append_replaced(t, in->v[k].s, d->suffix, k + 1 == in->n ? "" : " "))
            return TF_ERR_OUT_OF_MEMORY;
    }
    return TF_OK;
}

static void destroy(void *state)
{
    bpe_decoder *d = state;
    tf__free(d->suffix);
}

const tf__decoder_type tf__bpe_decoder = {
    .stage = {"BPEDecoder", sizeof(bpe_decoder), read, destroy},
    .apply = apply,
};
