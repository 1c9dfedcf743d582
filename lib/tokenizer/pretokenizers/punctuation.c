/* punctuation.c — tokenizers' Punctuation (pre_tokenizers/punctuation.rs):
 * each punctuation character a delimiter, as `behavior` says (Isolated
 * when absent). */
#include "pretokenizers.h"

typedef struct punctuation {
    tf__split_behavior behavior;
} punctuation;

static tf_status read(void *state, const tf__fields *f)
{
    punctuation *p = state;
    return tf__split_behavior_read(f, TF_SPLIT_ISOLATED, &p->behavior);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const punctuation *p = state;
    const tf__delimiters d = {NULL, tf__is_punctuation};
    return tf__split_pieces(out, in, d, p->behavior, 0, what);
}

const tf__pretokenizer_type tf__punctuation_pretokenizer = {
    .stage = {"Punctuation", sizeof(punctuation), read, NULL},
    .apply = apply,
};
