/* punctuation.c — tokenizers' Punctuation (pre_tokenizers/punctuation.rs):
 * each punctuation character a delimiter, as `behavior` says (Isolated
 * when absent). */
#include "pretokenizers.h"

typedef struct punctuation {
    tf_split_behavior behavior;
} punctuation;

static tf_status read(void *state, const tf_fields *f)
{
    punctuation *p = state;
    return tf_split_behavior_read(f, TF_SPLIT_ISOLATED, &p->behavior);
}

static tf_status apply(tf_chars *out, const tf_chars *in, const void *state, const char *what)
{
    const punctuation *p = state;
    const tf_delimiters d = {NULL, tf_is_punctuation};
    return tf_split_pieces(out, in, d, p->behavior, 0, what);
}

const tf_pretokenizer_type tf_punctuation_pretokenizer = {
    .stage = {"Punctuation", sizeof(punctuation), read, NULL},
    .apply = apply,
};
