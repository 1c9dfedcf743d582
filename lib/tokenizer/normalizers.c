/* normalizers.c — tokenizers' normalizers over characters that keep their
 * source bytes: a character made from others spans all of them; text put
 * in (Prepend, Replace's content) spans a character next to it, as
 * tokenizers aligns it. */
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "error.h"
#include "stages.h"

#define TF_RUN_STACK 64 /* code points of a run normalised without allocating */

/* ---- BertNormalizer --------------------------------------------------------- */

/* cp >= 0x80 from [begin, end) with accents stripped (NFD, nonspacing marks
 * dropped) then lower-cased, each as n says. */
static int bert_push_normalised(tf_chars *out, const tf_normalizer *n, int32_t cp, int64_t begin,
                                int64_t end)
{
    utf8proc_int32_t parts[32]; /* the decomposition of cp */
    utf8proc_ssize_t count = 1;
    parts[0] = cp;
    if (n->strip_accents) {
        int boundclass = 0;
        count = utf8proc_decompose_char(cp, parts, 32, UTF8PROC_DECOMPOSE, &boundclass);
        if (count < 0 || count > 32)
            count = 1, parts[0] = cp;
    }
    for (utf8proc_ssize_t i = 0; i < count; i++) {
        if (n->strip_accents && tf_is_nonspacing_mark(parts[i]))
            continue;
        if (!(n->lowercase ? tf_chars_push_lower(out, parts[i], begin, end)
                           : tf_chars_push(out, parts[i], begin, end)))
            return 0;
    }
    return 1;
}

/* BertNormalizer's passes, one character at a time: control characters,
 * NUL and U+FFFD dropped and whitespace made ' ' (clean_text), CJK
 * ideographs surrounded by ' ', accents, case. */
static int bert_one(tf_chars *out, const tf_normalizer *n, const tf_char *c)
{
    const int32_t cp = c->cp;
    if (n->clean_text && (cp == 0 || cp == 0xFFFD || tf_is_control(cp)))
        return 1;
    if (n->clean_text && tf_is_whitespace(cp))
        return tf_chars_push(out, ' ', c->begin, c->end);
    if (cp < 0x80)
        return n->lowercase ? tf_chars_push_lower(out, cp, c->begin, c->end)
                            : tf_chars_push(out, cp, c->begin, c->end);
    if (n->handle_chinese_chars && tf_is_cjk(cp))
        return tf_chars_push(out, ' ', c->begin, c->end) &&
               bert_push_normalised(out, n, cp, c->begin, c->end) &&
               tf_chars_push(out, ' ', c->begin, c->end);
    return bert_push_normalised(out, n, cp, c->begin, c->end);
}

/* ---- Unicode normalisation forms ---------------------------------------------- */

/* Whether cp joins the run of the character before it: a combining mark,
 * or a Hangul vowel or final consonant (which compose with what precedes). */
static int continues_run(int32_t cp)
{
    return (cp >= 0x1160 && cp <= 0x11FF) || utf8proc_get_property(cp)->combining_class != 0;
}

/* A code point of a run and the bytes it came from. */
typedef struct run_char {
    utf8proc_int32_t cp;
    int64_t begin, end;
} run_char;

static int ccc(utf8proc_int32_t cp)
{
    return utf8proc_get_property(cp)->combining_class;
}

/* Marks in the canonical order: each moved before those of a higher
 * combining class (a stable sort, as Unicode's canonical reordering). */
static void canonical_order(run_char *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const run_char x = r[i];
        const int cls = ccc(x.cp);
        size_t j = i;
        while (cls && j > 0 && ccc(r[j - 1].cp) > cls) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
}

/* The primary composite of a and b, or -1 (utf8proc composing the pair). */
static utf8proc_int32_t compose_pair(utf8proc_int32_t a, utf8proc_int32_t b)
{
    utf8proc_int32_t pair[2] = {a, b};
    return utf8proc_normalize_utf32(pair, 2, UTF8PROC_STABLE | UTF8PROC_COMPOSE) == 1 ? pair[0]
                                                                                      : -1;
}

