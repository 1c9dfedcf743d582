/* test_token_spans.c — the span property, on every token of every
 * text of every tokenizer.json fixture (tests/data/tokenizer_json/<name>/
 * cases.json, the texts tokenizers' ids were checked on; pairs' texts are
 * cases of their own): each token's offsets hold exactly the characters it
 * was made of. Defined without the library's alignment, from the token
 * strings, the text and the file's normalizers rewritten here on utf8proc:
 *
 * - A token's *surface* is what it says of the text: WordPiece's without
 *   "##"; a character BPE's without its continuing_subword_prefix "##" and
 *   end_of_word_suffix "</w>"; byte-level BPE's characters through GPT-2's
 *   byte-to-unicode map back to bytes ("Ġ" is the space); SentencePiece's
 *   with "▁" as the space; a byte-fallback "<0xNN>" is the byte NN. The
 *   unknown tokens ([UNK], <unk>) say nothing of their text.
 * - N(s) is the file's normalizer applied to the text s: BertNormalizer
 *   (control and format characters and U+FFFD dropped, whitespace a space;
 *   uncased: NFD, nonspacing marks dropped, lower case), NFC, NFKC, NFKD and
 *   StripAccents, bpe_chars' Replace (`` as ", each run of whitespace and
 *   digits as " 0") and Lowercase, Metaspace's and Replace's spaces as "▁".
 * - Tokens whose spans overlap (chain) form a *group*: the tokens of one
 *   character (bytes of a character as byte-level or byte-fallback tokens;
 *   a character NFKC or Precompiled makes several of, e.g. "ﬁ", whose
 *   tokens each span all of it, as tfenc.h says). The concatenated
 *   surfaces of a group are N of the text of the group's span — for the
 *   files whose pre-tokenizers drop whitespace, N without its whitespace,
 *   and the span then neither starts nor ends with a character N makes
 *   whitespace or nothing (but bpe_chars' " 0", which takes the whitespace
 *   before the digits into the character put in). Where tokens of a group
 *   overlap, the shared characters are ones that make more than one
 *   token: several bytes, or several characters under N.
 * - What a file puts before a piece (ByteLevel's prefix space, Metaspace's
 *   and Prepend's "▁") spans the piece's first character, so a group's
 *   surface may start with it where its span does not: only at the first
 *   token of the text or of a part after an added token.
 * - Groups are in the order of the text, and what lies between them (and
 *   before the first and after the last) is only what the file drops: for
 *   byte-level files nothing, else characters N makes nothing, whitespace
 *   for the files that drop it, bpe_bytes' "a" (Split Removed), the spaces
 *   SentencePiece's nmt_nfkc and Strip remove at the ends and in runs.
 * - An added token found in the text spans its content (with the
 *   whitespace lstrip and rstrip take in); the template's specials span
 *   [0, 0).
 * - Code point offsets are the byte offsets counted in code points.
 *
 * The Unigram file's Precompiled charsmap (SentencePiece's nmt_nfkc) is
 * NFKC here with nmt_nfkc's own additions: control characters (Cc) dropped,
 * U+FFFD dropped, every Unicode space and U+200B, U+200C a space, runs of
 * spaces one and none at the ends (other format characters,
 * ZWJ among them, kept). Where tfenc.h's rules move or widen a span, the
 * property follows them: a mark canonical reordering moves keeps its own
 * bytes (its token may come after the next character's, and spans only
 * marks); bpe_chars' Replace aligns " 0" as tokenizers does (to the
 * match's first characters), so the rest of a match of whitespace and
 * digits, and the second "`" of "``", lie in no token; a text the file
 * truncates (roberta's max_length) is covered up to its last token. */
#define _GNU_SOURCE
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

/* ---- The rules of each file ------------------------------------------------------ */

typedef enum surface_kind {
    SURFACE_WORDPIECE,  /* "##" continuation */
    SURFACE_AFFIXES,    /* "##" prefix and "</w>" suffix (bpe_chars) */
    SURFACE_BYTE_LEVEL, /* GPT-2's byte characters */
    SURFACE_METASPACE,  /* "▁" the space, "<0xNN>" bytes */
    SURFACE_BYTES       /* as written, "<0xNN>" bytes (bpe_bytes) */
} surface_kind;

