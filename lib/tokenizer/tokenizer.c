/* tokenizer.c — tf_tokenizer: loading (a tokenizer.json, a model directory
 * or BERT's vocab.txt), the pipeline that runs its stages in tokenizers'
 * order, and the vocabulary lookups. */
#include "tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "abi.h"
#include "alloc.h"
#include "error.h"
#include "file.h"
#include "folder_config.h"

#define TF_SPECIAL_MAX 64 /* bytes of a special token named in the options, NUL included */

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

/* ---- The pipeline ------------------------------------------------------------ */

/* Buffers one text goes through. Only the text's characters, its
 * normalised ones and the first pre-tokenizer's pieces are as long as the
 * text: the later pre-tokenizers and the model take one of those pieces at
 * a time (each pre-tokenizer splits every piece on its own). */
typedef struct work {
    tf_chars raw;          /* the text's characters */
    tf_chars normal, spare; /* the normalizers' output, and the input of the next */
    tf_chars split;        /* the first pre-tokenizer's pieces */
    tf_chars cur, next;    /* one of those pieces through the later pre-tokenizers */
    tf_text_parts parts;   /* the text split by the added tokens */
    tf_text_parts nparts;  /* a part split by the normalised added tokens */
} work;

static void swap_chars(tf_chars *a, tf_chars *b)
{
    const tf_chars t = *a;
    *a = *b;
    *b = t;
}

/* c[0..n) as a stage's input, without a copy (stages only read it). */
static tf_chars chars_view(const tf_char *c, size_t n)
{
    return (tf_chars){(tf_char *)c, n, n};
}

/* The tokens of one piece by the model. */
static tf_status model_piece(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *c,
                             size_t n, const char *what)
{
    int ok;
    if (tok->model == TF_MODEL_WORDPIECE)
        ok = tf_wordpiece(out, &tok->vocab, tok->unk_id, tok->max_chars_per_word, c, n);
    else if (tok->model == TF_MODEL_BPE)
        ok = tf_bpe_word(out, &tok->bpe, &tok->vocab, c, n);
    else
        ok = tf_unigram_word(out, &tok->unigram, &tok->vocab, c, n);
    if (ok < 0)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s: Unigram: the word at byte %lld has a "
                       "character that is no piece of the vocabulary, and model.unk_id is null",
                       what, (long long)c[0].begin);
    return ok ? TF_OK : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
}

/* The end of the piece of c[0..n) that starts at i. */
static size_t piece_end(const tf_char *c, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && !c[j].word_start)
        j++;
    return j;
}

/* Runs pre-tokenizers from..n_pretokenizers - 1 on the piece c[0..n) and
 * the model on each piece they make of it. */
static tf_status later_pieces(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *c,
                              size_t n, size_t from, work *w, const char *what)
{
    if (from == tok->n_pretokenizers)
        return model_piece(out, tok, c, n, what);
    tf_chars in = chars_view(c, n);
    for (size_t k = from; k < tok->n_pretokenizers && in.n; k++) {
        w->next.n = 0;
        const tf_status s = tf_pre_tokenize(&w->next, &in, &tok->pretokenizers[k], what);
        if (s)
            return s;
        swap_chars(&w->cur, &w->next);
        in = w->cur;
    }
    for (size_t i = 0; i < in.n;) {
        const size_t j = piece_end(in.v, in.n, i);
        const tf_status s = model_piece(out, tok, in.v + i, j - i, what);
        if (s)
            return s;
        i = j;
    }
    return TF_OK;
}

/* Pre-tokenizes normalised characters c[0..n) (the first starts a piece)
 * and runs the model on each piece. */
static tf_status pieces(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *c, size_t n,
                        work *w, const char *what)
{
    if (tok->n_pretokenizers == 0)
        return model_piece(out, tok, c, n, what);
    const tf_chars in = chars_view(c, n);
    w->split.n = 0;
    tf_status s = tf_pre_tokenize(&w->split, &in, &tok->pretokenizers[0], what);
    for (size_t i = 0; s == TF_OK && i < w->split.n;) {
        const size_t j = piece_end(w->split.v, w->split.n, i);
        s = later_pieces(out, tok, w->split.v + i, j - i, 1, w, what);
        i = j;
    }
    return s;
}

