/* wordpiece.c — the WordPiece model (tokenizers' models/wordpiece/):
 * greedy longest-match-first pieces over the vocabulary's trie ("##"
 * marks a continuation); every piece keeps the bytes of the text it came
 * from. */
#include "wordpiece.h"

#include <string.h>
#include <utf8proc.h>

#include "error.h"

#define TF_MAX_WORD_CHARS 512 /* longer words are unk whatever max_chars says */

typedef struct wordpiece {
    int32_t unk_id;    /* the token of a word it cannot spell */
    int32_t max_chars; /* max_input_chars_per_word: a longer word is unk */
} wordpiece;

void tf__wordpiece_init(void *state, int32_t unk_id, int32_t max_chars)
{
    *(wordpiece *)state = (wordpiece){unk_id, max_chars};
}

/* The pieces of the word w[0..n); the whole word is unk_id when longer than
 * max_chars characters or when some part matches nothing. 0 when out of
 * memory. */
static int pieces(tf__token_vec *out, const wordpiece *m, const tf__vocab *v, const tf__char *w,
                  size_t n)
{
    const int64_t begin = w[0].begin, end = w[n - 1].end;
    if (n > (size_t)m->max_chars || n > TF_MAX_WORD_CHARS)
        return tf__token_push(out, m->unk_id, begin, end);
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
        const int32_t id = tf__vocab_longest_prefix(v, start > 0, (const char *)utf8 + at[start],
                                                    bytes - at[start], &match);
        if (id < 0) {
            out->n = first; /* drop the pieces found so far */
            return tf__token_push(out, m->unk_id, begin, end);
        }
        size_t stop = start + 1; /* a whole token ends on a character boundary */
        while (at[stop] < at[start] + match)
            stop++;
        if (!tf__token_push(out, id, w[start].begin, w[stop - 1].end))
            return 0;
        start = stop;
    }
    return 1;
}

static tf_status encode(tf__token_vec *out, const void *state, const tf__vocab *vocab,
                        const tf__char *w, size_t n, const char *what)
{
    return pieces(out, state, vocab, w, n) ? TF_OK : tf__tokens_no_memory(what);
}

/* vocab, unk_token (a token of it), continuing_subword_prefix (only "##",
 * tokenizers' default) and max_input_chars_per_word (default 100). */
static tf_status build(void *state, tf__vocab *vocab, const tf__fields *f)
{
    wordpiece *m = state;
    const char *prefix = NULL;
    tf_status s = f->token_ids(f, "vocab", vocab);
    if (s == TF_OK)
        s = f->token(f, "unk_token", vocab, &m->unk_id);
    if (s == TF_OK && m->unk_id < 0)
        s = f->expected(f, "unk_token", "a token of the vocabulary");
    if (s == TF_OK)
        s = f->string(f, "continuing_subword_prefix", 1, &prefix);
    if (s == TF_OK && prefix && strcmp(prefix, "##") != 0)
        s = tf__fail(TF_ERR_UNSUPPORTED,
                     "%s: model.continuing_subword_prefix: only \"##\" is "
                     "supported, not \"%s\"",
                     f->file, prefix);
    if (s == TF_OK)
        s = f->integer(f, "max_input_chars_per_word", 1, INT32_MAX, 100, &m->max_chars);
    return s;
}

const tf__tokenizer_model tf__wordpiece_model = {
    .name = "WordPiece",
    .state_size = sizeof(wordpiece),
    .build = build,
    .encode = encode,
};