enum {                        /* what N does, in this order */
       N_BERT_CLEAN = 1 << 0, /* controls, format characters, U+FFFD dropped; spaces */
       N_NMT_NFKC = 1 << 1,   /* NFKC, controls dropped, spaces */
       N_NFKC = 1 << 2,
       N_NFKD = 1 << 3,
       N_NFD = 1 << 4,
       N_NFC = 1 << 5,
       N_STRIP_MN = 1 << 6,     /* nonspacing marks dropped (BertNormalizer's strip_accents) */
       N_STRIP_MARKS = 1 << 10, /* every mark (M*) dropped (StripAccents) */
       N_QUOTES_ZERO = 1 << 7,  /* bpe_chars' Replace: `` as ", whitespace and digits " 0" */
       N_LOWER = 1 << 8,
       N_META = 1 << 9 /* ' ' as "▁" */
};

typedef struct span_rules {
    const char *name;
    surface_kind surface;
    int norm;
    const char *prefix;  /* what a piece's start may get, or NULL */
    int prefix_always;   /* even before a piece that starts with a space (Prepend) */
    int drops_spaces;    /* the pre-tokenizers remove whitespace */
    const char *dropped; /* characters (after N) they remove too */
} span_rules;

static const span_rules files[] = {
    {"bert_uncased", SURFACE_WORDPIECE, N_BERT_CLEAN | N_NFD | N_STRIP_MN | N_LOWER, NULL, 0, 1,
     ""},
    {"bert_cased", SURFACE_WORDPIECE, N_BERT_CLEAN, NULL, 0, 1, ""},
    {"qwen3", SURFACE_BYTE_LEVEL, N_NFC, NULL, 0, 0, ""},
    {"roberta", SURFACE_BYTE_LEVEL, 0, " ", 0, 0, ""},
    {"bpe_chars", SURFACE_AFFIXES, N_NFKC | N_QUOTES_ZERO | N_LOWER, "\u2581", 1, 1, ""},
    {"bpe_bytes", SURFACE_BYTES, N_NFKD | N_STRIP_MARKS, NULL, 0, 1, "a"},
    {"unigram", SURFACE_METASPACE, N_NMT_NFKC | N_META, "\u2581", 0, 0, ""},
    {"unigram_bytes", SURFACE_METASPACE, N_META, "\u2581", 0, 0, ""},
    {"spm_bpe", SURFACE_METASPACE, N_META, "\u2581", 1, 0, ""},
};

/* ---- Text ---------------------------------------------------------------------------- */

typedef struct buf {
    char *s; /* [n] and a NUL */
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        b->s = realloc(b->s, b->cap);
        ck_assert_ptr_nonnull(b->s);
    }
    if (n > 0) /* s may be NULL then */
        memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void put_cp(buf *b, int32_t cp)
{
    utf8proc_uint8_t u[4];
    put(b, (const char *)u, (size_t)utf8proc_encode_char(cp, u));
}

static int is_space(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return cp == ' ' || (cp >= 9 && cp <= 13) || cp == 0x85 || c == UTF8PROC_CATEGORY_ZS ||
        c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

static int is_control(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return cp != '\t' && cp != '\n' && cp != '\r' &&
        (c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CS ||
         c == UTF8PROC_CATEGORY_CO);
}

/* s[0..n) through one utf8proc mapping (options) into out. */
static void unicode_map(buf *out, const char *s, size_t n, utf8proc_option_t options)
{
    utf8proc_uint8_t *mapped = NULL;
    const utf8proc_ssize_t len = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n,
                                              &mapped, options);
    ck_assert_int_ge(len, 0);
    out->n = 0;
    put(out, (const char *)mapped, (size_t)len);
    free(mapped);
}

