/* vocab.c — a vocabulary: its tokens in one string blob, a hash index and
 * a byte trie. */
#include "vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"

static uint64_t hash(const char *s, size_t len) /* FNV-1a */
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

int32_t tf__vocab_find(const tf__vocab *v, const char *token, size_t len)
{
    const size_t mask = v->n_slots - 1;
    for (size_t i = hash(token, len) & mask;; i = (i + 1) & mask) {
        const int32_t id = v->slots[i];
        if (id < 0)
            return -1;
        if (v->length[id] == len && memcmp(tf__vocab_token(v, id), token, len) == 0)
            return id;
    }
}

/* Adds id, whose token hashes to h, to the index; a token seen before now
 * points at id. */
static void index_token(tf__vocab *v, int32_t id, uint64_t h)
{
    const char *t = tf__vocab_token(v, id);
    const size_t len = v->length[id], mask = v->n_slots - 1;
    size_t i = h & mask;
    for (; v->slots[i] >= 0; i = (i + 1) & mask)
        if (v->length[v->slots[i]] == len && memcmp(tf__vocab_token(v, v->slots[i]), t, len) == 0)
            break;
    v->slots[i] = id;
}

/* Every token into the index, in id order: a token listed twice keeps its
 * last id. The slots are random reads of a table larger than the caches,
 * so the slot of the token AHEAD ids on is fetched while this one is
 * placed: the reads overlap instead of waiting one after another. */
static void index_tokens(tf__vocab *v)
{
    enum { AHEAD = 16 };
    uint64_t ring[AHEAD]; /* [AHEAD] the hashes of the next AHEAD tokens, token k's at k % AHEAD */
    const size_t mask = v->n_slots - 1;
    for (int32_t id = -AHEAD; id < v->size; id++) {
        if (id >= 0)
            index_token(v, id, ring[id % AHEAD]);
        const int32_t next = id + AHEAD;
        if (next < v->size) {
            ring[next % AHEAD] = hash(tf__vocab_token(v, next), v->length[next]);
#if defined(__GNUC__)
            __builtin_prefetch(&v->slots[ring[next % AHEAD] & mask]);
#endif
        }
    }
}

/* ---- The trie ------------------------------------------------------------ */

/* Children of node, through the direct tables where there are. */
int32_t tf__vocab_child(const tf__vocab *v, int32_t node, unsigned char byte)
{
    if (node == 0)
        return v->root_child[byte];
    if (node == v->continuation)
        return v->continuation_child[byte];
    for (uint32_t e = v->first_edge[node]; e < v->first_edge[node + 1]; e++)
        if (v->edge_byte[e] == byte)
            return v->edge_child[e];
    return -1;
}

typedef struct sort_entry {
    const unsigned char *text;
    uint32_t len;
    int32_t id;
} sort_entry;

static int compare_entries(const void *a, const void *b)
{
    const sort_entry *x = a, *y = b;
    const int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id); /* equal tokens by id: the last id wins */
}

/* Edges while building, in creation order. */
typedef struct edge_list {
    int32_t *parent, *kid;
    unsigned char *byte;
    size_t n;
} edge_list;

/* Nodes for every token, walking them in byte order: each shares a prefix
 * with the one before, so a stack of the current path is all it takes. */
static void insert_sorted(tf__vocab *v, const sort_entry *tokens, edge_list *edges, int32_t *path)
{
    v->n_nodes = 1;
    v->node_id[0] = -1;
    path[0] = 0;
    size_t depth = 0;
    const unsigned char *prev = NULL;
    for (int32_t k = 0; k < v->size; k++) {
        const sort_entry *t = &tokens[k];
        size_t common = 0;
        while (prev && common < depth && common < t->len && prev[common] == t->text[common])
            common++;
        for (depth = common; depth < t->len; depth++) {
            const int32_t node = (int32_t)v->n_nodes++;
            v->node_id[node] = -1;
            edges->parent[edges->n] = path[depth];
            edges->byte[edges->n] = t->text[depth];
            edges->kid[edges->n++] = node;
            path[depth + 1] = node;
        }
        v->node_id[path[t->len]] = t->id;
        prev = t->text;
    }
}

/* first_edge / edge_byte / edge_child from the edge list (counting sort by
 * parent, keeping byte order), then the root's and "##"'s direct tables. */
static int index_edges(tf__vocab *v, const edge_list *edges)
{
    uint32_t *cursor = tf__malloc(v->n_nodes * sizeof *cursor);
    if (!cursor)
        return 0;
    for (size_t e = 0; e < edges->n; e++)
        v->first_edge[edges->parent[e] + 1]++;
    for (size_t k = 0; k < v->n_nodes; k++) {
        v->first_edge[k + 1] += v->first_edge[k];
        cursor[k] = v->first_edge[k];
    }
    for (size_t e = 0; e < edges->n; e++) {
        const uint32_t at = cursor[edges->parent[e]]++;
        v->edge_byte[at] = edges->byte[e];
        v->edge_child[at] = edges->kid[e];
    }
    tf__free(cursor);
    v->continuation = -1; /* no direct tables until they are filled */
    for (int c = 0; c < 256; c++)
        v->root_child[c] = v->continuation_child[c] = -1;
    for (uint32_t e = v->first_edge[0]; e < v->first_edge[1]; e++)
        v->root_child[v->edge_byte[e]] = v->edge_child[e];
    const int32_t hash1 = tf__vocab_child(v, 0, '#');
    const int32_t hash2 = hash1 < 0 ? -1 : tf__vocab_child(v, hash1, '#');
    for (uint32_t e = hash2 < 0 ? 0 : v->first_edge[hash2];
         hash2 >= 0 && e < v->first_edge[hash2 + 1]; e++)
        v->continuation_child[v->edge_byte[e]] = v->edge_child[e];
    v->continuation = hash2;
    return 1;
}

