/* wordpiece_decoder.c — tokenizers' WordPiece decoder
 * (decoders/wordpiece.rs): `prefix` removed from continuations, the others
 * after a space, and (cleanup) the spaces tokenization put before
 * punctuation and English contractions removed. */
#include <string.h>

#include "alloc.h"
#include "bert_stages.h"

typedef struct wordpiece {
    char *prefix;
    int32_t cleanup;
} wordpiece;

tf_status tf__wordpiece_decoder_init(void *state, const char *prefix, int32_t cleanup)
{
    wordpiece *d = state;
    d->cleanup = cleanup;
    d->prefix = tf__malloc(strlen(prefix) + 1);
    if (!d->prefix)
        return TF_ERR_OUT_OF_MEMORY;
    strcpy(d->prefix, prefix);
    return TF_OK;
}

static tf_status read(void *state, const tf__fields *f)
{
    wordpiece *d = state;
    const tf_status s = tf__decoder_text(f, "prefix", "##", &d->prefix);
    return s ? s : f->boolean(f, "cleanup", 1, &d->cleanup);
}

/* tokenizers' wordpiece::cleanup. */
static int cleanup(tf__text *t)
{
    static const char *const pairs[][2] = {{" .", "."},     {" ?", "?"},           {" !", "!"},
                                           {" ,", ","},     {" ' ", "'"},          {" n't", "n't"},
                                           {" 'm", "'m"},   {" do not", " don't"}, {" 's", "'s"},
                                           {" 've", "'ve"}, {" 're", "'re"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        tf__text clean = {0};
        if (!tf__text_append_replaced(&clean, t->s, pairs[k][0], pairs[k][1])) {
            tf__free(clean.s);
            return 0;
        }
        tf__free(t->s);
        *t = clean;
    }
    return 1;
}

static tf_status apply(tf__texts *out, const tf__texts *in, const void *state,
                       const tf__decode_bound *bound)
{
    (void)bound;
    const wordpiece *d = state;
    const size_t np = strlen(d->prefix);
    for (size_t k = 0; k < in->n; k++) {
        const char *s = in->v[k].s;
        tf__text *t = tf__texts_more(out);
        const int continues = k > 0 && strncmp(s, d->prefix, np) == 0;
        if (!t || (k > 0 && !continues && !tf__text_append(t, " ", 1)) ||
            !tf__text_append(t, s + (continues ? np : 0), strlen(s + (continues ? np : 0))) ||
            (d->cleanup && !cleanup(t)))
            return TF_ERR_OUT_OF_MEMORY;
    }
    return TF_OK;
}

static void destroy(void *state)
{
    wordpiece *d = state;
    tf__free(d->prefix);
}

const tf__decoder_type tf__wordpiece_decoder = {
    .stage = {"WordPiece", sizeof(wordpiece), read, destroy},
    .apply = apply,
};