/* Each code point of in through fn into out (fn appends). */
static void per_char(buf *out, const buf *in, void (*fn)(buf *, int32_t))
{
    out->n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)in->s;
    for (size_t i = 0; i < in->n;) {
        utf8proc_int32_t cp;
        i += (size_t)utf8proc_iterate(p + i, (utf8proc_ssize_t)(in->n - i), &cp);
        fn(out, cp);
    }
}

static void bert_clean(buf *out, int32_t cp)
{
    if (cp != 0 && cp != 0xFFFD && !is_control(cp))
        put_cp(out, is_space(cp) ? ' ' : cp);
}

static void nmt_clean(buf *out, int32_t cp)
{
    if ((utf8proc_category(cp) != UTF8PROC_CATEGORY_CC || is_space(cp)) && cp != 0xFFFD)
        put_cp(out, is_space(cp) || cp == 0x200B || cp == 0x200C ? ' ' : cp);
}

static void strip_mn(buf *out, int32_t cp)
{
    if (utf8proc_category(cp) != UTF8PROC_CATEGORY_MN)
        put_cp(out, cp);
}

static void strip_mark(buf *out, int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    if (c != UTF8PROC_CATEGORY_MN && c != UTF8PROC_CATEGORY_MC && c != UTF8PROC_CATEGORY_ME)
        put_cp(out, cp);
}

static void lower(buf *out, int32_t cp)
{
    if (cp == 0x130) { /* İ: Rust's to_lowercase, "i" and U+0307 */
        put_cp(out, 'i');
        put_cp(out, 0x307);
    } else
        put_cp(out, utf8proc_tolower(cp));
}

static void meta(buf *out, int32_t cp)
{
    put_cp(out, cp == ' ' ? 0x2581 : cp);
}

/* bpe_chars' Replace normalizers: "``" as '"', then every match of
 * \s*\d+ (leftmost, greedy) as " 0". */
static void quotes_zero(buf *out, const buf *in)
{
    buf quoted = {0};
    for (size_t i = 0; i < in->n; i++)
        if (in->s[i] == '`' && i + 1 < in->n && in->s[i + 1] == '`')
            put(&quoted, "\"", 1), i++;
        else
            put(&quoted, in->s + i, 1);
    out->n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)quoted.s;
    for (size_t i = 0; i < quoted.n;) {
        size_t j = i, digits = 0;
        utf8proc_int32_t cp;
        utf8proc_ssize_t k;
        while (j < quoted.n && (k = utf8proc_iterate(p + j, -1, &cp)) > 0 && is_space(cp))
            j += (size_t)k;
        while (j < quoted.n && (k = utf8proc_iterate(p + j, -1, &cp)) > 0 &&
               utf8proc_category(cp) == UTF8PROC_CATEGORY_ND)
            j += (size_t)k, digits++;
        if (digits) {
            put(out, " 0", 2);
            i = j;
        } else {
            k = utf8proc_iterate(p + i, -1, &cp);
            put(out, quoted.s + i, (size_t)k);
            i += (size_t)k;
        }
    }
    free(quoted.s);
}

