/* bpe.c — the BPE model, byte-pair encoding as tokenizers' models/bpe/
 * does it: each character a symbol (with the continuing prefix and
 * end-of-word suffix), unknown ones as byte tokens (byte_fallback) or unk,
 * then the adjacent pair of lowest merge rank merged, leftmost first, until
 * no pair merges. */
#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "error.h"
#include "tokenizer_models.h"

#define TF_BPE_STACK 256 /* symbols of a word without allocating */
#define TF_BPE_SHORT 64  /* symbols merged by rescanning; longer words through a heap */
#define TF_BPE_AFFIX 64  /* bytes of the prefix or the suffix, NUL included */

/* The model: merges by rank over the vocabulary. */
typedef struct bpe {
    uint64_t *keys;  /* [n_slots] left id << 32 | right id, UINT64_MAX: empty */
    int32_t *rank;   /* [n_slots] the merge's place in the list */
    int32_t *merged; /* [n_slots] the id of left + right */
    size_t n_slots;  /* a power of two, at least twice the merges */
    int32_t unk_id;  /* -1: unknown characters are dropped, as tokenizers does */
    int32_t fuse_unk, byte_fallback, ignore_merges;
    char prefix[TF_BPE_AFFIX]; /* continuing_subword_prefix, "" for none */
    char suffix[TF_BPE_AFFIX]; /* end_of_word_suffix, "" for none */
    int32_t byte_id[256];      /* the ids of "<0x00>" .. "<0xFF>" (byte_fallback), -1 */
} bpe;

