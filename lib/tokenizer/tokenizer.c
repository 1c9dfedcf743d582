/* tokenizer.c — BERT's WordPiece tokenizer: special tokens kept whole,
 * normalisation (clean, CJK, accents, case), pre-tokenization (whitespace,
 * punctuation), greedy longest-match-first WordPiece. Every token keeps the
 * byte range of the text it came from. */
#include "tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "abi.h"
#include "alloc.h"
#include "checked.h"
#include "bert_classes.h"
#include "error.h"

#define TF_MAX_WORD_CHARS 512 /* longer words are [UNK] whatever max_chars_per_word says */
#define TF_NORMALISE_PIECE (64 << 10) /* bytes normalised at a time */

static const tf_tokenizer_options defaults = {
    .struct_size = sizeof(tf_tokenizer_options),
    .lowercase = 1,
    .strip_accents = -1,
    .split_cjk = 1,
    .max_chars_per_word = 100,
    .max_length = 0,
};

void tf_tokenizer_options_init_sized(tf_tokenizer_options *opts, size_t struct_size)
{
    tf_abi_init(opts, struct_size, &defaults, sizeof defaults);
}

void (tf_tokenizer_options_init)(tf_tokenizer_options *opts)
{
    tf_tokenizer_options_init_sized(opts, TF_TOKENIZER_OPTIONS_SIZE_0_1);
}

/* ---- Character classes (BERT's definitions, Unicode data from utf8proc) -- */

/* The class BertTokenizerFast gives cp where that differs from cp's Unicode
 * category (bert_classes.h: its tables are Unicode 9.0's), or -1. */
static int bert_class_override(int32_t cp)
{
    size_t lo = 0, hi = sizeof tf_bert_class_ranges / sizeof tf_bert_class_ranges[0];
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const tf_bert_class_range *r = &tf_bert_class_ranges[mid];
        if (cp < r->first)
            hi = mid;
        else if (cp > r->last)
            lo = mid + 1;
        else
            return (int)r->cls;
    }
    return -1;
}

/* Unicode's White_Space, which tokenizers' BertNormalizer uses (Rust's
 * char::is_whitespace): ASCII's, the space separators Zs, U+2028 (Zl) and
 * U+2029 (Zp). Its control characters (U+000B, U+000C, U+0085) never get
 * here: they are dropped as controls first. */