/* N(s[0..n)) of the file into out. */
static void normalize(buf *out, const span_rules *r, const char *s, size_t n)
{
    buf a = {0}, b = {0};
    put(&a, s, n);
    if (r->norm & N_BERT_CLEAN)
        per_char(&b, &a, bert_clean), a.n = 0, put(&a, b.s, b.n);
    if (r->norm & N_NMT_NFKC) {
        unicode_map(&b, a.s, a.n, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
        per_char(&a, &b, nmt_clean);
        b.n = 0; /* runs of spaces one */
        for (size_t i = 0; i < a.n; i++)
            if (a.s[i] != ' ' || i == 0 || a.s[i - 1] != ' ')
                put(&b, a.s + i, 1);
        a.n = 0, put(&a, b.s ? b.s : "", b.n);
    }
    static const struct {
        int flag;
        utf8proc_option_t options;
    } forms[] = {
        {N_NFKC, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT},
        {N_NFKD, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT},
        {N_NFD, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE},
        {N_NFC, UTF8PROC_STABLE | UTF8PROC_COMPOSE},
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
        if (r->norm & forms[k].flag)
            unicode_map(&b, a.s, a.n, forms[k].options), a.n = 0, put(&a, b.s, b.n);
    if (r->norm & N_STRIP_MN)
        per_char(&b, &a, strip_mn), a.n = 0, put(&a, b.s, b.n);
    if (r->norm & N_STRIP_MARKS)
        per_char(&b, &a, strip_mark), a.n = 0, put(&a, b.s, b.n);
    if (r->norm & N_QUOTES_ZERO)
        quotes_zero(&b, &a), a.n = 0, put(&a, b.s, b.n);
    if (r->norm & N_LOWER)
        per_char(&b, &a, lower), a.n = 0, put(&a, b.s, b.n);
    if (r->norm & N_META)
        per_char(&b, &a, meta), a.n = 0, put(&a, b.s, b.n);
    out->n = 0;
    put(out, a.s ? a.s : "", a.n);
    free(a.s), free(b.s);
}

/* in without its whitespace into out. */
static void without_spaces(buf *out, const buf *in)
{
    out->n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)in->s;
    for (size_t i = 0; i < in->n;) {
        utf8proc_int32_t cp;
        const size_t k = (size_t)utf8proc_iterate(p + i, (utf8proc_ssize_t)(in->n - i), &cp);
        if (!is_space(cp))
            put(out, in->s + i, k);
        i += k;
    }
}

/* ---- Surfaces -------------------------------------------------------------------------- */

/* GPT-2's byte of byte-level character cp. */
static int byte_of(int32_t cp)
{
    for (int b = 0, extra = 0; b < 256; b++) {
        const int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
        if (printable ? cp == b : cp == 256 + extra++)
            return b;
    }
    return -1;
}

/* The surface of token (its string) into out; 0 when it is an unknown
 * token, which says nothing of its text. */
static int surface(buf *out, const span_rules *r, const char *token)
{
    out->n = 0;
    if (!strcmp(token, "[UNK]") || !strcmp(token, "<unk>"))
        return 0;
    unsigned byte;
    if (r->surface >= SURFACE_METASPACE && strlen(token) == 6 &&
        sscanf(token, "<0x%2X>", &byte) == 1) {
        const char c = (char)byte;
        put(out, &c, 1);
        return 1;
    }
    size_t len = strlen(token);
    if ((r->surface == SURFACE_WORDPIECE || r->surface == SURFACE_AFFIXES) &&
        !strncmp(token, "##", 2))
        token += 2, len -= 2;
    if (r->surface == SURFACE_AFFIXES && len >= 4 && !strcmp(token + len - 4, "</w>"))
        len -= 4;
    if (r->surface != SURFACE_BYTE_LEVEL) {
        put(out, token, len);
        return 1;
    }
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)token;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        i += (size_t)utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
        const int b = byte_of(cp);
        ck_assert_int_ge(b, 0);
        const char c = (char)b;
        put(out, &c, 1);
    }
    return 1;
}

/* ---- The property ------------------------------------------------------------------------ */

/* The added tokens of a file: content, lstrip, rstrip, normalized. */
typedef struct added {
    const char *content;
    int lstrip, rstrip, normalized;
    int32_t id;
} added;

typedef struct checker {
    const span_rules *r;
    const tf_tokenizer *tok;
    added added[64];
    int n_added;
    const char *text;
    unsigned char *in_token; /* [strlen(text)] 1: some token's span holds the byte */
    int tokens, groups, failures;
} checker;

static const added *find_added(const checker *k, int32_t id)
{
    for (int i = 0; i < k->n_added; i++)
        if (k->added[i].id == id)
            return &k->added[i];
    return NULL;
}

/* Whether id is the file's unknown token. */
static int is_unk(const checker *k, int32_t id)
{
    const char *t = tf_tokenizer_id_to_token(k->tok, id);
    return t && (!strcmp(t, "<unk>") || !strcmp(t, "[UNK]"));
}

static void breaks(checker *k, const char *what, int64_t b, int64_t e)
{
    if (k->failures++ < 20)
        fprintf(stderr, "%s: \"%s\": [%lld, %lld) \"%.*s\": %s\n", k->r->name, k->text,
                (long long)b, (long long)e, (int)(e - b), k->text + b, what);
}