/* The token of added token k over characters c[0..n). */
static int push_added(tf_token_vec *out, const tf_tokenizer *tok, int32_t k, const tf_char *c,
                      size_t n)
{
    int64_t begin = c[0].begin, end = c[n - 1].end;
    for (size_t i = 0; i < n; i++) {
        begin = c[i].begin < begin ? c[i].begin : begin;
        end = c[i].end > end ? c[i].end : end;
    }
    return tf_token_push(out, tok->added.v[k].id, begin, end);
}

/* c[0..n) through the normalizers into w->normal; 0 (and nothing
 * written) when there are none, and c is the normalised text. */
static tf_status normalize(int *normalized, const tf_tokenizer *tok, const tf_char *c, size_t n,
                           work *w, const char *what)
{
    const tf_chars text = chars_view(c, n);
    const tf_chars *in = &text;
    *normalized = tok->n_normalizers > 0;
    tf_status s = TF_OK;
    for (size_t k = 0; k < tok->n_normalizers && s == TF_OK; k++) {
        tf_chars *dst = in == &w->normal ? &w->spare : &w->normal;
        dst->n = 0;
        s = tf_normalize(dst, in, &tok->normalizers[k], what);
        in = dst;
    }
    if (in == &w->spare)
        swap_chars(&w->normal, &w->spare);
    tf_free(w->spare.v); /* the text's length, and no longer needed */
    w->spare = (tf_chars){0};
    return s;
}

/* Normalises a part of the text, finds the normalised added tokens in it
 * and tokenizes the rest. The text's last part (`last`) frees the text's
 * characters once it has normalised them: nothing reads them after. */