static int is_whitespace(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || c == UTF8PROC_CATEGORY_ZS ||
           c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

/* The "other" categories Cc, Cf, Cs and Co, but for tab, newline and
 * carriage return (whitespace). Unassigned code points (Cn) are not among
 * them: tokenizers' category tables, made from UnicodeData.txt, list no Cn,
 * so BertTokenizerFast keeps such a character (and gives [UNK]). */
static int is_control(int32_t cp)
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

static int is_punctuation(int32_t cp)
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

/* A nonspacing mark (Mn), which stripping accents drops. */
static int is_nonspacing_mark(int32_t cp)
{
    const int bert = bert_class_override(cp);
    return bert >= 0 ? bert == TF_BERT_MARK : utf8proc_category(cp) == UTF8PROC_CATEGORY_MN;
}

/* The CJK ideograph ranges BERT splits into single characters, as
 * tokenizers' BertNormalizer has them (its range after U+2B81F starts at
 * U+2B920, where transformers' Python BasicTokenizer says U+2B820). */
static int is_cjk(int32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

/* ---- Growable arrays ------------------------------------------------------ */

/* A normalised character and the bytes of the input it came from. */
typedef struct tf_char {
    int32_t cp;
    int64_t begin, end;
} tf_char;

typedef struct char_vec {
    tf_char *v;
    size_t n, cap;
} char_vec;

/* The array v of n elements of `size` bytes (capacity *cap) with room for
 * one more: v itself, or v moved to twice the capacity (first `initial`);
 * NULL when out of memory, with v and *cap unchanged. */
static void *reserve_one(void *v, size_t *cap, size_t n, size_t size, size_t initial)
{
    if (n < *cap)
        return v;
    const size_t grown = *cap ? 2 * *cap : initial;
    size_t bytes;
    void *bigger = tf_mul_size(grown, size, &bytes) ? tf_realloc(v, bytes) : NULL;
    if (bigger)
        *cap = grown;
    return bigger;
}

static int push_char(char_vec *c, int32_t cp, int64_t begin, int64_t end)
{
    tf_char *v = reserve_one(c->v, &c->cap, c->n, sizeof *v, 256);
    if (!v)
        return 0;
    c->v = v;
    c->v[c->n++] = (tf_char){cp, begin, end};
    return 1;
}

static int push_token(tf_token_vec *t, int32_t id, int64_t begin, int64_t end)
{
    tf_token *v = reserve_one(t->v, &t->cap, t->n, sizeof *v, 64);
    if (!v)
        return 0;
    t->v = v;
    t->v[t->n++] = (tf_token){id, begin, end};
    return 1;
}

/* ---- Normalisation -------------------------------------------------------- */

/* Appends the lower case of cp as Rust's char::to_lowercase gives it, which
 * tokenizers uses: Unicode's simple mapping, except for U+0130 (İ), whose
 * lower case is two characters, i and U+0307 (combining dot above). */
static int push_lower(char_vec *out, int32_t cp, int64_t begin, int64_t end)
{
    if (cp == 0x130)
        return push_char(out, 'i', begin, end) && push_char(out, 0x307, begin, end);
    return push_char(out, utf8proc_tolower(cp), begin, end);
}

/* Appends cp >= 0x80 (from bytes [begin, end)) to out, normalised in
 * BertNormalizer's order: accents stripped (NFD, nonspacing marks dropped),
 * then lower-cased, each as configured. */
static int push_normalised(char_vec *out, const tf_tokenizer *tok, int32_t cp, int64_t begin,
                           int64_t end)
{
    utf8proc_int32_t parts[32];
    utf8proc_ssize_t n = 1;
    parts[0] = cp;
    if (tok->strip_accents) {
        int boundclass = 0;
        n = utf8proc_decompose_char(cp, parts, 32, UTF8PROC_DECOMPOSE, &boundclass);
        if (n < 0 || n > 32)
            n = 1, parts[0] = cp;
    }
    for (utf8proc_ssize_t i = 0; i < n; i++) {
        if (tok->strip_accents && is_nonspacing_mark(parts[i]))
            continue;
        if (!(tok->lowercase ? push_lower(out, parts[i], begin, end)
                             : push_char(out, parts[i], begin, end)))
            return 0;
    }
    return 1;
}

/* Decodes text[0..len) (at byte `base` of the input) into normalised
 * characters: control characters dropped, whitespace made ' ', CJK
 * ideographs surrounded by ' ' (and then normalised: a compatibility
 * ideograph's NFD is a unified one). */
static tf_status normalise(char_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                           int64_t base, const char *what)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    size_t i = 0;
    while (i < len) {
        const int64_t begin = base + (int64_t)i;
        int ok = 1;
        if (p[i] < 0x80) { /* ASCII: no table lookups */
            const int32_t cp = p[i++];
            if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r')
                ok = push_char(out, ' ', begin, begin + 1);
            else if (cp >= 0x20 && cp != 0x7F) /* controls (and NUL) are dropped */
                ok = push_char(out, tok->lowercase && cp >= 'A' && cp <= 'Z' ? cp + 32 : cp,
                               begin, begin + 1);
        } else {
            utf8proc_int32_t cp;
            const utf8proc_ssize_t n = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
            if (n < 0)
                return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s: invalid UTF-8 at byte %lld (0x%02x)",
                               what, (long long)begin, p[i]);
            const int64_t end = begin + n;
            i += (size_t)n;
            if (cp == 0xFFFD || is_control(cp))
                continue;
            if (is_whitespace(cp))
                ok = push_char(out, ' ', begin, end);
            else if (tok->split_cjk && is_cjk(cp))
                ok = push_char(out, ' ', begin, end) && push_normalised(out, tok, cp, begin, end) &&
                     push_char(out, ' ', begin, end);
            else
                ok = push_normalised(out, tok, cp, begin, end);
        }
        if (!ok)
            return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate while normalising", what);
    }
    return TF_OK;
}

/* ---- WordPiece ------------------------------------------------------------ */

/* Greedy longest-match-first pieces of one word (chars w[0..n)); the whole
 * word is [UNK] when it is too long or some part matches nothing. */
