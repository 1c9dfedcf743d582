/* whitespace.c — tokenizers' Whitespace (pre_tokenizers/whitespace.rs):
 * the matches of \w+|[^\w\s]+ kept, the rest removed. */
#include "pretokenizers.h"

typedef struct whitespace {
    tf__regex *pattern;
} whitespace;

static const char pattern[] = "\\w+|[^\\w\\s]+";

static tf_status read(void *state, const tf__fields *f)
{
    whitespace *p = state;
    char what[TF_FIELD_WHERE];
    f->where(f, NULL, what);
    return tf__regex_compile(&p->pattern, pattern, sizeof pattern - 1, 0, what);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const whitespace *p = state;
    return tf__split_pieces(out, in, (tf__delimiters){p->pattern, NULL}, TF_SPLIT_REMOVED, 1, what);
}

static void destroy(void *state)
{
    whitespace *p = state;
    tf__regex_free(p->pattern);
}

const tf__pretokenizer_type tf__whitespace_pretokenizer = {
    .stage = {"Whitespace", sizeof(whitespace), read, destroy},
    .apply = apply,
};
