/* unicode_forms.c — tokenizers' NFC, NFD, NFKC and NFKD
 * (normalizers/unicode.rs): four rows of one algorithm, Unicode's
 * normalisation of each run of a starter and the marks that follow it
 * (each character decomposed, canonically or by compatibility, its parts
 * spanning its bytes; reordered; composed or not), the form's utf8proc
 * options telling them apart. */
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "normalizers.h"

#define TF_RUN_STACK 64 /* code points of a run normalised without allocating */

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
static int normalize_run(tf__chars *out, const tf__char *c, size_t n, utf8proc_option_t options)
{
    if (n == 1 && c[0].cp < 0x80)
        return tf__chars_push(out, c[0].cp, c[0].begin, c[0].end);
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
            run_char *bigger = tf__malloc(2 * (count + (size_t)p) * sizeof *bigger);
            if (!bigger) {
                if (r != stack)
                    tf__free(r);
                return 0;
            }
            memcpy(bigger, r, count * sizeof *r);
            if (r != stack)
                tf__free(r);
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
        ok = tf__chars_push(out, r[k].cp, r[k].begin, r[k].end);
    if (r != stack)
        tf__free(r);
    return ok;
}

/* The form `options` names of every run of in. */
static tf_status unicode_normalize(tf__chars *out, const tf__chars *in, utf8proc_option_t options,
                                   const char *what)
{
    for (size_t i = 0; i < in->n;) {
        size_t j = i + 1;
        while (j < in->n && continues_run(in->v[j].cp))
            j++;
        if (!normalize_run(out, in->v + i, j - i, options))
            return tf__normalizer_no_memory(what);
        i = j;
    }
    return TF_OK;
}

static tf_status nfc(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    return unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_COMPOSE, what);
}

static tf_status nfd(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    return unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE, what);
}

static tf_status nfkc(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    return unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT, what);
}

static tf_status nfkd(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    (void)state;
    return unicode_normalize(out, in, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT, what);
}

const tf__normalizer_type tf__nfc_normalizer = {.stage = {"NFC", 0, NULL, NULL}, .apply = nfc};
const tf__normalizer_type tf__nfd_normalizer = {.stage = {"NFD", 0, NULL, NULL}, .apply = nfd};
const tf__normalizer_type tf__nfkc_normalizer = {.stage = {"NFKC", 0, NULL, NULL}, .apply = nfkc};
const tf__normalizer_type tf__nfkd_normalizer = {.stage = {"NFKD", 0, NULL, NULL}, .apply = nfkd};
