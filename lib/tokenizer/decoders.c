/* decoders.c — tokenizers' decoders (the decode_chain of each in its
 * decoders/ folder) over a list of token strings. */
#include "decoders.h"

#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "error.h"

/* ---- Strings -------------------------------------------------------------------- */

/* A growing NUL-terminated string. */
typedef struct text {
    char *s; /* [cap], s[n] = '\0' */
    size_t n, cap;
} text;

static int append(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        const size_t cap = 2 * (t->n + n + 1);
        char *bigger = tf_realloc(t->s, cap);
        if (!bigger)
            return 0;
        t->s = bigger, t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
    return 1;
}

static int append_cp(text *t, int32_t cp)
{
    utf8proc_uint8_t utf8[4];
    return append(t, (const char *)utf8, (size_t)utf8proc_encode_char(cp, utf8));
}

/* The bytes of the longest prefix of s[0..n) that starts a valid UTF-8
 * sequence (the "maximal subpart" Rust's from_utf8_lossy replaces by one
 * U+FFFD), at least 1; *valid whether it is a whole character. */
static size_t utf8_prefix(const unsigned char *s, size_t n, int *valid)
{
    const unsigned char c = s[0];
    const size_t need = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                        : c >= 0xF0 && c <= 0xF4                ? 4
                                                                : 0;
    *valid = need == 1;
    if (need <= 1)
        return 1;
    const unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    size_t k = 1;
    while (k < need && k < n && s[k] >= (k == 1 ? lo : 0x80) && s[k] <= (k == 1 ? hi : 0xBF))
        k++;
    *valid = k == need;
    return k;
}

/* s[0..n) with each invalid part as U+FFFD (Rust's String::from_utf8_lossy). */
static int append_lossy(text *t, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        int valid;
        const size_t k = utf8_prefix(s + i, n - i, &valid);
        if (!(valid ? append(t, (const char *)s + i, k) : append_cp(t, 0xFFFD)))
            return 0;
        i += k;
    }
    return 1;
}

/* A list of token strings. */
typedef struct texts {
    text *v; /* [n] of [cap] */
    size_t n, cap;
} texts;

/* A new empty string at the end of l, or NULL when out of memory. */
static text *more(texts *l)
{
    text *v = tf_reserve_one(l->v, &l->cap, l->n, sizeof *v, 16);
    if (!v)
        return NULL;
    l->v = v;
    l->v[l->n] = (text){0};
    text *t = &l->v[l->n++];
    return append(t, "", 0) ? t : NULL;
}

static void free_texts(texts *l)
{
    for (size_t k = 0; k < l->n; k++)
        tf_free(l->v[k].s);
    tf_free(l->v);
    *l = (texts){0};
}

/* ---- The decoders ---------------------------------------------------------------- */

/* Each token's characters back to the bytes GPT-2's map made them of (a
 * token with another character as its own UTF-8), all as one text. */
static int byte_level(texts *out, const texts *in)
{
    int16_t byte_of[512]; /* the byte of a byte-level character, -1 */
    for (int k = 0; k < 512; k++)
        byte_of[k] = -1;
    for (int b = 0; b < 256; b++)
        byte_of[tf_byte_level_char((unsigned char)b)] = (int16_t)b;
    text bytes = {0}, *t = more(out);
    int ok = t && append(&bytes, "", 0);
    for (size_t k = 0; ok && k < in->n; k++) {
        const size_t start = bytes.n;
        const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)in->v[k].s;
        int mapped = 1;
        for (utf8proc_int32_t cp; ok && mapped && *p;) {
            p += utf8proc_iterate(p, -1, &cp);
            mapped = cp < 512 && byte_of[cp] >= 0;
            const char b = mapped ? (char)byte_of[cp] : 0;
            ok = !mapped || append(&bytes, &b, 1);
        }
        if (ok && !mapped) {
            bytes.n = start;
            ok = append(&bytes, in->v[k].s, in->v[k].n);
        }
    }
    ok = ok && append_lossy(t, (const unsigned char *)bytes.s, bytes.n);
    tf_free(bytes.s);
    return ok;
}

/* s with every `from` made `to` (left to right, not overlapping). */
static int replace_all(text *t, const char *s, const char *from, const char *to)
{
    const size_t nf = strlen(from), nt = strlen(to);
    for (const char *hit; nf && (hit = strstr(s, from)) != NULL; s = hit + nf)
        if (!append(t, s, (size_t)(hit - s)) || !append(t, to, nt))
            return 0;
    return append(t, s, strlen(s));
}

/* tokenizers' wordpiece::cleanup: the spaces tokenization put before
 * punctuation and English contractions, removed. */