static int wordpiece(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *w, size_t n)
{
    const int64_t begin = w[0].begin, end = w[n - 1].end;
    if (n > (size_t)tok->max_chars_per_word || n > TF_MAX_WORD_CHARS)
        return push_token(out, tok->unk_id, begin, end);
    unsigned char utf8[4 * TF_MAX_WORD_CHARS];
    size_t at[TF_MAX_WORD_CHARS + 1]; /* byte offset of each char in utf8 */
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        at[i] = bytes;
        bytes += (size_t)utf8proc_encode_char(w[i].cp, utf8 + bytes);
    }
    at[n] = bytes;
    const size_t first = out->n;
    for (size_t start = 0; start < n;) {
        size_t match = 0;
        const int32_t id = tf_vocab_longest_prefix(&tok->vocab, start > 0,
                                                   (const char *)utf8 + at[start],
                                                   bytes - at[start], &match);
        if (id < 0) {
            out->n = first; /* drop the pieces found so far */
            return push_token(out, tok->unk_id, begin, end);
        }
        size_t stop = start + 1; /* a whole token ends on a character boundary */
        while (at[stop] < at[start] + match)
            stop++;
        if (!push_token(out, id, w[start].begin, w[stop - 1].end))
            return 0;
        start = stop;
    }
    return 1;
}

/* Splits normalised characters on spaces and punctuation and appends the
 * WordPiece tokens of each word. */
static int pre_tokenize(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *c, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (c[i].cp == ' ') {
            i++;
            continue;
        }
        size_t j = i + 1;
        if (!is_punctuation(c[i].cp))
            while (j < n && c[j].cp != ' ' && !is_punctuation(c[j].cp))
                j++;
        if (!wordpiece(out, tok, c + i, j - i))
            return 0;
        i = j;
    }
    return 1;
}

/* ---- Special tokens written in the text ------------------------------------ */

/* Length of the special token starting at text (and its id), or 0. */
static size_t special_at(const tf_tokenizer *tok, const char *text, size_t len, int32_t *id)
{
    for (int k = 0; k < TF_N_SPECIALS; k++) {
        const size_t n = tok->special_len[k];
        if (n && n <= len && memcmp(text, tok->special[k], n) == 0) {
            *id = tok->special_id[k];
            return n;
        }
    }
    return 0;
}

/* Tokens of text[from..to), normalised a piece at a time: pieces end at an
 * ASCII whitespace byte, which always separates words, so the result is the
 * same as for the whole segment at once. */
static tf_status tokenize_segment(tf_token_vec *out, char_vec *chars, const tf_tokenizer *tok,
                                  const char *text, size_t from, size_t to, const char *what)
{
    while (from < to) {
        size_t stop = to - from > TF_NORMALISE_PIECE ? from + TF_NORMALISE_PIECE : to;
        while (stop < to && text[stop] != ' ' && text[stop] != '\n' && text[stop] != '\t')
            stop++;
        chars->n = 0;
        tf_status s = normalise(chars, tok, text + from, stop - from, (int64_t)from, what);
        if (s)
            return s;
        if (!pre_tokenize(out, tok, chars->v, chars->n))
            return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
        from = stop;
    }
    return TF_OK;
}

tf_status tf_tokenize(tf_token_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                      const char *what)
{
    char_vec chars = {0};
    tf_status s = TF_OK;
    size_t segment = 0; /* start of the text since the last special token */
    for (size_t i = 0; i <= len && s == TF_OK; i++) {
        int32_t id = -1;
        const size_t n = i < len && tok->special_first[(unsigned char)text[i]]
                             ? special_at(tok, text + i, len - i, &id)
                             : 0;
        if (!n && i < len)
            continue;
        s = tokenize_segment(out, &chars, tok, text, segment, i, what);
        if (s == TF_OK && n && !push_token(out, id, (int64_t)i, (int64_t)(i + n)))
            s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
        i += n ? n - 1 : 0;
        segment = i + 1;
    }
    tf_free(chars.v);
    return s;
}

/* ---- Loading ---------------------------------------------------------------- */

/* Makes `token` special token k; 0 (and nothing set) when the vocabulary
 * lacks it. */
