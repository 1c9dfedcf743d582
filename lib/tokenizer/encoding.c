/* encoding.c — tokenized texts as padded [B, T] arrays: each text (and
 * pair) truncated as the tokenizer says, its special tokens added by the
 * template ([CLS] a [SEP] (b [SEP]) for BERT), padded to the longest; with
 * overflowing tokens, each input's windows as rows of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "tokenizer.h"
#include "utf8.h"

struct tf_encoding {
    int32_t batch, seq_len;
    int32_t *lengths;        /* [B] */
    int32_t *sample;         /* [B]: the input each row came from */
    int32_t *ids;            /* [B, T] */
    int32_t *type_ids;       /* [B, T] */
    int32_t *attention_mask; /* [B, T] */
    int64_t *offsets;        /* [B, T, 2] bytes */
    int64_t *char_offsets;   /* [B, T, 2] code points */
};

/* A row's tokens: the template's made of n_a tokens of the text and n_b
 * of the pair. */
typedef struct row_tokens {
    tf__token_vec tokens;
    size_t n_a, n_b;
} row_tokens;

/* The rows of a call, growing as inputs are encoded. */
typedef struct row_list {
    row_tokens *v;   /* [n] of [cap] */
    int32_t *sample; /* [n] of [cap]: each row's input */
    size_t n, cap;
    size_t cells; /* the tokens of all rows */
} row_list;

/* Code points before a byte of one text: a cursor that moves either way,
 * so that offsets in any order cost only what it moves. */
typedef struct char_cursor {
    const char *text;
    int64_t byte, chars;
} char_cursor;

/* The code points of text before byte b (a character boundary). */
static int64_t chars_before(char_cursor *c, int64_t b)
{
    while (c->byte < b)
        c->chars += !tf__utf8_is_continuation((unsigned char)c->text[c->byte++]);
    while (c->byte > b)
        c->chars -= !tf__utf8_is_continuation((unsigned char)c->text[--c->byte]);
    return c->chars;
}

/* The code point offsets [tokens, 2] of row `row` of e (at `base`) from
 * r's byte offsets, in the order tf__template_apply puts the template t's
 * items. */
static void char_offsets(tf_encoding *e, size_t base, const row_tokens *r, const tf__template *t,
                         const char *text, const char *pair)
{
    char_cursor cursors[2] = {{text, 0, 0}, {pair, 0, 0}};
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tf__template_item *it = &t->items[i];
        const size_t n = it->sequence < 0 ? it->n_ids : it->sequence == 0 ? r->n_a : r->n_b;
        for (size_t j = 0; j < n; j++, k++) {
            const tf__token *tok = &r->tokens.v[k];
            char_cursor *c = it->sequence < 0 ? NULL : &cursors[it->sequence];
            e->char_offsets[2 * (base + k)] = c ? chars_before(c, tok->begin) : 0;
            e->char_offsets[2 * (base + k) + 1] = c ? chars_before(c, tok->end) : 0;
        }
    }
}

/* What one call does beyond the tokens: its truncation and padding, the
 * options' over the tokenizer's. */
typedef struct call_plan {
    tf__truncation truncation;
    int32_t pad_fixed;    /* > 0: every row padded to this many */
    int32_t pad_multiple; /* > 0: rows padded to a multiple of this */
    int pad_left;
    int overflowing; /* 1: every window of the truncated tokens is a row */
} call_plan;

/* The type ids tokenizers gives a row whose window of $A (window_a) or of
 * $B (window_b) is past that sequence's first, where the template says
 * window_types: that sequence's own type (0, 1) for its tokens. */
static void window_type_ids(row_tokens *r, const tf__template *t, size_t n_a, size_t n_b,
                            int window_a, int window_b)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tf__template_item *it = &t->items[i];
        const size_t n = it->sequence < 0 ? it->n_ids : it->sequence == 0 ? n_a : n_b;
        const int own = it->sequence == 0 ? window_a : it->sequence == 1 ? window_b : 0;
        for (size_t j = 0; j < n; j++, k++)
            if (own && t->window_types)
                r->tokens.v[k].type_id = it->sequence;
    }
}

/* Room for one more row in rows; 0 when out of memory. */
static int grow_rows(row_list *rows)
{
    if (rows->n < rows->cap)
        return 1;
    const size_t cap = rows->cap ? 2 * rows->cap : 16;
    row_tokens *v = tf__realloc(rows->v, cap * sizeof *v);
    if (v)
        rows->v = v;
    int32_t *sample = v ? tf__realloc(rows->sample, cap * sizeof *sample) : NULL;
    if (sample)
        rows->sample = sample, rows->cap = cap;
    return sample != NULL;
}

