/* replace_normalizer.c — tokenizers' Replace normalizer
 * (normalizers/replace.rs): each match of `pattern` becomes `content`,
 * which spans the last matched character's bytes (as tokenizers aligns it:
 * the others count as removed before it). */
#include "alloc.h"
#include "error.h"
#include "normalizers.h"

typedef struct replace {
    tf_regex *pattern;
    tf_chars content; /* the text put in (empty spans) */
} replace;

static tf_status read(void *state, const tf_fields *f)
{
    replace *n = state;
    const tf_status s = f->pattern(f, "pattern", &n->pattern);
    return s ? s : f->chars(f, "content", &n->content);
}

/* n would make more than g->most characters of g->in. */
static tf_status growth_failure(const replace *n, const tf_growth *g, const char *what)
{
    return tf_fail(TF_ERR_UNSUPPORTED,
                   "%s: %s: the Replace normalizer would make more than %zu characters, %d "
                   "per byte of the %zu bytes of text they come from; pattern \"%s\"",
                   what, tf_regex_what(n->pattern), g->most, TF_GROWTH_PER_BYTE,
                   tf_source_bytes(g->in), tf_regex_shown(n->pattern));
}

/* More characters than the growth bound is refused before the content that
 * would pass it is put in. */
static tf_status apply(tf_chars *out, const tf_chars *in, const void *state, const char *what)
{
    const replace *n = state;
    const size_t base = out->n; /* out's characters before in's */
    tf_growth g = {in, 0};
    char *utf8 = NULL;
    size_t cap = 0;
    size_t *at = tf_malloc((in->n + 1) * sizeof *at); /* [n + 1] byte of each character */
    tf_regex_scratch *scratch = tf_regex_scratch_create(n->pattern);
    const size_t len = at ? tf_chars_utf8(in->v, in->n, &utf8, &cap, at) : SIZE_MAX;
    tf_status s = len == SIZE_MAX || !scratch
                      ? tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what)
                      : TF_OK;
    size_t copied = 0; /* characters done */
    for (size_t from = 0; s == TF_OK;) {
        size_t mb, me;
        const int found = tf_regex_next(n->pattern, scratch, utf8, len, from, &mb, &me, what);
        if (found < 0) {
            s = (tf_status)-found;
            break;
        }
        const size_t a = found ? tf_char_at_byte(at, in->n, mb) : in->n;
        const size_t b = found ? tf_char_at_byte(at, in->n, me) : in->n;
        for (; copied < a && s == TF_OK; copied++)
            if (!tf_chars_push(out, in->v[copied].cp, in->v[copied].begin, in->v[copied].end))
                s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        if (!found)
            break;
        if (s == TF_OK && tf_grows_past(&g, out->n - base + n->content.n))
            s = growth_failure(n, &g, what);
        if (s == TF_OK && !tf_chars_push_content(out, &n->content, in->v[b - 1].begin,
                                                 in->v[b - 1].end))
            s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        copied = b;
        from = me;
    }
    if (s == TF_OK && tf_grows_past(&g, out->n - base))
        s = growth_failure(n, &g, what);
    tf_regex_scratch_free(scratch);
    tf_free(at);
    tf_free(utf8);
    return s;
}

static void destroy(void *state)
{
    replace *n = state;
    tf_regex_free(n->pattern);
    tf_free(n->content.v);
}

const tf_normalizer_type tf_replace_normalizer = {
    .stage = {"Replace", sizeof(replace), read, destroy},
    .apply = apply,
};
