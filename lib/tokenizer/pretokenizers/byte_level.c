/* byte_level.c — tokenizers' ByteLevel pre-tokenizer
 * (pre_tokenizers/byte_level.rs), GPT-2's: a space before each piece that
 * lacks one (add_prefix_space), GPT-2's pattern's pieces (use_regex), then
 * each byte of the UTF-8 as a character of its own. */
#include <utf8proc.h>

#include "alloc.h"
#include "pretokenizers.h"

typedef struct byte_level {
    int32_t add_prefix_space;
    tf__regex *pattern; /* GPT-2's; NULL: use_regex false */
} byte_level;

/* GPT-2's pattern, which ByteLevel splits by when use_regex. */
static const char gpt2_pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

static tf_status read(void *state, const tf__fields *f)
{
    byte_level *p = state;
    int32_t use_regex = 1;
    tf_status s = f->boolean(f, "add_prefix_space", 1, &p->add_prefix_space);
    if (s == TF_OK)
        s = f->boolean(f, "use_regex", 1, &use_regex);
    if (s || !use_regex)
        return s;
    char what[TF_FIELD_WHERE];
    f->where(f, NULL, what);
    return tf__regex_compile(&p->pattern, gpt2_pattern, sizeof gpt2_pattern - 1, 0, what);
}

/* GPT-2's map: printable Latin-1 bytes are themselves, the others (controls,
 * space, NBSP, soft hyphen) 256 + their rank among those. */
int32_t tf__byte_level_char(unsigned char b)
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
static int to_byte_level(tf__chars *out, const tf__chars *in)
{
    size_t need = out->n;
    for (size_t k = 0; k < in->n; k++)
        need += tf__utf8_length(in->v[k].cp);
    if (!tf__chars_reserve(out, need))
        return 0;
    for (size_t k = 0; k < in->n; k++) {
        unsigned char bytes[4];
        const utf8proc_ssize_t n = utf8proc_encode_char(in->v[k].cp, bytes);
        for (utf8proc_ssize_t i = 0; i < n; i++) {
            if (!tf__chars_push(out, tf__byte_level_char(bytes[i]), in->v[k].begin, in->v[k].end))
                return 0;
            out->v[out->n - 1].word_start = i == 0 && in->v[k].word_start;
        }
    }
    return 1;
}

/* The spaces put in, the regex's pieces, then bytes as characters; a
 * space put in spans the piece's first character, as tokenizers aligns
 * it. */
static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    const byte_level *pre = state;
    tf__chars spaced = {0}, split = {0};
    int ok = 1;
    for (size_t k = 0; k < in->n && ok; k++) {
        const tf__char *c = &in->v[k];
        const int starts = k == 0 || c->word_start;
        const int prefix = starts && pre->add_prefix_space && c->cp != ' ';
        if (prefix && (ok = tf__chars_push(&spaced, ' ', c->begin, c->end)))
            spaced.v[spaced.n - 1].word_start = 1;
        if (ok && (ok = tf__chars_push(&spaced, c->cp, c->begin, c->end)))
            spaced.v[spaced.n - 1].word_start = starts && !prefix;
    }
    tf_status s = ok ? TF_OK : tf__pretokenizer_no_memory(what);
    const tf__chars *pieces = &spaced;
    if (s == TF_OK && pre->pattern) {
        const tf__delimiters d = {pre->pattern, NULL};
        s = tf__split_pieces(&split, &spaced, d, TF_SPLIT_ISOLATED, 0, what);
        pieces = &split;
    }
    if (s == TF_OK && !to_byte_level(out, pieces))
        s = tf__pretokenizer_no_memory(what);
    tf__free(spaced.v);
    tf__free(split.v);
    return s;
}

static void destroy(void *state)
{
    byte_level *p = state;
    tf__regex_free(p->pattern);
}

const tf__pretokenizer_type tf__byte_level_pretokenizer = {
    .stage = {"ByteLevel", sizeof(byte_level), read, destroy},
    .apply = apply,
};