static int cleanup(text *t)
{
    static const char *const pairs[][2] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},       {" ,", ","},
        {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},     {" do not", " don't"},
        {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        text clean = {0};
        if (!replace_all(&clean, t->s, pairs[k][0], pairs[k][1])) {
            tf_free(clean.s);
            return 0;
        }
        tf_free(t->s);
        *t = clean;
    }
    return 1;
}

static int wordpiece(texts *out, const texts *in, const tf_decoder *d)
{
    const size_t np = strlen(d->text);
    for (size_t k = 0; k < in->n; k++) {
        const char *s = in->v[k].s;
        text *t = more(out);
        const int continues = k > 0 && strncmp(s, d->text, np) == 0;
        if (!t || (k > 0 && !continues && !append(t, " ", 1)) ||
            !append(t, s + (continues ? np : 0), strlen(s + (continues ? np : 0))) ||
            (d->cleanup && !cleanup(t)))
            return 0;
    }
    return 1;
}

static int metaspace(texts *out, const texts *in, const tf_decoder *d)
{
    for (size_t k = 0; k < in->n; k++) {
        text *t = more(out);
        if (!t)
            return 0;
        const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)in->v[k].s;
        for (utf8proc_int32_t cp; *p;) {
            p += utf8proc_iterate(p, -1, &cp);
            const int drop = cp == d->replacement && k == 0 &&
                             d->prepend_scheme != TF_PREPEND_NEVER;
            if (!drop && !append_cp(t, cp == d->replacement ? ' ' : cp))
                return 0;
        }
    }
    return 1;
}

static int bpe_suffix(texts *out, const texts *in, const tf_decoder *d)
{
    for (size_t k = 0; k < in->n; k++) {
        text *t = more(out);
        if (!t || !replace_all(t, in->v[k].s, d->text, k + 1 == in->n ? "" : " "))
            return 0;
    }
    return 1;
}

/* The byte of a "<0xXX>" token, or -1. */
static int byte_token(const text *t)
{
    if (t->n != 6 || strncmp(t->s, "<0x", 3) != 0 || t->s[5] != '>')
        return -1;
    int v = 0;
    for (int k = 3; k < 5; k++) {
        const char c = t->s[k];
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (digit < 0)
            return -1;
        v = 16 * v + digit;
    }
    return v;
}

/* The bytes collected so far: their text when valid UTF-8, else one U+FFFD
 * token per byte. */
static int flush_bytes(texts *out, text *bytes)
{
    int valid = 1;
    for (size_t i = 0; valid && i < bytes->n;) {
        const size_t k = utf8_prefix((const unsigned char *)bytes->s + i, bytes->n - i, &valid);
        i += k;
    }
    text *t = bytes->n ? more(out) : NULL;
    int ok = !bytes->n || (t && (valid ? append(t, bytes->s, bytes->n) : append_cp(t, 0xFFFD)));
    for (size_t i = 1; ok && !valid && i < bytes->n; i++)
        ok = (t = more(out)) != NULL && append_cp(t, 0xFFFD);
    bytes->n = 0;
    return ok;
}

static int byte_fallback(texts *out, const texts *in)
{
    text bytes = {0};
    int ok = append(&bytes, "", 0);
    for (size_t k = 0; ok && k < in->n; k++) {
        const int b = byte_token(&in->v[k]);
        const char c = (char)b;
        text *t;
        ok = b >= 0 ? append(&bytes, &c, 1)
                    : flush_bytes(out, &bytes) && (t = more(out)) != NULL &&
                          append(t, in->v[k].s, in->v[k].n);
    }
    ok = ok && flush_bytes(out, &bytes);
    tf_free(bytes.s);
    return ok;
}

static int fuse(texts *out, const texts *in)
{
    text *t = more(out);
    for (size_t k = 0; t && k < in->n; k++)
        if (!append(t, in->v[k].s, in->v[k].n))
            return 0;
    return t != NULL;
}

/* Strip: at most `start` leading and `stop` trailing `content` characters. */
static int strip(texts *out, const texts *in, const tf_decoder *d)
{
    utf8proc_int32_t content;
    const size_t width = (size_t)utf8proc_iterate((const utf8proc_uint8_t *)d->text, -1, &content);
    for (size_t k = 0; k < in->n; k++) {
        const char *s = in->v[k].s;
        size_t first = 0, last = in->v[k].n;
        for (int32_t i = 0; i < d->start && last - first >= width &&
                            memcmp(s + first, d->text, width) == 0; i++)
            first += width;
        for (int32_t i = 0; i < d->stop && last - first >= width &&
                            memcmp(s + last - width, d->text, width) == 0; i++)
            last -= width;
        text *t = more(out);
        if (!t || !append(t, s + first, last - first))
            return 0;
    }
    return 1;
}