/* The row of windows ka of a and kb of b, in the template, onto rows. */
static tf_status add_row(row_list *rows, const tf__template *t, const tf__token_vec *a,
                         const tf__token_vec *b, const tf__windows *wa, const tf__windows *wb,
                         size_t ka, size_t kb, size_t index, const char *what)
{
    size_t a0, a1, b0, b1;
    tf__window(wa, ka, &a0, &a1);
    tf__window(wb, kb, &b0, &b1);
    const tf__token_vec va = {a->v ? a->v + a0 : NULL, a1 - a0, 0};
    const tf__token_vec vb = {b->v ? b->v + b0 : NULL, b1 - b0, 0};
    if (!grow_rows(rows))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate its rows", what);
    row_tokens *r = &rows->v[rows->n];
    *r = (row_tokens){{0}, va.n, vb.n};
    rows->sample[rows->n++] = (int32_t)index;
    if (!tf__template_apply(&r->tokens, t, &va, &vb))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
    window_type_ids(r, t, va.n, vb.n, ka > 0, kb > 0);
    rows->cells += r->tokens.n;
    return TF_OK;
}

/* The windows of row r of an input whose a has ca windows and b cb, in
 * tokenizers' order (see encode_input): *ka of a, *kb of b. */
static void row_windows(size_t r, size_t ca, size_t cb, size_t *ka, size_t *kb)
{
    const size_t further_a = (ca - 1) * cb; /* rows of a's further windows */
    if (r == 0)
        *ka = *kb = 0;
    else if (r <= further_a)
        *ka = 1 + (r - 1) / cb, *kb = (r - 1) % cb;
    else
        *ka = 0, *kb = r - further_a;
}

/* Refuses a stride that leaves a truncated sequence (n tokens, keeping
 * keep) no window, as tokenizers' Encoding::truncate asserts. */
static tf_status check_window(size_t n, size_t keep, int32_t stride, const char *seq,
                              const char *what)
{
    if (keep >= n || keep > (size_t)stride)
        return TF_OK;
    return tf__fail(TF_ERR_INVALID_ARGUMENT,
                    "%s: stride %d must be below the %zu tokens "
                    "truncation keeps of the %s's %zu (its window)",
                    what, (int)stride, keep, seq, n);
}

/* The rows of input `index`, text (and pair): its tokens truncated (and,
 * when overflowing, every window of them: tokenizers' order, the kept
 * windows first, then each further window of a with every window of b,
 * then the kept window of a with each further window of b), onto rows.
 * Messages call it input `shown` (its index in the caller's job). */
static tf_status encode_input(const tf_tokenizer *tok, const call_plan *plan, const char *text,
                              size_t len, const char *pair, size_t pair_len, size_t index,
                              size_t shown, tf__token_vec *a, tf__token_vec *b, row_list *rows)
{
    char what[48];
    a->n = b->n = 0;
    if (!text && len)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "text %zu is NULL", shown);
    snprintf(what, sizeof what, "text %zu", shown);
    tf_status s = tf__tokenize(a, tok, text ? text : "", len, what);
    if (s == TF_OK && pair) {
        snprintf(what, sizeof what, "pair %zu", shown);
        s = tf__tokenize(b, tok, pair, pair_len, what);
    }
    const tf__template *t = pair ? &tok->pair : &tok->single;
    const tf__truncation *tr = &plan->truncation;
    size_t keep_a, keep_b;
    if (s == TF_OK)
        s = tf__truncation_keep(a->n, b->n, pair != NULL, tf__template_added(t), tr, what, &keep_a,
                                &keep_b);
    snprintf(what, sizeof what, "text %zu", shown);
    if (s == TF_OK && (tr->stride > 0 || plan->overflowing))
        s = check_window(a->n, keep_a, tr->stride, "text", what);
    if (s == TF_OK && (tr->stride > 0 || plan->overflowing))
        s = check_window(b->n, keep_b, tr->stride, "pair", what);
    if (s)
        return s;
    tf__windows wa = tf__windows_of(a->n, keep_a, (size_t)tr->stride, tr->left);
    tf__windows wb = tf__windows_of(b->n, keep_b, (size_t)tr->stride, tr->left);
    if (!plan->overflowing)
        wa.count = wb.count = 1;
    const size_t n_rows = wa.count * wb.count, row_max = keep_a + keep_b + tf__template_added(t);
    if (n_rows > (INT32_MAX - rows->cells) / (row_max ? row_max : 1) ||
        n_rows > INT32_MAX - rows->n)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: %zu windows of up to %zu tokens: more "
                        "than 2^31-1 in all",
                        what, n_rows, row_max);
    for (size_t r = 0; r < n_rows && s == TF_OK; r++) {
        size_t ka, kb;
        row_windows(r, wa.count, wb.count, &ka, &kb);
        s = add_row(rows, t, a, b, &wa, &wb, ka, kb, index, what);
    }
    return s;
}

