/* precompiled.c — tokenizers' Precompiled normalizer
 * (normalizers/precompiled.rs over the crate spm_precompiled):
 * SentencePiece's precompiled_charsmap (the normalizer an .model file
 * carries, nmt_nfkc and the like), a double-array trie (darts-clone's
 * units) from UTF-8 keys to offsets into a block of NUL-terminated
 * replacement strings: decoding it, the lookup, and the normalizer. */
#include "normalizers.h"

#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "base64.h"
#include "error.h"

#define TF_GRAPHEME_WHOLE 6 /* graphemes of fewer bytes are looked up whole */

/* ---- The charsmap ------------------------------------------------------------ */

typedef struct tf__precompiled {
    uint32_t *trie; /* [n_units] the double array */
    size_t n_units;
    char *normalized; /* [n_normalized] replacements, each ended by a NUL */
    size_t n_normalized;
} tf__precompiled;

static void precompiled_destroy(tf__precompiled *p);

/* The charsmap from its base64 text (as tokenizer.json writes it): a
 * little-endian uint32 byte size of the trie, the trie, the replacements
 * (valid UTF-8). A malformed one is TF_ERR_FORMAT naming `what`. */
static tf_status precompiled_load(tf__precompiled *p, const char *base64, const char *what)
{
    memset(p, 0, sizeof *p);
    unsigned char *bytes = NULL;
    size_t len = 0;
    size_t bad_at = 0;
    const int decoded = tf__base64_decode(base64, strlen(base64), 1, &bytes, &len, &bad_at);
    if (decoded == TF__BASE64_NO_MEMORY)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the charsmap", what);
    if (decoded != TF__BASE64_OK)
        return tf__fail(TF_ERR_FORMAT, "%s: expected base64 (A-Z a-z 0-9 + /, '=' padding)", what);
    const uint32_t trie_bytes = len >= 4 ? (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 |
            (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24
                                         : 0;
    const size_t units = trie_bytes / 4; /* the rest of a size not a multiple of 4 is text */
    if (len < 4 || units > (len - 4) / 4) {
        tf__free(bytes);
        return tf__fail(TF_ERR_FORMAT,
                        "%s: a charsmap of %zu bytes cannot hold a trie of %lu "
                        "bytes after its 4-byte size",
                        what, len, (unsigned long)trie_bytes);
    }
    const size_t text_at = 4 + 4 * units;
    p->n_units = units;
    p->n_normalized = len - text_at;
    p->trie = tf__malloc((units ? units : 1) * sizeof *p->trie);
    p->normalized = tf__malloc(p->n_normalized + 1);
    if (!p->trie || !p->normalized) {
        tf__free(bytes);
        precompiled_destroy(p);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the charsmap", what);
    }
    for (size_t k = 0; k < units; k++) {
        const unsigned char *u = bytes + 4 + 4 * k;
        p->trie[k] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
            (uint32_t)u[3] << 24;
    }
    memcpy(p->normalized, bytes + text_at, p->n_normalized);
    p->normalized[p->n_normalized] = '\0';
    tf__free(bytes);
    utf8proc_int32_t cp;
    for (size_t at = 0; at < p->n_normalized;) {
        const utf8proc_ssize_t step = utf8proc_iterate((const utf8proc_uint8_t *)p->normalized + at,
                                                       (utf8proc_ssize_t)(p->n_normalized - at),
                                                       &cp);
        if (step <= 0) {
            precompiled_destroy(p);
            return tf__fail(TF_ERR_FORMAT,
                            "%s: the replacement text is not valid UTF-8 (at its "
                            "byte %zu)",
                            what, at);
        }
        at += (size_t)step;
    }
    return TF_OK;
}

static void precompiled_destroy(tf__precompiled *p)
{
    tf__free(p->trie);
    tf__free(p->normalized);
    memset(p, 0, sizeof *p);
}

/* ---- The lookup ----------------------------------------------------------------- */

/* A darts-clone unit's fields. */
static int has_leaf(uint32_t unit)
{
    return (unit >> 8) & 1;
}
static uint32_t value(uint32_t unit)
{
    return unit & ((1u << 31) - 1);
}
static uint32_t label(uint32_t unit)
{
    return unit & ((1u << 31) | 0xFF);
}
static size_t offset(uint32_t unit)
{
    return (size_t)(unit >> 10) << ((unit & (1u << 9)) >> 6);
}

/* The replacement of the shortest key that key[0..len) starts with (stopping
 * at a NUL byte, as the crate does), or NULL; a trie that leads outside
 * itself or into the middle of a character has no key there. */
static const char *first_match(const tf__precompiled *p, const unsigned char *key, size_t len)
{
    if (p->n_units == 0)
        return NULL;
    size_t pos = offset(p->trie[0]);
    for (size_t k = 0; k < len && key[k]; k++) {
        pos ^= key[k];
        if (pos >= p->n_units || label(p->trie[pos]) != key[k])
            return NULL;
        const uint32_t unit = p->trie[pos];
        pos ^= offset(unit);
        if (has_leaf(unit)) {
            if (pos >= p->n_units)
                return NULL;
            const uint32_t at = value(p->trie[pos]);
            const int inside = at < p->n_normalized &&
                ((unsigned char)p->normalized[at] & 0xC0) != 0x80;
            return inside ? p->normalized + at : at == p->n_normalized ? "" : NULL;
        }
    }
    return NULL;
}

/* ---- The normalizer ------------------------------------------------------------- */

/* The UTF-8 of c[0..n) into buf (room for `size`); its length, or SIZE_MAX
 * when it does not fit. */
static size_t utf8_of(const tf__char *c, size_t n, unsigned char *buf, size_t size)
{
    size_t len = 0;
    for (size_t k = 0; k < n; k++) {
        if (len + 4 > size)
            return SIZE_MAX;
        len += (size_t)utf8proc_encode_char(c[k].cp, buf + len);
    }
    return len;
}

/* The characters of the replacement text, each spanning c[0..n)'s bytes. */
static int push_replacement(tf__chars *out, const char *text, const tf__char *c, size_t n)
{
    uint32_t begin = c[0].begin, end = c[0].end;
    for (size_t k = 1; k < n; k++) {
        begin = c[k].begin < begin ? c[k].begin : begin;
        end = c[k].end > end ? c[k].end : end;
    }
    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)text;
    for (utf8proc_int32_t cp; *s;) {
        s += utf8proc_iterate(s, -1, &cp);
        if (!tf__chars_push(out, cp, begin, end))
            return 0;
    }
    return 1;
}

/* The characters of c[0..n) one at a time: replaced, or as they are. */
static int per_char(tf__chars *out, const tf__char *c, size_t n, const tf__precompiled *p)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char key[4];
        const size_t len = (size_t)utf8proc_encode_char(c[k].cp, key);
        const char *norm = first_match(p, key, len);
        if (!(norm ? push_replacement(out, norm, c + k, 1)
                   : tf__chars_push(out, c[k].cp, c[k].begin, c[k].end)))
            return 0;
    }
    return 1;
}

