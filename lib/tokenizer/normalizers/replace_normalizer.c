/* replace_normalizer.c — tokenizers' Replace normalizer
 * (normalizers/replace.rs): each match of `pattern` becomes `content`,
 * which spans the last matched character's bytes (as tokenizers aligns it:
 * the others count as removed before it). */
#include "alloc.h"
#include "error.h"
#include "normalizers.h"

typedef struct replace {
    tf__regex *pattern;
    tf__chars content; /* the text put in (empty spans) */
} replace;

static tf_status read(void *state, const tf__fields *f)
{
    replace *n = state;
    const tf_status s = f->pattern(f, "pattern", &n->pattern);
    return s ? s : f->chars(f, "content", &n->content);
}

/* n would make more than g->most characters of g->in. */
static tf_status growth_failure(const replace *n, const tf__growth *g, const char *what)
{
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: %s: the Replace normalizer would make more than %zu characters, %d "
                    "per byte of the %zu bytes of text they come from; pattern \"%s\"",
                    what, tf__regex_what(n->pattern), g->most, TF_GROWTH_PER_BYTE,
                    tf__source_bytes(g->in), tf__regex_shown(n->pattern));
}

/* More characters than the growth bound is refused before the content that
 * would pass it is put in. */
static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const replace *n = state;
    const size_t base = out->n; /* out's characters before in's */
    tf__growth g = {in, 0};
    char *utf8 = NULL;
    size_t cap = 0;
    size_t *at = tf__malloc((in->n + 1) * sizeof *at); /* [n + 1] byte of each character */
    tf__regex_scratch *scratch = tf__regex_scratch_create(n->pattern);
    const size_t len = at ? tf__chars_utf8(in->v, in->n, &utf8, &cap, at) : SIZE_MAX;
    tf_status s = len == SIZE_MAX || !scratch
        ? tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what)
        : TF_OK;
    size_t copied = 0; /* characters done */
    for (size_t from = 0; s == TF_OK;) {
        size_t mb, me;
        const int found = tf__regex_next(n->pattern, scratch, utf8, len, from, &mb, &me, what);
        if (found < 0) {
            s = (tf_status)-found;
            break;
        }
        const size_t a = found ? tf__char_at_byte(at, in->n, mb) : in->n;
        const size_t b = found ? tf__char_at_byte(at, in->n, me) : in->n;
        for (; copied < a && s == TF_OK; copied++)
            if (!tf__chars_push(out, in->v[copied].cp, in->v[copied].begin, in->v[copied].end))
                s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        if (!found)
            break;
        if (s == TF_OK && tf__grows_past(&g, out->n - base + n->content.n))
            s = growth_failure(n, &g, what);
        if (s == TF_OK &&
            !tf__chars_push_content(out, &n->content, in->v[b - 1].begin, in->v[b - 1].end))
            s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        copied = b;
        from = me;
    }
    if (s == TF_OK && tf__grows_past(&g, out->n - base))
        s = growth_failure(n, &g, what);
    tf__regex_scratch_free(scratch);
    tf__free(at);
    tf__free(utf8);
    return s;
}

static void destroy(void *state)
{
    replace *n = state;
    tf__regex_free(n->pattern);
    tf__free(n->content.v);
}

const tf__normalizer_type tf__replace_normalizer = {
    .stage = {"Replace", sizeof(replace), read, destroy},
    .apply = apply,
};
