/* encoding.c — tokenized texts as padded [B, T] arrays: each text (and
 * pair) truncated as the tokenizer says, its special tokens added by the
 * template ([CLS] a [SEP] (b [SEP]) for BERT), padded to the longest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "tokenizer.h"

struct tf_encoding {
    int32_t batch, seq_len;
    int32_t *lengths;        /* [B] */
    int32_t *ids;            /* [B, T] */
    int32_t *type_ids;       /* [B, T] */
    int32_t *attention_mask; /* [B, T] */
    int64_t *offsets;        /* [B, T, 2] bytes */
    int64_t *char_offsets;   /* [B, T, 2] code points */
};

/* A row's tokens and each one's code point offsets. */
typedef struct row_tokens {
    tf_token_vec tokens;
    int64_t *chars; /* [tokens.n, 2] */
} row_tokens;

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
        c->chars += ((unsigned char)c->text[c->byte++] & 0xC0) != 0x80;
    while (c->byte > b)
        c->chars -= ((unsigned char)c->text[--c->byte] & 0xC0) != 0x80;
    return c->chars;
}

/* r->chars from r->tokens, which the template t made of a (n_a tokens of
 * text) and b (n_b of pair), in the order tf_template_apply puts them.
 * 0 when out of memory. */
static int char_offsets(row_tokens *r, const tf_template *t, size_t n_a, size_t n_b,
                        const char *text, const char *pair)
{
    r->chars = tf_malloc((r->tokens.n ? r->tokens.n : 1) * 2 * sizeof *r->chars);
    if (!r->chars)
        return 0;
    char_cursor cursors[2] = {{text, 0, 0}, {pair, 0, 0}};
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tf_template_item *it = &t->items[i];
        const size_t n = it->sequence < 0 ? it->n_ids : it->sequence == 0 ? n_a : n_b;
        for (size_t j = 0; j < n; j++, k++) {
            const tf_token *tok = &r->tokens.v[k];
            char_cursor *c = it->sequence < 0 ? NULL : &cursors[it->sequence];
            r->chars[2 * k] = c ? chars_before(c, tok->begin) : 0;
            r->chars[2 * k + 1] = c ? chars_before(c, tok->end) : 0;
        }
    }
    return 1;
}

/* Row `index` of a batch: the tokens of text (and pair), truncated, in
 * the template, into row. */
static tf_status encode_row(const tf_tokenizer *tok, const char *text, size_t len,
                            const char *pair, size_t pair_len, size_t index, tf_token_vec *a,
                            tf_token_vec *b, row_tokens *row)
{
    char what[48];
    a->n = b->n = 0;
    if (!text && len)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "text %zu is NULL", index);
    snprintf(what, sizeof what, "text %zu", index);
    tf_status s = tf_tokenize(a, tok, text ? text : "", len, what);
    if (s == TF_OK && pair) {
        snprintf(what, sizeof what, "pair %zu", index);
        s = tf_tokenize(b, tok, pair, pair_len, what);
    }
    const tf_template *t = pair ? &tok->pair : &tok->single;
    if (s == TF_OK)
        s = tf_truncate(a, b, pair != NULL, tf_template_added(t), &tok->truncation, what);
    if (s == TF_OK && (!tf_template_apply(&row->tokens, t, a, b) ||
                       !char_offsets(row, t, a->n, b->n, text, pair)))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokens", what);
    return s;
}

/* Row `row` of e from its tokens, then padding. */
static void write_row(tf_encoding *e, int32_t row, const tf_tokenizer *tok, const row_tokens *r)
{
    const size_t T = (size_t)e->seq_len, base = (size_t)row * T, n = r->tokens.n;
    for (size_t t = 0; t < n; t++) {
        const tf_token *k = &r->tokens.v[t];
        e->ids[base + t] = k->id;
        e->type_ids[base + t] = k->type_id;
        e->attention_mask[base + t] = 1;
        e->offsets[2 * (base + t)] = k->begin;
        e->offsets[2 * (base + t) + 1] = k->end;
        e->char_offsets[2 * (base + t)] = r->chars[2 * t];
        e->char_offsets[2 * (base + t) + 1] = r->chars[2 * t + 1];
    }
    e->lengths[row] = (int32_t)n;
    for (size_t t = n; t < T; t++) {
        e->ids[base + t] = tok->pad_id;
        e->type_ids[base + t] = tok->pad_type_id;
        e->attention_mask[base + t] = 0;
        e->offsets[2 * (base + t)] = e->offsets[2 * (base + t) + 1] = 0;
        e->char_offsets[2 * (base + t)] = e->char_offsets[2 * (base + t) + 1] = 0;
    }
}

