/* pretokenizers.c — tokenizers' pre-tokenizers: each piece of the input is
 * cut where its delimiters are (characters of a class, or a regex's
 * matches), and the delimiters are removed, isolated or merged as the
 * split's behavior says (tokenizers' NormalizedString::split). */
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "error.h"
#include "stages.h"

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
    segment *v = tf_reserve_one(s->v, &s->cap, s->n, sizeof *v, 64);
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
static void fold(segment_vec *s, tf_split_behavior behavior)
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
                         : behavior == TF_SPLIT_CONTIGUOUS       ? g.match == previous
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
static int emit(tf_chars *out, const tf_char *p, const segment_vec *s)
{
    for (size_t k = 0; k < s->n; k++)
        for (size_t i = s->v[k].a; i < s->v[k].b; i++) {
            if (!tf_chars_push(out, p[i].cp, p[i].begin, p[i].end))
                return 0;
            out->v[out->n - 1].word_start = i == s->v[k].a;
        }
    return 1;
}

/* ---- Where the delimiters are ------------------------------------------------ */

static int is_numeric(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

/* Every character of the class `kind` is a delimiter of its own. */
static int class_matches(segment_vec *s, const tf_char *p, size_t n, tf_pretokenizer_kind kind,
                         int punctuation)
{
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        const int32_t cp = p[i].cp;
        const int hit = kind == TF_PRE_DIGITS ? is_numeric(cp)
                        : punctuation         ? tf_is_punctuation(cp)
                                              : tf_is_whitespace(cp);
        if (hit && !add_match(s, &pos, i, i + 1))
            return 0;
    }
    return pos >= n || push_segment(s, pos, n, 0);
}

/* Scratch for regex matching over one pre-tokenization call. */
typedef struct regex_work {
    char *utf8;           /* [cap] the piece as UTF-8 */
    size_t cap;
    size_t *at;           /* [at_cap] the byte of each character */
    size_t at_cap;
    tf_regex_scratch *scratch;
} regex_work;

static tf_status regex_matches(segment_vec *s, regex_work *w, const tf_regex *re,
                               const tf_char *p, size_t n, const char *what)
{
    if (n + 1 > w->at_cap) {
        size_t *bigger = tf_realloc(w->at, (n + 1) * sizeof *bigger);
        if (!bigger)
            return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        w->at = bigger;
        w->at_cap = n + 1;
    }
    const size_t len = tf_chars_utf8(p, n, &w->utf8, &w->cap, w->at);
    if (len == SIZE_MAX)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    size_t pos = 0;
    for (size_t from = 0;;) {
        size_t mb, me;
        const int found = tf_regex_next(re, w->scratch, w->utf8, len, from, &mb, &me, what);
        if (found < 0)
            return (tf_status)-found;
        if (!found)
            break;
        if (!add_match(s, &pos, tf_char_at_byte(w->at, n, mb), tf_char_at_byte(w->at, n, me)))
            return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        from = me;
    }
    if (pos < n && !push_segment(s, pos, n, 0))
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    return TF_OK;
}

/* ---- ByteLevel's characters ---------------------------------------------------- */

/* GPT-2's map: printable Latin-1 bytes are themselves, the others (controls,
 * space, NBSP, soft hyphen) 256 + their rank among those. */
int32_t tf_byte_level_char(unsigned char b)
{
    const int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    if (printable)
        return b;
    int32_t rank = 0;
    for (int k = 0; k < b; k++)
        rank += !((k >= 33 && k <= 126) || (k >= 161 && k <= 172) || k >= 174);
    return 256 + rank;
}

/* Each character of in as the byte-level characters of its UTF-8 bytes,
 * each spanning the character's bytes. */
static int to_byte_level(tf_chars *out, const tf_chars *in)
{
    size_t need = out->n;
    for (size_t k = 0; k < in->n; k++)
        need += tf_utf8_length(in->v[k].cp);
    if (!tf_chars_reserve(out, need))
        return 0;
    for (size_t k = 0; k < in->n; k++) {
        unsigned char bytes[4];
        const utf8proc_ssize_t n = utf8proc_encode_char(in->v[k].cp, bytes);
        for (utf8proc_ssize_t i = 0; i < n; i++) {
            if (!tf_chars_push(out, tf_byte_level_char(bytes[i]), in->v[k].begin, in->v[k].end))
                return 0;
            out->v[out->n - 1].word_start = i == 0 && in->v[k].word_start;
        }
    }
    return 1;
}

/* ---- One pre-tokenizer ---------------------------------------------------------- */

/* The segments of piece p[0..n) for p (unfolded). */
static tf_status find_delimiters(segment_vec *s, regex_work *w, const tf_pretokenizer *pre,
                                 const tf_char *p, size_t n, int punctuation, const char *what)
{
    if (pre->pattern)
        return regex_matches(s, w, pre->pattern, p, n, what);
    return class_matches(s, p, n, pre->kind, punctuation)
               ? TF_OK
               : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
}

/* Splits every piece of in once, by one class or pattern and behavior. */
static tf_status split_pieces(tf_chars *out, const tf_chars *in, const tf_pretokenizer *pre,
                              tf_split_behavior behavior, int punctuation, int invert,
                              const char *what)
{
    segment_vec s = {0};
    regex_work w = {0};
    tf_status st = TF_OK;
    if (pre->pattern && !(w.scratch = tf_regex_scratch_create(pre->pattern)))
        st = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    for (size_t i = 0; i < in->n && st == TF_OK;) {
        size_t j = i + 1;
        while (j < in->n && !in->v[j].word_start)
            j++;
        s.n = 0;
        st = find_delimiters(&s, &w, pre, in->v + i, j - i, punctuation, what);
        for (size_t k = 0; k < s.n && invert; k++)
            s.v[k].match = !s.v[k].match;
        if (st == TF_OK) {
            fold(&s, behavior);
            if (!emit(out, in->v + i, &s))
                st = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        }
        i = j;
    }
    tf_free(s.v);
    tf_free(w.utf8);
    tf_free(w.at);
    tf_regex_scratch_free(w.scratch);
    return st;
}