/* Replace: each match of the pattern made the content; out's texts may
 * hold `most` bytes in all. */
static tf_status replace(texts *out, const texts *in, const tf_decoder *d, size_t most,
                         size_t source)
{
    tf_regex_scratch *scratch = tf_regex_scratch_create(d->pattern);
    tf_status s = scratch ? TF_OK : TF_ERR_OUT_OF_MEMORY;
    const size_t content = strlen(d->text);
    size_t made = 0; /* bytes of out's texts */
    for (size_t k = 0; s == TF_OK && k < in->n; k++) {
        const text *src = &in->v[k];
        text *t = more(out);
        size_t done = 0;
        for (size_t from = 0; s == TF_OK && t;) {
            size_t mb, me;
            const int found = tf_regex_next(d->pattern, scratch, src->s, src->n, from, &mb, &me,
                                            "decoder.Replace");
            const size_t kept = found < 0 ? 0 : (found ? mb : src->n) - done;
            if (found < 0) {
                s = (tf_status)-found;
                break;
            }
            made += kept + (found ? content : 0);
            if (made > most)
                s = tf_fail(TF_ERR_UNSUPPORTED, "decoder.Replace: the decoding would make more "
                            "than %zu bytes, %d per byte of the %zu bytes of the tokens' "
                            "strings; pattern \"%s\"", most, TF_GROWTH_PER_BYTE, source,
                            tf_regex_shown(d->pattern));
            else if (!append(t, src->s + done, kept) || (found && !append(t, d->text, content)))
                s = TF_ERR_OUT_OF_MEMORY;
            if (found <= 0)
                break;
            done = from = me;
        }
        if (!t)
            s = TF_ERR_OUT_OF_MEMORY;
    }
    tf_regex_scratch_free(scratch);
    return s;
}

/* out = in through d; a Replace may make `most` bytes of the tokens'
 * `source` bytes. */
static tf_status decode_step(texts *out, const texts *in, const tf_decoder *d, size_t most,
                             size_t source)
{
    int ok = 1;
    switch (d->kind) {
    case TF_DEC_BYTE_LEVEL: ok = byte_level(out, in); break;
    case TF_DEC_WORDPIECE: ok = wordpiece(out, in, d); break;
    case TF_DEC_METASPACE: ok = metaspace(out, in, d); break;
    case TF_DEC_BPE: ok = bpe_suffix(out, in, d); break;
    case TF_DEC_REPLACE: return replace(out, in, d, most, source);
    case TF_DEC_BYTE_FALLBACK: ok = byte_fallback(out, in); break;
    case TF_DEC_FUSE: ok = fuse(out, in); break;
    case TF_DEC_STRIP: ok = strip(out, in, d); break;
    }
    return ok ? TF_OK : TF_ERR_OUT_OF_MEMORY;
}

tf_status tf_decode_tokens(char **out, size_t *len, const char *const *tokens, size_t n,
                           const tf_decoder *d, size_t m)
{
    texts cur = {0}, next = {0};
    tf_status s = TF_OK;
    size_t source = 0; /* bytes of the tokens' strings */
    for (size_t k = 0; s == TF_OK && k < n; k++) {
        text *t = more(&cur);
        if (!t || !append(t, tokens[k], strlen(tokens[k])))
            s = TF_ERR_OUT_OF_MEMORY;
        source += strlen(tokens[k]);
    }
    /* a Replace's bound: TF_GROWTH_PER_BYTE per byte, and room for a few tokens */
    const size_t most = TF_GROWTH_PER_BYTE * (source + 16);
    for (size_t k = 0; s == TF_OK && k < m; k++) {
        s = decode_step(&next, &cur, &d[k], most, source);
        free_texts(&cur);
        cur = next;
        next = (texts){0};
    }
    text joined = {0};
    if (s == TF_OK && !append(&joined, "", 0))
        s = TF_ERR_OUT_OF_MEMORY;
    for (size_t k = 0; s == TF_OK && k < cur.n; k++)
        if ((m == 0 && k > 0 && !append(&joined, " ", 1)) ||
            !append(&joined, cur.v[k].s, cur.v[k].n))
            s = TF_ERR_OUT_OF_MEMORY;
    free_texts(&cur);
    free_texts(&next);
    if (s) {
        tf_free(joined.s);
        return s == TF_ERR_OUT_OF_MEMORY ? tf_fail(s, "decode: cannot allocate the text") : s;
    }
    *out = joined.s;
    *len = joined.n;
    return TF_OK;
}

void tf_decoder_clear(tf_decoder *d)
{
    tf_free(d->text);
    tf_regex_free(d->pattern);
    memset(d, 0, sizeof *d);
}
