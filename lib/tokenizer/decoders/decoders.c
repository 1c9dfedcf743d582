/* decoders.c — the one table of decoders, and running a list of them.
 *
 * Adding a decoder (say tokenizers' CTC, "CTC" in its "type"):
 *  1. write decoders/<type>.c, after tokenizers' decoders/ (named at its
 *     top), defining `const tf__decoder_type tf__<type>_decoder` (decoders.h
 *     and stages.h say what each field is): its state, a read that reads
 *     and checks every field tokenizers reads, apply, destroy;
 *  2. add its line to TF_DECODERS below and the file to
 *     tokenizer/meson.build;
 *  3. a fixture and the tests that read it (docs/adding.md).
 * Nothing else names a decoder: tokenizer.json's "type" finds its row here
 * (a "Sequence" is a list of them), and decoding calls the rows in order. */
#include "decoders.h"

#include <string.h>

#include "alloc.h"
#include "error.h"

#define TF_DECODERS(ROW) /* the table: a line per type, the row its file defines */ \
    ROW(tf__byte_level_decoder)                                                     \
    ROW(tf__wordpiece_decoder)                                                      \
    ROW(tf__metaspace_decoder)                                                      \
    ROW(tf__bpe_decoder)                                                            \
    ROW(tf__replace_decoder)                                                        \
    ROW(tf__byte_fallback_decoder)                                                  \
    ROW(tf__fuse_decoder)                                                           \
    ROW(tf__strip_decoder)                                                          \
    /* (the table ends here) */

#define DECLARE_ROW(row) extern const tf__decoder_type row;
TF_DECODERS(DECLARE_ROW)
#define ROW_ADDRESS(row) &(row),
static const tf__decoder_type *const decoders[] = {TF_DECODERS(ROW_ADDRESS)};
enum { N_DECODERS = sizeof decoders / sizeof decoders[0] };

const tf__stage_type *tf__decoder_find(const char *name)
{
    for (int i = 0; i < N_DECODERS; i++)
        if (strcmp(decoders[i]->stage.name, name) == 0)
            return &decoders[i]->stage;
    return NULL;
}

tf_status tf__decoder_text(const tf__fields *f, const char *key, const char *dflt, char **out)
{
    const char *text;
    const tf_status s = f->string(f, key, dflt != NULL, &text);
    if (s)
        return s;
    text = text ? text : dflt;
    *out = tf__malloc(strlen(text) + 1);
    if (!*out)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the decoder", f->file);
    strcpy(*out, text);
    return TF_OK;
}

tf_status tf__decode_tokens(char **out, size_t *len, const char *const *tokens, size_t n,
                            const tf__stages *d)
{
    tf__texts cur = {0}, next = {0};
    tf_status s = TF_OK;
    size_t source = 0; /* bytes of the tokens' strings */
    for (size_t k = 0; s == TF_OK && k < n; k++) {
        tf__text *t = tf__texts_more(&cur);
        if (!t || !tf__text_append(t, tokens[k], strlen(tokens[k])))
            s = TF_ERR_OUT_OF_MEMORY;
        source += strlen(tokens[k]);
    }
    /* a Replace's bound: TF_GROWTH_PER_BYTE per byte, and room for a few tokens */
    const tf__decode_bound bound = {TF_GROWTH_PER_BYTE * (source + 16), source};
    for (size_t k = 0; s == TF_OK && k < d->n; k++) {
        const tf__decoder_type *row = (const tf__decoder_type *)d->v[k].type;
        s = row->apply(&next, &cur, d->v[k].state, &bound);
        tf__texts_free(&cur);
        cur = next;
        next = (tf__texts){0};
    }
    tf__text joined = {0};
    if (s == TF_OK && !tf__text_append(&joined, "", 0))
        s = TF_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; s == TF_OK && k < cur.n; k++)
        if ((d->n == 0 && k > 0 && !tf__text_append(&joined, " ", 1)) ||
            !tf__text_append(&joined, cur.v[k].s, cur.v[k].n))
            s = TF_ERR_OUT_OF_MEMORY;
    tf__texts_free(&cur);
    tf__texts_free(&next);
    if (s) {
        tf__free(joined.s);
        return s == TF_ERR_OUT_OF_MEMORY ? tf__fail(s, "decode: cannot allocate the text") : s;
    }
    *out = joined.s;
    *len = joined.n;
    return TF_OK;
}