/* Canonical composition in place (Unicode's algorithm: a character joins
 * the last starter unless something between blocks it); a composite
 * spans the bytes of both. Returns the new length. */
static size_t compose(run_char *r, size_t n)
{
    size_t m = 0, starter = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const int cls = ccc(r[i].cp);
        const int last = m ? ccc(r[m - 1].cp) : 0;
        const int free = starter != SIZE_MAX && (m - 1 == starter || (last && last < cls));
        const utf8proc_int32_t c = free ? compose_pair(r[starter].cp, r[i].cp) : -1;
        if (c >= 0) {
            r[starter].cp = c;
            r[starter].begin = r[i].begin < r[starter].begin ? r[i].begin : r[starter].begin;
            r[starter].end = r[i].end > r[starter].end ? r[i].end : r[starter].end;
            continue;
        }
        if (cls == 0)
            starter = m;
        r[m++] = r[i];
    }
    return m;
}

/* The normal form of the run c[0..n) (options as utf8proc's): each
 * character decomposed (its parts span its bytes), reordered, composed. */
static int normalize_run(tf_chars *out, const tf_char *c, size_t n, utf8proc_option_t options)
{
    if (n == 1 && c[0].cp < 0x80)
        return tf_chars_push(out, c[0].cp, c[0].begin, c[0].end);
    run_char stack[TF_RUN_STACK], *r = stack; /* [cap] the run's code points */
    size_t cap = TF_RUN_STACK, count = 0;
    const utf8proc_option_t decompose = (options & ~UTF8PROC_COMPOSE) | UTF8PROC_DECOMPOSE;
    for (size_t k = 0; k < n; k++) {
        utf8proc_int32_t parts[32]; /* a decomposition has at most 18 */
        int boundclass = 0;
        utf8proc_ssize_t p = utf8proc_decompose_char(c[k].cp, parts, 32, decompose, &boundclass);
        if (p < 0 || p > 32)
            p = 1, parts[0] = c[k].cp;
        if (count + (size_t)p > cap) {
            run_char *bigger = tf_malloc(2 * (count + (size_t)p) * sizeof *bigger);
            if (!bigger) {
                if (r != stack)
                    tf_free(r);
                return 0;
            }
            memcpy(bigger, r, count * sizeof *r);
            if (r != stack)
                tf_free(r);
            r = bigger, cap = 2 * (count + (size_t)p);
        }
        for (utf8proc_ssize_t i = 0; i < p; i++)
            r[count++] = (run_char){parts[i], c[k].begin, c[k].end};
    }
    canonical_order(r, count);
    if (options & UTF8PROC_COMPOSE)
        count = compose(r, count);
    int ok = 1;
    for (size_t k = 0; ok && k < count; k++)
        ok = tf_chars_push(out, r[k].cp, r[k].begin, r[k].end);
    if (r != stack)
        tf_free(r);
    return ok;
}

static int unicode_normalize(tf_chars *out, const tf_chars *in, utf8proc_option_t options)
{
    for (size_t i = 0; i < in->n;) {
        size_t j = i + 1;
        while (j < in->n && continues_run(in->v[j].cp))
            j++;
        if (!normalize_run(out, in->v + i, j - i, options))
            return 0;
        i = j;
    }
    return 1;
}

/* ---- The others ---------------------------------------------------------------- */