/* Row `row` of e from its tokens (of text and pair) and its padding
 * (before them when pad_left). */
static void write_row(tf_encoding *e, int32_t row, const tf_tokenizer *tok, const row_tokens *r,
                      const char *text, const char *pair, int pad_left)
{
    const size_t T = (size_t)e->seq_len, n = r->tokens.n;
    const size_t first = pad_left ? T - n : 0; /* of the tokens */
    const size_t base = (size_t)row * T + first, pad = (size_t)row * T + (pad_left ? 0 : n);
    for (size_t t = 0; t < n; t++) {
        const tf__token *k = &r->tokens.v[t];
        e->ids[base + t] = k->id;
        e->type_ids[base + t] = k->type_id;
        e->attention_mask[base + t] = 1;
        e->offsets[2 * (base + t)] = k->begin;
        e->offsets[2 * (base + t) + 1] = k->end;
    }
    char_offsets(e, base, r, pair ? &tok->pair : &tok->single, text, pair);
    e->lengths[row] = (int32_t)n;
    for (size_t t = pad; t < pad + T - n; t++) {
        e->ids[t] = tok->pad_id;
        e->type_ids[t] = tok->pad_type_id;
        e->attention_mask[t] = 0;
        e->offsets[2 * t] = e->offsets[2 * t + 1] = 0;
        e->char_offsets[2 * t] = e->char_offsets[2 * t + 1] = 0;
    }
}

static const tf_encode_options encode_defaults = {.struct_size = sizeof(tf_encode_options)};

void tf_encode_options_init_sized(tf_encode_options *opts, size_t struct_size)
{
    tf__abi_init(opts, struct_size, &encode_defaults, sizeof encode_defaults);
}

/* The plan's stride and overflowing: the options' stride (in the
 * tokenizer's truncation, the file's where the options give none), below
 * the window max_length leaves a single text beside its specials (tokenizers'
 * with_truncation and Encoding::truncate). */
static tf_status plan_windows(const tf_tokenizer *tok, const tf_encode_options *o, call_plan *p)
{
    if (o->stride < 0 || (o->return_overflowing != 0 && o->return_overflowing != 1))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "options.%s: expected %s, got %d",
                        o->stride < 0 ? "stride" : "return_overflowing",
                        o->stride < 0 ? ">= 0" : "0 or 1",
                        (int)(o->stride < 0 ? o->stride : o->return_overflowing));
    p->overflowing = o->return_overflowing;
    const int own = o->truncation == TF_TRUNCATION_TOKENIZER && o->stride == 0;
    p->truncation.stride = own ? tok->truncation.stride : o->stride;
    const int32_t max = p->truncation.max_length, stride = p->truncation.stride;
    if (max <= 0 || (stride == 0 && !p->overflowing))
        return TF_OK;
    const size_t added = tf__template_added(&tok->single);
    if ((size_t)max > added && (size_t)stride < (size_t)max - added)
        return TF_OK;
    return tf__fail(TF_ERR_INVALID_ARGUMENT,
                    "%s: expected below %lld (max_length %d less the "
                    "%zu special tokens of a text), got %d",
                    own ? "the tokenizer's truncation.stride" : "options.stride",
                    (long long)max - (long long)added, (int)max, added, (int)stride);
}

