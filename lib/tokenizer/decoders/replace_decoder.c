/* replace_decoder.c — tokenizers' Replace decoder (decoders/replace.rs
 * over normalizers/replace.rs): each match of `pattern` in each token made
 * `content`; what it makes may not pass the decoding's bound. */
#include <string.h>

#include "alloc.h"
#include "decoders.h"
#include "error.h"

typedef struct replace_decoder {
    tf__regex *pattern;
    char *content;
} replace_decoder;

static tf_status read(void *state, const tf__fields *f)
{
    replace_decoder *d = state;
    const tf_status s = f->pattern(f, "pattern", &d->pattern);
    return s ? s : tf__decoder_text(f, "content", NULL, &d->content);
}

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    const replace_decoder *d = state;
    tf__regex_scratch *scratch = tf__regex_scratch_create(d->pattern);
    tf_status s = scratch ? TF_OK : TF_ERR_OUT_OF_MEMORY;
    const size_t content = strlen(d->content);
    size_t made = 0; /* bytes of out's texts */
    for (size_t k = 0; s == TF_OK && k < in->n; k++) {
        const tf__text *src = &in->v[k];
        tf__text *t = tf__texts_more(out);
        size_t done = 0;
        for (size_t from = 0; s == TF_OK && t;) {
            size_t mb, me;
            const int found = tf__regex_next(d->pattern, scratch, src->s, src->n, from, &mb, &me,
                                             "decoder.Replace");
            const size_t kept = found < 0 ? 0 : (found ? mb : src->n) - done;
            if (found < 0) {
                s = (tf_status)-found;
                break;
            }
            made += kept + (found ? content : 0);
            if (made > bound->most)
                s = tf__fail(TF_ERR_UNSUPPORTED,
                             "decoder.Replace: the decoding would make more "
                             "than %zu bytes, %d per byte of the %zu bytes of the tokens' "
                             "strings; pattern \"%s\"",
                             bound->most, TF_GROWTH_PER_BYTE, bound->source,
                             tf__regex_shown(d->pattern));
            else if (!tf__text_append(t, src->s + done, kept) ||
                     (found && !tf__text_append(t, d->content, content)))
                s = TF_ERR_OUT_OF_MEMORY;
            if (found <= 0)
                break;
            done = from = me;
        }
        if (!t)
            s = TF_ERR_OUT_OF_MEMORY;
    }
    tf__regex_scratch_free(scratch);
    return s;
}

static void destroy(void *state)
{
    replace_decoder *d = state;
    tf__regex_free(d->pattern);
    tf__free(d->content);
}

const tf__decoder_type tf__replace_decoder = {
    .stage = {"Replace", sizeof(replace_decoder), read, destroy},
    .apply = apply,
};
