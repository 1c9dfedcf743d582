/* byte_level_decoder.c — tokenizers' ByteLevel decoder
 * (pre_tokenizers/byte_level.rs): each token's characters back to the
 * bytes GPT-2's map made them of (a token with another character as its
 * own UTF-8), all as one text, invalid UTF-8 as U+FFFD. */
#include <utf8proc.h>

#include "alloc.h"
#include "decoders.h"
#include "pretokenizers/pretokenizers.h"

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)state, (void)bound;
    int16_t byte_of[512]; /* the byte of a byte-level character, -1 */
    for (int k = 0; k < 512; k++)
        byte_of[k] = -1;
    for (int b = 0; b < 256; b++)
        byte_of[tf__byte_level_char((unsigned char)b)] = (int16_t)b;
    tf__text bytes = {0}, *t = tf__texts_more(out);
    int ok = t && tf__text_append(&bytes, "", 0);
    for (size_t k = 0; ok && k < in->n; k++) {
        const size_t start = bytes.n;
        const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)in->v[k].s;
        int mapped = 1;
        for (utf8proc_int32_t cp; ok && mapped && *p;) {
            p += utf8proc_iterate(p, -1, &cp);
            mapped = cp < 512 && byte_of[cp] >= 0;
            const char b = mapped ? (char)byte_of[cp] : 0;
            ok = !mapped || tf__text_append(&bytes, &b, 1);
        }
        if (ok && !mapped) {
            bytes.n = start;
            ok = tf__text_append(&bytes, in->v[k].s, in->v[k].n);
        }
    }
    ok = ok && tf__text_append_lossy(t, (const unsigned char *)bytes.s, bytes.n);
    tf__free(bytes.s);
    return ok ? TF_OK : TF_ERR_OUT_OF_MEMORY;
}

const tf__decoder_type tf__byte_level_decoder = {
    .stage = {"ByteLevel", 0, NULL, NULL},
    .apply = apply,
};
