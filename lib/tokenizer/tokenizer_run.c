/* tokenizer_run.c — a text through a tokenizer's stages in tokenizers'
 * order: the added tokens found in the text as written, the normalizers,
 * the normalised added tokens, the pre-tokenizers, then the tokenizer model
 * on each piece. */
#include "alloc.h"
#include "error.h"
#include "tokenizer.h"

/* Buffers one text goes through. Only the text's characters, its
 * normalised ones and the first pre-tokenizer's pieces are as long as the
 * text: the later pre-tokenizers and the tokenizer model take one of those
 * pieces at a time (each pre-tokenizer splits every piece on its own). */
typedef struct work {
    tf__chars raw;           /* the text's characters */
    tf__chars normal, spare; /* the normalizers' output, and the input of the next */
    tf__chars split;         /* the first pre-tokenizer's pieces */
    tf__chars cur, next;     /* one of those pieces through the later pre-tokenizers */
    tf__text_parts parts;    /* the text split by the added tokens */
    tf__text_parts nparts;   /* a part split by the normalised added tokens */
} work;

static void swap_chars(tf__chars *a, tf__chars *b)
{
    const tf__chars t = *a;
    *a = *b;
    *b = t;
}

/* c[0..n) as a stage's input, without a copy (stages only read it). */
static tf__chars chars_view(const tf__char *c, size_t n)
{
    return (tf__chars){(tf__char *)c, n, n};
}

/* The tokens of one piece by the tokenizer model. */
static tf_status encode_piece(tf__token_vec *out, const tf_tokenizer *tok, const tf__char *c,
                              size_t n, const char *what)
{
    return tok->model->encode(out, tok->model_state, &tok->vocab, c, n, what);
}

/* The end of the piece of c[0..n) that starts at i. */
static size_t piece_end(const tf__char *c, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && !c[j].word_start)
        j++;
    return j;
}

/* Runs pre-tokenizers from..pretokenizers.n - 1 on the piece c[0..n) and
 * the tokenizer model on each piece they make of it. */
static tf_status later_pieces(tf__token_vec *out, const tf_tokenizer *tok, const tf__char *c,
                              size_t n, size_t from, work *w, const char *what)
{
    if (from == tok->pretokenizers.n)
        return encode_piece(out, tok, c, n, what);
    tf__chars in = chars_view(c, n);
    for (size_t k = from; k < tok->pretokenizers.n && in.n; k++) {
        w->next.n = 0;
        const tf_status s = tf__pre_tokenize(&w->next, &in, &tok->pretokenizers.v[k], what);
        if (s)
            return s;
        swap_chars(&w->cur, &w->next);
        in = w->cur;
    }
    for (size_t i = 0; i < in.n;) {
        const size_t j = piece_end(in.v, in.n, i);
        const tf_status s = encode_piece(out, tok, in.v + i, j - i, what);
        if (s)
            return s;
        i = j;
    }
    return TF_OK;
}

/* Pre-tokenizes normalised characters c[0..n) (the first starts a piece)
 * and runs the tokenizer model on each piece. */
static tf_status pieces(tf__token_vec *out, const tf_tokenizer *tok, const tf__char *c, size_t n,
                        work *w, const char *what)
{
    if (tok->pretokenizers.n == 0)
        return encode_piece(out, tok, c, n, what);
    const tf__chars in = chars_view(c, n);
    w->split.n = 0;
    tf_status s = tf__pre_tokenize(&w->split, &in, &tok->pretokenizers.v[0], what);
    for (size_t i = 0; s == TF_OK && i < w->split.n;) {
        const size_t j = piece_end(w->split.v, w->split.n, i);
        s = later_pieces(out, tok, w->split.v + i, j - i, 1, w, what);
        i = j;
    }
    return s;
}

/* The token of added token k over characters c[0..n). */
static int push_added(tf__token_vec *out, const tf_tokenizer *tok, int32_t k, const tf__char *c,
                      size_t n)
{
    int64_t begin = c[0].begin, end = c[n - 1].end;
    for (size_t i = 0; i < n; i++) {
        begin = c[i].begin < begin ? c[i].begin : begin;
        end = c[i].end > end ? c[i].end : end;
    }
    return tf__token_push(out, tok->added.v[k].id, begin, end);
}

/* c[0..n) through the normalizers into w->normal; 0 (and nothing
 * written) when there are none, and c is the normalised text. */
static tf_status normalize(int *normalized, const tf_tokenizer *tok, const tf__char *c, size_t n,
                           work *w, const char *what)
{
    const tf__chars text = chars_view(c, n);
    const tf__chars *in = &text;
    *normalized = tok->normalizers.n > 0;
    tf_status s = TF_OK;
    for (size_t k = 0; k < tok->normalizers.n && s == TF_OK; k++) {
        tf__chars *dst = in == &w->normal ? &w->spare : &w->normal;
        dst->n = 0;
        s = tf__normalize(dst, in, &tok->normalizers.v[k], what);
        in = dst;
    }
    if (in == &w->spare)
        swap_chars(&w->normal, &w->spare);
    tf__free(w->spare.v); /* the text's length, and no longer needed */
    w->spare = (tf__chars){0};
    return s;
}