static int64_t tf__utf8_len(int32_t cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* A mark canonical ordering may move (combining class not 0). */
static int is_mark(int32_t cp)
{
    return utf8proc_get_property(cp)->combining_class != 0;
}

/* Whether text[b..e) is only such marks. */
static int only_marks(const char *text, int64_t b, int64_t e)
{
    for (int64_t i = b; i < e;) {
        utf8proc_int32_t cp;
        i += utf8proc_iterate((const utf8proc_uint8_t *)text + i, e - i, &cp);
        if (!is_mark(cp))
            return 0;
    }
    return 1;
}

/* Whether N makes the code point cp nothing, or only what the file drops. */
static int dropped(const checker *k, int32_t cp)
{
    buf one = {0}, n = {0};
    put_cp(&one, cp);
    normalize(&n, k->r, one.s, one.n);
    int ok = 1;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)n.s;
    for (size_t i = 0; i < n.n && ok;) {
        utf8proc_int32_t c;
        i += (size_t)utf8proc_iterate(p + i, (utf8proc_ssize_t)(n.n - i), &c);
        ok = (k->r->drops_spaces && is_space(c)) || (c > 0 && c < 128 && strchr(k->r->dropped, c));
    }
    free(one.s), free(n.s);
    return ok;
}

/* Whether N makes cp `want` (bpe_chars' " 0" of a digit, "▁" of a space). */
static int makes(const checker *k, int32_t cp, const char *want)
{
    buf one = {0}, n = {0};
    put_cp(&one, cp);
    normalize(&n, k->r, one.s, one.n);
    const int same = n.n == strlen(want) && !memcmp(n.s, want, n.n);
    free(one.s), free(n.s);
    return same;
}

/* Whether every character of text[b..e) is one the file may drop between
 * tokens: N makes it nothing or what the pre-tokenizers remove; spaces
 * for the SentencePiece files where nmt_nfkc or Strip removes them (at the
 * ends, or all but one of a run). */
static int gap_dropped(const checker *k, int64_t b, int64_t e)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)k->text;
    for (int64_t i = b; i < e;) {
        utf8proc_int32_t cp;
        i += utf8proc_iterate(p + i, e - i, &cp);
        const int64_t at = i - (int64_t)tf__utf8_len(cp);
        const int sp_space = k->r->surface == SURFACE_METASPACE &&
            (k->r->norm & N_NMT_NFKC ? makes(k, cp, "\u2581")
                                     : !strcmp(k->r->name, "unigram_bytes") && is_space(cp));
        const int reordered = is_mark(cp) && k->in_token[at];
        const int replaced = (k->r->norm & N_QUOTES_ZERO) &&
            (is_space(cp) || makes(k, cp, " 0") || (cp == '`' && at > 0 && k->text[at - 1] == '`'));
        if (!dropped(k, cp) && !sp_space && !reordered && !replaced)
            return 0;
    }
    return 1;
}

/* Whether text[b..e), which two tokens share, makes more than one: N of
 * it has several bytes (so that byte tokens or pieces of it can differ),
 * or it is the first character of a piece, which the file's prefix spans
 * too (piece_start). */
static int splittable(const checker *k, int64_t b, int64_t e, int piece_start)
{
    buf m = {0};
    normalize(&m, k->r, k->text + b, (size_t)(e - b));
    const int several = m.n > 1 || (piece_start && k->r->prefix);
    free(m.s);
    return several;
}

/* The group of model tokens [first, last) spanning text[b..e): surfaces
 * against N; `piece_start` whether it is the first of its part. */