static int add_special(tf_tokenizer *tok, int k, const char *token)
{
    const int32_t id = tf_vocab_find(&tok->vocab, token, strlen(token));
    if (id < 0)
        return 0;
    tok->special_id[k] = id;
    snprintf(tok->special[k], sizeof tok->special[k], "%s", token);
    tok->special_len[k] = strlen(tok->special[k]);
    tok->special_first[(unsigned char)token[0]] = 1;
    return 1;
}

static tf_status check_options(const tf_tokenizer_options *o)
{
    if ((o->lowercase != 0 && o->lowercase != 1) || o->strip_accents < -1 ||
        o->strip_accents > 1 || (o->split_cjk != 0 && o->split_cjk != 1))
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "options: lowercase and split_cjk are 0 or 1, "
                       "strip_accents -1, 0 or 1");
    if (o->max_chars_per_word < 1)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "options.max_chars_per_word: expected >= 1, got %d",
                       (int)o->max_chars_per_word);
    if (o->max_length != 0 && o->max_length < 3)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "options.max_length: expected 0 (no limit) or "
                       ">= 3, got %d", (int)o->max_length);
    const char *tokens[] = {o->unk_token, o->cls_token, o->sep_token, o->pad_token};
    for (int i = 0; i < 4; i++)
        if (tokens[i] && (!tokens[i][0] || strlen(tokens[i]) >= TF_SPECIAL_MAX))
            return tf_fail(TF_ERR_INVALID_ARGUMENT, "options: special tokens are 1..%d bytes",
                           TF_SPECIAL_MAX - 1);
    return TF_OK;
}

tf_status tf_tokenizer_load(const char *vocab_path, const tf_tokenizer_options *opts,
                            tf_tokenizer **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!vocab_path)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "vocab_path is NULL");
    tf_tokenizer_options o = defaults;
    tf_status s = opts ? tf_abi_read(&o, sizeof o, opts, TF_TOKENIZER_OPTIONS_SIZE_0_1, "options")
                       : TF_OK;
    if (s == TF_OK)
        s = check_options(&o);
    if (s)
        return s;
    tf_tokenizer *tok = tf_calloc(1, sizeof *tok);
    if (!tok)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "tokenizer: cannot allocate the handle");
    tok->lowercase = o.lowercase;
    tok->strip_accents = o.strip_accents < 0 ? o.lowercase : o.strip_accents;
    tok->split_cjk = o.split_cjk;
    tok->max_chars_per_word = o.max_chars_per_word;
    tok->max_length = o.max_length;
    s = tf_vocab_load(&tok->vocab, vocab_path);
    const char *names[TF_N_SPECIALS] = {o.unk_token ? o.unk_token : "[UNK]",
                                        o.cls_token ? o.cls_token : "[CLS]",
                                        o.sep_token ? o.sep_token : "[SEP]",
                                        o.pad_token ? o.pad_token : "[PAD]", "[MASK]"};
    for (int k = 0; s == TF_OK && k < TF_N_SPECIALS; k++)
        if (!add_special(tok, k, names[k]) && k != TF_SPECIAL_MASK) /* [MASK] is optional */
            s = tf_fail(TF_ERR_FORMAT, "%s: the vocabulary has no %s token", vocab_path, names[k]);
    if (s) {
        tf_tokenizer_destroy(tok);
        return s;
    }
    tok->unk_id = tok->special_id[TF_SPECIAL_UNK];
    *out = tok;
    return TF_OK;
}

void tf_tokenizer_destroy(tf_tokenizer *tok)
{
    if (!tok)
        return;
    tf_vocab_destroy(&tok->vocab);
    tf_free(tok);
}

int32_t tf_tokenizer_vocab_size(const tf_tokenizer *tok)
{
    return tok ? tok->vocab.size : 0;
}

const char *tf_tokenizer_id_to_token(const tf_tokenizer *tok, int32_t id)
{
    return tok && id >= 0 && id < tok->vocab.size ? tf_vocab_token(&tok->vocab, id) : NULL;
}

int32_t tf_tokenizer_token_to_id(const tf_tokenizer *tok, const char *token)
{
    return tok && token ? tf_vocab_find(&tok->vocab, token, strlen(token)) : -1;
}
