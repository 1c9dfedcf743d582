/* chars.c — characters with their source bytes, and the Unicode classes of
 * Hugging Face's tokenizers (data from utf8proc, with tokenizers' classes
 * where its Unicode 9.0 tables differ: bert_classes.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "chars.h"

#include <string.h>
#include <sys/mman.h>
#include <utf8proc.h>

#include "alloc.h"
#include "bert_classes.h"
#include "checked.h"
#include "error.h"
#include "utf8.h"

/* Arrays of two of these (4 MiB) or more are made of huge pages where the
 * system allows (transparent huge pages, "madvise" mode): their first touch
 * then faults once per 2 MiB instead of once per 4 KiB. On this project's
 * VM the faults were most of the time of a long text (4 MB of text, 24
 * bytes a character in each stage's array: 2.0 MB/s; with huge pages 14.5). */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* `bytes` for an array that replaces old (its first `used` bytes copied);
 * NULL when out of memory, old untouched. */
static void *grow_array(void *old, size_t used, size_t bytes)
{
    if (bytes < 2 * HUGE_PAGE_BYTES)
        return tf__realloc(old, bytes);
    size_t whole;
    if (!tf__add_size(bytes, HUGE_PAGE_BYTES - 1, &whole))
        return NULL;
    whole -= whole % HUGE_PAGE_BYTES;
    void *v = tf__aligned_alloc(HUGE_PAGE_BYTES, whole);
    if (!v)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(v, whole, MADV_HUGEPAGE); /* advice: where refused, small pages */
#endif
    if (used)
        memcpy(v, old, used);
    tf__free(old);
    return v;
}

/* The capacity after cap (> 0): half as much again, so that an array of a
 * long text is at most that much larger than what it holds, and growing
 * it holds 2.5 times that at once (the old array and the new). */
static size_t grown_capacity(size_t cap)
{
    return cap + cap / 2 + 1;
}

void *tf__reserve_one(void *v, size_t *cap, size_t n, size_t size, size_t initial)
{
    if (n < *cap)
        return v;
    const size_t grown = *cap ? grown_capacity(*cap) : initial;
    size_t bytes;
    void *bigger = tf__mul_size(grown, size, &bytes) ? grow_array(v, n * size, bytes) : NULL;
    if (bigger)
        *cap = grown;
    return bigger;
}

int tf__chars_reserve(tf__chars *c, size_t n)
{
    if (n <= c->cap)
        return 1;
    size_t cap = c->cap ? grown_capacity(c->cap) : 256, bytes;
    cap = cap < n ? n : cap;
    tf__char *v = tf__mul_size(cap, sizeof *v, &bytes) ? grow_array(c->v, c->n * sizeof *v, bytes)
                                                       : NULL;
    if (!v)
        return 0;
    c->v = v;
    c->cap = cap;
    return 1;
}

int tf__chars_reserve_output(tf__chars *out, const tf__chars *in)
{
    size_t n;
    return tf__add_size(out->n, in->n + in->n / 16 + 16, &n) && tf__chars_reserve(out, n);
}

tf_status tf__chars_decode(tf__chars *out, const char *text, size_t len, int64_t base,
                           const char *what)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    if (!tf__chars_reserve(out, out->n + tf__utf8_count(text, len))) /* (exactly, when valid) */
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the characters", what);
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp = p[i];
        utf8proc_ssize_t n = 1;
        if (cp >= 0x80)
            n = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
        if (n < 0)
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: invalid UTF-8 at byte %lld (0x%02x)",
                            what, (long long)base + (long long)i, p[i]);
        if (!tf__chars_push(out, cp, base + (int64_t)i, base + (int64_t)i + n))
            return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the characters", what);
        i += (size_t)n;
    }
    return TF_OK;
}

size_t tf__chars_utf8(const tf__char *c, size_t n, char **buf, size_t *cap, size_t *at)
{
    size_t need;
    if (!tf__mul_size(n, 4, &need) || need == SIZE_MAX)
        return SIZE_MAX;
    if (need + 1 > *cap) {
        char *bigger = tf__realloc(*buf, need + 1);
        if (!bigger)
            return SIZE_MAX;
        *buf = bigger;
        *cap = need + 1;
    }
    size_t bytes = 0;
    for (size_t k = 0; k < n; k++) {
        if (at)
            at[k] = bytes;
        bytes += (size_t)utf8proc_encode_char(c[k].cp, (utf8proc_uint8_t *)*buf + bytes);
    }
    if (at)
        at[n] = bytes;
    (*buf)[bytes] = '\0';
    return bytes;
}

size_t tf__char_at_byte(const size_t *at, size_t n, size_t b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (at[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The class BertTokenizerFast gives cp where that differs from cp's Unicode
 * category, or -1. */
static int bert_class_override(int32_t cp)
{
    size_t lo = 0, hi = sizeof tf__bert_class_ranges / sizeof tf__bert_class_ranges[0];
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const tf__bert_class_range *r = &tf__bert_class_ranges[mid];
        if (cp < r->first)
            hi = mid;
        else if (cp > r->last)
            lo = mid + 1;
        else
            return (int)r->cls;
    }
    return -1;
}

/* ASCII's, the space separators Zs, U+2028 (Zl), U+2029 (Zp), and the
 * White_Space controls U+000B, U+000C, U+0085. */
int tf__is_whitespace(int32_t cp)
{
    if (cp < 0x80)
        return cp == ' ' || (cp >= '\t' && cp <= '\r');
    const utf8proc_category_t c = utf8proc_category(cp);
    return cp == 0x85 || c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL ||
        c == UTF8PROC_CATEGORY_ZP;
}

/* Unassigned code points (Cn) are not controls: tokenizers' category
 * tables, made from UnicodeData.txt, list no Cn. */
int tf__is_control(int32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\r')
        return 0;
    const int bert = bert_class_override(cp);
    if (bert >= 0)
        return bert == TF_BERT_CONTROL;
    const utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CS ||
        c == UTF8PROC_CATEGORY_CO;
}

int tf__is_punctuation(int32_t cp)
{
    if (cp < 0x80) /* every ASCII symbol counts, as in BERT */
        return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
            (cp >= 123 && cp <= 126);
    const int bert = bert_class_override(cp);
    if (bert >= 0)
        return bert == TF_BERT_PUNCTUATION;
    const utf8proc_category_t c = utf8proc_category(cp);
    return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
}

int tf__is_nonspacing_mark(int32_t cp)
{
    const int bert = bert_class_override(cp);
    return bert >= 0 ? bert == TF_BERT_MARK : utf8proc_category(cp) == UTF8PROC_CATEGORY_MN;
}

/* As tokenizers' BertNormalizer has them (its range after U+2B81F starts at
 * U+2B920, where transformers' Python BasicTokenizer says U+2B820). */
int tf__is_cjk(int32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
        (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
        (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
        (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

/* Unicode's simple mapping, except for U+0130 (İ), whose lower case is two
 * characters, i and U+0307 (combining dot above). */
int tf__chars_push_lower(tf__chars *out, int32_t cp, int64_t begin, int64_t end)
{
    if (cp == 0x130)
        return tf__chars_push(out, 'i', begin, end) && tf__chars_push(out, 0x307, begin, end);
    return tf__chars_push(
        out, cp < 0x80 ? (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp) : utf8proc_tolower(cp), begin,
        end);
}
