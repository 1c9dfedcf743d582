/* added_tokens.c — finding the added tokens in text (tokenizers'
 * AddedVocabulary): leftmost-longest matches, then single_word, lstrip and
 * rstrip as each token says. */
#include "added_tokens.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"

static int push_part(tf__text_parts *p, size_t begin, size_t end, int32_t token)
{
    tf__text_part *v = tf__reserve_one(p->v, &p->cap, p->n, sizeof *v, 16);
    if (!v)
        return 0;
    p->v = v;
    p->v[p->n++] = (tf__text_part){begin, end, token};
    return 1;
}

static int is_word_char(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return cp == '_' || (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
        (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

/* Whether token t is written at c[i..). */
static int matches_at(const tf__added_token *t, const tf__char *c, size_t n, size_t i)
{
    if (t->chars.n == 0 || t->chars.n > n - i)
        return 0;
    for (size_t k = 0; k < t->chars.n; k++)
        if (c[i + k].cp != t->chars.v[k].cp)
            return 0;
    return 1;
}

/* The first entry of by_first for code point cp, or n_first. */
static size_t first_with(const tf__added_tokens *a, int32_t cp)
{
    size_t lo = 0, hi = a->n_first;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (a->by_first[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The longest token of the class written at c[i..) that may stand there
 * (single_word), or -1. */
static int32_t longest_at(const tf__added_tokens *a, int normalized, const tf__char *c, size_t n,
                          size_t i)
{
    int32_t best = -1;
    for (size_t r = first_with(a, c[i].cp); r < a->n_first && a->by_first[r].cp == c[i].cp; r++) {
        const size_t k = a->by_first[r].token;
        const tf__added_token *t = &a->v[k];
        if (t->normalized != normalized || !matches_at(t, c, n, i))
            continue;
        const size_t stop = i + t->chars.n;
        if (t->single_word &&
            ((i > 0 && is_word_char(c[i - 1].cp)) || (stop < n && is_word_char(c[stop].cp))))
            continue;
        if (best < 0 || t->chars.n > a->v[best].chars.n)
            best = (int32_t)k;
    }
    return best;
}

static int compare_first(const void *x, const void *y)
{
    const tf__added_first *a = x, *b = y;
    if (a->cp != b->cp)
        return (a->cp > b->cp) - (a->cp < b->cp);
    return (a->token > b->token) - (a->token < b->token);
}

int tf__added_split(tf__text_parts *parts, const tf__added_tokens *a, int normalized,
                    const tf__char *c, size_t n)
{
    size_t text = 0; /* where the text since the last token starts */
    for (size_t i = 0; i < n;) {
        const int32_t k = longest_at(a, normalized, c, n, i);
        if (k < 0) {
            i++;
            continue;
        }
        const tf__added_token *t = &a->v[k];
        size_t begin = i, end = i + t->chars.n;
        while (t->lstrip && begin > text && tf__is_whitespace(c[begin - 1].cp))
            begin--;
        while (t->rstrip && end < n && tf__is_whitespace(c[end].cp))
            end++;
        if ((begin > text && !push_part(parts, text, begin, -1)) ||
            !push_part(parts, begin, end, k))
            return 0;
        text = i = end;
    }
    return text >= n || push_part(parts, text, n, -1);
}

int tf__added_index(tf__added_tokens *a)
{
    tf__free(a->by_first);
    a->n_first = 0;
    a->by_first = tf__malloc((a->n ? a->n : 1) * sizeof *a->by_first);
    if (!a->by_first)
        return 0;
    for (size_t k = 0; k < a->n; k++) /* a content normalised to nothing is never matched */
        if (a->v[k].chars.n)
            a->by_first[a->n_first++] = (tf__added_first){a->v[k].chars.v[0].cp, k};
    qsort(a->by_first, a->n_first, sizeof *a->by_first, compare_first);
    return 1;
}

const tf__added_token *tf__added_find_id(const tf__added_tokens *a, int32_t id)
{
    for (size_t k = 0; k < a->n; k++)
        if (a->v[k].id == id)
            return &a->v[k];
    return NULL;
}

const tf__added_token *tf__added_find(const tf__added_tokens *a, const char *token, size_t len)
{
    for (size_t k = 0; k < a->n; k++)
        if (strlen(a->v[k].content) == len && memcmp(a->v[k].content, token, len) == 0)
            return &a->v[k];
    return NULL;
}

void tf__added_tokens_destroy(tf__added_tokens *a)
{
    for (size_t k = 0; k < a->n; k++) {
        tf__free(a->v[k].content);
        tf__free(a->v[k].chars.v);
    }
    tf__free(a->v);
    tf__free(a->by_first);
    a->v = NULL, a->by_first = NULL, a->n = a->n_first = 0;
}