/* out = in normalised: each extended grapheme cluster of fewer than 6
 * bytes that the trie has a key at the start of is replaced whole (by the
 * first, shortest key's string); the characters of the others one by one
 * likewise; a replacement spans the bytes of what it replaced. */
static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const tf__precompiled *p = state;
    for (size_t i = 0; i < in->n;) {
        utf8proc_int32_t breaks = 0; /* utf8proc's state of the grapheme breaks */
        size_t j = i + 1;            /* the grapheme is in->v[i..j) */
        while (j < in->n &&
               !utf8proc_grapheme_break_stateful(in->v[j - 1].cp, in->v[j].cp, &breaks))
            j++;
        unsigned char key[TF_GRAPHEME_WHOLE + 4];
        const size_t len = utf8_of(in->v + i, j - i, key, sizeof key);
        const char *norm = len < TF_GRAPHEME_WHOLE ? first_match(p, key, len) : NULL;
        if (!(norm ? push_replacement(out, norm, in->v + i, j - i)
                   : per_char(out, in->v + i, j - i, p)))
            return tf__normalizer_no_memory(what);
        i = j;
    }
    return TF_OK;
}

static tf_status read(void *state, const tf__fields *f)
{
    const char *charsmap;
    char what[TF_FIELD_WHERE];
    f->where(f, "precompiled_charsmap", what);
    const tf_status s = f->string(f, "precompiled_charsmap", 0, &charsmap);
    return s ? s : precompiled_load(state, charsmap, what);
}

static void destroy(void *state)
{
    precompiled_destroy(state);
}

const tf__normalizer_type tf__precompiled_normalizer = {
    .stage = {"Precompiled", sizeof(tf__precompiled), read, destroy},
    .apply = apply,
};