/* Normalises a part of the text, finds the normalised added tokens in it
 * and tokenizes the rest. The text's last part (`last`) frees the text's
 * characters once it has normalised them: nothing reads them after. */
static tf_status whole_part(tf__token_vec *out, const tf_tokenizer *tok, const tf__char *c,
                            size_t n, int last, work *w, const char *what)
{
    int normalized;
    tf_status s = normalize(&normalized, tok, c, n, w, what);
    if (normalized && last) {
        tf__free(w->raw.v);
        w->raw = (tf__chars){0};
    }
    const tf__chars normal = normalized ? w->normal : chars_view(c, n);
    w->nparts.n = 0;
    if (s == TF_OK && tok->has_normalized_added &&
        !tf__added_split(&w->nparts, &tok->added, 1, normal.v, normal.n))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    for (size_t p = 0; s == TF_OK && p < (tok->has_normalized_added ? w->nparts.n : 1); p++) {
        const tf__text_part part = tok->has_normalized_added ? w->nparts.v[p]
                                                             : (tf__text_part){0, normal.n, -1};
        if (part.token >= 0)
            s = push_added(out, tok, part.token, normal.v + part.begin, part.end - part.begin)
                ? TF_OK
                : tf__tokens_no_memory(what);
        else if (part.end > part.begin) /* (an empty text has no characters at all) */
            s = pieces(out, tok, normal.v + part.begin, part.end - part.begin, w, what);
    }
    return s;
}

/* Characters of a text normalised and pre-tokenized at once, at least,
 * where it may be cut (cuts_at_whitespace): the stages' arrays stay this
 * small, and their memory is used again from one cut to the next instead
 * of fresh pages for each text (most of a long text's time went into the
 * kernel's clearing of them). */
#define TF_CUT_CHARS 16384

/* Whether a part of the text may be cut after any whitespace character
 * and each cut tokenized on its own, with the same tokens: the
 * normalizers work a character at a time, keeping whitespace whitespace
 * (their rows' per_char: BertNormalizer, Lowercase, StripAccents), no added
 * token is found in the normalised text, and the first pre-tokenizer ends
 * a piece at whitespace and drops it (its row's whitespace_cuts:
 * BertPreTokenizer, WhitespaceSplit). */
static int cuts_at_whitespace(const tf_tokenizer *tok)
{
    for (size_t k = 0; k < tok->normalizers.n; k++)
        if (!tf__normalizer_per_char(&tok->normalizers.v[k]))
            return 0;
    return !tok->has_normalized_added && tok->pretokenizers.n > 0 &&
        tf__pretokenizer_whitespace_cuts(&tok->pretokenizers.v[0]);
}

/* Tokenizes a part of the text: in cuts of TF_CUT_CHARS or more, each
 * ending after a whitespace character, where it may be cut; else whole. */
static tf_status text_part(tf__token_vec *out, const tf_tokenizer *tok, const tf__char *c, size_t n,
                           int last, work *w, const char *what)
{
    if (!cuts_at_whitespace(tok))
        return whole_part(out, tok, c, n, last, w, what);
    tf_status s = TF_OK;
    for (size_t i = 0; i < n && s == TF_OK;) {
        size_t j = n - i > TF_CUT_CHARS ? i + TF_CUT_CHARS : n;
        while (j < n && !tf__is_whitespace(c[j - 1].cp))
            j++;
        s = whole_part(out, tok, c + i, j - i, 0, w, what);
        i = j;
    }
    return s;
}

tf_status tf__tokenize(tf__token_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                       const char *what)
{
    if (len > TF_TEXT_MAX_BYTES)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: expected at most %zu bytes, got %zu", what,
                        TF_TEXT_MAX_BYTES, len);
    work w = {0};
    tf_status s = tf__chars_decode(&w.raw, text, len, 0, what);
    if (s == TF_OK && !tf__added_split(&w.parts, &tok->added, 0, w.raw.v, w.raw.n))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    for (size_t p = 0; s == TF_OK && p < w.parts.n; p++) {
        const tf__text_part part = w.parts.v[p];
        const tf__char *c = w.raw.v + part.begin;
        if (part.token >= 0)
            s = push_added(out, tok, part.token, c, part.end - part.begin)
                ? TF_OK
                : tf__tokens_no_memory(what);
        else
            s = text_part(out, tok, c, part.end - part.begin, p + 1 == w.parts.n, &w, what);
    }
    tf__free(w.raw.v), tf__free(w.normal.v), tf__free(w.split.v);
    tf__free(w.cur.v), tf__free(w.next.v), tf__free(w.parts.v), tf__free(w.nparts.v);
    return s;
}
