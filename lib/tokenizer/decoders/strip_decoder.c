/* strip_decoder.c — tokenizers' Strip decoder (decoders/strip.rs): at most
 * `start` leading and `stop` trailing `content` characters off each
 * token. */
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "decoders.h"

typedef struct strip_decoder {
    char *content; /* one character */
    int32_t start, stop;
} strip_decoder;

static tf_status read(void *state, const tf__fields *f)
{
    strip_decoder *d = state;
    tf_status s = tf__decoder_text(f, "content", NULL, &d->content);
    utf8proc_int32_t cp;
    /* the string's own length: with -1, "" would read its NUL as a character and look past it */
    const utf8proc_ssize_t width = s ? 0
                                     : utf8proc_iterate((const utf8proc_uint8_t *)d->content,
                                                        (utf8proc_ssize_t)strlen(d->content), &cp);
    if (s == TF_OK && (width <= 0 || d->content[width]))
        s = f->expected(f, "content", "one character");
    if (s == TF_OK)
        s = f->integer(f, "start", 0, INT32_MAX, 0, &d->start);
    return s ? s : f->integer(f, "stop", 0, INT32_MAX, 0, &d->stop);
}

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)bound;
    const strip_decoder *d = state;
    utf8proc_int32_t content;
    const size_t width = (size_t)utf8proc_iterate((const utf8proc_uint8_t *)d->content, -1,
                                                  &content);
    for (size_t k = 0; k < in->n; k++) {
        const char *s = in->v[k].s;
        size_t first = 0, last = in->v[k].n;
        for (int32_t i = 0;
             i < d->start && last - first >= width && memcmp(s + first, d->content, width) == 0;
             i++)
            first += width;
        for (int32_t i = 0; i < d->stop && last - first >= width &&
             memcmp(s + last - width, d->content, width) == 0;
             i++)
            last -= width;
        tf__text *t = tf__texts_more(out);
        if (!t || !tf__text_append(t, s + first, last - first))
            return TF_ERR_OUT_OF_MEMORY;
    }
    return TF_OK;
}

static void destroy(void *state)
{
    strip_decoder *d = state;
    tf__free(d->content);
}

const tf__decoder_type tf__strip_decoder = {
    .stage = {"Strip", sizeof(strip_decoder), read, destroy},
    .apply = apply,
};
