/* split_pieces.c — the split most pre-tokenizers are (tokenizers'
 * NormalizedString::split): each piece of the input is cut where its
 * delimiters are (characters of a class, or a regex's matches), and the
 * delimiters are removed, isolated or merged as the split's behavior says. */
#include <string.h>

#include "alloc.h"
#include "pretokenizers.h"

/* A part of a piece: characters [a, b), a delimiter (match) or not. */
typedef struct segment {
    size_t a, b;
    int match;
} segment;

typedef struct segment_vec {
    segment *v; /* [n] of [cap] */
    size_t n, cap;
} segment_vec;

static int push_segment(segment_vec *s, size_t a, size_t b, int match)
{
    segment *v = tf__reserve_one(s->v, &s->cap, s->n, sizeof *v, 64);
    if (!v)
        return 0;
    s->v = v;
    s->v[s->n++] = (segment){a, b, match};
    return 1;
}

/* Appends the delimiter [a, b) (characters) after the gap before it. */
static int add_match(segment_vec *s, size_t *pos, size_t a, size_t b)
{
    if (a > *pos && !push_segment(s, *pos, a, 0))
        return 0;
    *pos = b;
    return push_segment(s, a, b, 1);
}

/* The pieces the segments s->v make under `behavior`, folded in place as
 * tokenizers does; s->n is their number after. */
static void fold(segment_vec *s, tf__split_behavior behavior)
{
    size_t n = 0;
    int previous = 0;
    if (behavior == TF_SPLIT_MERGED_WITH_NEXT) { /* from the end: a match joins what follows */
        for (size_t k = s->n; k-- > 0;) {
            const segment g = s->v[k];
            if (g.match && !previous && n > 0)
                s->v[s->n - n].a = g.a;
            else
                s->v[s->n - ++n] = g;
            previous = g.match;
        }
        memmove(s->v, s->v + s->n - n, n * sizeof *s->v);
        s->n = n;
        return;
    }
    for (size_t k = 0; k < s->n; k++) {
        const segment g = s->v[k];
        const int join = behavior == TF_SPLIT_MERGED_WITH_PREVIOUS ? g.match && !previous
            : behavior == TF_SPLIT_CONTIGUOUS                      ? g.match == previous
                                                                   : 0;
        if (behavior == TF_SPLIT_REMOVED && g.match)
            continue;
        if (join && n > 0)
            s->v[n - 1].b = g.b;
        else
            s->v[n++] = g;
        previous = g.match;
    }
    s->n = n;
}

/* Appends piece p[0..n) cut into the folded segments. */
static int emit(tf__chars *out, const tf__char *p, const segment_vec *s)
{
    for (size_t k = 0; k < s->n; k++)
        for (size_t i = s->v[k].a; i < s->v[k].b; i++) {
            if (!tf__chars_push(out, p[i].cp, p[i].begin, p[i].end))
                return 0;
            out->v[out->n - 1].word_start = i == s->v[k].a;
        }
    return 1;
}

/* ---- Where the delimiters are ------------------------------------------------ */

/* Every character of the class is a delimiter of its own. */
static int class_matches(segment_vec *s, const tf__char *p, size_t n, int (*is_delimiter)(int32_t))
{
    size_t pos = 0;
    for (size_t i = 0; i < n; i++)
        if (is_delimiter(p[i].cp) && !add_match(s, &pos, i, i + 1))
            return 0;
    return pos >= n || push_segment(s, pos, n, 0);
}

/* Scratch for regex matching over one pre-tokenization call. */
typedef struct regex_work {
    char *utf8; /* [cap] the piece as UTF-8 */
    size_t cap;
    size_t *at; /* [at_cap] the byte of each character */
    size_t at_cap;
    tf__regex_scratch *scratch;
} regex_work;

static tf_status regex_matches(segment_vec *s, regex_work *w, const tf__regex *re,
                               const tf__char *p, size_t n, const char *what)
{
    if (n + 1 > w->at_cap) {
        size_t *bigger = tf__realloc(w->at, (n + 1) * sizeof *bigger);
        if (!bigger)
            return tf__pretokenizer_no_memory(what);
        w->at = bigger;
        w->at_cap = n + 1;
    }
    const size_t len = tf__chars_utf8(p, n, &w->utf8, &w->cap, w->at);
    if (len == SIZE_MAX)
        return tf__pretokenizer_no_memory(what);
    size_t pos = 0;
    for (size_t from = 0;;) {
        size_t mb, me;
        const int found = tf__regex_next(re, w->scratch, w->utf8, len, from, &mb, &me, what);
        if (found < 0)
            return (tf_status)-found;
        if (!found)
            break;
        if (!add_match(s, &pos, tf__char_at_byte(w->at, n, mb), tf__char_at_byte(w->at, n, me)))
            return tf__pretokenizer_no_memory(what);
        from = me;
    }
    if (pos < n && !push_segment(s, pos, n, 0))
        return tf__pretokenizer_no_memory(what);
    return TF_OK;
}

/* ---- The split ---------------------------------------------------------------- */

/* The segments of piece p[0..n) at d's delimiters (unfolded). */
static tf_status find_delimiters(segment_vec *s, regex_work *w, const tf__delimiters *d,
                                 const tf__char *p, size_t n, const char *what)
{
    if (d->pattern)
        return regex_matches(s, w, d->pattern, p, n, what);
    return class_matches(s, p, n, d->is_delimiter) ? TF_OK : tf__pretokenizer_no_memory(what);
}

tf_status tf__split_pieces(tf__chars *out, const tf__chars *in, tf__delimiters d,
                           tf__split_behavior behavior, int invert, const char *what)
{
    segment_vec s = {0};
    regex_work w = {0};
    tf_status st = TF_OK;
    if (d.pattern && !(w.scratch = tf__regex_scratch_create(d.pattern)))
        st = tf__pretokenizer_no_memory(what);
    for (size_t i = 0; i < in->n && st == TF_OK;) {
        size_t j = i + 1;
        while (j < in->n && !in->v[j].word_start)
            j++;
        s.n = 0;
        st = find_delimiters(&s, &w, &d, in->v + i, j - i, what);
        for (size_t k = 0; k < s.n && invert; k++)
            s.v[k].match = !s.v[k].match;
        if (st == TF_OK) {
            fold(&s, behavior);
            if (!emit(out, in->v + i, &s))
                st = tf__pretokenizer_no_memory(what);
        }
        i = j;
    }
    tf__free(s.v);
    tf__free(w.utf8);
    tf__free(w.at);
    tf__regex_scratch_free(w.scratch);
    return st;
}

tf_status tf__split_behavior_read(const tf__fields *f, tf__split_behavior dflt,
                                  tf__split_behavior *out)
{
    static const char *const names[] = {"Removed", "Isolated", "MergedWithPrevious",
                                        "MergedWithNext", "Contiguous"};
    _Static_assert(sizeof names / sizeof *names == TF_SPLIT_CONTIGUOUS + 1,
                   "a name for each behavior, TF_SPLIT_CONTIGUOUS the last");
    const char *name;
    const tf_status s = f->string(f, "behavior", 1, &name);
    *out = dflt;
    if (s || !name || !name[0])
        return s;
    for (int k = 0; k <= TF_SPLIT_CONTIGUOUS; k++)
        if (strcmp(name, names[k]) == 0) {
            *out = (tf__split_behavior)k;
            return TF_OK;
        }
    return f->expected(f, "behavior",
                       "Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}