static int is_mark(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

static int push_content(tf_chars *out, const tf_chars *content, int64_t begin, int64_t end)
{
    for (size_t k = 0; k < content->n; k++)
        if (!tf_chars_push(out, content->v[k].cp, begin, end))
            return 0;
    return 1;
}

/* The bytes of the text in's characters come from: from the first byte
 * any of them starts at to the last any ends at. */
static size_t source_bytes(const tf_chars *in)
{
    uint32_t first = UINT32_MAX, last = 0;
    for (size_t k = 0; k < in->n; k++) {
        first = in->v[k].begin < first ? in->v[k].begin : first;
        last = in->v[k].end > last ? in->v[k].end : last;
    }
    return in->n ? last - first : 0;
}

/* The most characters a normalizer may make of its input `in`:
 * TF_GROWTH_PER_BYTE per byte of the text they come from, or in's own
 * count if more (a normalizer that adds none is never refused); found the
 * first time a normalizer makes more than in's count. */
typedef struct growth {
    const tf_chars *in;
    size_t most; /* 0 until found */
} growth;

/* Whether `made` characters of g->in pass its bound. */
static int grows_past(growth *g, size_t made)
{
    const tf_chars *in = g->in;
    if (made <= in->n)
        return 0;
    /* the bytes from the first character's to the last's are of the text
       (most often all of it): within their bound, no need to look further */
    const uint32_t first = in->n ? in->v[0].begin : 0, last = in->n ? in->v[in->n - 1].end : 0;
    if (last > first && made <= TF_GROWTH_PER_BYTE * (size_t)(last - first))
        return 0;
    if (!g->most) {
        const size_t bound = TF_GROWTH_PER_BYTE * source_bytes(in);
        g->most = in->n > bound ? in->n : bound;
    }
    return made > g->most;
}

/* The name tokenizer.json's types give a normalizer's kind. */
static const char *kind_name(tf_normalizer_kind kind)
{
    static const char *const names[] = {
        [TF_NORMALIZER_BERT] = "BertNormalizer",
        [TF_NORMALIZER_NFC] = "NFC",
        [TF_NORMALIZER_NFD] = "NFD",
        [TF_NORMALIZER_NFKC] = "NFKC",
        [TF_NORMALIZER_NFKD] = "NFKD",
        [TF_NORMALIZER_LOWERCASE] = "Lowercase",
        [TF_NORMALIZER_STRIP_ACCENTS] = "StripAccents",
        [TF_NORMALIZER_STRIP] = "Strip",
        [TF_NORMALIZER_REPLACE] = "Replace",
        [TF_NORMALIZER_PREPEND] = "Prepend",
        [TF_NORMALIZER_PRECOMPILED] = "Precompiled"};
    _Static_assert(sizeof names / sizeof *names == TF_NORMALIZER_PRECOMPILED + 1,
                   "a name for each kind, TF_NORMALIZER_PRECOMPILED the last");
    return names[kind];
}

/* n would make more than g->most characters of g->in. */
static tf_status growth_failure(const tf_normalizer *n, const growth *g, const char *what)
{
    const size_t bytes = source_bytes(g->in), most = g->most;
    if (n->pattern)
        return tf_fail(TF_ERR_UNSUPPORTED,
                       "%s: %s: the Replace normalizer would make more than %zu characters, %d "
                       "per byte of the %zu bytes of text they come from; pattern \"%s\"",
                       what, tf_regex_what(n->pattern), most, TF_GROWTH_PER_BYTE, bytes,
                       tf_regex_shown(n->pattern));
    return tf_fail(TF_ERR_UNSUPPORTED,
                   "%s: the %s normalizer would make more than %zu characters, %d per byte of the "
                   "%zu bytes of text they come from",
                   what, kind_name(n->kind), most, TF_GROWTH_PER_BYTE, bytes);
}

/* Each match of n->pattern becomes n->content, which spans the last
 * matched character's bytes (as tokenizers aligns it: the others count as
 * removed before it); more characters than its growth bound is refused
 * before the content that would pass it is put in. */
static tf_status replace(tf_chars *out, const tf_chars *in, const tf_normalizer *n,
                         const char *what)
{
    const size_t base = out->n; /* out's characters before in's */
    growth g = {in, 0};
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
        if (s == TF_OK && grows_past(&g, out->n - base + n->content.n))
            s = growth_failure(n, &g, what);
        if (s == TF_OK && !push_content(out, &n->content, in->v[b - 1].begin, in->v[b - 1].end))
            s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
        copied = b;
        from = me;
    }
    if (s == TF_OK && grows_past(&g, out->n - base))
        s = growth_failure(n, &g, what);
    tf_regex_scratch_free(scratch);
    tf_free(at);
    tf_free(utf8);
    return s;
}

