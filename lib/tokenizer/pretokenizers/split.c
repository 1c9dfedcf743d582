/* split.c — tokenizers' Split (pre_tokenizers/split.rs): `pattern`'s
 * matches (or, with invert, the text between them) are the delimiters, as
 * `behavior` says. */
#include "pretokenizers.h"

typedef struct split {
    tf__regex *pattern;
    tf__split_behavior behavior;
    int32_t invert;
} split;

static tf_status read(void *state, const tf__fields *f)
{
    split *p = state;
    tf_status s = tf__split_behavior_read(f, TF_SPLIT_REMOVED, &p->behavior);
    if (s == TF_OK)
        s = f->boolean(f, "invert", 0, &p->invert);
    return s ? s : f->pattern(f, "pattern", &p->pattern);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const split *p = state;
    return tf__split_pieces(out, in, (tf__delimiters){p->pattern, NULL}, p->behavior, p->invert,
                            what);
}

static void destroy(void *state)
{
    split *p = state;
    tf__regex_free(p->pattern);
}

const tf__pretokenizer_type tf__split_pretokenizer = {
    .stage = {"Split", sizeof(split), read, destroy},
    .apply = apply,
};