/* T for rows of at most `longest` tokens: padding to a fixed length or a
 * multiple, as the tokenizer says. */
static size_t padded_length(const tf_tokenizer *tok, size_t longest)
{
    size_t T = tok->pad_fixed > 0 && (size_t)tok->pad_fixed > longest ? (size_t)tok->pad_fixed
                                                                       : longest;
    if (tok->pad_multiple > 0 && T % (size_t)tok->pad_multiple)
        T += (size_t)tok->pad_multiple - T % (size_t)tok->pad_multiple;
    return T;
}

static tf_encoding *alloc_encoding(size_t B, size_t T)
{
    tf_encoding *e = tf_calloc(1, sizeof *e);
    size_t cells;
    if (!e || !tf_mul_size(B, T ? T : 1, &cells) || cells > INT32_MAX) {
        tf_free(e);
        return NULL;
    }
    e->batch = (int32_t)B;
    e->seq_len = (int32_t)T;
    e->lengths = tf_malloc(B * sizeof *e->lengths);
    e->ids = tf_malloc(cells * sizeof *e->ids);
    e->type_ids = tf_malloc(cells * sizeof *e->type_ids);
    e->attention_mask = tf_malloc(cells * sizeof *e->attention_mask);
    e->offsets = tf_malloc(2 * cells * sizeof *e->offsets);
    e->char_offsets = tf_malloc(2 * cells * sizeof *e->char_offsets);
    if (!e->lengths || !e->ids || !e->type_ids || !e->attention_mask || !e->offsets ||
        !e->char_offsets) {
        tf_encoding_destroy(e);
        return NULL;
    }
    return e;
}

tf_status tf_tokenizer_encode_batch(const tf_tokenizer *tok, size_t n, const char *const *texts,
                                    const size_t *lens, const char *const *pairs,
                                    const size_t *pair_lens, tf_encoding **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!tok || !texts || n == 0 || n > INT32_MAX)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s", !tok ? "tokenizer is NULL"
                                                     : !texts ? "texts is NULL"
                                                              : "n: expected 1..2^31-1 texts");
    row_tokens *rows = tf_calloc(n, sizeof *rows); /* [n] */
    tf_token_vec a = {0}, b = {0};
    tf_status s = rows ? TF_OK
                       : tf_fail(TF_ERR_OUT_OF_MEMORY, "encoding: cannot allocate %zu texts", n);
    size_t longest = 0;
    for (size_t i = 0; i < n && s == TF_OK; i++) {
        const size_t len = lens ? lens[i] : texts[i] ? strlen(texts[i]) : 0;
        const char *pair = pairs ? pairs[i] : NULL;
        const size_t plen = pair ? (pair_lens ? pair_lens[i] : strlen(pair)) : 0;
        s = encode_row(tok, texts[i], len, pair, plen, i, &a, &b, &rows[i]);
        longest = rows[i].tokens.n > longest ? rows[i].tokens.n : longest;
    }
    tf_encoding *e = s == TF_OK ? alloc_encoding(n, padded_length(tok, longest)) : NULL;
    if (s == TF_OK && !e)
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "encoding: cannot allocate %zu x %zu ids", n, longest);
    for (size_t i = 0; i < n && s == TF_OK; i++)
        write_row(e, (int32_t)i, tok, &rows[i]);
    for (size_t i = 0; rows && i < n; i++)
        tf_free(rows[i].tokens.v), tf_free(rows[i].chars);
    tf_free(rows), tf_free(a.v), tf_free(b.v);
    if (s) {
        tf_encoding_destroy(e);
        return s;
    }
    *out = e;
    return TF_OK;
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
    tf_free(e->lengths);
    tf_free(e->ids);
    tf_free(e->type_ids);
    tf_free(e->attention_mask);
    tf_free(e->offsets);
    tf_free(e->char_offsets);
    tf_free(e);
}

int32_t tf_encoding_batch(const tf_encoding *e) { return e ? e->batch : 0; }
int32_t tf_encoding_seq_len(const tf_encoding *e) { return e ? e->seq_len : 0; }
const int32_t *tf_encoding_lengths(const tf_encoding *e) { return e ? e->lengths : NULL; }
const int32_t *tf_encoding_ids(const tf_encoding *e) { return e ? e->ids : NULL; }
const int32_t *tf_encoding_type_ids(const tf_encoding *e) { return e ? e->type_ids : NULL; }
const int32_t *tf_encoding_attention_mask(const tf_encoding *e)
{
    return e ? e->attention_mask : NULL;
}
const int64_t *tf_encoding_offsets(const tf_encoding *e) { return e ? e->offsets : NULL; }
const int64_t *tf_encoding_char_offsets(const tf_encoding *e)
{
    return e ? e->char_offsets : NULL;
}
