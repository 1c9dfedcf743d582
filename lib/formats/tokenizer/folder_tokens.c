/* folder_tokens.c — the tokens transformers adds to a tokenizer from a
 * model folder's tokenizer_config.json and special_tokens_map.json
 * (tokenization_utils_fast.py, PreTrainedTokenizerFast.__init__), with
 * the pad token and model_max_length they name. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "tokenizer_files.h"

/* A token to add and whether it is special. */
typedef struct folder_add {
    const tf__folder_token *t;
    int32_t special;
    size_t order; /* its place in transformers' order */
} folder_add;

static int compare_content(const void *a, const void *b)
{
    const folder_add *x = a, *y = b;
    const int c = strcmp(x->t->content, y->t->content);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int compare_order(const void *a, const void *b)
{
    const folder_add *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

static int compare_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether content is among the n sorted strings. */
static int in_sorted(const char *const *sorted, size_t n, const char *content)
{
    return n && bsearch(&content, sorted, n, sizeof *sorted, compare_string) != NULL;
}

/* Appends t with id (the caller has checked its content is new and made
 * room for it). */
static tf_status append_added(tf_tokenizer *tok, const tf__folder_token *t, int32_t id,
                              int32_t special, const char *what)
{
    const size_t len = strlen(t->content);
    tf__added_token *a = &tok->added.v[tok->added.n];
    *a = (tf__added_token){.id = id,
                           .special = special,
                           .single_word = t->single_word,
                           .lstrip = t->lstrip,
                           .rstrip = t->rstrip,
                           .normalized = t->normalized};
    a->content = tf__malloc(len + 1);
    if (!a->content)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    memcpy(a->content, t->content, len + 1);
    tok->added.n++;
    tf_status s = tf__chars_decode(&a->chars, t->content, len, 0, what);
    if (s == TF_OK && a->normalized)
        s = tf__tokenizer_normalize_chars(tok, &a->chars, what);
    tok->has_normalized_added |= a->normalized;
    return s;
}

/* The tokens PreTrainedTokenizerFast.__init__ adds, in its order: the
 * added_tokens_decoder entries (by id; special if they say so or are one
 * of the special tokens), then bos, eos, unk, sep, pad, cls, mask, then
 * the additional special tokens; each content once (its first place).
 * Into adds (room for fc->n_added + TF_ROLE_COUNT), their count into *n. */
static void folder_adds(const tf__folder_config *fc, folder_add *adds, size_t *n,
                        const char **specials)
{
    size_t k = 0, n_specials = 0;
    for (int r = 0; r < TF_ROLE_COUNT; r++)
        if (fc->role[r].content)
            specials[n_specials++] = fc->role[r].content;
    for (size_t a = fc->n_decoder; a < fc->n_added; a++)
        specials[n_specials++] = fc->added[a].content;
    qsort(specials, n_specials, sizeof *specials, compare_string); /* all_special_tokens */
    for (size_t a = 0; a < fc->n_decoder; a++, k++)
        adds[k] = (folder_add){
            &fc->added[a],
            fc->added[a].special || in_sorted(specials, n_specials, fc->added[a].content), k};
    for (int r = 0; r < TF_ROLE_COUNT; r++)
        if (fc->role[r].content)
            adds[k] = (folder_add){&fc->role[r], 1, k}, k++;
    for (size_t a = fc->n_decoder; a < fc->n_added; a++, k++)
        adds[k] = (folder_add){&fc->added[a], 1, k};
    qsort(adds, k, sizeof *adds, compare_content); /* each content's first place first */
    size_t kept = 0;
    for (size_t a = 0; a < k; a++)
        if (!kept || strcmp(adds[a].t->content, adds[kept - 1].t->content) != 0)
            adds[kept++] = adds[a];
    qsort(adds, kept, sizeof *adds, compare_order);
    *n = kept;
}

/* Adds what PreTrainedTokenizerFast.__init__ adds to the file's tokenizer
 * (folder_adds) where the tokenizer has no added token of that content, as
 * tokenizers' AddedVocabulary::add_tokens gives ids: the vocabulary's id
 * when the model has the token, else the next id past the vocabulary and
 * the added tokens. Then the pad token's id and model_max_length. Each
 * content is looked up in sorted arrays: n log n for n tokens. */
tf_status tf__folder_tokens_add(tf_tokenizer *tok, const tf__folder_config *fc, const char *what)
{
    const size_t most = fc->n_added + TF_ROLE_COUNT;
    folder_add *adds = tf__malloc(most * sizeof *adds);
    const char **specials = tf__malloc(most * sizeof *specials);
    const char **present = tf__malloc((tok->added.n + 1) * sizeof *present); /* sorted */
    tf_status s = adds && specials && present
        ? TF_OK
        : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    size_t n = 0, n_present = tok->added.n;
    for (size_t k = 0; s == TF_OK && k < n_present; k++)
        present[k] = tok->added.v[k].content;
    if (s == TF_OK) {
        qsort(present, n_present, sizeof *present, compare_string);
        folder_adds(fc, adds, &n, specials);
    }
    tf__added_token *room = s ? NULL
                              : tf__realloc(tok->added.v, (tok->added.n + n + 1) * sizeof *room);
    if (s == TF_OK && !room)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    else if (s == TF_OK)
        tok->added.v = room;
    int32_t next = tf_tokenizer_vocab_size(tok);
    for (size_t k = 0; s == TF_OK && k < n; k++) {
        const char *content = adds[k].t->content;
        if (in_sorted(present, n_present, content))
            continue;
        const int32_t in_vocab = tf__vocab_find(&tok->vocab, content, strlen(content));
        if (in_vocab < 0 && next == INT32_MAX)
            s = tf__fail(TF_ERR_FORMAT, "%s: \"%s\": no id is left for it", what, content);
        else
            s = append_added(tok, adds[k].t, in_vocab >= 0 ? in_vocab : next++, adds[k].special,
                             what);
    }
    tf__free(adds), tf__free(specials), tf__free(present);
    if (s == TF_OK && !tf__added_index(&tok->added))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    const char *pad = fc->role[TF_ROLE_PAD].content; /* added above if it was no token */
    if (s == TF_OK && pad)
        tok->pad_id = tf_tokenizer_token_to_id(tok, pad);
    if (s == TF_OK && fc->model_max_length > 0)
        tok->model_max_length = fc->model_max_length;
    return s;
}