static tf_status whole_part(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *c,
                            size_t n, int last, work *w, const char *what)
{
    int normalized;
    tf_status s = normalize(&normalized, tok, c, n, w, what);
    if (normalized && last) {
        tf_free(w->raw.v);
        w->raw = (tf_chars){0};
    }
    const tf_chars normal = normalized ? w->normal : chars_view(c, n);
    w->nparts.n = 0;
    if (s == TF_OK && tok->has_normalized_added &&
        !tf_added_split(&w->nparts, &tok->added, 1, normal.v, normal.n))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    for (size_t p = 0; s == TF_OK && p < (tok->has_normalized_added ? w->nparts.n : 1); p++) {
        const tf_text_part part = tok->has_normalized_added ? w->nparts.v[p]
                                                            : (tf_text_part){0, normal.n, -1};
        if (part.token >= 0)
            s = push_added(out, tok, part.token, normal.v + part.begin, part.end - part.begin)
                    ? TF_OK
                    : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
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
 * (BertNormalizer, Lowercase, StripAccents), no added token is found in
 * the normalised text, and the first pre-tokenizer ends a piece at
 * whitespace and drops it (BertPreTokenizer, WhitespaceSplit). */
static int cuts_at_whitespace(const tf_tokenizer *tok)
{
    for (size_t k = 0; k < tok->n_normalizers; k++) {
        const tf_normalizer_kind kind = tok->normalizers[k].kind;
        if (kind != TF_NORM_BERT && kind != TF_NORM_LOWERCASE && kind != TF_NORM_STRIP_ACCENTS)
            return 0;
    }
    return !tok->has_normalized_added && tok->n_pretokenizers > 0 &&
           (tok->pretokenizers[0].kind == TF_PRE_BERT ||
            tok->pretokenizers[0].kind == TF_PRE_WHITESPACE_SPLIT);
}

/* Tokenizes a part of the text: in cuts of TF_CUT_CHARS or more, each
 * ending after a whitespace character, where it may be cut; else whole. */
static tf_status text_part(tf_token_vec *out, const tf_tokenizer *tok, const tf_char *c,
                           size_t n, int last, work *w, const char *what)
{
    if (!cuts_at_whitespace(tok))
        return whole_part(out, tok, c, n, last, w, what);
    tf_status s = TF_OK;
    for (size_t i = 0; i < n && s == TF_OK;) {
        size_t j = n - i > TF_CUT_CHARS ? i + TF_CUT_CHARS : n;
        while (j < n && !tf_is_whitespace(c[j - 1].cp))
            j++;
        s = whole_part(out, tok, c + i, j - i, 0, w, what);
        i = j;
    }
    return s;
}

tf_status tf_tokenize(tf_token_vec *out, const tf_tokenizer *tok, const char *text, size_t len,
                      const char *what)
{
    if (len > TF_TEXT_MAX_BYTES)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s: expected at most %zu bytes, got %zu", what,
                       TF_TEXT_MAX_BYTES, len);
    work w = {0};
    tf_status s = tf_chars_decode(&w.raw, text, len, 0, what);
    if (s == TF_OK && !tf_added_split(&w.parts, &tok->added, 0, w.raw.v, w.raw.n))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
    for (size_t p = 0; s == TF_OK && p < w.parts.n; p++) {
        const tf_text_part part = w.parts.v[p];
        const tf_char *c = w.raw.v + part.begin;
        if (part.token >= 0)
            s = push_added(out, tok, part.token, c, part.end - part.begin)
                    ? TF_OK
                    : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
        else
            s = text_part(out, tok, c, part.end - part.begin, p + 1 == w.parts.n, &w, what);
    }
    tf_free(w.raw.v), tf_free(w.normal.v), tf_free(w.split.v);
    tf_free(w.cur.v), tf_free(w.next.v), tf_free(w.parts.v), tf_free(w.nparts.v);
    return s;
}

/* ---- Added tokens after loading ------------------------------------------------ */

tf_status tf_tokenizer_normalize_chars(const tf_tokenizer *tok, tf_chars *c, const char *what)
{
    tf_chars next = {0};
    tf_status s = TF_OK;
    for (size_t k = 0; k < tok->n_normalizers && s == TF_OK; k++) {
        next.n = 0;
        s = tf_normalize(&next, c, &tok->normalizers[k], what);
        const tf_chars t = *c;
        *c = next;
        next = t;
    }
    tf_free(next.v);
    return s;
}

/* A token to add and whether it is special. */
typedef struct folder_add {
    const tf_folder_token *t;
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
static tf_status append_added(tf_tokenizer *tok, const tf_folder_token *t, int32_t id,
                              int32_t special, const char *what)
{
    const size_t len = strlen(t->content);
    tf_added_token *a = &tok->added.v[tok->added.n];
    *a = (tf_added_token){.id = id, .special = special, .single_word = t->single_word,
                          .lstrip = t->lstrip, .rstrip = t->rstrip, .normalized = t->normalized};
    a->content = tf_malloc(len + 1);
    if (!a->content)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    memcpy(a->content, t->content, len + 1);
    tok->added.n++;
    tf_status s = tf_chars_decode(&a->chars, t->content, len, 0, what);
    if (s == TF_OK && a->normalized)
        s = tf_tokenizer_normalize_chars(tok, &a->chars, what);
    tok->has_normalized_added |= a->normalized;
    return s;
}

/* The tokens PreTrainedTokenizerFast.__init__ adds, in its order: the
 * added_tokens_decoder entries (by id; special if they say so or are one
 * of the special tokens), then bos, eos, unk, sep, pad, cls, mask, then
 * the additional special tokens; each content once (its first place).
 * Into adds (room for fc->n_added + TF_ROLE_COUNT), their count into *n. */
static void folder_adds(const tf_folder_config *fc, folder_add *adds, size_t *n,
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
        adds[k] = (folder_add){&fc->added[a],
                               fc->added[a].special ||
                                   in_sorted(specials, n_specials, fc->added[a].content), k};
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
static tf_status add_folder_tokens(tf_tokenizer *tok, const tf_folder_config *fc,
                                   const char *what)
{
    const size_t most = fc->n_added + TF_ROLE_COUNT;
    folder_add *adds = tf_malloc(most * sizeof *adds);
    const char **specials = tf_malloc(most * sizeof *specials);
    const char **present = tf_malloc((tok->added.n + 1) * sizeof *present); /* sorted */
    tf_status s = adds && specials && present
                      ? TF_OK
                      : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    size_t n = 0, n_present = tok->added.n;
    for (size_t k = 0; s == TF_OK && k < n_present; k++)
        present[k] = tok->added.v[k].content;
    if (s == TF_OK) {
        qsort(present, n_present, sizeof *present, compare_string);
        folder_adds(fc, adds, &n, specials);
    }
    tf_added_token *room = s ? NULL : tf_realloc(tok->added.v, (tok->added.n + n + 1) *
                                                                   sizeof *room);
    if (s == TF_OK && !room)
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    else if (s == TF_OK)
        tok->added.v = room;
    int32_t next = tf_tokenizer_vocab_size(tok);
    for (size_t k = 0; s == TF_OK && k < n; k++) {
        const char *content = adds[k].t->content;
        if (in_sorted(present, n_present, content))
            continue;
        const int32_t in_vocab = tf_vocab_find(&tok->vocab, content, strlen(content));
        if (in_vocab < 0 && next == INT32_MAX)
            s = tf_fail(TF_ERR_FORMAT, "%s: \"%s\": no id is left for it", what, content);
        else
            s = append_added(tok, adds[k].t, in_vocab >= 0 ? in_vocab : next++, adds[k].special,
                             what);
    }
    tf_free(adds), tf_free(specials), tf_free(present);
    if (s == TF_OK && !tf_added_index(&tok->added))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", what);
    const char *pad = fc->role[TF_ROLE_PAD].content; /* added above if it was no token */
    if (s == TF_OK && pad)
        tok->pad_id = tf_tokenizer_token_to_id(tok, pad);
    if (s == TF_OK && fc->model_max_length > 0)
        tok->model_max_length = fc->model_max_length;
    return s;
}

/* ---- BERT's vocab.txt ----------------------------------------------------------- */

/* Makes `token` an added special token, with the flags of `as` where the
 * folder names it so (else matched as written); 0 (and nothing added) when
 * the vocabulary lacks it, -1 when out of memory. */
static int add_special(tf_tokenizer *tok, const char *token, const tf_folder_token *as,
                       int32_t *id)
{
    *id = tf_vocab_find(&tok->vocab, token, strlen(token));
    if (*id < 0)
        return 0;
    tf_added_token *v = tf_realloc(tok->added.v, (tok->added.n + 1) * sizeof *v);
    if (!v)
        return -1;
    tok->added.v = v;
    tf_added_token *t = &v[tok->added.n];
    *t = (tf_added_token){.id = *id, .special = 1};
    if (as->content && strcmp(as->content, token) == 0) { /* (matched unnormalised) */
        t->single_word = as->single_word;
        t->lstrip = as->lstrip;
        t->rstrip = as->rstrip;
    }
    t->content = tf_malloc(strlen(token) + 1);
    if (!t->content)
        return -1;
    strcpy(t->content, token);
    tok->added.n++;
    return tf_chars_decode(&t->chars, token, strlen(token), 0, "special token") ? -1 : 1;
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

/* BertTokenizerFast's pipeline over vocab.txt: its specials as added
 * tokens, BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP].
 * The specials are the options' (else [UNK], [CLS], [SEP], [PAD]) and
 * the mask token: roles' (a folder's, or all NULL) or [MASK], which the
 * vocabulary may lack; a role the folder names with flags keeps them. */
static tf_status load_vocab_txt(tf_tokenizer *tok, const char *path, const tf_tokenizer_options *o,
                                const tf_folder_token *roles)
{
    tf_status s = tf_vocab_load(&tok->vocab, path);
    const char *mask = roles[TF_ROLE_MASK].content;
    const char *names[] = {o->unk_token ? o->unk_token : "[UNK]",
                           o->cls_token ? o->cls_token : "[CLS]",
                           o->sep_token ? o->sep_token : "[SEP]",
                           o->pad_token ? o->pad_token : "[PAD]", mask ? mask : "[MASK]"};
    const tf_folder_token *as[] = {&roles[TF_ROLE_UNK], &roles[TF_ROLE_CLS], &roles[TF_ROLE_SEP],
                                   &roles[TF_ROLE_PAD], &roles[TF_ROLE_MASK]};
    int32_t ids[5];
    for (int k = 0; s == TF_OK && k < 5; k++) {
        const int added = add_special(tok, names[k], as[k], &ids[k]);
        if (added < 0)
            s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the special tokens", path);
        else if (!added && k != 4) /* [MASK] is optional */
            s = tf_fail(TF_ERR_FORMAT, "%s: the vocabulary has no %s token", path, names[k]);
    }
    if (s == TF_OK && !tf_added_index(&tok->added))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the special tokens", path);
    if (s)
        return s;
    tok->model = TF_MODEL_WORDPIECE;
    tok->unk_id = ids[0];
    tok->max_chars_per_word = o->max_chars_per_word;
    tok->pad_id = ids[3];
    tok->truncation = (tf_truncation){o->max_length, TF_TRUNCATE_ONE_AT_A_TIME, 0, 0};
    tok->model_max_length = o->max_length;
    tok->normalizers = tf_calloc(1, sizeof *tok->normalizers);
    tok->pretokenizers = tf_calloc(1, sizeof *tok->pretokenizers);
    if (!tok->normalizers || !tok->pretokenizers ||
        !tf_template_cls_sep(&tok->single, &tok->pair, ids[1], ids[2], 0))
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the pipeline", path);
    tok->normalizers[0] = (tf_normalizer){
        .kind = TF_NORM_BERT, .clean_text = 1, .handle_chinese_chars = o->split_cjk,
        .strip_accents = o->strip_accents < 0 ? o->lowercase : o->strip_accents,
        .lowercase = o->lowercase};
    tok->n_normalizers = 1;
    tok->pretokenizers[0] = (tf_pretokenizer){.kind = TF_PRE_BERT};
    tok->n_pretokenizers = 1;
    tok->decoders = tf_calloc(1, sizeof *tok->decoders);
    if (tok->decoders)
        tok->decoders[0].text = tf_malloc(3);
    if (!tok->decoders || !tok->decoders[0].text)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the pipeline", path);
    tok->decoders[0].kind = TF_DEC_WORDPIECE; /* BertTokenizerFast's: "##", cleanup */
    tok->decoders[0].cleanup = 1;
    strcpy(tok->decoders[0].text, "##");
    tok->n_decoders = 1;
    return TF_OK;
}

/* ---- Loading ------------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

tf_status tf_tokenizer_folder_file(const char *dir, char **path, int *json)
{
    static const char *const names[2] = {"tokenizer.json", "vocab.txt"};
    *path = NULL;
    for (int k = 0; k < 2; k++) {
        mode_t mode = 0;
        tf_status s = tf_path_join(dir, names[k], path);
        if (s == TF_OK)
            s = tf_file_probe(*path, &mode);
        if (s || mode) {
            *json = k == 0;
            return s;
        }
        tf_free(*path);
        *path = NULL;
    }
    return tf_fail(TF_ERR_IO, "%s: not a regular file: it is a directory, with neither "
                   "tokenizer.json nor vocab.txt", dir);
}

/* The file path names, allocated into *file: a folder's tokenizer file
 * (tf_tokenizer_folder_file), else path itself, which is a tokenizer.json
 * (*json) when its name ends so. */
static tf_status resolve(const char *path, char **file, int *json)
{
    mode_t mode = 0;
    tf_status s = tf_file_probe(path, &mode);
    if (s == TF_OK && S_ISDIR(mode))
        return tf_tokenizer_folder_file(path, file, json);
    *json = ends_with(path, ".json");
    return s ? s : tf_format_alloc(file, "%s", path);
}

/* A vocab.txt's special tokens: the options', else those the folder names. */
static tf_tokenizer_options named_specials(const tf_tokenizer_options *o, const tf_folder_config *fc)
{
    tf_tokenizer_options n = *o;
    n.unk_token = o->unk_token ? o->unk_token : fc->role[TF_ROLE_UNK].content;
    n.cls_token = o->cls_token ? o->cls_token : fc->role[TF_ROLE_CLS].content;
    n.sep_token = o->sep_token ? o->sep_token : fc->role[TF_ROLE_SEP].content;
    n.pad_token = o->pad_token ? o->pad_token : fc->role[TF_ROLE_PAD].content;
    return n;
}

/* The folder's special tokens with their flags: added_tokens_decoder's
 * entry of the same content where there is one (transformers adds those
 * first), else the attribute's own. */
static void role_flags(tf_folder_token *roles, const tf_folder_config *fc)
{
    for (int k = 0; k < TF_ROLE_COUNT; k++) {
        roles[k] = fc->role[k];
        for (size_t a = 0; roles[k].content && a < fc->n_decoder; a++)
            if (strcmp(fc->added[a].content, roles[k].content) == 0) {
                roles[k] = fc->added[a];
                break;
            }
    }
}

tf_status tf_tokenizer_load_with_config(const char *path, const tf_tokenizer_options *o,
                                        const tf_folder_config *fc, tf_tokenizer **out)
{
    *out = NULL;
    char *file = NULL;
    int json = 0;
    tf_status s = resolve(path, &file, &json);
    tf_tokenizer *tok = s ? NULL : tf_calloc(1, sizeof *tok);
    if (s == TF_OK && !tok)
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "tokenizer: cannot allocate the handle");
    if (s) {
        tf_free(file);
        return s;
    }
    const tf_tokenizer_options named = named_specials(o, fc);
    tf_folder_token roles[TF_ROLE_COUNT];
    role_flags(roles, fc);
    s = json ? tf_tokenizer_json_load(tok, file, o) : load_vocab_txt(tok, file, &named, roles);
    tf_free(file);
    if (s == TF_OK)
        s = add_folder_tokens(tok, fc, path);
    if (s == TF_OK && o->max_length) /* the caller's limit over the folder's */
        tok->model_max_length = o->max_length;
    if (s) {
        tf_tokenizer_destroy(tok);
        return s;
    }
    *out = tok;
    return TF_OK;
}

/* A folder's casing for its vocab.txt where the caller left the options'
 * defaults. */
static void folder_casing(tf_tokenizer_options *o, const tf_folder_config *fc)
{
    if (o->lowercase == defaults.lowercase && fc->lowercase >= 0)
        o->lowercase = fc->lowercase;
    if (o->strip_accents == defaults.strip_accents && fc->strip_accents >= 0)
        o->strip_accents = fc->strip_accents;
    if (o->split_cjk == defaults.split_cjk && fc->split_cjk >= 0)
        o->split_cjk = fc->split_cjk;
}

tf_status tf_tokenizer_load(const char *path, const tf_tokenizer_options *opts,
                            tf_tokenizer **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!path)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "path is NULL");
    tf_tokenizer_options o = defaults;
    tf_status s = opts ? tf_abi_read(&o, sizeof o, opts, TF_TOKENIZER_OPTIONS_SIZE_0_1, "options")
                       : TF_OK;
    if (s == TF_OK)
        s = check_options(&o);
    if (s)
        return s;
    tf_folder_config fc = {0};
    mode_t mode = 0;
    if ((s = tf_file_probe(path, &mode)) == TF_OK && S_ISDIR(mode) &&
        (s = tf_folder_config_read(path, &fc)) == TF_OK)
        folder_casing(&o, &fc);
    if (s == TF_OK)
        s = tf_tokenizer_load_with_config(path, &o, &fc, out);
    tf_folder_config_clear(&fc);
    return s;
}

void tf_tokenizer_destroy(tf_tokenizer *tok)
{
    if (!tok)
        return;
    tf_vocab_destroy(&tok->vocab);
    tf_bpe_destroy(&tok->bpe);
    tf_unigram_destroy(&tok->unigram);
    tf_added_tokens_destroy(&tok->added);
    for (size_t k = 0; tok->normalizers && k < tok->n_normalizers; k++)
        tf_normalizer_clear(&tok->normalizers[k]);
    for (size_t k = 0; tok->pretokenizers && k < tok->n_pretokenizers; k++)
        tf_pretokenizer_clear(&tok->pretokenizers[k]);
    for (size_t k = 0; tok->decoders && k < tok->n_decoders; k++)
        tf_decoder_clear(&tok->decoders[k]);
    tf_free(tok->normalizers);
    tf_free(tok->pretokenizers);
    tf_free(tok->decoders);
    tf_template_destroy(&tok->single);
    tf_template_destroy(&tok->pair);
    tf_free(tok);
}

/* ---- Lookups ------------------------------------------------------------------------- */

int32_t tf_tokenizer_model_max_length(const tf_tokenizer *tok)
{
    return tok ? tok->model_max_length : 0;
}

int32_t tf_tokenizer_vocab_size(const tf_tokenizer *tok)
{
    if (!tok)
        return 0;
    int32_t n = tok->vocab.size;
    for (size_t k = 0; k < tok->added.n; k++)
        n = tok->added.v[k].id >= n ? tok->added.v[k].id + 1 : n;
    return n;
}

const char *tf_tokenizer_id_to_token(const tf_tokenizer *tok, int32_t id)
{
    if (!tok)
        return NULL;
    const tf_added_token *t = tf_added_find_id(&tok->added, id);
    if (t)
        return t->content;
    return id >= 0 && id < tok->vocab.size ? tf_vocab_token(&tok->vocab, id) : NULL;
}

int32_t tf_tokenizer_token_to_id(const tf_tokenizer *tok, const char *token)
{
    if (!tok || !token)
        return -1;
    const tf_added_token *t = tf_added_find(&tok->added, token, strlen(token));
    return t ? t->id : tf_vocab_find(&tok->vocab, token, strlen(token));
}

/* ---- Decoding ---------------------------------------------------------------------- */

/* The token strings of ids[0..n) into tokens (room for n; *count of them),
 * the special added tokens left out when skip_special. */
static tf_status id_tokens(const tf_tokenizer *tok, const int32_t *ids, size_t n,
                           int32_t skip_special, const char **tokens, size_t *count)
{
    *count = 0;
    for (size_t k = 0; k < n; k++) {
        const tf_added_token *t = tf_added_find_id(&tok->added, ids[k]);
        if (t && t->special && skip_special)
            continue;
        const char *token = tf_tokenizer_id_to_token(tok, ids[k]);
        if (!token)
            return tf_fail(TF_ERR_INVALID_ARGUMENT, "ids[%zu]: %d is not a token (the vocabulary "
                           "and added tokens have %d)", k, (int)ids[k],
                           (int)tf_tokenizer_vocab_size(tok));
        tokens[(*count)++] = token;
    }
    return TF_OK;
}

/* The decoder's text of tokens[0..n) into buf (size bytes) and *len, as
 * tf_tokenizer_decode and _decode_tokens write it. */
static tf_status decode_into(const tf_tokenizer *tok, const char *const *tokens, size_t n,
                             char *buf, size_t size, size_t *len)
{
    size_t text_len = 0;
    char *text = NULL;
    tf_status s = tf_decode_tokens(&text, &text_len, tokens, n, tok->decoders, tok->n_decoders);
    if (s == TF_OK) {
        *len = text_len;
        if (buf && size <= text_len)
            s = tf_fail(TF_ERR_INVALID_ARGUMENT, "size: the text needs %zu bytes and a NUL, "
                        "got %zu", text_len, size);
        else if (buf)
            memcpy(buf, text, text_len + 1);
    }
    tf_free(text);
    return s;
}

/* The checks tf_tokenizer_decode and _decode_tokens share: items (ids or
 * tokens, called name) [n], buf [size], len, and the decoder. */
static tf_status check_decode(const tf_tokenizer *tok, const void *items, size_t n,
                              const char *name, const char *buf, size_t size, const size_t *len)
{
    if (!tok)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "tokenizer is NULL");
    if (!len)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "len is NULL");
    if (!buf && size)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "buf is NULL but size is not 0");
    if (!items && n)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL but n is not 0", name);
    if (tok->unsupported_decoder[0])
        return tf_fail(TF_ERR_UNSUPPORTED, "decoder: type \"%s\" is not supported",
                       tok->unsupported_decoder);
    return TF_OK;
}

