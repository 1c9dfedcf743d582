/* whitespace_split.c — tokenizers' WhitespaceSplit
 * (pre_tokenizers/whitespace.rs): whitespace removed. */
#include "pretokenizers.h"

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    const tf__delimiters whitespace = {NULL, tf__is_whitespace};
    return tf__split_pieces(out, in, whitespace, TF_SPLIT_REMOVED, 0, what);
}

const tf__pretokenizer_type tf__whitespace_split_pretokenizer = {
    .stage = {"WhitespaceSplit", 0, NULL, NULL},
    .apply = apply,
    .whitespace_cuts = 1,
};