static void check_group(checker *k, const tf_encoding *e, int32_t first, int32_t last, int64_t b,
                        int64_t end, int piece_start)
{
    buf got = {0}, one = {0}, want = {0}, bare = {0};
    int known = 1;
    for (int32_t t = first; t < last; t++) {
        known &= surface(&one, k->r, tf_tokenizer_id_to_token(k->tok, tf_encoding_ids(e)[t]));
        put(&got, one.s ? one.s : "", one.n);
    }
    normalize(&want, k->r, k->text + b, (size_t)(end - b));
    if (k->r->drops_spaces)
        without_spaces(&bare, &want), want.n = 0, put(&want, bare.s ? bare.s : "", bare.n);
    const char *pre = k->r->prefix;
    const char *g = got.s ? got.s : "";
    const char *w = want.s ? want.s : "";
    if (known && pre && piece_start && (k->r->prefix_always || strncmp(w, pre, strlen(pre))) &&
        !strncmp(g, pre, strlen(pre)))
        g += strlen(pre); /* put before the piece, spanning its first character */
    if (known && strcmp(g, w))
        breaks(k, "the tokens' text is not N of their span", b, end);
    if (k->r->drops_spaces) {
        utf8proc_int32_t c0, cl = 0;
        utf8proc_iterate((const utf8proc_uint8_t *)k->text + b, end - b, &c0);
        for (int64_t i = b; i < end;)
            i += utf8proc_iterate((const utf8proc_uint8_t *)k->text + i, end - i, &cl);
        const int zero = (k->r->norm & N_QUOTES_ZERO) && is_space(c0);
        const int prefixed = pre && piece_start && (!known || g != (got.s ? got.s : ""));
        if ((dropped(k, c0) && !zero && !prefixed) || (dropped(k, cl) && !prefixed))
            breaks(k, "the span starts or ends with a character the file drops", b, end);
    }
    k->groups++;
    free(got.s), free(one.s), free(want.s), free(bare.s);
}

/* Row 0 of e, the encoding of k->text alone. */
static void check_text(checker *k, const tf_encoding *e)
{
    const int32_t n = tf_encoding_lengths(e)[0];
    const int64_t *off = tf_encoding_offsets(e), *chars = tf_encoding_char_offsets(e);
    const int64_t len = (int64_t)strlen(k->text);
    k->in_token = calloc((size_t)len + 1, 1);
    for (int32_t t = 0; t < n; t++)
        for (int64_t i = off[2 * t]; i < off[2 * t + 1] && i < len; i++)
            k->in_token[i] = 1;
    int64_t covered = 0; /* the end of what the tokens so far hold */
    int piece_start = 1;
    for (int32_t t = 0; t < n;) {
        const int64_t b = off[2 * t], end = off[2 * t + 1];
        for (int s = 0; s < 2; s++) {
            int64_t cps = 0;
            for (int64_t i = 0; i < off[2 * t + s]; i++)
                cps += ((unsigned char)k->text[i] & 0xC0) != 0x80;
            if (chars[2 * t + s] != cps)
                breaks(k, "code point offsets are not the byte offsets counted", b, end);
        }
        const added *a = find_added(k, tf_encoding_ids(e)[t]);
        if (a && (!strcmp(a->content, "<unk>") || !strcmp(a->content, "[UNK]")) && end > b &&
            ((size_t)(end - b) != strlen(a->content) ||
             memcmp(k->text + b, a->content, (size_t)(end - b))))
            a = NULL; /* the model's unknown token, not the added one written in the text */
        k->tokens++;
        if (b == 0 && end == 0) { /* the template's */
            ck_assert_msg(a != NULL, "%s: \"%s\": token %d spans nothing", k->r->name, k->text, t);
            t++;
            continue;
        }
        if ((b < covered && !only_marks(k->text, b, end)) || b >= end || end > len)
            breaks(k, "the span is out of order, empty or past the text", b, end);
        if (!gap_dropped(k, covered, b))
            breaks(k, "characters before the span are in no token", covered, b);
        if (a) { /* an added token of the text */
            int64_t cb = b, ce = end;
            utf8proc_int32_t cp;
            utf8proc_ssize_t len1;
            while (a->lstrip && cb < ce &&
                   (len1 = utf8proc_iterate((const utf8proc_uint8_t *)k->text + cb, ce - cb, &cp)) >
                       0 &&
                   is_space(cp))
                cb += len1;
            while (a->rstrip && ce > cb && is_space(k->text[ce - 1]))
                ce--;
            if (!a->normalized &&
                ((size_t)(ce - cb) != strlen(a->content) ||
                 memcmp(k->text + cb, a->content, (size_t)(ce - cb))))
                breaks(k, "an added token spans other than its content", b, end);
            covered = end, piece_start = 1, t++;
            continue;
        }
        int32_t last = t + 1; /* the group: tokens whose spans chain-overlap */
        int64_t gb = b, ge = end;
        while (last < n && off[2 * last] < ge && off[2 * last + 1] > 0 &&
               (!find_added(k, tf_encoding_ids(e)[last]) || is_unk(k, tf_encoding_ids(e)[last]))) {
            const int64_t shared_end = off[2 * last + 1] < ge ? off[2 * last + 1] : ge;
            if (!splittable(k, off[2 * last], shared_end, piece_start && last == t + 1))
                breaks(k, "two tokens share a character that makes only one", off[2 * last],
                       shared_end);
            gb = off[2 * last] < gb ? off[2 * last] : gb;
            ge = off[2 * last + 1] > ge ? off[2 * last + 1] : ge;
            k->tokens++, last++;
        }
        check_group(k, e, t, last, gb, ge, piece_start);
        covered = ge > covered ? ge : covered, piece_start = 0, t = last;
    }
    const int32_t max = tf_tokenizer_model_max_length(k->tok);
    if (!(max > 0 && n >= max) && !gap_dropped(k, covered, len))
        breaks(k, "characters after the last token are in no token", covered, len);
    free(k->in_token);
}

