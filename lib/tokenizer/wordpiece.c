/* wordpiece.c — greedy longest-match-first WordPiece over the vocabulary's
 * trie; every piece keeps the bytes of the text it came from. */
#include <utf8proc.h>

#include "alloc.h"
#include "model.h"

#define TF_MAX_WORD_CHARS 512 /* longer words are unk whatever max_chars says */

int tf_token_push(tf_token_vec *t, int32_t id, uint32_t begin, uint32_t end)
{
    tf_token *v = tf_reserve_one(t->v, &t->cap, t->n, sizeof *v, 64);
    if (!v)
        return 0;
    t->v = v;
    t->v[t->n++] = (tf_token){id, 0, begin, end};
    return 1;
}

int tf_wordpiece(tf_token_vec *out, const tf_vocab *v, int32_t unk_id, int32_t max_chars,
                 const tf_char *w, size_t n)
{
    const int64_t begin = w[0].begin, end = w[n - 1].end;
    if (n > (size_t)max_chars || n > TF_MAX_WORD_CHARS)
        return tf_token_push(out, unk_id, begin, end);
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
        const int32_t id = tf_vocab_longest_prefix(v, start > 0, (const char *)utf8 + at[start],
                                                   bytes - at[start], &match);
        if (id < 0) {
            out->n = first; /* drop the pieces found so far */
            return tf_token_push(out, unk_id, begin, end);
        }
        size_t stop = start + 1; /* a whole token ends on a character boundary */
        while (at[stop] < at[start] + match)
            stop++;
        if (!tf_token_push(out, id, w[start].begin, w[stop - 1].end))
            return 0;
        start = stop;
    }
    return 1;
}
