/* unigram.c — the Unigram model, SentencePiece's, as tokenizers runs it
 * (models/unigram/model.rs: encode_optimized, then tokenize): the Viterbi
 * best path over the pieces of the vocabulary that the word's bytes hold,
 * each piece scored by its log probability, a character no piece starts
 * with as unk (scored the lowest score less 10); adjacent unks fused into
 * one; a piece that is not a token of its own (a fused unk) as its bytes'
 * <0xXX> tokens (byte_fallback) or unk. */
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "tokenizer_models.h"
#include "utf8.h"

#define TF_UNIGRAM_STACK 256 /* bytes of a word decoded without allocating */
#define TF_UNK_PENALTY 10.0  /* tokenizers' K_UNK_PENALTY: unk scores the lowest score less this */

/* The model: scored pieces, the best path. */
typedef struct unigram {
    double *score;    /* [vocabulary size] each piece's log probability */
    double unk_score; /* the lowest score less TF_UNK_PENALTY */
    int32_t unk_id;   /* -1: none (a character no piece has is an error) */
    int32_t byte_fallback;
    int32_t byte_id[256]; /* the ids of "<0x00>" .. "<0xFF>" (byte_fallback), -1 */
} unigram;

/* The best path that ends at a byte of the word: its score and its last
 * piece, which starts at byte `from` (-1: no path reaches the byte yet). */
typedef struct lattice_node {
    double score;
    int32_t id;
    int64_t from;
} lattice_node;

/* Buffers of one word: its UTF-8, the character each byte boundary starts,
 * the lattice. */
typedef struct lattice {
    unsigned char *utf8; /* [bytes] */
    uint32_t *char_at;   /* [bytes + 1] the character starting at a boundary (n at the end) */
    lattice_node *node;  /* [bytes + 1] */
    size_t bytes;
} lattice;

/* The lattice of w[0..n) in stack (stack_size bytes) or allocated; 0 when
 * out of memory. */
static int lattice_alloc(lattice *l, const tf__char *w, size_t n, void *stack, size_t stack_size)
{
    size_t bytes = 0;
    for (size_t k = 0; k < n; k++)
        bytes += tf__utf8_length(w[k].cp);
    const size_t each = sizeof(lattice_node) + sizeof(uint32_t) + 1;
    size_t total;
    if (!tf__mul_size(bytes + 1, each, &total))
        return 0;
    char *p = total <= stack_size ? stack : tf__malloc(total);
    if (!p)
        return 0;
    l->node = (lattice_node *)p; /* first: the most aligned */
    l->char_at = (uint32_t *)(p + (bytes + 1) * sizeof(lattice_node));
    l->utf8 = (unsigned char *)(l->char_at + bytes + 1);
    l->bytes = bytes;
    for (size_t k = 0, at = 0; k < n; k++) {
        l->char_at[at] = (uint32_t)k;
        at += (size_t)utf8proc_encode_char(w[k].cp, l->utf8 + at);
    }
    l->char_at[bytes] = (uint32_t)n;
    for (size_t b = 0; b <= bytes; b++)
        l->node[b] = (lattice_node){0, -1, -1};
    l->node[0].from = 0;
    return 1;
}

/* A path reaching byte `end` with score through a piece from `from`:
 * kept when first or better (tokenizers' order: the first of equals). */
static void relax(lattice_node *end, double score, int32_t id, size_t from)
{
    if (end->from < 0 || score > end->score)
        *end = (lattice_node){score, id, (int64_t)from};
}

/* The best paths to every byte; 0 when a character is no piece and there
 * is no unk. */
static int viterbi(lattice *l, const unigram *u, const tf__vocab *v)
{
    for (size_t start = 0; start < l->bytes;) {
        size_t width = 1; /* of the character at start */
        while (start + width < l->bytes && (l->utf8[start + width] & 0xC0) == 0x80)
            width++;
        const double base = l->node[start].score;
        int single = 0; /* the character is a piece of its own */
        int32_t trie = 0;
        for (size_t k = start; k < l->bytes && (trie = tf__vocab_child(v, trie, l->utf8[k])) >= 0;
             k++) {
            const int32_t id = v->node_id[trie];
            if (id < 0)
                continue;
            relax(&l->node[k + 1], base + u->score[id], id, start);
            single |= k + 1 - start == width;
        }
        if (!single) {
            if (u->unk_id < 0)
                return 0;
            relax(&l->node[start + width], base + u->unk_score, u->unk_id, start);
        }
        start += width;
    }
    return 1;
}

/* The tokens of the piece [from, to) (bytes) chosen with id, spanning its
 * characters: itself, or (a fused unk) the token its text is, its bytes
 * (byte_fallback; each spans its own character, as SentencePiece's spans
 * do, where tokenizers gives each the whole piece), unk. */
