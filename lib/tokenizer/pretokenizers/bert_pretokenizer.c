/* bert_pretokenizer.c — tokenizers' BertPreTokenizer
 * (pre_tokenizers/bert.rs): whitespace removed, each punctuation character
 * a piece of its own; in one pass over the input, which is what splitting
 * on the one and then the other makes. */
#include "bert_stages.h"

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    int starts = 1; /* the next character kept starts a piece */
    for (size_t k = 0; k < in->n; k++) {
        const tf__char *c = &in->v[k];
        starts |= c->word_start;
        if (tf__is_whitespace(c->cp)) {
            starts = 1;
            continue;
        }
        const int punctuation = tf__is_punctuation(c->cp);
        if (!tf__chars_push(out, c->cp, c->begin, c->end))
            return tf__pretokenizer_no_memory(what);
        out->v[out->n - 1].word_start = starts || punctuation;
        starts = punctuation;
    }
    return TF_OK;
}

const tf__pretokenizer_type tf__bert_pretokenizer = {
    .stage = {"BertPreTokenizer", 0, NULL, NULL},
    .apply = apply,
    .whitespace_cuts = 1,
};