tf_status tf_tokenizer_decode(const tf_tokenizer *tok, const int32_t *ids, size_t n,
                              int32_t skip_special_tokens, char *buf, size_t size, size_t *len)
{
    tf_status s = check_decode(tok, ids, n, "ids", buf, size, len);
    if (s)
        return s;
    if (skip_special_tokens != 0 && skip_special_tokens != 1)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "skip_special_tokens: expected 0 or 1, got %d",
                       (int)skip_special_tokens);
    const char **tokens = tf_malloc((n ? n : 1) * sizeof *tokens); /* [n] */
    if (!tokens)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "decode: cannot allocate %zu tokens", n);
    size_t count = 0;
    s = id_tokens(tok, ids, n, skip_special_tokens, tokens, &count);
    if (s == TF_OK)
        s = decode_into(tok, tokens, count, buf, size, len);
    tf_free(tokens);
    return s;
}

tf_status tf_tokenizer_decode_tokens(const tf_tokenizer *tok, const char *const *tokens,
                                     size_t n, char *buf, size_t size, size_t *len)
{
    tf_status s = check_decode(tok, tokens, n, "tokens", buf, size, len);
    for (size_t k = 0; s == TF_OK && k < n; k++)
        if (!tokens[k])
            s = tf_fail(TF_ERR_INVALID_ARGUMENT, "tokens[%zu] is NULL", k);
    return s ? s : decode_into(tok, tokens, n, buf, size, len);
}