/* The JSON at path, of any size (json_fixture.h's read_json holds 1 MiB). */
static cJSON *read_json_file(const char *path)
{
    char *text = read_file(path, NULL);
    cJSON *j = cJSON_Parse(text);
    free(text);
    ck_assert_msg(j != NULL, "%s: not JSON", path);
    return j;
}

START_TEST(test_every_token_spans_what_it_was_made_of)
{
    const span_rules *r = &files[_i];
    const path_buf dir = join(join(data_dir, "tokenizer_json").s, r->name);
    tf_tokenizer *tok;
    ck_assert_int_eq(tf_tokenizer_load(join(dir.s, "tokenizer.json").s, NULL, &tok), TF_OK);
    cJSON *file = read_json_file(join(dir.s, "tokenizer.json").s);
    cJSON *cases = read_json_file(join(dir.s, "cases.json").s);
    checker k = {.r = r, .tok = tok};
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItem(file, "added_tokens"))
    {
        ck_assert_int_lt(k.n_added, 64);
        k.added[k.n_added++] = (added){cJSON_GetObjectItem(a, "content")->valuestring,
                                       cJSON_IsTrue(cJSON_GetObjectItem(a, "lstrip")),
                                       cJSON_IsTrue(cJSON_GetObjectItem(a, "rstrip")),
                                       cJSON_IsTrue(cJSON_GetObjectItem(a, "normalized")),
                                       cJSON_GetObjectItem(a, "id")->valueint};
    }
    int texts = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, "cases"))
    {
        if (cJSON_GetObjectItem(c, "pair")) /* its texts are cases of their own */
            continue;
        k.text = cJSON_GetObjectItem(c, "text")->valuestring;
        tf_encoding *e;
        ck_assert_int_eq(tf_tokenizer_encode(tok, k.text, strlen(k.text), NULL, 0, &e), TF_OK);
        check_text(&k, e);
        tf_encoding_destroy(e);
        texts++;
    }
    printf("%s: %d texts, %d tokens in %d groups: %d break the span property\n", r->name, texts,
           k.tokens, k.groups, k.failures);
    ck_assert_int_ge(texts, 400);
    ck_assert_int_eq(k.failures, 0);
    cJSON_Delete(cases);
    cJSON_Delete(file);
    tf_tokenizer_destroy(tok);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("token_spans");
    TCase *tc = tcase_create("spans");
    tcase_add_loop_test(tc, test_every_token_spans_what_it_was_made_of, 0,
                        (int)(sizeof files / sizeof files[0]));
    suite_add_tcase(s, tc);
    return run_suite(s);
}