static tf_status plan_call(const tf_tokenizer *tok, const tf_encode_options *o, call_plan *p)
{
    if (o->truncation < TF_TRUNCATION_TOKENIZER || o->truncation > TF_TRUNCATION_ONLY_SECOND)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.truncation: expected 0..4 "
                        "(tf_truncation_mode), got %d",
                        (int)o->truncation);
    if (o->max_length < 0 || o->pad_to_multiple_of < 0 || o->pad_to_multiple_of > (1 << 20))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "options.%s: expected %s, got %d",
                        o->max_length < 0 ? "max_length" : "pad_to_multiple_of",
                        o->max_length < 0 ? ">= 0" : "0..1048576",
                        (int)(o->max_length < 0 ? o->max_length : o->pad_to_multiple_of));
    if (o->pad_to_max_length != 0 && o->pad_to_max_length != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.pad_to_max_length: expected 0 or 1, "
                        "got %d",
                        (int)o->pad_to_max_length);
    if (o->pad_left < -1 || o->pad_left > 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.pad_left: expected 1 (left), -1 "
                        "(right) or 0 (as the tokenizer), got %d",
                        (int)o->pad_left);
    const int32_t max = o->max_length ? o->max_length : tok->model_max_length;
    const int needs_max = o->pad_to_max_length || o->truncation >= TF_TRUNCATION_LONGEST_FIRST;
    if (needs_max && max == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_length: 0, and the tokenizer has "
                        "no model_max_length for %s",
                        o->pad_to_max_length ? "pad_to_max_length" : "truncation");
    static const tf__truncation_strategy strategies[] = {
        TF_TRUNCATE_LONGEST_FIRST, TF_TRUNCATE_ONLY_FIRST, TF_TRUNCATE_ONLY_SECOND};
    *p = (call_plan){tok->truncation, tok->pad_fixed, tok->pad_multiple,
                     o->pad_left == 1 || (o->pad_left == 0 && tok->pad_left), 0};
    if (o->truncation == TF_TRUNCATION_NONE)
        p->truncation.max_length = 0;
    else if (o->truncation >= TF_TRUNCATION_LONGEST_FIRST)
        p->truncation = (tf__truncation){max, strategies[o->truncation - 2], tok->truncation.left,
                                         0};
    else if (o->max_length)
        p->truncation.max_length = o->max_length;
    if (o->pad_to_max_length)
        p->pad_fixed = max;
    if (o->pad_to_multiple_of)
        p->pad_multiple = o->pad_to_multiple_of;
    return plan_windows(tok, o, p);
}

/* T for rows of at most `longest` tokens: padding to a fixed length or a
 * multiple, as the plan says. */
static size_t padded_length(const call_plan *p, size_t longest)
{
    size_t T = p->pad_fixed > 0 && (size_t)p->pad_fixed > longest ? (size_t)p->pad_fixed : longest;
    if (p->pad_multiple > 0 && T % (size_t)p->pad_multiple)
        T += (size_t)p->pad_multiple - T % (size_t)p->pad_multiple;
    return T;
}

static tf_encoding *alloc_encoding(size_t B, size_t T)
{
    tf_encoding *e = tf__calloc(1, sizeof *e);
    size_t cells;
    if (!e || !tf__mul_size(B, T ? T : 1, &cells) || cells > INT32_MAX) {
        tf__free(e);
        return NULL;
    }
    e->batch = (int32_t)B;
    e->seq_len = (int32_t)T;
    e->lengths = tf__malloc(B * sizeof *e->lengths);
    e->sample = tf__malloc(B * sizeof *e->sample);
    e->ids = tf__malloc(cells * sizeof *e->ids);
    e->type_ids = tf__malloc(cells * sizeof *e->type_ids);
    e->attention_mask = tf__malloc(cells * sizeof *e->attention_mask);
    e->offsets = tf__malloc(2 * cells * sizeof *e->offsets);
    e->char_offsets = tf__malloc(2 * cells * sizeof *e->char_offsets);
    if (!e->lengths || !e->sample || !e->ids || !e->type_ids || !e->attention_mask || !e->offsets ||
        !e->char_offsets) {
        tf_encoding_destroy(e);
        return NULL;
    }
    return e;
}

tf_status tf_tokenizer_encode_batch_with(const tf_tokenizer *tok, size_t n,
                                         const char *const *texts, const size_t *lens,
                                         const char *const *pairs, const size_t *pair_lens,
                                         const tf_encode_options *opts, tf_encoding **out)
{
    return tf__tokenizer_encode_from(tok, n, texts, lens, pairs, pair_lens, opts, 0, out);
}

