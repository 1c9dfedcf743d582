/* whitespace_split.c — tokenizers' WhitespaceSplit
 * (pre_tokenizers/whitespace.rs): whitespace removed. */
#include "pretokenizers.h"

static tf_status apply(tf_chars *out, const tf_chars *in, const void *state, const char *what)
{
    (void)state;
    const tf_delimiters whitespace = {NULL, tf_is_whitespace};
    return tf_split_pieces(out, in, whitespace, TF_SPLIT_REMOVED, 0, what);
}

const tf_pretokenizer_type tf_whitespace_split_pretokenizer = {
    .stage = {"WhitespaceSplit", 0, NULL, NULL},
    .apply = apply,
    .whitespace_cuts = 1,
};