static int build_trie(tf__vocab *v)
{
    size_t bytes = 1; /* an upper bound on nodes */
    for (int32_t id = 0; id < v->size; id++)
        bytes += v->length[id];
    sort_entry *tokens = tf__malloc((size_t)v->size * sizeof *tokens);
    edge_list edges = {tf__malloc(bytes * sizeof(int32_t)), tf__malloc(bytes * sizeof(int32_t)),
                       tf__malloc(bytes), 0};
    int32_t *path = tf__malloc((v->max_length + 1) * sizeof *path);
    v->node_id = tf__malloc(bytes * sizeof *v->node_id);
    v->first_edge = tf__calloc(bytes + 1, sizeof *v->first_edge);
    v->edge_byte = tf__malloc(bytes);
    v->edge_child = tf__malloc(bytes * sizeof *v->edge_child);
    int ok = tokens && edges.parent && edges.kid && edges.byte && path && v->node_id &&
        v->first_edge && v->edge_byte && v->edge_child;
    if (ok) {
        for (int32_t id = 0; id < v->size; id++)
            tokens[id] = (sort_entry){(const unsigned char *)tf__vocab_token(v, id), v->length[id],
                                      id};
        qsort(tokens, (size_t)v->size, sizeof *tokens, compare_entries);
        insert_sorted(v, tokens, &edges, path);
        ok = index_edges(v, &edges);
    }
    tf__free(tokens), tf__free(edges.parent), tf__free(edges.kid), tf__free(edges.byte),
        tf__free(path);
    return ok;
}

int32_t tf__vocab_longest_prefix(const tf__vocab *v, int continuation, const char *s, size_t len,
                                 size_t *match)
{
    int32_t node = continuation ? v->continuation : 0, best = -1;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t k = 0; node >= 0 && k < len; k++) {
        node = tf__vocab_child(v, node, p[k]);
        if (node >= 0 && v->node_id[node] >= 0) {
            best = v->node_id[node];
            *match = k + 1;
        }
    }
    return best;
}

/* The index arrays for `count` tokens; 0 when out of memory. */
static int alloc_index(tf__vocab *v, size_t count)
{
    v->n_slots = 2;
    while (v->n_slots < 2 * count)
        v->n_slots *= 2;
    v->offset = tf__malloc(count * sizeof *v->offset);
    v->length = tf__malloc(count * sizeof *v->length);
    v->slots = tf__malloc(v->n_slots * sizeof *v->slots);
    if (!v->offset || !v->length || !v->slots)
        return 0;
    memset(v->slots, 0xff, v->n_slots * sizeof *v->slots); /* all -1 */
    return 1;
}

tf_status tf__vocab_begin(tf__vocab *v, char *text, size_t count, const char *what)
{
    memset(v, 0, sizeof *v);
    v->text = text;
    if (!alloc_index(v, count ? count : 1)) {
        tf__vocab_destroy(v);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot index %zu tokens", what, count);
    }
    return TF_OK;
}

void tf__vocab_add(tf__vocab *v, size_t start, size_t end)
{
    v->offset[v->size] = start;
    v->length[v->size] = (uint32_t)(end - start); /* < 256 MiB */
    v->max_length = end - start > v->max_length ? end - start : v->max_length;
    v->size++;
}

tf_status tf__vocab_finish(tf__vocab *v, const char *what)
{
    index_tokens(v);
    if (!build_trie(v)) {
        tf__vocab_destroy(v);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot build the token trie", what);
    }
    return TF_OK;
}

tf_status tf__vocab_from_tokens(tf__vocab *v, char *text, size_t count, const char *what)
{
    tf_status s = tf__vocab_begin(v, text, count, what);
    if (s)
        return s;
    for (size_t k = 0, start = 0; k < count; k++) {
        const size_t end = start + strlen(text + start);
        tf__vocab_add(v, start, end);
        start = end + 1;
    }
    return tf__vocab_finish(v, what);
}

void tf__vocab_byte_tokens(const tf__vocab *v, int32_t byte_id[256])
{
    for (int byte = 0; byte < 256; byte++) {
        char name[8];
        snprintf(name, sizeof name, "<0x%02X>", byte);
        byte_id[byte] = tf__vocab_find(v, name, strlen(name));
    }
}

void tf__vocab_destroy(tf__vocab *v)
{
    tf__free(v->text);
    tf__free(v->offset);
    tf__free(v->length);
    tf__free(v->slots);
    tf__free(v->node_id);
    tf__free(v->first_edge);
    tf__free(v->edge_byte);
    tf__free(v->edge_child);
    memset(v, 0, sizeof *v);
}