static int copy(tf_chars *out, const tf_chars *in)
{
    for (size_t k = 0; k < in->n; k++)
        if (!tf_chars_push(out, in->v[k].cp, in->v[k].begin, in->v[k].end))
            return 0;
    return 1;
}

static int strip(tf_chars *out, const tf_chars *in, const tf_normalizer *n)
{
    size_t first = 0, last = in->n;
    while (n->left && first < last && tf_is_whitespace(in->v[first].cp))
        first++;
    while (n->right && last > first && tf_is_whitespace(in->v[last - 1].cp))
        last--;
    for (size_t k = first; k < last; k++)
        if (!tf_chars_push(out, in->v[k].cp, in->v[k].begin, in->v[k].end))
            return 0;
    return 1;
}

/* One character at a time: Bert, Lowercase, StripAccents. */
static int per_char(tf_chars *out, const tf_chars *in, const tf_normalizer *n)
{
    for (size_t k = 0; k < in->n; k++) {
        const tf_char *c = &in->v[k];
        int ok;
        if (n->kind == TF_NORMALIZER_BERT)
            ok = bert_one(out, n, c);
        else if (n->kind == TF_NORMALIZER_LOWERCASE)
            ok = tf_chars_push_lower(out, c->cp, c->begin, c->end);
        else /* StripAccents */
            ok = is_mark(c->cp) || tf_chars_push(out, c->cp, c->begin, c->end);
        if (!ok)
            return 0;
    }
    return 1;
}

tf_status tf_normalize(tf_chars *out, const tf_chars *in, const tf_normalizer *n,
                       const char *what)
{
    if (!tf_chars_reserve_output(out, in))
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate while normalising", what);
    const size_t base = out->n;
    int ok = 1;
    switch (n->kind) {
    case TF_NORMALIZER_BERT:
    case TF_NORMALIZER_LOWERCASE:
    case TF_NORMALIZER_STRIP_ACCENTS:
        ok = per_char(out, in, n);
        break;
    case TF_NORMALIZER_NFC:
        ok = unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
        break;
    case TF_NORMALIZER_NFD:
        ok = unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
        break;
    case TF_NORMALIZER_NFKC:
        ok = unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
        break;
    case TF_NORMALIZER_NFKD:
        ok = unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
        break;
    case TF_NORMALIZER_STRIP:
        ok = strip(out, in, n);
        break;
    case TF_NORMALIZER_REPLACE: /* its growth checked as it goes */
        return replace(out, in, n, what);
    case TF_NORMALIZER_PRECOMPILED:
        ok = tf_precompiled_normalize(out, in, &n->charsmap);
        break;
    case TF_NORMALIZER_PREPEND:
        /* the text put in spans the first character, as tokenizers aligns it */
        ok = in->n == 0 || (push_content(out, &n->content, in->v[0].begin, in->v[0].end) &&
                            copy(out, in));
        break;
    }
    if (!ok)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate while normalising", what);
    /* checked after: these make a few characters of one at most (Precompiled
       and Prepend at most their strings) */
    growth g = {in, 0};
    return grows_past(&g, out->n - base) ? growth_failure(n, &g, what) : TF_OK;
}

void tf_normalizer_clear(tf_normalizer *n)
{
    tf_regex_free(n->pattern);
    tf_free(n->content.v);
    tf_precompiled_destroy(&n->charsmap);
    memset(n, 0, sizeof *n);
}