tf_status tf__tokenizer_encode_from(const tf_tokenizer *tok, size_t n, const char *const *texts,
                                    const size_t *lens, const char *const *pairs,
                                    const size_t *pair_lens, const tf_encode_options *opts,
                                    size_t first, tf_encoding **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!tok || !texts || n == 0 || n > INT32_MAX)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s",
                        !tok         ? "tokenizer is NULL"
                            : !texts ? "texts is NULL"
                                     : "n: expected 1..2^31-1 texts");
    tf_encode_options o = encode_defaults;
    call_plan plan;
    tf_status s = opts ? tf__abi_read(&o, sizeof o, opts, TF_ENCODE_OPTIONS_SIZE_0_4, "options")
                       : TF_OK;
    if (s == TF_OK)
        s = plan_call(tok, &o, &plan);
    if (s)
        return s;
    row_list rows = {0};
    tf__token_vec a = {0}, b = {0};
    for (size_t i = 0; i < n && s == TF_OK; i++) {
        const size_t len = lens ? lens[i] : texts[i] ? strlen(texts[i]) : 0;
        const char *pair = pairs ? pairs[i] : NULL;
        const size_t plen = pair ? (pair_lens ? pair_lens[i] : strlen(pair)) : 0;
        s = encode_input(tok, &plan, texts[i], len, pair, plen, i, first + i, &a, &b, &rows);
    }
    size_t longest = 0;
    for (size_t r = 0; r < rows.n; r++)
        longest = rows.v[r].tokens.n > longest ? rows.v[r].tokens.n : longest;
    tf__free(a.v), tf__free(b.v); /* (as long as the longest text: freed before e is made) */
    tf_encoding *e = s == TF_OK ? alloc_encoding(rows.n, padded_length(&plan, longest)) : NULL;
    if (s == TF_OK && !e)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "encoding: cannot allocate %zu x %zu ids", rows.n,
                     longest);
    for (size_t r = 0; r < rows.n && s == TF_OK; r++) {
        const int32_t i = rows.sample[r];
        write_row(e, (int32_t)r, tok, &rows.v[r], texts[i], pairs ? pairs[i] : NULL, plan.pad_left);
        e->sample[r] = i;
    }
    for (size_t r = 0; r < rows.n; r++)
        tf__free(rows.v[r].tokens.v);
    tf__free(rows.v), tf__free(rows.sample);
    if (s) {
        tf_encoding_destroy(e);
        return s;
    }
    *out = e;
    return TF_OK;
}

tf_status tf_tokenizer_encode_batch(const tf_tokenizer *tok, size_t n, const char *const *texts,
                                    const size_t *lens, const char *const *pairs,
                                    const size_t *pair_lens, tf_encoding **out)
{
    return tf_tokenizer_encode_batch_with(tok, n, texts, lens, pairs, pair_lens, NULL, out);
}

tf_status tf_tokenizer_encode(const tf_tokenizer *tok, const char *text, size_t len,
                              const char *pair, size_t pair_len, tf_encoding **out)
{
    return tf_tokenizer_encode_batch(tok, 1, &text, &len, pair ? &pair : NULL, &pair_len, out);
}

void tf_encoding_destroy(tf_encoding *e)
{
    if (!e)
        return;
    tf__free(e->lengths);
    tf__free(e->sample);
    tf__free(e->ids);
    tf__free(e->type_ids);
    tf__free(e->attention_mask);
    tf__free(e->offsets);
    tf__free(e->char_offsets);
    tf__free(e);
}

int32_t tf_encoding_batch(const tf_encoding *e)
{
    return e ? e->batch : 0;
}
int32_t tf_encoding_seq_len(const tf_encoding *e)
{
    return e ? e->seq_len : 0;
}
const int32_t *tf_encoding_lengths(const tf_encoding *e)
{
    return e ? e->lengths : NULL;
}
const int32_t *tf_encoding_ids(const tf_encoding *e)
{
    return e ? e->ids : NULL;
}
const int32_t *tf_encoding_overflow_to_sample(const tf_encoding *e)
{
    return e ? e->sample : NULL;
}
const int32_t *tf_encoding_type_ids(const tf_encoding *e)
{
    return e ? e->type_ids : NULL;
}
const int32_t *tf_encoding_attention_mask(const tf_encoding *e)
{
    return e ? e->attention_mask : NULL;
}
const int64_t *tf_encoding_offsets(const tf_encoding *e)
{
    return e ? e->offsets : NULL;
}
const int64_t *tf_encoding_char_offsets(const tf_encoding *e)
{
    return e ? e->char_offsets : NULL;
}