static uint64_t pair_key(int32_t left, int32_t right)
{
    return (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
}

static size_t slot_of(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask;
}

/* Room for n merges; 0 when out of memory. */
static int reserve(bpe *b, size_t n)
{
    b->n_slots = 16;
    while (b->n_slots < 2 * n)
        b->n_slots *= 2;
    b->keys = tf__malloc(b->n_slots * sizeof *b->keys);
    b->rank = tf__malloc(b->n_slots * sizeof *b->rank);
    b->merged = tf__malloc(b->n_slots * sizeof *b->merged);
    if (!b->keys || !b->rank || !b->merged)
        return 0;
    memset(b->keys, 0xff, b->n_slots * sizeof *b->keys);
    return 1;
}

/* Adds merge `rank` (left + right = merged); a pair listed again takes
 * the later rank, as tokenizers' map does. */
static void add_merge(bpe *b, int32_t left, int32_t right, int32_t rank, int32_t merged)
{
    const uint64_t key = pair_key(left, right);
    size_t i = slot_of(key, b->n_slots - 1);
    while (b->keys[i] != UINT64_MAX && b->keys[i] != key)
        i = (i + 1) & (b->n_slots - 1);
    b->keys[i] = key;
    b->rank[i] = rank;
    b->merged[i] = merged;
}

/* The slot of the merge left + right, or -1. */
static int64_t find_merge(const bpe *b, int32_t left, int32_t right)
{
    const uint64_t key = pair_key(left, right);
    for (size_t i = slot_of(key, b->n_slots - 1);; i = (i + 1) & (b->n_slots - 1)) {
        if (b->keys[i] == key)
            return (int64_t)i;
        if (b->keys[i] == UINT64_MAX)
            return -1;
    }
}

/* Symbols of a word while merging: on the stack until they outgrow it. */
typedef struct symbols {
    tf__token *v; /* [n] of [cap] */
    size_t n, cap;
    int on_heap;
} symbols;

static int push_symbol(symbols *s, int32_t id, int64_t begin, int64_t end)
{
    if (s->n == s->cap) {
        tf__token *bigger = tf__malloc(2 * s->cap * sizeof *bigger);
        if (!bigger)
            return 0;
        memcpy(bigger, s->v, s->n * sizeof *bigger);
        if (s->on_heap)
            tf__free(s->v);
        s->v = bigger, s->cap *= 2, s->on_heap = 1;
    }
    s->v[s->n++] = (tf__token){id, 0, begin, end};
    return 1;
}

static int flush_unk(symbols *s, tf__token *pending_unk)
{
    const int ok = pending_unk->id < 0 ||
        push_symbol(s, pending_unk->id, pending_unk->begin, pending_unk->end);
    pending_unk->id = -1;
    return ok;
}

/* Character k of w as its symbol(s), as tokenizers' merge_word makes them:
 * itself (with prefix and suffix) if in the vocabulary; else the bytes of
 * that text (byte_fallback, when all are tokens; an unk pending stays
 * pending, as there); else unk, fused with an unk before it when fuse_unk;
 * else nothing. */
static int char_symbols(symbols *s, const bpe *b, const tf__vocab *v, const tf__char *w, size_t n,
                        size_t k, tf__token *pending_unk)
{
    char text[4 + 2 * sizeof b->prefix]; /* prefix, the character's UTF-8, suffix */
    size_t len = 0;
    if (k > 0) {
        memcpy(text, b->prefix, strlen(b->prefix));
        len = strlen(b->prefix);
    }
    len += (size_t)utf8proc_encode_char(w[k].cp, (utf8proc_uint8_t *)text + len);
    if (k + 1 == n) {
        memcpy(text + len, b->suffix, strlen(b->suffix));
        len += strlen(b->suffix);
    }
    const int32_t id = tf__vocab_find(v, text, len);
    if (id >= 0)
        return flush_unk(s, pending_unk) && push_symbol(s, id, w[k].begin, w[k].end);
    int bytes_known = b->byte_fallback;
    for (size_t i = 0; bytes_known && i < len; i++)
        bytes_known = b->byte_id[(unsigned char)text[i]] >= 0;
    for (size_t i = 0; bytes_known && i < len; i++)
        if (!push_symbol(s, b->byte_id[(unsigned char)text[i]], w[k].begin, w[k].end))
            return 0;
    if (bytes_known || b->unk_id < 0)
        return 1;
    if (pending_unk->id >= 0 && b->fuse_unk) {
        pending_unk->end = w[k].end;
        return 1;
    }
    if (!flush_unk(s, pending_unk))
        return 0;
    *pending_unk = (tf__token){b->unk_id, 0, w[k].begin, w[k].end};
    return 1;
}

/* Merges s in place: the lowest rank first, the leftmost of equal ones,
 * rescanning every pair for each merge (O(n^2)): for short words, and the
 * reference merge_long must agree with. */
static void merge_short(symbols *s, const bpe *b)
{
    for (;;) {
        int32_t best_rank = INT32_MAX, best_id = -1;
        size_t best = 0;
        for (size_t i = 0; i + 1 < s->n; i++) {
            const int64_t m = find_merge(b, s->v[i].id, s->v[i + 1].id);
            if (m >= 0 && b->rank[m] < best_rank) {
                best_rank = b->rank[m];
                best_id = b->merged[m];
                best = i;
            }
        }
        if (best_id < 0)
            return;
        s->v[best].id = best_id;
        s->v[best].end = s->v[best + 1].end;
        memmove(s->v + best + 1, s->v + best + 2, (s->n - best - 2) * sizeof *s->v);
        s->n--;
    }
}

/* A candidate merge of symbol pos with the next one (tokenizers' Merge):
 * order is rank << 32 | pos, so that the lower rank comes first, then the
 * leftmost. */
typedef struct candidate {
    uint64_t order;
    int32_t merged;
} candidate;

static uint32_t candidate_pos(const candidate *c)
{
    return (uint32_t)c->order;
}

/* A min-heap of candidates by order, four children to a node: children of
 * node i are 4i + 1 .. 4i + 4, side by side in memory. A word of megabytes
 * has millions of candidates: a pop then walks half the levels of a binary
 * heap, each a cache miss. */
enum { HEAP_ARITY = 4 };

typedef struct heap {
    candidate *v; /* [n] of at most 3 per symbol */
    size_t n;
} heap;

static void heap_push(heap *h, candidate c)
{
    size_t i = h->n++;
    while (i > 0 && c.order < h->v[(i - 1) / HEAP_ARITY].order) {
        h->v[i] = h->v[(i - 1) / HEAP_ARITY];
        i = (i - 1) / HEAP_ARITY;
    }
    h->v[i] = c;
}

static candidate heap_pop(heap *h)
{
    const candidate top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        const size_t first = HEAP_ARITY * i + 1;
        if (first >= h->n)
            break;
        const size_t end = first + HEAP_ARITY < h->n ? first + HEAP_ARITY : h->n;
        size_t child = first;
        for (size_t k = first + 1; k < end; k++)
            child = h->v[k].order < h->v[child].order ? k : child;
        if (h->v[child].order >= last.order)
            break;
        h->v[i] = h->v[child];
        i = child;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* The candidate of symbols left and right (indices), pushed if they merge. */
static void push_pair(heap *h, const bpe *b, const symbols *s, int32_t left, int32_t right)
{
    const int64_t m = left >= 0 && right >= 0 ? find_merge(b, s->v[left].id, s->v[right].id) : -1;
    if (m >= 0)
        heap_push(h,
                  (candidate){(uint64_t)(uint32_t)b->rank[m] << 32 | (uint32_t)left, b->merged[m]});
}

/* merge_short's result in O(n log n), as tokenizers' Word::merge_all does
 * it: symbols linked in a list, candidates in a heap, stale ones skipped.
 * 0 when out of memory. */
static int merge_long(symbols *s, const bpe *b)
{
    const size_t n = s->n;
    int32_t *link = tf__malloc(2 * n * sizeof *link); /* [n] prev, then [n] next; -1: none */
    heap h = {tf__malloc(3 * n * sizeof *h.v), 0};
    if (!link || !h.v) {
        tf__free(link), tf__free(h.v);
        return 0;
    }
    int32_t *prev = link, *next = link + n;
    for (size_t i = 0; i < n; i++) {
        prev[i] = (int32_t)i - 1;
        next[i] = i + 1 < n ? (int32_t)i + 1 : -1;
    }
    for (size_t i = 0; i + 1 < n; i++)
        push_pair(&h, b, s, (int32_t)i, (int32_t)i + 1);
    while (h.n) {
        const candidate c = heap_pop(&h);
        const uint32_t pos = candidate_pos(&c);
        const int32_t right = next[pos];
        if (s->v[pos].id < 0 || right < 0)
            continue;
        const int64_t m = find_merge(b, s->v[pos].id, s->v[right].id);
        if (m < 0 || b->merged[m] != c.merged) /* stale */
            continue;
        s->v[pos].id = c.merged;
        s->v[pos].end = s->v[right].end;
        s->v[right].id = -1; /* removed */
        next[pos] = next[right];
        if (next[right] >= 0)
            prev[next[right]] = (int32_t)pos;
        push_pair(&h, b, s, prev[pos], (int32_t)pos);
        push_pair(&h, b, s, (int32_t)pos, next[pos]);
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (s->v[i].id >= 0)
            s->v[kept++] = s->v[i];
    s->n = kept;
    tf__free(link), tf__free(h.v);
    return 1;
}

/* The bytes the characters w[0..n) came from: from the first that has any
 * to the last (characters put in by a stage span nothing). */
static void word_span(const tf__char *w, size_t n, int64_t *begin, int64_t *end)
{
    *begin = w[0].begin, *end = w[n - 1].end;
    for (size_t k = 0; k < n; k++) {
        *begin = w[k].begin < *begin ? w[k].begin : *begin;
        *end = w[k].end > *end ? w[k].end : *end;
    }
}

/* The BPE tokens of the word w[0..n); 0 when out of memory. */
static int word(tf__token_vec *out, const bpe *b, const tf__vocab *v, const tf__char *w, size_t n)
{
    if (n == 0)
        return 1;
    if (b->ignore_merges) { /* a word in the vocabulary is its own token */
        char *utf8 = NULL;
        size_t cap = 0;
        const size_t len = tf__chars_utf8(w, n, &utf8, &cap, NULL);
        const int32_t id = len == SIZE_MAX ? -1 : tf__vocab_find(v, utf8, len);
        tf__free(utf8);
        if (len == SIZE_MAX)
            return 0;
        if (id >= 0) {
            int64_t begin, end;
            word_span(w, n, &begin, &end);
            return tf__token_push(out, id, begin, end);
        }
    }
    tf__token stack[TF_BPE_STACK];
    symbols s = {stack, 0, TF_BPE_STACK, 0};
    tf__token pending_unk = {-1, 0, 0, 0};
    int ok = 1;
    for (size_t k = 0; k < n && ok; k++)
        ok = char_symbols(&s, b, v, w, n, k, &pending_unk);
    ok = ok && flush_unk(&s, &pending_unk);
    if (ok && s.n <= TF_BPE_SHORT)
        merge_short(&s, b);
    else if (ok)
        ok = merge_long(&s, b);
    for (size_t i = 0; ok && i < s.n; i++)
        ok = tf__token_push(out, s.v[i].id, s.v[i].begin, s.v[i].end);
    if (s.on_heap)
        tf__free(s.v);
    return ok;
}

static tf_status encode(tf__token_vec *out, const void *state, const tf__vocab *vocab,
                        const tf__char *w, size_t n, const char *what)
{
    return word(out, state, vocab, w, n) ? TF_OK : tf__tokens_no_memory(what);
}

/* ---- Building --------------------------------------------------------------------- */

/* A string of the model (prefix or suffix) into buf[TF_BPE_AFFIX]. */
static tf_status affix(const tf__fields *f, const char *key, char *buf)
{
    const char *s;
    tf_status st = f->string(f, key, 1, &s);
    s = s ? s : "";
    if (st == TF_OK && strlen(s) >= TF_BPE_AFFIX)
        return f->expected(f, key, "at most 63 bytes");
    if (st == TF_OK)
        strcpy(buf, s);
    return st;
}

/* What add_one needs of the model being built. */
typedef struct merge_target {
    const tf__fields *f;
    const tf__vocab *v;
    bpe *b;
} merge_target;

/* Merge k, left + right: both tokens and left + right (right without the
 * continuing prefix) in the vocabulary. */
static tf_status add_one(void *arg, int32_t k, const char *left, size_t left_len, const char *right)
{
    const merge_target *t = arg;
    char key[48], joined[1024];
    snprintf(key, sizeof key, "merges[%d]", (int)k); /* named only for a message */
    const size_t p = strlen(t->b->prefix);
    const char *tail = p && strncmp(right, t->b->prefix, p) == 0 ? right + p : right;
    const int32_t a_id = tf__vocab_find(t->v, left, left_len);
    const int32_t b_id = tf__vocab_find(t->v, right, strlen(right));
    if (left_len + strlen(tail) >= sizeof joined)
        return t->f->expected(t->f, key, "tokens of at most 1023 bytes");
    memcpy(joined, left, left_len);
    strcpy(joined + left_len, tail);
    const int32_t merged = tf__vocab_find(t->v, joined, strlen(joined));
    if (a_id < 0 || b_id < 0 || merged < 0)
        return tf__fail(TF_ERR_FORMAT, "%s: model.%s: \"%s\" is not in the vocabulary", t->f->file,
                        key,
                        a_id < 0       ? "the first token"
                            : b_id < 0 ? "the second token"
                                       : joined);
    add_merge(t->b, a_id, b_id, k, merged);
    return TF_OK;
}

/* vocab, dropout (null or 0 only), unk_token, continuing_subword_prefix,
 * end_of_word_suffix, fuse_unk, byte_fallback, ignore_merges, merges. */
static tf_status build(void *state, tf__vocab *vocab, const tf__fields *f)
{
    bpe *b = state;
    double dropout = 0;
    tf_status s = f->token_ids(f, "vocab", vocab);
    const int dropout_kind = s ? 0 : f->number(f, "dropout", &dropout);
    if (dropout_kind < 0 || dropout != 0)
        return tf__fail(TF_ERR_UNSUPPORTED, "%s: model.dropout: only null or 0 is supported",
                        f->file);
    if (s == TF_OK)
        s = f->token(f, "unk_token", vocab, &b->unk_id);
    if (s == TF_OK)
        s = affix(f, "continuing_subword_prefix", b->prefix);
    if (s == TF_OK)
        s = affix(f, "end_of_word_suffix", b->suffix);
    if (s == TF_OK)
        s = f->boolean(f, "fuse_unk", 0, &b->fuse_unk);
    if (s == TF_OK)
        s = f->boolean(f, "byte_fallback", 0, &b->byte_fallback);
    if (s == TF_OK)
        s = f->boolean(f, "ignore_merges", 0, &b->ignore_merges);
    const int n = s ? 0 : f->array_size(f, "merges");
    if (s == TF_OK && (n < 0 || n > TF_VOCAB_MAX_TOKENS))
        s = f->expected(f, "merges", "an array of at most 16777216 merges");
    if (s == TF_OK && !reserve(b, (size_t)n))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d merges", f->file, n);
    merge_target target = {f, vocab, b};
    if (s == TF_OK)
        s = f->merges(f, "merges", add_one, &target);
    if (s == TF_OK)
        tf__vocab_byte_tokens(vocab, b->byte_id);
    return s;
}

static void destroy(void *state)
{
    bpe *b = state;
    tf__free(b->keys);
    tf__free(b->rank);
    tf__free(b->merged);
}

const tf__tokenizer_model tf__bpe_model = {
    .name = "BPE",
    .state_size = sizeof(bpe),
    .build = build,
    .encode = encode,
    .destroy = destroy,
};
