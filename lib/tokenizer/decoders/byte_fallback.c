/* byte_fallback.c — tokenizers' ByteFallback decoder
 * (decoders/byte_fallback.rs): runs of <0xXX> tokens made the text of
 * their bytes, or one U+FFFD per byte when that is not valid UTF-8. */
#include <string.h>

#include "alloc.h"
#include "decoders.h"

/* The byte of a "<0xXX>" token, or -1. */
static int byte_token(const tf__text *t)
{
    if (t->n != 6 || strncmp(t->s, "<0x", 3) != 0 || t->s[5] != '>')
        return -1;
    int v = 0;
    for (int k = 3; k < 5; k++) {
        const char c = t->s[k];
        const int digit = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f'             ? c - 'a' + 10
            : c >= 'A' && c <= 'F'             ? c - 'A' + 10
                                               : -1;
        if (digit < 0)
            return -1;
        v = 16 * v + digit;
    }
    return v;
}

/* The bytes collected so far: their text when valid UTF-8, else one U+FFFD
 * token per byte. */
static int flush_bytes(tf__texts *out, tf__text *bytes)
{
    int valid = 1;
    for (size_t i = 0; valid && i < bytes->n;) {
        const size_t k = tf__utf8_prefix_bytes((const unsigned char *)bytes->s + i, bytes->n - i,
                                               &valid);
        i += k;
    }
    tf__text *t = bytes->n ? tf__texts_more(out) : NULL;
    int ok = !bytes->n ||
        (t && (valid ? tf__text_append(t, bytes->s, bytes->n) : tf__text_append_cp(t, 0xFFFD)));
    for (size_t i = 1; ok && !valid && i < bytes->n; i++)
        ok = (t = tf__texts_more(out)) != NULL && tf__text_append_cp(t, 0xFFFD);
    bytes->n = 0;
    return ok;
}

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)state, (void)bound;
    tf__text bytes = {0};
    int ok = tf__text_append(&bytes, "", 0);
    for (size_t k = 0; ok && k < in->n; k++) {
        const int b = byte_token(&in->v[k]);
        const char c = (char)b;
        tf__text *t;
        ok = b >= 0 ? tf__text_append(&bytes, &c, 1)
                    : flush_bytes(out, &bytes) && (t = tf__texts_more(out)) != NULL &&
                tf__text_append(t, in->v[k].s, in->v[k].n);
    }
    ok = ok && flush_bytes(out, &bytes);
    tf__free(bytes.s);
    return ok ? TF_OK : TF_ERR_OUT_OF_MEMORY;
}

const tf__decoder_type tf__byte_fallback_decoder = {
    .stage = {"ByteFallback", 0, NULL, NULL},
    .apply = apply,
};