static int push_piece(tf__token_vec *out, const unigram *u, const tf__vocab *v, const lattice *l,
                      const tf__char *w, size_t from, size_t to, int32_t id)
{
    const int64_t begin = w[l->char_at[from]].begin, end = w[l->char_at[to] - 1].end;
    if (id != u->unk_id)
        return tf__token_push(out, id, begin, end);
    const int32_t found = tf__vocab_find(v, (const char *)l->utf8 + from, to - from);
    if (found >= 0)
        return tf__token_push(out, found, begin, end);
    int bytes_known = u->byte_fallback;
    for (size_t b = from; bytes_known && b < to; b++)
        bytes_known = u->byte_id[l->utf8[b]] >= 0;
    for (size_t b = from, c = l->char_at[from]; bytes_known && b < to; b++) {
        c += b > from && (l->utf8[b] & 0xC0) != 0x80; /* the character byte b is of */
        if (!tf__token_push(out, u->byte_id[l->utf8[b]], w[c].begin, w[c].end))
            return 0;
    }
    return bytes_known || tf__token_push(out, u->unk_id, begin, end);
}

/* The pieces of the best path, first to last, adjacent unks fused. */
static int push_path(tf__token_vec *out, const unigram *u, const tf__vocab *v, const lattice *l,
                     const tf__char *w)
{
    tf__token_vec path = {0}; /* the pieces, last to first: id and bytes [begin, end) */
    int ok = 1;
    for (size_t end = l->bytes; ok && end > 0;) {
        size_t from = (size_t)l->node[end].from;
        const int32_t id = l->node[end].id;
        while (id == u->unk_id && from > 0 && l->node[from].id == u->unk_id)
            from = (size_t)l->node[from].from;
        ok = tf__token_push(&path, id, (int64_t)from, (int64_t)end);
        end = from;
    }
    for (size_t k = path.n; ok && k-- > 0;)
        ok = push_piece(out, u, v, l, w, (size_t)path.v[k].begin, (size_t)path.v[k].end,
                        path.v[k].id);
    tf__free(path.v);
    return ok;
}

/* The Unigram tokens of the word w[0..n) (v's trie holds every piece, each
 * once): 1, 0 when out of memory, -1 when a character is no piece and
 * unk_id is -1. */
static int word(tf__token_vec *out, const unigram *u, const tf__vocab *v, const tf__char *w,
                size_t n)
{
    _Alignas(lattice_node) char stack[TF_UNIGRAM_STACK * (sizeof(lattice_node) + 5)];
    lattice l;
    if (!lattice_alloc(&l, w, n, stack, sizeof stack))
        return 0;
    int ok = viterbi(&l, u, v) ? push_path(out, u, v, &l, w) : -1;
    if ((char *)l.node != stack)
        tf__free(l.node);
    return ok;
}

static tf_status encode(tf__token_vec *out, const void *state, const tf__vocab *vocab,
                        const tf__char *w, size_t n, const char *what)
{
    const int ok = word(out, state, vocab, w, n);
    if (ok < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: Unigram: the word at byte %lld has a "
                        "character that is no piece of the vocabulary, and model.unk_id is null",
                        what, (long long)w[0].begin);
    return ok ? TF_OK : tf__tokens_no_memory(what);
}

/* ---- Building --------------------------------------------------------------------- */

/* Every piece once: a piece listed twice is TF_ERR_FORMAT naming both places. */
static tf_status check_pieces_once(const tf__vocab *v, const char *file)
{
    for (int32_t k = 0; k < v->size; k++) {
        const int32_t found = tf__vocab_find(v, tf__vocab_token(v, k), v->length[k]);
        if (found != k)
            return tf__fail(TF_ERR_FORMAT,
                            "%s: model.vocab[%d]: \"%.*s\" is also "
                            "model.vocab[%d] (each piece once)",
                            file, (int)k, tf__utf8_prefix(tf__vocab_token(v, k), 48),
                            tf__vocab_token(v, k), (int)found);
    }
    return TF_OK;
}

/* vocab ([piece, score], each piece once), unk_id, byte_fallback. */
static tf_status build(void *state, tf__vocab *vocab, const tf__fields *f)
{
    unigram *u = state;
    tf_status s = f->scored_pieces(f, "vocab", vocab, &u->score);
    if (s == TF_OK)
        s = check_pieces_once(vocab, f->file);
    if (s == TF_OK)
        s = f->integer(f, "unk_id", 0, vocab->size - 1, -1, &u->unk_id);
    if (s == TF_OK)
        s = f->boolean(f, "byte_fallback", 0, &u->byte_fallback);
    if (s)
        return s;
    double lowest = u->score[0];
    for (int32_t k = 1; k < vocab->size; k++)
        lowest = u->score[k] < lowest ? u->score[k] : lowest;
    u->unk_score = lowest - TF_UNK_PENALTY;
    tf__vocab_byte_tokens(vocab, u->byte_id);
    return TF_OK;
}

static void destroy(void *state)
{
    unigram *u = state;
    tf__free(u->score);
}

const tf__tokenizer_model tf__unigram_model = {
    .name = "Unigram",
    .state_size = sizeof(unigram),
    .build = build,
    .encode = encode,
    .destroy = destroy,
};