/* ByteLevel: a space before each piece that lacks one (spanning the
 * piece's first character, as tokenizers aligns it), the regex's pieces,
 * then bytes as characters. */
static tf_status byte_level(tf_chars *out, const tf_chars *in, const tf_pretokenizer *pre,
                            const char *what)
{
    tf_chars spaced = {0}, split = {0};
    int ok = 1;
    for (size_t k = 0; k < in->n && ok; k++) {
        const tf_char *c = &in->v[k];
        const int starts = k == 0 || c->word_start;
        const int prefix = starts && pre->add_prefix_space && c->cp != ' ';
        if (prefix && (ok = tf_chars_push(&spaced, ' ', c->begin, c->end)))
            spaced.v[spaced.n - 1].word_start = 1;
        if (ok && (ok = tf_chars_push(&spaced, c->cp, c->begin, c->end)))
            spaced.v[spaced.n - 1].word_start = starts && !prefix;
    }
    tf_status s = ok ? TF_OK : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    const tf_chars *pieces = &spaced;
    if (s == TF_OK && pre->pattern) {
        s = split_pieces(&split, &spaced, pre, TF_SPLIT_ISOLATED, 0, 0, what);
        pieces = &split;
    }
    if (s == TF_OK && !to_byte_level(out, pieces))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    tf_free(spaced.v);
    tf_free(split.v);
    return s;
}

/* BertPreTokenizer (tokenizers' pre_tokenizers::bert): whitespace
 * removed, each punctuation character a piece of its own; in one pass
 * over in, which is what splitting on the one and then the other makes. */
static int bert_split(tf_chars *out, const tf_chars *in)
{
    int starts = 1; /* the next character kept starts a piece */
    for (size_t k = 0; k < in->n; k++) {
        const tf_char *c = &in->v[k];
        starts |= c->word_start;
        if (tf_is_whitespace(c->cp)) {
            starts = 1;
            continue;
        }
        const int punctuation = tf_is_punctuation(c->cp);
        if (!tf_chars_push(out, c->cp, c->begin, c->end))
            return 0;
        out->v[out->n - 1].word_start = starts || punctuation;
        starts = punctuation;
    }
    return 1;
}

/* Metaspace (tokenizers' pre_tokenizers::metaspace): in each piece ' '
 * becomes the replacement, which is put before the piece (as the prepend
 * scheme says, spanning the piece's first character) unless it starts with
 * one; with split, each replacement starts a piece (MergedWithNext). */
static int metaspace(tf_chars *out, const tf_chars *in, const tf_pretokenizer *p)
{
    for (size_t i = 0; i < in->n;) {
        size_t j = i + 1;
        while (j < in->n && !in->v[j].word_start)
            j++;
        const tf_char *first = &in->v[i];
        const int has = first->cp == ' ' || first->cp == p->replacement;
        const int prepend = !has && (p->prepend_scheme == TF_PREPEND_ALWAYS ||
                                     (p->prepend_scheme == TF_PREPEND_FIRST && first->begin == 0));
        if (prepend && !tf_chars_push(out, p->replacement, first->begin, first->end))
            return 0;
        if (prepend)
            out->v[out->n - 1].word_start = 1;
        for (size_t k = i; k < j; k++) {
            const int32_t cp = in->v[k].cp == ' ' ? p->replacement : in->v[k].cp;
            if (!tf_chars_push(out, cp, in->v[k].begin, in->v[k].end))
                return 0;
            out->v[out->n - 1].word_start =
                (k == i && !prepend) || (p->split && cp == p->replacement);
        }
        i = j;
    }
    return 1;
}

tf_status tf_pre_tokenize(tf_chars *out, const tf_chars *in, const tf_pretokenizer *p,
                          const char *what)
{
    if (!tf_chars_reserve_output(out, in))
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    switch (p->kind) {
    case TF_PRE_BYTE_LEVEL:
        return byte_level(out, in, p, what);
    case TF_PRE_BERT:
        return bert_split(out, in) ? TF_OK
                                   : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    case TF_PRE_WHITESPACE: /* \w+|[^\w\s]+ kept, the rest removed */
        return split_pieces(out, in, p, TF_SPLIT_REMOVED, 0, 1, what);
    case TF_PRE_WHITESPACE_SPLIT:
        return split_pieces(out, in, p, TF_SPLIT_REMOVED, 0, 0, what);
    case TF_PRE_PUNCTUATION:
        return split_pieces(out, in, p, p->behavior, 1, 0, what);
    case TF_PRE_DIGITS:
        return split_pieces(out, in, p,
                            p->individual ? TF_SPLIT_ISOLATED : TF_SPLIT_CONTIGUOUS, 0, 0, what);
    case TF_PRE_SPLIT:
        return split_pieces(out, in, p, p->behavior, 0, p->invert, what);
    case TF_PRE_METASPACE:
        return metaspace(out, in, p) ? TF_OK
                                     : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    }
    return TF_OK;
}

void tf_pretokenizer_clear(tf_pretokenizer *p)
{
    tf_regex_free(p->pattern);
    memset(p, 0, sizeof *p);
}
