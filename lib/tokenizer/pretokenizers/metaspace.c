/* metaspace.c — tokenizers' Metaspace pre-tokenizer
 * (pre_tokenizers/metaspace.rs): in each piece ' ' becomes the
 * replacement, which is put before the piece (as the prepend scheme says,
 * spanning the piece's first character) unless it starts with one; with
 * split, each replacement starts a piece (MergedWithNext). Its fields are
 * its decoder's too (decoders/metaspace_decoder.c). */
#include <string.h>
#include <utf8proc.h>

#include "pretokenizers.h"

tf_status tf__metaspace_read(tf__metaspace *m, const tf__fields *f)
{
    const char *replacement, *scheme = NULL;
    tf_status s = f->string(f, "replacement", 0, &replacement);
    utf8proc_int32_t cp = -1;
    /* the string's own length: with -1, "" would read its NUL as a character and look past it */
    const utf8proc_ssize_t len = s ? 0
                                   : utf8proc_iterate((const utf8proc_uint8_t *)replacement,
                                                      (utf8proc_ssize_t)strlen(replacement), &cp);
    if (s == TF_OK && (len <= 0 || replacement[len] != '\0'))
        s = f->expected(f, "replacement", "one character");
    m->replacement = cp;
    if (s == TF_OK)
        s = f->boolean(f, "split", 1, &m->split);
    if (s == TF_OK)
        s = f->string(f, "prepend_scheme", 1, &scheme);
    if (s || !scheme || !scheme[0]) {
        int32_t add_prefix_space = 1;
        s = s ? s : f->boolean(f, "add_prefix_space", 1, &add_prefix_space);
        m->prepend_scheme = add_prefix_space ? TF_PREPEND_ALWAYS : TF_PREPEND_NEVER;
        return s;
    }
    static const char *const schemes[] = {"always", "first", "never"};
    _Static_assert(sizeof schemes / sizeof *schemes == TF_PREPEND_NEVER + 1,
                   "a name for each scheme, TF_PREPEND_NEVER the last");
    for (int k = 0; k <= TF_PREPEND_NEVER; k++)
        if (strcmp(scheme, schemes[k]) == 0) {
            m->prepend_scheme = (tf__prepend_scheme)k;
            return TF_OK;
        }
    return f->expected(f, "prepend_scheme", "\"always\", \"first\" or \"never\"");
}

static tf_status read(void *state, const tf__fields *f)
{
    return tf__metaspace_read(state, f);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const tf__metaspace *p = state;
    for (size_t i = 0; i < in->n;) {
        size_t j = i + 1;
        while (j < in->n && !in->v[j].word_start)
            j++;
        const tf__char *first = &in->v[i];
        const int has = first->cp == ' ' || first->cp == p->replacement;
        const int prepend = !has &&
            (p->prepend_scheme == TF_PREPEND_ALWAYS ||
             (p->prepend_scheme == TF_PREPEND_FIRST && first->begin == 0));
        if (prepend && !tf__chars_push(out, p->replacement, first->begin, first->end))
            return tf__pretokenizer_no_memory(what);
        if (prepend)
            out->v[out->n - 1].word_start = 1;
        for (size_t k = i; k < j; k++) {
            const int32_t cp = in->v[k].cp == ' ' ? p->replacement : in->v[k].cp;
            if (!tf__chars_push(out, cp, in->v[k].begin, in->v[k].end))
                return tf__pretokenizer_no_memory(what);
            out->v[out->n - 1].word_start = (k == i && !prepend) ||
                (p->split && cp == p->replacement);
        }
        i = j;
    }
    return TF_OK;
}

const tf__pretokenizer_type tf__metaspace_pretokenizer = {
    .stage = {"Metaspace", sizeof(tf__metaspace), read, NULL},
    .apply = apply,
};
